"""The tabs' templates: autoescaped, strict about missing names, static files inside ui/static."""
import pytest
import jinja2

from ui.tabs import markup


def test_user_text_is_escaped_and_safe_markup_is_kept(tmp_path, monkeypatch):
    (tmp_path / "t.html").write_text("<p>{{ text }}</p>{{ safe }}")
    monkeypatch.setattr(markup, "TEMPLATES_DIR", tmp_path)
    markup._environment.cache_clear()
    try:
        out = markup.render("t.html", text="<script>alert(1)</script> & co",
                            safe=markup.Markup("<b>ok</b>"))
        with pytest.raises(jinja2.UndefinedError):
            markup.render("t.html", text="only one")
    finally:
        markup._environment.cache_clear()
    assert out == "<p>&lt;script&gt;alert(1)&lt;/script&gt; &amp; co</p><b>ok</b>"


def test_static_files_are_read_from_ui_static_only():
    assert "ui/tabs/markup.py" in markup.static_text("README.md")
    assert markup.script("README.md").startswith("<script>")
    with pytest.raises(ValueError, match="outside static/"):
        markup.static_text("../app.py")


def test_html_templates_lose_their_layout_lines_and_markdown_keeps_them(tmp_path, monkeypatch):
    (tmp_path / "t.html").write_text("<ul>\n  {% for x in xs %}\n    <li>{{ x }}</li>\n"
                                     "  {% endfor %}\n</ul>\n")
    (tmp_path / "t.md").write_text("{% for x in xs %}\n- {{ x }}\n{% endfor %}\n")
    monkeypatch.setattr(markup, "TEMPLATES_DIR", tmp_path)
    markup._environment.cache_clear()
    try:
        html, md = (markup.render(n, xs=["a\nb", "<c>"]) for n in ("t.html", "t.md"))
    finally:
        markup._environment.cache_clear()
    # The template's own line breaks go; a line break in the text itself stays.
    assert html == "<ul><li>a\nb</li><li>&lt;c&gt;</li></ul>"
    assert md == "- a\nb\n- &lt;c&gt;\n"


def test_every_template_compiles_and_a_script_gets_its_values_before_it_runs():
    names = sorted(p.name for p in markup.TEMPLATES_DIR.iterdir() if p.suffix in (".html", ".md"))
    assert "results_scores.html" in names and "timeline_bars.html" in names
    for name in names:
        markup._environment().get_template(name)  # a syntax error fails here, not on a page
    head = markup.script("caption.js", videoAccept=".mp4,</script>")
    assert head.index("window.cinecapConfig") < head.index("__cinecapExamples")
    assert head.count("</script>") == 1  # the value cannot close the element
