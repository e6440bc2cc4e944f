"""ZeroGPU on a Hugging Face Space: the GPU captioners run inside a ``spaces.GPU`` function.

On ZeroGPU hardware (Spaces set ``SPACES_ZERO_GPU=true``; ``Settings.zerogpu``) a real GPU exists
only while a function decorated with ``@spaces.GPU`` runs; Spaces run it in a worker process, so
its arguments and result are pickled, and the models are to be put on the GPU when the app
starts, not inside the call (Hugging Face hub-docs, spaces-zerogpu, checked August 2026). So, when the app is
built on ZeroGPU, :func:`prepare` loads each GPU captioner (:data:`GPU_CAPTIONERS`: ``vlm``) once
and makes one decorated function that captions a clip with a captioner named by a string (a
loaded model never crosses the process boundary; a ``CaptionResult`` does); :func:`caption` sends
those captioners' runs through it and every other run straight to the captioner. Off ZeroGPU this
module does nothing, and ``spaces`` is never imported.

The function is module-level state because ZeroGPU needs it defined at start-up, before the
first request. Only the wiring is tested here (``tests/test_zerogpu.py``, with a stand-in for
``spaces``); nothing here has run on a real ZeroGPU Space. ZeroGPU works only with the Gradio SDK
(not Docker), Python 3.10.13 or 3.12.12, and PyTorch from 2.8.0 (docs/app.md, "The Space").
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Callable

from cinecap.captioners.base import CaptionResult, Captioner
from cinecap.progress import Progress, no_progress

log = logging.getLogger(__name__)

#: Captioners that need a GPU lent per call on ZeroGPU.
GPU_CAPTIONERS = frozenset({"vlm"})

_LOADED: dict[str, Captioner] = {}
_GPU_CALL: Callable[[str, str], CaptionResult] | None = None


def lent_per_request(settings: Any, name: str) -> bool:
    """Whether ``name`` runs only inside a request's GPU call here (not ahead of time)."""
    return bool(getattr(settings, "zerogpu", False)) and name in GPU_CAPTIONERS


def prepare(settings: Any, backends: Any) -> list[str]:
    """On ZeroGPU, load the offered GPU captioners and make the GPU function; the names routed
    through it. Elsewhere nothing."""
    global _GPU_CALL
    if not getattr(settings, "zerogpu", False):
        return []
    import spaces  # installed on ZeroGPU Spaces

    names = sorted(GPU_CAPTIONERS & set(backends.available_captioners()))
    for name in names:
        cap = backends.captioner(name)
        getattr(cap, "loaded", None)  # a model captioner loads its weights on first access
        _LOADED[name] = cap

    @spaces.GPU(duration=settings.zerogpu_duration_s)
    def caption_on_gpu(name: str, path: str) -> CaptionResult:
        return _LOADED[name].caption(path)

    _GPU_CALL = caption_on_gpu
    log.info("ZeroGPU: %s run inside spaces.GPU (at most %s s a call)", ", ".join(names) or
             "no captioner", settings.zerogpu_duration_s)
    return names


def caption(name: str, captioner: Captioner, path: str | Path,
            progress: Progress = no_progress) -> CaptionResult:
    """``captioner.caption(path)``, through the GPU function where :func:`prepare` routed
    ``name`` (the progress callback does not cross to the worker: the page shows one step)."""
    if _GPU_CALL is not None and name in _LOADED:
        progress(0.0, f"waiting for a GPU for the {name} captioner (ZeroGPU)")
        return _GPU_CALL(name, str(path))
    return captioner.caption(path, progress=progress)


def reset() -> None:
    """Forget what :func:`prepare` made (tests)."""
    global _GPU_CALL
    _LOADED.clear()
    _GPU_CALL = None
