"""The page code reads in parts: no function under ui/tabs/ is longer than 120 lines (issue 24:
a tab's build is split into its components, its handlers and their wiring)."""
from __future__ import annotations

import ast
from pathlib import Path

TABS = Path(__file__).resolve().parent.parent / "ui" / "tabs"
MOST = 120


def long_functions(path: Path, most: int = MOST) -> list[str]:
    """``name (N lines)`` of each function in ``path`` longer than ``most`` lines, nested ones
    included (a handler inside a build counts on its own and inside its build)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [f"{path.name}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
            for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > most]


def test_no_function_under_ui_tabs_is_longer_than_120_lines():
    files = sorted(TABS.glob("*.py"))
    assert len(files) >= 10  # the walk found the tabs
    too_long = [line for f in files for line in long_functions(f)]
    assert not too_long, "split these by concern (components, handlers, wiring): " + "; ".join(
        too_long)


def test_the_count_is_the_whole_definition(tmp_path):
    source = tmp_path / "tab.py"
    body = "\n".join(f"    x{i} = {i}" for i in range(MOST - 1))
    source.write_text(f"def fits():\n{body}\n\n\ndef over():\n{body}\n    y = 1\n")
    assert long_functions(source) == [f"tab.py:{MOST + 3} over ({MOST + 1} lines)"]
