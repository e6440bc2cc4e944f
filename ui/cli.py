"""``python -m ui COMMAND …``: the app's own command line, over its store and its use cases.

- ``users add NAME [--role R] [--password-stdin]`` / ``users list [--json]`` /
  ``users set-role NAME ROLE`` / ``users passwd NAME [--password-stdin]`` / ``users sign-out
  NAME`` / ``users delete NAME`` / ``users unthrottle [NAME] [--address A]``: the web app's local
  accounts, their sessions and the sign-in throttle (``ui.usecases.accounts``, run as
  :data:`~ui.usecases.accounts.CONSOLE`, an admin: whoever runs it can open the database anyway).
- ``db backup DEST [--force]``: a consistent copy of the SQLite store with SQLite's backup API
  (``db.backup``), the one safe way to copy it while the app runs; PostgreSQL: use pg_dump.
- ``worker``: the background worker that runs training rounds (``ui.jobs``).
- ``rounds list|show|launch|cancel``: training rounds (``ui.usecases.rounds``).
- ``versions list|promote|rollback|discard``: managed model versions (``ui.usecases.versions``).
- ``bench run BENCH …`` / ``bench add RESULTS.json`` / ``bench list``: benchmark runs recorded
  in the store for the Leaderboard tab (``ui.usecases.bench``). They live here, not as
  ``cinecap bench --store``: the library never imports the store. ``bench run`` runs the
  library's own bench code and keeps each clip as it is captioned (``--resume ID`` continues an
  interrupted run).
- ``export gold-pairs OUT``: the gold pairs as one ``cinecap-gold-pairs/1`` JSONL file naming
  the stored clips (a training round's data); ``export bench|training|hf DIR``: gold pairs out as a CineCap-Bench folder, a
  ``cinecap-gold-pairs/1`` JSONL folder or a Hugging Face ``datasets`` folder; ``import SOURCE``:
  such a file, folder or zip in (``ui.usecases.datasets``).

The password comes from ``--password-stdin`` (one line) or an interactive prompt, never from argv
(it would show in the shell history and ``ps``). Errors print ``error: …`` and exit with the
error's code (``cinecap.cli.run``), as the library's command line does.
"""
from __future__ import annotations

import argparse
import getpass
import importlib
import sys
from pathlib import Path
from typing import Any, Callable

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
    pw = sub.add_parser("passwd", help="give an account a new password (its sessions end)")
    pw.add_argument("name")
    pw.add_argument("--password-stdin", action="store_true",
                    help="read the password from the first line of stdin")
    pw.set_defaults(func=_passwd)
    so = sub.add_parser("sign-out", help="end every session of an account (sign out everywhere)")
    so.add_argument("name")
    so.set_defaults(func=_sign_out)
    d = sub.add_parser("delete", help="remove an account and its sessions")
    d.add_argument("name")
    d.set_defaults(func=_delete)
    t = sub.add_parser("unthrottle", help="forget failed sign-ins (all, or of a name/address)")
    t.add_argument("name", nargs="?", help="only the failures with this name")
    t.add_argument("--address", help="only the failures from this client address")
    t.set_defaults(func=_unthrottle)


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


def add_worker_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "worker", help="run training rounds in the background",
        description="Run the background worker: it takes training rounds from the queue (huey, "
                    "jobs.sqlite3 in the data dir) one at a time and runs each in a process of "
                    "its own, reporting to the store. One worker per data dir. Stops on SIGINT "
                    "or SIGTERM (a round under way is stopped and marked failed).")
    add_store_arguments(p)
    p.add_argument("--idle-exit", type=float, metavar="SECONDS",
                   help="stop once nothing was queued or under way for this long (the app starts "
                        "its workers with this)")
    p.set_defaults(func=_worker)


