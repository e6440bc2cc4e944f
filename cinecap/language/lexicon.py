"""Word lists about nouns shared by the parser and the subject finder: people and animals
(who can be a subject of orientation and composition, and who does what an -ing word after them
says), and the gender of nouns for pronouns."""
from __future__ import annotations
from cinecap.language.data import words

FEMALE = words("lexicon", "female")
MALE = words("lexicon", "male")


ANIMATE = words("lexicon", "animate")


def animate(noun: str) -> bool:
    if noun.endswith("s") and len(noun) > 3 and noun not in ANIMATE:  # plurals: "friends"
        noun = noun[:-3] + "y" if noun.endswith("ies") else noun[:-1]
    return noun in ANIMATE or noun in MALE or noun in FEMALE or noun.endswith(
        ("ist", "ian", "ess", "friend")) or (noun.endswith(("er", "or")) and noun not in _THINGS_ER)


_THINGS_ER = words("lexicon", "things_er")


ANIMALS = words("lexicon", "animals")

VEHICLES = words("lexicon", "vehicles")
