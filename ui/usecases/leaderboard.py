"""The leaderboard: every finished bench run and the paper's published figures as entries, ranked
only where they are comparable; filters, sorting, search, the per-aspect chart's data, an entry's
per-clip results, CSV.

**Comparable.** Two measured entries rank against each other only when they share the bench file
(content hash), its number of clips, the aspects, and the whole judge protocol
(:mod:`ui.usecases.bench`). Each such set is a *group*, lettered A, B, …; an entry's rank is its
place by F1 inside its group. An entry whose protocol is partly unknown (a results file from
before protocols were recorded) is shown and never ranked. The paper's figures are *reported*,
not measured here: they rank among themselves only (``R1``, ``R2``), always marked.

**Measured here, or submitted.** An entry is *measured* only when this server judged it (a run
made here, or an uploaded results file judged again here: ``ui.usecases.bench.judged_here``).
Any other uploaded file is *submitted (self-reported)*: shown with its own scores, never ranked.
**Failed clips count.** A clip whose caption or judgement failed scores 0 in an entry's F1,
s_cmp, s_acc and per-aspect *all clips* means (the library's means leave it out: a run judged on
1 clip of 2 was ranked first at F1 100.00), and the note says "judged 1, failed 1"; a run where
every judgement failed is not ranked.

**Two averaging conventions per aspect** (``cinecap/judge/scores.py``): *all clips* — the mean of
s_cmp and s_acc over every judged clip, 0 where the aspect is absent (the released code's, and the
paper's per-aspect numbers); *present only* — s_cmp averaged over the clips whose gold caption has
the aspect, s_acc over the clips whose caption states it (0 when none does), their mean; blank
when no gold caption has the aspect.
"""
from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from cinecap import taxonomy as tx
from cinecap.judge.limits import judge_limits
from db.records import BenchItemRecord, BenchRunRecord, UserRecord
from db.roles import require_role
from db.store import Store
from ui.usecases.bench import get_run, judged_here, unknown_parts

CONVENTIONS = {"all": "all clips (released)", "present": "clips where present"}
REPORTED_GROUP = "reported"
#: Sort keys besides the aspects.
SORTS = ("rank", "F1", "comprehensiveness", "accuracy", "date", "model")
PAPER = "the CineCap paper (arXiv 2606.24636), CineCap-Bench"


@dataclass(frozen=True)
class Entry:
    """One row of the leaderboard (a finished run, or a figure the paper reports)."""

    key: str  # "12" for bench run #12, "R1" for a reported figure
    kind: str  # "measured" | "submitted" (self-reported, not judged here) | "reported"
    model: str
    family: str
    version: str
    round: int | None
    captioner: str
    judge: str  # name and version
    bench: str
    bench_sha256: str
    items: int | None
    date: str
    f1: float | None
    comprehensiveness: float | None
    accuracy: float | None
    aspects_all: dict[str, float | None]
    aspects_present: dict[str, float | None]
    protocol: dict[str, Any]
    group: str = ""  # "A", "B", …, "reported"; "" when not ranked
    rank: int | None = None
    group_size: int = 0
    note: str = ""

    @property
    def label(self) -> str:
        """How the chart's picker and the per-clip view name the entry."""
        if self.kind == "reported":
            return f"{self.key} {self.model} (reported)"
        rank = f"{self.group}{self.rank}" if self.rank else "not ranked"
        return f"#{self.key} {self.model} ({rank}) · {self.judge} · {self.bench}"

    def aspect(self, name: str, convention: str = "all") -> float | None:
        return (self.aspects_all if convention == "all" else self.aspects_present).get(name)


@dataclass(frozen=True)
class Group:
    letter: str
    bench: str
    bench_sha256: str
    items: int | None
    aspects: int
    protocol: dict[str, Any]
    size: int


@dataclass(frozen=True)
class Filters:
    bench: str = ""  # a bench name; "" for all
    judge: str = ""  # a judge label ("rules 1.18"); "" for all
    family: str = ""
    search: str = ""
    sort: str = "rank"  # one of SORTS or an aspect name
    descending: bool = True
    convention: str = "all"  # per-aspect averaging: "all" | "present"
    reported: bool = True  # include the paper's figures


@dataclass
class Board:
    entries: list[Entry]  # filtered and sorted
    groups: list[Group]  # the groups of the entries shown
    total: int  # entries before filtering
    benches: list[str] = field(default_factory=list)  # filter choices, over every entry
    judges: list[str] = field(default_factory=list)
    families: list[str] = field(default_factory=list)
    unranked: list[Entry] = field(default_factory=list)  # shown, not ranked (and why)


# --- the paper's figures ------------------------------------------------------------------------

