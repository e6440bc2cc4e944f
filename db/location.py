"""Where the store lives: one rule shared by the app's settings and the ``users`` CLI."""
from __future__ import annotations

import os
from pathlib import Path


def data_dir_from_env() -> Path:
    """``CINECAP_DATA_DIR``, else ``./data`` (the Docker image mounts a volume there), as an
    absolute path: everything the store keeps is found from it, by this process and by others
    started elsewhere (the worker, a training round, an exported JSONL read from its own folder)."""
    return Path(os.environ.get("CINECAP_DATA_DIR") or "data").expanduser().resolve()


def database_url_from_env(data_dir: Path) -> str:
    """``DATABASE_URL`` (e.g. ``postgresql+psycopg://…``), else a SQLite file in the data dir."""
    url = os.environ.get("DATABASE_URL", "").strip()
    if url.startswith("postgres://"):  # Heroku/Spaces-style URLs name no driver
        url = "postgresql+psycopg://" + url[len("postgres://"):]
    elif url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://"):]
    return url or f"sqlite:///{data_dir.resolve() / 'cinecap.sqlite3'}"
