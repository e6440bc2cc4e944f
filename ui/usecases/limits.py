"""Limits on what one requester may ask of the app: how often (captions, failed sign-ins), and
what a typed value may be (text the store can keep, ids the database can hold).

- :class:`SlidingWindow` counts events per key over the last ``window_s`` seconds; the caption
  rate limit (``Settings.captions_per_hour``) is built on it (the sign-in throttle,
  :class:`ui.usecases.accounts.LoginThrottle`, keeps its failures in the store).
- :class:`CaptionQuota`: what the server lets each requester caption per hour, keyed by what the
  server knows (the signed-in account, or the client address; and the uploaded file's content),
  never by a cookie the client chooses (a new ``cinecap_visitor`` cookie per call ran 6 of 6
  captions against a quota of 3). Counted twice: runs (``captions_per_hour``) and a decoding
  budget (:func:`decode_cost`: pixels × frames, ``caption_pixels_per_hour``), so one 600 s,
  240 fps upload weighs what it costs and not what a 2 s clip costs.
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

__all__ = ["FRAME_OVERHEAD_PX", "MAX_ID", "CaptionQuota", "SlidingWindow", "TooManyRequests",
           "check_id", "decode_cost", "wait_text"]

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




#: What one decoded frame weighs at least, in pixels: each frame has a fixed cost (demuxing,
#: conversion, the anchors' per-frame work) besides its pixels. Measured with the anchors captioner
#: on written clips: 0.47 ms a 64×64 frame, 2.1 ms a 640×360 one (≈ 7 ns a pixel), so the fixed
#: part weighs about as much as 65,536 pixels. A 600 s, 64×64, 240 fps clip then costs 1.0e10,
#: a 2 s 640×360 25 fps clip 1.5e7.
FRAME_OVERHEAD_PX = 65_536


def decode_cost(width: int, height: int, frames: float) -> float:
    """The decoding cost of a clip, in pixels: every frame's pixels plus its fixed weight."""
    return max(1.0, float(frames)) * (max(0, width) * max(0, height) + FRAME_OVERHEAD_PX)


def _giga(pixels: float) -> str:
    return f"{pixels / 1e9:,.1f} gigapixels" if pixels >= 1e8 else f"{pixels / 1e6:,.0f} megapixels"


class CaptionQuota:
    """Captions per key per hour: at most ``runs`` started (0: any number) and at most
    ``pixels`` decoded (:func:`decode_cost`; 0: no budget). A run is charged to several keys at
    once (the requester and the clip), all or none: refused when any key is over, naming it."""

    def __init__(self, runs: int, pixels: float, window_s: float = 3600.0,
                 clock: Callable[[], float] = time.monotonic, max_keys: int = 100_000):
        if runs < 0 or not pixels >= 0:
            raise ValueError("need runs >= 0 and pixels >= 0")
        self.limit, self.pixels, self.window_s, self.clock = runs, pixels, window_s, clock
        self.max_keys = max_keys
        self._events: dict[str, deque[tuple[float, float]]] = {}  # key → (time, cost) per run
        self._lock = threading.Lock()

    def _recent(self, key: str, now: float) -> deque[tuple[float, float]]:
        q = self._events.get(key)
        if q is None:
            return deque()
        while q and q[0][0] <= now - self.window_s:
            q.popleft()
        if not q:
            del self._events[key]
        return q

    def charge(self, keys: list[tuple[str, str]], cost: float = 0.0) -> None:
        """Count one run of ``cost`` pixels against every ``(key, who)`` (``who``: how the message
        names it: ``"you"``, ``"this address"``, ``"this clip"``), or raise TooManyRequests
        naming the first key that is over (nothing is counted then)."""
        if not (self.limit or self.pixels):
            return
        with self._lock:
            now = self.clock()
            for key, who in keys:
                self._check(key, who, cost, now)
            for key, _ in keys:
                q = self._recent(key, now)
                q.append((now, cost))
                self._events[key] = q
            while len(self._events) > self.max_keys:
                self._events.pop(next(iter(self._events)))

    def _check(self, key: str, who: str, cost: float, now: float) -> None:
        q = self._recent(key, now)
        if self.limit:
            if len(q) >= self.limit:
                wait = q[0][0] + self.window_s - now
                raise TooManyRequests(_runs_message(who, self.limit, wait), wait)
        if not self.pixels:
            return
        if cost > self.pixels:
            raise TooManyRequests(
                f"this clip needs {_giga(cost)} of decoding, more than the hourly budget of "
                f"{_giga(self.pixels)} per requester; trim it, or lower its frame rate or size",
                self.window_s)
        used = sum(c for _, c in q)
        if used + cost <= self.pixels:
            return
        freed, wait = 0.0, self.window_s
        for t, c in q:  # the oldest runs age out first
            freed += c
            if used - freed + cost <= self.pixels:
                wait = t + self.window_s - now
                break
        owner = "your" if who == "you" else f"{who}'s"
        raise TooManyRequests(
            f"{owner} captions in the last hour decoded {_giga(used)}; this clip needs "
            f"{_giga(cost)} more, over the hourly budget of {_giga(self.pixels)}; try again in "
            f"{wait_text(wait)}, or caption a shorter clip", wait)


def _runs_message(who: str, limit: int, wait: float) -> str:
    if who == "you":
        return (f"you have started {limit} captions in the last hour, the most this app allows "
                f"per user; try again in {wait_text(wait)}")
    if who == "this clip":
        return (f"this clip has been captioned {limit} times in the last hour, the most this app "
                f"allows per clip; try again in {wait_text(wait)}")
    return (f"{limit} captions were started from {who} in the last hour, the most this app "
            f"allows per visitor address; try again in {wait_text(wait)}")


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
