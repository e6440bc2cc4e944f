"""Limits on every input of the command line (issue 10, "low" items): ``judge --pairs`` reading
line by line as written, and ``analyze`` on frames too small or too thin to read. The command
line's own entry point (``cinecap.cli.main``, in-process: tests/support/cli.py) on real files and
bytes on stdin; each bad input is one clear line, never a traceback."""
from __future__ import annotations

import json

from tests.support.cli import CliResult, cli as cinecap

GOOD = {"gt": "A close-up.", "pred": "A close-up."}


def rows_of(p: CliResult) -> list[dict]:
    # The output's own lines: JSON escapes every line break inside a row.
    return [json.loads(x) for x in p.stdout.split("\n") if x]


def test_pairs_rows_line_up_with_input_lines_whatever_the_characters(tmp_path):
    """U+2028, U+2029 and U+0085 inside a JSON line do not split it (str.splitlines did); a
    blank line and a CRLF ending keep their place; one row per input line."""
    inside = {"id": "u2028", "gt": "A close-up.\u2028The camera pans left.\u0085",
              "pred": "A close-up.\u2029"}
    raw = (json.dumps(GOOD).encode() + b"\n"
           + json.dumps(inside, ensure_ascii=False).encode("utf-8") + b"\r\n"
           + b"   \n"
           + json.dumps({**GOOD, "id": "last"}).encode())  # no final newline
    f = tmp_path / "pairs.jsonl"
    f.write_bytes(raw)
    p = cinecap("judge", "--pairs", str(f))
    rows = rows_of(p)
    assert p.returncode == 0, p.stderr
    assert len(rows) == 4
    assert rows[1]["id"] == "u2028" and rows[1]["total_gt_count"] == 2
    assert rows[2] == {"line": 3, "skipped": "blank line"}
    assert rows[3]["id"] == "last" and rows[3]["f1"] == 1.0
    assert "1 blank line skipped" in p.stderr


def test_pairs_bad_bytes_are_named_by_line_and_the_rest_is_judged():
    raw = b"\n".join([json.dumps(GOOD).encode(),
                      b'{"gt": "A wide shot.", "pred": "caf\xe9"}',  # Latin-1, not UTF-8
                      b'{"gt": "A wide\x00 shot.", "pred": "x"}',  # a raw NUL byte
                      json.dumps({"gt": "A close-up.\u0000", "pred": "x"}).encode(),  # escaped
                      json.dumps(GOOD).encode()]) + b"\n"
    p = cinecap("judge", "--pairs", "-", stdin=raw)
    rows = rows_of(p)
    assert p.returncode == 2 and len(rows) == 5
    assert rows[1] == {"line": 2, "error": "line 2: not UTF-8 text (byte 0xe9 at column 36)"}
    assert rows[2]["line"] == 3 and "NUL byte" in rows[2]["error"]
    assert rows[3]["line"] == 4 and "NUL" in rows[3]["error"]
    assert rows[0]["f1"] == rows[4]["f1"] == 1.0
    assert "Traceback" not in p.stderr


def test_analyze_refuses_frames_too_small_or_too_thin_with_one_line(tmp_path):
    from tests.support.clips import costly_clip

    for size, needle in (((2, 2), "too small to analyse"), ((4096, 16), "too elongated")):
        clip = costly_clip(tmp_path / f"{size[0]}x{size[1]}.mp4", *size, fps=25, seconds=1)
        p = cinecap("analyze", str(clip), "--json")
        err = p.stderr
        assert p.returncode == 3 and err.startswith("error:") and needle in err, err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1
