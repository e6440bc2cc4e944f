"""The rules judge's phrase tables (cinecap/language/tables/, issue 23): one vocabulary of values
(the taxonomy's), every entry well formed, and the compiled matchers built from them."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from cinecap import taxonomy as tx
from cinecap.language import data, phrases, table
from cinecap.language.pattern import Value

TABLES = Path(data.__file__).with_name("tables")
VALUES = {(v.aspect, v.canonical) for v in tx.VALUES}
_KEYS = {"aspect", "rx", "case", "value", "nothing", "camera", "needs", "starts", "before", "back",
         "claim_back", "nearest"}


def _constants(v: Value) -> list[str]:
    """The values a declarative Value can give (a rule's are the code's business)."""
    if v.const is not None:
        return [v.const]
    out = [x for _, x in (*v.table, *v.prefix, *v.contains)]
    if v.otherwise is not None and "{}" not in v.otherwise:
        out.append(v.otherwise)
    return out


def test_every_table_parses_and_every_aspect_is_the_taxonomys():
    files = sorted(TABLES.rglob("*.toml"))
    assert len(files) >= 20
    for f in files:
        tomllib.loads(f.read_text(encoding="utf-8"))
    assert set(data.ASPECT.values()) == set(tx.ASPECTS)


@pytest.mark.parametrize("family", phrases.FAMILIES)
def test_every_pattern_entry_is_well_formed_and_names_taxonomy_values(family):
    entries = data.load(f"patterns/{family}")["pattern"]
    rules = {**phrases.d.RULES, "position": phrases._position_value,
             "with_subject": phrases._with_subject_value}
    pats = table.family(family, rules)
    assert len(pats) == len(entries) > 0
    for e, p in zip(entries, pats):
        assert set(e) <= _KEYS, set(e) - _KEYS
        assert e["aspect"] in data.ASPECT
        assert ("value" in e) != bool(e.get("nothing")), e["rx"]
        assert "${" not in p.regex.pattern, "every fragment is known"
        for value in _constants(p.value):
            # "~left": a bare direction that repeats the last move (resolved by the decomposer)
            assert (p.aspect, value) in VALUES or (family == "elliptic" and value[0] == "~"), value


def test_every_extra_term_and_verb_term_names_a_taxonomy_value():
    assert phrases.EXTRA_TERMS and phrases.VERB_TERMS
    unknown = {(a, c) for a, c, _ in (*phrases.EXTRA_TERMS, *phrases.VERB_TERMS)} - VALUES
    assert unknown == set()


def test_a_named_rule_must_exist_and_a_group_value_reads_its_words():
    with pytest.raises(KeyError):
        table._value({"value": {"fn": "no_such_rule"}}, {})
    v = table._value({"value": {"group": 1, "map": {"middle ground": "focus on middle ground"},
                                "prefix": {"fore": "focus on foreground"},
                                "else": "{} plane"}}, {})
    m = re.search(r"(\w+(?:\s+ground)?)", "Middle   ground")
    assert v.of(m, None) == "focus on middle ground"  # case and spacing do not matter
    assert v.of(re.search(r"(\w+)", "Foreground"), None) == "focus on foreground"
    assert v.of(re.search(r"(\w+)", "Sky"), None) == "sky plane"


def test_the_context_regexes_compile_with_their_flags():
    for section, names in data.load("context").items():
        for name in names:
            rx = data.rx(section, name)
            assert rx.pattern
    assert data.rx("fields", "key_value").flags & re.M
    assert not data.rx("subjects", "appositive").flags & re.I
