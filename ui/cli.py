"""``python -m ui COMMAND …``: the app's own command line, over its store and its use cases.

- ``users add NAME [--role R] [--password-stdin]`` / ``users list [--json]`` /
  ``users set-role NAME ROLE``: the web app's local accounts (``ui.usecases.accounts``, run as
  :data:`~ui.usecases.accounts.CONSOLE`, an admin: whoever runs it can open the database anyway).
- ``db backup DEST [--force]``: a consistent copy of the SQLite store with SQLite's backup API
  (``db.backup``), the one safe way to copy it while the app runs; PostgreSQL: use pg_dump.
- ``bench run BENCH …`` / ``bench add RESULTS.json`` / ``bench list``: benchmark runs recorded
  in the store for the Leaderboard tab (``ui.usecases.bench``). They live here, not as
  ``cinecap bench --store``: the library never imports the store. ``bench run`` runs the
  library's own bench code and keeps each clip as it is captioned (``--resume ID`` continues an
  interrupted run).
- ``export bench|training|hf DIR``: gold pairs out as a CineCap-Bench folder, a
  ``cinecap-gold-pairs/1`` JSONL folder or a Hugging Face ``datasets`` folder; ``import SOURCE``:
  such a file, folder or zip in (``ui.usecases.datasets``).

The password comes from ``--password-stdin`` (one line) or an interactive prompt, never from argv
(it would show in the shell history and ``ps``). Errors print ``error: …`` and exit with the
error's code (``cinecap.cli.run``), as the library's command line does.
"""
from __future__ import annotations

import argparse
import getpass
import sys
from typing import Callable

from cinecap import __version__
from cinecap.errors import InputError
from db.cli import add_store_arguments, open_store
from ui.usecases import accounts


def add_users_parser(subparsers) -> None:
    p = subparsers.add_parser("users", help="manage the web app's local accounts",
                              description="Manage the web app's local accounts and roles.")
    add_store_arguments(p)
    sub = p.add_subparsers(dest="users_command", metavar="ACTION", required=True)
    a = sub.add_parser("add", help="add an account")
    a.add_argument("name")
    a.add_argument("--role", choices=accounts.ROLES, default="annotator")
    a.add_argument("--password-stdin", action="store_true",
                   help="read the password from the first line of stdin")
    a.set_defaults(func=_add)
    ls = sub.add_parser("list", help="list accounts and roles")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=_list)
    r = sub.add_parser("set-role", help="change an account's role")
    r.add_argument("name")
    r.add_argument("role", choices=accounts.ROLES)
    r.set_defaults(func=_set_role)


def add_db_parser(subparsers) -> None:
    p = subparsers.add_parser("db", help="the app's database: a safe backup",
                              description="The app's database. `backup` copies a SQLite store "
                                          "with SQLite's backup API: the one safe way to copy it, "
                                          "also while the app runs (never cp the file). "
                                          "PostgreSQL: use pg_dump.")
    add_store_arguments(p)
    sub = p.add_subparsers(dest="db_command", metavar="ACTION", required=True)
    b = sub.add_parser("backup", help="copy the SQLite database to DEST, consistently")
    b.add_argument("dest", metavar="DEST", help="the file to write (a single SQLite file)")
    b.add_argument("--force", action="store_true", help="replace DEST when it exists")
    b.set_defaults(func=_backup)


def add_bench_parser(subparsers) -> None:
    from cinecap.cli.options import add_captioner_options, add_judge_options

    p = subparsers.add_parser(
        "bench", help="benchmark runs on the leaderboard: run, add a results file, list",
        description="Benchmark runs recorded in the app's store (the Leaderboard tab). `cinecap "
                    "bench` cannot record them itself: the library never imports the store.")
    add_store_arguments(p)
    sub = p.add_subparsers(dest="bench_command", metavar="ACTION", required=True)
    r = sub.add_parser("run", help="run a captioner and a judge over a bench file and record it",
                       description="Run the library's bench (as `cinecap bench` does) and record "
                                   "the run; each clip is kept as it is captioned, so an "
                                   "interrupted run continues with --resume ID.")
    r.add_argument("bench", help="bench JSON file (CineCap-Bench format)")
    r.add_argument("--captioner", default="anchors", help="captioner name (default: anchors)")
    r.add_argument("--judge", default="rules", help="judge name (default: rules)")
    add_captioner_options(r)
    add_judge_options(r)
    r.add_argument("--aspects", choices=["seven", "six"], default="seven",
                   help="score all seven aspects (benchmark) or the six training aspects")
    r.add_argument("--limit", type=int, help="only the first N items")
    r.add_argument("--out", help="also write the results JSON (as cinecap bench --out)")
    r.add_argument("--resume", type=int, metavar="ID",
                   help="continue the interrupted run ID (same bench, captioner, judge, options)")
    _add_label_arguments(r)
    r.set_defaults(func=_bench_run)
    a = sub.add_parser("add", help="record a results file made by `cinecap bench --out`",
                       description="Check a results file (schema, aspects, scores against its "
                                   "per-clip judgements, a known bench) and record it.")
    a.add_argument("results", metavar="RESULTS.json")
    a.add_argument("--bench-name", default="",
                   help="declare the bench by this name when the store does not know its hash")
    _add_label_arguments(a)
    a.set_defaults(func=_bench_add)
    ls = sub.add_parser("list", help="the leaderboard as text (or JSON)")
    ls.add_argument("--json", action="store_true")
    ls.add_argument("--unfinished", action="store_true",
                    help="interrupted runs (to resume) instead of the leaderboard")
    ls.set_defaults(func=_bench_list)


