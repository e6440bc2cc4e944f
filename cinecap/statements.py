"""Atomic statements, the atomic chain-of-thought line format, and model-output parsing.

An atomic statement is one film-language fact about one aspect, optionally bound to a time interval
(the temporal anchor) and to the visible evidence behind it (the spatial anchor). The CoT line
format is the method's (docs/spec/method.md): ``[t_s–t_e] [spatial anchor] → statement`` for dynamic attributes, the
statement alone for static ones. Parsing never raises: malformed input gives a best-effort result
with warnings.
"""
from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable

from cinecap import taxonomy as tx


@dataclass
class Statement:
    """One atomic film-language fact."""

    aspect: str
    value: str  # canonical value (taxonomy)
    text: str = ""  # the statement as a sentence; rendered from the value when empty
    t_start: float | None = None  # seconds; None for static statements
    t_end: float | None = None
    evidence: str = ""  # the spatial anchor, in words a person can check
    subject: str | None = None  # "the man", "the guitarist" (orientation, composition, shot size)
    confidence: float | None = None  # 0..1 where the producer knows it
    measurements: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        tx.get(self.aspect, self.value)  # raises ValueError naming the known values
        if (self.t_start is None) != (self.t_end is None):
            raise ValueError("t_start and t_end must both be set or both be None")
        if self.t_start is not None:
            if not (math.isfinite(self.t_start) and math.isfinite(self.t_end)):
                raise ValueError("interval bounds must be finite numbers")
            if self.t_end < self.t_start or self.t_start < 0:
                raise ValueError(f"bad interval [{self.t_start}, {self.t_end}]")
        if not self.text:
            self.text = sentence_for(self)

    @property
    def has_interval(self) -> bool:
        return self.t_start is not None

    @property
    def judge_class(self) -> str:
        return tx.get(self.aspect, self.value).judge_class

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Statement":
        keys = {f for f in cls.__dataclass_fields__}
        return cls(**{k: v for k, v in d.items() if k in keys})


# --- rendering -------------------------------------------------------------------------------

#: Verb phrase per value, completing "the camera …" / "the shot is …" / "<subject> …".
_PHRASES: dict[tuple[str, str], str] = {
    (tx.CAMERA_MOVEMENT, "static"): "the camera is static",
    (tx.CAMERA_MOVEMENT, "tracking"): "the camera tracks the subject",
    (tx.CAMERA_MOVEMENT, "dolly zoom"): "the camera performs a dolly zoom",
    (tx.CAMERA_MOVEMENT, "handheld shake"): "the camera is handheld with visible shake",
    (tx.SHOT_SIZE, "extreme close-up"): "it is an extreme close-up",
    (tx.SHOT_SIZE, "close-up"): "it is a close-up",
    (tx.SHOT_SIZE, "medium close-up"): "it is a medium close-up",
    (tx.SHOT_SIZE, "medium shot"): "it is a medium shot",
    (tx.SHOT_SIZE, "medium full shot"): "it is a medium full shot",
    (tx.SHOT_SIZE, "full shot"): "it is a full shot",
    (tx.SHOT_SIZE, "wide shot"): "it is a wide shot",
    (tx.SHOT_SIZE, "extreme wide shot"): "it is an extreme wide shot",
    (tx.CAMERA_ANGLE, "eye level"): "the camera is at eye level",
    (tx.CAMERA_ANGLE, "high angle"): "the shot is taken from a high angle",
    (tx.CAMERA_ANGLE, "low angle"): "the shot is taken from a low angle",
    (tx.CAMERA_ANGLE, "overhead"): "the shot is an overhead view",
    (tx.CAMERA_ANGLE, "worm's-eye view"): "the shot is a worm's-eye view",
    (tx.CAMERA_ANGLE, "dutch angle"): "the frame is tilted in a dutch angle",
    (tx.DEPTH_OF_FIELD, "shallow depth of field"): "a shallow depth of field blurs the background",
    (tx.DEPTH_OF_FIELD, "deep focus"): "deep focus keeps the whole scene sharp",
    (tx.DEPTH_OF_FIELD, "ultra-shallow depth of field"):
        "an ultra-shallow depth of field leaves only a thin plane sharp",
    (tx.DEPTH_OF_FIELD, "focus on foreground"): "focus is on the foreground",
    (tx.DEPTH_OF_FIELD, "focus on middle ground"): "focus is on the middle ground",
    (tx.DEPTH_OF_FIELD, "focus on background"): "focus is on the background",
    (tx.DEPTH_OF_FIELD, "rack focus"): "a rack focus shifts the focus plane",
    (tx.DEPTH_OF_FIELD, "focus tracking"): "focus tracks the moving subject",
    (tx.COMPOSITION, "center"): "{subject} is placed at the center of the frame",
    (tx.COMPOSITION, "left"): "{subject} is placed on the left of the frame",
    (tx.COMPOSITION, "right"): "{subject} is placed on the right of the frame",
    (tx.COMPOSITION, "center-left"): "{subject} is placed center-left in the frame",
    (tx.COMPOSITION, "center-right"): "{subject} is placed center-right in the frame",
    (tx.SUBJECT_ORIENTATION, "frontal"): "{subject} faces the camera",
    (tx.SUBJECT_ORIENTATION, "three-quarter"): "{subject} is seen in a three-quarter view",
    (tx.SUBJECT_ORIENTATION, "profile"): "{subject} is seen in profile",
    (tx.SUBJECT_ORIENTATION, "three-quarter back"): "{subject} is seen from a three-quarter back view",
    (tx.SUBJECT_ORIENTATION, "back"): "{subject} has their back to the camera",
    (tx.SPECIAL_SHOTS, "pov"): "it is a POV shot",
    (tx.SPECIAL_SHOTS, "fisheye"): "it is shot through a fisheye lens",
    (tx.SPECIAL_SHOTS, "slow motion"): "it plays in slow motion",
    (tx.SPECIAL_SHOTS, "fast motion"): "it plays in fast motion",
    (tx.SPECIAL_SHOTS, "over the shoulder"): "it is an over-the-shoulder shot",
    (tx.SPECIAL_SHOTS, "timelapse"): "it is a timelapse",
    (tx.SPECIAL_SHOTS, "bullet time"): "it uses a bullet-time effect",
}


