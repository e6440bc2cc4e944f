"""The vlm captioner serves the model version the store marks serving: the Caption tab offers it
as soon as a version serves and follows a promotion or a rollback made anywhere (the app's CLI,
with a store of its own: as from another process) at its next page load, without a restart; the
old model is replaced, not kept."""
from __future__ import annotations

import shutil
from types import SimpleNamespace

import pytest

from tests.support.tiny_models import tiny_checkpoint
from ui.backends import Backends
from ui.settings import Settings

pytestmark = pytest.mark.slow


def _choices(demo) -> list[str]:
    load = next(f for f in demo.fns.values() if (demo._id, "load") in f.targets)
    values = load.fn(SimpleNamespace(username="ada"))
    menu = next(v for c, v in zip(load.outputs, values) if c.elem_id == "captioner")
    return [value for _, value in menu.choices]


def test_the_caption_tab_follows_the_serving_version_without_a_restart(tmp_path, monkeypatch,
                                                                      capsys):
    from db.store import Store
    from ui.app import build_app
    from ui.cli import main

    monkeypatch.delenv("CINECAP_MODEL", raising=False)
    settings = Settings(data_dir=tmp_path / "data", worker="external")
    store = Store(settings.database_url, settings.data_dir)
    admin = store.users.add("ada", "admin", "ada-password")
    backends = Backends.from_registry(("anchors", "vlm"))
    demo = build_app(settings, store, backends)
    assert _choices(demo) == ["anchors"]  # no model configured, none serving

    base = store.versions.ensure_base("tiny", tiny_checkpoint())
    assert _choices(demo) == ["anchors", "vlm"]
    assert backends.served("vlm") == base.model
    first = backends.captioner("vlm")
    assert first.config.model == base.model

    # Another checkpoint becomes a version and is promoted by the app's CLI (its own store).
    shutil.copytree(tiny_checkpoint(), settings.data_dir / "versions" / "other")
    r = store.rounds.add("sft", {}, {}, admin, base.id, "other")
    store.rounds.claim(r.id, "h:1")
    store.rounds.finish(r.id, "done", scores={"f1": 0.0})
    other = store.versions.get(r.version_id)
    where = ["--database-url", settings.database_url, "--data-dir", str(settings.data_dir)]
    code = main(["versions", *where, "promote", str(other.id)])
    out, err = capsys.readouterr()
    assert code == 0 and f"version {other.label} is serving" in out, err
    assert _choices(demo) == ["anchors", "vlm"]  # the next page load follows it
    assert backends.served("vlm") == other.model
    second = backends.captioner("vlm")
    assert second is not first and second.config.model == other.model
    assert not backends.serve("vlm", other.model, lambda: pytest.fail("rebuilt"))

    code = main(["versions", *where, "rollback"])
    assert code == 0, capsys.readouterr().err
    _choices(demo)
    assert backends.captioner("vlm").config.model == base.model
    demo.close()
    store.close()