def _add_label_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--label", default="", metavar="NAME",
                   help="the model's name on the leaderboard (default: the captioner's model or "
                        "adapter option, else the captioner's name)")
    p.add_argument("--family", default="", help="its family for the filter (default: the "
                                                "leading letters of the model's name)")
    p.add_argument("--model-version", default="", help="its version (default: from the run)")
    p.add_argument("--round", type=int, help="the training round that made it")


def add_export_parser(subparsers) -> None:
    from ui.usecases.datasets import FORMATS

    p = subparsers.add_parser("export", help="gold pairs out of the store as a dataset folder",
                              description="Gold pairs out of the store: each clip's newest "
                                          "accepted pair, as a folder holding the data file and "
                                          "the clips (paths relative to it).")
    add_store_arguments(p)
    sub = p.add_subparsers(dest="export_command", metavar="FORMAT", required=True)
    helps = {"bench": "bench.json, CineCap-Bench's format (cinecap bench runs on it)",
             "training": "gold_pairs.jsonl, the cinecap-gold-pairs/1 contract (cinecap train)",
             "hf": "a Hugging Face datasets folder: Parquet, the clips, a dataset card"}
    for fmt in FORMATS:
        f = sub.add_parser(fmt, help=helps[fmt])
        f.add_argument("dir", metavar="DIR", help="a new (or empty) folder")
        f.add_argument("--include-submitted", action="store_true",
                       help="per clip the newest pair not sent back (default: the newest "
                            "accepted)")
        f.set_defaults(func=_export, format=fmt)


def add_import_parser(subparsers) -> None:
    p = subparsers.add_parser("import", help="clips and gold pairs in from a dataset",
                              description="Add the clips and gold pairs of a CineCap-Bench .json "
                                          "file, a cinecap-gold-pairs/1 .jsonl file, a folder of "
                                          "one or a Hugging Face datasets folder (as `export` "
                                          "writes them), or a zip of such a folder. Importing "
                                          "twice adds nothing; skipped items are listed with the "
                                          "reason.")
    add_store_arguments(p)
    p.add_argument("source", metavar="SOURCE")
    p.add_argument("--submitted", action="store_true",
                   help="leave the imported pairs for a reviewer (default: approved, as gold)")
    p.set_defaults(func=_import)


