"""Markdown to the HTML subset QTextDocument understands, with Pygments-highlighted code blocks; links only
where the link policy allows, images as placeholder text (nothing is ever loaded), raw HTML as text; LaTeX formulas
as our own `math:N` images (see `_place_math`).

Also `MarkdownSplitter`, which finds incrementally where a growing Markdown text can be cut
into independently rendered chunks (after a blank line or a closing fence, never inside one).
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from desktop_copilot.core.content.citations import Source
from desktop_copilot.core.content.link_safety import image_label, is_allowed, visible_form
from desktop_copilot.core.transcript.markdown_blocks import MarkdownBlockScanner
from desktop_copilot.core.transcript.math_spans import MathSpan, find_math_spans
from desktop_copilot.qt.common.theme import DEFAULT_THEME, Theme

if TYPE_CHECKING:  # markdown-it and Pygments are imported when the first Markdown is rendered, not at start-up
    from markdown_it import MarkdownIt
    from pygments.formatters import HtmlFormatter
    from PySide6.QtGui import QImage

    from desktop_copilot.core.knowledge.citing import ReplySources

CODE_HEADER = 30
"""Pixels above a code block's first line: the language label and the Copy button are painted there (parts/code_blocks.py)."""
_TH = re.compile(r"<th(\s|>)")


@lru_cache(maxsize=4)
def _formatter(style: str) -> HtmlFormatter:
    """Inline colours of the Pygments `style` (a theme's `code_style`)."""
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(style=style, noclasses=True, nowrap=True)


@lru_cache(maxsize=1)
def _known_languages() -> frozenset[str]:
    """The aliases of Pygments' built-in lexers (read from its table: no lexer is imported)."""
    from pygments.lexers import get_all_lexers

    return frozenset(alias for _name, aliases, _files, _types in get_all_lexers(plugins=False) for alias in aliases)


@lru_cache(maxsize=64)
def _lexer(language: str):
    """The built-in lexer of `language`, else plain text. A name Pygments does not know is not looked up: that
    scans the installed packages' entry points for plugins (~0.1 s), and a fence streaming in names "pyt",
    "pyth", … on its way to "python"."""
    from pygments.lexers import TextLexer, get_lexer_by_name
    from pygments.util import ClassNotFound

    if language in _known_languages():
        try:
            return get_lexer_by_name(language, stripnl=False, ensurenl=False)
        except ClassNotFound:
            pass
    return TextLexer(stripnl=False, ensurenl=False)


def highlight_code(code: str, language: str = "", theme: Theme = DEFAULT_THEME) -> str:
    """A code block as a one-cell table (QTextDocument paints table backgrounds, not `<pre>` ones), with
    CODE_HEADER pixels above the code where its language and Copy button are painted (not part of the text)."""
    code = code[:-1] if code.endswith("\n") else code
    if language:
        from pygments import highlight

        body = highlight(code, _lexer(language.lower()), _formatter(theme.code_style)).rstrip("\n")
    else:
        body = html.escape(code)
    return (
        f'<table class="code" width="100%" cellspacing="0" cellpadding="0" bgcolor="{theme.code_background}">'
        f'<tr><td class="codecell"><pre>{body}</pre></td></tr></table>\n'
    )


def _render_fence(renderer, tokens, idx, options, env) -> str:
    token = tokens[idx]
    language = token.info.strip().split(maxsplit=1)[0] if token.info.strip() else ""
    if (code := env.get("code")) is not None:
        code.append((language, token.content))
    return highlight_code(token.content, language, env.get("theme", DEFAULT_THEME))


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


