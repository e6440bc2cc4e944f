"""Counting protocols: how an LLM judge's answer becomes counts (docs/protocol.md, docs/spec/judge.md).

``released`` reads an answer the way the released code reads it, formula for formula:

- the training judge's reading (the reward, ``Train/modified/cinecap_plugin.py``): the JSON from
  the first ``{`` to the last ``}`` (a code fence stripped), which must hold ``by_dim`` or the
  answer is asked again; per aspect the judge's *reported* counts, the list's length only where a
  count key is missing, anything that is not an integer counts 0, counts clamped at 0,
  ``matched = min(matched, gt, pred)``; an aspect missing from the answer counts as zeros;
- the benchmark judge's reading (``Evaluate/gemini_evaluate_caption_by_dim_infer_output.py`` and
  ``output_scores_by_dim.py``), for the ``benchmark-7`` prompt on top of that: the JSON from the
  first ``{`` to the last ``}`` of the whole answer (no JSON: asked again); the clip's
  comprehensiveness and accuracy are the judge's own ``comprehensiveness_score`` and
  ``accuracy_score`` (0.0 when missing); each aspect's ratios are ``matched_count / gt_count`` and
  ``matched_count / pred_count`` of the reported counts, unclamped (a missing count is 0, a ratio
  over a count ≤ 0 is 0). These are kept as the judgement's ``reported`` scores and are what the
  benchmark aggregation averages.

Where the released code would crash or silently drop a clip (a score that is not a number, an
aspect that is not an object, a count like ``"2.7"``), the judgement fails instead.

``lists`` is the hardened reading (the default of the app and of GRPO rewards): the answer must fit
the schema (every aspect asked, six fields each); the counts are the lengths of the lists, and an
answer whose reported counts disagree with its lists, that lists more matched statements than GT
or predicted ones, that lists an empty statement, or that lists no GT statement at all for a GT
caption that is not empty, is a failed judgement (never scored, never cached). A caption that
talks the judge into inflated counts therefore cannot lift the score above what the statement
lists support.
"""
from __future__ import annotations

import json
import math
import re
from typing import Any, Sequence

from cinecap.judge.base import AspectCounts
from cinecap.judge.llm_prompt import AnswerError, JudgePrompt, extract_json, parse_answer


class Refused(AnswerError):
    """An answer that was read but that the counting protocol refuses: a failed judgement, not
    asked again (a malformed answer, :class:`AnswerError`, may be)."""


_GREEDY_OBJECT = re.compile(r"\{.*\}", re.S)
_FENCE_OPEN = re.compile(r"^```[a-zA-Z]*\n?")
_FENCE_CLOSE = re.compile(r"\n?```$")


def _norm(x: Any) -> str:
    return re.sub(r"\s+", " ", "" if x is None else str(x)).strip()


def _sanitize_count(value: Any) -> int:
    """The training judge's count: ``int(value)``, 0 when that fails, never below 0."""
    try:
        return max(0, int(value))
    except (TypeError, ValueError, OverflowError):
        return 0


def _training_json(text: str) -> Any:
    """The training judge's extraction: fence stripped, first ``{`` to last ``}``; {} if unreadable."""
    s = (text or "").strip()
    if s.startswith("```"):
        s = _FENCE_CLOSE.sub("", _FENCE_OPEN.sub("", s)).strip()
    first, last = s.find("{"), s.rfind("}")
    if first != -1 and last != -1 and last > first:
        s = s[first:last + 1]
    try:
        return json.loads(s)
    except ValueError:
        return {}


def _released_counts(data: Any, aspects: Sequence[str]) -> dict[str, AspectCounts]:
    """Per-aspect counts as the release's training judge sanitises them."""
    by_dim = data.get("by_dim", {}) if isinstance(data, dict) else {}
    by_dim = by_dim if isinstance(by_dim, dict) else {}
    dims: dict[str, AspectCounts] = {}
    for a in aspects:
        dim = by_dim.get(a, {})
        if not isinstance(dim, dict):
            raise Refused(f"{a}: the answer's aspect is a {type(dim).__name__}, not an object")
        lists = {}
        for k in ("gt", "pred", "matched"):
            v = dim.get(f"{k}_statements", [])
            lists[k] = v if isinstance(v, list) else []
        gt = _sanitize_count(dim.get("gt_count", len(lists["gt"])))
        pred = _sanitize_count(dim.get("pred_count", len(lists["pred"])))
        matched = min(_sanitize_count(dim.get("matched_count", len(lists["matched"]))), gt, pred)
        dims[a] = AspectCounts(*([_norm(x) for x in lists[k] if _norm(x)]
                                 for k in ("gt", "pred", "matched")), gt, pred, matched)
    return dims


