"""Limits on what one requester may ask of the app: how often (captions, failed sign-ins), and
what a typed value may be (text the store can keep, ids the database can hold).

- :class:`SlidingWindow` counts events per key over the last ``window_s`` seconds; the caption
  rate limit (``Settings.captions_per_hour``) is built on it (the sign-in throttle,
  :class:`ui.usecases.accounts.LoginThrottle`, keeps its failures in the store).
- Text a database cannot store (NUL, lone surrogates) and text over its length limit are refused
  by :mod:`db.limits` (``check_storable``, ``check_text``), which the store applies again itself.
- :func:`check_id` turns a typed number into a row id, or a clear InputError (``10**30`` used to
  reach the database and come back as "internal error (OverflowError)").
"""
from __future__ import annotations

import math
import threading
import time
from collections import deque
from typing import Any, Callable

from cinecap.errors import InputError
from db.errors import PermissionDenied

__all__ = ["MAX_ID", "SlidingWindow", "TooManyRequests", "check_id", "wait_text"]

#: The largest row id every supported database stores (PostgreSQL's INTEGER).
MAX_ID = 2**31 - 1


class TooManyRequests(PermissionDenied):
    """A requester went over a rate limit; ``retry_after_s`` says when to try again."""

    def __init__(self, message: str, retry_after_s: float = 0.0):
        super().__init__(message)
        self.retry_after_s = retry_after_s


def wait_text(seconds: float) -> str:
    seconds = max(1, math.ceil(seconds))
    if seconds < 90:
        return f"{seconds} s"
    return f"{math.ceil(seconds / 60)} min"


class SlidingWindow:
    """At most ``limit`` events per key in any ``window_s`` seconds (``limit`` 0: no limit).
    Thread-safe; keys whose events all aged out are forgotten, and at most ``max_keys`` are kept
    (the oldest go first), so a flood of made-up keys cannot grow it without bound."""

    def __init__(self, limit: int, window_s: float, clock: Callable[[], float] = time.monotonic,
                 max_keys: int = 100_000):
        if limit < 0 or window_s <= 0:
            raise ValueError("need limit >= 0 and window_s > 0")
        self.limit, self.window_s, self.clock, self.max_keys = limit, window_s, clock, max_keys
        self._events: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, key: str, now: float) -> deque[float]:
        q = self._events.get(key)
        if q is None:
            return deque()
        while q and q[0] <= now - self.window_s:
            q.popleft()
        if not q:
            del self._events[key]
        return q

    def retry_after(self, key: str) -> float:
        """0 when ``key`` may have another event now, else the seconds until it may."""
        if not self.limit:
            return 0.0
        with self._lock:
            now = self.clock()
            q = self._recent(key, now)
            return 0.0 if len(q) < self.limit else q[0] + self.window_s - now

    def add(self, key: str) -> None:
        if not self.limit:
            return
        with self._lock:
            now = self.clock()
            q = self._recent(key, now)
            q.append(now)
            self._events[key] = q
            while len(self._events) > self.max_keys:
                self._events.pop(next(iter(self._events)))

    def clear(self, key: str) -> None:
        with self._lock:
            self._events.pop(key, None)

    def hit(self, key: str, message: Callable[[float], str]) -> None:
        """Count one event for ``key``, or raise TooManyRequests(``message(wait_s)``) when the
        key is at its limit (nothing is counted then)."""
        if not self.limit:
            return
        with self._lock:
            now = self.clock()
            q = self._recent(key, now)
            if len(q) >= self.limit:
                wait = q[0] + self.window_s - now
                raise TooManyRequests(message(wait), wait)
            q.append(now)
            self._events[key] = q
            while len(self._events) > self.max_keys:
                self._events.pop(next(iter(self._events)))




def check_id(value: Any, what: str) -> int:
    """A typed id (a number field may send a float, or a numeric string through the API) as an
    int in 1..MAX_ID, or InputError naming the problem."""
    if isinstance(value, bool) or value is None or value == "":
        raise InputError(f"type a {what} number")
    if isinstance(value, str):
        try:
            value = float(value.strip()) if "." in value else int(value.strip())
        except ValueError:
            raise InputError(f"the {what} number {value[:40]!r} is not a number") from None
    if isinstance(value, float):
        if not math.isfinite(value) or value != int(value):
            raise InputError(f"the {what} number must be a whole number, not {value:g}")
        value = int(value)
    if not isinstance(value, int):
        raise InputError(f"the {what} number must be a whole number")
    if not 1 <= value <= MAX_ID:
        digits = str(value)
        shown = digits if len(digits) <= 20 else f"{digits[:12]}… ({len(digits)} digits)"
        raise InputError(f"there is no {what} #{shown} (numbers go from 1 to {MAX_ID:,})")
    return value