def render_markdown(text: str, theme: Theme = DEFAULT_THEME, code: list[tuple[str, str]] | None = None,
                    math: dict[str, QImage] | None = None) -> str:
    """HTML for `text` (raw HTML in the input is escaped, not interpreted). Tables get borders and
    blockquotes a bar on the left through attributes, which QTextDocument honours more than CSS.
    `code`, when given, receives (language, code) of each code block, in order. `math`, when given, receives the
    images of the formulas by resource name (`math:N`), to be added to the document before the HTML is set;
    without it, or when a formula does not parse, the formula shows as its source."""
    text, formulas = _protect_math(text)
    env: dict = {"theme": theme} if code is None else {"theme": theme, "code": code}
    tokens = _parser().parse(text, env)
    if formulas:
        _restore_math_in_code(tokens, formulas)
    out = _parser().renderer.render(tokens, _parser().options, env)
    if "<img" in out:  # never produced by the rules above; refused anyway, as Qt would read the file
        out = out.replace("<img", "&lt;img")
    if formulas:  # only after that check: our own images, and only where our placeholders stand
        out = _place_math(out, formulas, theme, math)
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


def code_blocks_of(text: str) -> list[tuple[int, int, str]]:
    """Each code block of the Markdown `text`, in order: (first line, line after it, its code exactly as written,
    without the fences or the indentation of the block it sits in)."""
    return [(token.map[0], token.map[1], token.content) for token in _parser().parse(text)
            if token.type in ("fence", "code_block") and token.map]



# Formulas: found in the Markdown before markdown-it sees it, carried through as placeholders it treats as plain
# text (so `_` and `*` inside a formula are never emphasis and `\\(` is never an escape), then replaced by our own
# `math:N` images, or by their source where they do not parse or landed in code.

_OPEN, _CLOSE = "\ue000", "\ue001"
_PLACEHOLDER = re.compile(f"{_OPEN}(\\d+){_CLOSE}")
_ENCODED_PLACEHOLDER = re.compile(r"%EE%80%80(\d+)%EE%80%81")
_PARAGRAPH = re.compile(r"<p>(.*?)</p>", re.DOTALL)
_EDGE_BREAKS = re.compile(r"^(?:\s|<br />)+|(?:\s|<br />)+$")

Formula = tuple[MathSpan, str]
"""A formula found in the text, and its source as written (delimiters included)."""


def _protect_math(text: str) -> tuple[str, list[Formula]]:
    """`text` with each formula replaced by a placeholder; the placeholder characters (private use) are taken out
    of the text first, so a model cannot write one."""
    if _OPEN in text or _CLOSE in text:
        text = text.replace(_OPEN, "\ufffd").replace(_CLOSE, "\ufffd")
    spans = find_math_spans(text)
    if not spans:
        return text, []
    parts, previous = [], 0
    for number, span in enumerate(spans):
        parts += [text[previous : span.start], f"{_OPEN}{number}{_CLOSE}"]
        previous = span.end
    parts.append(text[previous:])
    return "".join(parts), [(span, text[span.start : span.end]) for span in spans]


def _restore_math_in_code(tokens, formulas: list[Formula]) -> None:
    """The source goes back wherever a placeholder is not to become an image: in code (the span finder does not
    know indented code blocks, markdown-it does), in an image's alt text (shown as text) and in a link's target."""
    from mdurl import encode

    def source(match: re.Match) -> str:
        return formulas[int(match.group(1))][1]

    for token in tokens:
        if token.type in ("code_inline", "fence", "code_block"):
            token.content = _PLACEHOLDER.sub(source, token.content)
        for name in ("href", "src"):
            if (target := token.attrGet(name)) and "%EE%80%80" in target:
                token.attrSet(name, _ENCODED_PLACEHOLDER.sub(lambda match: encode(source(match)), target))
        if token.type == "image":
            for child in token.children or []:
                child.content = _PLACEHOLDER.sub(source, child.content)
        elif token.children:
            _restore_math_in_code(token.children, formulas)


