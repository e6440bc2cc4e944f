"""Cut the licensed real-footage sets from their source files (see README.md for each clip's licence).

Each clip is an excerpt re-encoded to a small H.264 MP4 (at most 640 px wide, CRF 28, no audio)
with the FFmpeg binary that imageio-ffmpeg ships. The source files come from public repositories
(README.md names each repository and path); put them, under the file names of ``SOURCES``, in one
folder and run

    .venv/bin/python benchmarks/footage/make_footage.py --sources DIR [--out benchmarks/footage]
    .venv/bin/python benchmarks/footage/make_footage.py --set heldout2 --sources DIR --out DIR2

``SETS`` names the lists of clips: ``main`` (``CLIPS``, the 24 that ``split.json`` divides into
development and held-out clips) and the held-out sets cut later, each held out whole and its gold
written blind before any captioner ran on it: ``heldout2`` (``HELDOUT2``), ``heldout3``
(``HELDOUT3``), ``heldout4`` (``HELDOUT4``) and ``heldout5`` (``HELDOUT5``). README.md's tables are written from them
(``--readme [--set NAME]``).
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

BBB = dict(work="Big Buck Bunny (2008), first 30 s", author="Blender Foundation (Peach open movie project)",
           licence="CC BY 3.0", licence_url="https://creativecommons.org/licenses/by/3.0/",
           repo="Zulko/moviepy", path="media/big_buck_bunny_0_30.webm")
TRAILER = dict(work="Sintel (2010), official trailer", author="Blender Foundation (Durian open movie project)",
               licence="CC BY 3.0", licence_url="https://creativecommons.org/licenses/by/3.0/",
               repo="saveniukoleh/ar-page", path="sintel.mp4")
SINTEL = dict(work="Sintel (2010), 26 s excerpt of the film", author="Blender Foundation (Durian open movie project)",
              licence="CC BY 3.0", licence_url="https://creativecommons.org/licenses/by/3.0/",
              repo="Mangomm/FFmpegC", path="sintel.mp4")
INTEL = dict(author="Intel Corporation (IoT devkit sample videos)", licence="CC BY 4.0",
             licence_url="https://creativecommons.org/licenses/by/4.0/",
             repo="intel-iot-devkit/sample-videos")
MDN = dict(author="Mozilla Developer Network (interactive-examples media)",
           repo="mdn/interactive-examples")


def _preview(name: str) -> dict:
    """An Intel sample video's preview GIF as a source (the later sets cut the whole GIF)."""
    return dict(**INTEL, work=f"{name} (preview GIF of the sample video)", path=f"preview/{name}.gif")


# The second held-out set's sources (README.md: "The second held-out set").
ZWM = dict(repo="awwkl/ZWM", licence="CC BY 3.0", licence_url="https://creativecommons.org/licenses/by/3.0/")
W3BBB = dict(work="Big Buck Bunny (2008), 10 s excerpt published as mov_bbb.mp4",
             author="Blender Foundation (Peach open movie project)", licence="CC BY 3.0",
             licence_url="https://creativecommons.org/licenses/by/3.0/",
             repo="dangdangkhtn/JS-HTML5--Video--gh-pages", path="mov_bbb.mp4")

#: source key → file name expected in --sources
SOURCES = {"bbb": "bbb_0_30.webm", "trailer": "sintel_ar.mp4", "sintel": "sintel_ffc.mp4",
           "intel_cars": "intel_car-detection.mp4", "intel_person": "intel_one-by-one-person-detection.mp4",
           "intel_bottle": "intel_bottle-detection.mp4", "asl_book": "asl_book.mkv",
           "flower": "flower.mp4", "friday": "friday.mp4",
           "tos": "zwm_tears_of_steel.mp4", "caminandes": "zwm_caminandes.mp4",
           "sintel_zwm": "zwm_sintel.mp4", "bbb_w3": "mov_bbb.mp4",
           "intel_headpose": "intel_head-pose-face-detection-female-and-male.gif",
           "intel_walkpause": "intel_face-demographics-walking-and-pause.gif",
           "intel_aisle": "intel_store-aisle-detection.gif", "intel_worker": "intel_worker-zone-detection.gif",
           "tos_battle": "mdn_tears-of-steel-battle-clip-medium.webm",
           "bbb_trailer": "vhcalc_big_buck_bunny_trailer_480p.mkv",
           "mdn_crystal": "mdn_la_crystal.mp4", "mdn_frog": "mdn_la_frog.mp4",
           "intel_classroom": "intel_classroom.gif", "intel_headpose_male": "intel_head-pose-face-detection-male.gif",
           "intel_pbc": "intel_person-bicycle-car-detection.gif",
           "mdn_pig": "mdn_la_pig.mp4", "mdn_monster": "mdn_la_monster.mp4", "mdn_rabbit": "mdn_la_rabbit.mp4",
           "mdn_stream": "mdn_ie_stream-of-water.mp4", "intel_fruit": "intel_fruit-and-vegetable-detection.gif",
           "mdn_elf": "mdn_la_elf.mp4"}

