"""What the Caption tab's use case makes of a run a new user trips over (issue 26 item 4): a
``vlm`` output cut off by max_new_tokens before any statement is a failed run (kept as
released, marked failed), not a clip with nothing to say; after an admin promotes a version a
round trained, the menu's default is the ``vlm`` captioner that serves it. Real tiny Qwen3-VL checkpoint, real clip, real
SQLite store."""
from __future__ import annotations

import pytest

from cinecap.captioners import get_captioner
from tests.support.tiny_models import tiny_checkpoint
from ui.backends import Backends
from ui.settings import Settings
from ui.usecases import caption


@pytest.fixture
def store(tmp_path):
    from db.store import Store

    s = Store(f"sqlite:///{tmp_path / 'app.db'}", tmp_path / "data")
    yield s
    s.close()


def test_a_vlm_output_truncated_before_any_statement_is_a_failure(store, tmp_path, small_clip,
                                                                   monkeypatch):
    monkeypatch.delenv("CINECAP_MODEL", raising=False)
    settings = Settings(data_dir=tmp_path / "data")
    ann = store.users.add("ann", "annotator", "ann-password")
    model = str(tiny_checkpoint("qwen3_vl"))
    backends = Backends(captioners={"vlm": lambda: get_captioner(
        "vlm", model=model, max_new_tokens=3, device="cpu")})
    seen: list[tuple[float, str]] = []
    out = caption.caption_clip(store, backends, settings, ann, small_clip, "vlm",
                               progress=lambda f, m: seen.append((f, m)))
    assert out.result["statements"] == [] and out.result["meta"]["truncated"]
    # The tab's progress bar hears the tokens as they come (the captioner's span: 0.05-0.9).
    assert [f for f, _ in seen] == sorted(f for f, _ in seen)
    tokens = [(f, m) for f, m in seen if m.startswith("generating: ") and "of at most" in m]
    assert [m for _, m in tokens] == [f"generating: {n} of at most 3 tokens" for n in (1, 2, 3)]
    assert all(0.05 < f <= 0.9 for f, _ in tokens)
    assert out.failure.startswith(f"the vlm captioner failed on '{small_clip.name}': its output "
                                  f"was cut off before any statement")
    assert "max_new_tokens=3 (truncated)" in out.failure
    # Kept as released (the clip and its caption are stored), and marked failed on the page.
    assert store.clips.list() and out.caption_id is not None


def test_the_default_captioner_follows_a_promoted_version(store, tmp_path):
    settings = Settings(data_dir=tmp_path / "data")
    admin = store.users.add("ada", "admin", "ada-password")
    backends = Backends.from_registry(("anchors", "vlm"))
    assert caption.captioner_choices(store, backends, settings).default == "anchors"
    base = store.versions.ensure_base("tiny-qwen3_vl", tmp_path / "models" / "tiny")
    # The base serving (registered by a first round) is no choice of the team's yet.
    assert caption.captioner_choices(store, backends, settings).default == "anchors"
    r = store.rounds.add("sft", {"max_steps": 1, "out": str(tmp_path / "v")}, {"pairs": 2},
                         admin, base.id, "f1", captioner_options={})
    store.rounds.claim(r.id, "host:1")
    store.rounds.finish(r.id, "done", scores={"f1": 0.1}, comparison={"new": {}})
    store.versions.promote(r.version_id, admin)
    offered = caption.captioner_choices(store, backends, settings)
    assert "vlm" in offered.names and offered.default == "vlm"
    store.versions.rollback(admin)  # the base serves again: the configured default returns
    assert caption.captioner_choices(store, backends, settings).default == "anchors"