#: sub-command name → the function that adds its parser.
COMMANDS: dict[str, Callable] = {"users": add_users_parser, "db": add_db_parser,
                                 "bench": add_bench_parser, "export": add_export_parser,
                                 "import": add_import_parser}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m ui", description="CineCap Studio's app commands, over the app's store "
                                         "(DATABASE_URL / CINECAP_DATA_DIR, as the app).")
    parser.add_argument("--version", action="version", version=f"cinecap {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add_parser in COMMANDS.values():
        add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    from cinecap.cli import run

    return run(build_parser(), sys.argv[1:] if argv is None else argv)


def _read_password(args: argparse.Namespace) -> str:
    if args.password_stdin:
        pw = sys.stdin.readline().rstrip("\r\n")
    elif sys.stdin.isatty():
        pw = getpass.getpass(f"password for {args.name}: ")
        if getpass.getpass("again: ") != pw:
            raise InputError("the two passwords differ")
    else:
        raise InputError("no terminal to prompt for a password: pipe it with --password-stdin")
    return accounts.check_new_password(pw)  # before the store is opened


def _add(args: argparse.Namespace) -> int:
    pw = _read_password(args)
    store = open_store(args)
    try:
        u = accounts.add_user(store, accounts.CONSOLE, args.name, args.role, pw)
    finally:
        store.close()
    print(f"added {u.name} ({u.role})")
    return 0


def _backup(args: argparse.Namespace) -> int:
    from db.backup import backup
    from db.cli import store_url

    report = backup(store_url(args), args.dest, overwrite=args.force)
    rows = ", ".join(f"{n} {t}" for t, n in report.rows.items() if t in ("users", "clips",
                                                                       "captions", "gold_pairs"))
    print(f"backed up {report.source.name} to {report.dest} ({report.bytes / 2**20:.1f} MB, "
          f"{rows}); integrity ok")
    return 0


def _printable(name: str) -> str:
    """A stored name as one safe line: control characters shown as escapes (a name stored before
    names were checked cannot fake lines or columns of the listing)."""
    import unicodedata

    return "".join(c.encode("unicode_escape").decode("ascii")
                   if unicodedata.category(c).startswith("C") else c for c in name)


def _list(args: argparse.Namespace) -> int:
    store = open_store(args)
    try:
        users = accounts.list_users(store, accounts.CONSOLE)
    finally:
        store.close()
    if args.json:
        from cinecap.cli import print_json

        print_json([{"name": u.name, "role": u.role, "provider": u.provider} for u in users])
    else:
        for u in users:
            print(f"{_printable(u.name)}\t{u.role}\t{u.provider}")
    return 0


def _set_role(args: argparse.Namespace) -> int:
    store = open_store(args)
    try:
        u = accounts.set_role(store, accounts.CONSOLE, args.name, args.role)
    finally:
        store.close()
    print(f"{u.name} is now {u.role}")
    return 0


def _labels(args: argparse.Namespace):
    from ui.usecases.bench import Labels

    return Labels(args.label, args.family, args.model_version, args.round)


def _bench_run(args: argparse.Namespace) -> int:
    from cinecap import taxonomy as tx
    from cinecap.cli import progress_printer
    from cinecap.cli.options import captioner_options, judge_options
    from ui.usecases import bench

    store = open_store(args)
    try:
        out = bench.run_bench(
            store, accounts.CONSOLE, args.bench, args.captioner, args.judge,
            captioner_options(args), judge_options(args),
            tx.ASPECTS if args.aspects == "seven" else tx.TRAINING_ASPECTS, args.limit,
            args.out, args.resume, _labels(args), progress_printer(),
            on_start=lambda run: print(f"bench run #{run.id}: if it is interrupted, continue it "
                                       f"with --resume {run.id}", file=sys.stderr))
    finally:
        store.close()
    print(out.table)
    kept = f" ({out.resumed_rows} clips kept from before)" if out.resumed_rows else ""
    print(f"recorded bench run #{out.run.id}{kept}"
          + (f"; results written to {out.out}" if out.out else ""))
    return 0


def _bench_add(args: argparse.Namespace) -> int:
    from ui.usecases import bench

    store = open_store(args)
    try:
        run = bench.record_results(store, accounts.CONSOLE, args.results, args.bench_name,
                                   _labels(args), source="cli")
    finally:
        store.close()
    f1 = "—" if run.f1 is None else f"{100 * run.f1:.2f}"
    print(f"recorded {args.results} as entry #{run.id}: {run.model} on {run.bench_name} "
          f"({run.items} clips), judge {run.judge} {run.judge_version}, F1 {f1}")
    return 0


def _bench_list(args: argparse.Namespace) -> int:
    from ui.usecases import bench, leaderboard

    store = open_store(args)
    try:
        if args.unfinished:
            runs = bench.unfinished(store, accounts.CONSOLE)
            rows = [{"id": r.id, "bench": r.bench_name, "captioner": r.captioner,
                     "judge": r.judge, "clips_kept": len(store.bench_runs.rows(r.id)),
                     "items": r.items} for r in runs]
        else:
            rows = [{"entry": e.key, "kind": e.kind, "group": e.group, "rank": e.rank,
                     "model": e.model, "judge": e.judge, "bench": e.bench, "clips": e.items,
                     "f1": e.f1, "note": e.note}
                    for e in leaderboard.board(store, accounts.CONSOLE).entries]
    finally:
        store.close()
    if args.json:
        from cinecap.cli import print_json

        print_json(rows)
    else:
        for row in rows:
            print("\t".join("" if v is None else (f"{100 * v:.2f}" if isinstance(v, float)
                                                   else _printable(str(v)))
                            for v in row.values()))
    return 0


def _export(args: argparse.Namespace) -> int:
    from ui.usecases import datasets

    store = open_store(args)
    try:
        out = datasets.export_dataset(store, accounts.CONSOLE, args.format, args.dir,
                                      include_submitted=args.include_submitted)
    finally:
        store.close()
    print(f"{out.summary()} in {out.folder}")
    return 0


def _import(args: argparse.Namespace) -> int:
    from ui.settings import Settings
    from ui.usecases import datasets

    store = open_store(args)
    try:
        report = datasets.import_dataset(store, accounts.CONSOLE, args.source,
                                         Settings.from_env(), accept=not args.submitted)
    finally:
        store.close()
    print(report.summary())
    return 0
