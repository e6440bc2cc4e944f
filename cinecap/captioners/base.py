"""The captioner interface and the result every backend returns (the ``caption --json`` contract of
docs/architecture.md)."""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cinecap.errors import InputError, UnavailableError
from cinecap.progress import Progress
from cinecap.registry import Availability, configured
from cinecap.statements import Statement


@dataclass
class CaptionResult:
    caption: str
    reasoning: str
    statements: list[Statement]
    captioner: str
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)  # e.g. malformed model output
    #: model id, adapter, versions, tokens…; ``raw_output`` (the model's whole text) and
    #: ``truncated`` (the output hit the token limit: still scored, as released) for models
    meta: dict[str, Any] = field(default_factory=dict)
    evidence: dict[str, Any] | None = None  # the anchors' analysis, where one was made
    #: The run's own analysis object (the anchors ``Analysis``), for callers that draw from it;
    #: never serialised. Part of the result, so a captioner shared by concurrent requests keeps
    #: no per-request state.
    analysis: Any = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "caption": self.caption,
            "reasoning": self.reasoning,
            "statements": [s.to_dict() for s in self.statements],
            "captioner": self.captioner,
            "seconds": self.seconds,
            "warnings": list(self.warnings),
            "meta": dict(self.meta),
        }


class Captioner(ABC):
    """Captions a clip in film language. Construct once, call many times (models stay loaded)."""

    name: str = ""
    #: the frozen dataclass of this backend's options (cinecap.config); the registry checks
    #: options against its fields.
    config_class: type | None = None

    @classmethod
    def availability(cls, **options: Any) -> Availability:
        """Whether this backend can run here with these options, and if not why (without loading
        anything heavy): its options (unset ones from the environment: ``config_class.from_env``)
        must make a valid config, and :meth:`needs` must find nothing missing."""
        if cls.config_class is None:
            return Availability(True)
        return configured(lambda: cls.config_class.from_env(**options), cls.needs)

    @classmethod
    def needs(cls, config: Any) -> str:
        """What this backend still lacks to run with ``config`` (a package, a model, a server)
        and what to do about it; "" when nothing."""
        return ""

    def configure(self, config: Any, options: dict[str, Any]) -> Any:
        """The config a backend's ``__init__`` runs with: ``config``, or one made from
        ``options`` (unset ones from the environment); refused when :meth:`needs` finds
        something missing."""
        if config is not None and options:
            raise InputError(f"give the {self.name} captioner a config or options, not both")
        config = config or self.config_class.from_env(**options)
        why = self.needs(config)
        if why:
            raise UnavailableError(f"captioner '{self.name}' is not available here: {why}")
        return config

    def protocol(self) -> dict[str, str]:
        """What of this captioner a benchmark score depends on, as strings for a bench result's
        "protocol" object (docs/protocol.md): ``sampling`` (how frames reach the model:
        ``released-inference``, ``released-training``, ``qwen:…`` for other settings, ``server``
        when an API server samples, ``none``) and ``decoding`` (``greedy/4096``, …, ``none``)."""
        return {"sampling": "none", "decoding": "none"}

    @abstractmethod
    def caption(self, clip: str | Path, progress: Progress | None = None) -> CaptionResult:
        """Caption one clip. Raises VideoError for a bad clip, CaptionerError for a failed run."""

    def caption_many(self, clips: list[str | Path],
                     progress: Progress | None = None) -> list[CaptionResult]:
        return [self.caption(c, progress) for c in clips]
