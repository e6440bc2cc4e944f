"""Gold pairs in and out of the store as portable datasets: one function per format.

Out (each a folder holding the data file and the clips it names, paths relative to the folder, so
the folder can be moved, zipped or shared as it is):

- :func:`export_bench` — ``bench.json``: CineCap-Bench's format, a JSON list of
  ``{"video_path", "gt_caption"}`` (``cinecap bench`` runs on it; the store then knows the bench);
- :func:`export_training` — ``gold_pairs.jsonl``: the ``cinecap-gold-pairs/1`` contract of
  ``cinecap/training/data.py`` (``cinecap train --data`` reads it), with the gold statements;
- :func:`export_hf` — a Hugging Face ``datasets`` folder: ``data/train-<hash>.parquet``,
  the clips, and a dataset card (``README.md``) whose front matter names the Parquet file, so
  ``datasets.load_dataset(FOLDER)`` loads it offline.

And for training rounds: :func:`export_gold_pairs` — the gold pairs as one ``cinecap-gold-pairs/1``
JSONL file naming the stored clips where they are (no copies): the data a round trains on, and
what ``python -m ui export gold-pairs`` writes.

In: :func:`import_dataset` takes a CineCap-Bench file, a ``cinecap-gold-pairs/1`` JSONL file, such a
folder, or a zip of one, and adds its clips and gold pairs. Importing the same data twice adds
nothing: a gold pair whose clip (by content), caption and statements are in the store already is
skipped, and the report says so, as it says why any other item was skipped.

Which gold pairs go out: a clip may have several (each saved review makes one). Each clip gives
its newest **accepted** pair; with ``include_submitted``, its newest pair that was not sent back.
A pair with an empty caption is skipped and reported. Exporting and importing need the admin role
(they read and write every annotator's work).
"""
from __future__ import annotations

import json
import logging
import os
import re
import shutil
import tempfile
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cinecap import taxonomy as tx
from cinecap.errors import CinecapError, InputError
from cinecap.progress import Progress, no_progress
from db.limits import check_gold_pair, check_storable
from db.records import GoldPairRecord, UserRecord
from db.roles import require_role
from db.store import Store

log = logging.getLogger(__name__)

BENCH_FILE = "bench.json"
TRAINING_FILE = "gold_pairs.jsonl"
PARQUET_FILE = "data/train-{digest}.parquet"  # named by its content (see export_hf)
VIDEOS = "videos"
#: The statement fields a dataset carries (the store's confidence and measurements are a
#: captioner's, not gold): the ``cinecap-gold-pairs/1`` contract's.
GOLD_FIELDS = ("aspect", "value", "text", "t_start", "t_end", "evidence", "subject")
FORMATS = ("bench", "training", "hf")
#: What an uploaded zip may unpack to at most (files, bytes): a zip bomb stops here.
MAX_ZIP_FILES = 20_000


@dataclass
class DatasetExport:
    """What an export wrote."""

    format: str
    folder: Path
    data_file: Path
    pairs: int
    clips: int
    gold_pair_ids: list[int]
    skipped: list[str] = field(default_factory=list)
    bench_sha256: str | None = None  # the bench file written (export_bench)

    def summary(self) -> str:
        return (f"wrote {self.pairs} gold pairs on {self.clips} clips as {self.format} "
                f"({self.data_file.name} and {VIDEOS}/)"
                + (f"; {len(self.skipped)} skipped: {'; '.join(self.skipped)}"
                   if self.skipped else ""))


@dataclass
class ImportReport:
    """What an import did, item by item."""

    source: str  # the file or folder's name
    format: str
    items: int = 0
    added: list[int] = field(default_factory=list)  # new gold pair ids
    clips_added: int = 0  # clips the store did not have
    skipped: list[str] = field(default_factory=list)  # "item 3 (a.mp4): why"

    def summary(self) -> str:
        head = (f"{self.source} ({self.format}): {self.items} items, {len(self.added)} gold pairs "
                f"added on {self.clips_added} new clips, {len(self.skipped)} skipped")
        return head + "".join(f"\n- {s}" for s in self.skipped)


# --- which pairs go out ---------------------------------------------------------------------------

