"""One client for OpenAI-compatible chat-completions servers (vLLM, OpenAI, Ollama, llama.cpp …),
shared by the ``llm`` judge and the ``openai`` captioner, with one retry policy.

- Retried: HTTP 408, 409, 429 and every 5xx, timeouts and refused or dropped connections.
  Not retried: other 4xx (a bad request, a wrong key, an unknown model: trying again cannot help)
  and a 200 whose body is not a chat completion.
- Waits: the server's ``Retry-After`` (seconds or an HTTP date; ``retry-after-ms`` too) when it
  sends one, else exponential backoff with jitter: ``backoff · 2^attempt``, of which the share
  ``jitter`` is drawn at random (so many clients that failed together do not retry together).
  Every wait is capped at ``max_wait`` seconds.
- Each request has its own ``timeout``, and it is the request's whole deadline: connecting,
  sending and every read of the answer together (:class:`_DeadlineBackend`). httpx's timeouts are
  per socket operation, so an endpoint that trickles one byte every few seconds used to hold a
  request with ``timeout=5`` for 95 s. A call with retries lasts at most
  ``(max_retries + 1) · timeout`` plus the waits. The openai package's own retries are off (ours
  are the only ones).
- The clock, the sleep and the random draw are injectable, so tests check the waits without
  waiting.

What is sent (the messages, the response format, a judge's protocol) is the caller's; so is what a
failure means to it (a failed judgement, a :class:`~cinecap.errors.CaptionerError`): the client
raises :class:`ChatError` saying which failure it was, after how many attempts.
"""
from __future__ import annotations

import email.utils
import json
import logging
import random as _random
import threading
import time
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable

from cinecap.errors import InputError, UnavailableError

log = logging.getLogger(__name__)

#: HTTP statuses worth another try, besides every 5xx.
RETRY_STATUSES = frozenset({408, 409, 429})

#: When the request the calling thread is sending must be over (``time.monotonic``), or None.
#: Per thread: one client is shared by a judge's worker threads, each sending its own request.
_DEADLINE = threading.local()


@dataclass(frozen=True)
class RetryPolicy:
    """When and how long to wait before trying a request again."""

    max_retries: int = field(default=3, metadata={"help": "tries after the first one"})
    backoff: float = field(default=1.0, metadata={
        "help": "first wait in seconds when the server gives no Retry-After; doubles each retry"})
    max_wait: float = field(default=60.0, metadata={
        "help": "longest single wait in seconds, whatever backoff or Retry-After say"})
    jitter: float = field(default=0.5, metadata={
        "help": "share of each backoff wait drawn at random (0: none, 1: anywhere from 0)"})

    def __post_init__(self) -> None:
        if not isinstance(self.max_retries, int) or isinstance(self.max_retries, bool) \
                or self.max_retries < 0:
            raise InputError(f"max_retries must be an integer >= 0, got {self.max_retries!r}")
        for name in ("backoff", "max_wait"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise InputError(f"{name} must be a number >= 0, got {value!r}")
        if isinstance(self.jitter, bool) or not isinstance(self.jitter, (int, float)) \
                or not 0 <= self.jitter <= 1:
            raise InputError(f"jitter must be in [0, 1], got {self.jitter!r}")

    @staticmethod
    def retryable(status: int) -> bool:
        return status in RETRY_STATUSES or 500 <= status <= 599

    def wait(self, attempt: int, retry_after: float | None, draw: float) -> float:
        """Seconds to wait after failed attempt ``attempt`` (0-based); ``draw`` is in [0, 1)."""
        if retry_after is not None:
            return min(self.max_wait, max(0.0, retry_after))
        base = self.backoff * 2 ** attempt
        return min(self.max_wait, base * (1 - self.jitter * draw))


class ChatError(Exception):
    """A chat request that failed for good.

    ``kind``: ``"status"`` (an HTTP error answer; ``status`` says which), ``"timeout"``,
    ``"connection"``, ``"malformed"`` (a 200 that is not a chat completion) or ``"closed"`` (the
    client was closed: :meth:`ChatClient.close`). ``attempts``: how
    many requests were sent.
    """

    def __init__(self, kind: str, detail: str, status: int | None = None, attempts: int = 1,
                 retry_after: float | None = None):
        super().__init__(detail)
        self.kind, self.detail, self.status = kind, detail, status
        self.attempts, self.retry_after = attempts, retry_after

    @property
    def retryable(self) -> bool:
        if self.kind == "status":
            return RetryPolicy.retryable(self.status or 0)
        return self.kind in ("timeout", "connection")

    def summary(self) -> str:
        """``HTTP 500: engine crashed``, or the detail for the other kinds."""
        return f"HTTP {self.status}: {self.detail}" if self.kind == "status" else self.detail


@dataclass
class ChatResponse:
    """A chat completion's JSON body and the number of requests it took."""

    body: dict[str, Any]
    attempts: int = 1

    @property
    def choice(self) -> dict[str, Any]:
        return self.body["choices"][0]

    @property
    def message(self) -> dict[str, Any]:
        return self.choice["message"]

    @property
    def content(self) -> Any:
        """The answer's text; content parts (some servers send a list) are joined."""
        content = self.message.get("content")
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        return content

    @property
    def refusal(self) -> str | None:
        return self.message.get("refusal") or None

    @property
    def finish_reason(self) -> str | None:
        return self.choice.get("finish_reason")

    @property
    def usage(self) -> dict[str, Any]:
        return self.body.get("usage") or {}


def parse_body(text: str) -> dict[str, Any]:
    """The JSON body of a chat completion, or a ``malformed`` :class:`ChatError` saying what is
    wrong with it."""
    try:
        body = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        raise ChatError("malformed", "the server's answer is not JSON: "
                        + repr((text or "")[:200])) from None
    if not isinstance(body, dict) or not isinstance(body.get("choices"), list) or not body["choices"]:
        raise ChatError("malformed", "the server's answer is not a chat completion (no choices): "
                        + repr(json.dumps(body)[:200]))
    choice = body["choices"][0]
    if not isinstance(choice, dict) or not isinstance(choice.get("message"), dict):
        raise ChatError("malformed", "the server's answer has no message in its first choice")
    return body


def error_detail(error: Any) -> str:
    """The server's own message from an error answer (``{"error": {"message": …}}``), shortened."""
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])[:300]
        if isinstance(err, str):
            return err[:300]
    return str(getattr(error, "message", "") or error)[:300]


