"""Benchmark runs in the store: run a bench here (resumable), record a results file made
elsewhere (validated), and what makes two runs comparable.

Why here and not ``cinecap bench --store``: the library never imports the store (imports point
``ui → db → cinecap``), so recording a run is the app's job. :func:`run_bench` goes through the
library's own code (``cinecap.bench.load_bench`` / ``run_bench``, the registries' captioners and
judges) and keeps each captioned clip in the store as it comes, so an interrupted run resumes
where it stopped and ends with the same table as an uninterrupted one.

**Comparable rows.** A row is ranked only against rows with the same bench file (content hash),
the same number of clips, the same aspects and the same judge protocol: the results file's
``"protocol"`` object, stored whole (a flat object of strings; its stable keys are the library's
``cinecap.judge.protocol.PROTOCOL_KEYS``: a row that does not state one of them is not ranked).
A results file from before protocols were recorded gets the judge's name and version from its
``meta`` and ``"unknown"`` for the rest: such a row is shown but never ranked.

**Judged here, or self-reported.** A results file's own judgements are its author's to write (a
judge server answering consistent made-up lists put "F1 100.00, measured" on the board). So
:func:`record_results` judges the file's per-clip predictions again, here, against the bench's own
gold captions (kept by the store when it learnt the bench with its file) with the server's judge;
those scores and that judge's protocol are what is stored, and the entry is *measured*
(:func:`judged_here`). On a bench the store knows only by a declared name there is nothing to judge
against: the file's scores are kept as *submitted (self-reported)*, listed apart from the ranks.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from cinecap import taxonomy as tx
from cinecap.errors import InputError
from cinecap.judge.protocol import PROTOCOL_KEYS
from cinecap.progress import Progress
from db.errors import NotFound
from db.limits import check_storable_all
from db.records import BenchRunRecord, UserRecord
from db.roles import require_role
from db.store import Store

UNKNOWN = "unknown"
#: A results file of CineCap-Bench's 472 clips is a few MB; this leaves room for long captions.
MAX_RESULTS_BYTES = 50 * 2**20
RESULTS_SUFFIX = ".json"
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
#: Scores a results file carries that must follow from its per-clip judgements.
_CHECKED = ("comprehensiveness", "accuracy", "f1")
#: The key of a stored run's ``meta`` that says this server judged it (set on every recorded file,
#: whatever the file's own meta held under it; it names the file's hash, which no file can hold).
SERVER_KEY = "cinecap_server"
#: Protocol keys that describe the captioner's side of a run (kept from the file when re-judged).
_CAPTIONER_KEYS = ("sampling", "decoding", "truncated")
#: How deep a results file's JSON may nest (a real one: 5 levels).
MAX_RESULTS_DEPTH = 32


@dataclass(frozen=True)
class Labels:
    """What names a run's model on the leaderboard (derived from the run where not given)."""

    model: str = ""
    family: str = ""
    version: str = ""
    round: int | None = None


@dataclass(frozen=True)
class CheckedResults:
    """A results file that passed :func:`check_results`: its scores recomputed from its per-clip
    judgements (both averaging conventions), its protocol whole, its rows."""

    meta: dict[str, Any]
    aspects: list[str]
    protocol: dict[str, Any]
    protocol_key: str
    scores: dict[str, Any]
    rows: list[dict[str, Any]]


@dataclass
class RunOutcome:
    """What :func:`run_bench` did: the stored run, the table, whether it resumed."""

    run: BenchRunRecord
    table: str
    resumed_rows: int = 0
    out: Path | None = None
    notes: list[str] = field(default_factory=list)


# --- protocols, models ---------------------------------------------------------------------------