def gold_pairs(store: Store, include_submitted: bool = False) -> list[GoldPairRecord]:
    """One gold pair per clip, oldest clip first: its newest accepted pair (or, with
    ``include_submitted``, its newest pair that was not sent back)."""
    wanted = ("accepted", "submitted") if include_submitted else ("accepted",)
    newest: dict[int, GoldPairRecord] = {}
    for g in store.review.gold_pairs():  # oldest first: later ones replace earlier ones
        if g.status in wanted:
            newest[g.clip_id] = g
    return [newest[c] for c in sorted(newest)]


def statements_per_aspect(pairs: list[GoldPairRecord]) -> dict[str, int]:
    counts = Counter(st["aspect"] for g in pairs for st in g.statements)
    return {a: counts.get(a, 0) for a in tx.ASPECTS}


def _chosen_pairs(store: Store, include_submitted: bool) -> tuple[list[GoldPairRecord], list[str]]:
    chosen, skipped = [], []
    for g in gold_pairs(store, include_submitted):
        if not g.caption.strip():
            skipped.append(f"gold pair #{g.id}: empty caption (every statement rejected)")
        else:
            chosen.append(g)
    return chosen, skipped


def gold_statements_of(g: GoldPairRecord) -> list[dict[str, Any]]:
    """A gold pair's statements with the contract's fields only."""
    return [{k: st.get(k) for k in GOLD_FIELDS} for st in g.statements]


#: The content-hash prefix an export puts before a clip's name (dropped again on import).
_HASH_PREFIX = re.compile(r"^[0-9a-f]{16}-")


def _safe_name(name: str) -> str:
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", _HASH_PREFIX.sub("", Path(name).name)).strip("._")
    return (stem or "clip")[:80]


def _prepare(store: Store, user: UserRecord, dest: str | Path, include_submitted: bool,
             what: str) -> tuple[Path, list[tuple[GoldPairRecord, Any, str]], list[str]]:
    """Check the role and the folder; link or copy each chosen pair's clip into ``videos/``."""
    require_role(user.role, "admin", f"exporting the gold pairs as {what}")
    dest = Path(dest)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise InputError(f"{dest.name!r} exists and is not an empty folder: choose a new folder "
                         "for the export")
    chosen, skipped = _chosen_pairs(store, include_submitted)
    if not chosen:
        which = "no gold pair that was not sent back" if include_submitted else (
            "no approved gold pair (include the submitted ones to export those)")
        raise InputError(f"nothing to export: the store has {which}"
                         + (f"; skipped: {'; '.join(skipped)}" if skipped else ""))
    (dest / VIDEOS).mkdir(parents=True, exist_ok=True)
    out = []
    for g in chosen:
        clip = store.clips.get(g.clip_id)
        suffix = Path(clip.path).suffix or ".mp4"
        rel = f"{VIDEOS}/{clip.sha256[:16]}-{_safe_name(Path(clip.filename).stem)}{suffix}"
        target = dest / rel
        if not target.exists():
            try:
                os.link(clip.path, target)  # no bytes copied where the file system allows
            except OSError:
                shutil.copyfile(clip.path, target)
        out.append((g, clip, rel))
    return dest, out, skipped


def _write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def export_bench(store: Store, user: UserRecord, dest: str | Path,
                 include_submitted: bool = False) -> DatasetExport:
    """The gold pairs as a CineCap-Bench folder: ``bench.json`` (a JSON list of ``{"video_path",
    "gt_caption"}``) and ``videos/``. The store learns the bench by its hash, so results of runs
    on it are accepted on the leaderboard."""
    from cinecap.bench import load_bench
    from cinecap.files import sha256_file

    dest, pairs, skipped = _prepare(store, user, dest, include_submitted, "a bench file")
    path = dest / BENCH_FILE
    items = [{"video_path": rel, "gt_caption": g.caption} for g, _, rel in pairs]
    _write_atomic(path, json.dumps(items, indent=2, ensure_ascii=False) + "\n")
    load_bench(path)  # the library's own reader takes it
    digest = sha256_file(path)
    store.bench_runs.add_bench(digest, f"{dest.name}/{BENCH_FILE}", len(items), "export",
                               _writer(store, user), file=path)
    return _export("bench", dest, path, pairs, skipped, digest)


