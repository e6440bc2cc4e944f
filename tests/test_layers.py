"""Imports inside ``cinecap`` run down the layers, never up (docs/architecture.md "Layers").

Every import statement of every module is read (those inside functions too: a lazy import is
still a dependency), so a module that reaches up a layer fails here, e.g. anchors importing
captioners. Within a layer imports go either way. ``cinecap`` never imports the store (``db``),
the app (``ui``) or Gradio; the app's commands (accounts, bench runs in the store) are the app's
own command line, ``python -m ui`` (ui/cli.py), not sub-commands of ``cinecap``.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "cinecap"

#: Bottom to top. A module may import its own layer and those below it.
LAYERS: list[tuple[str, ...]] = [
    ("cinecap", "cinecap.errors", "cinecap.progress", "cinecap.files", "cinecap.config",
     "cinecap.registry", "cinecap.taxonomy", "cinecap.statements", "cinecap.pretrained"),
    ("cinecap.language",),
    ("cinecap.video", "cinecap.openai_client"),
    ("cinecap.anchors",),
    ("cinecap.judge", "cinecap.reward"),
    ("cinecap.captioners",),
    ("cinecap.bench", "cinecap.training", "cinecap.testing", "cinecap.verify"),
    ("cinecap.cli", "cinecap.__main__"),
]
FORBIDDEN = ("db", "ui", "gradio", "gradio_client")


def layer_of(module: str) -> int:
    """The layer of ``module``: that of the longest layer entry it equals or lies under."""
    best, found = -1, None
    for i, names in enumerate(LAYERS):
        for name in names:
            if (module == name or module.startswith(name + ".")) and len(name) > best:
                best, found = len(name), i
    if found is None:
        raise KeyError(module)
    return found


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path, me: str) -> list[tuple[int, str]]:
    """(line, imported module) for every import in the file of module ``me``, relative ones
    resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1]
                                + ([base] if base else []))
            out.append((node.lineno, base))
            # "from cinecap import taxonomy" imports the submodule cinecap.taxonomy
            out += [(node.lineno, f"{base}.{a.name}") for a in node.names
                    if base == "cinecap" or (PACKAGE / Path(*base.split(".")[1:]) / f"{a.name}.py").exists()
                    or (PACKAGE / Path(*base.split(".")[1:]) / a.name).is_dir()]
    return out


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_every_module_has_a_layer():
    missing = []
    for path in MODULES:
        try:
            layer_of(module_name(path))
        except KeyError:
            missing.append(module_name(path))
    assert not missing, f"place these modules in a layer (tests/test_layers.py, docs/architecture.md): {missing}"


def violations(path: Path, me: str) -> list[str]:
    mine = layer_of(me)
    out = []
    for line, target in imports(path, me):
        top = target.split(".")[0]
        if top in FORBIDDEN:
            out.append(f"line {line}: {target} (cinecap never imports {top})")
        elif top == "cinecap" and target != "cinecap" and layer_of(target) > mine:
            out.append(f"line {line}: {target} (layer {layer_of(target)} > {mine})")
    return out


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_run_down_the_layers(path):
    me = module_name(path)
    bad = violations(path, me)
    assert not bad, f"{me} imports up the layers or out of the library: " + "; ".join(bad)


def test_the_check_sees_an_upward_or_outward_import(tmp_path):
    """The check itself: a lazy captioner import in an anchors module, the store in a judge."""
    probe = tmp_path / "probe.py"
    probe.write_text("import numpy\n\ndef f():\n    from cinecap.captioners.base import "
                     "CaptionResult\n    return CaptionResult\n", encoding="utf-8")
    assert violations(probe, "cinecap.anchors.probe") == [
        "line 4: cinecap.captioners.base (layer 5 > 3)"]
    assert violations(probe, "cinecap.bench") == []
    probe.write_text("from db.store import Store\nimport gradio as gr\n", encoding="utf-8")
    assert len(violations(probe, "cinecap.judge.probe")) == 2


def test_model_output_imports_the_decomposer_directly():
    src = (PACKAGE / "captioners" / "model_output.py").read_text(encoding="utf-8")
    assert "from cinecap.language.decompose import decompose" in src
    assert "except ImportError" not in src


def test_light_commands_never_import_the_heavy_packages(small_clip):
    """A fresh interpreter, as a user's: ``cinecap judge`` pays for no model or image package,
    ``cinecap caption`` with the CPU captioner for no model package (heavy imports happen inside
    the backends that need them, docs/architecture.md), and each prints its JSON and nothing else
    on stdout."""
    import subprocess
    import sys

    code = f"""
import contextlib, io, json, sys
from cinecap.cli import main

def run(argv, heavy):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(argv) == 0, argv
    json.loads(out.getvalue())  # stdout is the JSON alone
    bad = sorted(set(heavy) & set(sys.modules))
    assert not bad, f"{{argv[0]}} imported {{bad}}"

run(['judge', '--gt', 'A close-up.', '--pred', 'A close-up.', '--json'],
    {{'torch', 'transformers', 'cv2', 'gradio', 'openai'}})
run(['caption', {str(small_clip)!r}, '--json'], {{'torch', 'transformers', 'gradio', 'openai'}})
"""
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
