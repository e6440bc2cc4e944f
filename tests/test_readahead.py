"""cinecap.readahead: the analysis reads a clip's frames ahead on a thread of its own; what it
gets must be exactly what the plain iterator gives, errors and early exits included."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from cinecap.errors import VideoError
from cinecap.readahead import read_ahead
from cinecap.video import iter_frames


def _threads() -> set[str]:
    return {t.name for t in threading.enumerate()}


def test_the_frames_of_a_real_clip_come_in_order_and_unchanged(bikes):
    plain = list(iter_frames(bikes, max_side=200, step=3, small_side=32))
    ahead = list(read_ahead(iter_frames(bikes, max_side=200, step=3, small_side=32), depth=2))
    assert [f.index for f in ahead] == [f.index for f in plain]
    for a, b in zip(ahead, plain):
        assert a.t == b.t
        assert (a.gray is None) == (b.gray is None)
        if a.gray is not None:
            assert np.array_equal(a.gray, b.gray)
        assert np.array_equal(a.small_bgr, b.small_bgr)


def test_an_error_is_raised_where_it_happened_after_the_items_before_it():
    def items():
        yield 1
        yield 2
        raise VideoError("clip.mp4: decoding failed at frame 2")

    got = []
    with pytest.raises(VideoError, match="decoding failed at frame 2"):
        for x in read_ahead(items(), depth=4):
            got.append(x)
    assert got == [1, 2]
    assert "read-ahead" not in _threads()


def test_leaving_early_stops_the_thread_and_closes_the_iterator():
    closed = threading.Event()

    def endless():
        try:
            n = 0
            while True:
                yield n
                n += 1
        finally:
            closed.set()

    got = []
    for x in read_ahead(endless(), depth=3):
        got.append(x)
        if x == 5:
            break
    assert got == [0, 1, 2, 3, 4, 5]
    assert closed.is_set()
    assert "read-ahead" not in _threads()


def test_a_damaged_clip_read_up_to_its_damage_reports_it_as_the_plain_loop_does(tmp_path, bikes):
    from cinecap.video import DecodeDamage

    broken = tmp_path / "cut.mp4"
    data = bikes.read_bytes()
    broken.write_bytes(data[: len(data) // 2])  # the second half of the file is gone
    plain_damage, ahead_damage = DecodeDamage(), DecodeDamage()
    try:
        plain = [f.index for f in iter_frames(broken, max_side=160, damage=plain_damage)]
    except VideoError as e:  # nothing readable at all: both must say so
        with pytest.raises(VideoError, match=str(e)[:30]):
            list(read_ahead(iter_frames(broken, max_side=160, damage=ahead_damage)))
        return
    ahead = [f.index for f in read_ahead(iter_frames(broken, max_side=160, damage=ahead_damage))]
    assert ahead == plain
    assert vars(ahead_damage) == vars(plain_damage)


def test_depth_must_be_positive():
    with pytest.raises(ValueError, match="depth"):
        list(read_ahead(iter([1]), depth=0))