CLIPS: list[dict] = [
    dict(stem="bbb_sky_to_meadow", src="bbb", start=2.0, end=11.5, **BBB,
         shows="the camera descends from a pink cloudy sky to a meadow with trees; wide landscape"),
    dict(stem="bbb_stream_cut_bird", src="bbb", start=12.0, end=17.0, **BBB,
         shows="a stream between grassy banks seen from above, then a cut to a round bird on a branch"),
    dict(stem="bbb_bird_branch", src="bbb", start=17.0, end=21.0, **BBB,
         shows="a round purple bird on a branch against the sky, facing the camera, flaps its wings"),
    dict(stem="bbb_burrow_title", src="bbb", start=23.0, end=30.0, **BBB,
         shows="a burrow under a tree in a sunny clearing, the film's title fades in; establishing shot"),
    dict(stem="sintel_tr_snow_walker", src="trailer", start=2.0, end=9.6, **TRAILER,
         shows="misty snowy mountains; a hooded figure with a staff walks toward the camera"),
    dict(stem="sintel_tr_faces", src="trailer", start=12.6, end=16.0, **TRAILER,
         shows="an old bearded man's face in a dark interior, cut to a young red-haired woman's face"),
    dict(stem="sintel_tr_alley", src="trailer", start=18.4, end=22.0, **TRAILER,
         shows="a narrow stone alley, a small figure runs between the walls"),
    dict(stem="sintel_tr_city_flight", src="trailer", start=23.0, end=29.0, **TRAILER,
         shows="quick shots: the woman looking up, a ruined city at sunset, a dragon sweeping past"),
    dict(stem="sintel_tr_dragon", src="trailer", start=29.0, end=36.0, **TRAILER,
         shows="the woman and a small dragon, a frightened face, a hand reaching toward a dragon in the sky"),
    dict(stem="sintel_tr_desert", src="trailer", start=36.3, end=41.0, **TRAILER,
         shows="dunes under a grey sky with a tiny figure, the title fades in; extreme wide"),
    dict(stem="sintel_rooftop_steps", src="sintel", start=0.0, end=4.8, **SINTEL,
         shows="the woman climbs rooftop steps at sunset, then a cut to her face looking up"),
    dict(stem="sintel_ruins_sweep", src="sintel", start=4.8, end=12.8, **SINTEL,
         shows="the camera moves across ruined rooftops at sunset with winged creatures in the sky"),
    dict(stem="sintel_tower_closer", src="sintel", start=12.8, end=19.0, **SINTEL,
         shows="the woman by a stone pillar above a city; the framing tightens to her face as she calls out"),
    dict(stem="sintel_back_view", src="sintel", start=19.0, end=22.0, **SINTEL,
         shows="the woman seen from behind watching dragons in the sky, then another angle"),
    dict(stem="sintel_waving", src="sintel", start=22.0, end=26.0, **SINTEL,
         shows="the woman waves at the sky, then calls out next to a brick chimney; birds in the sky"),
    dict(stem="intel_cars_overhead", src="intel_cars", start=3.0, end=17.0, **INTEL,
         work="car-detection.mp4 (sample video)", path="car-detection.mp4",
         shows="a wet car park seen from above; cars drive through the frame"),
    dict(stem="intel_person_back", src="intel_person", start=7.0, end=19.0, **INTEL,
         work="one-by-one-person-detection.mp4 (sample video)", path="one-by-one-person-detection.mp4",
         shows="a woman walks into a white room and stands at a table with her back to a high camera"),
    dict(stem="intel_person_hair", src="intel_person", start=52.0, end=66.0, **INTEL,
         work="one-by-one-person-detection.mp4 (sample video)", path="one-by-one-person-detection.mp4",
         shows="a woman with long hair walks in and stands at the table, back to the camera"),
    dict(stem="intel_person_enters", src="intel_person", start=72.0, end=86.0, **INTEL,
         work="one-by-one-person-detection.mp4 (sample video)", path="one-by-one-person-detection.mp4",
         shows="a man enters from the bottom edge, close to the camera, and walks to the table"),
    dict(stem="intel_person_leaves", src="intel_person", start=122.0, end=136.0, **INTEL,
         work="one-by-one-person-detection.mp4 (sample video)", path="one-by-one-person-detection.mp4",
         shows="a man walks in, stands at the table with his back to the camera, then walks out right"),
    dict(stem="intel_bottles", src="intel_bottle", start=0.0, end=8.0, **INTEL,
         work="bottle-detection.mp4 (sample video)", path="bottle-detection.mp4",
         shows="three water bottles on a white table against a grey wall; locked-off"),
    dict(stem="asl_book", src="asl_book", start=0.0, end=3.7, **INTEL,
         work="asl_gestures/book.mkv (sign-language sample)", path="asl_gestures/book.mkv",
         shows="a woman in a yellow hoodie signs to a camera placed below her eye line, in an office"),
    dict(stem="mdn_flower", src="flower", start=0.0, end=5.0, **MDN, path="live-examples/media/cc0-videos/flower.mp4",
         work="flower.mp4 (CC0 sample video)", licence="CC0 1.0 (folder cc0-videos)",
         licence_url="https://creativecommons.org/publicdomain/zero/1.0/",
         shows="macro time-lapse of a red flower bud opening among leaves, background blurred"),
    dict(stem="friday_switchboard", src="friday", start=0.0, end=6.2, **MDN,
         path="live-examples/media/cc0-videos/friday.mp4",
         work="His Girl Friday (1940, Columbia Pictures), excerpt published as friday.mp4",
         licence="public domain (US: copyright not renewed); published by MDN under CC0 1.0",
         licence_url="https://creativecommons.org/publicdomain/zero/1.0/",
         shows="black-and-white: a woman in a hat leans on a counter talking to switchboard operators"),
]