def export_training(store: Store, user: UserRecord, dest: str | Path,
                    include_submitted: bool = False) -> DatasetExport:
    """The gold pairs as ``cinecap-gold-pairs/1`` JSONL (``gold_pairs.jsonl``: id, video_path,
    gt_caption, statements) beside ``videos/``; read back with the training code's own reader."""
    dest, pairs, skipped = _prepare(store, user, dest, include_submitted, "training JSONL")
    path = dest / TRAINING_FILE
    lines = [json.dumps({"id": f"gold-pair-{g.id}", "video_path": rel, "gt_caption": g.caption,
                         "statements": [{k: v for k, v in st.items() if v not in (None, "")}
                                        for st in gold_statements_of(g)]}, ensure_ascii=False)
             for g, _, rel in pairs]
    _write_atomic(path, "".join(line + "\n" for line in lines))
    from cinecap.training.data import load_pairs

    load_pairs(path)  # InputError naming the line, should a stored pair break the contract
    return _export("training", dest, path, pairs, skipped)


def export_hf(store: Store, user: UserRecord, dest: str | Path,
              include_submitted: bool = False) -> DatasetExport:
    """The gold pairs as a folder ``datasets.load_dataset(FOLDER)`` loads offline: one Parquet
    file (written by ``datasets`` itself, so its features travel with it), ``videos/``, and a
    dataset card naming the file and describing the columns."""
    from datasets import Dataset, DatasetDict, Features, Value

    from cinecap.files import sha256_file

    dest, pairs, skipped = _prepare(store, user, dest, include_submitted, "a datasets folder")
    rows = [{"id": f"gold-pair-{g.id}", "video": {"path": rel, "bytes": None},
             "video_path": rel, "video_sha256": clip.sha256,
             "file_name": clip.filename, "gt_caption": g.caption,
             "statements": gold_statements_of(g), "notes": _notes_of(g),
             "annotator": g.annotator, "status": g.status, "reviewer": g.reviewer or "",
             "review_note": g.review_note or "",
             "reviewed_at": g.reviewed_at.isoformat() if g.reviewed_at else "",
             "duration": clip.duration, "fps": clip.fps, "width": clip.width,
             "height": clip.height} for g, clip, rel in pairs]
    (dest / "data").mkdir(parents=True, exist_ok=True)
    tmp = dest / "data" / ".train.parquet.part"
    with _quiet_datasets():
        features = _features()
        ds = Dataset.from_dict({k: [r[k] for r in rows] for k in features}, features=features)
        # ``datasets`` sizes its shards by stat-ing each Video path from the current folder; these
        # paths are relative to ``dest`` and the clips' bytes are not embedded (they sit in
        # ``videos/``), so the rows' own size is the right figure.
        ds._estimate_nbytes = lambda: ds.data.nbytes
        ds.to_parquet(str(tmp))
        # ``datasets.load_from_disk`` reads its own Arrow layout; as a DatasetDict (``train/``
        # and dataset_dict.json) it sits beside the card, which ``load_dataset`` follows (a
        # single Dataset's state.json at the top would make ``load_dataset`` refuse the folder).
        # ``save_to_disk`` embeds the bytes of every Video path it is given, which doubled the
        # export (the clips once in ``videos/``, once inside ``train/``). So the rows are saved
        # with the video column as its plain storage (path, bytes: the same Arrow type) and the
        # saved features then say ``Video`` again: both layouts name the files in ``videos/``.
        plain = Features({**features, "video": {"bytes": Value("binary"),
                                                "path": Value("string")}})
        columns = {k: [r[k] for r in rows] for k in features}
        DatasetDict({"train": Dataset.from_dict(columns, features=plain)}).save_to_disk(
            str(dest))
        info_file = dest / "train" / "dataset_info.json"
        info = json.loads(info_file.read_text(encoding="utf-8"))
        info["features"] = features.to_dict()
        _write_atomic(info_file, json.dumps(info, indent=2))
    # The file is named by its content: ``datasets`` caches a local folder by the folder's name
    # and its configuration, so a re-export into a folder of the same name must not look the
    # same to it (it would load the old rows from its cache).
    path = dest / PARQUET_FILE.format(digest=sha256_file(tmp)[:16])
    os.replace(tmp, path)
    _write_atomic(dest / "README.md", _card(path.relative_to(dest).as_posix(), len(rows),
                                            len({c.sha256 for _, c, _ in pairs})))
    return _export("hf", dest, path, pairs, skipped)