#: What the paper states on CineCap-Bench, and nothing more (percent → fraction). Per-aspect
#: numbers are the mean of s_cmp and s_acc (the *all clips* convention); F1 as the paper reports
#: it. The paper gives the other baselines only as ranges ("~40–52" on camera movement), which are
#: not numbers to enter.
REPORTED: tuple[dict[str, Any], ...] = (
    {"model": "CineCap-GRPO-8B", "f1": 0.7357,
     "aspects": {tx.CAMERA_MOVEMENT: 0.5744, "Depth of Field": 0.8129, "Camera Angle": 0.8920}},
    {"model": "Gemini-3.1-Pro", "f1": 0.5245, "aspects": {}},
)
REPORTED_PROTOCOL = {"judge": "gemini-3.1-pro", "judge_version": "unknown", "prompt": "unknown",
                     "counting": "unknown", "judged_text": "unknown", "f1": "as the paper reports",
                     "aspects": "unknown", "sampling": "unknown"}


def reported_entries() -> list[Entry]:
    from ui.usecases.bench import model_family

    out = []
    for i, r in enumerate(sorted(REPORTED, key=lambda r: -r["f1"]), 1):
        out.append(Entry(
            key=f"R{i}", kind="reported", model=r["model"], family=model_family(r["model"]),
            version="", round=None, captioner="", judge="gemini-3.1-pro (paper)",
            bench="CineCap-Bench (paper)", bench_sha256="", items=472, date="",
            f1=r["f1"], comprehensiveness=None, accuracy=None,
            aspects_all={a: r["aspects"].get(a) for a in tx.ASPECTS},
            aspects_present={a: None for a in tx.ASPECTS}, protocol=dict(REPORTED_PROTOCOL),
            group=REPORTED_GROUP, rank=i, group_size=len(REPORTED),
            note=f"reported in {PAPER}; not measured here"))
    return out


# --- entries from runs --------------------------------------------------------------------------

def _aspect_values(scores: Mapping[str, Any] | None) -> tuple[dict, dict]:
    every, present = {}, {}
    by_aspect = (scores or {}).get("by_aspect") or {}
    for a in tx.ASPECTS:
        g = by_aspect.get(a)
        if not isinstance(g, dict):
            every[a] = present[a] = None
            continue
        every[a] = g.get("mean_all_clips")
        if every[a] is None and g.get("cmp_all_clips") is not None:
            every[a] = (g["cmp_all_clips"] + g["acc_all_clips"]) / 2
        cmp_present = g.get("cmp_present_only")
        present[a] = None if cmp_present is None else (cmp_present
                                                       + (g.get("acc_present_only") or 0.0)) / 2
    return every, present


def judge_label(judge: str, version: str) -> str:
    return f"{judge} {version}".strip()


SUBMITTED = "submitted"
SUBMITTED_NOTE = ("submitted (self-reported): the uploaded file's own scores; this server did not "
                  "judge it (the store has no gold captions of its bench), so it is not ranked")


def failures(run: BenchRunRecord) -> int:
    """Clips of ``run`` without a judgement: failed captions and failed judgements."""
    return max(0, run.items - run.judged) if run.items else run.failed + run.failed_captions


def run_entry(run: BenchRunRecord) -> Entry:
    """The run's entry, its note ending with what its judge's score is worth."""
    e = _entry(run)
    return _with(e, note="; ".join(filter(None, [e.note, judge_limits(run.judge) or ""])))


def _entry(run: BenchRunRecord) -> Entry:
    every, present = _aspect_values(run.scores)
    failed = failures(run)
    # A failed clip scores 0: the means over the judged clips, scaled to all the clips (F1 is
    # the harmonic mean of the two, so it scales the same way).
    share = run.judged / (run.judged + failed) if run.judged + failed else 0.0

    def counted(v: float | None) -> float | None:
        return None if v is None else v * share

    every = {a: counted(v) for a, v in every.items()}
    note = f"judged {run.judged}, failed {failed}" if failed else ""
    measured = judged_here(run)
    return Entry(key=str(run.id), kind="measured" if measured else SUBMITTED,
                 model=run.model, family=run.model_family,
                 version=run.model_version, round=run.round, captioner=run.captioner,
                 judge=judge_label(run.judge, run.judge_version), bench=run.bench_name,
                 bench_sha256=run.bench_sha256, items=run.items,
                 date=(run.run_date or f"{run.created_at:%Y-%m-%dT%H:%M:%S}")[:19].replace(
                     "T", " "),
                 f1=counted(run.f1), comprehensiveness=counted(run.comprehensiveness),
                 accuracy=counted(run.accuracy), aspects_all=every, aspects_present=present,
                 protocol=dict(run.protocol),
                 note="; ".join(filter(None, [note, "" if measured else SUBMITTED_NOTE])))


