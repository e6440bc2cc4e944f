"""Accounts under attack (issue 10): user names that break or fake things, timing that tells which
names exist, password guessing, and Hugging Face sessions that outlive their expiry or a removed
role. On a real SQLite file and a real PostgreSQL server; OAuth with the session content Gradio
stores after "Sign in with Hugging Face", forged as the other tests do."""
from __future__ import annotations

import io
import re
import sys
import time
from dataclasses import replace
from types import SimpleNamespace

import pytest

from cinecap.errors import InputError
from tests.support.stores import store  # noqa: F401 - the parametrised fixture
from ui.settings import Settings
from ui.usecases import accounts
from ui.usecases.accounts import CONSOLE, LoginThrottle, OAuthRoles, TooManyRequests


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def hf_session(name: str, expires_in: float | None = 3600.0) -> SimpleNamespace:
    info = {"userinfo": {"preferred_username": name}, "access_token": "hf_x"}
    if expires_in is not None:
        info["expires_at"] = time.time() + expires_in
    return SimpleNamespace(username=None, session={"oauth_info": info})


@pytest.mark.parametrize("name, needle", [
    ("x" * 300, "300 characters long; at most 100"),
    ("eve\nmallory\tadmin\tlocal", "control character U+000A"),
    ("admin\u202e", "control character U+202E"),  # a bidi override: reads as another name
    ("zero\u200bwidth", "control character U+200B"),
    ("  ", "empty"),
])
def test_bad_user_names_are_refused_clearly_on_both_databases(store, name, needle):
    with pytest.raises(InputError, match=re.escape(needle)):
        accounts.add_user(store, CONSOLE, name, "annotator", "password1")
    assert store.users.list() == []
    ok = accounts.add_user(store, CONSOLE, "  Zoë O'Brien-Smith  ", "viewer", "password1")
    assert ok.name == "Zoë O'Brien-Smith" and len(store.users.list()) == 1


