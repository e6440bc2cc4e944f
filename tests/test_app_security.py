"""Nothing of the store is served (issue 10, item 1), against launched servers over HTTP.

An anonymous visitor, a viewer and an annotator ask ``/gradio_api/file=…`` for the database, its
``-wal``/``-shm``, the data directory, a stored clip, another user's upload, another user's page
files and paths outside anything the page needs — by absolute and relative path, URL-encoded,
with ``..`` and ``./`` segments, through the deprecated ``/file/`` route — and get 401/403/404.
Positive controls in the same tests: the owner of a page file, and an annotator for a stored
clip's page video, do get their file (so a guard that refused everything would fail here too).
Requests are sent with ``http.client`` so the path reaches the server exactly as written (httpx
would normalise ``..`` away).
"""
from __future__ import annotations

import http.client
import os
from pathlib import Path
from urllib.parse import quote, urlsplit

import httpx
import pytest
from gradio_client import Client, handle_file

from tests.support.app_server import ACCOUNTS, running_app

DENIED = (401, 403, 404)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_app(tmp_path_factory.mktemp("sec") / "data", default_captioner="scripted",
                     max_upload_mb=50) as (url, store):
        yield url, store


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The public demo: no accounts, every visitor is an anonymous viewer."""
    with running_app(tmp_path_factory.mktemp("demo") / "data", accounts=False,
                     default_captioner="scripted") as (url, store):
        yield url, store


def login(url: str, name: str | None) -> dict[str, str]:
    """Cookies of a signed-in user (None: an anonymous visitor with their visitor cookie)."""
    with httpx.Client(base_url=url) as c:
        cookies = dict(c.get("/config").cookies)
        if name:
            r = c.post("/login", data={"username": name, "password": ACCOUNTS[name][1]})
            assert r.status_code == 200, r.text
            cookies.update(r.cookies)
    return cookies


def get(url: str, raw_path: str, cookies: dict[str, str]) -> tuple[int, bytes]:
    """GET exactly ``raw_path`` (no normalisation), with ``cookies``."""
    host = urlsplit(url)
    conn = http.client.HTTPConnection(host.hostname, host.port, timeout=30)
    try:
        conn.request("GET", raw_path, headers={
            "Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())})
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


def spellings(path: Path) -> list[str]:
    """Every way of naming ``path`` to Gradio's file routes that the guard must see through."""
    p = str(path)
    rel = os.path.relpath(p)  # from the server's working directory (this process's)
    every_byte = "".join(f"%{b:02X}" for b in p.encode())
    dotted = f"{path.parent}/x/../{path.name}"
    return [f"/gradio_api/file={p}", f"/gradio_api/file={rel}", f"/gradio_api/file=./{rel}",
            f"/gradio_api/file={quote(p, safe='')}", f"/gradio_api/file={every_byte}",
            f"/gradio_api/file={quote(dotted)}", f"/gradio_api/file={dotted}",
            f"/gradio_api/file={quote(rel, safe='')}", f"/gradio_api/file/{p}",
            f"/gradio_api/file/{rel}", f"/gradio_api/file=/{p}"]


def assert_never_served(url: str, cookies: dict[str, str], path: Path, who: str) -> None:
    secret = path.read_bytes()[:64] if path.is_file() else b"SQLite format 3"
    for raw in spellings(path):
        status, body = get(url, raw, cookies)
        assert status in DENIED, f"{who} got {status} for {raw}"
        assert secret not in body and b"SQLite format 3" not in body, raw


def page_url_path(file_value: dict) -> str:
    """The server path part of a file output's URL (as the page would request it)."""
    u = urlsplit(file_value["url"])
    return u.path + (f"?{u.query}" if u.query else "")


def test_the_store_and_anything_outside_the_page_are_never_served(server, tmp_path):
    url, store = server
    ann = Client(url, auth=("ann", ACCOUNTS["ann"][1]), verbose=False, download_files=False)
    clip = Path(__file__).parent / "data"  # any real file outside the page: the repo's tests
    out = ann.predict(handle_file(str(_small_clip(tmp_path))), "scripted", "",
                      api_name="/caption")
    stored = store.clips.list()[-1]
    db = store.files.path
    assert db.with_name(db.name + "-wal").exists()  # the app holds its log open right now
    targets = [db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm"),
               store.data_dir, Path(stored.path), Path("/etc/passwd"),
               Path(__file__).resolve().parent.parent / "app.py", clip]
    for who in (None, "vic", "ann", "bea"):
        cookies = login(url, who)
        for target in targets:
            assert_never_served(url, cookies, target, who or "anonymous")
    # The positive control: what the page was given (the clip's H.264 preview) is served.
    status, body = get(url, page_url_path(out[0]), login(url, "ann"))
    assert status == 200 and body[4:8] == b"ftyp" and len(body) > 1000


