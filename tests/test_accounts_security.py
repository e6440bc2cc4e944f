"""Accounts under attack (issue 10, issue 27 items 4–6): user names that break or fake things,
timing that tells which names exist, password guessing (a delay that cannot lock anyone out),
sessions bound to accounts (deletion, a password change, expiry), the client address behind
proxies, and Hugging Face sessions that outlive their expiry or a removed role. On a real SQLite
file and a real PostgreSQL server; OAuth with the session content Gradio stores after "Sign in
with Hugging Face", forged as the other tests do."""
from __future__ import annotations

import io
import re
import sys
import time
from datetime import datetime, timedelta, timezone
from dataclasses import replace
from types import SimpleNamespace

import pytest

from cinecap.errors import InputError
from db.errors import PermissionDenied
from tests.support.stores import store  # noqa: F401 - the parametrised fixture
from ui.settings import Settings
from ui.usecases import accounts
from ui.usecases.accounts import CONSOLE, LoginThrottle, OAuthRoles, TooManyRequests


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


class DateClock:
    """UTC now, moved on by hand: the throttle's failures are stored with their times."""

    def __init__(self):
        self.t = datetime.now(timezone.utc)

    def __call__(self) -> datetime:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += timedelta(seconds=seconds)


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


def test_the_delay_grows_per_account_and_never_holds_back_a_client_that_has_not_failed(store):
    """Issue 27 item 4: five wrong passwords used to lock the account for everyone, the right
    password included. Now only the clients that failed wait, longer with each failure."""
    store.users.add("ann", "admin", "password1")
    clock = DateClock()
    throttle = LoginThrottle(store, per_account=3, per_address=100, window_s=900, clock=clock)
    for _ in range(3):
        assert accounts.sign_in(store, "ann", "guess", throttle, "10.0.0.66") is None
    waits = []
    for _ in range(4):  # the guesser waits 5, 10, 20, 40 s after each further failure
        with pytest.raises(TooManyRequests, match=r"try again in \d+ s") as e:
            accounts.sign_in(store, "ann", "password1", throttle, "10.0.0.66")
        waits.append(e.value.retry_after_s)
        clock.advance(e.value.retry_after_s + 0.01)
        assert accounts.sign_in(store, "ann", "guess", throttle, "10.0.0.66") is None
    assert [round(w) for w in waits] == [5, 10, 20, 40]
    # The admin on another machine, who never failed, signs in at once, every time.
    assert accounts.sign_in(store, "ann", "password1", throttle, "10.0.0.1").name == "ann"
    # A client that has failed on the account waits as long as the account's count says.
    assert accounts.sign_in(store, "ann", "typo", throttle, "10.0.0.2") is None
    with pytest.raises(TooManyRequests):
        accounts.sign_in(store, "ann", "password1", throttle, "10.0.0.2")
    assert [throttle.delay_s(n, 3) for n in (0, 2, 3, 4, 5, 12, 30)] == [
        0, 0, 5, 10, 20, 900, 900]  # capped at the window
    clock.advance(901)  # the failures age out
    assert accounts.sign_in(store, "ann", "password1", throttle, "10.0.0.66").name == "ann"


def test_the_delay_per_address_covers_every_name_it_tries(store):
    store.users.add("bea", "annotator", "password2")
    clock = DateClock()
    throttle = LoginThrottle(store, per_account=100, per_address=3, window_s=600, clock=clock)
    for name in ("bea", "carl", "dora"):
        assert accounts.sign_in(store, name, "guess", throttle, "10.0.0.9") is None
    with pytest.raises(TooManyRequests, match="too many failed sign-ins"):
        accounts.sign_in(store, "bea", "password2", throttle, "10.0.0.9")
    assert accounts.sign_in(store, "bea", "password2", throttle, "10.0.0.3").name == "bea"
    # The failures live in the store: a restarted app (a new throttle) sees them, and the
    # admin's command forgets them.
    again = LoginThrottle(store, per_account=100, per_address=3, window_s=600, clock=clock)
    with pytest.raises(TooManyRequests):
        accounts.sign_in(store, "bea", "password2", again, "10.0.0.9")
    assert accounts.clear_throttle(store, CONSOLE, address="10.0.0.9") == 3
    assert accounts.sign_in(store, "bea", "password2", again, "10.0.0.9").name == "bea"


def test_a_successful_sign_in_clears_that_clients_failures(store):
    store.users.add("ann", "annotator", "password1")
    throttle = LoginThrottle(store, per_account=3, per_address=100, window_s=600,
                             clock=DateClock())
    for _ in range(2):
        accounts.sign_in(store, "ann", "typo", throttle, "10.0.0.1")
    assert accounts.sign_in(store, "ann", "password1", throttle, "10.0.0.1") is not None
    for _ in range(2):
        accounts.sign_in(store, "ann", "typo", throttle, "10.0.0.1")
    assert accounts.sign_in(store, "ann", "password1", throttle, "10.0.0.1") is not None


def test_sessions_belong_to_the_account_not_its_name(store):
    """Issue 27 item 6: a deleted account's session became a viewer's, and an admin's once an
    admin of the same name was created."""
    settings = Settings(data_dir=store.data_dir, database_url=store.url)
    bea = accounts.add_user(store, CONSOLE, "bea", "annotator", "password2")
    token = accounts.start_session(store, settings, bea)
    request = SimpleNamespace(username=None, cookies={accounts.SESSION_COOKIES[1]: token})
    assert accounts.current_user(request, settings, store).name == "bea"
    accounts.delete_user(store, CONSOLE, "bea")
    assert accounts.session_user(store, token) is None
    nobody = accounts.current_user(request, settings, store)
    assert (nobody.id, nobody.name, nobody.role) == (0, accounts.ANONYMOUS, "viewer")
    accounts.add_user(store, CONSOLE, "bea", "admin", "password3")
    assert accounts.current_user(request, settings, store).role == "viewer"
    with store.engine.connect() as conn:
        from sqlalchemy import text

        assert conn.execute(text("SELECT count(*) FROM sign_in_sessions")).scalar() == 0


