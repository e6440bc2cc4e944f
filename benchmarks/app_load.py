"""Load on the web app through its API: N concurrent clients, each captioning its own clip and
saving a review (open → fix → save), against a real server on loopback; and the Leaderboard tab's
page load with a few hundred entries.

    .venv/bin/python benchmarks/app_load.py                 # N = 1, 4, 16; scripted captioner
    .venv/bin/python benchmarks/app_load.py --captioner anchors --rounds 1
    .venv/bin/python benchmarks/app_load.py --database-url postgresql+psycopg://…
    .venv/bin/python benchmarks/app_load.py --only leaderboard   # 10 vs 500 entries

The leaderboard part stores E entries (E = 10 and 500 by default; seven comparability groups, a
fifth of them without a protocol, 20 model families), then times, one request at a time: the page
itself (GET /), the board as the page loads it (the ``/leaderboard`` endpoint: the same use case
and formatting as the tab's on_show, with the chart), and the use case alone in-process; p50/p95
per kind and the ratio against the smallest E measured in the same run.

Prints requests per second and p50/p95 latency per request kind for each N, with ratios against
N = 1 measured in the same run. The ``scripted`` captioner (cinecap/testing) reads the clip's header
and answers at once, so the numbers measure the app and the store, not a model; ``anchors`` adds
the real CPU analysis (serialised by the caption concurrency limit).
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))] if xs else float("nan")


def run_clients(url: str, n: int, rounds: int, clips: list[Path], captioner: str,
                password: dict[str, str]) -> tuple[float, dict[str, list[float]], int]:
    from gradio_client import Client, handle_file

    from ui.tabs.review import CLIP_OUT

    # The save's status among the outputs the API returns (no session states or layout blocks).
    STATUS = [x for x in CLIP_OUT if x not in ("ref", "selected", "deciding", "conflict_panel",
                                               "decide_row", "rebase")].index("status")
    lat: dict[str, list[float]] = defaultdict(list)
    errors = []
    lock = threading.Lock()
    barrier = threading.Barrier(n)

    def timed(kind: str, fn, *a, **kw):
        t0 = time.perf_counter()
        out = fn(*a, **kw)
        with lock:
            lat[kind].append(time.perf_counter() - t0)
        return out

    def client(i: int) -> None:
        try:
            name = f"user{i}"
            c = Client(url, auth=(name, password[name]), verbose=False, download_files=False)
            barrier.wait()
            for r in range(rounds):
                clip = clips[(i * rounds + r) % len(clips)]
                out = timed("caption", c.predict, handle_file(str(clip)), captioner, "",
                            api_name="/caption")
                clip_id = int(out[-1].split("clip #")[1].split(";")[0])
                timed("open", c.predict, clip_id, api_name="/review_open")
                timed("select", c.predict, "1", api_name="/review_select")
                timed("fix", c.predict, "Camera Movement", "tilt up", 0.0, 0.5, "",
                      f"user{i} round {r}", "", api_name="/review_fix")
                for _ in range(5):  # someone saved the clip meanwhile: re-apply, save again
                    saved = timed("save", c.predict, api_name="/review_save")
                    status = saved[STATUS]
                    if "saved gold pair" in status:
                        break
                    if "was saved by" not in status:
                        raise RuntimeError(f"save did not go through: {status}")
                    timed("rebase", c.predict, api_name="/review_rebase")
                else:
                    raise RuntimeError(f"save did not go through: {status}")
        except Exception as e:  # counted and reported, the run goes on
            with lock:
                errors.append(f"user{i}: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=client, args=(i,)) for i in range(n)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    for e in errors[:5]:
        print("  error:", e, file=sys.stderr)
    return wall, lat, len(errors)


def seed_leaderboard(store, entries: int) -> None:
    """``entries`` finished runs over one bench, in seven protocol groups (every fifth run with
    no protocol: not ranked), 20 model families; each with three per-clip rows."""
    from cinecap.bench import load_bench, run_bench
    from cinecap.judge import get_judge
    from cinecap.testing.captioners import TableCaptioner
    from ui.usecases.accounts import CONSOLE
    from ui.usecases.bench import protocol_key

    tmp = Path(tempfile.mkdtemp(prefix="cinecap-board-"))
    bench = tmp / "bench.json"  # three clips: a table captioner needs no files
    gold = {"a.mp4": "The camera pans left. A close-up of the woman.",
            "b.mp4": "A static wide shot from a high angle.",
            "c.mp4": "The camera tilts up. A medium shot."}
    bench.write_text(json.dumps([{"video_path": n, "gt_caption": g} for n, g in gold.items()]))
    said = {"a.mp4": "The camera pans left. A close-up.", "b.mp4": "A static medium shot.",
            "c.mp4": "The camera tilts up."}
    done = run_bench(load_bench(bench), TableCaptioner(said), get_judge("rules")).to_dict()
    stated = done["protocol"]
    digest = "ab" * 32
    store.bench_runs.add_bench(digest, "CineCap-Bench", 3, "declared", None)
    for i in range(entries):
        protocol = (stated | {"counting": f"variant-{i % 7}"}) if i % 5 else {
            k: "unknown" for k in stated}
        scores = dict(done["scores"], f1=(i * 37 % 100) / 100)
        store.bench_runs.add({
            "source": "cli", "bench_sha256": digest, "bench_name": "CineCap-Bench", "items": 3,
            "model": f"Family{i % 20}-{i}B", "model_family": f"Family{i % 20}",
            "model_version": f"v{i}", "round": None, "captioner": "vlm", "options": {},
            "judge": "rules", "judge_version": "rules-1.18", "protocol": protocol,
            "protocol_key": protocol_key(protocol), "aspects": done["meta"]["aspects"],
            "meta": done["meta"], "results_sha256": None, "run_date": "2026-12-01"},
            done["items"], scores, CONSOLE)


def leaderboard_load(sizes: list[int], requests: int, database_url: str) -> list[tuple]:
    """(entries, {kind: latencies}) per size: the page, the board endpoint, the use case."""
    import urllib.request

    from gradio_client import Client

    from benchmarks.support import running_app
    from ui.usecases import leaderboard
    from ui.usecases.accounts import CONSOLE

    filters = ("all", "all", "all", "", "rank", "high first", "all", True, [])
    out = []
    tmp = Path(tempfile.mkdtemp(prefix="cinecap-board-load-"))
    for n in sizes:
        if database_url:
            from benchmarks.support import reset_postgres

            reset_postgres(database_url)
        with running_app(tmp / f"data{n}", database_url or None, accounts=False) as (url, store):
            seed_leaderboard(store, n)
            c = Client(url, verbose=False, download_files=False)
            lat: dict[str, list[float]] = defaultdict(list)
            c.predict(*filters, api_name="/leaderboard")  # warm: imports, the first plot
            for _ in range(requests):
                t0 = time.perf_counter()
                with urllib.request.urlopen(url) as r:
                    r.read()
                lat["page"].append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                c.predict(*filters, api_name="/leaderboard")
                lat["board"].append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                leaderboard.board(store, CONSOLE)
                lat["use case"].append(time.perf_counter() - t0)
            out.append((n, lat, store.backend))
    return out


def print_leaderboard(rows: list[tuple], requests: int) -> None:
    def pp(xs: list[float]) -> str:
        return f"{1000 * pct(xs, 0.5):.0f}/{1000 * pct(xs, 0.95):.0f}"

    base = {k: pct(v, 0.5) for k, v in rows[0][1].items()}
    print(f"\nleaderboard page load: {requests} requests per size, one at a time, store "
          f"{rows[0][2]}; ratio: p50 against {rows[0][0]} entries")
    head = (f"{'entries':>7} {'page p50/p95 ms':>16} {'board p50/p95 ms':>17} "
            f"{'x':>5} {'use case p50/p95 ms':>20} {'x':>5}")
    print(head)
    print("-" * len(head))
    for n, lat, _ in rows:
        print(f"{n:>7} {pp(lat['page']):>16} {pp(lat['board']):>17} "
              f"{pct(lat['board'], 0.5) / base['board']:>5.2f} {pp(lat['use case']):>20} "
              f"{pct(lat['use case'], 0.5) / base['use case']:>5.2f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", default="1,4,16", help="comma list of N")
    ap.add_argument("--rounds", type=int, default=3, help="caption+review rounds per client")
    ap.add_argument("--captioner", default="scripted", choices=["scripted", "anchors"])
    ap.add_argument("--caption-concurrency", type=int, default=1)
    ap.add_argument("--database-url", default="", help="default: SQLite in a temp dir")
    ap.add_argument("--only", choices=["all", "review", "leaderboard"], default="all")
    ap.add_argument("--leaderboard-entries", default="10,500", help="comma list of E")
    ap.add_argument("--leaderboard-requests", type=int, default=30)
    args = ap.parse_args(argv)
    ns = [int(x) for x in args.clients.split(",")]

    import logging

    logging.disable(logging.WARNING)
    if args.only in ("all", "leaderboard"):
        sizes = [int(x) for x in args.leaderboard_entries.split(",")]
        print_leaderboard(leaderboard_load(sizes, args.leaderboard_requests, args.database_url),
                          args.leaderboard_requests)
        if args.only == "leaderboard":
            return 0
    from cinecap.captioners.anchors import AnchorsCaptioner
    from cinecap.testing.captioners import ScriptedCaptioner
    from benchmarks.support import running_app
    from cinecap.testing.clips import moving_pattern, write_clip

    tmp = Path(tempfile.mkdtemp(prefix="cinecap-load-"))
    total_clips = max(ns) * args.rounds
    clips = [write_clip(tmp / f"clip{i}.mp4", moving_pattern(n=25, dx=2, seed=i))
             for i in range(total_clips)]
    factory = ScriptedCaptioner if args.captioner == "scripted" else AnchorsCaptioner
    rows = []
    for n in ns:
        if args.database_url:
            from benchmarks.support import reset_postgres

            reset_postgres(args.database_url)
        with running_app(tmp / f"data{n}", args.database_url or None, accounts=False,
                         captioners={args.captioner: factory},
                         caption_concurrency=args.caption_concurrency,
                         auth="local") as (url, store):
            passwords = {f"user{i}": f"password-{i}" for i in range(n)}
            for name, pw in passwords.items():
                store.users.add(name, "annotator", pw)
            wall, lat, errors = run_clients(url, n, args.rounds, clips, args.captioner,
                                            passwords)
            backend = store.backend
        requests = sum(len(v) for v in lat.values())
        rows.append((n, requests, wall, requests / wall, lat, errors))
    base_rps = rows[0][3] or float("nan")
    print(f"\napp load: {args.captioner} captioner, {args.rounds} rounds per client "
          f"(caption, open, fix, save), store {backend}, caption concurrency "
          f"{args.caption_concurrency}")
    head = (f"{'N':>3} {'requests':>8} {'wall s':>7} {'req/s':>7} {'x N=1':>6} "
            f"{'caption p50/p95 ms':>19} {'save p50/p95 ms':>16} {'all p50/p95 ms':>15} "
            f"{'errors':>6}")
    print(head)
    print("-" * len(head))
    for n, req, wall, rps, lat, errors in rows:
        every = [x for v in lat.values() for x in v]

        def pp(xs: list[float]) -> str:
            return f"{1000 * pct(xs, 0.5):.0f}/{1000 * pct(xs, 0.95):.0f}"

        print(f"{n:>3} {req:>8} {wall:>7.2f} {rps:>7.1f} {rps / base_rps:>6.2f} "
              f"{pp(lat['caption']):>19} {pp(lat['save']):>16} {pp(every):>15} {errors:>6}")
    return 0 if all(r[5] == 0 for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