def phrase_for(aspect: str, value: str, subject: str | None = None) -> str:
    """The lower-case clause that states ``value`` (e.g. "the camera pans left")."""
    p = _PHRASES.get((aspect, value))
    if p is None:  # the directional camera moves share one shape
        verb, _, rest = value.partition(" ")
        p = f"the camera {verb}s {rest}".strip() if rest else f"the camera performs a {value}"
        p = p.replace("dollys", "dollies")
    return p.format(subject=subject or "the subject")


def sentence_for(st: Statement) -> str:
    clause = phrase_for(st.aspect, st.value, st.subject)
    return clause[0].upper() + clause[1:] + "."


def _fmt_t(t: float) -> str:
    return f"{t:.1f}"


def render_caption(statements: Iterable[Statement], order: str = "aspect") -> str:
    """A fluent professional caption covering every statement.

    ``order="aspect"``: aspect by aspect, each aspect's dynamic statements in time order.
    ``order="time"``: the facts that hold for the whole clip first (aspect by aspect), then the
    timed ones as the clip unfolds — what a reader of a gold caption expects.
    Dynamic statements carry their intervals; statements sharing an interval are joined ("pans
    right and tilts up"); repeated facts are said once.
    """
    if order not in ("aspect", "time"):
        raise ValueError(f"order must be 'aspect' or 'time', not {order!r}")
    sts = list(statements)
    static: list[str] = []
    timed_out: list[tuple[tuple[float, float], int, str]] = []
    for rank, aspect in enumerate(tx.ASPECTS):
        group = _dedupe([s for s in sts if s.aspect == aspect])
        if not group:
            continue
        timed = sorted((s for s in group if s.has_interval), key=lambda s: (s.t_start, s.t_end))
        here = [sentence_for(s) for s in group if not s.has_interval]
        # Group by interval so compound moves read as one sentence.
        by_interval: dict[tuple[float, float], list[Statement]] = {}
        for s in timed:
            by_interval.setdefault((round(s.t_start, 1), round(s.t_end, 1)), []).append(s)
        for (t0, t1), ss in by_interval.items():
            clauses = [phrase_for(s.aspect, s.value, s.subject) for s in ss]
            if aspect == tx.CAMERA_MOVEMENT and len(clauses) > 1:
                clauses = [clauses[0]] + [c.removeprefix("the camera ") for c in clauses[1:]]
            sentence = f"From {_fmt_t(t0)} to {_fmt_t(t1)} s, " + " and ".join(clauses) + "."
            if order == "aspect":
                here.append(sentence)
            else:
                timed_out.append(((t0, t1), rank, sentence))
        static.extend(here)
    return " ".join(static + [text for _, _, text in sorted(timed_out, key=lambda x: x[:2])])


