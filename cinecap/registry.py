"""Name registries for backends (captioners, judges): lazy imports and "did you mean" errors."""
from __future__ import annotations

import difflib
import importlib
from typing import Any, Callable, Generic, TypeVar

from cinecap.errors import InputError

T = TypeVar("T")


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
        target = self._targets[self.check(name)]
        if isinstance(target, str):
            module, _, attr = target.partition(":")
            target = getattr(importlib.import_module(module), attr)
            self._targets[name] = target
        return target

    def create(self, name: str, **options: Any) -> T:
        return self.load(name)(**options)
