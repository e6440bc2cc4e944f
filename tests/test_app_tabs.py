"""The tab protocol (ui/tabs/base.py): a tab added to the app's list is built, shown to the roles
that reach its ``min_role`` when the page loads, filled by its ``on_show`` (on load and when
selected), and contributes its page head and css. The app itself knows no tab's insides."""
from __future__ import annotations

from types import SimpleNamespace

import gradio as gr

from tests.support.app_captioners import ScriptedCaptioner
from ui.app import TABS, build_app, launch_options
from ui.backends import Backends
from ui.settings import Settings
from ui.tabs.base import Tab
from ui.tabs.caption import CaptionTab
from ui.tabs.review import SHOW_OUT, ReviewTab


class NotesTab(Tab):
    """A tab for reviewers and up, as a next feature would add one."""

    id = "notes"
    title = "Notes"
    min_role = "reviewer"
    head = "<meta name='notes-tab'>"
    css = "#notes-box { color: teal; }"

    def build(self, ctx):
        return [gr.Textbox(label="Notes", elem_id="notes-box")]

    def on_show(self, ctx, user):
        return [f"notes for {user.name}"]


def _event(demo: gr.Blocks, target_id: int, event: str):
    return next(f for f in demo.fns.values() if (target_id, event) in f.targets)


def test_a_new_tab_is_built_shown_by_role_and_filled_on_show(tmp_path):
    from db.store import Store

    store = Store(f"sqlite:///{tmp_path / 'tabs.sqlite3'}", tmp_path / "data")
    for name, role in (("ann", "annotator"), ("rita", "reviewer")):
        store.users.add(name, role, f"{name}-password")
    settings = Settings(data_dir=tmp_path / "data")
    tabs = (CaptionTab(), ReviewTab(), NotesTab())
    demo = build_app(settings, store, Backends(captioners={"scripted": ScriptedCaptioner}),
                     tabs=tabs)
    pages = {b.id: b for b in demo.blocks.values() if isinstance(b, gr.Tab)}
    assert [pages[t.id].label for t in tabs] == ["Caption", "Review", "Notes"]
    assert pages["caption"].visible and not pages["review"].visible  # until the page loads
    assert not pages["notes"].visible

    load = _event(demo, demo._id, "load")
    # Outputs: who, Caption's captioner menu, Review's tab + what its on_show fills (SHOW_OUT),
    # Notes' tab + its box.
    who, menu, review_tab, *shown, notes_tab, notes = load.fn(SimpleNamespace(username="rita"))
    assert "Signed in as <b>rita</b> · reviewer" in who and len(shown) == len(SHOW_OUT)
    assert "href='logout'>Sign out</a>" in who  # local accounts: ui.signin's /logout
    assert "href='logout?everywhere=1'" in who and "Sign out everywhere" in who
    assert [c[1] for c in menu.choices] == ["scripted"]
    assert review_tab.visible and notes_tab.visible
    # The reviewer's panel waits for a clip with a pair to decide on (none is open yet).
    assert shown[SHOW_OUT.index("queue")] == [] and not shown[SHOW_OUT.index("reviewer")].visible
    assert notes == "notes for rita"
    who, _, review_tab, *shown, notes_tab, notes = load.fn(SimpleNamespace(username="ann"))
    assert review_tab.visible and not notes_tab.visible and notes == gr.skip()
    assert not shown[SHOW_OUT.index("reviewer")].visible  # no reviewer buttons for annotators
    who, _, review_tab, *_, notes_tab, _ = load.fn(SimpleNamespace(username=None))  # a viewer
    assert not review_tab.visible and not notes_tab.visible
    assert "id='sign-in' href='sign-in'>Sign in</a>" in who and "Sign out" not in who

    # Selecting the tab runs on_show again for its components.
    assert _event(demo, pages["notes"]._id, "select").fn(
        SimpleNamespace(username="rita")) == "notes for rita"
    opts = launch_options(settings, store, tabs=tabs)
    assert "<meta name='notes-tab'>" in opts["head"] and "review-save" in opts["head"]
    assert "#notes-box" in opts["css"] and "#review-table" in opts["css"]
    store.close()


def test_the_app_lists_its_tabs_weakest_role_first(tmp_path):
    """The app's own tabs: everyone's, annotators', then the admin's Train, Data and Accounts."""
    assert [(t.title, t.min_role) for t in TABS] == [
        ("Caption", "viewer"), ("Leaderboard", "viewer"), ("Review", "annotator"),
        ("Train", "admin"), ("Data", "admin"), ("Accounts", "admin")]


def test_the_leaderboard_fills_its_picker_with_entries_among_its_choices(tmp_path):
    """On load the chart's picker gets the paper's entries, chosen among its choices: Gradio has
    nothing to warn about (it warned on every page load when the update forgot multiselect)."""
    import warnings

    from db.store import Store
    from ui.tabs.leaderboard import SHOW_OUT, LeaderboardTab

    store = Store(f"sqlite:///{tmp_path / 'lb.sqlite3'}", tmp_path / "data")
    demo = build_app(Settings(data_dir=tmp_path / "data"), store,
                     Backends(captioners={"scripted": ScriptedCaptioner}),
                     tabs=(LeaderboardTab(),))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _, *shown = _event(demo, demo._id, "load").fn(SimpleNamespace(username=None))
    pick = shown[SHOW_OUT.index("pick")]
    assert pick.multiselect and pick.value == ["R1 CineCap-GRPO-8B (reported)",
                                               "R2 Gemini-3.1-Pro (reported)"]
    assert not [str(w.message) for w in caught if "gr.Dropdown" in str(w.message)]
    store.close()
