"""Property tests of the Markdown renderer on any text (hostile samples, Markdown syntax, any Unicode): it never
raises; the HTML it makes refers to no resource Qt would load (no `<img>` but our own `math:N` formula images, no
`<link>`, `<style>`, `background=`, `url(` or `@import`, links only where the link policy allows), and a rendered
and painted document asks for nothing; streamed in any pieces, the same holds and the chunks cover the text."""

from __future__ import annotations

import html.parser
import itertools
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from PySide6.QtGui import QColor, QImage, QPainter

from desktop_copilot.core.content.citations import cited_sources
from desktop_copilot.core.content.link_safety import is_allowed
from desktop_copilot.core.transcript.chunking import MAX_CHARS, Chunker
from desktop_copilot.qt.common.theme import DEFAULT_THEME
from desktop_copilot.qt.transcript.parts.tail_renderer import RenderNow
from desktop_copilot.qt.transcript.parts.documents import InertDocument, LiveMarkdown, markdown_document
from desktop_copilot.qt.transcript.parts.markdown import MarkdownSplitter, render_markdown, render_sources
from tests.fuzz.support import any_text, cuts, fuzz_settings, json_values, ran
from tests.qt.transcript.parts.document_probe import anchors, flat, image_names

pytestmark = pytest.mark.usefixtures("qapp")

HOSTILE = Path(__file__).parents[1] / "fixtures" / "hostile_markdown"
SAMPLE_LINES = sorted({line for path in HOSTILE.glob("*.md") for line in path.read_text(encoding="utf-8").splitlines()})
TOKENS = [
    "![x](", "](", "[", "]", "(", ")", "<", ">", "&", "&#x61;", "&colon;", "`", "```", "~~~", "```python\n", "$", "$$",
    "\\(", "\\)", "\\[", "\\]", "|", "|---|", "> ", "- ", "1. ", "#", "*", "_", "~~", "\n", "\n\n", "    ", "\t",
    "http://a.example/x.png", "https://b.example", "file:///etc/passwd", "/dev/zero", "data:image/png;base64,iVBORw0K",
    "javascript:alert(1)", "mailto:a@b.example", "<img src=/etc/passwd>", '<a href="file:///x">', "background=",
    "<style>@import url(/x);</style>", "<link rel=stylesheet href=/x>", "url(/etc/passwd)", "math:0", "\ue000",
    "\ue001", "%EE%80%80", "\\frac{a}{b}", "x^2", "\\begin{matrix}", "<https://c.example>", "[a]: /etc/passwd",
    "[a]", "<!-- -->", "\u202e", "\x00", "你好", "🌍",
]
markdown_texts = st.lists(st.sampled_from(TOKENS) | st.sampled_from(SAMPLE_LINES) | any_text, max_size=25).map("".join)

FORBIDDEN_TAGS = {"link", "style", "script", "iframe", "object", "embed", "base", "meta", "svg", "video", "audio",
                  "source", "input", "form", "frame", "frameset", "applet", "body", "head", "html"}


class _Tags(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))

    handle_startendtag = handle_starttag


def resource_problems(html_text: str, formulas: set[str]) -> list[str]:
    """Every reference in `html_text` Qt could load: an image other than one of our `formulas`, a style sheet, a
    background, a link the policy refuses."""
    parser = _Tags()
    parser.feed(html_text)
    parser.close()
    problems = []
    for tag, attrs in parser.tags:
        if tag in FORBIDDEN_TAGS:
            problems.append(f"<{tag}>")
        for name, value in attrs:
            value = value or ""
            if name == "src" and not (tag == "img" and value in formulas):
                problems.append(f"<{tag} src={value!r}>")
            elif name == "href" and not (tag == "a" and is_allowed(value)):
                problems.append(f"<{tag} href={value!r}>")
            elif name in ("background", "data", "srcset", "poster", "lowsrc", "dynsrc"):
                problems.append(f"<{tag} {name}=…>")
            elif name == "style" and any(word in value.lower() for word in ("url(", "@import", "expression(", "image")):
                problems.append(f"<{tag} style={value!r}>")
    return problems


@contextmanager
def recorded_loads():
    """Every InertDocument.loadResource call meanwhile (as tests/qt/transcript/parts/document_probe.py records)."""
    calls: list[str] = []
    original = InertDocument.loadResource

    def record(self, kind, url):
        calls.append(url.toString())
        return original(self, kind, url)

    InertDocument.loadResource = record
    try:
        yield calls
    finally:
        InertDocument.loadResource = original


