"""Signing in beside the public demo, over HTTP against launched servers on loopback (issue 26
item 2, issue 27 items 4–6): sessions in the store (bound to the account's id, surviving a
restart, revoked by sign-out on plain http, ended by a password change or a deletion), the
failed-attempt delay that cannot lock anyone out, X-Forwarded-For believed only from configured
proxies, and the roles still checked at every endpoint.

Two client addresses on one machine: the second client binds its socket to 127.0.0.2 (all of
127.0.0.0/8 is loopback on Linux), so the server sees a different TCP peer, as it would for
another computer."""
from __future__ import annotations

import io
import sys

import httpx
import pytest
from gradio_client import Client

from tests.support.app_server import ACCOUNTS, running_app
from ui.cli import main as ui_cli

SESSION, SESSION_LAX = "cinecap_session", "cinecap_session_lax"


def client_from(url: str, address: str = "127.0.0.1", **kw) -> httpx.Client:
    return httpx.Client(base_url=url, transport=httpx.HTTPTransport(local_address=address),
                        **kw)


def sign_in(url: str, name: str, password: str | None = None,
            address: str = "127.0.0.1", headers: dict | None = None) -> httpx.Response:
    with client_from(url, address) as c:
        return c.post("/login", headers=headers, data={
            "username": name, "password": ACCOUNTS[name][1] if password is None else password})


def who(url: str, cookies: dict[str, str]) -> str:
    """What Gradio answers as the request's user ("" for a visitor)."""
    with httpx.Client(base_url=url, cookies=cookies) as c:
        r = c.get("/gradio_api/user")
    assert r.status_code == 200, r.text
    return r.json()


def users_cli(store, *args: str, stdin: str = "") -> int:
    old = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        return ui_cli(["users", "--database-url", store.url, "--data-dir", str(store.data_dir),
                       *args])
    finally:
        sys.stdin = old


def as_client(url: str, cookies: dict[str, str]) -> Client:
    c = Client(url, verbose=False, download_files=False)
    c.cookies.update(cookies)
    return c


def refusal(out) -> str:
    lines = [x for x in (out if isinstance(out, (list, tuple)) else [out])
             if isinstance(x, str) and "role" in x]
    assert lines, f"no refusal in {out!r}"[:400]
    return lines[0]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_app(tmp_path_factory.mktemp("signin") / "data", default_captioner="scripted",
                     login_max_failures=3, login_max_failures_per_address=1000,
                     trusted_proxies=("127.0.0.1",)) as (url, store):
        yield url, store


def test_an_account_added_while_the_app_runs_signs_in_at_once(server):
    url, store = server
    assert sign_in(url, "zoe", "zoe-password1").status_code == 400
    assert users_cli(store, "add", "zoe", "--role", "reviewer", "--password-stdin",
                     stdin="zoe-password1\n") == 0
    r = sign_in(url, "zoe", "zoe-password1")
    assert r.status_code == 200 and r.json() == {"success": True}
    assert who(url, dict(r.cookies)) == "zoe"
    # The token is in the store only as a hash.
    token = r.cookies[SESSION_LAX]
    with store.engine.connect() as conn:
        from sqlalchemy import text

        stored = [row[0] for row in conn.execute(text("SELECT token_sha256 FROM "
                                                      "sign_in_sessions"))]
    assert token not in stored and len(stored) >= 1


def test_sign_out_on_plain_http_ends_the_session_in_the_store(server):
    url, store = server
    r = sign_in(url, "ann")
    token = r.cookies[SESSION_LAX]
    # A browser on plain http may keep only the Lax cookie: that is all it sends.
    lax = {SESSION_LAX: token}
    assert who(url, lax) == "ann"
    queue = as_client(url, lax).predict(api_name="/review_queue")
    assert "data" in queue[0]
    with httpx.Client(base_url=url, cookies=lax) as c:
        out = c.get("/logout", follow_redirects=False)
    assert out.status_code == 303 and out.headers["location"] == "./"
    cleared = out.headers.get_list("set-cookie")
    assert {c.split("=", 1)[0] for c in cleared if "Max-Age=0" in c} == {SESSION, SESSION_LAX}
    # The same token, replayed in either cookie, names nobody any more.
    for jar in (lax, {SESSION: token}, {SESSION: token, SESSION_LAX: token}):
        assert who(url, jar) == ""
    assert "annotator role" in refusal(as_client(url, lax).predict(1, api_name="/review_open"))