def _dedupe(sts: list[Statement]) -> list[Statement]:
    seen: set[tuple] = set()
    keep = []
    for s in sts:
        key = (s.value, s.subject, None if s.t_start is None else (round(s.t_start, 1), round(s.t_end, 1)))
        if key not in seen:
            seen.add(key)
            keep.append(s)
    return keep


# --- atomic CoT lines ------------------------------------------------------------------------

ARROW = "→"
_DASHES = r"(?:-|–|—|−|~|to)"
_NUM = r"(\d+(?:\.\d+)?)"
_INTERVAL_RE = re.compile(
    rf"^\s*[\[(]\s*{_NUM}\s*s?\s*{_DASHES}\s*{_NUM}\s*s?\s*[\])]\s*", re.IGNORECASE)
_ARROW_RE = re.compile(r"\s*(?:→|->|=>|⟶|⇒|—>|–>)\s*")
_BULLET_RE = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")


@dataclass
class CotLine:
    """One parsed line of atomic chain of thought."""

    statement: str
    anchor: str = ""
    t_start: float | None = None
    t_end: float | None = None
    raw: str = ""


def format_cot_line(st: Statement) -> str:
    """``[t_s–t_e] [anchor] → statement`` for timed statements; the statement alone otherwise."""
    if st.has_interval:
        anchor = st.evidence or "visual evidence"
        return f"[{_fmt_t(st.t_start)}–{_fmt_t(st.t_end)}] [{anchor}] {ARROW} {st.text}"
    return st.text


def format_reasoning(statements: Iterable[Statement]) -> str:
    return "\n".join(format_cot_line(s) for s in statements)


def parse_cot_line(line: str) -> CotLine | None:
    """Parse one CoT line; None for blank lines. Tolerates bullets, odd dashes and arrows."""
    raw = line
    s = _BULLET_RE.sub("", line.strip())
    if not s:
        return None
    t0 = t1 = None
    m = _INTERVAL_RE.match(s)
    if m:
        a, b = float(m.group(1)), float(m.group(2))
        t0, t1 = min(a, b), max(a, b)
        s = s[m.end():]
    anchor = ""
    parts = _ARROW_RE.split(s, maxsplit=1)
    if len(parts) == 2:
        anchor, s = parts[0].strip(), parts[1].strip()
        if anchor.startswith("[") and anchor.endswith("]"):
            anchor = anchor[1:-1].strip()
    elif s.startswith("["):  # "[anchor] statement" with the arrow missing
        close = s.find("]")
        if close > 0:
            anchor, s = s[1:close].strip(), s[close + 1:].strip()
    return CotLine(statement=s.strip(), anchor=anchor, t_start=t0, t_end=t1, raw=raw)


# --- whole model outputs ---------------------------------------------------------------------

@dataclass
class ParsedOutput:
    """A model's output split into reasoning lines and caption, with what was wrong with it."""

    caption: str
    reasoning: str
    lines: list[CotLine]
    warnings: list[str]

    @property
    def well_formed(self) -> bool:
        return not self.warnings


_TAG_RE = re.compile(r"<\s*(/?)\s*(think|answer)\s*>", re.IGNORECASE | re.ASCII)  # not "anſwer"
_FENCE_RE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")
#: Which ``<answer>`` block is the caption when an output holds several: ``first`` (the released
#: inference and reward, docs/spec/method.md) or ``last``.
ANSWER_BLOCKS = ("first", "last")
_RELEASED_ANSWER_RE = re.compile(r"<answer>(.*?)</answer>", re.DOTALL | re.IGNORECASE)
_SPACES_RE = re.compile(r"\s+")


