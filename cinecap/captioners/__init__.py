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


def availability(name: str) -> Availability:
    try:
        cls = CAPTIONERS.load(name)
    except ImportError as e:  # the backend's own packages are missing here
        return Availability(False, f"missing package: {e.name or e}")
    return cls.availability()


def get_captioner(name: str = "anchors", **options) -> Captioner:
    av = availability(name)
    if not av.ok:
        raise UnavailableError(f"captioner {name!r} is not available here: {av.reason}")
    return CAPTIONERS.create(name, **options)


__all__ = ["Availability", "CAPTIONERS", "Captioner", "CaptionResult", "Progress",
           "availability", "get_captioner"]
