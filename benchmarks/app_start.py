"""The CPU a ``python app.py`` start costs, from exec to the first page served (Linux: /proc).

    .venv/bin/python benchmarks/app_start.py                      # this checkout, 3 runs each
    .venv/bin/python benchmarks/app_start.py --checkout /tmp/before --checkout .   # before/after
    .venv/bin/python benchmarks/app_start.py --runs 5 --examples 0

Each run starts ``app.py`` of a checkout on loopback with the embedded defaults (a SQLite store in
a new data directory, the example clips on unless ``--examples 0``), asks for ``/`` until the page
comes, then reads the process's user + system CPU (its children's included) and stops it with
SIGTERM. Two kinds of start: the *first* on a new data directory (migrations, the example cards'
thumbnails) and a *restart* on the directory the first one left. The example clips' captions
run in the background from the start, so part of them counts; detector files are neither
fetched (``CINECAP_FETCH_MODELS=never``: no network) nor taken from ``shared/`` beside the
checkout (``CINECAP_MODELS_SHARED=0``), so every checkout starts alike. Prints, per checkout and
kind, the median CPU and wall-clock seconds (and min–max), with each checkout's ratio against
the first one's.
"""
from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TICK = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    """User + system CPU of ``pid`` and of its children it has waited for."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / TICK  # utime stime cutime cstime


def one_start(checkout: Path, data: Path, examples: bool, timeout: float) -> tuple[float, float]:
    """(CPU s, wall s) from exec to the first page of ``checkout``'s app.py on ``data``."""
    port = free_port()
    env = {**os.environ, "CINECAP_DATA_DIR": str(data), "GRADIO_ANALYTICS_ENABLED": "False",
           "CINECAP_FETCH_MODELS": "never", "CINECAP_MODELS_SHARED": "0",
           "CINECAP_EXAMPLES": "1" if examples else "0"}
    env.pop("DATABASE_URL", None)
    t0 = time.perf_counter()
    app = subprocess.Popen([sys.executable, "app.py", "--host", "127.0.0.1", "--port", str(port)],
                           cwd=checkout, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
    try:
        while True:
            if app.poll() is not None:
                raise RuntimeError(f"app.py exited: {app.stderr.read().decode()[-1500:]}")
            if time.perf_counter() - t0 > timeout:
                raise RuntimeError(f"no page within {timeout:g} s")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as r:
                    if r.status == 200:
                        r.read()
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.05)
        wall = time.perf_counter() - t0
        cpu = cpu_seconds(app.pid)
    finally:
        app.send_signal(signal.SIGTERM)
        try:
            app.wait(timeout=30)
        except subprocess.TimeoutExpired:
            app.kill()
            app.wait()
    return cpu, wall


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkout", type=Path, action="append",
                   help="a checkout whose app.py to start (repeat to compare; default: this one)")
    p.add_argument("--runs", type=int, default=3, help="runs of each kind per checkout")
    p.add_argument("--examples", type=int, choices=(0, 1), default=1)
    p.add_argument("--timeout", type=float, default=300)
    args = p.parse_args()
    checkouts = [c.resolve() for c in (args.checkout or [ROOT])]
    rows = []
    for checkout in checkouts:
        runs: dict[str, list[tuple[float, float]]] = {"first": [], "restart": []}
        for _ in range(args.runs):
            data = Path(tempfile.mkdtemp(prefix="cinecap-start-")) / "data"
            runs["first"].append(one_start(checkout, data, bool(args.examples), args.timeout))
            runs["restart"].append(one_start(checkout, data, bool(args.examples), args.timeout))
        for kind, got in runs.items():
            rows.append((checkout, kind, [c for c, _ in got], [w for _, w in got]))
    print(f"\napp.py from exec to the first page ({args.runs} runs each, examples "
          f"{'on' if args.examples else 'off'}; load {os.getloadavg()[0]:.1f})\n")
    print(f"| checkout | start | CPU s median (min–max) | wall s median (min–max) | CPU ratio |")
    print("|---|---|---|---|---|")
    first = {kind: statistics.median(cpu) for c, kind, cpu, _ in rows if c == checkouts[0]}
    for checkout, kind, cpu, wall in rows:
        med = statistics.median(cpu)
        print(f"| {checkout} | {kind} | {med:.2f} ({min(cpu):.2f}–{max(cpu):.2f}) | "
              f"{statistics.median(wall):.1f} ({min(wall):.1f}–{max(wall):.1f}) | "
              f"{med / first[kind]:.2f} |")


if __name__ == "__main__":
    main()