class _quiet_datasets:
    """No ``datasets`` progress bars on the server's stderr while writing."""

    def __enter__(self):
        from datasets.utils import logging as dl

        self.was = dl.is_progress_bar_enabled()
        dl.disable_progress_bar()

    def __exit__(self, *exc):
        from datasets.utils import logging as dl

        if self.was:
            dl.enable_progress_bar()
        return False


def _features():
    from datasets import Features, List, Value, Video

    statement = {"aspect": Value("string"), "value": Value("string"), "text": Value("string"),
                 "t_start": Value("float64"), "t_end": Value("float64"),
                 "evidence": Value("string"), "subject": Value("string")}
    # The clip as a ``Video`` column that names the file (relative to the folder) without
    # decoding it: decoding needs torchcodec, which this project does not install;
    # ``ds.cast_column("video", Video())`` turns decoding on where it is there.
    return Features({"id": Value("string"), "video": Video(decode=False),
                     "video_path": Value("string"),
                     "video_sha256": Value("string"), "file_name": Value("string"),
                     "gt_caption": Value("string"), "statements": List(statement),
                     "notes": List(Value("string")),
                     "annotator": Value("string"), "status": Value("string"),
                     "reviewer": Value("string"), "review_note": Value("string"),
                     "reviewed_at": Value("string"),
                     "duration": Value("float64"), "fps": Value("float64"),
                     "width": Value("int64"), "height": Value("int64")})


def _notes_of(g: GoldPairRecord) -> list[str]:
    """The annotator's note on each statement, in the statements' order ("" where none)."""
    ids = list(g.statement_ids) + [""] * (len(g.statements) - len(g.statement_ids))
    return [g.notes.get(uid, "") if uid else "" for uid in ids[:len(g.statements)]]


def _card(data_file: str, pairs: int, clips: int) -> str:
    from cinecap import __version__

    return f"""---
configs:
- config_name: default
  data_files:
  - split: train
    path: {data_file}
task_categories:
- video-text-to-text
tags:
- cinematography
- video-captioning
- cinecap
---

# CineCap Studio gold pairs

{pairs} gold pairs on {clips} clips, exported by CineCap Studio (cinecap {__version__}): per clip,
a gold caption of how it is filmed and its atomic statements, corrected by annotators.

```python
from datasets import load_dataset, load_from_disk
ds = load_dataset("path/to/this/folder", split="train")  # the Parquet file named below
ds = load_from_disk("path/to/this/folder")["train"]      # the same rows, datasets' own layout
```

Columns:

- `id`: the gold pair (`gold-pair-<n>`);
- `video`: the clip as a `Video` feature (`{{"path", "bytes"}}`, the path relative to this folder,
  not decoded: `ds.cast_column("video", Video())` decodes it where torchcodec is installed);
- `video_path`: the same path as a string (`{VIDEOS}/…`); `video_sha256` its content
  hash; `file_name` its name as uploaded; `duration`, `fps`, `width`, `height`;
- `gt_caption`: the gold caption;
- `statements`: the gold atomic statements — aspect, value (canonical), text, t_start and t_end
  (seconds; null for static statements), evidence, subject;
- `notes`: the annotator's note on each statement, in the statements' order (`""` where none);
- `annotator`, `status`: who saved the pair, and whether a reviewer approved it (`accepted`);
  `reviewer`, `review_note`, `reviewed_at` (ISO 8601, `""` before a decision): who decided, why.

`python -m ui import FOLDER` reads it back into a CineCap Studio store.
"""


def _export(fmt: str, dest: Path, path: Path, pairs: list, skipped: list[str],
            digest: str | None = None) -> DatasetExport:
    return DatasetExport(fmt, dest, path, len(pairs), len({c.sha256 for _, c, _ in pairs}),
                         [g.id for g, _, _ in pairs], skipped, digest)


EXPORTS = {"bench": export_bench, "training": export_training, "hf": export_hf}


