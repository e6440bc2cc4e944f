"""The tables of ``cinecap/language/tables/`` as parsed TOML, and their word lists.

Imports nothing of the language package, so every module of it may read its words here
(``words("parse", "determiners")``); :mod:`cinecap.language.table` compiles the patterns.
"""
from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Any

from cinecap import taxonomy as tx

TABLES = Path(__file__).with_name("tables")
#: aspect slug ("camera_angle", as the tables name it) → aspect.
ASPECT = {a.lower().replace(" ", "_"): a for a in tx.ASPECTS}


@lru_cache(maxsize=None)
def load(name: str) -> dict[str, Any]:
    """One table file, parsed (``name`` relative to the tables folder, without ``.toml``)."""
    with open(TABLES / f"{name}.toml", "rb") as f:
        return tomllib.load(f)


def words(section: str, name: str) -> frozenset[str]:
    """A word list of ``words.toml`` (space-separated words)."""
    return frozenset(load("words")[section][name].split())


@lru_cache(maxsize=None)
def rx(section: str, name: str) -> re.Pattern:
    """A context regex of ``context.toml``: a string (ignoring case) or ``{rx, flags}``."""
    spec = load("context")[section][name]
    text = spec if not isinstance(spec, dict) else spec["rx"]
    text = text if isinstance(text, str) else "".join(text)
    flags = spec.get("flags", "i") if isinstance(spec, dict) else "i"
    return re.compile(text, sum(_FLAGS[f] for f in flags))


_FLAGS = {"i": re.I, "m": re.M, "s": re.S, "x": re.X}