# The Intel sample videos of this set are over the size the fetched snapshots keep (4 MiB), so the
# source is the repository's preview GIF of each (480×270, 12.5–16.7 fps): the whole GIF is the
# excerpt.
HELDOUT2: list[dict] = [
    dict(stem="tos_canal_lab", src="tos", start=0.0, end=7.6, **ZWM,
         work="Tears of Steel (2012), 10 s excerpt (≈05:00–05:10, centre-cropped to 640×360)",
         author="Blender Foundation (Mango open movie project)", path="data/demo_videos/clip_01_tears_of_steel.mp4",
         shows="live action with effects: a robot, a young man by a canal railing, a man in glasses at a glowing console"),
    dict(stem="caminandes_llama_road", src="caminandes", start=0.0, end=10.0, **ZWM,
         work="Caminandes 1: Llama Drama (2013), 10 s excerpt (≈00:15–00:25)",
         author="Blender Foundation (Caminandes, Pablo Vazquez)", path="data/demo_videos/clip_02_caminandes.mp4",
         shows="a llama stands at the edge of a desert road under a cloudy sky and looks about; dust blows past twice"),
    dict(stem="sintel_snow_fight", src="sintel_zwm", start=0.0, end=10.0, **ZWM,
         work="Sintel (2010), 10 s excerpt (test-videos.co.uk re-encode)",
         author="Blender Foundation (Durian open movie project)", path="data/demo_videos/clip_03_sintel.mp4",
         shows="the red-haired woman fights a hooded attacker in falling snow among rocks; many short shots"),
    dict(stem="bbb_butterfly", src="bbb_w3", start=0.0, end=10.0, **W3BBB,
         shows="the big white rabbit in the grass with a pink butterfly at his head, then standing in a meadow"),
    dict(stem="intel_headpose_pair", src="intel_headpose", start=0.0, end=4.66,
         **_preview("head-pose-face-detection-female-and-male"),
         shows="a woman and a man stand side by side against a grey wall and tilt their heads"),
    dict(stem="intel_trio_walk", src="intel_walkpause", start=0.0, end=3.41,
         **_preview("face-demographics-walking-and-pause"),
         shows="two women and a man walk up side by side in an office corridor and stop"),
    dict(stem="intel_store_aisle", src="intel_aisle", start=0.0, end=4.47,
         **_preview("store-aisle-detection"),
         shows="shoppers between shelves of white crockery in a store aisle; a woman with a bun comes in"),
    dict(stem="intel_worker_zone", src="intel_worker", start=0.0, end=4.74,
         **_preview("worker-zone-detection"),
         shows="a worker in a hard hat and orange vest walks across a warehouse floor marked with red lines"),
]