def export_dataset(store: Store, user: UserRecord, fmt: str, dest: str | Path,
                   include_submitted: bool = False) -> DatasetExport:
    """One of :data:`FORMATS` into ``dest`` (a new or empty folder)."""
    if fmt not in EXPORTS:
        raise InputError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")
    return EXPORTS[fmt](store, user, dest, include_submitted)


def export_archive(store: Store, user: UserRecord, fmt: str, directory: str | Path,
                   include_submitted: bool = False) -> tuple[DatasetExport, Path]:
    """An export as one zip in ``directory`` (a page folder of the requester: the admin tab's
    download); the folder it was made in is removed."""
    with tempfile.TemporaryDirectory(prefix="cinecap-export-") as tmp:
        out = export_dataset(store, user, fmt, Path(tmp) / f"cinecap-{fmt}", include_submitted)
        archive = zip_folder(out.folder, Path(directory) / f"cinecap-{fmt}.zip")
    return out, archive


def import_upload(store: Store, user: UserRecord, path: str | Path | None, settings: Any,
                  accept: bool = True, progress: Progress | None = None) -> ImportReport:
    """An uploaded zip of a dataset folder (the admin tab): checked by type and size before it
    is opened, then imported with every video path kept inside the zip's folder."""
    require_role(user.role, "admin", "importing gold pairs")
    if not path:
        raise InputError("no file was uploaded: choose a zip of a dataset folder")
    p = Path(path)
    if not p.is_file():
        raise InputError(f"the upload {p.name!r} did not arrive (no such file); try again")
    if p.suffix.lower() != ".zip":
        raise InputError(f"{p.name!r} is not a zip: upload a zip of a dataset folder (a bench "
                         "file or gold_pairs.jsonl with its videos, or a datasets folder)")
    if settings is not None and p.stat().st_size > settings.max_upload_bytes:
        raise InputError(f"{p.name!r} is over the upload limit of {settings.max_upload_mb} MB")
    return import_dataset(store, user, p, settings, accept, confined=True, progress=progress)


def zip_folder(folder: str | Path, dest: str | Path) -> Path:
    """``folder`` as a zip at ``dest`` (clips stored, not compressed again), for a download."""
    folder, dest = Path(folder), Path(dest)
    with zipfile.ZipFile(dest, "w") as z:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                kind = zipfile.ZIP_STORED if p.parent.name == VIDEOS else zipfile.ZIP_DEFLATED
                z.write(p, f"{folder.name}/{p.relative_to(folder).as_posix()}",
                        compress_type=kind)
    return dest


# --- in -------------------------------------------------------------------------------------------

@dataclass
class _Item:
    where: str  # "item 3 (a.mp4)"
    video: Path | None
    gt_caption: Any
    statements: Any  # a list of dicts, or None (decompose the caption)
    problem: str = ""
    file_name: str = ""  # the clip's name as first uploaded, where the dataset says it


def _writer(store: Store, user: UserRecord) -> UserRecord:
    """A user that can own rows: the console (``python -m ui``) writes as a stored ``console``
    account without a password (nobody signs in as it), with its own admin role."""
    if user.id:
        return user
    stored = store.users.ensure("console", user.role, provider="none")
    return UserRecord(stored.id, stored.name, user.role, stored.provider)


def _inside(base: Path, rel: str) -> Path | None:
    """``rel`` under ``base``, or None when it points out of it (absolute, ``..``, a link)."""
    try:
        p = (base / rel).resolve()
        p.relative_to(base.resolve())
        return p
    except (ValueError, OSError, RuntimeError):
        return None


