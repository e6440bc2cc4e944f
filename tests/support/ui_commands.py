"""Another process running the app's command line again and again: ``python -m
tests.support.ui_commands`` reads one command per line of stdin (a JSON list of ``python -m ui``
arguments), runs it through ``ui.cli.main`` in the same interpreter and answers one JSON line
(exit code, stdout, stderr). Each command opens and closes the store as ``python -m ui`` does;
what is saved is the interpreter start (~2 s of CPU) of a process per command.

    with UiCommands(env) as other:
        assert other.run("users", "list").returncode == 0
"""
from __future__ import annotations

import contextlib
import io
import json
import logging
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[2]


class UiCommands:
    """The process, started with ``env``; :meth:`run` one command at a time."""

    def __init__(self, env: dict[str, str]):
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.support.ui_commands"],
                                     cwd=ROOT, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)

    def run(self, *args: str) -> SimpleNamespace:
        """``python -m ui ARGS`` in the process: ``returncode``, ``stdout``, ``stderr``."""
        self.proc.stdin.write(json.dumps(list(args)) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the ui commands process exited ({self.proc.wait()})")
        return SimpleNamespace(**json.loads(line))

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            pipe.close()

    def __enter__(self) -> "UiCommands":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def main() -> None:
    from ui.cli import main as ui_main

    answer = sys.stdout
    for line in sys.stdin:
        out, err = io.StringIO(), io.StringIO()
        handlers, level = logging.root.handlers[:], logging.root.level  # main() sets logging
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    code = ui_main(json.loads(line))
                except SystemExit as e:  # argparse: usage errors
                    code = e.code if isinstance(e.code, int) else 2
        finally:
            logging.root.handlers[:] = handlers
            logging.root.setLevel(level)
        answer.write(json.dumps({"returncode": int(code), "stdout": out.getvalue(),
                                 "stderr": err.getvalue()}) + "\n")
        answer.flush()


if __name__ == "__main__":
    main()
