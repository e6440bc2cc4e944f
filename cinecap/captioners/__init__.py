"""Captioners by name: ``anchors`` (CPU, no weights, the default), ``vlm`` (transformers),
``openai`` (any OpenAI-compatible server). One registry shared by the CLI, the library and the app:
each backend's options are checked against its config dataclass there (``CAPTIONERS.create``)."""
from __future__ import annotations

from cinecap.captioners.base import Captioner, CaptionResult
from cinecap.errors import CinecapError
from cinecap.registry import Availability, Registry

CAPTIONERS: Registry[Captioner] = Registry("captioner")
CAPTIONERS.register("anchors", "cinecap.captioners.anchors:AnchorsCaptioner",
                    help="evidence from pixels on the CPU; no weights (default)")
CAPTIONERS.register("vlm", "cinecap.captioners.vlm:VLMCaptioner",
                    help="a Qwen3-VL / Qwen2.5-VL checkpoint through transformers")
CAPTIONERS.register("openai", "cinecap.captioners.openai_compat:OpenAICaptioner",
                    help="any OpenAI-compatible server (vLLM, OpenAI, …)")


def availability(name: str, **options) -> Availability:
    """Whether ``name`` can run here, and if not why (nothing heavy is loaded).

    ``options`` count as configuration (``--model X`` where ``CINECAP_MODEL`` is unset); those the
    backend does not take are ignored, so one set of options can be asked of every backend.
    """
    try:
        cls = CAPTIONERS.load(name)
        known = CAPTIONERS.options(name)
    except CinecapError as e:  # the backend's own packages are missing here
        return Availability(False, e.message)
    return cls.availability(**{k: v for k, v in options.items() if k in known})


def get_captioner(name: str = "anchors", **options) -> Captioner:
    """The captioner ``name`` built with ``options`` (fields of its config dataclass).

    InputError for an unknown name or option, or a bad value; UnavailableError when it cannot run
    here (missing package, no model or server configured).
    """
    return CAPTIONERS.create(name, **options)


__all__ = ["Availability", "CAPTIONERS", "Captioner", "CaptionResult", "availability",
           "get_captioner"]