def _json_items(path: Path, confined: bool) -> tuple[str, list[_Item]]:
    """Items of a bench JSON list or a ``cinecap-gold-pairs/1`` JSONL file."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path.name} is not UTF-8 text") from None
    if text.lstrip().startswith("["):
        fmt = "bench"
        try:
            records = list(enumerate(json.loads(text)))
        except json.JSONDecodeError as e:
            raise InputError(f"{path.name} is not valid JSON: {e.msg} (line {e.lineno})") from None
    else:
        fmt, records = "training", []
        for n, line in enumerate(text.split("\n")):
            if line.strip():
                try:
                    records.append((n, json.loads(line)))
                except json.JSONDecodeError as e:
                    raise InputError(f"{path.name} line {n + 1} is not valid JSON: {e.msg}") \
                        from None
    if not records:
        raise InputError(f"{path.name} holds no items")
    items = []
    for n, rec in records:
        where = f"item {n + 1}" if fmt == "bench" else f"line {n + 1}"
        if not isinstance(rec, dict) or not isinstance(rec.get("video_path"), str):
            items.append(_Item(where, None, None, None, "needs video_path and gt_caption"))
            continue
        where += f" ({Path(rec['video_path']).name})"
        video = _inside(path.parent, rec["video_path"]) if confined else (
            path.parent / Path(rec["video_path"]).expanduser()).resolve()
        items.append(_Item(where, video, rec.get("gt_caption"), rec.get("statements"),
                           "" if video else "its video_path points outside the folder"))
    return fmt, items


def _parquet_items(folder: Path) -> list[_Item]:
    import pyarrow.parquet as pq

    files = sorted((folder / "data").glob("*.parquet")) or sorted(folder.rglob("*.parquet"))
    items = []
    for f in files:
        for n, rec in enumerate(pq.read_table(f).to_pylist()):
            rel = rec.get("video_path")
            where = f"{f.name} row {n + 1}" + (f" ({Path(rel).name})" if isinstance(rel, str)
                                               else "")
            video = _inside(folder, rel) if isinstance(rel, str) else None
            items.append(_Item(where, video, rec.get("gt_caption"), rec.get("statements"),
                               "" if video else "no video_path inside the folder",
                               str(rec.get("file_name") or "")))
    return items


def _find_source(source: Path, confined: bool) -> tuple[str, list[_Item], Path | None]:
    """(format, items, the bench file when the source is one)."""
    if source.is_dir():
        if (source / "data").is_dir() and any((source / "data").glob("*.parquet")):
            return "hf", _parquet_items(source), None
        for name in (BENCH_FILE, TRAINING_FILE):
            if (source / name).is_file():
                fmt, items = _json_items(source / name, confined)
                return fmt, items, source / name if fmt == "bench" else None
        data_files = [p for p in source.iterdir() if p.is_file()
                      and p.suffix.lower() in (".json", ".jsonl") and not p.name.startswith(".")]
        if len(data_files) == 1:  # a bench folder whose file has another name
            fmt, items = _json_items(data_files[0], confined)
            return fmt, items, data_files[0] if fmt == "bench" else None
        subdirs = [p for p in source.iterdir() if p.is_dir()]
        if len(subdirs) == 1:  # a zip of one folder
            return _find_source(subdirs[0], confined)
        raise InputError(f"{source.name!r} holds no dataset: expected {BENCH_FILE}, "
                         f"{TRAINING_FILE}, one other .json/.jsonl file, or data/*.parquet (a "
                         "Hugging Face datasets folder)")
    if source.suffix.lower() in (".json", ".jsonl"):
        fmt, items = _json_items(source, confined)
        return fmt, items, source if fmt == "bench" else None
    raise InputError(f"{source.name!r} is not a dataset this app reads: a CineCap-Bench .json "
                     "file, a cinecap-gold-pairs/1 .jsonl file, a folder of one, or a zip")


def _statements(item: _Item, caption: str, video: Path) -> list[dict[str, Any]]:
    from cinecap.statements import Statement

    if item.statements is None:
        from cinecap.training.data import GoldPair, gold_statements

        return [_contract(s.to_dict()) for s in
                gold_statements(GoldPair(0, "", video, caption, None))]
    if not isinstance(item.statements, list):
        raise InputError("statements must be a list")
    out = []
    for raw in item.statements:
        if not isinstance(raw, dict):
            raise InputError("each statement must be an object with aspect and value")
        try:
            out.append(_contract(Statement.from_dict(
                {k: v for k, v in raw.items() if k in GOLD_FIELDS}).to_dict()))
        except (TypeError, ValueError) as e:
            raise InputError(f"bad statement {raw.get('value')!r}: {e}") from None
    return out


def _contract(st: dict[str, Any]) -> dict[str, Any]:
    st = {k: st.get(k) for k in GOLD_FIELDS}
    st["evidence"] = st["evidence"] or ""
    return st


def _same(g: GoldPairRecord, caption: str, statements: list[dict[str, Any]]) -> bool:
    """The same gold pair: the caption (up to white space) and the statements' contract fields."""
    return (" ".join(g.caption.split()) == " ".join(caption.split())
            and [_contract(s) for s in g.statements] == statements)