def _ranked(runs: Sequence[BenchRunRecord]) -> tuple[list[Entry], list[Group]]:
    """Entries of ``runs`` with their group and rank (by F1 inside the group)."""
    groups: dict[tuple, list[tuple[BenchRunRecord, Entry]]] = {}
    loose = []
    def limits(e: Entry, run: BenchRunRecord) -> Entry:
        return _with(e, note="; ".join(filter(None, [e.note, judge_limits(run.judge) or ""])))

    for run in runs:
        e = _entry(run)
        if e.kind == SUBMITTED:
            loose.append(limits(e, run))
            continue
        if not run.judged:
            loose.append(limits(_with(e, note="not ranked: every judgement failed "
                                             f"({e.note or 'judged 0'})"), run))
            continue
        missing = unknown_parts(run.protocol)
        if missing:
            loose.append(limits(_with(e, note="; ".join(filter(None, [
                f"not ranked: the protocol does not say {', '.join(missing)} (a results file "
                "from before protocols were recorded)", e.note]))), run))
            continue
        e = limits(e, run)
        key = (run.bench_sha256, run.items, tuple(run.aspects), run.protocol_key)
        groups.setdefault(key, []).append((run, e))
    entries, out_groups = [], []
    # Groups by bench, then the one with most entries first (ties: the best F1).
    order = sorted(groups.items(), key=lambda kv: (
        kv[1][0][0].bench_name, -len(kv[1]), -max((e.f1 or 0.0) for _, e in kv[1]), kv[0]))
    for n, (key, members) in enumerate(order):
        letter = _letter(n)
        run0 = members[0][0]
        out_groups.append(Group(letter, run0.bench_name, run0.bench_sha256, run0.items,
                                len(run0.aspects), dict(run0.protocol), len(members)))
        by_f1 = sorted(members, key=lambda m: (-(m[1].f1 if m[1].f1 is not None else -1),
                                               m[0].id))
        rank, last = 0, None
        for place, (_, e) in enumerate(by_f1, 1):
            score = None if e.f1 is None else round(e.f1, 9)
            rank = rank if place > 1 and score == last else place  # ties share a rank
            last = score
            entries.append(_with(e, group=letter, rank=rank, group_size=len(members)))
    return entries + loose, out_groups


def _letter(n: int) -> str:
    out = ""
    n += 1
    while n:
        n, r = divmod(n - 1, 26)
        out = chr(65 + r) + out
    return out


def _with(e: Entry, **changes: Any) -> Entry:
    from dataclasses import replace

    return replace(e, **changes)


def board(store: Store, user: UserRecord, filters: Filters = Filters()) -> Board:
    """The leaderboard for ``filters``: one query for the runs, ranks over every entry (a search
    does not change a rank), then filtered and sorted. Everyone may read it."""
    require_role(user.role, "viewer", "reading the leaderboard")
    entries, groups = _ranked(store.bench_runs.list())
    reported = reported_entries()
    every = entries + reported
    benches = sorted({e.bench for e in every})
    judges = sorted({e.judge for e in every})
    families = sorted({e.family for e in every}, key=str.lower)
    shown = [e for e in (entries + (reported if filters.reported else [])) if _keep(e, filters)]
    shown = _sorted(shown, filters)
    letters = {e.group for e in shown}
    kept_groups = [g for g in groups if g.letter in letters]
    if any(e.kind == "reported" for e in shown):
        kept_groups.append(Group(REPORTED_GROUP, "CineCap-Bench (paper)", "", 472, 0,
                                 dict(REPORTED_PROTOCOL), len(reported)))
    return Board(shown, kept_groups, len(every), benches, judges, families,
                 [e for e in shown if e.kind != "reported" and e.rank is None])


def _keep(e: Entry, f: Filters) -> bool:
    if f.bench and e.bench != f.bench:
        return False
    if f.judge and e.judge != f.judge:
        return False
    if f.family and e.family != f.family:
        return False
    words = f.search.strip().lower().split()
    if words:
        hay = " ".join(map(str, (e.key, e.model, e.family, e.version, e.captioner, e.judge,
                                 e.bench, e.kind, e.round or "", *e.protocol.values()))).lower()
        return all(w in hay for w in words)
    return True


def _sorted(entries: list[Entry], f: Filters) -> list[Entry]:
    if f.sort == "rank":
        # Group by group, best first inside each; reported after the measured; unranked last.
        def key(e: Entry):
            return (e.rank is None, e.group == REPORTED_GROUP, len(e.group), e.group,
                    e.rank or 0, -(e.f1 or 0.0), e.key)
        out = sorted(entries, key=key)
        return out if f.descending else list(reversed(out))
    value = _sort_value(f.sort, f.convention)
    known = [e for e in entries if value(e) is not None]
    blank = [e for e in entries if value(e) is None]
    return sorted(known, key=value, reverse=f.descending) + blank  # blanks last, either way