def retry_after(headers: Any, now: float) -> float | None:
    """Seconds the server asks us to wait (``retry-after-ms``, ``retry-after`` in seconds or as an
    HTTP date), or None when it says nothing usable."""
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - now) if when is not None else None


def _left(timeout: float | None, error: type[Exception]) -> float | None:
    """``timeout`` shortened to what is left until the thread's deadline; ``error`` (a timeout)
    once it has passed."""
    at = getattr(_DEADLINE, "at", None)
    if at is None:
        return timeout
    left = at - time.monotonic()
    if left <= 0:
        raise error("the request's deadline has passed")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream:
    """A socket stream whose every operation waits at most until the thread's deadline."""

    def __init__(self, inner: Any, errors: Any):
        self._inner, self._errors = inner, errors

    def _left(self, timeout: float | None, error: type[Exception]) -> float | None:
        return _left(timeout, error)

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, self._left(timeout, self._errors.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        return self._inner.write(buffer, self._left(timeout, self._errors.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                  timeout: float | None = None) -> "_DeadlineStream":
        return _DeadlineStream(self._inner.start_tls(
            ssl_context, server_hostname, self._left(timeout, self._errors.ConnectTimeout)),
            self._errors)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _DeadlineBackend:
    """httpcore's network backend with the thread's deadline applied to every socket
    operation (:data:`_DEADLINE`): past it, the operation fails as a timeout."""

    def __init__(self, inner: Any, errors: Any):
        self._inner, self._errors = inner, errors

    def _left(self, timeout: float | None) -> float | None:
        return _left(timeout, self._errors.ConnectTimeout)

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, **kw: Any):
        return _DeadlineStream(self._inner.connect_tcp(host, port, self._left(timeout), **kw),
                               self._errors)

    def connect_unix_socket(self, path: str, timeout: float | None = None, **kw: Any):
        return _DeadlineStream(self._inner.connect_unix_socket(path, self._left(timeout), **kw),
                               self._errors)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def _http_client(openai: Any, timeout: float) -> Any:
    """The openai package's default HTTP client (its limits, redirects, proxies from the
    environment), each connection pool's network backend wrapped in :class:`_DeadlineBackend`.
    The transports take no backend of their own, hence the pools' attribute."""
    import httpcore2

    client = openai.DefaultHttpxClient(timeout=timeout)
    transports = [getattr(client, "_transport", None),
                  *(getattr(client, "_mounts", None) or {}).values()]
    wrapped = 0
    for transport in transports:
        pool = getattr(transport, "_pool", None)
        backend = getattr(pool, "_network_backend", None)
        if backend is not None:
            pool._network_backend = _DeadlineBackend(backend, httpcore2)
            wrapped += 1
    if not wrapped:  # a new httpx: better a per-operation timeout than no client at all
        log.warning("cannot apply an overall deadline to chat requests (unknown HTTP client)")
    return client


class ChatClient:
    """Chat completions from one OpenAI-compatible endpoint, with :class:`RetryPolicy` retries.

    ``sleep``, ``now`` (wall-clock seconds, for Retry-After dates) and ``draw`` (the jitter's
    random numbers in [0, 1)) are injectable for tests. Thread-safe: one client serves every
    request of a judge's or captioner's worker threads.
    """

    def __init__(self, base_url: str | None, api_key: str | None = None, timeout: float = 180.0,
                 retry: RetryPolicy | None = None, *, sleep: Callable[[float], None] = time.sleep,
                 now: Callable[[], float] = time.time,
                 draw: Callable[[], float] = _random.random, label: str = "chat"):
        try:
            import openai
        except ImportError:  # pragma: no cover - openai is a pinned runtime dependency
            raise UnavailableError("the openai package is not installed (pip install openai)") from None
        self._openai = openai
        self.base_url = base_url
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self.sleep, self.now, self.draw = sleep, now, draw
        self.label = label
        # Retries are ours (one policy, Retry-After, clear errors), so the openai client makes none.
        http = _http_client(openai, timeout)
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key or "EMPTY",
                                     timeout=timeout, max_retries=0, http_client=http)
        # The openai package closes the HTTP client it makes when it is dropped, not one it is
        # given: without this a dropped judge or captioner left its keep-alive sockets open.
        self._closer = weakref.finalize(self, http.close)
        self._lock = threading.Lock()
        self.requests = 0  # requests sent, retries included
        self.waits: list[float] = []  # every wait between tries, in seconds

    @property
    def where(self) -> str:
        return self.base_url or "api.openai.com"

    def close(self) -> None:
        """Close the connections kept open to the server (also done when the client is
        dropped); a request after this fails."""
        self._closer()

    def __enter__(self) -> "ChatClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _send(self, request: dict[str, Any]) -> dict[str, Any]:
        """One request; a :class:`ChatError` for any failure."""
        if not self._closer.alive:
            raise ChatError("closed", f"the client for {self.where} was closed")
        openai = self._openai
        with self._lock:
            self.requests += 1
        _DEADLINE.at = time.monotonic() + self.timeout
        try:
            raw = self._client.chat.completions.with_raw_response.create(**request)
            text = raw.http_response.text
        except openai.APITimeoutError:
            raise ChatError("timeout", f"no answer from {self.where} within {self.timeout:g} s") \
                from None
        except openai.APIConnectionError as e:
            raise ChatError("connection", f"cannot reach {self.where}: {e.__cause__ or e}") \
                from None
        except openai.APIStatusError as e:
            response = getattr(e, "response", None)
            raise ChatError("status", error_detail(e), status=e.status_code,
                            retry_after=retry_after(getattr(response, "headers", None),
                                                    self.now())) from None
        finally:
            _DEADLINE.at = None
        return parse_body(text)

    def chat(self, **request: Any) -> ChatResponse:
        """Send ``request`` (the ``chat.completions.create`` arguments), retrying as the policy
        says. Returns the parsed body; raises :class:`ChatError` once the tries are spent or the
        failure is not worth another try."""
        tries = self.retry.max_retries + 1
        for attempt in range(tries):
            try:
                return ChatResponse(self._send(request), attempt + 1)
            except ChatError as e:
                e.attempts = attempt + 1
                if not e.retryable or attempt + 1 == tries:
                    raise
                wait = self.retry.wait(attempt, e.retry_after, self.draw())
                with self._lock:
                    self.waits.append(wait)
                log.warning("%s: attempt %d/%d failed (%s); retrying in %.2f s", self.label,
                            attempt + 1, tries, e.summary(), wait)
                self.sleep(wait)
        raise AssertionError("unreachable")  # the loop returns or raises