def paint(document) -> None:
    image = QImage(int(document.textWidth()) + 4, min(int(document.size().height()) + 4, 2000), QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    document.drawContents(painter)
    painter.end()


@fuzz_settings("markdown", 150)
@given(markdown_texts)
@example("![x](/dev/zero) <img src=/etc/passwd> $x^2$ $$\\frac{a}{b}$$ [a](file:///etc/passwd) \ue0000\ue001")
@example("[$x$](https://a.example) ![$y$](https://b.example/$z$.png)")
def test_rendered_html_refers_to_no_resource(text):
    ran("markdown")
    formulas: dict = {}
    code: list = []
    out = render_markdown(text, DEFAULT_THEME, code=code, math=formulas)
    assert not resource_problems(out, set(formulas)), out
    assert all(name.startswith("math:") for name in formulas)


URLS = [token for token in TOKENS if ":" in token or token.startswith("/")]
citations = st.lists(st.fixed_dictionaries({}, optional={
    "type": st.sampled_from(["web_search_result_location", "char_location", "search_result_location"]),
    "url": st.sampled_from(URLS) | any_text, "source": st.sampled_from(URLS) | any_text, "title": markdown_texts,
    "document_title": any_text, "cited_text": markdown_texts, "start_page_number": st.integers(), "end_page_number": st.integers(),
}) | json_values("url", "title", "source"), max_size=6)


@fuzz_settings("markdown", 60)
@given(citations)
def test_the_sources_under_a_text_refer_to_no_resource(found):
    ran("markdown")
    assert not resource_problems(render_sources(cited_sources(found)), set())


@fuzz_settings("markdown", 60)
@given(markdown_texts)
def test_a_painted_document_loads_nothing(text):
    ran("markdown")
    with recorded_loads() as loads:
        document = markdown_document(text, 400, DEFAULT_THEME)
        paint(document)
    assert loads == []
    assert all(name.startswith("math:") for name in image_names(document))
    assert all(is_allowed(href) for href in anchors(document))


@fuzz_settings("markdown", 30)
@given(markdown_texts, st.data())
def test_streamed_markdown_in_any_pieces_loads_nothing(text, data):
    ran("markdown")
    offsets = data.draw(cuts(len(text), max_cuts=8))
    ticks = iter(range(0, 10**9, 50))  # a clock that lets every other update render its tail
    live = LiveMarkdown(DEFAULT_THEME, clock=lambda: next(ticks) / 1000, tails=RenderNow())
    with recorded_loads() as loads:
        for end in [*offsets, len(text)]:
            live.update(text[:end], 300)
        documents = flat([live.finish(text, 300)])
        for document in documents:
            paint(document)
    assert loads == []
    assert all(is_allowed(href) for document in documents for href in anchors(document))


@fuzz_settings("markdown", 150)
@given(markdown_texts, st.data())
@example("a" * (MAX_CHARS * 2 + 7), None)
def test_chunks_of_a_growing_text_cover_it_in_order(text, data):
    ran("markdown")
    offsets = data.draw(cuts(len(text), max_cuts=10)) if data else []
    chunker, splitter, boundary = Chunker(), MarkdownSplitter(), 0
    for end in [*offsets, len(text)]:
        chunker.feed(text[:end])
        now = splitter.feed(text[:end])
        assert boundary <= now <= end
        boundary = now
    pieces = chunker.pieces(text)
    assert pieces[0].start == 0 and pieces[-1].end == len(text)
    assert all(a.end == b.start for a, b in itertools.pairwise(pieces))
    assert all(piece.end - piece.start <= MAX_CHARS for piece in pieces)


def test_the_check_sees_what_qt_would_load():
    """The properties' check is not blind: raw hostile HTML (what the renderer must never let through) fails it."""
    raw = (HOSTILE / "raw_html.md").read_text(encoding="utf-8")
    found = resource_problems(raw, set())
    assert {"<link>", "<style>", "<script>", "<iframe>", "<object>"} <= set(found)
    assert any("src='/etc/passwd'" in problem for problem in found) and any("background" in p for p in found)
    assert resource_problems('<img src="math:0">', {"math:0"}) == []
