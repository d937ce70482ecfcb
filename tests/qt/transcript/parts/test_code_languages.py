"""Code fences' languages: a built-in Pygments language is highlighted; a name Pygments does not know (such as
the "pyt" of a fence still streaming in) is plain text, found without scanning the installed packages for plugins."""

from __future__ import annotations

import pygments.lexers
import pygments.plugin

from desktop_copilot.qt.transcript.parts import markdown


def test_unknown_and_partial_languages_are_plain_text_without_a_plugin_scan(monkeypatch):
    scans: list[str] = []
    original = pygments.plugin.find_plugin_lexers

    def counting():
        scans.append("scan")
        return original()

    monkeypatch.setattr(pygments.plugin, "find_plugin_lexers", counting)
    monkeypatch.setattr(pygments.lexers, "find_plugin_lexers", counting)
    markdown._lexer.cache_clear()
    for name in ("pyt", "pyth", "no-such-language-13"):
        html = markdown.highlight_code("x = 1\n", name)
        assert "x = 1" in html
    assert scans == []
    assert type(markdown._lexer("pyt")).__name__ == "TextLexer"
    assert type(markdown._lexer("python")).__name__ == "PythonLexer"
    highlighted = markdown.highlight_code("def f():\n    return 1\n", "python")
    assert "color" in highlighted and "def" in highlighted
