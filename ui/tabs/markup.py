"""The tabs' markup from files: HTML templates in ``ui/templates/`` rendered by Jinja2 with
autoescaping, and the CSS and JavaScript in ``ui/static/`` that go into the page with it.

Jinja2 comes with Gradio. Autoescaping is on for every template, so user text (a caption, a
note, a file name) is escaped where it is rendered; markup a caller has already built safely is
passed as ``markupsafe.Markup``. An undefined name in a template is an error, not an empty string.

An HTML template's line breaks are for its reader: each line's indentation and line break are
dropped when it is loaded, so an element a line renders as one line of HTML (the page's HTML has
no stray text nodes, and tests can read a row as one line). Text that runs on keeps to one line.
A Markdown template (``.md``) keeps its lines; Markdown is rendered as HTML, so it is escaped too.
"""
from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

UI_DIR = Path(__file__).resolve().parent.parent
TEMPLATES_DIR = UI_DIR / "templates"
STATIC_DIR = UI_DIR / "static"

__all__ = ["Markup", "render", "static_text", "script", "TEMPLATES_DIR", "STATIC_DIR"]


class _JoinedLines(jinja2.FileSystemLoader):
    """Templates with their lines joined (the module docstring says why)."""

    def get_source(self, environment: jinja2.Environment, template: str):
        source, filename, uptodate = super().get_source(environment, template)
        if not template.endswith(".html"):  # Markdown: its line breaks mean something
            return source, filename, uptodate
        return "".join(line.lstrip() for line in source.splitlines()), filename, uptodate


@functools.cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=_JoinedLines(TEMPLATES_DIR),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )


def render(template: str, /, **context: Any) -> str:
    """The template ``ui/templates/<template>`` rendered with ``context`` (autoescaped)."""
    return _environment().get_template(template).render(**context)


@functools.cache
def static_text(name: str) -> str:
    """The text of ``ui/static/<name>`` (a tab's CSS or script), read once per process."""
    path = (STATIC_DIR / name).resolve()
    if STATIC_DIR not in path.parents:
        raise ValueError(f"static file outside {STATIC_DIR.name}/: {name!r}")
    return path.read_text(encoding="utf-8")


def script(name: str, **config: Any) -> str:
    """``ui/static/<name>`` as a page-head ``<script>`` element (a tab's ``head``). ``config``:
    values the script reads from ``window.cinecapConfig`` (set before it runs), so a static
    script needs no text pasted into it."""
    given = ""
    if config:
        # JSON inside <script>: "</" must not close the element.
        values = json.dumps(config, ensure_ascii=False).replace("</", "<\\/")
        given = f"window.cinecapConfig = Object.assign(window.cinecapConfig || {{}}, {values});\n"
    return f"<script>\n{given}{static_text(name)}\n</script>\n"
