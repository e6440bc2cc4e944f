"""Throughput of the ``llm`` judge: pairs per second with 1, 8 and 32 requests in flight.

Starts the scripted OpenAI-compatible server of ``cinecap/testing/openai_server.py`` on loopback,
answering every request with a valid judge JSON after a fixed delay (default 50 ms, a stand-in for
model latency), and judges the same unique pairs at each concurrency with the cache off; a last
row reruns the batch through a warm cache. Ratios are against 1 request in flight, measured in the
same run. Nothing here needs a model or the network.

    .venv/bin/python benchmarks/judge_throughput.py [--pairs 64] [--delay 0.05] [--inflight 1 8 32]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from cinecap import taxonomy as tx  # noqa: E402
from cinecap.judge.llm import LLMJudge  # noqa: E402
from cinecap.testing.openai_server import OpenAIServer, Reply, chat_reply  # noqa: E402


def _answer_body() -> dict:
    by_dim = {a: {"gt_statements": [], "pred_statements": [], "matched_statements": [],
                  "gt_count": 0, "pred_count": 0, "matched_count": 0} for a in tx.ASPECTS}
    by_dim[tx.CAMERA_MOVEMENT] = {"gt_statements": ["pans right"], "pred_statements": ["pans right"],
                                  "matched_statements": ["pans right"], "gt_count": 1,
                                  "pred_count": 1, "matched_count": 1}
    return chat_reply(json.dumps({"by_dim": by_dim})).body


def _run(judge: LLMJudge, pairs: list[tuple[str, str]]) -> tuple[float, int]:
    t0 = time.perf_counter()
    results = judge.judge_many(pairs)
    seconds = time.perf_counter() - t0
    return seconds, sum(r.failed for r in results)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=64, help="unique pairs per run (default 64)")
    ap.add_argument("--delay", type=float, default=0.05, help="server delay per request, s")
    ap.add_argument("--inflight", type=int, nargs="+", default=[1, 8, 32],
                    help="requests in flight to measure (the first is the baseline)")
    args = ap.parse_args(argv)
    body = _answer_body()
    pairs = [(f"The camera pans right over shot {i}.", f"It pans right ({i}).")
             for i in range(args.pairs)]
    rows = []
    with OpenAIServer(default=lambda req: Reply(200, body, delay=args.delay)) as srv, \
            tempfile.TemporaryDirectory() as tmp:
        for n in args.inflight:
            judge = LLMJudge(base_url=srv.base_url, model="bench-model", concurrency=n,
                             cache=False, timeout=30)
            sent = len(srv.chat_requests)
            seconds, failed = _run(judge, pairs)
            rows.append((f"{n} in flight", seconds, failed, len(srv.chat_requests) - sent))
        cached = LLMJudge(base_url=srv.base_url, model="bench-model",
                          concurrency=max(args.inflight), cache=Path(tmp) / "judge.sqlite")
        _run(cached, pairs)  # fill the cache
        sent = len(srv.chat_requests)
        seconds, failed = _run(cached, pairs)
        rows.append(("warm cache", seconds, failed, len(srv.chat_requests) - sent))

    base = args.pairs / rows[0][1]
    print(f"llm judge throughput: {args.pairs} pairs, server delay {args.delay * 1000:.0f} ms "
          f"per request, loopback")
    print(f"{'mode':<14}{'seconds':>9}{'pairs/s':>10}{'vs 1':>8}{'requests':>10}{'failed':>8}")
    for name, seconds, failed, requests in rows:
        rate = args.pairs / seconds
        print(f"{name:<14}{seconds:>9.2f}{rate:>10.1f}{rate / base:>7.1f}x{requests:>10}"
              f"{failed:>8}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
