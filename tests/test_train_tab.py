"""The Train and Accounts tabs without a browser: the launch form is generated from the training
config dataclasses (``describe()``), the tabs are shown to admins only and every handler refuses
anyone else (the use cases check the role, not the page), bad form input is a visible message."""
from __future__ import annotations

import html
from types import SimpleNamespace

import gradio as gr
import pytest

from cinecap.training.config import GRPOConfig, SFTConfig, describe
from tests.support.app_captioners import ScriptedCaptioner
from ui.backends import Backends
from ui.settings import Settings
from ui.usecases import rounds


@pytest.fixture
def demo(tmp_path):
    from db.store import Store
    from ui.app import build_app

    settings = Settings(data_dir=tmp_path / "data", rounds_base="tiny", worker="external")
    store = Store(settings.database_url, settings.data_dir)
    store.users.add("ada", "admin", "ada-password")
    store.users.add("rita", "reviewer", "rita-password")
    app = build_app(settings, store, Backends(captioners={"scripted": ScriptedCaptioner}))
    yield app
    app.close()
    store.close()


def _components(demo) -> dict:
    return {c.elem_id: c for c in demo.blocks.values() if getattr(c, "elem_id", None)}


def _fn(demo, name: str):
    return next(f for f in demo.fns.values() if f.name == name and f.fn.__module__ in (
        "ui.tabs.train", "ui.tabs.base", "ui.tabs.accounts"))


def test_the_form_is_generated_from_the_config_dataclasses(demo):
    comps = _components(demo)
    for stage, cls in (("sft", SFTConfig), ("grpo", GRPOConfig)):
        described = {d["name"]: d for d in describe(cls)}
        for name in rounds.FORM_FIELDS[stage]:
            c = comps[f"train-{stage}-{name}"]
            assert c.label == name and c.info == described[name]["help"]
            if described[name]["choices"]:
                assert [v for _, v in c.choices] == list(described[name]["choices"])
    # This machine trains the tiny model: its settings are the form's defaults.
    assert comps["train-sft-max_steps"].value == rounds.TINY_SETTINGS["max_steps"]
    assert comps["train-grpo-num_generations"].value == 2
    assert comps["train-grpo-beta"].value == 0.04 and comps["train-grpo-tau"].value == 0.75
    assert comps["train-grpo-coverage"].value == "symmetric"
    assert comps["train-sft-learning_rate"].value == ""  # optional: empty is the default


def test_only_admins_see_the_tabs_and_every_handler_checks_the_role(demo):
    load = next(f for f in demo.fns.values() if (demo._id, "load") in f.targets)
    pages = {b.id: b for b in demo.blocks.values() if isinstance(b, gr.Tab)}
    assert not pages["train"].visible and not pages["accounts"].visible
    values = dict(zip([id(c) for c in load.outputs], load.fn(SimpleNamespace(username="rita"))))
    assert not values[id(pages["train"])].visible and not values[id(pages["accounts"])].visible
    values = dict(zip([id(c) for c in load.outputs], load.fn(SimpleNamespace(username="ada"))))
    assert values[id(pages["train"])].visible and values[id(pages["accounts"])].visible

    rita = SimpleNamespace(username="rita")
    comps = _components(demo)
    launch = _fn(demo, "on_launch")
    data = {c: getattr(c, "value", None) for c in launch.inputs}
    attempts = [lambda: _fn(demo, "on_tick").fn(None, rita),
                lambda: _fn(demo, "on_add").fn("eve", "admin", "eve-password", rita),
                lambda: _fn(demo, "on_set_role").fn("rita", "admin", rita)]
    for attempt in attempts:
        with pytest.raises(gr.Error, match="needs the admin role"):
            attempt()
    # The Train tab's actions say why beside the form, and touch no other output.
    for attempt in (lambda: launch.fn(data, rita),
                    lambda: _fn(demo, "on_rollback").fn(None, False, rita)):
        assert "needs the admin role" in _refused(attempt, comps)
    store = demo.app_context.store
    assert store.rounds.list() == [] and store.users.find("eve") is None
    assert store.users.find("rita").role == "reviewer"
    assert comps["train-launch"].variant == "primary"


def test_bad_form_input_is_a_message_and_queues_nothing(demo):
    ada = SimpleNamespace(username="ada")
    comps = _components(demo)
    launch = _fn(demo, "on_launch")
    data = {c: getattr(c, "value", None) for c in launch.inputs}
    data[comps["train-more"]] = "{not json"
    assert "More settings is not valid JSON" in _refused(lambda: launch.fn(data, ada), comps)
    data[comps["train-more"]] = '["lora_r", 8]'
    assert "must be a JSON object" in _refused(lambda: launch.fn(data, ada), comps)
    data[comps["train-more"]] = ""
    assert "no accepted gold pairs to train on" in _refused(lambda: launch.fn(data, ada), comps)
    assert demo.app_context.store.rounds.list() == []