def add_rounds_parser(subparsers) -> None:
    p = subparsers.add_parser("rounds", help="training rounds: list, show, launch, cancel",
                              description="Training rounds run by the worker (docs/app.md).")
    add_store_arguments(p)
    sub = p.add_subparsers(dest="rounds_command", metavar="ACTION", required=True)
    ls = sub.add_parser("list", help="the newest rounds")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=_rounds_list)
    sh = sub.add_parser("show", help="one round: state, progress, comparison, log")
    sh.add_argument("round_id", type=int)
    sh.add_argument("--json", action="store_true")
    sh.set_defaults(func=_rounds_show)
    la = sub.add_parser("launch", help="queue a round on the store's gold pairs")
    la.add_argument("stage", choices=("sft", "grpo"))
    la.add_argument("--from", dest="start_from", default="serving",
                    help="serving (default), base, or a version id")
    la.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a training setting (cinecap train's, e.g. max_steps=20); repeatable")
    la.add_argument("--include-submitted", action="store_true",
                    help="also gold pairs not reviewed yet (default: accepted ones only)")
    la.set_defaults(func=_rounds_launch)
    ca = sub.add_parser("cancel", help="cancel a queued or running round")
    ca.add_argument("round_id", type=int)
    ca.set_defaults(func=_rounds_cancel)


def add_versions_parser(subparsers) -> None:
    p = subparsers.add_parser("versions", help="model versions: list, promote, roll back",
                              description="Managed model versions of the vlm captioner. The app "
                                          "serves the one marked serving, and follows a change "
                                          "made here without a restart.")
    add_store_arguments(p)
    sub = p.add_subparsers(dest="versions_command", metavar="ACTION", required=True)
    ls = sub.add_parser("list", help="every managed version, newest first")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=_versions_list)
    pr = sub.add_parser("promote", help="serve a ready version")
    pr.add_argument("version_id", type=int)
    pr.set_defaults(func=_versions_promote)
    sub.add_parser("rollback", help="serve again the version that served before").set_defaults(
        func=_versions_rollback)
    di = sub.add_parser("discard", help="retire a ready version that will not serve")
    di.add_argument("version_id", type=int)
    di.set_defaults(func=_versions_discard)


def add_bench_parser(subparsers) -> None:
    from cinecap.cli.bench import add_bench_arguments
    from cinecap.cli.options import add_judge_options

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
    add_bench_arguments(r)  # cinecap bench's own options, with its defaults
    r.add_argument("--out", help="also write the results JSON (as cinecap bench --out)")
    r.add_argument("--resume", type=int, metavar="ID",
                   help="continue the interrupted run ID (same bench, captioner, judge, options)")
    _add_label_arguments(r)
    r.set_defaults(func=_bench_run)
    a = sub.add_parser("add", help="record a results file made by `cinecap bench --out`",
                       description="Check a results file (schema, aspects, scores against its "
                                   "per-clip judgements, a known bench) and record it: judged "
                                   "again here against the bench's own gold captions (measured), "
                                   "or, on a bench known only by name, as self-reported.")
    a.add_argument("results", metavar="RESULTS.json")
    a.add_argument("--judge", default="rules",
                   help="the judge that judges the file's captions again here (default: rules)")
    add_judge_options(a)
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
    g = sub.add_parser("gold-pairs", help="gold pairs as one cinecap-gold-pairs/1 JSONL file "
                                          "naming the stored clips (a training round's data)")
    g.add_argument("out", metavar="OUT", help="the JSONL file to write")
    g.add_argument("--include-submitted", action="store_true",
                   help="per clip the newest pair not sent back (default: the newest accepted)")
    g.set_defaults(func=_export_gold_pairs)


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
                                 "worker": add_worker_parser, "rounds": add_rounds_parser,
                                 "versions": add_versions_parser, "export": add_export_parser,
                                 "bench": add_bench_parser,
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
    with open_store(args) as store:
        u = accounts.add_user(store, accounts.CONSOLE, args.name, args.role, pw)
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
    with open_store(args) as store:
        users = accounts.list_users(store, accounts.CONSOLE)
    if args.json:
        from cinecap.cli import print_json

        print_json([{"name": u.name, "role": u.role, "provider": u.provider} for u in users])
    else:
        for u in users:
            print(f"{_printable(u.name)}\t{u.role}\t{u.provider}")
    return 0


def _passwd(args: argparse.Namespace) -> int:
    pw = _read_password(args)
    with open_store(args) as store:
        u = accounts.change_password(store, accounts.CONSOLE, args.name, pw)
    print(f"new password for {_printable(u.name)}; its sessions ended")
    return 0


def _one_line(module: str, call: Callable, line: Callable[[Any, argparse.Namespace], str]
              ) -> Callable[[argparse.Namespace], int]:
    """A command that runs one use case of ``module`` as the console (``call(module, store,
    args)``) and prints ``line(its result, args)``; the module is imported when the command
    runs, as every command's use cases are."""

    def command(args: argparse.Namespace) -> int:
        use = importlib.import_module(module)
        with open_store(args) as store:
            done = call(use, store, args)
        print(line(done, args))
        return 0
    return command


