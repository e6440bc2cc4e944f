"""``python -m ui COMMAND …``: the app's own command line, over its store and its use cases.

- ``users add NAME [--role R] [--password-stdin]`` / ``users list [--json]`` /
  ``users set-role NAME ROLE``: the web app's local accounts (``ui.usecases.accounts``, run as
  :data:`~ui.usecases.accounts.CONSOLE`, an admin: whoever runs it can open the database anyway).
- ``db backup DEST [--force]``: a consistent copy of the SQLite store with SQLite's backup API
  (``db.backup``), the one safe way to copy it while the app runs; PostgreSQL: use pg_dump.

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


#: sub-command name → the function that adds its parser.
COMMANDS: dict[str, Callable] = {"users": add_users_parser, "db": add_db_parser}


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
