"""The detector files on the app's start: fetched in the background where missing (docs/app.md,
``CINECAP_FETCH_MODELS``), so a fresh Space gets them without anyone running
``cinecap models fetch``, and start-up never waits for the network."""
from __future__ import annotations

import logging
import threading
from typing import Callable

from cinecap import pretrained
from cinecap.errors import CinecapError
from ui.settings import Settings

log = logging.getLogger(__name__)


def fetch_missing(names: tuple[str, ...] = pretrained.DEFAULT_NAMES) -> list[tuple[bool, str]]:
    """Fetch each of ``names`` that is missing (or fails its checksum) into the cache: (fetched,
    what happened) per file. Never raises: without the files the analysis still runs."""
    out = []
    for name in pretrained.missing(names):
        try:
            path = pretrained.fetch(name)
            out.append((True, f"{name}: fetched, SHA-256 verified ({path.name})"))
        except CinecapError as e:
            out.append((False, f"{name}: not fetched: {e.message}"))
        except Exception as e:  # noqa: BLE001 - a background fetch never stops the app
            log.exception("fetching the model file %s failed", name)
            out.append((False, f"{name}: not fetched ({type(e).__name__})"))
    return out


def fetch_on_start(settings: Settings, then: Callable[[], object] | None = None
                   ) -> threading.Thread | None:
    """Where ``settings.fetch_models`` is ``auto`` and detector files are missing, fetch them in
    a daemon thread, then call ``then`` there (the example clips' warm-up, so the captions cached
    ahead are made with the detectors). Otherwise call ``then`` now and return None."""
    wanted = settings.fetch_models == "auto" and pretrained.missing()
    if not wanted:
        if then is not None:
            then()
        return None

    def run():
        try:
            for ok, line in fetch_missing():
                (log.info if ok else log.warning)("detector files: %s", line)
        finally:
            if then is not None:
                then()

    t = threading.Thread(target=run, name="cinecap-model-files", daemon=True)
    t.start()
    return t


__all__ = ["fetch_missing", "fetch_on_start"]
