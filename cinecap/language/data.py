"""The tables of ``cinecap/language/tables/`` as parsed TOML, and their word lists.

Imports nothing of the language package, so every module of it may read its words here
(``words("parse", "determiners")``); :mod:`cinecap.language.table` compiles the patterns.
The judge's literal terms are the vocabulary's (``cinecap/taxonomy.toml``, read by
:mod:`cinecap.taxonomy`): ``load("terms")`` adds them to ``terms.toml``'s verbs.
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
_SLUG = {a: s for s, a in ASPECT.items()}


@lru_cache(maxsize=None)
def load(name: str) -> dict[str, Any]:
    """One table file, parsed (``name`` relative to the tables folder, without ``.toml``)."""
    with open(TABLES / f"{name}.toml", "rb") as f:
        out = tomllib.load(f)
    return {**out, **vocabulary_terms()} if name == "terms" else out


def vocabulary_terms() -> dict[str, Any]:
    """The judge's view of the taxonomy's values, in the keys ``terms.toml`` once held:
    ``extra`` (aspect slug → value → its phrasings), ``camera_only`` (terms) and ``never_alone``
    (space-separated words). The names and synonyms the judge reads from ``tx.VALUES`` itself."""
    extra: dict[str, dict[str, list[str]]] = {}
    for v in tx.VALUES:
        if v.phrasings:
            extra.setdefault(_SLUG[v.aspect], {})[v.canonical] = list(v.phrasings)
    return {"extra": extra, "camera_only": [t for v in tx.VALUES for t in v.camera_only],
            "never_alone": " ".join(t for v in tx.VALUES for t in v.not_alone)}


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
