"""One vocabulary (issue 23): ``cinecap/taxonomy.toml`` is the only list of film terms. The
taxonomy reads it into ``VALUES``, the rules judge reads the same ``Value`` objects (through
``cinecap/language/data.py``), and nothing else keeps terms of its own."""
from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

import pytest

from cinecap import taxonomy as tx
from cinecap.language import data, phrases

ROOT = Path(__file__).resolve().parents[1]


def test_every_term_the_judge_reads_as_a_value_is_that_values_in_the_taxonomy():
    # The judge's extra terms are exactly the values' phrasings, value by value.
    assert set(phrases.EXTRA_TERMS) == {(v.aspect, v.canonical, t) for v in tx.VALUES
                                        for t in v.phrasings}
    assert phrases.NEVER_ALONE == {t for v in tx.VALUES for t in v.not_alone}
    verb_forms = {t for _, _, t in phrases.VERB_TERMS}
    assert phrases.CAMERA_ONLY == {t for v in tx.VALUES for t in v.camera_only} | verb_forms
    # Every literal the judge matches means a value whose own terms (or verbs) give that key.
    keys: dict[tuple[str, str], set[str]] = {}
    for v in tx.VALUES:
        keys[(v.aspect, v.canonical)] = {phrases.term_key(t) for t in v.judge_terms}
    for a, c, t in phrases.VERB_TERMS:
        keys[(a, c)].add(phrases.term_key(t))
    plain, caps = phrases.literals()
    for key, meanings in (*plain.meaning.items(), *caps.meaning.items()):
        for aspect, canonical, _ in meanings:
            own = keys[(aspect, canonical)]
            # the judge's spelling variants: "back to camera", "centre", "facing cam"
            assert key in own or any(key.replace(x, y) in own for x, y in (
                ("centre", "center"), (" cam", " camera"), (" cam", " the camera"),
                (" camera", " the camera"), (" lens", " the lens"), (" viewer", " the viewer"))), (
                key, canonical)


def test_a_judge_only_term_is_neither_a_synonym_nor_shown_to_users():
    for v in tx.VALUES:
        assert len(set(v.phrasings)) == len(v.phrasings), (v.canonical, "a phrasing said twice")
        assert not set(v.phrasings) & set(v.terms), (v.canonical, "a synonym said again")
        assert set(v.camera_only) <= set(v.judge_terms) and set(v.not_alone) <= set(v.terms)
        shown = tx.as_dict()[v.aspect][[x.canonical for x in tx.values_for(v.aspect)].index(
            v.canonical)]["synonyms"]
        assert shown == list(v.synonyms)
    assert tx.normalize(tx.CAMERA_MOVEMENT, "Fixed") is tx.get(tx.CAMERA_MOVEMENT, "static")
    # "doesn't budge" is the judge's wording, not a name of the value.
    assert "doesn't budge" in tx.get(tx.CAMERA_MOVEMENT, "static").phrasings
    assert tx.normalize(tx.CAMERA_MOVEMENT, "doesn't budge") is None


def test_no_term_names_two_values_of_one_aspect():
    seen: dict[tuple[str, str], str] = {}
    for v in tx.VALUES:
        for t in v.judge_terms:
            k = (v.aspect, phrases.term_key(t))
            assert seen.setdefault(k, v.canonical) == v.canonical, (t, seen[k], v.canonical)


def test_the_judges_own_table_keeps_no_vocabulary():
    with open(data.TABLES / "terms.toml", "rb") as f:
        raw = tomllib.load(f)
    assert set(raw) == {"verbs"}
    for value in raw["verbs"]:
        tx.get(tx.CAMERA_MOVEMENT, value)


def test_a_malformed_entry_is_one_error_naming_it(tmp_path):
    text = tx.TABLE.read_text(encoding="utf-8")
    bad = tmp_path / "taxonomy.toml"
    bad.write_text(text.replace('[camera_movement."dolly zoom"]\n',
                                '[camera_movement."dolly zoom"]\nsynonym = ["zolly"]\n'),
                   encoding="utf-8")
    with pytest.raises(ValueError,
                       match=r"\[camera_movement.dolly zoom\]: unknown keys \[.synonym.\]"):
        tx._load(bad)
    bad.write_text(text.replace('not_alone = ["left"]', 'not_alone = ["sideways"]'),
                   encoding="utf-8")
    with pytest.raises(ValueError, match=r"\[composition.left\]: not_alone"):
        tx._load(bad)
    bad.write_text('[shot_size."tiny shot"]\n' + text, encoding="utf-8")
    with pytest.raises(ValueError, match="the aspects must be camera_movement, shot_size"):
        tx._load(bad)
    assert tx._load(tx.TABLE) == tx.VALUES


def test_the_table_ships_with_the_package():
    with open(ROOT / "pyproject.toml", "rb") as f:
        globs = tomllib.load(f)["tool"]["setuptools"]["package-data"]["cinecap"]
    package = ROOT / "cinecap"
    tables = [p.relative_to(package).as_posix() for p in package.rglob("*.toml")]
    assert "taxonomy.toml" in tables
    missing = [t for t in tables if not any(fnmatch.fnmatch(t, g) for g in globs)]
    assert missing == []