def test_uploads_and_page_files_go_only_to_whom_they_are_for(server, tmp_path):
    url, store = server
    clip = _small_clip(tmp_path)
    cookies = {who: login(url, who) for who in (None, "vic", "ann", "bea", "rita")}
    # A raw upload (what the page does before captioning): never served back, to anyone.
    with httpx.Client(base_url=url, cookies=cookies["ann"]) as c:
        r = c.post("/gradio_api/upload", files={"files": ("mine.mp4", clip.read_bytes())})
    assert r.status_code == 200, r.text
    upload = Path(r.json()[0])
    assert upload.read_bytes() == clip.read_bytes()
    for who, jar in cookies.items():
        assert_never_served(url, jar, upload, who or "anonymous")
    # ann's run: the stored clip's video is for annotators, the overlays, timeline and JSON
    # export are ann's alone.
    ann = Client(url, auth=("ann", ACCOUNTS["ann"][1]), verbose=False, download_files=False)
    video, _, _, _, _, _, _, export, _ = ann.predict(
        handle_file(str(clip)), "scripted", "", api_name="/caption")
    shared, own = page_url_path(video), page_url_path(export)
    assert "/annotator/shared/" in shared and "/viewer/" in own
    assert get(url, shared, cookies["ann"])[0] == 200
    assert get(url, shared, cookies["bea"])[0] == 200  # any annotator reviews stored clips
    assert get(url, shared, cookies["rita"])[0] == 200
    assert get(url, shared, cookies["vic"])[0] in DENIED  # a viewer never sees stored clips
    assert get(url, shared, cookies[None])[0] in DENIED
    for path in (own,):
        assert get(url, path, cookies["ann"])[0] == 200
        for who in (None, "vic", "bea", "rita"):
            assert get(url, path, cookies[who])[0] in DENIED, (who, path)
    # The same page files by other spellings stay refused to others.
    for who in ("vic", "bea"):
        assert_never_served(url, cookies[who], Path(urlsplit(export["url"]).path.split(
            "file=", 1)[1]), who)


def test_public_demo_visitors_see_only_their_own_run(demo, tmp_path):
    url, store = demo
    clip = _small_clip(tmp_path)
    first, second = (Client(url, verbose=False, download_files=False) for _ in range(2))
    out = first.predict(handle_file(str(clip)), "scripted", "", api_name="/caption")
    assert "not stored" in out[-1]
    mine = first.cookies
    theirs = second.cookies
    lax = "cinecap_visitor_lax"  # (the Secure twin is for https pages in a frame)
    assert mine.get(lax) and mine[lax] != theirs[lax]
    for value in (out[0], out[7]):  # the video and the JSON export (the rest is HTML)
        path = page_url_path(value)
        assert get(url, path, mine)[0] == 200
        assert get(url, path, theirs)[0] in DENIED  # another visitor
        assert get(url, path, {})[0] in DENIED  # no visitor cookie at all
    db = store.files.path
    for target in (db, db.with_name(db.name + "-wal"), store.data_dir):
        assert_never_served(url, mine, target, "anonymous")


def test_overlays_in_the_pages_html_are_the_owners_and_the_examples_everyones(tmp_path):
    """The Caption tab's own HTML links page files (overlay images): an upload's are its
    visitor's alone; an example clip's video and overlays (public footage) are every visitor's,
    and that shared folder holds nothing else."""
    import re

    from cinecap.captioners.anchors import AnchorsCaptioner

    with running_app(tmp_path / "data", accounts=False,
                     captioners={"anchors": AnchorsCaptioner}) as (url, store):
        first, second = (Client(url, verbose=False, download_files=False) for _ in range(2))
        mine, theirs = first.cookies, second.cookies
        out = first.predict(handle_file(str(_small_clip(tmp_path))), "anchors", "",
                            api_name="/caption")
        own = [u.replace("&amp;", "&") for u in re.findall(r"<img src='([^']+)'", out[4])]
        assert own, out[-1]
        for u in own:
            assert "/viewer/" in u and "/viewer/shared/" not in u
            assert get(url, "/" + u, mine)[0] == 200
            assert get(url, "/" + u, theirs)[0] in DENIED
            assert get(url, "/" + u, {})[0] in DENIED
        ex = first.predict("carphone", "anchors", api_name="/caption_example")
        public = [page_url_path(ex[0])] + ["/" + u for u in re.findall(r"<img src='([^']+)'",
                                                                       ex[4])]
        assert len(public) >= 5
        for path in public:
            assert "/viewer/shared/" in path
            for jar in (mine, theirs, {}):
                assert get(url, path, jar)[0] == 200
        from urllib.parse import unquote

        shared_dir = Path(unquote(public[0].split("file=", 1)[1])).parents[1]
        assert shared_dir.name == "shared" and shared_dir.parent.name == "viewer"
        shared = {p.name for p in shared_dir.rglob("*") if p.is_file()}
        assert "carphone_pristine.mp4" in shared and len(shared) == len(public)
        assert shared <= {"carphone_pristine.mp4", *(f"overlay-{i:02d}.webp" for i in range(24))}
        assert store.counts()["clips"] == 0


def test_launch_options_serve_nothing_else_and_block_the_store(server):
    from ui.app import blocked_paths
    from ui.settings import Settings

    url, store = server
    settings = Settings(data_dir=store.data_dir, database_url=store.url)
    blocked = blocked_paths(settings, store)
    db = str(store.files.path)
    assert {str(store.data_dir.resolve()), db, db + "-wal", db + "-shm"} <= set(blocked)
    # Gradio's own check, without the guard in front: it refuses these (second lock).
    from gradio.utils import is_allowed_file

    for path in (db + "-wal", str(store.data_dir / "clips")):
        assert is_allowed_file(Path(path), blocked_paths=blocked, allowed_paths=[],
                               created_paths=[str(store.data_dir)])[0] is False


def _small_clip(tmp_path: Path) -> Path:
    from tests.support.clips import moving_pattern, write_clip

    path = tmp_path / "walk.mp4"
    if not path.exists():
        write_clip(path, moving_pattern(n=20, dx=3, seed=len(str(tmp_path))), fps=20)
    return path
