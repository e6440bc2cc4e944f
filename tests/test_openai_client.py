"""The one OpenAI-compatible client (cinecap/openai_client.py) against the loopback server: which
failures are retried, how long it waits (Retry-After, backoff with jitter, the cap), and that the
judge and the captioner both go through it. The sleep and the random draw are injected, so the
waits are checked without being waited."""
from __future__ import annotations

import email.utils

import pytest

from cinecap.openai_client import ChatClient, ChatError, RetryPolicy, retry_after
from tests.support.openai_server import Reply, chat_reply, error_reply


def _client(server, waits: list[float], **retry) -> ChatClient:
    return ChatClient(server.base_url, "sk-test", timeout=5, retry=RetryPolicy(**retry),
                      sleep=waits.append, draw=lambda: 0.5)


def _chat(client: ChatClient):
    return client.chat(model="m", messages=[{"role": "user", "content": "hi"}])


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 599])
def test_retried_statuses(openai_server, status):
    openai_server.enqueue(error_reply(status, "busy"), chat_reply("fine"))
    waits: list[float] = []
    response = _chat(_client(openai_server, waits, backoff=1.0))
    assert response.content == "fine" and response.attempts == 2
    assert waits == [0.75]  # backoff 1 s, half of it jittered by a draw of 0.5


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_client_errors_are_not_retried(openai_server, status):
    openai_server.enqueue(error_reply(status, "no"))
    waits: list[float] = []
    with pytest.raises(ChatError) as e:
        _chat(_client(openai_server, waits))
    assert (e.value.kind, e.value.status, e.value.attempts, e.value.detail) == ("status", status, 1, "no")
    assert waits == [] and len(openai_server.chat_requests) == 1


def test_backoff_doubles_with_jitter_and_is_capped(openai_server):
    openai_server.default = lambda req: error_reply(503)
    waits: list[float] = []
    client = ChatClient(openai_server.base_url, None, timeout=5,
                        retry=RetryPolicy(max_retries=4, backoff=1.0, max_wait=5.0, jitter=0.5),
                        sleep=waits.append, draw=iter([0.0, 0.0, 1.0, 0.0]).__next__)
    with pytest.raises(ChatError) as e:
        _chat(client)
    assert e.value.attempts == 5 and e.value.summary().startswith("HTTP 503")
    # 1, 2, 4·(1 − 0.5·1), then 8 capped at 5
    assert waits == [1.0, 2.0, 2.0, 5.0] and client.requests == 5


def test_retry_after_is_honoured_and_capped(openai_server):
    openai_server.enqueue(error_reply(429, "slow down", retry_after=7), chat_reply("ok"))
    waits: list[float] = []
    _chat(_client(openai_server, waits, backoff=0.01))
    assert waits == [7.0]  # the server's wait, not our (much shorter) backoff
    openai_server.enqueue(error_reply(503, "later", retry_after=3600), chat_reply("ok"))
    _chat(_client(openai_server, waits, max_wait=60))
    assert waits[-1] == 60.0


def test_retry_after_forms():
    now = 1_000_000.0
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert retry_after({"retry-after": "2.5"}, now) == 2.5
    assert retry_after({"retry-after": date}, now) == pytest.approx(30, abs=1)
    assert retry_after({"retry-after-ms": "250"}, now) == 0.25
    assert retry_after({"retry-after": "soon"}, now) is None and retry_after({}, now) is None


def test_malformed_body_and_unreachable_server(openai_server):
    openai_server.enqueue(Reply(200, "<html>502 Bad Gateway</html>"))
    waits: list[float] = []
    with pytest.raises(ChatError) as e:
        _chat(_client(openai_server, waits))
    assert e.value.kind == "malformed" and "not JSON" in e.value.detail and waits == []

    from tests.support.openai_server import OpenAIServer

    gone = OpenAIServer().start()
    gone.stop()
    with pytest.raises(ChatError) as e:
        _chat(_client(gone, waits, max_retries=2))
    assert e.value.kind == "connection" and e.value.attempts == 3 and len(waits) == 2
    assert gone.base_url in str(e.value)


