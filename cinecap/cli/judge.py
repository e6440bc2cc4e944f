"""``cinecap judge``: judge a predicted caption against a gold one, or a JSONL file of pairs.

    cinecap judge --gt TEXT --pred TEXT [--judge rules] [--json]
    cinecap judge --gt-file GT.txt --pred-file PRED.txt --json
    cinecap judge --pairs pairs.jsonl          # one JSON result per input line, in order

``--json`` prints the judge JSON (docs/spec/judge.md) plus "comprehensiveness", "accuracy", "f1"
(the project's own F1, docs/protocol.md) and "reward" (docs/architecture.md "Contracts"), and,
for the llm judge, the "protocol" it judged under; a failed judgement's scores are null. The llm
judge's protocol is set with ``--judge-option prompt=… counting=… judged_text=…``. ``--judge-option KEY=VALUE`` sets a field of the
judge's config (``model=…``, ``timeout=60``); one it does not take is an error naming those it
does. In batch mode each line of the input is ``{"gt": ..., "pred": ..., "id"?: ...}``, one per
line ending in ``\n`` (never another Unicode line break); each input line gives one output line
in the same place: a result, ``{"line": n, "error": ...}`` for a bad line (not JSON, not UTF-8, a
NUL byte: the exit status is 2 once all lines are written), or ``{"line": n, "skipped": "blank
line"}``.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from cinecap import taxonomy as tx
from cinecap.cli.options import add_judge_options, judge_options
from cinecap.errors import InputError, JudgeError
from cinecap.reward import COVERAGE_MODES, RewardConfig, reward


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("judge", help="judge a predicted caption against a gold one",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    gt = p.add_mutually_exclusive_group()
    gt.add_argument("--gt", metavar="TEXT", help="the gold caption")
    gt.add_argument("--gt-file", metavar="FILE", help="read the gold caption from a UTF-8 file")
    pred = p.add_mutually_exclusive_group()
    pred.add_argument("--pred", metavar="TEXT",
                      help="the predicted caption (a <think>/<answer> output: only <answer> counts)")
    pred.add_argument("--pred-file", metavar="FILE", help="read the prediction from a UTF-8 file")
    p.add_argument("--pairs", metavar="FILE",
                   help='JSONL of {"gt", "pred", "id"?} ("-" = stdin); prints one result per line')
    p.add_argument("--judge", default="rules", help="judge backend (default: rules)")
    add_judge_options(p)
    p.add_argument("--coverage", choices=COVERAGE_MODES, default="symmetric",
                   help="reward coverage term (default: symmetric, the method summary)")
    p.add_argument("--tau", type=float, default=0.75, help="reward accuracy gate (default 0.75)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=run)


def _read(path: str, what: str) -> str:
    f = Path(path)
    if not f.is_file():
        raise InputError(f"{what} file {path!r} does not exist")
    try:
        return f.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{what} file {path!r} is not UTF-8 text") from None
    except OSError as e:
        raise InputError(f"cannot read {what} file {path!r}: {e.strerror}") from None


def result_dict(j, cfg: RewardConfig) -> dict[str, Any]:
    """The ``--json`` contract: judge JSON + scores + "reward" (null for a failed judgement), and
    ``judge_limits``: what the judge's scores are worth (the rules judge's; null for others)."""
    from cinecap.judge.limits import judge_limits

    d = j.to_dict()
    r = None if j.failed else reward(j, cfg)
    d["reward"] = None if r is None else r.total
    d["reward_breakdown"] = None if r is None else r.to_dict()
    d["reward_config"] = cfg.to_dict()
    d["judge_limits"] = judge_limits(j.judge)
    return d


def _check_caption(text: str, what: str) -> str:
    if "\x00" in text:
        raise InputError(f"the {what} caption contains NUL bytes: is it a binary file?")
    return text


def run(args: argparse.Namespace) -> int:
    from cinecap.judge import get_judge

    cfg = RewardConfig(tau=args.tau, coverage=args.coverage)
    single = any(x is not None for x in (args.gt, args.gt_file, args.pred, args.pred_file))
    if args.pairs and single:
        raise InputError("use either --pairs FILE or --gt/--pred, not both")
    if not args.pairs and not single:
        raise InputError("nothing to judge: give --gt and --pred (or --gt-file/--pred-file), "
                         "or --pairs FILE")
    judge = get_judge(args.judge, **judge_options(args))
    if args.pairs:
        return _run_pairs(args, judge, cfg)

    gt = args.gt if args.gt is not None else (_read(args.gt_file, "GT") if args.gt_file else None)
    pred = (args.pred if args.pred is not None
            else (_read(args.pred_file, "prediction") if args.pred_file else None))
    if gt is None or pred is None:
        raise InputError("give both a GT caption (--gt/--gt-file) and a prediction "
                         "(--pred/--pred-file)")
    if not gt.strip():
        raise InputError("the GT caption is empty: there is nothing to judge against")
    aspects = getattr(judge, "default_aspects", tx.ASPECTS)  # the training-6 prompt: its six
    j = judge.judge(_check_caption(gt, "GT"), _check_caption(pred, "predicted"), aspects)
    d = result_dict(j, cfg)
    if args.json:
        json.dump(d, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        _print_table(d)
    if j.failed:
        raise JudgeError(f"the {j.judge or args.judge} judge failed: {j.error}")
    return 0


def _print_table(d: dict[str, Any]) -> None:
    print(f"{'aspect':<22}{'gt':>4}{'pred':>6}{'matched':>9}  statements (GT | pred)")
    for aspect, c in d["by_dim"].items():
        print(f"{aspect:<22}{c['gt_count']:>4}{c['pred_count']:>6}{c['matched_count']:>9}  "
              f"{'; '.join(c['gt_statements']) or '-'} | {'; '.join(c['pred_statements']) or '-'}")
    print(f"{'total':<22}{d['total_gt_count']:>4}{d['total_pred_count']:>6}"
          f"{d['total_matched_count']:>9}")
    who = f"({d['judge']} {d['judge_version']})"
    if d["failed"]:  # a failed judgement has no scores
        print(f"no scores: the judgement failed ({d['error']}) {who}")
        return
    print(f"comprehensiveness {d['comprehensiveness']:.3f}  accuracy {d['accuracy']:.3f}  "
          f"f1 (ours) {d['f1']:.3f}  reward {d['reward']:.3f}  {who}")
    if d.get("judge_limits"):
        print(d["judge_limits"])


def _parse_line(n: int, line: str) -> tuple[Any, str, str]:
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as e:
        raise InputError(f"line {n}: not JSON ({e.msg} at column {e.colno})") from None
    if not isinstance(obj, dict):
        raise InputError(f"line {n}: expected an object with \"gt\" and \"pred\"")
    for key in ("gt", "pred"):
        if not isinstance(obj.get(key), str):
            raise InputError(f"line {n}: \"{key}\" must be a string")
    if not obj["gt"].strip():
        raise InputError(f"line {n}: the GT caption is empty")
    return obj.get("id"), obj["gt"], obj["pred"]


def _pair_lines(raw: bytes):
    """``(line number, text or None, error or None)`` per input line. Lines end at ``\n`` only
    (a ``\r`` before it is dropped): U+2028, U+0085 and other Unicode breaks inside a JSON line
    stay part of it. A line that is not UTF-8 or holds a NUL byte is named by its number."""
    pieces = raw.split(b"\n")
    if pieces and pieces[-1] == b"":  # the newline that ends the last line starts no new one
        pieces.pop()
    for n, piece in enumerate(pieces, start=1):
        piece = piece[:-1] if piece.endswith(b"\r") else piece
        if b"\x00" in piece:
            yield n, None, f"line {n}: contains a NUL byte (is this a binary file?)"
            continue
        try:
            yield n, piece.decode("utf-8"), None
        except UnicodeDecodeError as e:
            yield n, None, (f"line {n}: not UTF-8 text (byte 0x{piece[e.start]:02x} at column "
                            f"{e.start + 1})")


def _run_pairs(args: argparse.Namespace, judge, cfg: RewardConfig) -> int:
    """One output row per input line, in order, so results line up with the input: a result, an
    ``{"line", "error"}`` for a bad line, or ``{"line", "skipped": "blank line"}``."""
    if args.pairs == "-":
        raw = sys.stdin.buffer.read()
    else:
        f = Path(args.pairs)
        if not f.is_file():
            raise InputError(f"pairs file {args.pairs!r} does not exist")
        try:
            raw = f.read_bytes()
        except OSError as e:
            raise InputError(f"cannot read pairs file {args.pairs!r}: {e.strerror}") from None
    slots: list[dict[str, Any] | None] = []  # None: filled by a judgement below
    todo: list[tuple[int, Any, str, str]] = []
    blank = 0
    for n, line, error in _pair_lines(raw):
        if error is not None:
            slots.append({"line": n, "error": error})
            continue
        if not line.strip():
            slots.append({"line": n, "skipped": "blank line"})
            blank += 1
            continue
        try:
            pid, gt, pred = _parse_line(n, line)
            _check_caption(gt, "GT")
            _check_caption(pred, "predicted")
        except InputError as e:
            msg = e.message if e.message.startswith(f"line {n}:") else f"line {n}: {e.message}"
            slots.append({"line": n, "error": msg})
            continue
        todo.append((len(slots), pid, gt, pred))
        slots.append(None)
    aspects = getattr(judge, "default_aspects", tx.ASPECTS)
    results = judge.judge_many([(gt, pred) for _, _, gt, pred in todo], aspects) if todo else []
    for (slot, pid, _, _), j in zip(todo, results):
        d = result_dict(j, cfg)
        if pid is not None:
            d = {"id": pid, **d}
        slots[slot] = d
    errors = 0
    for d in slots:
        errors += bool(d.get("failed")) or ("line" in d and "error" in d)  # failed or bad
        print(json.dumps(d, ensure_ascii=False))
    skipped = f"; {blank} blank line{'s' if blank != 1 else ''} skipped" if blank else ""
    print(f"judged {len(todo)} pairs; {errors} bad or failed{skipped}", file=sys.stderr)
    return 2 if errors else 0
