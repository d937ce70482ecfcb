"""Markdown to the HTML subset QTextDocument understands, with Pygments-highlighted code blocks; links only
where the link policy allows, images as placeholder text (nothing is ever loaded), raw HTML as text.

Also `MarkdownSplitter`, which finds incrementally where a growing Markdown text can be cut
into independently rendered chunks (after a blank line or a closing fence, never inside one).
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from typing import TYPE_CHECKING

from desktop_copilot.core.citations import Source
from desktop_copilot.core.link_safety import image_label, is_allowed, visible_form
from desktop_copilot.core.transcript.markdown_blocks import MarkdownBlockScanner
from desktop_copilot.qt.common.theme import DEFAULT_THEME, Theme

if TYPE_CHECKING:  # markdown-it and Pygments are imported when the first Markdown is rendered, not at start-up
    from markdown_it import MarkdownIt
    from pygments.formatters import HtmlFormatter

PYGMENTS_STYLE = "friendly"
_TH = re.compile(r"<th(\s|>)")


@lru_cache(maxsize=1)
def _formatter() -> HtmlFormatter:
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(style=PYGMENTS_STYLE, noclasses=True, nowrap=True)


@lru_cache(maxsize=64)
def _lexer(language: str):
    from pygments.lexers import TextLexer, get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(language, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return TextLexer(stripnl=False, ensurenl=False)


def highlight_code(code: str, language: str = "", theme: Theme = DEFAULT_THEME) -> str:
    """A code block as a one-cell table (QTextDocument paints table backgrounds, not `<pre>` ones)."""
    code = code[:-1] if code.endswith("\n") else code
    if language:
        from pygments import highlight

        body = highlight(code, _lexer(language.lower()), _formatter()).rstrip("\n")
    else:
        body = html.escape(code)
    label = f'<tr><td class="codelang">{html.escape(language)}</td></tr>' if language else ""
    return (
        f'<table class="code" width="100%" cellspacing="0" cellpadding="0" bgcolor="{theme.code_background}">'
        f'{label}<tr><td class="codecell"><pre>{body}</pre></td></tr></table>\n'
    )


def _render_fence(renderer, tokens, idx, options, env) -> str:
    token = tokens[idx]
    language = token.info.strip().split(maxsplit=1)[0] if token.info.strip() else ""
    return highlight_code(token.content, language)


def _link(href: str, label_html: str) -> str:
    """An anchor for an allowed target (re-checked here: the only place the renderer writes an href)."""
    return f'<a href="{html.escape(href)}">{label_html}</a>' if is_allowed(href) else label_html


def _render_link_open(renderer, tokens, idx, options, env) -> str:
    """Allowed links become anchors (without their title: our tooltip shows the target); any other keeps
    its text as plain text, and shows its target as text when it has no text of its own."""
    href = tokens[idx].attrGet("href") or ""
    allowed = is_allowed(href)
    env["link"] = allowed
    if allowed:
        return f'<a href="{html.escape(href)}">'
    empty = idx + 1 < len(tokens) and tokens[idx + 1].type == "link_close"
    return html.escape(visible_form(href[:200])) if empty else ""


def _render_link_close(renderer, tokens, idx, options, env) -> str:
    return "</a>" if env.pop("link", False) else ""


def _render_image(renderer, tokens, idx, options, env) -> str:
    """An image is never shown: a placeholder naming its alt text and host, a link to it when it is on the web
    (plain text inside another link, as anchors do not nest)."""
    src = tokens[idx].attrGet("src") or ""
    label = html.escape(image_label(renderer.renderInlineAsText(tokens[idx].children, options, env), src))
    return label if env.get("link") else _link(src, label)


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"html": False, "breaks": False}).enable(["table", "strikethrough"])
    parser.add_render_rule("fence", _render_fence)
    parser.add_render_rule("code_block", _render_fence)
    parser.add_render_rule("link_open", _render_link_open)
    parser.add_render_rule("link_close", _render_link_close)
    parser.add_render_rule("image", _render_image)
    return parser


def render_markdown(text: str, theme: Theme = DEFAULT_THEME) -> str:
    """HTML for `text` (raw HTML in the input is escaped, not interpreted). Tables get borders and
    blockquotes a bar on the left through attributes, which QTextDocument honours more than CSS."""
    out = _parser().render(text)
    if "<img" in out:  # never produced by the rules above; refused anyway, as Qt would read the file
        out = out.replace("<img", "&lt;img")
    out = out.replace(
        "<table>",
        f'<table class="md" border="1" cellspacing="0" cellpadding="6" '
        f'style="border-collapse: collapse; border-style: solid; border-color: {theme.border};">',
    )
    out = _TH.sub(f'<th bgcolor="{theme.code_background}"\\1', out)
    out = out.replace(
        "<blockquote>",
        f'<table class="quote" cellspacing="0" cellpadding="0" width="100%"><tr><td width="3" bgcolor="{theme.quote_bar}"></td>'
        f'<td style="padding-left: 12px; color: {theme.muted};">',
    )
    return out.replace("</blockquote>", "</td></tr></table>")


def render_sources(sources: list[Source]) -> str:
    """The numbered sources under a text block: "[1] Title — host", the title a link only if the URL is allowed."""
    lines = []
    for source in sources:
        title = html.escape(source.title)
        if source.url:
            where = f" — {html.escape(source.host)}" if source.host else ""
            entry = (_link(source.url, title) if source.openable else title) + where
        else:
            entry = title + (f" — {html.escape(source.detail)}" if source.detail else "")
        lines.append(f"[{source.number}] {entry}")
    return '<p class="sources"><span class="sources-title">Sources</span><br>' + "<br>".join(lines) + "</p>"


def document_css(theme: Theme = DEFAULT_THEME) -> str:
    """The default style sheet of every transcript QTextDocument."""
    return f"""
        body {{ color: {theme.text}; }}
        p {{ margin-top: 0px; margin-bottom: 10px; line-height: 135%; }}
        li {{ margin-top: 0px; margin-bottom: 2px; line-height: 125%; }}
        ul, ol {{ margin-top: 0px; margin-bottom: 10px; }}
        h1 {{ font-size: x-large; margin-top: 6px; margin-bottom: 8px; }}
        h2 {{ font-size: large; margin-top: 6px; margin-bottom: 6px; }}
        h3, h4, h5, h6 {{ font-size: medium; margin-top: 4px; margin-bottom: 4px; }}
        a {{ color: {theme.accent}; text-decoration: none; }}
        code {{ font-family: monospace; background-color: {theme.code_background}; color: #9a3412; }}
        pre {{ font-family: monospace; white-space: pre-wrap; margin: 0px; color: {theme.text}; }}
        table.code {{ margin-top: 2px; margin-bottom: 12px; border-style: none; }}
        td.codecell {{ padding: 10px; background-color: {theme.code_background}; }}
        td.codelang {{ padding: 6px 10px 0px 10px; color: {theme.muted}; font-size: small; }}
        table.md {{ margin-bottom: 12px; }}
        table.quote {{ margin-bottom: 10px; }}
        p.sources {{ color: {theme.muted}; font-size: small; margin-top: 0px; margin-bottom: 6px; line-height: 135%; }}
        span.sources-title {{ font-weight: 600; }}
    """


class MarkdownSplitter:
    """Tracks, as a text grows, the last offset after which new chunks can be rendered on their own (after
    a blank line or a closing fence, as the shared MarkdownBlockScanner reads them).

    `feed(text)` only scans the lines added since the previous call, so its cost per delta does
    not grow with the length of the text."""

    def __init__(self) -> None:
        self._scanned = 0
        self._blocks = MarkdownBlockScanner()
        self.boundary = 0

    def feed(self, text: str) -> int:
        while (newline := text.find("\n", self._scanned)) >= 0:
            line = text[self._scanned : newline]
            self._scanned = newline + 1
            if self._blocks.line(line).ends_block:
                self.boundary = self._scanned
        return self.boundary
