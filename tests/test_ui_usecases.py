"""The app's use cases as plain functions, on a real store and real clips (no browser). The review
use cases: tests/test_review_usecases.py and tests/test_review_random.py."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cinecap.errors import CaptionerError, InputError, VideoError
from db import PermissionDenied, StoreConflict
from db.records import UserRecord
from tests.support.app_captioners import CrashingCaptioner, ScriptedCaptioner
from tests.support.stores import store  # noqa: F401 - the parametrised fixture
from ui.backends import Backends
from ui.settings import Settings
from ui.usecases import caption, preview

VIEWER = UserRecord(0, "anonymous", "viewer", "none")


@pytest.fixture
def backends():
    return Backends(captioners={"scripted": ScriptedCaptioner, "crashing": CrashingCaptioner})


@pytest.fixture
def settings(tmp_path):
    return Settings(data_dir=tmp_path / "data", max_upload_mb=50, page_dir=tmp_path / "page")


@pytest.fixture
def ann(store):
    return store.users.add("ann", "annotator", "password1")


def test_annotator_caption_is_stored_with_clip_and_statements(store, backends, settings, ann,
                                                              bikes, tmp_path):
    seen = []
    out = caption.caption_clip(store, backends, settings, ann, bikes, "scripted",
                                progress=lambda f, m: seen.append(f))
    assert out.clip_id and out.caption_id
    assert Path(out.video_path).read_bytes() == bikes.read_bytes()
    assert out.info["duration"] == pytest.approx(10.0, abs=0.2)
    cap = store.clips.latest_caption(out.clip_id)
    assert [s["value"] for s in cap.statements] == ["static", "pan right", "wide shot"]
    assert cap.statements[1]["t_end"] == pytest.approx(out.info["duration"], abs=0.01)
    assert seen[0] == 0.0 and seen[-1] == 1.0 and seen == sorted(seen)
    exported = json.loads(Path(caption.export_json(out, tmp_path)).read_text())
    assert exported["caption"] == out.result["caption"] and len(exported["statements"]) == 3


def test_viewer_caption_is_not_stored(store, backends, settings, small_clip):
    out = caption.caption_clip(store, backends, settings, VIEWER, small_clip, "scripted")
    assert out.result["statements"] and out.clip_id is None
    assert store.counts()["clips"] == store.counts()["captions"] == 0


def _bad_upload(kind: str, tmp_path: Path, small_clip: Path) -> Path:
    if kind == "corrupt":  # a real MP4 header with its body cut off and overwritten
        data = bytearray(small_clip.read_bytes())
        p = tmp_path / "corrupt.mp4"
        p.write_bytes(bytes(data[:64]) + b"\x00" * 4000)
        return p
    if kind == "huge":  # 2 GB, sparse: costs no disk and is never read
        p = tmp_path / "huge.mp4"
        with open(p, "wb") as f:
            f.truncate(2 * 1024**3)
        return p
    if kind == "text":
        p = tmp_path / "notes.txt"
        p.write_text("not a video")
        return p
    p = tmp_path / "fake.mp4"  # a text file with a video's name
    p.write_text("<html>hello</html>" * 50)
    return p


@pytest.mark.parametrize("kind,message", [("corrupt", r"corrupt|unreadable|truncated|not a video|"
                                                     r"no video|no frames|cannot"),
                                          ("huge", r"2,048 MB, over the upload limit of 50 MB"),
                                          ("text", r"not a video file"),
                                          ("fake", r"not a video|unreadable|cannot|no video")])
def test_bad_uploads_give_clear_messages_and_change_nothing(store, backends, settings, ann,
                                                            small_clip, tmp_path, kind, message):
    before = store.counts()
    with pytest.raises(VideoError, match=message):
        caption.caption_clip(store, backends, settings, ann,
                              _bad_upload(kind, tmp_path, small_clip), "scripted")
    assert store.counts() == before
    assert not (settings.data_dir / "clips").exists() or not any(
        (settings.data_dir / "clips").rglob("*.mp4"))


def test_crashed_captioner_gives_a_message_and_changes_nothing(store, backends, settings, ann,
                                                               small_clip):
    before = store.counts()
    with pytest.raises(CaptionerError, match="crashing captioner failed.*nothing was saved"):
        caption.caption_clip(store, backends, settings, ann, small_clip, "crashing")
    assert store.counts() == before


def test_unknown_captioner_names_the_offered_ones(store, backends, settings, ann, small_clip):
    with pytest.raises(InputError, match="offered: scripted, crashing"):
        caption.caption_clip(store, backends, settings, ann, small_clip, "gpt-7")


def test_accounts_are_managed_by_admins_through_the_use_cases(store):
    from ui.usecases import accounts

    ann = accounts.add_user(store, accounts.CONSOLE, "ann", "annotator", "password1")
    assert (ann.name, ann.role, ann.provider) == ("ann", "annotator", "local")
    for call in (lambda: accounts.add_user(store, ann, "eve", "admin", "password2"),
                 lambda: accounts.list_users(store, ann),
                 lambda: accounts.set_role(store, ann, "ann", "admin")):
        with pytest.raises(PermissionDenied, match="admin role"):
            call()
    with pytest.raises(InputError, match="too short"):
        accounts.add_user(store, accounts.CONSOLE, "bob", "viewer", "short")
    with pytest.raises(InputError, match="unknown role 'god'"):
        accounts.add_user(store, accounts.CONSOLE, "bob", "god", "password3")
    with pytest.raises(InputError, match="name is empty"):
        accounts.add_user(store, accounts.CONSOLE, "  ", "viewer", "password3")
    with pytest.raises(StoreConflict, match="already exists"):
        accounts.add_user(store, accounts.CONSOLE, "ann", "viewer", "password3")
    assert accounts.set_role(store, accounts.CONSOLE, "ann", "reviewer").role == "reviewer"
    assert [u.name for u in accounts.list_users(store, accounts.CONSOLE)] == ["ann"]
    assert accounts.sign_in(store, "ann", "password1").role == "reviewer"
    assert accounts.sign_in(store, "ann", "wrong-password") is None


def test_settings_validate_and_read_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("CINECAP_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("CINECAP_OAUTH_ROLES", "alice:admin,bob:annotator")
    s = Settings.from_env()
    assert s.database_url == f"sqlite:///{tmp_path.resolve() / 'cinecap.sqlite3'}"
    assert s.oauth_roles == {"alice": "admin", "bob": "annotator"}
    monkeypatch.setenv("DATABASE_URL", "postgres://u:p@db/x")
    assert Settings.from_env().database_url == "postgresql+psycopg://u:p@db/x"
    with pytest.raises(InputError, match="anonymous_role .*CINECAP_ANONYMOUS_ROLE.* must be"):
        Settings(anonymous_role="god")
    with pytest.raises(InputError, match="auth .*CINECAP_AUTH.* must be one of auto, none"):
        Settings(auth="kerberos")


def test_database_url_problems_are_clear_errors(tmp_path):
    from cinecap.errors import UnavailableError
    from db.store import Store

    with pytest.raises(InputError, match="not usable.*postgresql\\+psycopg"):
        Store("garbage", tmp_path)
    with pytest.raises(UnavailableError, match="cannot open the database .*127.0.0.1:1"):
        Store("postgresql+psycopg://someone:secret@127.0.0.1:1/x", tmp_path)


def test_oauth_and_local_users_resolve_to_their_roles(store):
    import time
    from types import SimpleNamespace

    from ui.usecases.accounts import current_user, stored_user

    settings = Settings(data_dir=store.data_dir, auth="oauth", oauth_roles={"alice": "reviewer"})
    # What Gradio's OAuth keeps in the session after "Sign in with Hugging Face".
    hf = SimpleNamespace(username=None, session={"oauth_info": {"userinfo": {
        "preferred_username": "alice"}, "expires_at": time.time() + 3600}})
    alice = current_user(hf, settings, store)
    assert (alice.name, alice.role, alice.provider) == ("alice", "reviewer", "huggingface")
    stranger = SimpleNamespace(username=None, session={"oauth_info": {"userinfo": {
        "preferred_username": "mallory"}, "expires_at": time.time() + 3600}})
    assert current_user(stranger, settings, store).role == "viewer"
    store.users.add("ann", "annotator", "password1")
    assert current_user(SimpleNamespace(username="ann"), settings, store).role == "annotator"
    nobody = current_user(SimpleNamespace(username=None), settings, store)
    assert (nobody.id, nobody.role) == (0, "viewer")
    # A local demo that lets anonymous visitors annotate writes as a stored "anonymous" account.
    demo = Settings(data_dir=store.data_dir, anonymous_role="annotator")
    writer = stored_user(current_user(None, demo, store), store)
    assert writer.id and writer.role == "annotator" and store.users.find("anonymous")


def test_page_video_is_browser_playable(settings, small_clip, bikes):
    import av

    # The page gets the clip's bytes in a page folder, never a path into the store.
    page = Path(preview.video_for_page(settings, bikes, "h264", stored=True))
    assert page.read_bytes() == bikes.read_bytes()
    assert page.parent.parent == settings.page_dir / "annotator" / "shared"
    copy = preview.video_for_page(settings, small_clip, "mpeg4", stored=True)
    # The H.264 preview is made once, kept in the store's previews, shown from a page folder.
    assert [p.name for p in (settings.data_dir / "previews").iterdir()] == ["slide.h264.mp4"]
    assert Path(copy).is_relative_to(settings.page_dir)
    with av.open(copy) as c:
        s = c.streams.video[0]
        assert s.codec_context.name == "h264" and s.frames == 50
        assert float(c.duration / 1e6) == pytest.approx(2.0, abs=0.1)
    # A second call reuses the copy.
    assert preview.video_for_page(settings, small_clip, "mpeg4", stored=True) == copy


def test_error_messages_reach_the_page_escaped_and_without_tracebacks():
    import gradio as gr

    from ui.tabs.base import shown_errors

    @shown_errors
    def bad_upload():
        raise VideoError("'<img src=x onerror=alert(1)>.mp4' is not a video")

    @shown_errors
    def bug():
        raise KeyError("internal detail")

    with pytest.raises(gr.Error) as err:
        bad_upload()
    assert "&lt;img src=x onerror=alert(1)&gt;" in err.value.message  # Gradio renders it as HTML
    with pytest.raises(gr.Error, match=r"internal error \(KeyError\); see the server log"):
        bug()
