"""What a click on an example clip costs, with and without the cache, measured in one run.

    .venv/bin/python benchmarks/example_cache.py [--repeats 3]

Through the API of a launched public demo (``/caption_example``, the anchors captioner, as the
page's click sends it), per example clip: the first click on an empty cache (it captions the clip
and keeps the run) and the median of ``--repeats`` later clicks (served from the cache, judged
against the reference caption, page files linked). The ratio is cached / first. Also the Caption
tab's build cost of the example cards' thumbnails (decoded once into the data dir, then read).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from gradio_client import Client

    from benchmarks.support import running_app
    from ui.settings import Settings
    from ui.usecases import examples

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        settings = Settings(data_dir=data)
        posters = []
        for ex in examples.offered(settings):
            t0 = time.perf_counter()
            examples.poster(settings, ex)
            first = time.perf_counter() - t0
            t0 = time.perf_counter()
            examples.poster(settings, ex)
            posters.append((ex.file, first * 1000, (time.perf_counter() - t0) * 1000))
        rows = []
        with running_app(data, accounts=False, captioners="registry") as (url, _store):
            client = Client(url, verbose=False, download_files=False)
            for ex in examples.offered(settings):
                t0 = time.perf_counter()
                status = client.predict(ex.key, "anchors", api_name="/caption_example")[-1]
                first = time.perf_counter() - t0
                assert "captioned now" in status, status
                later = []
                for _ in range(args.repeats):
                    t0 = time.perf_counter()
                    status = client.predict(ex.key, "anchors", api_name="/caption_example")[-1]
                    later.append(time.perf_counter() - t0)
                    assert "cached result" in status, status
                cached = statistics.median(later)
                rows.append((ex.file, first, cached, cached / first))
    print("| example | first click (captions) s | cached click s | ratio |")
    print("|---|---|---|---|")
    for name, first, cached, ratio in rows:
        print(f"| {name} | {first:.2f} | {cached:.2f} | {ratio:.2f} |")
    print()
    print("| thumbnail | first (decode) ms | later (read) ms |")
    print("|---|---|---|")
    for name, first, later in posters:
        print(f"| {name} | {first:.1f} | {later:.1f} |")


if __name__ == "__main__":
    main()
