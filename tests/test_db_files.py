"""The SQLite store keeps its promise across processes (issue 10, item 2).

- Why the ``-wal``/``-shm`` files disappeared next to the running app, reproduced with plain
  ``sqlite3`` and real processes: SQLite's locks are POSIX advisory locks, which a process loses on
  a file when it closes *any* descriptor of that file. The app's process served the database file
  (opened and closed it); the next ``users list`` closing its connection then believed it was the
  last one and deleted the log the app was still writing into.
- The safety net: a store whose files were removed or replaced refuses every write with a clear
  error instead of acknowledging saves nobody will see (``db.engine.SqliteFiles``).
- ``python -m ui db backup``: the one safe way to copy the database (SQLite's backup API).
"""
from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from db.errors import StoreFilesChanged
from tests.support.stores import store  # noqa: F401 - the parametrised fixture
from tests.conftest import ROOT


def other_process(db: Path, sql: str = "SELECT count(*) FROM t") -> str:
    """Open the database in another process, run one statement, close it (what a CLI does)."""
    code = ("import sqlite3, sys\n"
            "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
            "print(c.execute(sys.argv[2]).fetchone())\n"
            "c.close()\n")
    return subprocess.run([sys.executable, "-c", code, str(db), sql], capture_output=True,
                          text=True, check=True, timeout=60).stdout.strip()


def wal_files(db: Path) -> list[str]:
    return sorted(p.name[len(db.name):] for p in db.parent.glob(db.name + "-*"))


@pytest.mark.parametrize("stray_open", [False, True], ids=["clean", "stray-open-close"])
def test_why_the_wal_disappeared_a_stray_open_in_the_writers_process(tmp_path, stray_open):
    db = tmp_path / "app.sqlite3"
    app = sqlite3.connect(db, isolation_level=None)  # the long-lived app connection
    app.execute("PRAGMA journal_mode=WAL")
    app.execute("CREATE TABLE t (x)")
    app.execute("INSERT INTO t VALUES (1)")
    assert other_process(db) == "(1,)" and wal_files(db) == ["-shm", "-wal"]
    if stray_open:  # what serving the file did: open, read, close, in the app's own process
        with open(db, "rb") as f:
            f.read(100)
    assert other_process(db) == "(1,)"  # `users list` next to the app
    if not stray_open:
        assert wal_files(db) == ["-shm", "-wal"]  # the app's lock kept them
        app.execute("INSERT INTO t VALUES (2)")
        assert other_process(db) == "(2,)"
    else:
        assert wal_files(db) == []  # the other process thought it was the last one
        app.execute("INSERT INTO t VALUES (2)")  # "saved" into the deleted log...
        assert app.execute("SELECT count(*) FROM t").fetchone() == (2,)
        assert other_process(db) == "(1,)"  # ...and nobody else will ever see it
    app.close()