def test_timeout_is_per_request(openai_server):
    openai_server.enqueue(Reply(200, chat_reply("late").body, delay=1.0), chat_reply("on time"))
    waits: list[float] = []
    client = ChatClient(openai_server.base_url, None, timeout=0.3, retry=RetryPolicy(max_retries=1),
                        sleep=waits.append, draw=lambda: 0.0)
    assert _chat(client).content == "on time" and len(waits) == 1


def test_judge_and_captioner_share_the_client_and_its_policy(openai_server, small_clip):
    from cinecap.captioners import get_captioner
    from cinecap.judge import get_judge

    judge = get_judge("llm", base_url=openai_server.base_url, model="m", cache="off",
                      max_retries=2, backoff=0.5)
    captioner = get_captioner("openai", base_url=openai_server.base_url, model="m",
                              max_retries=2, backoff=0.5)
    for backend in (judge, captioner):
        assert isinstance(backend.client, ChatClient)
        assert backend.client.retry == RetryPolicy(max_retries=2, backoff=0.5)
        backend.client.sleep = lambda s: None
    # 409 is retried by both (the captioner used to give up on it)
    openai_server.enqueue(error_reply(409, "conflict"), chat_reply("<answer>A close-up.</answer>"))
    result = captioner.caption(small_clip)
    assert result.meta["attempts"] == 2 and result.statements[0].value == "close-up"
    openai_server.enqueue(error_reply(409, "conflict"), error_reply(409, "conflict"),
                          error_reply(409, "conflict"))
    j = judge.judge("a", "b")
    assert j.failed and "HTTP 409 after 3 tries" in j.error


@pytest.mark.parametrize("part", ["body", "headers"])
def test_a_trickling_endpoint_is_cut_off_at_the_request_deadline(part):
    """Issue 27 item 9: every byte arrives within the per-read timeout, so before the overall
    deadline the request lasted as long as the server liked (95 s with timeout=5). Now the
    request fails as a timeout once ``timeout`` has passed, long before the answer is whole."""
    from tests.support.trickle_server import TrickleServer

    with TrickleServer(interval=0.15, part=part) as srv:
        assert srv.total_s > 10  # the whole answer would take this long
        client = ChatClient(srv.base_url, None, timeout=1.0, retry=RetryPolicy(max_retries=0))
        with pytest.raises(ChatError) as e:
            _chat(client)
        assert e.value.kind == "timeout" and e.value.attempts == 1
        assert "within 1 s" in str(e.value)
        assert srv.done == 0 and 0 < srv.sent < len(srv.body) // 2


def test_the_deadline_covers_each_try_and_a_quick_answer_still_arrives(openai_server):
    """The deadline is per request: a retry gets its own, and a prompt answer is unaffected."""
    from tests.support.trickle_server import TrickleServer

    with TrickleServer(interval=0.15) as srv:
        waits: list[float] = []
        client = ChatClient(srv.base_url, None, timeout=0.8, retry=RetryPolicy(max_retries=2),
                            sleep=waits.append, draw=lambda: 0.0)
        with pytest.raises(ChatError) as e:
            _chat(client)
        assert e.value.kind == "timeout" and e.value.attempts == 3 and len(waits) == 2
        assert srv.done == 0
    quick = ChatClient(openai_server.base_url, None, timeout=0.8, retry=RetryPolicy(max_retries=0))
    assert _chat(quick).content == "ok"


def test_a_dropped_or_closed_client_leaves_no_socket_open(openai_server):
    """The HTTP client is ours (for the request deadline), and the openai package closes only
    the ones it makes itself: a judge or captioner dropped after a request left its keep-alive
    socket to the garbage collector (pytest's unclosed-socket ResourceWarnings)."""
    import gc
    import warnings

    def used() -> ChatClient:
        client = _client(openai_server, [])
        _chat(client)
        return client

    gc.collect()  # what earlier tests left (event loops, their sockets) is not this test's
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", ResourceWarning)
        client = used()
        client.close()
        with pytest.raises(ChatError, match="was closed") as e:
            _chat(client)  # closed: no new connection either, and no retry
        assert e.value.kind == "closed" and e.value.attempts == 1
        with used():
            pass
        client = used()
        del client
        gc.collect()
    # Sockets only: an event loop another test dropped can still reach the collector here.
    assert [str(w.message) for w in seen if issubclass(w.category, ResourceWarning)
            and "socket" in str(w.message)] == []
