"""Name registries for backends (captioners, judges): lazy imports, "did you mean" errors, and
options checked against each backend's config dataclass.

A backend class names its settings as ``config_class`` (a frozen dataclass, see
:mod:`cinecap.config`); :meth:`Registry.create` refuses an option that is not one of its fields
with the same error wherever the backend is created (library, CLI, app).
"""
from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass
from typing import Any, Callable, Generic, Iterable, TypeVar

from cinecap import config as cfg
from cinecap.errors import InputError, UnavailableError

T = TypeVar("T")


@dataclass
class Availability:
    """Whether a backend can run here, and if not, why and what to do about it."""

    ok: bool
    reason: str = ""


def configured(make: Callable[[], T], needs: Callable[[T], str]) -> Availability:
    """The availability of a backend whose options make its config (``make``: an
    :class:`InputError` is the reason it cannot run) and whose config may still lack something
    (``needs``: a package, a model, a server; "" when nothing). Nothing is loaded or reached."""
    try:
        config = make()
    except InputError as e:
        return Availability(False, e.message)
    why = needs(config)
    return Availability(not why, why)


class Registry(Generic[T]):
    """Maps names to ``"module:attribute"`` strings, imported only when a backend is used.

    Heavy backends (torch, transformers) cost nothing until asked for by name.
    """

    def __init__(self, kind: str):
        self.kind = kind
        self._targets: dict[str, str | Callable[..., T]] = {}
        self._help: dict[str, str] = {}

    def register(self, name: str, target: str | Callable[..., T], help: str = "") -> None:
        self._targets[name] = target
        self._help[name] = help

    def names(self) -> list[str]:
        return list(self._targets)

    def help(self, name: str) -> str:
        return self._help.get(self.check(name), "")

    def check(self, name: str) -> str:
        if name in self._targets:
            return name
        close = difflib.get_close_matches(name, self.names(), n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise InputError(f"unknown {self.kind} {name!r}.{hint} Available: {', '.join(self.names())}")

    def load(self, name: str) -> Callable[..., T]:
        """The backend's class; :class:`UnavailableError` when its packages are missing here."""
        name = self.check(name)
        target = self._targets[name]
        if isinstance(target, str):
            module, _, attr = target.partition(":")
            try:
                target = getattr(importlib.import_module(module), attr)
            except ImportError as e:
                raise UnavailableError(f"{self.kind} {name!r} is not available here: missing "
                                       f"package {e.name or e} (pip install -r requirements.txt)"
                                       ) from None
            self._targets[name] = target
        return target

    def config_class(self, name: str) -> type | None:
        """The backend's config dataclass (None for a backend that takes no options)."""
        return getattr(self.load(name), "config_class", None)

    def options(self, name: str) -> list[str]:
        """The options ``name`` takes: the fields of its config dataclass."""
        return cfg.option_names(self.config_class(name))

    def check_options(self, name: str, options: Iterable[str]) -> None:
        """The one "did you mean …? known options: …" InputError for an option ``name`` lacks."""
        name = self.check(name)
        cfg.check_options(f"{name} {self.kind}", self.options(name), dict.fromkeys(options))

    def parse_options(self, name: str, options: dict[str, Any]) -> dict[str, Any]:
        """Check ``options`` and convert those given as text to their fields' types."""
        self.check_options(name, options)
        return cfg.coerce_options(f"{name} {self.kind}", self.config_class(name), options)

    def create(self, name: str, **options: Any) -> T:
        """The backend ``name`` built with ``options`` (checked against its config once, here)."""
        options = self.parse_options(name, options)
        return self.load(name)(**options)
