"""Training data from gold pairs: the JSONL contract, the split by clip, SFT targets, GRPO prompts.

The contract (``cinecap-gold-pairs/1``; the app's export writes it, docs/training.md documents it):
one JSON object per line,

    {"video_path": "clips/a.mp4",              # required; relative paths are from the file's folder
     "gt_caption": "The camera pans left …",   # required: the gold caption (text, not empty)
     "statements": [                           # optional: the gold atomic statements
        {"aspect": "Camera Movement", "value": "pan left", "text": "The camera pans left.",
         "t_start": 0.0, "t_end": 2.5, "evidence": "the background slides right", "subject": null}],
     "id": "pair-17"}                          # optional: a stable id (default: the line number)

Without ``statements`` the gold caption is decomposed (``cinecap.language.decompose``). A JSON
list of the same objects (the bench format, ``{video_path, gt_caption}``) is read too.

Nothing here imports torch: the data is checked, hashed and split before any model loads.
"""
from __future__ import annotations

import hashlib
import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from cinecap import taxonomy as tx
from cinecap.errors import InputError
from cinecap.files import sha256_file
from cinecap.statements import ARROW, Statement, format_cot_line, parse_output, wrap_output

log = logging.getLogger(__name__)

FORMAT = "cinecap-gold-pairs/1"
#: Characters that would break a CoT line if they appeared inside its spatial anchor.
_ANCHOR_BREAKERS = re.compile(r"[\[\]\n\r]|→|->|=>|⟶|⇒")

#: clip path → the anchors' statements for it (evidence for statements that have none).
AnchorsFn = Callable[[Path], dict]


@dataclass(frozen=True)
class GoldPair:
    """One (clip, gold caption) pair with its gold statements, as read from the data file."""

    index: int  # position in the file (0-based)
    id: str
    video_path: Path  # absolute
    gt_caption: str
    statements: tuple[Statement, ...] | None  # None: not given; decompose the caption
    clip_id: str = ""  # sha256 of the clip file: the unit of the split

    def to_record(self) -> dict[str, Any]:
        """The JSONL object (paths absolute), as written back by exports."""
        rec: dict[str, Any] = {"id": self.id, "video_path": str(self.video_path),
                               "gt_caption": self.gt_caption}
        if self.statements is not None:
            rec["statements"] = [s.to_dict() for s in self.statements]
        return rec


@dataclass(frozen=True)
class Split:
    """Train / held-out by clip, deterministic in (seed, eval_fraction, clip hashes)."""

    seed: int
    eval_fraction: float
    train: tuple[int, ...]  # pair indices
    heldout: tuple[int, ...]
    train_clips: tuple[str, ...]  # clip ids
    heldout_clips: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"seed": self.seed, "eval_fraction": self.eval_fraction, "unit": "clip",
                "train_pairs": list(self.train), "heldout_pairs": list(self.heldout),
                "train_clips": list(self.train_clips), "heldout_clips": list(self.heldout_clips)}


@dataclass
class Dataset:
    """The pairs of one data file, its hash and its split."""

    path: Path
    pairs: list[GoldPair]
    data_hash: str
    split: Split

    @property
    def train_pairs(self) -> list[GoldPair]:
        return [self.pairs[i] for i in self.split.train]

    @property
    def heldout_pairs(self) -> list[GoldPair]:
        return [self.pairs[i] for i in self.split.heldout]

    def info(self) -> dict[str, Any]:
        """What ``data.json`` of a model version records."""
        return {"format": FORMAT, "data_file": str(self.path), "data_hash": self.data_hash,
                "pairs": len(self.pairs), "clips": len({p.clip_id for p in self.pairs}),
                "split": self.split.to_dict(),
                "clip_paths": {p.clip_id: str(p.video_path) for p in self.pairs}}


# --- reading ------------------------------------------------------------------------------------

