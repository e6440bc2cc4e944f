"""Word lists about nouns shared by the parser and the subject finder: people and animals
(who can be a subject of orientation and composition, and who does what an -ing word after them
says), and the gender of nouns for pronouns."""
from __future__ import annotations

FEMALE = frozenset("woman women girl lady mother bride actress daughter sister queen wife "
                    "waitress grandmother aunt niece nun princess".split())
MALE = frozenset("man men boy guy father groom actor son brother king husband waiter "
                  "grandfather uncle nephew monk prince gentleman".split())


#: Nouns of people and animals: a subject rather than the thing next to it ("a man standing under
#: a streetlamp on the right" places the man). Unknown nouns ending like a role (-er, -ist, …)
#: count as people too.
ANIMATE = frozenset(
    "man men woman women boy boys girl girls child children kid kids baby person people guy lady "
    "gentleman couple family crowd figure figures subject hero heroine villain character "
    "characters dog dogs cat cats horse horses bird birds animal animals deer cow fox wolf "
    "bride groom chef nurse doctor cop officer soldier detective suspect witness student teacher "
    "father mother son daughter brother sister husband wife king queen prince princess monk nun "
    "athlete pilot driver runner rider cyclist skier surfer dancer singer player boxer guard "
    "hiker climber swimmer diver fisherman actor actress musician guitarist pianist drummer "
    "violinist artist scientist student tourist traveller traveler stranger intruder hunter "
    "warrior knight cowboy samurai robot attorney lawyer judge host anchor guest soprano tenor "
    "tramp defendant juror clerk priest coach referee patient victim twin teen youth elder "
    "chameleon snail ladybug".split())


def animate(noun: str) -> bool:
    if noun.endswith("s") and len(noun) > 3 and noun not in ANIMATE:  # plurals: "friends"
        noun = noun[:-3] + "y" if noun.endswith("ies") else noun[:-1]
    return noun in ANIMATE or noun in MALE or noun in FEMALE or noun.endswith(
        ("ist", "ian", "ess", "friend")) or (noun.endswith(("er", "or")) and noun not in _THINGS_ER)


_THINGS_ER = frozenset("corner counter computer monitor tower poster paper water river floor "
                       "door mirror window shutter trailer container tractor elevator escalator "
                       "heater cooler radiator computer letter number color colour chapter "
                       "theater theatre center centre meter metre border frame shelter".split())


#: Animals: "it" can be one of them ("keeps the dog sharp as it approaches").
ANIMALS = frozenset(
    "dog dogs cat cats horse horses bird birds animal animals deer cow cows fox wolf bear lion "
    "tiger eagle hawk owl gull seagull duck goose swan fish shark whale dolphin bee butterfly "
    "spider snake lizard frog rabbit squirrel mouse rat goat sheep pig elephant giraffe monkey "
    "puppy kitten calf foal pony camel zebra crab turtle heron crow pigeon parrot chameleon snail "
    "ladybug".split())

#: Vehicles a caption goes on about as "it", like an animal (not when they are an object).
VEHICLES = frozenset(
    "train car bus truck lorry van tram boat ship ferry yacht plane airplane aeroplane jet "
    "helicopter bike bicycle motorcycle motorbike scooter taxi cab locomotive engine subway "
    "rocket canoe kayak tractor jeep suv limousine".split())