def _place_math(out: str, formulas: list[Formula], theme: Theme, images: dict[str, QImage] | None) -> str:
    """Each placeholder left in the HTML becomes an image registered in `images`, or the formula's source as code.
    A display formula in a paragraph gets a centred paragraph of its own (the text around it keeps its own);
    elsewhere (a tight list, a table, a heading, inside emphasis) it flows with the text like an inline one."""
    from desktop_copilot.qt.transcript.parts.math import inline_image, pixel_size, render_formula

    font = theme.font("body")
    size = pixel_size(font) if images is not None else 0.0

    def image_tag(number: int, block: bool) -> str | None:
        span, source = formulas[number]
        formula = render_formula(span.latex, span.display, size, theme.text) if images is not None else None
        if formula is None:
            return None
        name = f"math:{len(images)}"
        images[name] = formula.image if block else inline_image(formula, font)
        middle = "" if block else ' style="vertical-align: middle"'
        return f'<img src="{name}" title="{html.escape(source, quote=True)}"{middle}>'

    def as_source(number: int) -> str:
        return f"<code>{html.escape(formulas[number][1], quote=False)}</code>"

    def paragraph(match: re.Match) -> str:
        pieces = _PLACEHOLDER.split(match.group(1))  # text, number, text, number, …, text
        displays = {int(number) for number in pieces[1::2] if formulas[int(number)][0].display}
        if not displays:
            return match.group(0)
        out, line = [], []
        for index, piece in enumerate(pieces):
            number = int(piece) if index % 2 else -1
            splittable = number in displays and _outside_inline_markup("".join(pieces[:index]))
            tag = image_tag(number, block=True) if splittable else None
            if tag is None:
                line.append(piece if index % 2 == 0 else f"{_OPEN}{piece}{_CLOSE}")
                continue
            if (text := _EDGE_BREAKS.sub("", "".join(line))):
                out.append(f"<p>{text}</p>")
            out.append(f'<p align="center">{tag}</p>')
            line = []
        if (text := _EDGE_BREAKS.sub("", "".join(line))):
            out.append(f"<p>{text}</p>")
        return "".join(out)

    out = _PARAGRAPH.sub(paragraph, out)
    return _PLACEHOLDER.sub(lambda match: image_tag(int(match.group(1)), block=False) or as_source(int(match.group(1))), out)


def _outside_inline_markup(before: str) -> bool:
    """No emphasis, link or strike-through is open at the end of `before` (a paragraph can be split there)."""
    return all(before.count(f"<{tag}>") + before.count(f"<{tag} ") == before.count(f"</{tag}>") for tag in ("em", "strong", "a", "s"))


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
    title = html.escape(QCoreApplication.translate("Markdown", "Sources"))
    return f'<p class="sources"><span class="sources-title">{title}</span><br>' + "<br>".join(lines) + "</p>"


KNOWLEDGE_SCHEME = "dc-knowledge"
"""The href of a cited knowledge passage: dc-knowledge:<reply id>/<number>. Only written here (Markdown from a model
never becomes such an anchor: `is_allowed` refuses the scheme); the view opens the passage viewer for it."""


def knowledge_href(message_id: str, number: int) -> str:
    return f"{KNOWLEDGE_SCHEME}:{message_id}/{number}"


def render_knowledge_sources(message_id: str, sources: ReplySources) -> str:
    """The knowledge passages under a reply: "[2] guide/install.md — lines 10–24 · notes", the path a link that opens
    the passage in the viewer. Titled "Passages found" when the reply cites none of them by number."""
    lines = []
    for passage in sources.passages:
        label = html.escape(passage.path or passage.source)
        where = " · ".join(html.escape(p) for p in (passage.location, passage.source) if p)
        lines.append(f'[{passage.number}] <a href="{html.escape(knowledge_href(message_id, passage.number))}">{label}</a>'
                     + (f" — {where}" if where else ""))
    title = QCoreApplication.translate("Markdown", "Sources") if sources.cited else QCoreApplication.translate("Markdown", "Passages found")
    return f'<p class="sources"><span class="sources-title">{html.escape(title)}</span><br>' + "<br>".join(lines) + "</p>"


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
        code {{ font-family: monospace; background-color: {theme.code_background}; color: {theme.inline_code}; }}
        pre {{ font-family: monospace; white-space: pre-wrap; margin: 0px; color: {theme.text}; }}
        table.code {{ margin-top: 2px; margin-bottom: 12px; border-style: none; }}
        td.codecell {{ padding: 10px; padding-top: {CODE_HEADER}px; background-color: {theme.code_background}; }}
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