def _records(path: Path) -> list[tuple[int, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path.name} is not UTF-8 text") from None
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise InputError(f"{path.name} is not valid JSON: {e}") from None
        return [(i + 1, rec) for i, rec in enumerate(data)]
    out = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append((n, json.loads(line)))
        except json.JSONDecodeError as e:
            raise InputError(f"{path.name} line {n} is not valid JSON: {e.msg}") from None
    return out


def _statement(raw: Any, where: str) -> Statement:
    if not isinstance(raw, dict):
        raise InputError(f"{where}: each statement must be an object with aspect and value")
    try:
        return Statement.from_dict(raw)
    except (TypeError, ValueError) as e:
        raise InputError(f"{where}: bad statement {raw.get('value')!r}: {e}") from None


def load_pairs(path: str | Path) -> list[GoldPair]:
    """Read and check a gold-pairs file. Every problem names its line and what to fix."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"data file {str(path)!r} does not exist")
    pairs: list[GoldPair] = []
    seen_ids: set[str] = set()
    clip_hashes: dict[Path, str] = {}
    for n, rec in _records(path):
        where = f"{path.name} line {n}"
        if not isinstance(rec, dict):
            raise InputError(f"{where}: expected an object with video_path and gt_caption")
        video, caption = rec.get("video_path"), rec.get("gt_caption")
        if not isinstance(video, str) or not video.strip():
            raise InputError(f"{where}: video_path is missing")
        if not isinstance(caption, str) or not caption.strip():
            raise InputError(f"{where}: gt_caption is missing or empty")
        clip = Path(video).expanduser()
        clip = clip if clip.is_absolute() else (path.parent / clip)
        clip = clip.resolve()
        if not clip.is_file():
            raise InputError(f"{where}: clip {video!r} does not exist (paths are relative to "
                             f"the data file's folder)")
        raw_sts = rec.get("statements")
        statements = None
        if raw_sts is not None:
            if not isinstance(raw_sts, list):
                raise InputError(f"{where}: statements must be a list")
            statements = tuple(_statement(s, where) for s in raw_sts)
        pid = str(rec.get("id", n))
        if pid in seen_ids:
            raise InputError(f"{where}: id {pid!r} appears twice")
        seen_ids.add(pid)
        if clip not in clip_hashes:
            clip_hashes[clip] = sha256_file(clip)
        pairs.append(GoldPair(len(pairs), pid, clip, " ".join(caption.split()), statements,
                              clip_hashes[clip]))
    if not pairs:
        raise InputError(f"{path.name} holds no gold pairs")
    return pairs


def data_hash(pairs: Iterable[GoldPair]) -> str:
    """sha256 over the pairs' content: captions, statements and clip bytes, not their paths.

    Moving the clips or the file keeps the hash; editing a caption or re-encoding a clip changes it.
    """
    h = hashlib.sha256(FORMAT.encode())
    for p in pairs:
        rec = {"id": p.id, "clip": p.clip_id, "gt_caption": p.gt_caption,
               "statements": None if p.statements is None else [s.to_dict() for s in p.statements]}
        h.update(json.dumps(rec, sort_keys=True, ensure_ascii=False).encode())
        h.update(b"\n")
    return h.hexdigest()


def _unit(seed: int, clip_id: str) -> float:
    digest = hashlib.sha256(f"{seed}:{clip_id}".encode()).hexdigest()
    return int(digest[:15], 16) / 16 ** 15


def split_by_clip(pairs: list[GoldPair], eval_fraction: float, seed: int) -> Split:
    """Held-out clips are those whose hash with the seed falls under ``eval_fraction``.

    Every pair of a clip lands on the clip's side; a clip's side does not depend on the other
    clips, so adding data never moves a clip across.
    """
    clips = sorted({p.clip_id for p in pairs})
    held = {c for c in clips if _unit(seed, c) < eval_fraction}
    if len(held) == len(clips):
        raise InputError(f"eval_fraction {eval_fraction} leaves no clip to train on "
                         f"({len(clips)} clips); lower it")
    train = tuple(p.index for p in pairs if p.clip_id not in held)
    heldout = tuple(p.index for p in pairs if p.clip_id in held)
    return Split(seed, eval_fraction, train, heldout,
                 tuple(c for c in clips if c not in held), tuple(c for c in clips if c in held))


def load_dataset(path: str | Path, eval_fraction: float, seed: int) -> Dataset:
    pairs = load_pairs(path)
    return Dataset(Path(path).resolve(), pairs, data_hash(pairs),
                   split_by_clip(pairs, eval_fraction, seed))


# --- atomic chain-of-thought targets ---------------------------------------------------------------

def _clean_anchor(text: str) -> str:
    return " ".join(_ANCHOR_BREAKERS.sub(" ", text or "").split())


def _overlap(a: Statement, b: Statement) -> bool:
    if not (a.has_interval and b.has_interval):
        return True
    return a.t_start <= b.t_end and b.t_start <= a.t_end


def gold_statements(pair: GoldPair) -> list[Statement]:
    """The pair's statements: the stored ones, else the gold caption decomposed (sentences)."""
    if pair.statements is not None:
        return list(pair.statements)
    from cinecap.language.decompose import decompose

    out = []
    for st in decompose(pair.gt_caption):
        st = Statement(st.aspect, st.value, "", st.t_start, st.t_end, st.evidence, st.subject)
        out.append(st)  # text re-rendered as a full sentence by Statement itself
    return out


def _needs_evidence(st: Statement) -> bool:
    return tx.is_dynamic(st.aspect, st.value) and not (st.has_interval and st.evidence)


@dataclass(frozen=True)
class Checked:
    """A pair's statements after the pixels were asked: what goes into the CoT, how many timed
    ones still lack evidence, and the statements the pixels contradict (kept or dropped)."""

    statements: list[Statement]
    timed_without_evidence: int
    contradicted: list[dict[str, Any]]
    dropped: int = 0


def with_evidence(statements: list[Statement], clip: Path, anchors: AnchorsFn | None,
                  contradicted: str = "keep") -> Checked:
    """Verify each statement against the clip's analysis (:mod:`cinecap.verify`) and fill the
    interval and spatial anchor of timed statements that lack them from the evidence that
    supports them. A statement the pixels contradict is reported, and kept or dropped
    (``contradicted``: keep | drop). Without ``anchors`` nothing is analysed or checked."""
    if anchors is None:
        return Checked(list(statements), sum(_needs_evidence(s) for s in statements), [])
    from cinecap.verify import CONTRADICTED, SUPPORTED, verify

    verdicts = verify(anchors(clip), statements)
    out, still, flagged, dropped = [], 0, [], 0
    for st, v in zip(statements, verdicts):
        if v.verdict == CONTRADICTED:
            flagged.append({"aspect": st.aspect, "value": st.value, "t_start": st.t_start,
                            "t_end": st.t_end, "reason": v.reason})
            if contradicted == "drop":
                dropped += 1
                continue
        if _needs_evidence(st) and v.verdict == SUPPORTED and v.anchor and v.span:
            t0, t1 = (st.t_start, st.t_end) if st.has_interval else v.span
            st = Statement(st.aspect, st.value, st.text, round(t0, 2), round(t1, 2),
                           st.evidence or v.anchor, st.subject, st.confidence,
                           dict(st.measurements))
        still += _needs_evidence(st)
        out.append(st)
    return Checked(out, still, flagged, dropped)


def cot_line(st: Statement) -> str:
    """One atomic CoT line (docs/spec/method.md): ``[t_s–t_e] [anchor] → statement`` for a timed
    statement with evidence, ``[t_s–t_e] → statement`` for one without, the statement alone for a
    static one. Brackets, arrows and line breaks inside the texts are dropped so it parses back."""
    text = _clean_anchor(st.text)
    if not st.has_interval:
        return text
    anchor = _clean_anchor(st.evidence)
    if anchor:
        return format_cot_line(Statement(st.aspect, st.value, text, st.t_start, st.t_end, anchor,
                                         st.subject))
    return f"[{st.t_start:.1f}–{st.t_end:.1f}] {ARROW} {text}"


def sft_target(pair: GoldPair, cot: str = "atomic", anchors: AnchorsFn | None = None,
               contradicted: str = "keep") -> dict[str, Any]:
    """The assistant turn for one pair, and how it was made.

    ``atomic``: ``<think>`` one line per gold statement (``[t_s–t_e] [anchor] → statement`` for
    timed ones, the statement alone for static ones) ``</think><answer>`` gold caption
    ``</answer>``. ``direct``: ``<answer>`` gold caption ``</answer>``. Either parses back with
    :func:`cinecap.statements.parse_output` without warnings (checked here).
    """
    caption = pair.gt_caption
    if cot == "direct":
        text = f"<answer>\n{caption}\n</answer>"
        lines, checked = 0, Checked([], 0, [])
    else:
        checked = with_evidence(gold_statements(pair), pair.video_path, anchors, contradicted)
        sts = checked.statements
        if checked.dropped:  # the answer says no more than the CoT lines that remain
            from cinecap.statements import render_caption

            caption = render_caption(sts, order="time")
        reasoning = "\n".join(cot_line(s) for s in sts)
        text = wrap_output(reasoning, caption)
        lines = len(sts)
    parsed = parse_output(text)
    if parsed.warnings or parsed.caption != caption:
        raise InputError(f"pair {pair.id!r}: its gold caption does not survive as a model output "
                         f"({'; '.join(parsed.warnings) or 'the caption changed'}); remove any "
                         f"<think>/<answer> tags from gt_caption")
    if cot == "atomic" and len(parsed.lines) != lines:
        raise InputError(f"pair {pair.id!r}: a statement spans several lines; keep statement "
                         f"texts on one line")
    return {"text": text, "cot_lines": lines,
            "timed_without_evidence": checked.timed_without_evidence,
            "contradicted": checked.contradicted, "dropped": checked.dropped}


def anchors_evidence(cache: dict[Path, dict] | None = None) -> AnchorsFn:
    """An :data:`AnchorsFn`: each clip's analysis (as the ``anchors`` captioner makes it, the
    ``analyze --json`` dict), once per clip."""
    cache = {} if cache is None else cache

    def run(clip: Path) -> dict:
        if clip not in cache:
            from cinecap.verify import analysis_of

            log.info("anchors analysis of %s (evidence for the CoT lines)", clip.name)
            cache[clip] = analysis_of(clip)
        return cache[clip]

    return run


@dataclass(frozen=True)
class SFTSample:
    """One supervised sample: the clip, and the assistant text to learn."""

    index: int  # the pair's index in the file
    pair_id: str
    video_path: str
    target: str
    cot_lines: int = 0
    timed_without_evidence: int = 0
    #: The pair's gold statements the pixels contradict (cinecap.verify), each with the reason.
    contradicted: tuple[dict, ...] = ()
    dropped: int = 0  # of those, left out of the target (SFTConfig.contradicted = drop)


def sft_samples(pairs: Iterable[GoldPair], cot: str = "atomic",
                anchors: AnchorsFn | None = None, contradicted: str = "keep") -> list[SFTSample]:
    out = []
    for p in pairs:
        t = sft_target(p, cot, anchors, contradicted)
        out.append(SFTSample(p.index, p.id, str(p.video_path), t["text"], t["cot_lines"],
                             t["timed_without_evidence"], tuple(t["contradicted"]),
                             t["dropped"]))
    return out


def samples_summary(samples: Iterable[SFTSample], cot: str, contradicted: str) -> dict[str, Any]:
    """What a round's data summary says of its SFT targets: CoT lines, timed statements without
    evidence, and every gold statement the pixels contradict (count and list, kept or dropped)."""
    samples = list(samples)
    flagged = [{"pair": s.pair_id, **c} for s in samples for c in s.contradicted]
    return {"cot": cot, "cot_lines": sum(s.cot_lines for s in samples),
            "timed_without_evidence": sum(s.timed_without_evidence for s in samples),
            "contradicted": len(flagged), "contradicted_policy": contradicted,
            "contradicted_dropped": sum(s.dropped for s in samples),
            "contradicted_statements": flagged}


@dataclass(frozen=True)
class GRPOPrompt:
    """One GRPO prompt: the clip (the prompt is the released one) and the gold caption for the reward."""

    index: int
    pair_id: str
    video_path: str
    gt_caption: str
    clip_id: str = field(default="")


def grpo_prompts(pairs: Iterable[GoldPair]) -> list[GRPOPrompt]:
    return [GRPOPrompt(p.index, p.id, str(p.video_path), p.gt_caption, p.clip_id) for p in pairs]
