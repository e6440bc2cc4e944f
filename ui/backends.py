"""The captioners and judges an app offers, built once and kept (models stay loaded).

A captioner can be *served* for a model (:meth:`Backends.serve`): the ``vlm`` captioner serves
the model version the store marks serving (``ui.usecases.versions``). Serving another model
replaces the instance and frees the old model's memory, without a restart.
"""
from __future__ import annotations

import gc
import logging
import sys
import threading
from dataclasses import dataclass, field
from typing import Callable

from cinecap.captioners import CAPTIONERS, Availability, Captioner
from cinecap.captioners import availability as registry_availability
from cinecap.errors import InputError, UnavailableError
from cinecap.judge import JUDGES, Judge

log = logging.getLogger(__name__)


def registry_judges(names: tuple[str, ...] = ()) -> dict[str, Callable[[], Judge]]:
    return {n: (lambda n=n: JUDGES.create(n)) for n in (names or tuple(JUDGES.names()))}


@dataclass
class Backends:
    """Name → factory for captioners and judges; instances are made on first use and cached."""

    captioners: dict[str, Callable[[], Captioner]]
    judges: dict[str, Callable[[], Judge]] = field(default_factory=lambda: registry_judges())
    availability: dict[str, Callable[[], Availability]] = field(default_factory=dict)
    _made: dict[str, object] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _served: dict[str, str] = field(default_factory=dict, repr=False)  # name → model served

    @classmethod
    def from_registry(cls, captioners: tuple[str, ...] = (), judges: tuple[str, ...] = ("rules",),
                      options: dict[str, dict] | None = None) -> "Backends":
        names = captioners or tuple(CAPTIONERS.names())
        options = options or {}  # captioner name → options, checked by the registry on creation
        return cls(
            captioners={n: (lambda n=n: CAPTIONERS.create(n, **options.get(n, {}))) for n in names},
            judges=registry_judges(judges),
            availability={n: (lambda n=n: registry_availability(n, **options.get(n, {})))
                          for n in names})

    def captioner_names(self) -> list[str]:
        return list(self.captioners)

    def check_captioner(self, name: str) -> Availability:
        if name not in self.captioners:
            raise InputError(f"unknown captioner {name!r}; offered: {', '.join(self.captioners)}")
        if name in self._served:
            return Availability(True)
        probe = self.availability.get(name)
        return probe() if probe else Availability(True)

    def available_captioners(self) -> list[str]:
        return [n for n in self.captioners if self.check_captioner(n).ok]

    def captioner(self, name: str) -> Captioner:
        av = self.check_captioner(name)
        if not av.ok:
            raise UnavailableError(f"captioner {name!r} is not available here: {av.reason}")
        return self._get(f"captioner:{name}", self.captioners[name])

    def served(self, name: str) -> str | None:
        """The model ``name`` serves (set by :meth:`serve`), or None."""
        return self._served.get(name)

    def serve(self, name: str, model: str, factory: Callable[[], Captioner]) -> bool:
        """Make ``name`` the captioner ``factory`` builds for ``model`` (e.g. a model version's
        directory). When ``name`` served another model, its instance is dropped and the memory
        of its model freed (a request still captioning with it finishes first: it holds the
        instance). Serving the model already served changes nothing. Returns whether it
        changed."""
        if name not in self.captioners:
            raise InputError(f"unknown captioner {name!r}; offered: {', '.join(self.captioners)}")
        key = f"captioner:{name}"
        with self._lock:
            if self._served.get(name) == model:
                return False
            old = self._made.pop(key, None)
            self.captioners[name], self._served[name] = factory, model
        log.info("captioner %s now serves %s", name, model)
        if old is not None:
            del old
            release_models()
        return True

    def judge(self, name: str) -> Judge:
        if name not in self.judges:
            raise InputError(f"unknown judge {name!r}; offered: {', '.join(self.judges)}")
        try:
            return self._get(f"judge:{name}", self.judges[name])
        except ImportError as e:
            raise UnavailableError(f"judge {name!r} is not installed here ({e})") from None

    def _get(self, key: str, factory: Callable[[], object]):
        # One construction per backend even when two requests arrive together.
        with self._lock:
            if key not in self._made:
                self._made[key] = factory()
            return self._made[key]


def release_models() -> None:
    """Free the memory of models nobody holds any more: the ``vlm`` captioner's loading cache
    (it keeps the last checkpoints loaded), Python's garbage, and the GPU's cached blocks."""
    vlm = sys.modules.get("cinecap.captioners.vlm")
    if vlm is not None:
        vlm.load_model.cache_clear()
    gc.collect()
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        torch.cuda.empty_cache()