def test_sign_out_everywhere_ends_every_session_of_the_account(server):
    url, store = server
    first, second = (dict(sign_in(url, "rita").cookies) for _ in range(2))
    other = dict(sign_in(url, "bea").cookies)
    assert who(url, first) == who(url, second) == "rita"
    with httpx.Client(base_url=url, cookies=first) as c:
        assert c.get("/logout?everywhere=1", follow_redirects=False).status_code == 303
    assert who(url, first) == who(url, second) == ""
    assert who(url, other) == "bea"  # another account's sessions stay


def test_five_wrong_passwords_from_one_client_do_not_stop_the_right_one_from_another(server):
    url, store = server
    statuses = [sign_in(url, "vic", f"guess-{i}", address="127.0.0.2").status_code
                for i in range(5)]
    assert statuses[:3] == [400, 400, 400] and set(statuses[3:]) <= {400, 429}
    assert 429 in statuses  # the guessing client is held back ...
    right = sign_in(url, "vic", address="127.0.0.2")
    assert right.status_code == 429 and int(right.headers["retry-after"]) >= 1
    # ... the account's owner, who never failed, is not (no lock anyone can trigger).
    mine = sign_in(url, "vic", address="127.0.0.1")
    assert mine.status_code == 200 and who(url, dict(mine.cookies)) == "vic"
    # The admin's CLI forgets the failures: the guessing client may try again at once.
    assert users_cli(store, "unthrottle", "vic") == 0
    assert sign_in(url, "vic", address="127.0.0.2").status_code == 200


def test_rotating_x_forwarded_for_does_not_escape_the_per_address_delay(tmp_path):
    with running_app(tmp_path / "data", default_captioner="scripted", login_max_failures=1000,
                     login_max_failures_per_address=3,
                     trusted_proxies=("127.0.0.1",)) as (url, store):
        # 127.0.0.2 is not a trusted proxy: whatever it forwards is ignored.
        statuses = [sign_in(url, name, "wrong", address="127.0.0.2",
                            headers={"X-Forwarded-For": f"203.0.113.{i}"}).status_code
                    for i, name in enumerate(["ann", "bea", "rita", "vic", "ann", "bea"])]
        assert statuses[:3] == [400, 400, 400] and statuses[3] == 429
        assert all(s in (400, 429) for s in statuses[4:]) and 429 in statuses[4:]
        r = sign_in(url, "rita", address="127.0.0.2", headers={"X-Forwarded-For": "198.51.100.7"})
        assert r.status_code == 429
        assert len(store.sign_ins.failures(_long_ago())) == 3  # the refused ones are not failures
        assert _addresses(store) == {"127.0.0.2"}
        # The positive control: from the configured proxy (127.0.0.1) the header names the
        # client, so rotated addresses are told apart and none of them is held back.
        for i in range(6):
            assert sign_in(url, "ann", "wrong", headers={
                "X-Forwarded-For": f"6.6.6.6, 198.51.100.{i}"}).status_code == 400
        assert "198.51.100.5" in _addresses(store) and "6.6.6.6" not in _addresses(store)


def test_a_session_survives_an_app_restart(tmp_path):
    with running_app(tmp_path / "data", default_captioner="scripted") as (url, store):
        cookies = dict(sign_in(url, "rita").cookies)
        assert who(url, cookies) == "rita"
    with running_app(tmp_path / "data", accounts=False, default_captioner="scripted") as (
            url2, store):
        assert who(url2, cookies) == "rita"
        assert "data" in as_client(url2, cookies).predict(api_name="/review_queue")[0]