def import_dataset(store: Store, user: UserRecord, source: str | Path, settings: Any = None,
                   accept: bool = True, confined: bool = False,
                   progress: Progress | None = None) -> ImportReport:
    """Add a dataset's clips and gold pairs to the store (see the module docstring for what it
    reads). Each item is checked on its own — the clip exists and is a usable video (the app's
    limits, ``settings``), the caption is not empty, the statements are valid, nothing is over
    the store's limits — and a bad item is skipped with its reason while the rest go in. A gold
    pair the store has already (same clip content, caption and statements) is skipped, so
    importing twice adds nothing. ``accept``: imported pairs are approved by the importer (a
    published bench's captions are gold); else they wait for a reviewer. ``confined``: video
    paths must stay inside the source's folder (an uploaded zip)."""
    from cinecap.files import sha256_file

    require_role(user.role, "admin", "importing gold pairs")
    progress = progress or no_progress
    source = Path(source)
    if not source.exists():
        raise InputError(f"{source.name!r} does not exist")
    with tempfile.TemporaryDirectory(prefix="cinecap-import-") as tmp:
        if source.is_file() and source.suffix.lower() == ".zip":
            folder = Path(tmp) / "unpacked"
            unpack_zip(source, folder, _limits(settings).max_bytes * 4)
            fmt, items, bench_file = _find_source(folder, confined=True)
        else:
            fmt, items, bench_file = _find_source(source, confined)
        report = ImportReport(source.name, fmt, len(items))
        writer = _writer(store, user)
        limits = _limits(settings)
        for n, item in enumerate(items):
            progress(n / max(1, len(items)), f"importing {item.where}")
            try:
                _import_one(store, writer, item, limits, accept, report, source.name)
            except CinecapError as e:
                report.skipped.append(f"{item.where}: {_no_paths(e.message, source)}")
        if bench_file is not None:
            store.bench_runs.add_bench(sha256_file(bench_file), _bench_name(source, bench_file),
                                       len(items), "import", writer, file=bench_file)
    progress(1.0, "done")
    return report


def _bench_name(source: Path, bench_file: Path) -> str:
    return source.name if source.is_file() and source.suffix != ".zip" else (
        f"{source.stem}/{bench_file.name}")


def _no_paths(message: str, source: Path) -> str:
    return message.replace(str(source.parent.resolve()) + os.sep, "")


def _limits(settings: Any):
    from cinecap.video import VideoLimits

    if settings is None:
        return VideoLimits()
    costs = {k: v for k, v in (("max_pixel_rate", settings.max_pixel_rate),
                               ("max_total_pixels", settings.max_total_pixels)) if v is not None}
    return VideoLimits(max_bytes=settings.max_upload_bytes,
                       max_duration_s=settings.max_duration_s, **costs)


def _import_one(store: Store, writer: UserRecord, item: _Item, limits, accept: bool,
                report: ImportReport, source_name: str) -> None:
    from cinecap.files import sha256_file
    from cinecap.video import probe

    if item.problem:
        raise InputError(item.problem)
    caption = item.gt_caption
    if not isinstance(caption, str) or not caption.strip():
        raise InputError("the gold caption is missing or empty")
    caption = check_storable(caption, "gold caption").strip()
    if item.video is None or not item.video.is_file():
        raise InputError("its video file is not there")
    info = probe(item.video, limits)
    statements = _statements(item, caption, item.video)
    check_gold_pair(statements, caption, "")
    digest = sha256_file(item.video)
    known = store.clips.find_by_sha256(digest)
    if known is not None:
        for g in store.review.gold_pairs(known.id):
            if _same(g, caption, statements):
                raise _Skip(f"already in the store (gold pair #{g.id})")
    name = item.file_name or _HASH_PREFIX.sub("", item.video.name)
    clip = known or store.clips.add(item.video, check_storable(name, "clip's file name"),
                                    info.to_dict(), writer, sha256=digest)
    report.clips_added += known is None
    gold = store.review.save(clip.id, clip.version, writer, statements, [], caption)
    if accept:
        gold = store.review.decide(gold.id, writer, "accepted", gold.version,
                                   note=f"imported from {source_name}")
    report.added.append(gold.id)


