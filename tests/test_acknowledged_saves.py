"""Every acknowledged save survives other processes and a restart (issue 10, item 2).

``python app.py`` on a SQLite store; an annotator saves gold pairs in a loop through the API while
another process keeps opening and closing the database (the app's command line's ``users list``,
a plain ``sqlite3`` connection), copies it the documented way (its ``db backup``) and asks the
server for the database file (the download that used to start the loss). The app's ``-wal`` must
never disappear while it runs; after a clean stop (SIGTERM) and a restart every save the app
acknowledged is in the database, and every backup is a consistent database. The other process
runs those commands one after the other in one interpreter (``tests.support.ui_commands``: each
opens and closes the store as ``python -m ui`` does), not one interpreter start of ~2 s of CPU
each; the account is added by a real ``python -m ui``.
"""
from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from gradio_client import Client, handle_file

from tests.conftest import ROOT
from tests.support.app_server import free_port
from tests.support.clips import moving_pattern, write_clip
from tests.support.ui_commands import UiCommands

pytestmark = pytest.mark.slow

PASSWORD = "ann-password"


def ui_cli(env: dict, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ui", *args], cwd=ROOT, env=env, input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_every_acknowledged_save_survives_other_processes_and_a_restart(tmp_path):
    data = tmp_path / "data"
    db = data / "cinecap.sqlite3"
    wal = db.with_name(db.name + "-wal")
    # No example clips: app.py would caption three of them in the background (anchors analyses,
    # most of this test's CPU besides the saves), which the saves do not need.
    env = {**os.environ, "CINECAP_DATA_DIR": str(data), "GRADIO_ANALYTICS_ENABLED": "False",
           "CINECAP_CAPTIONS_PER_HOUR": "0", "CINECAP_EXAMPLES": "0"}
    env.pop("DATABASE_URL", None)
    assert ui_cli(env, "users", "add", "ann", "--role", "annotator", "--password-stdin",
                  stdin=PASSWORD + "\n").returncode == 0
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    app = subprocess.Popen([sys.executable, "app.py", "--host", "127.0.0.1", "--port", str(port)],
                           cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    other_cli = UiCommands(env)
    stop = threading.Event()
    other: dict[str, list] = {"lists": [], "backups": [], "downloads": [], "wal_gone": []}
    cookies: dict[str, str] = {}

    def other_process() -> None:
        i = 0
        while not stop.wait(0.5):  # twice a second, as a busy admin's scripts might
            i += 1
            r = other_cli.run("users", "list")
            other["lists"].append(r.returncode)
            other["wal_gone"].append(not wal.exists())
            dest = tmp_path / f"backup-{i}.sqlite3"
            r = other_cli.run("db", "backup", str(dest))
            other["backups"].append((r.returncode, dest, r.stderr))
            c = sqlite3.connect(db)  # a plain connection, opened and closed
            c.execute("SELECT count(*) FROM gold_pairs").fetchone()
            c.close()
            other["wal_gone"].append(not wal.exists())
            # The download that used to drop the app's locks, by a signed-in user.
            other["downloads"].append(httpx.get(f"{url}gradio_api/file={db}",
                                                cookies=cookies).status_code)

    try:
        ann = None
        for _ in range(240):
            if app.poll() is not None:
                pytest.fail(f"app.py exited: {app.stdout.read().decode()[-2000:]}")
            try:
                ann = Client(url, auth=("ann", PASSWORD), verbose=False, download_files=False)
                break
            except Exception:  # not listening yet
                time.sleep(0.5)
        assert ann is not None
        cookies.update(httpx.post(f"{url}login", data={"username": "ann",
                                                       "password": PASSWORD}).cookies)
        clip = write_clip(tmp_path / "slide.mp4", moving_pattern(n=30, dx=2), fps=15)
        status = ann.predict(handle_file(str(clip)), "anchors", "", api_name="/caption")[-1]
        clip_id = int(re.search(r"clip #(\d+)", status).group(1))

        worker = threading.Thread(target=other_process, daemon=True)
        worker.start()
        acknowledged: list[int] = []
        deadline = time.monotonic() + 600  # a hang guard, not a speed requirement
        while (len(acknowledged) < 24 or len(other["backups"]) < 3) and \
                time.monotonic() < deadline:
            ann.predict(clip_id, api_name="/review_open")
            ann.predict("1", api_name="/review_select")
            ann.predict("Camera Movement", "static", None, None, "", "", "",
                        api_name="/review_accept")
            out = ann.predict(api_name="/review_save")
            said = " ".join(x for x in out if isinstance(x, str))
            m = re.search(r"saved gold pair #(\d+)", said)
            assert m, said  # one annotator: every save must succeed
            acknowledged.append(int(m.group(1)))
        stop.set()
        worker.join(timeout=180)
        assert len(acknowledged) >= 24 and len(other["backups"]) >= 3, other
        assert set(other["lists"]) == {0}
        assert not any(other["wal_gone"]), "the app's -wal disappeared while it ran"
        assert set(other["downloads"]) <= {401, 403, 404}
        assert all(rc == 0 for rc, _, _ in other["backups"]), other["backups"]

        app.send_signal(signal.SIGTERM)
        assert app.wait(timeout=60) == 0  # a clean stop: the store closed
        assert not wal.exists()  # (its log checkpointed into the file)
    finally:
        stop.set()
        other_cli.close()
        if app.poll() is None:
            app.kill()
            app.wait()
        app.stdout.close()

    from db.store import Store

    store = Store(f"sqlite:///{db}", data)  # the restart
    try:
        kept = {g.id for g in store.review.gold_pairs(clip_id)}
        assert set(acknowledged) <= kept, sorted(set(acknowledged) - kept)
        assert store.counts()["gold_pairs"] == len(acknowledged)
    finally:
        store.close()
    for _, dest, _ in other["backups"]:  # each copy: one consistent file, a prefix of the saves
        c = sqlite3.connect(dest)
        try:
            assert c.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            ids = {r[0] for r in c.execute("SELECT id FROM gold_pairs")}
        finally:
            c.close()
        assert ids <= set(acknowledged) and ids == set(sorted(acknowledged)[:len(ids)])
        assert not Path(f"{dest}-wal").exists()
