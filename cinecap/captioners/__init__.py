"""Captioners by name: ``anchors`` (CPU, no weights, the default), ``vlm`` (transformers),
``openai`` (any OpenAI-compatible server). One registry shared by the CLI and the app."""
from __future__ import annotations

from cinecap.captioners.base import Availability, Captioner, CaptionResult, Progress
from cinecap.errors import UnavailableError
from cinecap.registry import Registry

CAPTIONERS: Registry[Captioner] = Registry("captioner")
CAPTIONERS.register("anchors", "cinecap.captioners.anchors:AnchorsCaptioner",
                    help="evidence from pixels on the CPU; no weights (default)")
CAPTIONERS.register("vlm", "cinecap.captioners.vlm:VLMCaptioner",
                    help="a Qwen3-VL / Qwen2.5-VL checkpoint through transformers")
CAPTIONERS.register("openai", "cinecap.captioners.openai_compat:OpenAICaptioner",
                    help="any OpenAI-compatible server (vLLM, OpenAI, …)")


def availability(name: str, **options) -> Availability:
    """Whether ``name`` can run here. ``options`` (the constructor's) are passed to backends whose
    ``availability`` accepts them, so ``--model X`` counts where an environment variable is unset."""
    try:
        cls = CAPTIONERS.load(name)
    except ImportError as e:  # the backend's own packages are missing here
        return Availability(False, f"missing package: {e.name or e}")
    return cls.availability(**_accepted(cls.availability, options))


def _accepted(fn, options: dict) -> dict:
    import inspect

    params = inspect.signature(fn).parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return dict(options)
    names = {p.name for p in params}
    return {k: v for k, v in options.items() if k in names}


def get_captioner(name: str = "anchors", **options) -> Captioner:
    av = availability(name, **options)
    if not av.ok:
        raise UnavailableError(f"captioner {name!r} is not available here: {av.reason}")
    return CAPTIONERS.create(name, **options)


__all__ = ["Availability", "CAPTIONERS", "Captioner", "CaptionResult", "Progress",
           "availability", "get_captioner"]