class _Skip(InputError):
    """An item that is fine but need not be imported (it is in the store already)."""


def unpack_zip(path: str | Path, dest: str | Path, max_bytes: int) -> Path:
    """Unpack an uploaded zip safely: no member outside ``dest`` (absolute, ``..``, links), at most
    :data:`MAX_ZIP_FILES` files and ``max_bytes`` in all (counted as written, not trusted from
    the zip's own header)."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    path = Path(path)
    try:
        z = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError):
        raise InputError(f"{path.name!r} is not a zip file") from None
    written = 0
    with z:
        members = z.infolist()
        if len(members) > MAX_ZIP_FILES:
            raise InputError(f"{path.name!r} holds {len(members)} files, more than "
                             f"{MAX_ZIP_FILES}")
        for info in members:
            if info.is_dir():
                continue
            if (info.external_attr >> 16) & 0o170000 == 0o120000:
                raise InputError(f"{path.name!r} holds a symbolic link ({info.filename}); "
                                 "zip the files themselves")
            target = _inside(dest, info.filename)
            if target is None or Path(info.filename).is_absolute():
                raise InputError(f"{path.name!r} holds a path outside its folder "
                                 f"({info.filename!r})")
            target.parent.mkdir(parents=True, exist_ok=True)
            with z.open(info) as src, open(target, "wb") as out:
                while chunk := src.read(1 << 20):
                    written += len(chunk)
                    if written > max_bytes:
                        raise InputError(f"{path.name!r} unpacks to more than "
                                         f"{max_bytes / 2**20:,.0f} MB")
                    out.write(chunk)
    return dest


# --- the data of a training round ----------------------------------------------------------------

@dataclass(frozen=True)
class GoldPairsExport:
    """What :func:`export_gold_pairs` wrote."""

    path: Path
    pairs: int
    clips: int
    gold_pair_ids: list[int]
    per_aspect: dict[str, int]  # gold statements per aspect (every aspect, 0 where none)
    skipped: list[str] = field(default_factory=list)  # "gold pair #7: empty caption"

    @property
    def max_gold_pair_id(self) -> int:
        return max(self.gold_pair_ids, default=0)

    def to_dict(self) -> dict:
        return {"format": "cinecap-gold-pairs/1", "file": str(self.path), "pairs": self.pairs,
                "clips": self.clips, "gold_pair_ids": self.gold_pair_ids,
                "max_gold_pair_id": self.max_gold_pair_id, "per_aspect": self.per_aspect,
                "skipped": self.skipped}


def export_gold_pairs(store: Store, user: UserRecord, dest: str | Path,
                      include_submitted: bool = False) -> GoldPairsExport:
    """Write the gold pairs (:func:`gold_pairs`) to ``dest`` as ``cinecap-gold-pairs/1`` JSONL:
    ``{"id": "gold-pair-<id>", "video_path": <the stored clip>, "gt_caption", "statements"}``,
    one per line, written under a temporary name and renamed, then read back with the training
    code's own reader (``cinecap.training.data.load_pairs``), so a round never starts on data it
    would refuse. Unlike :func:`export_training` it copies no clips: a round reads them where
    the store keeps them. Needs the admin role (it reads every annotator's work)."""
    require_role(user.role, "admin", "exporting the gold pairs")
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    chosen, skipped = _chosen_pairs(store, include_submitted)
    lines = []
    for g in chosen:
        clip = store.clips.get(g.clip_id)
        sts = [{k: v for k, v in st.items() if v not in (None, "")}
               for st in gold_statements_of(g)]
        lines.append(json.dumps({"id": f"gold-pair-{g.id}", "video_path": clip.path,
                                 "gt_caption": g.caption, "statements": sts},
                                ensure_ascii=False))
    _write_atomic(dest, "".join(line + "\n" for line in lines))
    if lines:
        from cinecap.training.data import load_pairs

        load_pairs(dest)  # InputError naming the line, should a stored pair break the contract
    return GoldPairsExport(dest, len(chosen), len({g.clip_id for g in chosen}),
                           [g.id for g in chosen], statements_per_aspect(chosen), skipped)
