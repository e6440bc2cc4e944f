"""Run the ``cinecap`` command line in tests: in-process through ``cinecap.cli.main(argv)`` (the
default: the same parser, the same error translation, no interpreter start-up), or in a real
``python -m cinecap`` subprocess for the few smoke tests where a fresh process is the point.

    result = cli("judge", "--gt", "A close-up.", "--pred", "A close-up.", "--json")
    assert result.returncode == 0 and result.json()["f1"] == 1.0
"""
from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class CliResult:
    returncode: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        """The JSON on stdout of a successful run (fails the test with stderr otherwise)."""
        assert self.returncode == 0, self.stderr
        return json.loads(self.stdout)


@contextlib.contextmanager
def _environment(env: Mapping[str, str] | None, unset: tuple[str, ...]) -> Iterator[None]:
    saved = dict(os.environ)
    try:
        for key in os.environ.keys() & set(unset):
            del os.environ[key]
        os.environ.update(env or {})
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


class _Stdin(io.TextIOWrapper):
    """A text stdin with a ``.buffer`` of bytes, as ``sys.stdin`` has."""


def cli(*args: str, stdin: str | bytes | None = None, env: Mapping[str, str] | None = None,
        unset: tuple[str, ...] = (), subprocess_run: bool = False, timeout: float = 300
        ) -> CliResult:
    """Run ``cinecap ARGS``: ``env`` is added to the environment and ``unset`` removed from it
    for the run; ``stdin`` is what the command reads."""
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    if subprocess_run:
        full = {k: v for k, v in os.environ.items() if k not in unset}
        full.update(env or {})
        full["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), full.get("PYTHONPATH")) if p)
        proc = subprocess.run([sys.executable, "-m", "cinecap", *args], input=data, cwd=ROOT,
                              env=full, capture_output=True, timeout=timeout)
        return CliResult(proc.returncode, proc.stdout.decode("utf-8", "replace"),
                         proc.stderr.decode("utf-8", "replace"))

    from cinecap.cli import main

    out, err = io.StringIO(), io.StringIO()
    fake_stdin = _Stdin(io.BytesIO(data or b""), encoding="utf-8")
    real_stdin = sys.stdin
    sys.stdin = fake_stdin
    handlers, level = logging.root.handlers[:], logging.root.level  # main() configures logging
    try:
        with _environment(env, unset), contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as e:  # argparse: --help, usage errors
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    finally:
        sys.stdin = real_stdin
        logging.root.handlers[:] = handlers
        logging.root.setLevel(level)
    return CliResult(int(code), out.getvalue(), err.getvalue())