@pytest.fixture(scope="module")
def accounts_server(tmp_path_factory):
    """The default settings, for the tests that change an account (each its own: bea, ann)."""
    with running_app(tmp_path_factory.mktemp("accounts") / "data",
                     default_captioner="scripted") as (url, store):
        yield url, store


def test_a_deleted_accounts_session_is_nobodys_and_a_same_name_admin_inherits_none(
        accounts_server):
    url, store = accounts_server
    old = dict(sign_in(url, "bea").cookies)
    assert who(url, old) == "bea"
    assert users_cli(store, "delete", "bea") == 0
    assert store.users.find("bea") is None
    assert who(url, old) == ""
    assert "annotator role" in refusal(as_client(url, old).predict(1,
                                                                  api_name="/review_open"))
    assert users_cli(store, "add", "bea", "--role", "admin", "--password-stdin",
                     stdin="new-bea-password\n") == 0
    assert who(url, old) == ""  # the old session is not the new admin's
    out = as_client(url, old).predict("hf", False, api_name="/data_export")
    assert "needs the admin role" in out[-1]
    new = dict(sign_in(url, "bea", "new-bea-password").cookies)
    assert who(url, new) == "bea"
    assert "needs the admin role" not in as_client(url, new).predict(
        "hf", False, api_name="/data_export")[-1]


def test_a_password_change_ends_the_old_sessions(accounts_server):
    url, store = accounts_server
    sessions = [dict(sign_in(url, "ann").cookies) for _ in range(2)]
    assert all(who(url, s) == "ann" for s in sessions)
    assert users_cli(store, "passwd", "ann", "--password-stdin",
                     stdin="a-brand-new-password\n") == 0
    assert all(who(url, s) == "" for s in sessions)
    assert sign_in(url, "ann").status_code == 400  # the old password
    assert who(url, dict(sign_in(url, "ann", "a-brand-new-password").cookies)) == "ann"


def test_visitors_and_viewers_are_refused_the_annotator_and_admin_endpoints(server):
    url, store = server
    vic = dict(sign_in(url, "vic").cookies)
    assert who(url, vic) == "vic"
    for cookies in ({}, vic):
        c = as_client(url, cookies)
        assert "annotator role" in refusal(c.predict(1, api_name="/review_open"))
        assert "annotator role" in refusal(c.predict(api_name="/review_save"))
        assert "needs the admin role" in c.predict("hf", False, api_name="/data_export")[-1]
    # The positive control: an annotator opens the review of a clip past the role check.
    ann = as_client(url, dict(sign_in(url, "bea").cookies))
    assert "annotator role" not in str(ann.predict(1, api_name="/review_open"))


def test_the_sign_in_page_escapes_what_was_typed_and_explains_a_refusal(server):
    url, _ = server
    with client_from(url) as c:
        page = c.get("/sign-in")
        assert page.status_code == 200 and "<form method=\"post\" action=\"sign-in\"" in page.text
        r = c.post("/sign-in", data={"username": "<script>x()</script>", "password": "nope"})
    assert r.status_code == 400 and "Incorrect credentials." in r.text
    assert "<script>x()</script>" not in r.text and "&lt;script&gt;" in r.text
    with client_from(url) as c:
        ok = c.post("/sign-in", data={"username": "rita", "password": ACCOUNTS["rita"][1]},
                    follow_redirects=False)
    assert ok.status_code == 303 and who(url, dict(ok.cookies)) == "rita"


def _long_ago():
    from datetime import datetime, timedelta, timezone

    return datetime.now(timezone.utc) - timedelta(days=1)


def _addresses(store) -> set[str]:
    from sqlalchemy import text

    with store.engine.connect() as conn:
        return {row[0] for row in conn.execute(text("SELECT address FROM sign_in_failures"))}
