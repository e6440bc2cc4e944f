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
