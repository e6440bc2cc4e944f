"""Model text → :class:`CaptionResult`, shared by every model-backed captioner (vlm, openai).

The caption is the ``<answer>`` text, the reasoning the ``<think>`` text (``parse_output``); the
statements come from decomposing the caption (``cinecap.language.decompose``), and each gets the
temporal and spatial anchor of the reasoning line that states the same value, where there is one.
Never raises on odd text: gibberish gives an empty or statement-less result with warnings.
"""
from __future__ import annotations

from typing import Any

from cinecap import taxonomy as tx
from cinecap.captioners.base import CaptionResult
from cinecap.language.decompose import decompose
from cinecap.statements import CotLine, Statement, parse_output


def _line_statements(lines: list[CotLine]) -> list[tuple[CotLine, Statement]]:
    out = []
    for line in lines:
        for st in decompose(line.statement):
            out.append((line, st))
    return out


def _overlaps(st: Statement, line: CotLine) -> bool:
    if st.t_start is None or line.t_start is None:
        return True
    return st.t_start <= line.t_end and line.t_start <= st.t_end


def attach_anchors(statements: list[Statement], lines: list[CotLine]) -> list[Statement]:
    """Give each caption statement the interval and evidence of a reasoning line of the same value.

    A line is used once; among candidates, one whose interval overlaps the statement's wins.
    Intervals are attached only to dynamic values (static facts carry none: docs/spec/method.md).
    """
    pool = _line_statements(lines)
    used: set[int] = set()
    out = []
    for st in statements:
        best = None
        for i, (line, lst) in enumerate(pool):
            if i in used or lst.aspect != st.aspect or lst.judge_class != st.judge_class:
                continue
            if not _overlaps(st, line):
                continue
            best = i
            break
        if best is None:
            out.append(st)
            continue
        used.add(best)
        line, _ = pool[best]
        t0, t1 = st.t_start, st.t_end
        if t0 is None and line.t_start is not None and tx.is_dynamic(st.aspect, st.value):
            t0, t1 = line.t_start, line.t_end
        out.append(Statement(aspect=st.aspect, value=st.value, text=st.text, t_start=t0, t_end=t1,
                             evidence=st.evidence or line.anchor, subject=st.subject,
                             confidence=st.confidence, measurements=dict(st.measurements)))
    return out


def result_from_text(text: Any, captioner: str, seconds: float = 0.0,
                     meta: dict[str, Any] | None = None,
                     warnings: list[str] | None = None) -> CaptionResult:
    """Parse one model output into a result; what was wrong with it goes into ``warnings``."""
    parsed = parse_output(text)
    notes = list(warnings or []) + list(parsed.warnings)
    statements = attach_anchors(decompose(parsed.caption), parsed.lines) if parsed.caption else []
    if not parsed.caption:
        if "the output is empty" not in notes:
            notes.append("the caption is empty")
    elif not statements:
        notes.append("the caption states no film-language fact that could be recognised")
    info = dict(meta or {})
    info["well_formed"] = parsed.well_formed and bool(statements)
    info["raw_output"] = text if isinstance(text, str) else str(text)
    return CaptionResult(caption=parsed.caption, reasoning=parsed.reasoning, statements=statements,
                         captioner=captioner, seconds=seconds, warnings=notes, meta=info)