def test_users_list_cannot_be_faked_by_a_stored_name(tmp_path, monkeypatch, capsys):
    """A name stored before names were checked (written straight into the table) is listed on
    one line, its control characters escaped."""
    from sqlalchemy import text

    from db.store import Store
    from ui.cli import main

    url = f"sqlite:///{tmp_path / 'c.sqlite3'}"
    s = Store(url, tmp_path)
    s.users.add("ann", "annotator", "password1")
    with s.engine.begin() as conn:
        conn.execute(text("INSERT INTO users (name, role, provider, created_at) VALUES "
                          "(:n, 'viewer', 'local', CURRENT_TIMESTAMP)"),
                     {"n": "eve\nroot\tadmin\tlocal"})
    s.close()
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["users", "--database-url", url, "--data-dir", str(tmp_path), "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["ann\tannotator\tlocal", "eve\\nroot\\tadmin\\tlocal\tviewer\tlocal"]


def test_unknown_names_cost_one_scrypt_like_known_ones(store, monkeypatch):
    """No timing difference to measure: the same single scrypt runs for an unknown name, an OAuth
    account (no password) and a wrong password (benchmarks/security_costs.py measures it)."""
    import hashlib

    import db.passwords as pw

    store.users.add("ann", "annotator", "password1")
    store.users.ensure("hf-user", "viewer", provider="huggingface")
    pw._dummy_hash()  # made once per process, like the real hashes' salt: not per attempt
    calls = []
    real = hashlib.scrypt
    monkeypatch.setattr(pw.hashlib, "scrypt", lambda *a, **k: calls.append(k["n"]) or real(*a, **k))
    for name, password in (("ann", "wrong-password"), ("nobody", "wrong-password"),
                           ("hf-user", "wrong-password"), ("ann", "password1")):
        calls.clear()
        user = accounts.sign_in(store, name, password)
        assert calls == [2**14], (name, calls)
        assert (user is not None) == (password == "password1")


def test_failed_sign_ins_are_throttled_per_account_and_per_address(store):
    store.users.add("ann", "annotator", "password1")
    store.users.add("bea", "annotator", "password2")
    clock = Clock()
    throttle = LoginThrottle(per_user=3, per_address=5, window_s=600, clock=clock)
    for _ in range(3):
        assert accounts.sign_in(store, "ann", "guess", throttle, "10.0.0.1") is None
    # The right password no longer helps an attacker who guessed it on the 4th try.
    with pytest.raises(TooManyRequests, match=r"too many failed sign-ins.*try again in 10 min"):
        accounts.sign_in(store, "ann", "password1", throttle, "10.0.0.2")
    # The address that failed is limited across names too; another address is not.
    for name in ("bea", "carl"):
        assert accounts.sign_in(store, name, "guess", throttle, "10.0.0.1") is None
    with pytest.raises(TooManyRequests):
        accounts.sign_in(store, "bea", "password2", throttle, "10.0.0.1")
    assert accounts.sign_in(store, "bea", "password2", throttle, "10.0.0.3").name == "bea"
    clock.t += 601  # the failures age out
    assert accounts.sign_in(store, "ann", "password1", throttle, "10.0.0.1").name == "ann"


def test_a_successful_sign_in_clears_the_accounts_failures(store):
    store.users.add("ann", "annotator", "password1")
    throttle = LoginThrottle(per_user=3, per_address=100, window_s=600, clock=Clock())
    for _ in range(2):
        accounts.sign_in(store, "ann", "typo", throttle, "10.0.0.1")
    assert accounts.sign_in(store, "ann", "password1", throttle, "10.0.0.1") is not None
    for _ in range(2):
        accounts.sign_in(store, "ann", "typo", throttle, "10.0.0.1")
    assert accounts.sign_in(store, "ann", "password1", throttle, "10.0.0.1") is not None


def test_expired_or_undated_hugging_face_sessions_are_not_accepted(store):
    settings = Settings(data_dir=store.data_dir, auth="oauth", oauth_roles={"alice": "admin"})
    assert accounts.current_user(hf_session("alice"), settings, store).role == "admin"
    for request in (hf_session("alice", expires_in=-1), hf_session("alice", expires_in=None)):
        user = accounts.current_user(request, settings, store)
        assert (user.id, user.role) == (0, "viewer")
        assert "oauth_info" not in request.session  # dropped, as Gradio's own check does
        assert accounts.requester_key(request) is None


def test_hugging_face_roles_follow_the_configuration_not_the_first_sign_in(store, tmp_path):
    clock = Clock()
    roles_file = tmp_path / "roles.txt"
    roles_file.write_text("# name:role\nbob:reviewer\n")
    settings = Settings(data_dir=store.data_dir, auth="oauth", oauth_roles={"alice": "admin"},
                        oauth_roles_file=roles_file, oauth_refresh_s=60)
    roles = OAuthRoles(settings, clock=clock)
    assert accounts.current_user(hf_session("alice"), settings, store, roles).role == "admin"
    assert accounts.current_user(hf_session("bob"), settings, store, roles).role == "reviewer"
    # Removed from the configuration (the app started again without her): demoted at the next
    # request of the same session, whatever role the store kept from her first sign-in.
    settings = replace(settings, oauth_roles={})
    roles = OAuthRoles(settings, clock=clock)
    alice = accounts.current_user(hf_session("alice"), settings, store, roles)
    assert alice.role == "viewer" and store.users.find("alice").role == "viewer"
    # The roles file is re-read on its timer: not before oauth_refresh_s, then yes.
    roles_file.write_text("bob:viewer\nalice:annotator\n")
    clock.t += 30
    assert accounts.current_user(hf_session("bob"), settings, store, roles).role == "reviewer"
    clock.t += 31
    assert accounts.current_user(hf_session("bob"), settings, store, roles).role == "viewer"
    assert accounts.current_user(hf_session("alice"), settings, store, roles).role == "annotator"
    # A broken file grants nothing beyond the environment (fail closed).
    roles_file.write_text("alice:superuser\n")
    clock.t += 61
    assert accounts.current_user(hf_session("alice"), settings, store, roles).role == "viewer"


def test_a_hugging_face_name_never_borrows_a_local_accounts_role(store):
    store.users.add("root", "admin", "password1")
    settings = Settings(data_dir=store.data_dir, auth="oauth")
    user = accounts.current_user(hf_session("root"), settings, store)
    assert (user.id, user.role, user.provider) == (0, "viewer", "huggingface")
    assert store.users.find("root").role == "admin"  # and the local account is untouched