def _refused(attempt, comps) -> str:
    """The Train tab's message after a refused action: the only output it updates (so no other
    component shows Gradio's "Error" badge), starting with the error mark (shown red), and the
    same words in one toast (``gr.Warning``, which outside a request Gradio turns into a
    ``UserWarning``; the toast is HTML, so its text is escaped)."""
    with pytest.warns(UserWarning) as toasts:
        result = attempt()
    assert isinstance(result, dict) and list(result) == [comps["train-message"]], result
    text = result[comps["train-message"]]
    assert text.startswith("⚠ ")
    # pytest.warns records every warning: Gradio's safe_get_lock leaves event loops behind,
    # and one freed meanwhile says "unclosed event loop" (a ResourceWarning, not a toast).
    assert [html.unescape(str(t.message)) for t in toasts
            if issubclass(t.category, UserWarning)] == [text.removeprefix("⚠ ")]
    return text


def test_a_refused_launch_builds_and_registers_nothing(tmp_path, small_clip):
    """max_steps=0 (and a bad version to start from) are refused before any work: no tiny
    model built, no base version registered, no round, no round folder."""
    from cinecap.errors import InputError
    from db.store import Store
    from tests.support.rounds import LEARNABLE, clips, with_gold_pairs

    settings = Settings(data_dir=tmp_path / "data", rounds_base="tiny", worker="external")
    store = Store(settings.database_url, settings.data_dir)
    admin = store.users.add("ada", "admin", "ada-password")
    with_gold_pairs(store, clips(tmp_path / "clips", small_clip), gold=LEARNABLE)

    class Queue:
        ids: list = []

        def submit_round(self, round_id):
            self.ids.append(round_id)

    queue = Queue()
    try:
        with pytest.raises(InputError, match="max_steps must be -1 .* got 0"):
            rounds.launch_round(store, settings, queue, admin, "sft", "serving", {"max_steps": 0})
        with pytest.raises(InputError, match="start from 'serving', 'base' or a version id"):
            rounds.launch_round(store, settings, queue, admin, "sft", "newest", {"max_steps": 1})
        assert store.versions.list() == [] and store.rounds.list() == [] and queue.ids == []
        assert not rounds.tiny_model_dir(settings).exists()
        folder = settings.data_dir / "rounds"
        assert not folder.exists() or not any(folder.iterdir())
    finally:
        store.close()


def _comparison(old_f1, new_f1, clips=2) -> dict:
    return {"heldout_clips": clips, "serving": {"label": "#1 (base)", "scores": {"f1": old_f1}},
            "new": {"label": "#2 (round 1, sft)", "scores": {"f1": new_f1}}}


def test_promote_says_when_the_comparison_cannot_tell_the_versions_apart():
    said = rounds.comparison_undecided(_comparison(0.0, 0.0))
    assert said.startswith("The comparison cannot tell the two versions apart: both score F1 "
                           "0.00 on 2 held-out clips.")
    assert rounds.comparison_undecided(_comparison(0.301, 0.304, 1)).count("0.30 on 1 held-out "
                                                                           "clip.") == 1
    assert rounds.comparison_undecided(_comparison(0.0, 0.25)) == ""
    assert rounds.comparison_undecided(_comparison(None, 0.0)) == ""
    assert rounds.comparison_undecided({}) == ""


def test_the_page_polls_only_while_the_round_shown_runs(demo):
    """The Train tab's timer (gr.Timer) runs while a round is queued, running or benchmarking,
    and stops once it has ended: a finished round's page asks the store nothing."""
    from ui.tabs.train import TrainTab

    ctx, store = demo.app_context, demo.app_context.store
    ada = store.users.find("ada")
    assert not TrainTab().on_show(ctx, ada)[-1].active  # no round yet: no poll
    r = store.rounds.add("sft", {}, {}, ada, None, "round-1")
    tick = _fn(demo, "on_tick").fn
    assert TrainTab().on_show(ctx, ada)[-1].active and tick(None, SimpleNamespace(
        username="ada"))[-1].active
    store.rounds.finish(r.id, "failed", error="stopped by the test")
    assert not tick(r.id, SimpleNamespace(username="ada"))[-1].active
    assert not TrainTab().on_show(ctx, ada)[-1].active