def test_store_refuses_writes_once_its_files_are_gone(tmp_path):
    from db.store import Store

    url = f"sqlite:///{tmp_path / 'cinecap.sqlite3'}"
    store = Store(url, tmp_path)
    store.users.add("ann", "annotator", "password1")
    db = store.files.path
    with open(db, "rb") as f:  # the lock loss, in this (the app's) process
        f.read(100)
    cli = subprocess.run([sys.executable, "-m", "ui", "users", "--database-url", url,
                          "--data-dir", str(tmp_path), "list"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert cli.returncode == 0 and "ann\tannotator" in cli.stdout
    assert wal_files(db) == []
    for name in ("bob", "carol"):  # every later write is refused, none acknowledged
        with pytest.raises(StoreFilesChanged, match=r"cinecap\.sqlite3 was removed or replaced "
                                                    r"while the app was running.*Restart the app"):
            store.users.add(name, "annotator", "password1")
    assert str(tmp_path) not in store.files.broken  # the message names no server path
    assert store.users.find("ann") is not None  # reading still works
    store.close()
    again = Store(url, tmp_path)  # the restart
    assert [u.name for u in again.users.list()] == ["ann"]
    again.users.add("bob", "annotator", "password1")  # and writing works again
    assert again.users.check_password("bob", "password1") is not None
    again.close()


def test_a_save_that_lands_in_a_deleted_log_is_not_acknowledged(tmp_path):
    """The log disappears while a write transaction is open: the commit goes into the deleted
    file, so the store must say the save may be lost instead of returning normally."""
    from db import models as m
    from db.store import Store

    url = f"sqlite:///{tmp_path / 'cinecap.sqlite3'}"
    store = Store(url, tmp_path)
    store.users.add("ann", "annotator", "password1")
    with open(store.files.path, "rb") as f:
        f.read(100)
    with pytest.raises(StoreFilesChanged, match="this save may not have been kept"):
        with store.sessions.writing() as s:
            s.add(m.User(name="zoe", role="viewer", provider="local", password_hash="x"))
            s.flush()
            other_process(store.files.path, "SELECT count(*) FROM users")  # deletes the log
    store.close()  # (closing checkpoints that deleted log into the file: "may", not "was")
    assert other_process(tmp_path / "cinecap.sqlite3", "PRAGMA integrity_check") == "('ok',)"


def test_backup_copies_a_running_store_consistently(tmp_path, capsys):
    from db.store import Store
    from ui.cli import main

    url = f"sqlite:///{tmp_path / 'cinecap.sqlite3'}"
    store = Store(url, tmp_path)  # stays open, as the app would
    for i in range(5):
        store.users.add(f"user{i}", "annotator", "password1")
    base = ["db", "--database-url", url, "--data-dir", str(tmp_path), "backup"]
    assert main([*base, str(tmp_path / "copy.sqlite3")]) == 0
    out = capsys.readouterr().out
    assert "backed up cinecap.sqlite3" in out and "5 users" in out and "integrity ok" in out
    assert wal_files(store.files.path) == ["-shm", "-wal"]  # the app's files are untouched
    store.users.add("after", "viewer", "password1")  # and it still writes
    copy = sqlite3.connect(tmp_path / "copy.sqlite3")
    assert copy.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    assert copy.execute("SELECT count(*) FROM users").fetchone() == (5,)
    copy.close()
    assert not list(tmp_path.glob(".copy.sqlite3.*"))  # no temp file left
    # An existing file is never replaced by accident; PostgreSQL is pointed to pg_dump.
    assert main([*base, str(tmp_path / "copy.sqlite3")]) == 2
    assert "exists" in capsys.readouterr().err
    assert main([*base, str(tmp_path / "copy.sqlite3"), "--force"]) == 0
    capsys.readouterr()
    assert main(["db", "--database-url", "postgresql+psycopg://u:secret@db.example/x",
                 "backup", str(tmp_path / "pg.dump")]) == 2
    err = capsys.readouterr().err
    assert "pg_dump" in err and "secret" not in err
    store.close()


def test_concurrent_adds_of_one_new_clip_all_succeed(store, small_clip, tmp_path, monkeypatch):
    """Issue 10: 16 concurrent adds of the same new clip failed 12 of 80 times with
    FileNotFoundError (one shared ``.part`` temp name); the browser preview had the same name."""
    import shutil
    import threading
    from concurrent.futures import ThreadPoolExecutor

    import db.repositories.clips as clips_module
    from ui.settings import Settings
    from ui.usecases import preview

    gate = threading.Barrier(16, timeout=1)
    real_copy = shutil.copyfile

    def copy_together(src, dst):  # every add copies at the same moment, as a slow disk would
        try:
            gate.wait()
        except threading.BrokenBarrierError:
            pass
        real_copy(src, dst)

    monkeypatch.setattr(clips_module.shutil, "copyfile", copy_together)  # (shutil's own)
    info = {"duration": 2.0, "fps": 25.0, "width": 160, "height": 120}
    for round_ in range(3):  # a new clip each round, 16 adds of it at once
        gate.reset()
        new = tmp_path / f"new{round_}.mp4"
        new.write_bytes(small_clip.read_bytes() + os.urandom(1 << 20))
        with ThreadPoolExecutor(16) as pool:
            clips = list(pool.map(lambda _: store.clips.add(new, new.name, info, None),
                                  range(16)))
        assert len({c.id for c in clips}) == 1
        assert Path(clips[0].path).read_bytes() == new.read_bytes()
        assert not list(Path(clips[0].path).parent.glob("*.part"))
    assert store.counts()["clips"] == 3
    clips = [store.clips.add(small_clip, "slide.mp4", info, None)]
    settings = Settings(data_dir=store.data_dir, page_dir=tmp_path / "page")
    with ThreadPoolExecutor(8) as pool:
        pages = list(pool.map(lambda _: preview.video_for_page(
            settings, clips[0].path, "mpeg4", stored=True), range(8)))
    for page in pages:  # each request got a whole, playable file (none half-written)
        data = Path(page).read_bytes()
        assert data[4:8] == b"ftyp" and len(data) > 1000
    assert sorted(p.name for p in (store.data_dir / "previews").iterdir()) == [
        f"{Path(clips[0].path).stem}.h264.mp4"]