def _sort_value(sort: str, convention: str):
    if sort in ("F1", "f1"):
        return lambda e: e.f1
    if sort in ("comprehensiveness", "accuracy"):
        return lambda e: getattr(e, sort)
    if sort == "date":
        return lambda e: e.date or None
    if sort == "model":
        return lambda e: e.model.lower()
    if sort in tx.ASPECTS:
        return lambda e: e.aspect(sort, convention)
    from cinecap.errors import InputError

    raise InputError(f"cannot sort by {sort!r}; sort by one of {', '.join(SORTS)} or an aspect")


def find_entry(store: Store, key: str) -> Entry:
    """An entry by its key (``12``, ``#12`` or ``R1``)."""
    from cinecap.errors import InputError

    key = str(key or "").strip().lstrip("#")
    if key.upper().startswith("R"):
        for e in reported_entries():
            if e.key == key.upper():
                return e
        raise InputError(f"no reported entry {key!r}")
    if not key.isdigit() or not 0 < int(key) < 2**31:
        raise InputError(f"{key!r} is not an entry: give its number (e.g. 12) or R1 for a "
                         "reported figure")
    return run_entry(get_run(store, int(key)))


def clip_results(store: Store, user: UserRecord, key: str
                 ) -> tuple[Entry, list[BenchItemRecord]]:
    """An entry's per-clip results (gold caption, caption, F1, error), in bench order."""
    from cinecap.errors import InputError

    require_role(user.role, "viewer", "reading the leaderboard")
    entry = find_entry(store, key)
    if entry.kind == "reported":
        raise InputError(f"{entry.key} is a figure reported in the paper: there are no per-clip "
                         "results to show")
    # Ranked as the table ranks it (ranks are over every entry): the heading and the table's
    # rank label must agree.
    ranked = next((e for e in _ranked(store.bench_runs.list())[0] if e.key == entry.key), entry)
    return ranked, store.bench_runs.items(int(entry.key))


def comparable(entries: Iterable[Entry]) -> bool:
    """Whether these entries all rank in one group (a chart of them compares like with like)."""
    groups = {e.group if e.rank else f"#{e.key}" for e in entries}
    return len(groups) <= 1


def chart_series(entries: Iterable[Entry], convention: str = "all"
                 ) -> list[tuple[str, dict[str, float | None]]]:
    """(entry label, aspect → value) for the chart; a value the entry lacks is None."""
    return [(e.label, {a: e.aspect(a, convention) for a in tx.ASPECTS}) for e in entries]


CSV_HEADERS = ["entry", "kind", "group", "rank", "model", "family", "version", "round",
               "captioner", "judge", "bench", "bench_sha256", "clips", "date", "f1",
               "comprehensiveness", "accuracy",
               *[f"{a} (all clips)" for a in tx.ASPECTS],
               *[f"{a} (present only)" for a in tx.ASPECTS], "protocol", "note"]


#: What a spreadsheet reads as the start of a formula.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(v: Any) -> str:
    """A CSV cell that no spreadsheet runs as a formula: one starting like a formula gets a
    leading ``'``. Every column goes through it (the scores never start so: fractions >= 0)."""
    v = "" if v is None else str(v)
    return "'" + v if v[:1] in FORMULA_STARTS else v


def write_csv(entries: Iterable[Entry], directory: str | Path,
              name: str = "leaderboard.csv") -> Path:
    """The entries as CSV (full precision, fractions in [0, 1]; the protocol as JSON) in
    ``directory`` (a page folder of the requester). Every cell goes through the formula guard:
    the date of an uploaded results file is the uploader's text too (``=HYPERLINK(…)`` got
    through when only the name columns were guarded)."""
    path = Path(directory) / name

    def num(v: float | None) -> str:
        return "" if v is None else repr(round(v, 6))

    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(CSV_HEADERS)
        for e in entries:
            w.writerow([csv_cell(v) for v in (
                e.key, e.kind, e.group, e.rank or "", e.model, e.family, e.version,
                e.round or "", e.captioner, e.judge, e.bench, e.bench_sha256, e.items or "",
                e.date, num(e.f1), num(e.comprehensiveness), num(e.accuracy),
                *[num(e.aspects_all[a]) for a in tx.ASPECTS],
                *[num(e.aspects_present[a]) for a in tx.ASPECTS],
                json.dumps(e.protocol, sort_keys=True, ensure_ascii=False), e.note)])
    return path
