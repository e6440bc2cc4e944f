"""The configuration convention every component follows (TRL's style), and its helpers.

A component's settings are one frozen dataclass:

- every field carries ``metadata={"help": "…"}`` (and ``"choices"`` where the values are few);
  ``"flag": True`` marks the fields the command line offers as their own ``--flags``;
- ``__post_init__`` validates and raises :class:`~cinecap.errors.InputError`, naming the field;
- a ``from_env(**overrides)`` classmethod is the only place the environment is read: explicit
  values win, ``None`` falls back to the environment, then to the default.

Backends (captioners, judges) name their config dataclass as ``config_class``; the registry checks
options against it once (:meth:`cinecap.registry.Registry.create`), so an unknown option is the
same "did you mean …? known options: …" error from the library, the CLI and the app. Options that
arrive as text (``--judge-option timeout=30``) are converted by the field's type here.
"""
from __future__ import annotations

import dataclasses
import difflib
import json
import types
import typing
from typing import Any, Iterable, Mapping

from cinecap.errors import InputError

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")
_NONE = ("", "none", "null")


def config_fields(cls: type) -> list[dataclasses.Field]:
    """The fields of a config dataclass, in declaration order."""
    return [f for f in dataclasses.fields(cls) if f.init]


def field_help(f: dataclasses.Field) -> str:
    """The field's help text ("" when it has none: a test keeps that from happening)."""
    return str(f.metadata.get("help", ""))


def option_names(cls: type | None) -> list[str]:
    return [f.name for f in config_fields(cls)] if cls is not None else []


def unknown_option(owner: str, name: str, known: Iterable[str]) -> InputError:
    """The one error for an option a backend does not take: did you mean …? known options: …"""
    known = sorted(known)
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    listing = f"Known options: {', '.join(known)}." if known else "It takes no options."
    return InputError(f"the {owner} has no option {name!r}.{hint} {listing}")


def check_options(owner: str, known: Iterable[str], options: Mapping[str, Any]) -> None:
    """Raise :func:`unknown_option` for the first option (in sorted order) not in ``known``."""
    known = list(known)
    for name in sorted(options):
        if name not in known:
            raise unknown_option(owner, name, known)


def _hints(cls: type) -> dict[str, Any]:
    module = __import__(cls.__module__, fromlist=["_"])
    return typing.get_type_hints(cls, vars(module))


def _kinds(tp: Any) -> tuple[set[type], bool]:
    """(plain types a value may be, whether None is allowed) for an annotation."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        kinds: set[type] = set()
        optional = False
        for arg in typing.get_args(tp):
            if arg is type(None):
                optional = True
            else:
                sub, _ = _kinds(arg)
                kinds |= sub
        return kinds, optional
    if origin is not None:
        return {origin}, False
    return ({tp} if isinstance(tp, type) else {object}), False


def coerce(cls: type, name: str, value: Any, label: str | None = None) -> Any:
    """``value`` for field ``name`` of ``cls``; text (from a command line) becomes the field's type.

    Non-text values are returned as they are (``__post_init__`` checks them). ``label`` names the
    value in errors (default: the field's name).
    """
    label = label or name
    if not isinstance(value, str):
        return value
    hint = _hints(cls).get(name, str)
    kinds, optional = _kinds(hint)
    text = value.strip()
    if optional and text.lower() in _NONE:
        return None
    if str in kinds or object in kinds:
        return value
    if bool in kinds:
        if text.lower() in _TRUE:
            return True
        if text.lower() in _FALSE:
            return False
        raise InputError(f"{label} must be true or false, got {value!r}")
    if int in kinds and float not in kinds:
        try:
            return int(text)
        except ValueError:
            raise InputError(f"{label} must be an integer, got {value!r}") from None
    if float in kinds:
        try:
            number = float(text)
        except ValueError:
            raise InputError(f"{label} must be a number, got {value!r}") from None
        return int(number) if int in kinds and number.is_integer() else number
    if kinds & {dict, list, tuple}:
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            raise InputError(f"{label} must be JSON, got {value!r}") from None
        return tuple(data) if tuple in kinds and isinstance(data, list) else data
    raise InputError(f"{label} cannot be given as text; set it from Python")


def coerce_options(owner: str, cls: type | None, options: Mapping[str, Any]) -> dict[str, Any]:
    """Every option converted by :func:`coerce` (unknown names are left for the registry)."""
    if cls is None:
        return dict(options)
    known = set(option_names(cls))
    return {k: (coerce(cls, k, v, f"{owner} {k}") if k in known else v)
            for k, v in options.items()}


def from_env_values(cls: type, env_vars: Mapping[str, str], environ: Mapping[str, str],
                    overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Constructor arguments for ``cls.from_env``: overrides that are not None, else the variable
    named in ``env_vars`` (field → variable) when it is set and not empty, converted by the
    field's type. Called only from the ``from_env`` classmethods, which pass ``os.environ``."""
    values: dict[str, Any] = {}
    for name, var in env_vars.items():
        raw = environ.get(var)
        if raw is not None and raw.strip():
            values[name] = coerce(cls, name, raw, var)
    values.update({k: v for k, v in overrides.items() if v is not None})
    return values


def parse_key_values(items: Iterable[str], flag: str) -> dict[str, str]:
    """``["a=1", "b-c=x"]`` → ``{"a": "1", "b_c": "x"}``; an item without ``=`` is an InputError."""
    options: dict[str, str] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise InputError(f"{flag} needs KEY=VALUE, got {item!r}")
        options[key.strip().replace("-", "_")] = value
    return options


def describe(config: Any, secret: Iterable[str] = ("api_key",)) -> dict[str, Any]:
    """The resolved configuration as a plain dict for logs and result files; secrets masked."""
    out = dataclasses.asdict(config)
    for name in secret:
        if name in out:
            out[name] = "set" if out[name] else None
    return out
