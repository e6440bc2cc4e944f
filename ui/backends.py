"""The captioners and judges an app offers, built once and kept (models stay loaded)."""
from __future__ import annotations

import logging
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
        probe = self.availability.get(name)
        return probe() if probe else Availability(True)

    def available_captioners(self) -> list[str]:
        return [n for n in self.captioners if self.check_captioner(n).ok]

    def captioner(self, name: str) -> Captioner:
        av = self.check_captioner(name)
        if not av.ok:
            raise UnavailableError(f"captioner {name!r} is not available here: {av.reason}")
        return self._get(f"captioner:{name}", self.captioners[name])

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
