"""Bench files and results files for the leaderboard tests, made by the library's own bench code
(``cinecap.bench.run_bench``) with the real ``rules`` judge; the captions come from a table, so a
test decides what each model "said" (the captioner is not what those tests are about)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cinecap.testing.captioners import TableCaptioner

GOLD = {
    "a.mp4": "The camera pans left. It is a close-up of the woman, who faces the camera.",
    "b.mp4": "A static wide shot from a high angle.",
    "c.mp4": "The camera tilts up. A medium shot with a shallow depth of field.",
}
#: What three "models" say about the clips (the better the model, the closer to GOLD).
GOOD = dict(GOLD)
FAIR = {"a.mp4": "The camera pans left. A close-up.", "b.mp4": "A static medium shot.",
        "c.mp4": "The camera tilts up."}
POOR = {"a.mp4": "The camera is static. A wide shot.", "b.mp4": "The camera pans right.",
        "c.mp4": "A close-up."}


def _protocol() -> dict[str, str]:
    from cinecap.bench import protocol_of
    from cinecap.judge import get_judge

    return protocol_of(get_judge("rules"), TableCaptioner({}))


#: The protocol object the library writes into these results files (the rules judge).
PROTOCOL = _protocol()


def bench_file(folder: Path, names: tuple[str, ...] = ("a.mp4", "b.mp4", "c.mp4")) -> Path:
    """A CineCap-Bench file over ``names`` (the clips need not exist for a table captioner)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "bench.json"
    path.write_text(json.dumps([{"video_path": n, "gt_caption": GOLD[n]} for n in names]))
    return path


def results(bench: Path, answers: dict[str, str], model: str = "table",
            protocol: dict[str, str] | None = PROTOCOL) -> dict[str, Any]:
    """What ``cinecap bench --out`` writes for ``answers``, made by the library's code with the
    rules judge, with ``protocol`` as its protocol object (None: none, as in a file written
    before protocols were recorded)."""
    from cinecap.bench import load_bench, run_bench
    from cinecap.files import sha256_file
    from cinecap.judge import get_judge

    judge = get_judge("rules")
    out = run_bench(load_bench(bench), TableCaptioner(answers, model), judge,
                    meta={"bench_file": str(bench), "bench_sha256": sha256_file(bench),
                          "options": {}, "judge_options": {}}).to_dict()
    if protocol is None:
        out.pop("protocol", None)  # a file from before protocols were recorded
    else:
        out["protocol"] = {**protocol, "judge_version": judge.version}
    return out


def write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False))
    return path


def known(store: Any, bench: Path, name: str = "mini") -> None:
    """Let ``store`` know ``bench`` with its file, as an import or an export does: results on it
    are then judged again by the server (measured), not kept as self-reported."""
    from cinecap.files import sha256_file

    store.bench_runs.add_bench(sha256_file(bench), name, None, "import", file=bench)