def _score(value: Any, name: str) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError, OverflowError):
        raise Refused(f"the judge's {name} is not a number: {str(value)[:40]!r} (the released "
                      f"aggregation drops such a clip)") from None
    if not math.isfinite(x):
        raise Refused(f"the judge's {name} is not a finite number: {value!r}")
    return x


def _bench_count(dim: dict, key: str, aspect: str) -> int:
    """``int(dim.get(key, 0) or 0)``, the released per-aspect reading (unclamped)."""
    try:
        return int(dim.get(key, 0) or 0)
    except (TypeError, ValueError, OverflowError):
        raise Refused(f"{aspect}: {key} {dim.get(key)!r} is not an integer (the released "
                      f"aggregation would stop on it)") from None


def _ratio(num: int, den: int) -> float:
    return float(num) / float(den) if den > 0 else 0.0


def _benchmark_reported(data: dict, aspects: Sequence[str]) -> dict[str, Any]:
    """The scores the released benchmark evaluation reads from one answer."""
    by_dim = data.get("by_dim", {})
    by_dim = by_dim if isinstance(by_dim, dict) else {}
    by_aspect = {}
    for a in aspects:
        dim = by_dim.get(a, {})
        if not isinstance(dim, dict):
            raise Refused(f"{a}: the answer's aspect is a {type(dim).__name__}, not an object")
        gt, pred, matched = (_bench_count(dim, f"{k}_count", a) for k in ("gt", "pred", "matched"))
        by_aspect[a] = {"cmp": _ratio(matched, gt), "acc": _ratio(matched, pred)}
    return {"comprehensiveness": _score(data.get("comprehensiveness_score", 0.0),
                                        "comprehensiveness_score"),
            "accuracy": _score(data.get("accuracy_score", 0.0), "accuracy_score"),
            "by_aspect": by_aspect}


def read_released(text: str, prompt: JudgePrompt, aspects: Sequence[str]) -> dict[str, Any]:
    """``{"by_dim": {aspect: AspectCounts}, "reported": … or None}`` as the release reads ``text``.

    :class:`AnswerError`: malformed (the release asks again); :class:`Refused`: failed.
    """
    text = text if isinstance(text, str) else ""
    if prompt.reports_scores:  # the benchmark judge's script
        m = _GREEDY_OBJECT.search(text)
        if not m:
            raise AnswerError(f"no JSON object in the answer: {text.strip()[:160]!r}")
        try:
            data = json.loads(m.group(0))
        except ValueError as e:
            raise AnswerError(f"the answer's JSON does not parse: {e}") from None
        return {"by_dim": _released_counts(data, aspects),
                "reported": _benchmark_reported(data, aspects)}
    if prompt.name == "training-6":
        data = _training_json(text)
    else:  # the project's prompt: its own answers may sit in <answer> tags after <think>
        try:
            data = extract_json(text)
        except AnswerError:
            data = {}
    if not (isinstance(data, dict) and "by_dim" in data):
        raise AnswerError(f"invalid judge result (no by_dim): {text.strip()[:120]!r}")
    return {"by_dim": _released_counts(data, aspects), "reported": None}


def read_lists(text: str, aspects: Sequence[str], gt: str) -> dict[str, Any]:
    """``{"by_dim": {aspect: AspectCounts}, "reported": None}``: counts are the lists' lengths.

    :class:`AnswerError` for an answer that does not fit the schema, :class:`Refused` for one
    whose counts and lists disagree (see the module docstring); neither is asked again.
    """
    data = parse_answer(text, aspects)
    dims: dict[str, AspectCounts] = {}
    for a in aspects:
        raw = data["by_dim"][a]
        lists = {k: list(raw[f"{k}_statements"]) for k in ("gt", "pred", "matched")}
        for k, items in lists.items():
            if raw[f"{k}_count"] != len(items):
                raise Refused(f"{a}: the judge reported {k}_count {_short(raw[f'{k}_count'])} but "
                              f"listed {len(items)} {k} statement(s); counts must be the lengths "
                              f"of the lists")
            if any(not str(s).strip() for s in items):
                raise Refused(f"{a}: the judge listed an empty {k} statement")
        if len(lists["matched"]) > min(len(lists["gt"]), len(lists["pred"])):
            raise Refused(f"{a}: the judge listed {len(lists['matched'])} matched statement(s) "
                          f"for {len(lists['gt'])} GT and {len(lists['pred'])} predicted ones")
        dims[a] = AspectCounts(lists["gt"], lists["pred"], lists["matched"], len(lists["gt"]),
                               len(lists["pred"]), len(lists["matched"]))
    if gt.strip() and not any(d.gt_statements for d in dims.values()):
        raise Refused("the judge listed no statement of the GT caption, which is not empty")
    return {"by_dim": dims, "reported": None}


def _short(n: Any) -> str:
    s = str(n)
    return s if len(s) <= 12 else f"{s[:6]}…({len(s)} digits)"


__all__ = ["Refused", "read_lists", "read_released"]
