"""``python -m cinecap`` / ``cinecap``: a thin argparse layer over the library.

Each sub-command lives in its own module exposing ``add_parser(subparsers)``, which registers the
parser and sets ``func(args) -> int``. Modules are imported lazily, so ``cinecap judge`` never pays
for torch. Domain errors become one clear line on stderr and the error's exit code.
"""
from __future__ import annotations

import argparse
import importlib
import json
import logging
import sys
from typing import Any

from cinecap import __version__
from cinecap.errors import CinecapError
from cinecap.progress import Progress

#: sub-command name → module.
COMMANDS: dict[str, str] = {
    "judge": "cinecap.cli.judge",
    "analyze": "cinecap.cli.analyze",
    "caption": "cinecap.cli.caption",
    "captioners": "cinecap.cli.captioners",
    "tiny-model": "cinecap.cli.tiny_model",
    "bench": "cinecap.cli.bench",
    "train": "cinecap.cli.train",
    "models": "cinecap.cli.models",
    "verify": "cinecap.cli.verify",
}


#: Every exit status the command line uses, and what it means (the errors' ``exit_code``s:
#: cinecap.errors for 2-6, the store's errors in db/errors.py for 7 and 8).
EXIT_CODES: tuple[tuple[int, str], ...] = (
    (0, "success"),
    (2, "bad input or usage (an empty caption, a malformed file, an unknown option or name)"),
    (3, "a clip that cannot be used (not a video, truncated, over the limits)"),
    (4, "a backend that cannot run here (missing package, no GPU, no server configured), or a "
        "model file that failed its download or its checksum"),
    (5, "a judge or captioner that failed on this input"),
    (6, "a training round that could not start or failed"),
    (7, "permission denied: the user's role does not allow this action (store)"),
    (8, "conflict: someone saved the same item since it was loaded; reload and merge (store)"),
    (130, "interrupted (Ctrl-C)"),
)


def exit_codes_text() -> str:
    return "exit codes:\n" + "\n".join(f"  {code:<3} {meaning}" for code, meaning in EXIT_CODES)


def build_parser(commands: list[str] | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cinecap", description="Cinematographic captioning grounded in visual evidence.",
        epilog=exit_codes_text(), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"cinecap {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in commands or COMMANDS:
        importlib.import_module(COMMANDS[name]).add_parser(sub)
    return parser


def progress_printer(enabled: bool = True) -> Progress | None:
    """The command line's progress callback: ``[ 42.0%] message`` lines on stderr (None when off)."""
    if not enabled:
        return None

    def show(fraction: float, message: str) -> None:
        print(f"[{100 * fraction:5.1f}%] {message}", file=sys.stderr)

    return show


def print_json(obj: Any) -> None:
    json.dump(obj, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # Build only the parser asked for, so `cinecap judge` never imports the heavy commands.
    wanted = [argv[0]] if argv and argv[0] in COMMANDS else None
    return run(build_parser(wanted), argv)


def run(parser: argparse.ArgumentParser, argv: list[str]) -> int:
    """Parse ``argv`` and run the chosen sub-command's ``func(args) -> int``: ``-v`` logs to
    stderr, a domain error prints one ``error: …`` line and returns its exit code. Every command
    line built on this library goes through here (``python -m cinecap``, the app's own)."""
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except CinecapError as e:
        print(f"error: {e.message}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