def released_answer(text: Any) -> str:
    r"""The caption exactly as the released code extracts it (inference, reward, README).

    The first complete ``<answer>…</answer>`` block, else the whole text; whitespace runs collapsed
    to one space. Unlike :func:`parse_output` it does not repair anything: an output cut off
    inside its ``<answer>`` block (no closing tag) is judged whole, ``<think>`` included, as the
    release judges it (docs/protocol.md).

    >>> released_answer("<think>r</think><answer> a\n b </answer><answer>c</answer>")
    'a b'
    >>> released_answer("<think>r</think><answer>cut")
    '<think>r</think><answer>cut'
    """
    if text is None:
        return ""
    text = text if isinstance(text, str) else str(text)
    m = _RELEASED_ANSWER_RE.search(text)
    return _SPACES_RE.sub(" ", m.group(1) if m else text).strip()


def parse_output(text: Any, answer: str = "first") -> ParsedOutput:
    """Split ``<think>…</think><answer>…</answer>`` into reasoning and caption.

    With no tags the whole text is the caption (docs/spec/method.md). Missing closing tags, repeated or
    stray tags, code fences and non-text input give a best-effort result and warnings. Of several
    ``<answer>`` blocks the ``first`` is the caption, as released (``answer="last"`` keeps the
    last one).
    """
    if answer not in ANSWER_BLOCKS:
        raise ValueError(f"answer must be one of {', '.join(ANSWER_BLOCKS)}, not {answer!r}")
    warnings: list[str] = []
    if text is None:
        return ParsedOutput("", "", [], ["the output is empty"])
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
        warnings.append("the output was bytes; decoded as UTF-8")
    elif not isinstance(text, str):
        warnings.append(f"the output was a {type(text).__name__}, not text")
        text = str(text)
    text = text.replace("\x00", "").strip()
    text = _FENCE_RE.sub("", text).strip()
    if not text:
        return ParsedOutput("", "", [], warnings + ["the output is empty"])

    spans: dict[str, list[str]] = {"think": [], "answer": []}
    open_tag: tuple[str, int] | None = None
    outside: list[str] = []
    pos = 0
    for m in _TAG_RE.finditer(text):
        closing, name = m.group(1) == "/", m.group(2).lower()
        chunk = text[pos:m.start()]
        if open_tag is None:
            outside.append(chunk)
            if closing:
                # "</think>" with no opener: what came before it was the reasoning.
                if name == "think" and not spans["think"]:
                    spans["think"].append("".join(outside))
                    outside = []
                warnings.append(f"closing </{name}> without an opening tag")
            else:
                open_tag = (name, m.end())
        else:
            cur = open_tag[0]
            if closing and name == cur:
                spans[cur].append(text[open_tag[1]:m.start()])
                open_tag = None
            elif closing:
                warnings.append(f"</{name}> closes <{cur}>")
                spans[cur].append(text[open_tag[1]:m.start()])
                open_tag = None
            else:
                warnings.append(f"<{name}> opened inside <{cur}>")
                spans[cur].append(text[open_tag[1]:m.start()])
                open_tag = (name, m.end())
        pos = m.end()
    tail = text[pos:]
    if open_tag is not None:
        spans[open_tag[0]].append(text[open_tag[1]:])
        warnings.append(f"<{open_tag[0]}> is never closed (truncated output?)")
    else:
        outside.append(tail)

    reasoning = "\n".join(s.strip() for s in spans["think"] if s.strip())
    if spans["answer"]:
        answers = [s.strip() for s in spans["answer"] if s.strip()]
        if len(answers) > 1:
            warnings.append(f"{len(answers)} <answer> blocks; the {answer} one is used")
        caption = (answers[0] if answer == "first" else answers[-1]) if answers else ""
        if not caption:
            warnings.append("the <answer> block is empty")
    else:
        caption = " ".join(s.strip() for s in outside if s.strip())
        if spans["think"] and not caption:
            warnings.append("no <answer> block and no text after the reasoning")
        elif spans["think"]:
            warnings.append("no <answer> block; the text after the reasoning is used")
    lines = [cl for cl in (parse_cot_line(ln) for ln in reasoning.splitlines()) if cl]
    return ParsedOutput(caption=caption, reasoning=reasoning, lines=lines, warnings=warnings)


def wrap_output(reasoning: str, caption: str) -> str:
    """The model-output form: ``<think>reasoning</think><answer>caption</answer>``."""
    return f"<think>\n{reasoning}\n</think>\n<answer>\n{caption}\n</answer>"
