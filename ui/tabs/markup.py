"""The tabs' markup from files: HTML templates in ``ui/templates/`` rendered by Jinja2 with
autoescaping, and the CSS and JavaScript in ``ui/static/`` that go into the page with it.

Jinja2 comes with Gradio. Autoescaping is on for every template, so user text (a caption, a
note, a file name) is escaped where it is rendered; markup a caller has already built safely is
passed as ``markupsafe.Markup``. An undefined name in a template is an error, not an empty string.
"""
from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

UI_DIR = Path(__file__).resolve().parent.parent
TEMPLATES_DIR = UI_DIR / "templates"
STATIC_DIR = UI_DIR / "static"

__all__ = ["Markup", "render", "static_text", "script", "TEMPLATES_DIR", "STATIC_DIR"]


@functools.cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES_DIR),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )


def render(name: str, **context: Any) -> str:
    """The template ``ui/templates/<name>`` rendered with ``context`` (autoescaped)."""
    return _environment().get_template(name).render(**context)


@functools.cache
def static_text(name: str) -> str:
    """The text of ``ui/static/<name>`` (a tab's CSS or script), read once per process."""
    path = (STATIC_DIR / name).resolve()
    if STATIC_DIR not in path.parents:
        raise ValueError(f"static file outside {STATIC_DIR.name}/: {name!r}")
    return path.read_text(encoding="utf-8")


def script(name: str) -> str:
    """``ui/static/<name>`` as a page-head ``<script>`` element (a tab's ``head``)."""
    return f"<script>\n{static_text(name)}\n</script>\n"