def test_a_password_change_and_sign_out_everywhere_end_sessions(store):
    settings = Settings(data_dir=store.data_dir, database_url=store.url)
    ann = accounts.add_user(store, CONSOLE, "ann", "annotator", "password1")
    rita = accounts.add_user(store, CONSOLE, "rita", "reviewer", "password2")
    tokens = [accounts.start_session(store, settings, ann) for _ in range(3)]
    hers = accounts.start_session(store, settings, rita)
    assert accounts.sign_out(store, tokens[0]) == 1  # this browser only
    assert [accounts.session_user(store, t) is not None for t in tokens] == [False, True, True]
    with pytest.raises(InputError, match="too short"):
        accounts.change_password(store, CONSOLE, "ann", "short")
    accounts.change_password(store, CONSOLE, "ann", "a-new-password")
    assert all(accounts.session_user(store, t) is None for t in tokens)
    assert store.users.check_password("ann", "password1") is None
    assert store.users.check_password("ann", "a-new-password").name == "ann"
    assert accounts.session_user(store, hers).name == "rita"
    assert accounts.sign_out(store, hers, everywhere=True) == 1
    assert accounts.session_user(store, hers) is None
    with pytest.raises(PermissionDenied):
        accounts.change_password(store, ann, "rita", "a-new-password")


def test_sessions_expire(store):
    rita = store.users.add("rita", "reviewer", "password2")
    token = store.sign_ins.start(rita.id, lifetime_s=0.5)
    assert store.sign_ins.user(token).name == "rita"
    time.sleep(0.7)
    assert store.sign_ins.user(token) is None
    assert store.sign_ins.user("not-a-token") is None and store.sign_ins.user("") is None


def test_an_account_with_gold_pairs_is_kept_and_says_how_to_shut_it_out(store, tmp_path):
    from db.errors import StoreConflict

    ann = store.users.add("ann", "annotator", "password1")
    clip_path = tmp_path / "c.mp4"
    clip_path.write_bytes(b"not decoded here: the store keeps the file it is given")
    clip = store.clips.add(clip_path, "c.mp4", {"duration": 2.0, "fps": 25.0}, ann)
    store.review.save(clip.id, clip.version, ann, [{
        "aspect": "Shot Size", "value": "wide shot", "text": "It is a wide shot.",
        "t_start": None, "t_end": None, "evidence": "", "subject": None, "confidence": None,
        "measurements": {}}], [], "It is a wide shot.")
    with pytest.raises(StoreConflict, match=r"users set-role ann viewer"):
        accounts.delete_user(store, CONSOLE, "ann")
    assert store.users.find("ann") is not None


@pytest.mark.parametrize("peer, forwarded, trusted, expected", [
    ("127.0.0.1", ["203.0.113.9"], (), "127.0.0.1"),  # no proxy configured: the peer
    ("198.51.100.4", ["203.0.113.9"], ("127.0.0.1",), "198.51.100.4"),  # an untrusted peer
    ("127.0.0.1", ["203.0.113.9"], ("127.0.0.1",), "203.0.113.9"),
    ("127.0.0.1", ["6.6.6.6, 203.0.113.9"], ("127.0.0.1",), "203.0.113.9"),  # forged left part
    ("127.0.0.1", ["6.6.6.6, 203.0.113.9, 10.1.2.3"], ("127.0.0.1", "10.0.0.0/8"),
     "203.0.113.9"),  # two proxies
    ("127.0.0.1", ["6.6.6.6", "203.0.113.9"], ("127.0.0.1",), "203.0.113.9"),  # two headers
    ("127.0.0.1", ["not-an-address"], ("127.0.0.1",), "127.0.0.1"),
    ("127.0.0.1", ["10.0.0.7"], ("127.0.0.1", "10.0.0.0/8"), "10.0.0.7"),  # all trusted
    ("::1", ["[2001:db8::5]:4711"], ("::1",), "2001:db8::5"),
    ("::ffff:127.0.0.1", ["203.0.113.9:80"], ("127.0.0.1",), "203.0.113.9"),
])
def test_the_client_address_believes_x_forwarded_for_only_from_trusted_proxies(
        peer, forwarded, trusted, expected):
    from ui.context import client_address

    scope = {"client": (peer, 5000), "headers": [(b"x-forwarded-for", v.encode())
                                                 for v in forwarded]}
    assert client_address(scope, trusted) == expected
    assert client_address({"client": None, "headers": []}, trusted) is None


def test_trusted_proxies_must_be_addresses_or_networks(monkeypatch, tmp_path):
    monkeypatch.setenv("CINECAP_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("CINECAP_TRUSTED_PROXIES", " 10.0.0.0/8, ::1 ")
    assert Settings.from_env().trusted_proxies == ("10.0.0.0/8", "::1")
    monkeypatch.setenv("CINECAP_TRUSTED_PROXIES", "10.0.0.0/8,proxy.local")
    with pytest.raises(InputError, match="CINECAP_TRUSTED_PROXIES.*'proxy.local', which is not an "
                                         "address or a CIDR"):
        Settings.from_env()


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
