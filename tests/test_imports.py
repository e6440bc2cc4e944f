"""The direction of imports (docs/architecture.md): ``ui → db → cinecap`` and ``ui → cinecap``.

- ``cinecap`` never imports ``db``, ``ui`` or Gradio (nor names them for a lazy import);
- ``db`` never imports ``ui`` or Gradio;
- no module imports both Gradio and ``db``: the tabs reach the store only through the use cases;
- ``ui/usecases`` imports no Gradio, and importing it (or the app's CLI) never loads Gradio.

Checked on the source of every module of the product (``cinecap/``, ``db/``, ``ui/``, ``app.py``):
every import statement in the syntax tree, including those inside functions and under
``TYPE_CHECKING``, and ``importlib.import_module("…")`` / ``__import__("…")`` with a literal name.
"""
from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("cinecap", "db", "ui")
MODULE_NAME = re.compile(r"^(cinecap|db|ui|gradio)(\.[A-Za-z_]\w*)*$")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def product_modules() -> dict[str, Path]:
    files = [p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))]
    files.append(ROOT / "app.py")
    return {module_name(p): p for p in files}


def imports_of(source: str, module: str, is_package: bool = False) -> set[str]:
    """Every module name ``source`` imports anywhere (absolute, dotted)."""
    found: set[str] = set()
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            found.add(name)
            found.update(f"{name}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                found.add(node.args[0].value)
    return found


def top(names: set[str]) -> set[str]:
    return {n.split(".")[0] for n in names if n}


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    out = {}
    for name, path in product_modules().items():
        out[name] = imports_of(path.read_text(encoding="utf-8"), name,
                               is_package=path.name == "__init__.py")
    return out


def test_the_checker_sees_function_local_relative_and_by_name_imports():
    src = ("import os\n"
           "def f():\n    import gradio as gr\n"
           "def g():\n    from .store import Store\n"
           "def h():\n    importlib.import_module('db.cli')\n"
           "if TYPE_CHECKING:\n    from ui.app import build_app\n")
    found = imports_of(src, "db.something")
    assert {"gradio", "db.store", "db.cli", "ui.app"} <= found


def test_the_graph_covers_the_product(graph):
    # Vacuous passes are impossible: the known edges are seen.
    assert "gradio" in top(graph["ui.tabs.caption"]) and "gradio" in top(graph["ui.app"])
    assert "db" in top(graph["ui.usecases.review"]) and "db" in top(graph["db.store"])
    assert {"cinecap.cli", "ui.usecases.accounts"} <= {m for m in graph if m.startswith(
        ("cinecap.cli", "ui.usecases"))}


def test_cinecap_never_imports_db_ui_or_gradio(graph):
    bad = {m: sorted(top(i) & {"db", "ui", "gradio"}) for m, i in graph.items()
           if m.split(".")[0] == "cinecap" and top(i) & {"db", "ui", "gradio"}}
    assert not bad, f"the library imports the app: {bad}"


def test_cinecap_does_not_name_db_or_ui_for_a_lazy_import():
    """The old seam: ``cinecap`` listed ``"users": "db.cli"`` and imported it by name."""
    bad = []
    for name, path in product_modules().items():
        if name.split(".")[0] != "cinecap":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and MODULE_NAME.match(node.value)
                    and node.value.split(".")[0] in ("db", "ui", "gradio")):
                bad.append(f"{name}: {node.value!r}")
    assert not bad, bad


def test_db_never_imports_ui_or_gradio(graph):
    bad = {m: sorted(top(i) & {"ui", "gradio"}) for m, i in graph.items()
           if m.split(".")[0] == "db" and top(i) & {"ui", "gradio"}}
    assert not bad, f"the store imports the app or Gradio: {bad}"


def test_no_module_imports_both_gradio_and_db(graph):
    both = sorted(m for m, i in graph.items() if {"gradio", "db"} <= top(i))
    assert not both, f"these reach the store and Gradio at once (use a use case): {both}"


def test_use_cases_import_no_gradio(graph):
    bad = sorted(m for m, i in graph.items()
                 if m.startswith("ui.usecases") and "gradio" in top(i))
    assert not bad, bad


def _fresh_interpreter(code: str) -> dict:
    """What ``code`` printed as its last line of JSON, run in a new Python from the checkout."""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_importing_the_use_cases_and_the_cli_never_loads_gradio():
    """In a fresh interpreter: every module of ui.usecases, the app's CLI and the context."""
    code = (
        "import importlib, json, pkgutil, sys\n"
        "import ui.usecases\n"
        "names = [m.name for m in pkgutil.walk_packages(ui.usecases.__path__, 'ui.usecases.')]\n"
        "for n in names + ['ui.cli', 'ui.context', 'ui.settings', 'ui.backends']:\n"
        "    importlib.import_module(n)\n"
        "print(json.dumps({'imported': names,\n"
        "                  'gradio': sorted(m for m in sys.modules\n"
        "                                   if m == 'gradio' or m.startswith('gradio.'))}))\n")
    result = _fresh_interpreter(code)
    assert {"ui.usecases.accounts", "ui.usecases.caption",
            "ui.usecases.review"} <= set(result["imported"])
    assert result["gradio"] == [], f"importing the use cases loaded {result['gradio'][:5]}"


def test_the_train_tabs_form_imports_no_torch_without_a_gpu_driver(tmp_path):
    """What the app asks while it is built (the Train tab's form and hardware note), in a fresh
    interpreter: torch is imported only where a GPU driver could give it a GPU."""
    code = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from ui.settings import Settings\n"
        "from ui.usecases import rounds\n"
        f"s = Settings(data_dir=Path({str(tmp_path)!r}))\n"
        "fields = [f.name for st in rounds.STAGES for f in rounds.form_fields(st, s)]\n"
        "print(json.dumps({'torch': 'torch' in sys.modules, 'fields': len(fields),\n"
        "                  'driver': not rounds.no_gpu_driver(),\n"
        "                  'note': rounds.hardware(s).note}))\n")
    result = _fresh_interpreter(code)
    assert result["fields"] > 0
    assert result["torch"] == result["driver"], result
    if not result["driver"]:
        assert result["note"].startswith("No GPU on this machine"), result


def test_benchmarks_never_import_the_tests():
    """A benchmark runs on what the product ships plus benchmarks/support.py, never on tests/
    (what both need lives in cinecap.testing or benchmarks/support.py)."""
    offenders = {}
    for path in sorted((ROOT / "benchmarks").rglob("*.py")):
        names = imports_of(path.read_text(encoding="utf-8"), module_name(path))
        bad = sorted(n for n in names if n == "tests" or n.startswith("tests."))
        if bad:
            offenders[str(path.relative_to(ROOT))] = bad
    assert not offenders, offenders
