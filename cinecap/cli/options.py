"""Backend options on the command line, generated from the backends' config dataclasses.

A config field marked ``metadata={"flag": True}`` (``model``, ``adapter``, ``base_url``) becomes a
flag of its own (``--base-url``), with the field's help; every other field is reachable through
``--captioner-option KEY=VALUE`` / ``--judge-option KEY=VALUE``. The values go to the registry as
they are: it checks the names against the chosen backend's config and converts the text to each
field's type, so an unknown option is the same error here as in the library and the app.
"""
from __future__ import annotations

import argparse
from typing import Any

from cinecap import config as cfg
from cinecap.errors import CinecapError
from cinecap.registry import Registry


def _flag_fields(registry: Registry) -> dict[str, list[tuple[str, str]]]:
    """field name → [(backend, help)] for the fields any backend of ``registry`` marks as a flag."""
    flags: dict[str, list[tuple[str, str]]] = {}
    for name in registry.names():
        try:
            config_class = registry.config_class(name)
        except CinecapError:  # a backend whose packages are missing here offers no flags
            continue
        if config_class is None:
            continue
        for f in cfg.config_fields(config_class):
            if f.metadata.get("flag"):
                flags.setdefault(f.name, []).append((name, cfg.field_help(f)))
    return flags


def add_backend_options(parser: argparse.ArgumentParser, registry: Registry, kind: str) -> None:
    """``--FIELD`` flags for the marked fields of every backend, and ``--KIND-option KEY=VALUE``."""
    for field_name, owners in _flag_fields(registry).items():
        helps = "; ".join(f"{backend}: {text}" for backend, text in owners)
        parser.add_argument("--" + field_name.replace("_", "-"), dest=field_name,
                            metavar=field_name.upper(), help=helps)
    parser.add_argument(f"--{kind}-option", dest=f"{kind}_options", action="append", default=[],
                        metavar="KEY=VALUE",
                        help=f"any option of the chosen {kind}'s config (repeatable), e.g. "
                             + ("max_frames=16" if kind == "captioner" else "timeout=60"))


def backend_options(args: argparse.Namespace, registry: Registry, kind: str) -> dict[str, Any]:
    """The options given on the command line for the chosen backend (flags left unset are not
    passed, so the backend's defaults and the environment apply)."""
    options = {name: getattr(args, name) for name in _flag_fields(registry)
               if getattr(args, name, None) is not None}
    options.update(cfg.parse_key_values(getattr(args, f"{kind}_options", []), f"--{kind}-option"))
    return options


def add_captioner_options(parser: argparse.ArgumentParser) -> None:
    from cinecap.captioners import CAPTIONERS

    add_backend_options(parser, CAPTIONERS, "captioner")


def captioner_options(args: argparse.Namespace) -> dict[str, Any]:
    from cinecap.captioners import CAPTIONERS

    return backend_options(args, CAPTIONERS, "captioner")


def add_judge_options(parser: argparse.ArgumentParser) -> None:
    from cinecap.judge import JUDGES

    add_backend_options(parser, JUDGES, "judge")


def judge_options(args: argparse.Namespace) -> dict[str, Any]:
    from cinecap.judge import JUDGES

    return backend_options(args, JUDGES, "judge")