# The third held-out set's sources (README.md: "The third held-out set"). Its stems name what is in
# the frame, never how it is filmed: the annotator reads them on the contact sheets.
TOS_BATTLE = dict(work="Tears of Steel (2012), 70 s excerpt of the battle in the church, published by MDN",
                  author="Blender Foundation (Mango open movie project)", licence="CC BY 3.0",
                  licence_url="https://creativecommons.org/licenses/by/3.0/",
                  repo="mdn/shared-assets", path="videos/tears-of-steel-battle-clip-medium.webm")
BBB_TRAILER = dict(work="Big Buck Bunny (2008), official trailer (480p)",
                   author="Blender Foundation (Peach open movie project)", licence="CC BY 3.0",
                   licence_url="https://creativecommons.org/licenses/by/3.0/",
                   repo="yoyonel/vhcalc", path="tests/data/big_buck_bunny_trailer_480p.mkv")
MDN_LA = dict(author="Mozilla Developer Network (learning-area examples)", repo="mdn/learning-area",
              licence="CC0 1.0 (the repository's LICENSE)",
              licence_url="https://creativecommons.org/publicdomain/zero/1.0/")
MDN_STORE = "javascript/apis/client-side-storage/indexeddb/video-store/videos/"

HELDOUT3: list[dict] = [
    dict(stem="tos_church_balcony", src="tos_battle", start=0.0, end=9.2, **TOS_BATTLE,
         shows="a soldier with a rifle on a church balcony, a robot behind the railing, a man lying in a blue "
               "coat, a gilded church tower"),
    dict(stem="tos_workshop_device", src="tos_battle", start=13.0, end=25.5, **TOS_BATTLE,
         shows="a young man in a white hooded suit holds up a white mechanical device in a dark workshop"),
    dict(stem="tos_pilot_machine", src="tos_battle", start=48.6, end=57.4, **TOS_BATTLE,
         shows="a dark machine interior with yellow lights; a man in a dark jacket handles a device among ropes "
               "and beams, then climbs"),
    dict(stem="bbb_tr_rodents", src="bbb_trailer", start=13.2, end=16.6, **BBB_TRAILER,
         shows="three rodents on a log in a meadow and the big white rabbit"),
    dict(stem="bbb_tr_night", src="bbb_trailer", start=18.9, end=22.9, **BBB_TRAILER,
         shows="dark forest glimpses: the rabbit's hand with a stick, the rodents, a red flying squirrel's face"),
    dict(stem="mdn_crystal", src="mdn_crystal", start=0.0, end=11.97, **MDN_LA,
         work="crystal.mp4 (video-store example clip)", path=MDN_STORE + "crystal.mp4",
         shows="a clear glass lotus ornament on a wooden table"),
    dict(stem="mdn_frog", src="mdn_frog", start=0.0, end=8.27, **MDN_LA,
         work="frog.mp4 (video-store example clip)", path=MDN_STORE + "frog.mp4",
         shows="a small green toy frog on a wooden table"),
    dict(stem="intel_classroom", src="intel_classroom", start=0.0, end=2.99,
         **_preview("classroom"),
         shows="four people sit at white desks in a meeting room with a window and a flip chart"),
    dict(stem="intel_headpose_man", src="intel_headpose_male", start=0.0, end=5.16,
         **_preview("head-pose-face-detection-male"),
         shows="a smiling man in a blue sweater against a grey wall"),
    dict(stem="intel_parking_cyclist", src="intel_pbc", start=0.0, end=3.41,
         **_preview("person-bicycle-car-detection"),
         shows="a car park: a grey car drives through, a cyclist and a pedestrian near painted lines"),
]