_set_role = _one_line(
    "ui.usecases.accounts",
    lambda m, store, args: m.set_role(store, m.CONSOLE, args.name, args.role),
    lambda u, args: f"{u.name} is now {u.role}")
_sign_out = _one_line(
    "ui.usecases.accounts", lambda m, store, args: m.end_sessions(store, m.CONSOLE, args.name),
    lambda n, args: f"{_printable(args.name)}: {n} session(s) ended")
_delete = _one_line(
    "ui.usecases.accounts", lambda m, store, args: m.delete_user(store, m.CONSOLE, args.name),
    lambda u, args: f"deleted {_printable(u.name)} ({u.role}) and its sessions")
_unthrottle = _one_line(
    "ui.usecases.accounts",
    lambda m, store, args: m.clear_throttle(store, m.CONSOLE, args.name, args.address),
    lambda n, args: f"forgot {n} failed sign-in(s)")


def _settings(args: argparse.Namespace):
    """The app's settings (environment), with the store these options name."""
    from db.cli import store_url
    from ui.settings import Settings

    return Settings.from_env(data_dir=Path(args.data_dir) if args.data_dir else None,
                             database_url=store_url(args))


def _worker(args: argparse.Namespace) -> int:
    import logging

    from ui.jobs import run_worker

    # The worker's output is its operator's log: what it ran, when, and how it ended.
    logging.basicConfig(level=logging.INFO, force=True,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    settings = _settings(args)
    with open_store(args) as store:
        return run_worker(settings, store, idle_exit_s=args.idle_exit)


def _when(dt) -> str:
    return dt.strftime("%Y-%m-%d %H:%M:%S") if dt else "-"


def _round_dict(r) -> dict:
    return {"id": r.id, "stage": r.stage, "status": r.status, "step": r.step,
            "max_steps": r.max_steps, "version_id": r.version_id,
            "base_version_id": r.base_version_id, "created_by": r.created_by,
            "created_at": _when(r.created_at), "started_at": _when(r.started_at),
            "finished_at": _when(r.finished_at), "error": r.error, "pairs": r.data.get("pairs"),
            "heldout_clips": r.data.get("heldout_clips"), "comparison": r.comparison}


def _rounds_list(args: argparse.Namespace) -> int:
    from ui.usecases import rounds

    settings = _settings(args)  # a bad setting stops the command before the store is opened
    with open_store(args) as store:
        items = rounds.list_rounds(store, settings, accounts.CONSOLE)
    if args.json:
        from cinecap.cli import print_json

        print_json([_round_dict(r) for r in items])
    else:
        for r in items:
            print(f"#{r.id}\t{r.stage}\t{r.status}\tstep {r.step}/{r.max_steps or '?'}\t"
                  f"version #{r.version_id}\t{_when(r.created_at)}\t{r.error}")
    return 0


def _rounds_show(args: argparse.Namespace) -> int:
    from ui.usecases import rounds

    settings = _settings(args)
    with open_store(args) as store:
        view = rounds.round_view(store, settings, accounts.CONSOLE, args.round_id)
    r = view.round
    if args.json:
        from cinecap.cli import print_json

        print_json({**_round_dict(r), "points": view.points, "log": r.log})
        return 0
    print(f"round #{r.id} ({r.stage}): {r.status}, step {r.step}/{r.max_steps or '?'}"
          + (f" - {r.error}" if r.error else ""))
    new = (r.comparison.get("new") or {}).get("scores")
    if new:
        old = (r.comparison.get("serving") or {}) or {}
        print(f"held-out F1: new {new['f1']:.3f}" + (
            f", serving {old['label']} {old['scores']['f1']:.3f}" if old.get("scores") else ""))
    if r.log:
        print("--- log (tail) ---")
        print(r.log[-4000:])
    return 0


def _rounds_launch(args: argparse.Namespace) -> int:
    from ui.jobs import Jobs
    from ui.usecases import rounds

    values = {}
    for item in args.set:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise InputError(f"--set needs KEY=VALUE, got {item!r}")
        values[key.strip().replace("-", "_")] = value
    settings = _settings(args)
    with open_store(args) as store:
        jobs = Jobs(settings, store=store)
        r = rounds.launch_round(store, settings, jobs, accounts.CONSOLE, args.stage,
                                args.start_from, values, args.include_submitted)
    print(f"round #{r.id} ({r.stage}) queued: {r.data.get('pairs')} gold pairs, "
          f"{r.data.get('heldout_clips')} held-out clips; version #{r.version_id} will hold it")
    return 0


_rounds_cancel = _one_line(
    "ui.usecases.rounds",
    lambda m, store, args: m.cancel_round(store, accounts.CONSOLE, args.round_id),
    lambda r, args: f"round #{r.id}: {'cancelled' if r.status == 'cancelled' else 'cancelling'}")
_versions_promote = _one_line(
    "ui.usecases.versions",
    lambda m, store, args: m.promote(store, None, accounts.CONSOLE, args.version_id),
    lambda v, args: f"version {v.label} is serving")
_versions_rollback = _one_line(
    "ui.usecases.versions", lambda m, store, args: m.rollback(store, None, accounts.CONSOLE),
    lambda v, args: f"rolled back: version {v.label} is serving")
_versions_discard = _one_line(
    "ui.usecases.versions",
    lambda m, store, args: m.discard(store, accounts.CONSOLE, args.version_id),
    lambda v, args: f"version {v.label} is {v.status}")


def _versions_list(args: argparse.Namespace) -> int:
    from ui.usecases import versions

    with open_store(args) as store:
        items = versions.list_versions(store, accounts.CONSOLE)
    if args.json:
        from cinecap.cli import print_json

        print_json([{"id": v.id, "status": v.status, "label": v.label, "stage": v.stage,
                     "round_id": v.round_id, "parent_id": v.parent_id, "base": v.base,
                     "heldout_f1": (v.scores or {}).get("f1")} for v in items])
    else:
        for v in items:
            f1 = (v.scores or {}).get("f1")
            print(f"#{v.id}\t{v.status}\t{v.label}\t"
                  f"held-out F1 {'-' if f1 is None else f'{f1:.3f}'}")
    return 0


def _export_gold_pairs(args: argparse.Namespace) -> int:
    from ui.usecases import datasets

    with open_store(args) as store:
        out = datasets.export_gold_pairs(store, accounts.CONSOLE, args.out,
                                         include_submitted=args.include_submitted)
    print(f"wrote {out.pairs} gold pairs on {out.clips} clips to {out.path}"
          + (f" ({len(out.skipped)} skipped: {'; '.join(out.skipped)})" if out.skipped else ""))
    return 0


def _labels(args: argparse.Namespace):
    from ui.usecases.bench import Labels

    return Labels(args.label, args.family, args.model_version, args.round)


def _bench_run(args: argparse.Namespace) -> int:
    from cinecap.cli import progress_printer
    from cinecap.cli.bench import bench_choices
    from cinecap.judge.limits import judge_limits
    from ui.usecases import bench

    chosen = bench_choices(args)
    with open_store(args) as store:
        out = bench.run_bench(
            store, accounts.CONSOLE, args.bench, chosen.captioner, chosen.judge,
            chosen.captioner_options, chosen.judge_options, chosen.aspects, chosen.limit,
            args.out, args.resume, _labels(args), progress_printer(),
            on_start=lambda run: print(f"bench run #{run.id}: if it is interrupted, continue it "
                                       f"with --resume {run.id}", file=sys.stderr))
    print(out.table)
    if judge_limits(out.run.judge):  # what a rules score is worth, said beside it
        print(judge_limits(out.run.judge))
    kept = f" ({out.resumed_rows} clips kept from before)" if out.resumed_rows else ""
    print(f"recorded bench run #{out.run.id}{kept}"
          + (f"; results written to {out.out}" if out.out else ""))
    return 0


def _bench_add(args: argparse.Namespace) -> int:
    from ui.usecases import bench

    from cinecap.cli.options import judge_options
    from cinecap.judge import get_judge

    judge = get_judge(args.judge, **judge_options(args))
    with open_store(args) as store:
        run = bench.record_results(store, accounts.CONSOLE, args.results, args.bench_name,
                                   _labels(args), source="cli", judge=judge)
    print(f"recorded {args.results} as " + bench.added_line(run))
    return 0


def _bench_list(args: argparse.Namespace) -> int:
    from ui.usecases import bench, leaderboard

    with open_store(args) as store:
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

    with open_store(args) as store:
        out = datasets.export_dataset(store, accounts.CONSOLE, args.format, args.dir,
                                      include_submitted=args.include_submitted)
    print(f"{out.summary()} in {out.folder}")
    return 0


def _import(args: argparse.Namespace) -> int:
    from ui.settings import Settings
    from ui.usecases import datasets

    settings = Settings.from_env()
    with open_store(args) as store:
        report = datasets.import_dataset(store, accounts.CONSOLE, args.source, settings,
                                         accept=not args.submitted)
    print(report.summary())
    return 0
