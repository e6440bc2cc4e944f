"""The store's command-line options, for any command that opens the store (``python -m ui users
…`` today): ``--database-url`` and ``--data-dir``, defaulting to the app's environment
(``DATABASE_URL``, ``CINECAP_DATA_DIR``; see ``db.location``)."""
from __future__ import annotations

import argparse
from pathlib import Path

from db.location import data_dir_from_env, database_url_from_env


def add_store_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--database-url", help="default: $DATABASE_URL, else a SQLite file in "
                                               "the data dir")
    parser.add_argument("--data-dir", help="default: $CINECAP_DATA_DIR, else ./data")


def _data_dir(args: argparse.Namespace) -> Path:
    return Path(args.data_dir) if args.data_dir else data_dir_from_env()


def store_url(args: argparse.Namespace) -> str:
    """The database URL those options name (without opening it)."""
    return args.database_url or database_url_from_env(_data_dir(args))


def open_store(args: argparse.Namespace):
    """The store those options name, migrated to the newest schema. Close it when done."""
    from db.store import Store

    return Store(store_url(args), _data_dir(args))