# The fourth held-out set (README.md: "The fourth held-out set"): parts of the Tears of Steel battle
# clip and of the Big Buck Bunny trailer that heldout3 left, three more of MDN's video-store clips
# and MDN's stream of water (both repositories CC0), one more Intel preview. Stems as heldout3's.
HELDOUT4: list[dict] = [
    dict(stem="tos_gunners_robots", src="tos_battle", start=36.4, end=41.1, **TOS_BATTLE,
         shows="a young man in white and a man in glasses aim a white gun device, then robots fighting among "
               "columns"),
    dict(stem="tos_ruins_firing", src="tos_battle", start=41.2, end=46.9, **TOS_BATTLE,
         shows="four people kneel among ruins and fire at robots coming toward them"),
    dict(stem="tos_vault_climber", src="tos_battle", start=57.45, end=61.3, **TOS_BATTLE,
         shows="a church vault and a flying robot by a balcony, then a man with a rifle climbs a rope by organ "
               "pipes"),
    dict(stem="tos_organ_climber", src="tos_battle", start=64.0, end=70.3, **TOS_BATTLE,
         shows="a wrecked robot among pillars, a man in a blue jacket climbs a rope by organ pipes, a robot's "
               "head, the church nave"),
    dict(stem="bbb_tr_squirrel", src="bbb_trailer", start=24.95, end=27.95, **BBB_TRAILER,
         shows="a flying squirrel holding a stone next to a pink butterfly, the big white rabbit pointing, "
               "the film's title"),
    dict(stem="mdn_pig", src="mdn_pig", start=0.0, end=6.53, **MDN_LA,
         work="pig.mp4 (video-store example clip)", path=MDN_STORE + "pig.mp4",
         shows="a small pink toy pig on a wooden table"),
    dict(stem="mdn_monster", src="mdn_monster", start=0.0, end=7.33, **MDN_LA,
         work="monster.mp4 (video-store example clip)", path=MDN_STORE + "monster.mp4",
         shows="a round grey toy monster with green eyes and a red tuft on a wooden table"),
    dict(stem="mdn_rabbit", src="mdn_rabbit", start=0.0, end=7.8, **MDN_LA,
         work="rabbit.mp4 (video-store example clip)", path=MDN_STORE + "rabbit.mp4",
         shows="a small white toy rabbit on a wooden table"),
    dict(stem="mdn_stream", src="mdn_stream", start=0.0, end=3.0, **MDN,
         licence="CC0 1.0 (the repository's LICENSE)", licence_url="https://creativecommons.org/publicdomain/zero/1.0/",
         work="stream-of-water.mp4 (example media)", path="live-examples/media/examples/stream-of-water.mp4",
         shows="a shallow stream runs between large rocks on dry grass in sunlight"),
    dict(stem="intel_fruit_conveyor", src="intel_fruit", start=0.0, end=6.74,
         **_preview("fruit-and-vegetable-detection"),
         shows="an apple, broccoli, a cauliflower and an orange pass one after another on a conveyor belt"),
]