def results_protocol(results: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    """The results file's protocol object whole, and its key (a hash of it). An older file without
    one: the judge's name and version from its ``meta``, ``"unknown"`` for the rest."""
    given = results.get("protocol")
    if isinstance(given, dict):
        protocol = {str(k): v for k, v in given.items()}
    else:
        meta = results.get("meta") if isinstance(results.get("meta"), dict) else {}
        protocol = {k: UNKNOWN for k in PROTOCOL_KEYS}
        protocol["judge"] = str(meta.get("judge") or UNKNOWN)
        protocol["judge_version"] = str(meta.get("judge_version") or UNKNOWN)
    return protocol, protocol_key(protocol)


def protocol_key(protocol: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(protocol, sort_keys=True, ensure_ascii=False)
                          .encode()).hexdigest()


def unknown_parts(protocol: Mapping[str, Any]) -> list[str]:
    """The stable keys the protocol does not state (missing or ``"unknown"``)."""
    return [k for k in PROTOCOL_KEYS if str(protocol.get(k, UNKNOWN)).strip().lower()
            in (UNKNOWN, "")]


def parse_round(text: str | int | None) -> int | None:
    """A training round typed on the page ("" for none)."""
    if text is None or str(text).strip() == "":
        return None
    value = str(text).strip().lstrip("#")
    if not value.isdigit() or not 0 < int(value) < 2**31:
        raise InputError(f"the training round must be a whole number from 1 (got {text!r})")
    return int(value)


def model_family(model: str) -> str:
    """A model's family for the filter: the leading letters of its name without the owner
    (``hector-mao/CineCap-GRPO-8B`` → ``CineCap``, ``Qwen3-VL-8B`` → ``Qwen``)."""
    name = model.rstrip("/").rsplit("/", 1)[-1]
    found = re.match(r"[A-Za-z]+", name)
    return found.group(0) if found else (name or UNKNOWN)


def _model_name(captioner: str, options: Mapping[str, Any]) -> str:
    """The model a run captioned with: its model or adapter option (a local path by its folder
    name only: no server path on the page), else the captioner itself."""
    for key in ("model", "adapter"):
        value = options.get(key)
        if isinstance(value, str) and value.strip():
            value = value.strip()
            return Path(value).name if value.startswith(("/", ".", "~")) else value
    return captioner


def _labels_of(labels: Labels, meta: Mapping[str, Any]) -> dict[str, Any]:
    options = meta.get("options") if isinstance(meta.get("options"), dict) else {}
    captioner = str(meta.get("captioner") or UNKNOWN)
    model = labels.model.strip() or _model_name(captioner, options)
    version = labels.version.strip() or str(meta.get("model_version") or "") or (
        f"cinecap {meta['cinecap_version']}" if meta.get("cinecap_version") else "")
    return {"model": model, "model_family": labels.family.strip() or model_family(model),
            "model_version": version, "round": labels.round, "captioner": captioner}


# --- checking a results file ---------------------------------------------------------------------

def read_results(path: str | Path | None, max_bytes: int = MAX_RESULTS_BYTES
                 ) -> tuple[dict[str, Any], str]:
    """A results file's JSON and the sha256 of its bytes. Type and size are checked from the
    name and ``stat`` before a byte is read; the file is named by its file name only."""
    if not path:
        raise InputError("no results file was given: choose the JSON file `cinecap bench --out` "
                         "wrote")
    p = Path(path)
    if not p.is_file():
        raise InputError(f"the results file {p.name!r} did not arrive (no such file); try again")
    if p.suffix.lower() != RESULTS_SUFFIX:
        raise InputError(f"{p.name!r} is not a results file: expected a {RESULTS_SUFFIX} file "
                         "written by `cinecap bench --out`")
    size = p.stat().st_size
    if size > max_bytes:
        raise InputError(f"{p.name!r} is {size / 2**20:,.1f} MB, over the limit of "
                         f"{max_bytes / 2**20:,.0f} MB for a results file")
    raw = p.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{p.name!r} is not UTF-8 text: not a results file") from None
    try:
        data = json.loads(text, parse_constant=_no_constant, parse_float=_finite,
                          parse_int=_whole)
    except json.JSONDecodeError as e:
        raise InputError(f"{p.name!r} is not valid JSON (line {e.lineno}, column {e.colno}: "
                         f"{e.msg})") from None
    except RecursionError:  # the parser's own limit (about 1,000 levels)
        raise InputError(f"{p.name!r} nests more than {MAX_RESULTS_DEPTH} levels deep; a "
                         "results file is a few levels deep (meta, scores, items)") from None
    _check_depth(data, p.name)
    return data, hashlib.sha256(raw).hexdigest()


def _check_depth(data: Any, name: str) -> None:
    """InputError when the JSON nests deeper than :data:`MAX_RESULTS_DEPTH` (walked without
    recursion: the checks after it recurse, and a deeply nested file made them raise
    RecursionError)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > MAX_RESULTS_DEPTH:
                raise InputError(f"{name!r} nests more than {MAX_RESULTS_DEPTH} levels deep; a "
                                 "results file is a few levels deep (meta, scores, items)")
            children = value.values() if isinstance(value, dict) else value
            stack.extend((v, depth + 1) for v in children)


def _no_constant(name: str):
    raise InputError(f"the results file holds {name}, which is not a number a score can be")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise InputError(f"the results file holds the number {text[:20]}…, too large for a "
                         "score or a count")
    return value


def _whole(text: str) -> int:
    # Python refuses ints of more than 4,300 digits with a ValueError; no count needs 20.
    if len(text.lstrip("-")) > 18:
        raise InputError(f"the results file holds a {len(text.lstrip('-')):,}-digit number, too "
                         "large for a score or a count")
    return int(text)


def check_results(data: Any, name: str = "the results file") -> CheckedResults:
    """Check a results file's schema, aspects and scores; every problem is one InputError that
    names it. The scores are recomputed from the per-clip judgements (``cinecap.judge.scores``):
    a file whose stated scores do not follow from them is refused."""
    from cinecap.judge.base import Judgement
    from cinecap.judge.scores import aggregate

    if not isinstance(data, dict) or not all(k in data for k in ("meta", "scores", "items")):
        raise InputError(f"{name} is not a cinecap bench results file: expected a JSON object with "
                         "meta, scores and items (what `cinecap bench --out` writes)")
    meta, scores, items = data["meta"], data["scores"], data["items"]
    if not isinstance(meta, dict) or not isinstance(scores, dict) or not isinstance(items, list):
        raise InputError(f"{name}: meta and scores must be objects and items a list")
    check_storable_all(data, "results file")
    for key in ("captioner", "judge"):
        if not isinstance(meta.get(key), str) or not meta[key].strip():
            raise InputError(f"{name}: meta.{key} is missing (the {key} the run used)")
    if not isinstance(meta.get("judge_version", ""), str):
        raise InputError(f"{name}: meta.judge_version must be text")
    digest = meta.get("bench_sha256")
    if not isinstance(digest, str) or not _SHA256.match(digest):
        raise InputError(f"{name}: meta.bench_sha256 is missing or not a sha256 (64 hex digits); "
                         "it names the bench file the run used")
    aspects = meta.get("aspects")
    if not isinstance(aspects, list) or not aspects or not all(isinstance(a, str) for a in aspects):
        raise InputError(f"{name}: meta.aspects must list the aspects the run scored")
    wrong = [a for a in aspects if a not in tx.ASPECTS]
    if wrong or len(set(aspects)) != len(aspects):
        what = f"unknown aspect(s) {', '.join(map(repr, wrong))}" if wrong else "an aspect twice"
        raise InputError(f"{name}: meta.aspects has {what}; the aspects are exactly: "
                         f"{', '.join(tx.ASPECTS)}")
    by_aspect = scores.get("by_aspect")
    if not isinstance(by_aspect, dict) or set(by_aspect) != set(aspects):
        have = ", ".join(by_aspect) if isinstance(by_aspect, dict) else "nothing"
        raise InputError(f"{name}: scores.by_aspect has {have}, not the run's aspects "
                         f"({', '.join(aspects)})")
    if isinstance(meta.get("items"), int) and meta["items"] != len(items):
        raise InputError(f"{name}: meta.items says {meta['items']} clips but items lists "
                         f"{len(items)}")
    protocol, key = results_protocol(data)
    if isinstance(data.get("protocol"), dict):
        bad = [k for k, v in protocol.items() if not isinstance(v, str)]
        if bad:
            raise InputError(f"{name}: the protocol object must be flat, strings only "
                             f"({', '.join(bad)} is not)")
        if protocol.get("judge") not in (None, meta["judge"]):
            raise InputError(f"{name}: protocol.judge is {protocol['judge']!r} but meta.judge is "
                             f"{meta['judge']!r}")
    judgements = []
    for i, row in enumerate(items):
        if not isinstance(row, dict) or not isinstance(row.get("video_path"), str) \
                or not isinstance(row.get("gt_caption"), str) \
                or not isinstance(row.get("caption"), (str, type(None))):
            raise InputError(f"{name}: item {i} needs video_path and gt_caption (text) and "
                             "caption (text or null)")
        j = row.get("judgement")
        if j is None:
            continue
        dims = j.get("by_dim") if isinstance(j, dict) else None
        if not isinstance(dims, dict) or set(dims) != set(aspects):
            have = ", ".join(dims) if isinstance(dims, dict) else "no by_dim"
            raise InputError(f"{name}: item {i}'s judgement covers {have}, not the run's "
                             f"aspects ({', '.join(aspects)})")
        judgements.append(Judgement.from_dict(j, aspects=aspects))
    recomputed = aggregate(judgements, aspects)
    mine = recomputed.to_dict()
    for k in _CHECKED:
        stated = scores.get(k)
        if not isinstance(stated, (int, float)) or not math.isclose(stated, mine[k],
                                                                     abs_tol=1e-6):
            raise InputError(f"{name}: scores.{k} is {_num(stated)} but the per-clip judgements "
                             f"give {mine[k]:.4f}; the scores do not follow from the items "
                             "(was the file edited?)")
    return CheckedResults(meta, list(aspects), protocol, key, mine, list(items))


def _num(v: Any) -> str:
    return f"{v:.4f}" if isinstance(v, (int, float)) else repr(v)


def _bench_for(store: Store, user: UserRecord, digest: str, declared: str,
               name: str = "the results file"):
    """The bench the results were made on: known to the store, or declared now by name."""
    bench = store.bench_runs.find_bench(digest)
    if bench is not None:
        return bench
    declared = (declared or "").strip()
    if not declared:
        raise InputError(f"{name} was made on a bench this app does not know (sha256 "
                         f"{digest[:12]}…): run or import that bench here first, or declare it "
                         "by giving the bench's name")
    check_storable_all(declared, "bench name")
    return store.bench_runs.add_bench(digest, declared[:300], None, "declared", user)


def record_results(store: Store, user: UserRecord, path: str | Path | None,
                   bench_name: str = "", labels: Labels = Labels(), source: str = "upload",
                   max_bytes: int = MAX_RESULTS_BYTES, judge: Any = None,
                   min_role: str = "reviewer") -> BenchRunRecord:
    """Put a results file made elsewhere on the leaderboard: checked (type, size, schema, aspects,
    scores against the per-clip judgements, the bench known or declared with ``bench_name``),
    judged again here (:func:`rejudge`, with ``judge``: the server's judge, ``rules`` when None)
    when the store has the bench's gold captions, then stored whole in one transaction, once per
    file content. Needs ``min_role`` (``Settings.leaderboard_add_role``: reviewer by default)."""
    require_role(user.role, min_role, "adding results to the leaderboard")
    data, digest = read_results(path, max_bytes)
    name = f"{Path(path).name!r}"
    checked = check_results(data, name)
    check_storable_all([labels.model, labels.family, labels.version], "model labels")
    bench = _bench_for(store, user, checked.meta["bench_sha256"], bench_name, name)
    meta = _meta(checked.meta)
    meta.pop(SERVER_KEY, None)  # only this server says what it judged
    gold = store.bench_runs.bench_gold(bench.sha256)
    rows, scores, protocol, key = checked.rows, checked.scores, checked.protocol, \
        checked.protocol_key
    if gold is not None:
        if judge is None:
            from cinecap.judge import get_judge

            judge = get_judge("rules")
        rows, scores, protocol = rejudge(checked, gold, judge, name)
        key = protocol_key(protocol)
        meta["failed_captions"] = sum(1 for r in rows if not isinstance(r.get("caption"), str))
        meta["judge"], meta["judge_version"] = judge.name, judge.version
    meta[SERVER_KEY] = {"judged_here": gold is not None, "results_sha256": digest,
                        "file_judge": checked.meta["judge"],
                        "file_judge_version": checked.meta.get("judge_version") or ""}
    run = {"source": source, "bench_sha256": bench.sha256, "bench_name": bench.name,
           "items": len(rows), **_labels_of(labels, checked.meta),
           "options": _options(checked.meta), "judge": meta["judge"],
           "judge_version": meta.get("judge_version") or "",
           "protocol": protocol, "protocol_key": key,
           "aspects": checked.aspects, "meta": meta, "results_sha256": digest,
           "run_date": str(checked.meta.get("date") or "")}
    return store.bench_runs.add(run, rows, scores, user)


def rejudge(checked: CheckedResults, gold: Sequence[tuple[str, str]], judge: Any,
            name: str = "the results file"
            ) -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any]]:
    """The file's per-clip predictions judged here by ``judge`` against the bench's ``gold``
    captions ((file name, caption) in bench order): the rows (the bench's gold caption and this
    judgement in each; a clip without a caption keeps its error and no judgement), the scores
    (``cinecap.judge.scores.aggregate``), and the protocol (``judge``'s; the captioner's side
    — sampling, decoding — as the file states it). What the file's own judge said is dropped."""
    from cinecap.bench import protocol_of as library_protocol
    from cinecap.judge.scores import aggregate

    rows = checked.rows
    if len(rows) > len(gold):
        raise InputError(f"{name} lists {len(rows)} clips but its bench has {len(gold)}")
    for i, (row, (video, _)) in enumerate(zip(rows, gold)):
        have = Path(row["video_path"].replace("\\", "/")).name
        if have != video:
            raise InputError(f"{name}: clip {i + 1} is {have!r} but the bench's clip {i + 1} is "
                             f"{video!r}; the results do not follow the bench")
    out, preds = [], []
    for i, row in enumerate(rows):
        row = {k: v for k, v in row.items() if k != "judgement"}
        row["gt_caption"] = gold[i][1]
        raw = row.get("raw_output")
        pred = raw if isinstance(raw, str) else row.get("caption")
        if isinstance(row.get("caption"), str):
            preds.append((i, pred))
        out.append(row)
    judgements = judge.judge_many([(gold[i][1], pred) for i, pred in preds], checked.aspects)
    for (i, _), j in zip(preds, judgements):
        out[i]["judgement"] = j.to_dict()
    protocol = library_protocol(judge, None, checked.aspects)
    for k in _CAPTIONER_KEYS:  # the captioner's side is the file's word, or unknown
        protocol[k] = str(checked.protocol.get(k, UNKNOWN))
    return out, aggregate(judgements, checked.aspects).to_dict(), protocol


def added_line(run: BenchRunRecord) -> str:
    """What adding a results file did, in one line: judged here (with the score the leaderboard
    counts, failed clips as 0) or kept as self-reported."""
    failed = max(0, run.items - run.judged)
    share = run.judged / run.items if run.items else 0.0
    f1 = "—" if run.f1 is None else f"{100 * run.f1 * share:.2f}"
    what = (f"judged here by {run.judge} {run.judge_version}".rstrip() + f" (judged {run.judged}"
            + (f", failed {failed})" if failed else ")") + f", F1 {f1}"
            if judged_here(run) else
            "submitted (self-reported): this server has no gold captions of that bench to "
            "judge it against, so it is listed apart from the ranks")
    return f"entry #{run.id}: {run.model} on {run.bench_name} ({run.items} clips), {what}"


def judged_here(run: BenchRunRecord) -> bool:
    """Whether this server judged the run: one it ran, or a results file it judged again (the
    marker names the file's own hash, which no file can carry inside itself)."""
    if run.source == "run":
        return True
    marker = run.meta.get(SERVER_KEY)
    return isinstance(marker, dict) and marker.get("judged_here") is True \
        and marker.get("results_sha256") == run.results_sha256 is not None


def _options(meta: Mapping[str, Any]) -> dict[str, Any]:
    return {"captioner": dict(meta.get("options") or {}),
            "judge": dict(meta.get("judge_options") or {})}


def _meta(meta: Mapping[str, Any]) -> dict[str, Any]:
    """The run's meta as stored: the bench file by its name only (no path of another machine
    or of this server reaches the page)."""
    out = dict(meta)
    if isinstance(out.get("bench_file"), str):
        out["bench_file"] = Path(out["bench_file"]).name
    return out


# --- running a bench here ----------------------------------------------------------------------

def run_bench(store: Store, user: UserRecord, bench_path: str | Path, captioner: str = "anchors",
              judge: str = "rules", captioner_options: Mapping[str, Any] | None = None,
              judge_options: Mapping[str, Any] | None = None,
              aspects: Sequence[str] = tx.ASPECTS, limit: int | None = None,
              out: str | Path | None = None, resume: int | None = None,
              labels: Labels = Labels(), progress: Progress | None = None,
              captioner_backend: Any = None, judge_backend: Any = None,
              on_start: Callable[[BenchRunRecord], None] | None = None) -> RunOutcome:
    """Run ``captioner`` and ``judge`` over a bench file with the library's own code and record
    the run: each captioned clip is kept in the store as it comes; the scores when all are judged.

    ``resume``: the id of an interrupted run of the same bench, captioner, judge, options and
    aspects; its kept clips are not captioned again, and the table is the one an uninterrupted
    run gives. ``out`` also writes the results file (what ``cinecap bench --out`` writes).
    ``captioner_backend`` / ``judge_backend``: ready instances instead of registry names;
    ``on_start(run)``: told the run's id before the first clip (to say how to resume it).
    """
    from cinecap.bench import load_bench, run_bench as library_run, run_meta

    require_role(user.role, "annotator", "recording a bench run")
    items = load_bench(bench_path)
    total = len(items)
    if limit:
        items = items[:limit]
    c_opts, j_opts = dict(captioner_options or {}), dict(judge_options or {})
    meta = run_meta(bench_path, c_opts, j_opts)
    digest = meta["bench_sha256"]
    if captioner_backend is None:
        from cinecap.captioners import get_captioner

        captioner_backend = get_captioner(captioner, **c_opts)
    if judge_backend is None:
        from cinecap.judge import get_judge

        judge_backend = get_judge(judge, **j_opts)
    bench = store.bench_runs.add_bench(digest, Path(bench_path).name, total, "run", user,
                                       file=bench_path)
    judge_name, judge_version = judge_backend.name, judge_backend.version
    wanted = {"bench_sha256": digest, "items": len(items),
              "captioner": getattr(captioner_backend, "name", captioner),
              "options": {"captioner": meta["options"], "judge": meta["judge_options"]},
              "judge": judge_name, "judge_version": judge_version, "aspects": list(aspects)}
    done: dict[int, dict[str, Any]] = {}
    if resume is not None:
        run = store.bench_runs.get(resume)
        _check_resumable(run, wanted)
        done = store.bench_runs.rows(run.id)
    else:
        first = {**meta, "captioner": wanted["captioner"], "judge": judge_name,
                 "judge_version": judge_version, "cinecap_version": _version()}
        protocol, key = results_protocol({"meta": first})
        run = store.bench_runs.start(
            {"source": "run", "bench_name": bench.name, **wanted,
             **_labels_of(labels, first), "protocol": protocol, "protocol_key": key,
             "meta": _meta(first), "run_date": ""},
            user)
    if on_start is not None:
        on_start(run)
    results = library_run(items, captioner_backend, judge_backend, aspects, progress, meta,
                          done=done,
                          on_row=lambda i, row: store.bench_runs.put_item(run.id, i, row))
    data = results.to_dict()
    results_digest = None
    if out is not None:
        out = Path(out)
        raw = json.dumps(data, indent=2, ensure_ascii=False).encode("utf-8")
        out.write_bytes(raw)
        results_digest = hashlib.sha256(raw).hexdigest()
    stored = store.bench_runs.finish(run.id, data["items"], results.scores.to_dict(),
                                     _meta(data["meta"]), results_protocol(data),
                                     results_sha256=results_digest)
    return RunOutcome(stored, results.scores.table(), len(done), out)


def _version() -> str:
    from cinecap import __version__

    return __version__


def _check_resumable(run: BenchRunRecord, wanted: Mapping[str, Any]) -> None:
    if run.status != "running":
        raise InputError(f"bench run #{run.id} is finished; start a new run instead of resuming")
    for key, value in wanted.items():
        have = getattr(run, key)
        if have != value:
            raise InputError(f"bench run #{run.id} was made with another {key.replace('_', ' ')} "
                             f"({_short(have)}, now {_short(value)}); resume it with the same "
                             "bench file, captioner, judge, options and aspects")


def _short(v: Any) -> str:
    text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, sort_keys=True)
    return text[:12] + "…" if len(text) == 64 and _SHA256.match(text) else text[:80]


def unfinished(store: Store, user: UserRecord) -> list[BenchRunRecord]:
    """Runs that were interrupted (resumable with ``python -m ui bench run … --resume ID``)."""
    require_role(user.role, "annotator", "listing unfinished bench runs")
    return store.bench_runs.list(status="running")


def get_run(store: Store, run_id: int) -> BenchRunRecord:
    """A finished run by id (anyone may read the leaderboard)."""
    run = store.bench_runs.get(run_id)
    if run.status != "done":
        raise NotFound(f"bench run #{run_id} is not finished")
    return run
