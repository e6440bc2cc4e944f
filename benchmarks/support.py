"""What the benchmarks share with the tests, where it cannot live in ``cinecap.testing`` (it needs
the app or the store): a real CineCap Studio server on loopback (the client, browser and load
tests, ``app_load.py``, ``example_cache.py``) and an empty PostgreSQL schema. The tests reach it
through tests/support (``app_server``, ``stores``); a benchmark never imports tests/."""
from __future__ import annotations

import socket
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from cinecap.testing.captioners import CrashingCaptioner, ScriptedCaptioner

ACCOUNTS = {"ann": ("annotator", "ann-password"), "bea": ("annotator", "bea-password"),
            "rita": ("reviewer", "rita-password"), "vic": ("viewer", "vic-password")}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def running_app(data_dir: Path, database_url: str | None = None, accounts: bool = True,
                captioners: dict | str | None = None,
                **settings_kw) -> Iterator[tuple[str, object]]:
    """Build the app on ``data_dir`` and serve it; yields (url, store). ``captioners``: name →
    factory, ``"registry"`` for the real registry, or None for the scripted and crashing ones."""
    from db.store import Store
    from ui.app import build_app, launch_options
    from ui.backends import Backends
    from ui.settings import Settings

    settings = Settings(data_dir=data_dir, database_url=database_url or "", **settings_kw)
    store = Store(settings.database_url, settings.data_dir)
    if accounts:
        for name, (role, pw) in ACCOUNTS.items():
            store.users.add(name, role, pw)
    if captioners == "registry":  # what `python app.py` offers
        backends = Backends.from_registry(settings.captioners)
    else:
        backends = Backends(captioners=captioners or {"scripted": ScriptedCaptioner,
                                                      "crashing": CrashingCaptioner})
    demo = build_app(settings, store, backends)
    port = free_port()
    demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True,
                **launch_options(settings, store, demo=demo))
    try:
        yield f"http://127.0.0.1:{port}/", store
    finally:
        demo.close()
        store.close()


def reset_postgres(url: str) -> None:
    """An empty public schema, so every test or benchmark run starts from the migrations."""
    from sqlalchemy import create_engine, text

    eng = create_engine(url)
    with eng.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    eng.dispose()
