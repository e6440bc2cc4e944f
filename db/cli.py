"""``python -m cinecap users add NAME --role R`` / ``users list`` / ``users set-role NAME R``.

The password comes from ``--password-stdin`` (one line) or an interactive prompt, never from argv
(it would show in the shell history and ``ps``).
"""
from __future__ import annotations

import argparse
import getpass
import sys

from cinecap.errors import InputError
from db.location import data_dir_from_env, database_url_from_env
from db.roles import ROLES


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("users", help="manage the web app's local accounts",
                              description="Manage the web app's local accounts and roles.")
    p.add_argument("--database-url", help="default: $DATABASE_URL, else a SQLite file in the "
                                          "data dir")
    p.add_argument("--data-dir", help="default: $CINECAP_DATA_DIR, else ./data")
    sub = p.add_subparsers(dest="users_command", metavar="ACTION", required=True)
    a = sub.add_parser("add", help="add an account")
    a.add_argument("name")
    a.add_argument("--role", choices=ROLES, default="annotator")
    a.add_argument("--password-stdin", action="store_true",
                   help="read the password from the first line of stdin")
    a.set_defaults(func=_add)
    ls = sub.add_parser("list", help="list accounts and roles")
    ls.add_argument("--json", action="store_true")
    ls.set_defaults(func=_list)
    r = sub.add_parser("set-role", help="change an account's role")
    r.add_argument("name")
    r.add_argument("role", choices=ROLES)
    r.set_defaults(func=_set_role)


def _store(args: argparse.Namespace):
    from pathlib import Path

    from db.store import Store

    data_dir = Path(args.data_dir) if args.data_dir else data_dir_from_env()
    return Store(args.database_url or database_url_from_env(data_dir), data_dir)


def _read_password(args: argparse.Namespace) -> str:
    if args.password_stdin:
        pw = sys.stdin.readline().rstrip("\r\n")
    elif sys.stdin.isatty():
        pw = getpass.getpass(f"password for {args.name}: ")
        if getpass.getpass("again: ") != pw:
            raise InputError("the two passwords differ")
    else:
        raise InputError("no terminal to prompt for a password: pipe it with --password-stdin")
    if len(pw) < 8:
        raise InputError("the password is too short (at least 8 characters)")
    return pw


def _add(args: argparse.Namespace) -> int:
    pw = _read_password(args)
    store = _store(args)
    try:
        u = store.add_user(args.name, args.role, pw)
    except ValueError as e:
        raise InputError(str(e)) from None
    finally:
        store.close()
    print(f"added {u.name} ({u.role})")
    return 0


def _list(args: argparse.Namespace) -> int:
    store = _store(args)
    try:
        users = store.users()
    finally:
        store.close()
    if args.json:
        from cinecap.cli import print_json

        print_json([{"name": u.name, "role": u.role, "provider": u.provider} for u in users])
    else:
        for u in users:
            print(f"{u.name}\t{u.role}\t{u.provider}")
    return 0


def _set_role(args: argparse.Namespace) -> int:
    store = _store(args)
    try:
        u = store.set_role(args.name, args.role)
    finally:
        store.close()
    print(f"{u.name} is now {u.role}")
    return 0