# The fifth held-out set (README.md: "The fifth held-out set"): the seconds of the Tears of Steel battle
# clip and of the Big Buck Bunny trailer that no set has cut yet, MDN's elf.mp4 (the last video-store
# clip no set uses). Stems as heldout3's. Four unused stretches of the Intel person video were cut
# too and dropped before any gold: the same locked-off room and framing as the 24's intel_person_*
# clips, one of them development data, so not footage nobody tuned on.
HELDOUT5: list[dict] = [
    dict(stem="tos_machine_panel", src="tos_battle", start=9.5, end=12.9, **TOS_BATTLE,
         shows="a dark machine with its lid open, white vapour pouring over it, a figure moving behind"),
    dict(stem="tos_workshop_robots", src="tos_battle", start=29.9, end=36.0, **TOS_BATTLE,
         shows="a cluttered workshop in sunlight with a white robot on a bench, then robots' bodies and heads"),
    dict(stem="bbb_tr_rabbit_titles", src="bbb_trailer", start=7.6, end=13.2, **BBB_TRAILER,
         shows="a title card, the big white rabbit standing in a meadow, a second title card"),
    dict(stem="mdn_elf", src="mdn_elf", start=0.0, end=8.03, **MDN_LA,
         work="elf.mp4 (video-store example clip)", path=MDN_STORE + "elf.mp4",
         shows="a small green-and-black toy elf figure on a wooden table"),
]

#: set name → its clips; ``main`` is the 24 of ``split.json``'s "dev" and "heldout", the others
#: are held out whole (``split.LATER``)
SETS = {"main": CLIPS, "heldout2": HELDOUT2, "heldout3": HELDOUT3, "heldout4": HELDOUT4, "heldout5": HELDOUT5}


def cut(src: Path, start: float, end: float, out: Path) -> None:
    import imageio_ffmpeg

    # No metadata and no chapters: a source's chapter list (heldout2's Sintel has one) would leave
    # the excerpt a reference to a chapter track it lacks, which FFmpeg reports as an error on
    # every read. (The 24 have no chapters: their bytes are the same with or without the flag.)
    cmd = [imageio_ffmpeg.get_ffmpeg_exe(), "-y", "-loglevel", "error", "-ss", f"{start:.3f}",
           "-i", str(src), "-t", f"{end - start:.3f}", "-an", "-sn", "-dn", "-map_metadata", "-1",
           "-map_chapters", "-1", "-vf", "scale='min(640,iw)':-2", "-c:v", "libx264", "-crf", "28",
           "-preset", "slow", "-pix_fmt", "yuv420p", "-movflags", "+faststart", str(out)]

    subprocess.run(cmd, check=True)


def set_in(folder: Path) -> str | None:
    """The name of the set whose every clip is in ``folder`` (None when no set is there whole)."""
    for name, clips in SETS.items():
        if all((folder / f"{c['stem']}.mp4").is_file() for c in clips):
            return name
    return None


def _s(t: float) -> str:
    return f"{t:.1f}" if round(t, 1) == t else f"{t:.2f}"


def readme_table(clips: list[dict] = CLIPS) -> str:
    rows = ["| file | source work | author | licence | source repository and path | excerpt (s) | what it shows |",
            "|---|---|---|---|---|---|---|"]
    for c in clips:
        rows.append(f"| `{c['stem']}.mp4` | {c['work']} | {c['author']} | [{c['licence']}]({c['licence_url']}) "
                    f"| `{c['repo']}`: `{c['path']}` | {_s(c['start'])}–{_s(c['end'])} | {c['shows']} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sources", type=Path, help="folder with the source files (SOURCES names)")
    ap.add_argument("--out", type=Path, default=HERE)
    ap.add_argument("--set", choices=tuple(SETS), default="main", help="which list of clips (default: main)")
    ap.add_argument("--readme", action="store_true", help="print README.md's clip table and exit")
    args = ap.parse_args(argv)
    if args.readme:
        print(readme_table(SETS[args.set]))
        return 0
    if args.sources is None:
        ap.error("--sources is required to cut clips")
    args.out.mkdir(parents=True, exist_ok=True)
    for c in SETS[args.set]:
        src = args.sources / SOURCES[c["src"]]
        if not src.is_file():
            print(f"error: missing source {src}", file=sys.stderr)
            return 2
        cut(src, c["start"], c["end"], args.out / f"{c['stem']}.mp4")
        print(f"{c['stem']}.mp4  {(args.out / (c['stem'] + '.mp4')).stat().st_size / 1024:.0f} kB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
