"""Length limits on what people type into the store: statements, notes, gold captions, drafts.

A statement is one film-language fact, so its sentence and its evidence are short; without a limit
one pasted 10 MB "statement" was stored and copied into every later gold pair of its clip. The
review use cases check these limits where the text is typed (a clear message at the form), and
the store checks them again on every write (defence in depth: a client that skips the use case
cannot store more). Limits are in characters (``len`` of the Python string).
"""
from __future__ import annotations

import json
from typing import Any, Iterable, Mapping

from cinecap.errors import InputError

#: A statement's sentence, its evidence, and an annotator's or reviewer's note.
MAX_FIELD_CHARS = 2_000
#: A statement's subject ("the man in the red coat"); the column holds 200.
MAX_SUBJECT_CHARS = 200
#: Statements in one gold pair (and in one review draft).
MAX_STATEMENTS = 100
#: A gold caption (rendered from its statements: a few dozen words per statement).
MAX_CAPTION_CHARS = 20_000
#: A gold pair's atomic-CoT reasoning: one line per statement, sentence and evidence included.
MAX_REASONING_CHARS = MAX_STATEMENTS * (2 * MAX_FIELD_CHARS + 100)
#: Actions one review draft keeps (each one can be undone); save to start a new draft.
MAX_DRAFT_ACTIONS = 300
#: A review draft as stored (JSON).
MAX_DRAFT_BYTES = 4_000_000

_FIELD_NAMES = {"text": "statement text", "evidence": "evidence", "subject": "subject",
                "note": "note"}


def check_text(what: str, value: Any, limit: int) -> None:
    """InputError when ``value`` (a string) is longer than ``limit`` characters, or holds what a
    database cannot store (:func:`check_storable`)."""
    if isinstance(value, str):
        check_storable(value, what)
    if isinstance(value, str) and len(value) > limit:
        raise InputError(f"the {what} is {len(value):,} characters long; the limit is {limit:,}. "
                         "Shorten it (one fact per statement).")


def check_statement(st: Mapping[str, Any], where: str = "") -> None:
    """A statement dict's typed fields within their limits (``where``: "statement #3")."""
    for key, limit in (("text", MAX_FIELD_CHARS), ("evidence", MAX_FIELD_CHARS),
                       ("subject", MAX_SUBJECT_CHARS)):
        check_text(_FIELD_NAMES[key] + (f" of {where}" if where else ""), st.get(key), limit)


def check_gold_pair(statements: Iterable[Mapping[str, Any]], caption: str, reasoning: str,
                    notes: Mapping[str, str] | None = None) -> None:
    """Everything a gold pair stores, within the limits (the store calls this on every save)."""
    sts = list(statements)
    if len(sts) > MAX_STATEMENTS:
        raise InputError(f"a gold pair holds at most {MAX_STATEMENTS} statements; this one has "
                         f"{len(sts)}")
    for i, st in enumerate(sts):
        check_statement(st, f"statement #{i + 1}")
    for note in (notes or {}).values():
        check_text("note", note, MAX_FIELD_CHARS)
    check_text("gold caption", caption, MAX_CAPTION_CHARS)
    check_text("reasoning", reasoning, MAX_REASONING_CHARS)


def check_draft(data: Mapping[str, Any]) -> None:
    """A review draft's JSON within its size and action limits."""
    if len(data.get("actions", ())) > MAX_DRAFT_ACTIONS:
        raise InputError(f"this draft has more than {MAX_DRAFT_ACTIONS} edits: save it as a gold "
                         "pair, then go on")
    size = len(json.dumps(data, ensure_ascii=False))
    if size > MAX_DRAFT_BYTES:
        raise InputError(f"this draft is {size:,} characters as stored; the limit is "
                         f"{MAX_DRAFT_BYTES:,}. Save it or undo the longest edits.")

def check_storable(text: str | None, what: str) -> str:
    """``text`` (None → ""), or InputError when a database could not store it."""
    text = text or ""
    if "\x00" in text:
        raise InputError(f"the {what} contains a NUL character (\\x00); remove it and try again")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise InputError(f"the {what} contains a character that is not valid Unicode "
                         f"(U+{ord(text[e.start]):04X} at position {e.start + 1})") from None
    return text


def check_storable_all(value: Any, what: str) -> Any:
    """:func:`check_storable` on every string inside ``value`` (dicts, lists, keys and values)."""
    if isinstance(value, str):
        return check_storable(value, what)
    if isinstance(value, dict):
        for k, v in value.items():
            check_storable_all(k, what)
            check_storable_all(v, what)
    elif isinstance(value, (list, tuple)):
        for v in value:
            check_storable_all(v, what)
    return value
