"""An iterator read ahead on a thread of its own.

The anchors' analysis decodes a clip and works on its frames in one loop. Decoding (FFmpeg, and
the resizes in OpenCV) releases the GIL, so while the analysis works on one frame the next ones
can be decoded on another core: on a quiet 2-core machine, bikes.mp4's analysis took 0.51 s of
wall-clock time with ~0.12 s of it spent waiting on the decoder (docs/anchors.md, "Reading the
clip ahead"). The items and their order are exactly those of the iterator.
"""
from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import TypeVar

T = TypeVar("T")
_END = object()
_POLL_S = 0.1  # how often a blocked producer looks whether the reader has gone


def read_ahead(items: Iterator[T], depth: int = 8) -> Iterator[T]:
    """The items of ``items``, in order, produced on a daemon thread up to ``depth`` ahead of the
    reader. An exception raised by ``items`` is raised here, where it happened in the sequence
    (the items before it are yielded first). Leaving early (``break``, an error in the reader,
    ``close()``) stops the thread and closes ``items``, as leaving a plain ``for`` loop would."""
    if depth < 1:
        raise ValueError("depth must be >= 1")
    ready: queue.Queue = queue.Queue(maxsize=depth)
    gone = threading.Event()

    def put(entry) -> bool:
        while not gone.is_set():
            try:
                ready.put(entry, timeout=_POLL_S)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        end = (_END, None)
        try:
            for item in items:
                if not put((item, None)):
                    return
        except BaseException as e:  # noqa: BLE001 - handed to the reader, raised there
            end = (_END, e)
        finally:
            close = getattr(items, "close", None)
            if close is not None:
                close()
        put(end)

    worker = threading.Thread(target=produce, name="read-ahead", daemon=True)
    worker.start()
    try:
        while True:
            item, error = ready.get()
            if item is _END:
                if error is not None:
                    raise error
                return
            yield item
    finally:
        gone.set()
        worker.join()
