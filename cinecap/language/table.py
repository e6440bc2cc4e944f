"""The phrase knowledge as data: reading the TOML tables of ``cinecap/language/tables/``.

``words.toml`` holds the word lists (vocabulary of the parser and the subject finder, the verb
families and directions), ``terms.toml`` the literal terms beyond the taxonomy's synonyms, and
``patterns/<family>.toml`` the pattern families, one ``[[pattern]]`` per regex, in the order
they are tried. A pattern entry:

    aspect = "camera_angle"          # the aspect, as a slug of its name
    rx = '...' or ['...', '...']     # the regex (pieces joined); ${name} is a fragment
    case = true                      # case-sensitive (default: ignore case)
    value = "high angle"             # a constant, or one of:
    value = { group = 1, map = {up = "low angle"}, prefix = {}, contains = {},
              else = "high angle", template = "{} shot" }  # by the words of a group
    value = { fn = "orientation" }   # a structural rule in code (``RULES`` of the modules)
    nothing = true                   # the words are no term (they claim their span)
    camera = "only" | "unchecked"    # only the camera may do it | no agent check (an effect)
    needs, starts = [...] / "a b c"  # prefilters (``starts`` by hand; else read off the regex)
    before = '...' (a check on the words before, wrapped by ``pattern.back``), or back = raw

A file's top-level ``needs`` is the family's prefilter for the entries that name none.
``fragments.toml`` holds the regex pieces several patterns share; ``{ forms = "walk run" }``
is every inflection of the verbs, as a trie. Compiled once (``lru_cache``).
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Callable

from cinecap.language.data import ASPECT, load
from cinecap.language.pattern import Pattern, Value, back, forms

_FRAGMENT = re.compile(r"\$\{(\w+)\}")


@lru_cache(maxsize=1)
def fragments() -> dict[str, str]:
    out = {}
    for name, spec in load("patterns/fragments").items():
        out[name] = forms(spec["forms"]) + spec.get("then", "") if isinstance(spec, dict) else (
            spec if isinstance(spec, str) else "".join(spec))
    return out


def regex_text(rx: "str | list[str]") -> str:
    text = rx if isinstance(rx, str) else "".join(rx)
    return _FRAGMENT.sub(lambda m: fragments()[m.group(1)], text)


def _word_set(v: "str | list[str]") -> frozenset[str]:
    return frozenset(v.split() if isinstance(v, str) else v)


def _value(e: dict[str, Any], rules: dict[str, Callable[..., Any]]) -> Value:
    if e.get("nothing"):
        return Value(nothing=True)
    v = e["value"]
    if isinstance(v, str):
        return Value(const=v)
    if "fn" in v:
        return Value(rule=rules[v["fn"]])
    return Value(group=v["group"], table=tuple(v.get("map", {}).items()),
                 prefix=tuple(v.get("prefix", {}).items()),
                 contains=tuple(v.get("contains", {}).items()), otherwise=v.get("else"),
                 template=v.get("template"))


_CAMERA = {"only": True, "unchecked": None}


def family(name: str, rules: dict[str, Callable[..., Any]]) -> list[Pattern]:
    """The patterns of ``patterns/<name>.toml``, in order."""
    table = load(f"patterns/{name}")
    default_needs = tuple(table.get("needs", ()))
    out = []
    for e in table["pattern"]:
        b = back(regex_text(e["before"])) if "before" in e else e.get("back")
        out.append(Pattern(
            ASPECT[e["aspect"]], re.compile(regex_text(e["rx"]), 0 if e.get("case") else re.I),
            _value(e, rules), camera_only=_CAMERA.get(e.get("camera", ""), False),
            needs=tuple(e.get("needs", default_needs)), starts=_word_set(e.get("starts", ())),
            back=b if b is None or isinstance(b, re.Pattern) else re.compile(regex_text(b), re.I),
            claim_back=e.get("claim_back", True), nearest=e.get("nearest", False)))
    return out
