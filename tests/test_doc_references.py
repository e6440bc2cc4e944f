"""Every file a doc or a docstring cites is in the repository.

Someone who clones the repository must be able to follow every reference: no ``.py`` or ``.md``
file may cite the team's working notes (kept outside the repository; the spec they fed is
docs/spec/), a repository path that does not exist (``docs/…``, ``cinecap/…``, ``tests/…`` …), or
a relative Markdown link that leads nowhere. CHANGELOG.md is history: it may name files that have
since moved, so only the first check applies to it.
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: The team's notes outside the repository (spelled in pieces so this file does not cite them).
OUTSIDE = tuple(name + ".md" for name in ("PROTOCOL", "ARCHITECTURE", "TAXONOMY", "STACK", "STYLE"))
TOP = ("docs", "cinecap", "tests", "benchmarks", "db", "ui", ".ci")
EXTENSIONS = ("py", "md", "txt", "json", "jsonl", "toml", "ini", "sh", "yml", "yaml", "cfg",
              "mp4", "png", "html", "css", "js", "sqlite", "mako")
PATH = re.compile(r"(?<![\w./-])((?:%s)/[\w./-]*?\w\.(?:%s))(?![\w/])"
                  % ("|".join(map(re.escape, TOP)), "|".join(EXTENSIONS)))
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)\s]*)?\)")
HISTORY = {"CHANGELOG.md"}


def repository_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "*.py", "*.md"],
                             cwd=ROOT, capture_output=True, text=True, check=True).stdout
        files = [ROOT / line for line in out.splitlines() if line]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout
        files = [p for p in ROOT.rglob("*") if p.suffix in (".py", ".md")
                 and not {".venv", ".git", "node_modules"} & set(p.relative_to(ROOT).parts)]
    return sorted(p for p in files if p.is_file())


def bad_references(text: str, where: Path) -> list[str]:
    """What ``text`` (the content of ``where``) cites that a clone of the repository lacks."""
    bad = [f"cites {name}, a note outside the repository (cite docs/spec/ instead)"
           for name in OUTSIDE if name in text]
    if where.name in HISTORY:
        return bad
    for m in PATH.finditer(text):
        if not (ROOT / m.group(1)).exists():
            bad.append(f"cites {m.group(1)}, which is not in the repository")
    if where.suffix == ".md":
        for m in LINK.finditer(text):
            target = m.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            if not (where.parent / target).resolve().exists():
                bad.append(f"links to {target}, which does not exist")
    return bad


FILES = repository_files()


def test_the_files_are_found():
    names = {p.relative_to(ROOT).as_posix() for p in FILES}
    assert {"README.md", "docs/spec/method.md", "docs/spec/judge.md", "docs/spec/taxonomy.md",
            "cinecap/reward.py", "tests/conftest.py"} <= names


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_cited_file_is_in_the_repository(path):
    bad = bad_references(path.read_text(encoding="utf-8", errors="replace"), path)
    assert not bad, f"{path.relative_to(ROOT)}: " + "; ".join(bad)


def test_the_check_catches_what_it_should():
    doc = ROOT / "docs" / "example.md"
    assert bad_references("see docs/judge.md and cinecap/reward.py, [x](spec/judge.md#scores)",
                          doc) == []
    gone = "cinecap/" + "synthetic.py"  # moved to cinecap/testing/ (spelled apart: not a citation)
    found = bad_references(f"see {OUTSIDE[0]}, docs/{'nowhere'}.md, {gone} and "
                           "[the map](no-such-page.md)", doc)
    assert len(found) == 4, found
    assert bad_references(f"moved {gone} to cinecap/testing/", ROOT / "CHANGELOG.md") == []
