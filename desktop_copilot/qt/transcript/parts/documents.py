"""QTextDocuments for the transcript: inert documents (load nothing), builders, stacks, link hit-testing,
a text-bounded LRU cache and live streaming pieces."""

from __future__ import annotations

import time
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSizeF, Qt, QUrl
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QFont,
    QPainter,
    QPalette,
    QPyTextObject,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)

from desktop_copilot.core.content.citations import Source
from desktop_copilot.qt.transcript.parts.math import draw_math_image, math_image_size
from desktop_copilot.qt.transcript.parts.markdown import MarkdownSplitter, document_css, render_sources
from desktop_copilot.qt.transcript.parts.tail_renderer import RenderedTail, TailRendering, render_tail, shared_tail_worker
from desktop_copilot.qt.common.theme import Theme

FINGERPRINT_CHARS = 32
"""How many of the last characters of a live piece's text the next update checks (see LiveMarkdown._seen_end)."""
RENDER_INTERVAL = 0.08
"""A streaming Markdown tail is re-rendered at most this often (seconds); plain text is appended in between."""
CACHE_MB = 3
"""Megabytes of laid-out documents the document cache holds at most (by `document_bytes`' estimate): ~100 short rows'
documents, several screens scrolled back and forth without rendering again (a long reply's documents count by its
length); every megabyte more is a megabyte a long conversation's memory grows by before the cache is full."""
DOCUMENT_BYTES = 17_000
STYLE_SHEET_BYTES = 23_000
BLOCK_BYTES = 2_000
CHAR_BYTES = 45
"""What a laid-out document holds, measured as RSS deltas of hundreds of documents built at width 700, laid out and
kept (the heap trimmed before each reading): an empty plain document ~17 KB, one with the theme's style sheet ~40 KB;
~2 KB more per block (paragraph, line, list item, table cell) and ~45 bytes per character (its glyphs and layout)."""
SOURCES_GAP = 6
"""Pixels between a text block and the sources under it."""


class _NoImages(QPyTextObject):
    """Stands in for Qt's image handler, which reads an image's file itself (QImage::load) when the
    document's loadResource gives nothing: an image format that slipped in takes no space and draws nothing."""

    def intrinsicSize(self, document, position, format) -> QSizeF:  # noqa: N802, A002 - Qt names
        return math_image_size(document, format)  # zero, unless it is one of our own `math:N` formula images

    def drawObject(self, painter, rect, document, position, format) -> None:  # noqa: N802, A002 - Qt names
        draw_math_image(painter, rect, document, format)


_NO_IMAGES: _NoImages | None = None


class InertDocument(QTextDocument):
    """A QTextDocument that loads nothing: no file, no network, no `data:` decoding, for any resource type."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        global _NO_IMAGES
        _NO_IMAGES = _NO_IMAGES or _NoImages()
        self.documentLayout().registerHandler(int(QTextFormat.ObjectTypes.ImageObject), _NO_IMAGES)

    def loadResource(self, type: int, name) -> None:  # noqa: N802, A002 - Qt names
        return None

    @property
    def code(self) -> list[tuple[str, str]]:
        """(language, code) of each code block rendered into it, in order (set by the Markdown builders)."""
        return getattr(self, "_code", [])

    @code.setter
    def code(self, blocks: list[tuple[str, str]]) -> None:
        self._code = blocks


def new_document(theme: Theme, font: QFont, width: int, style_sheet: bool = True) -> QTextDocument:
    """An empty inert document; `style_sheet`: with the theme's CSS for HTML (plain text does not use it, and each
    document parses and keeps its own copy, ~23 KB)."""
    document = InertDocument()
    document.setUndoRedoEnabled(False)
    document.setDocumentMargin(0)
    document.setDefaultFont(font)
    if style_sheet:
        document.setDefaultStyleSheet(document_css(theme))
    document.setTextWidth(max(1, width))
    return document


def markdown_document(text: str, width: int, theme: Theme) -> QTextDocument:
    document = new_document(theme, theme.font("body"), width)
    set_markdown(document, text, theme)
    return document


def set_markdown(document: InertDocument, text: str, theme: Theme) -> None:
    """Render `text` into `document`, remembering its code blocks' languages and code (`InertDocument.code`)."""
    show_rendered(document, render_tail(0, text, theme))


def show_rendered(document: InertDocument, rendered: RenderedTail) -> None:
    """Put Markdown rendered to HTML (here or on the tail worker) into `document`, with its formula images and code."""
    for name, image in rendered.formulas.items():  # our own formula images, registered before the HTML that names them
        document.addResource(QTextDocument.ResourceType.ImageResource, QUrl(name), image)
    document.setHtml(rendered.html)
    document.code = rendered.code


def sources_document(sources: list[Source], width: int, theme: Theme) -> QTextDocument:
    """The numbered sources cited by a text block, rendered once when the text is finished."""
    return sources_html_document(render_sources(sources), width, theme)


def sources_html_document(html: str, width: int, theme: Theme) -> QTextDocument:
    """A list of sources (the wire's citations, or the knowledge passages a reply cites) under a text block."""
    document = new_document(theme, theme.font("body"), width)
    document.setHtml(html)
    frame = document.rootFrame().frameFormat()
    frame.setTopMargin(SOURCES_GAP)  # a block's own top margin is not applied at the top of a document
    document.rootFrame().setFrameFormat(frame)
    return document


def plain_document(text: str, width: int, theme: Theme, font: QFont) -> QTextDocument:
    document = new_document(theme, font, width, style_sheet=False)
    document.setPlainText(text)
    return document


Highlight = tuple[int, int, QTextCharFormat]
"""A selected range [start, end) in the character positions of a part's stacked documents, and its look."""


def _draw_one(painter: QPainter, document: QTextDocument, x: float, y: float, height: float,
              context: QAbstractTextDocumentLayout.PaintContext, visible: QRectF | None,
              highlight: Highlight | None = None, base: int = 0) -> None:
    area = QRectF(x, y, document.textWidth(), height)
    if visible is not None:
        area = area.intersected(visible)
    if area.isEmpty():
        return
    painter.save()
    painter.translate(QPointF(x, y))
    context.clip = area.translated(-x, -y)
    context.selections = []
    if highlight is not None:
        start, end = max(highlight[0] - base, 0), min(highlight[1] - base, document.characterCount() - 1)
        if start < end:
            selection = QAbstractTextDocumentLayout.Selection()
            selection.cursor = QTextCursor(document)
            selection.cursor.setPosition(start)
            selection.cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
            selection.format = highlight[2]
            context.selections = [selection]
    document.documentLayout().draw(painter, context)
    painter.restore()


class DocumentStack:
    """Documents stacked vertically with cached offsets: painting finds the visible ones by bisection."""

    def __init__(self) -> None:
        self.documents: list[QTextDocument] = []
        self._bottoms: list[float] = []
        self._bases: list[int] = [0]
        """Where each document's character positions start in the stack's (see text_ranges)."""
        self._width = -1

    def append(self, document: QTextDocument) -> None:
        self.documents.append(document)
        self._bottoms.append(self.height() + document.size().height())
        self._bases.append(self._bases[-1] + document.characterCount())

    def characterCount(self) -> int:  # noqa: N802 - as QTextDocument
        return self._bases[-1]

    def textWidth(self) -> float:  # noqa: N802 - as QTextDocument, so a cache holds either
        return self._width

    def setTextWidth(self, width: float) -> None:  # noqa: N802
        if width == self._width:
            return
        self._width, self._bottoms = width, []
        for document in self.documents:
            document.setTextWidth(width)
            self._bottoms.append(self.height() + document.size().height())

    def height(self) -> float:
        return self._bottoms[-1] if self._bottoms else 0.0

    def draw(self, painter: QPainter, x: float, y: float, context, visible: QRectF | None,
             highlight: Highlight | None = None, base: int = 0) -> None:
        first = 0 if visible is None else bisect_right(self._bottoms, visible.top() - y)
        for number in range(first, len(self.documents)):
            top = self._bottoms[number - 1] if number else 0.0
            if visible is not None and y + top > visible.bottom():
                break
            _draw_one(painter, self.documents[number], x, y + top, self._bottoms[number] - top, context, visible,
                      highlight, base + self._bases[number])


Document = QTextDocument | DocumentStack
Documents = list[Document]


def _height(item: Document) -> float:
    return item.height() if isinstance(item, DocumentStack) else item.size().height()


def draw_documents(painter: QPainter, documents: Documents, x: float, y: float, color: QColor,
                   highlight: Highlight | None = None) -> None:
    """Paint `documents` stacked from (x, y), default text in `color`; only what lies inside the
    painter's clip is drawn, so a tall piece costs what is on screen, not its length. `highlight`: the
    selected characters (positions counted through the stack, as text_ranges counts them)."""
    context = QAbstractTextDocumentLayout.PaintContext()
    context.palette.setColor(QPalette.ColorRole.Text, color)
    visible = painter.clipBoundingRect() if painter.hasClipping() else None
    base = 0
    for item in documents:
        height = _height(item)
        if isinstance(item, DocumentStack):
            item.draw(painter, x, y, context, visible, highlight, base)
        else:
            _draw_one(painter, item, x, y, height, context, visible, highlight, base)
        y += height
        base += item.characterCount()


def documents_height(documents: Documents) -> int:
    return int(sum(_height(item) for item in documents) + 0.999)


@dataclass(frozen=True, slots=True)
class LinkHit:
    href: str
    text: str
    """The anchor's visible text (all its fragments, e.g. "**bold** rest" of one link)."""


def _document_at(documents: Documents, y: float) -> tuple[QTextDocument | None, float]:
    for item in documents:
        for document in item.documents if isinstance(item, DocumentStack) else [item]:
            height = document.size().height()
            if y < height:
                return document, y
            y -= height
    return None, y


def link_at(documents: Documents, x: float, y: float) -> LinkHit | None:
    """The link under (x, y), relative to the top-left of the stacked documents: its target and the text
    the reader sees. The character under the point is found as Qt's anchorAt finds it; its anchor's text is
    the run of neighbouring fragments with the same target in that block."""
    document, y = _document_at(documents, y)
    if document is None or x < 0:
        return None
    position = document.documentLayout().hitTest(QPointF(x, y), Qt.HitTestAccuracy.ExactHit)
    if position < 0:
        return None
    fragments, found = [], -1
    iterator = document.findBlock(position).begin()
    while not iterator.atEnd():
        fragment = iterator.fragment()
        if fragment.position() <= position < fragment.position() + fragment.length():
            found = len(fragments)
        fragments.append((fragment.charFormat().anchorHref() if fragment.charFormat().isAnchor() else "", fragment.text()))
        iterator += 1
    href = fragments[found][0] if found >= 0 else ""
    if not href:
        return None
    first = last = found
    while first > 0 and fragments[first - 1][0] == href:
        first -= 1
    while last + 1 < len(fragments) and fragments[last + 1][0] == href:
        last += 1
    return LinkHit(href, "".join(text for _href, text in fragments[first : last + 1]))


def document_bytes(document: Document) -> int:
    """An estimate of the memory a laid-out document (or a stack of them) holds."""
    if isinstance(document, DocumentStack):
        return sum(document_bytes(part) for part in document.documents)
    return (DOCUMENT_BYTES + (STYLE_SHEET_BYTES if document.defaultStyleSheet() else 0)
            + BLOCK_BYTES * document.blockCount() + CHAR_BYTES * document.characterCount())


class DocumentCache:
    """Least-recently-used laid-out documents, bounded by the bytes they hold (`document_bytes`, estimated once as
    each is built): rows scrolled away lose theirs and render again when they come back."""

    def __init__(self, budget_mb: float = CACHE_MB) -> None:
        self.budget = int(budget_mb * 1024 * 1024)
        self.bytes = 0
        self._documents: OrderedDict[Hashable, tuple[Document, int]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._documents)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._documents

    def get(self, key: Hashable, build: Callable[[], Document]) -> Document:
        """The document for `key`, built by `build` if not held (then measured: `document_bytes`)."""
        entry = self._documents.get(key)
        if entry is not None:
            self._documents.move_to_end(key)
            return entry[0]
        document = build()
        size = document_bytes(document)
        self._documents[key] = (document, size)
        self.bytes += size
        while len(self._documents) > 1 and self.bytes > self.budget:
            self.bytes -= self._documents.popitem(last=False)[1][1]
        return document

    def clear(self) -> None:
        self._documents.clear()
        self.bytes = 0


class LivePlainText:
    """A growing plain text: only the new suffix is inserted on each update."""

    def __init__(self, theme: Theme, font: QFont) -> None:
        self.document = new_document(theme, font, 1, style_sheet=False)
        self._shown = 0

    def update(self, text: str, width: int) -> Documents:
        if self.document.textWidth() != width:  # before the text: laying text out 1 px wide costs several times more
            self.document.setTextWidth(width)
        if len(text) < self._shown:
            self.document.setPlainText(text)
        elif len(text) > self._shown:
            cursor = QTextCursor(self.document)
            cursor.movePosition(QTextCursor.MoveOperation.End)
            cursor.insertText(text[self._shown :])
        self._shown = len(text)
        return [self.document]

    def finish(self, text: str, width: int) -> QTextDocument:
        """The exact document for the final `text` (plain text: the live one, brought up to date)."""
        return self.update(text, width)[0]


class LiveChunk:
    """A finished chunk of a live piece, [start, end) of its text, whose Markdown renders on the worker (the worker's
    key for it: the piece holds it while it waits, so a piece dropped takes the request with it)."""

    __slots__ = ("start", "end", "__weakref__")

    def __init__(self, start: int, end: int) -> None:
        self.start, self.end = start, end


class LiveMarkdown:
    """A growing Markdown piece as a stack of documents: each finished chunk (cut after a blank line or a closed fence)
    is rendered once; the open tail's Markdown is turned into HTML on a worker (tail_renderer) at most every
    RENDER_INTERVAL, and the newest finished render is swapped in by the next update, the text that came after it
    appended as plain text; in between the tail is extended as plain text (or replaced when a chunk took its start).
    A finished chunk's Markdown is rendered on the worker too (one chunk asked at a time, all that finished since): it
    stays in the tail until its HTML is back, then the next update puts it into a document of its own. Per update the
    GUI thread sets the HTML of one chunk and one tail render at most, and renders no Markdown (updates come at most
    once a frame per piece); `close` does the same for a piece that has ended while the reply streams on, `finish`
    renders what is not back yet in place."""

    def __init__(self, theme: Theme, clock: Callable[[], float] = time.monotonic,
                 tails: TailRendering | None = None) -> None:
        self.theme = theme
        self.chunks = DocumentStack()
        self.tail = new_document(theme, theme.font("body"), 1)
        self._splitter = MarkdownSplitter()
        self._chunked = 0
        """Where the tail starts: the end of the chunks shown in documents of their own."""
        self._chunk: LiveChunk | None = None
        """The chunk rendering on the worker (it follows the chunks shown)."""
        self._waiting: RenderedTail | None = None
        """A tail render from the end of `_chunk` on, back before the chunk: shown when the chunk is."""
        self._tail_shown = 0
        self._tail_rendered = 0
        """How much of the tail shown is a render (the rest is plain text appended after it)."""
        self._tail_asked_at = -1.0
        self._seen = 0
        self._seen_end = ""
        """Length and last characters of the text of the previous update: a text that does not repeat them there
        replaced it (not extended it), and the piece starts over."""
        self._clock = clock
        self._tails = tails if tails is not None else shared_tail_worker()
        self.rendered_chars = 0
        """Characters of Markdown rendered so far (for tests and benchmarks): a small multiple of the
        text's length, where re-rendering the whole text per delta would be quadratic."""

    @property
    def documents(self) -> Documents:
        return [self.chunks, self.tail]

    @property
    def pending(self) -> bool:
        """Part of the piece shows as plain text still (a chunk's render or the tail's is not in): another update,
        even without more text, shows more of it rendered."""
        return self._chunk is not None or self._tail_rendered < self._tail_shown

    def _add_chunk(self, rendered: RenderedTail, end: int, width: int) -> None:
        document = new_document(self.theme, self.theme.font("body"), width)
        show_rendered(document, rendered)
        self.chunks.setTextWidth(width)  # (before the append, which measures the document at the stack's width)
        self.chunks.append(document)
        self.rendered_chars += end - self._chunked
        self._chunked = end

    def _advance_chunks(self, text: str, boundary: int, width: int) -> bool:
        """Ask for the chunks finished up to `boundary` (if none is asked for yet) and show the one asked for if its
        render is back; True when one was shown (the tail then starts later)."""
        chunk = self._chunk
        if chunk is None and boundary > self._chunked:
            chunk = self._chunk = LiveChunk(self._chunked, boundary)
            self._tails.submit(chunk, chunk.start, text[chunk.start : chunk.end], self.theme)
        if chunk is None:
            return False
        rendered = self._tails.take(chunk)
        if rendered is None:
            return False
        self._chunk = None
        if text[chunk.start : chunk.end] != rendered.text:  # the text was replaced under it: asked again next time
            return False
        self._add_chunk(rendered, chunk.end, width)
        return True

    def _tail_render(self, tail: str) -> RenderedTail | None:
        """The newest tail render that can be shown now (starting where the tail starts, and the tail still begins
        with its text), or None; a render from the end of the chunk on the worker waits for that chunk."""
        rendered = self._tails.take(self) or self._waiting
        self._waiting = None
        if rendered is None:
            return None
        if self._chunk is not None and rendered.start == self._chunk.end:
            self._waiting = rendered
            return None
        if rendered.start == self._chunked and tail.startswith(rendered.text):
            return rendered
        return None

    def update(self, text: str, width: int, final: bool = False) -> Documents:
        """The documents showing `text` (the piece so far); `final`: the piece has ended (its end closes the last
        chunk, and no tail is asked for)."""
        if self._replaced(text):
            self._restart()
        self._seen, self._seen_end = len(text), text[-FINGERPRINT_CHARS:]
        self.chunks.setTextWidth(width)
        if self.tail.textWidth() != width:  # before any text goes in: laying text out 1 px wide costs several times more
            self.tail.setTextWidth(width)
        boundary = len(text) if final else self._splitter.feed(text)
        force = self._advance_chunks(text, boundary, width)
        tail = text[self._chunked :]
        asked_from = self._chunk.end if self._chunk is not None else self._chunked
        now = self._clock()
        if not final and len(text) > asked_from and now - self._tail_asked_at >= RENDER_INTERVAL:
            self._tails.submit(self, asked_from, text[asked_from:], self.theme)
            self._tail_asked_at = now
        rendered = self._tail_render(tail)
        if rendered is not None:
            show_rendered(self.tail, rendered)
            self.rendered_chars += len(rendered.text)
            self._tail_rendered = len(rendered.text)
            self._append_plain(tail[len(rendered.text) :])
        elif force or len(tail) < self._tail_shown:  # a chunk took the tail's start: the rest as plain text until due
            self.tail.setPlainText(tail)
            self._tail_rendered = 0
        elif len(tail) > self._tail_shown:
            self._append_plain(tail[self._tail_shown :])
        self._tail_shown = len(tail)
        return self.documents

    def _append_plain(self, text: str) -> None:
        """`text` after what the tail shows, as plain text in the document's default format, not in the format of the
        character before it: after a render ending in a bold run, a code span or a link, the text until the next render
        showed bold, monospaced or as part of the link (clickable), and bold or monospaced CJK text in it loaded a
        font face of its own (the bold CJK one: ~9 MB of RSS in about one stream of three)."""
        if text:
            cursor = QTextCursor(self.tail)
            cursor.movePosition(QTextCursor.MoveOperation.End)
            cursor.insertText(text, QTextCharFormat())

    def close(self, text: str, width: int) -> DocumentStack | None:
        """The piece has ended (`text` is all of it) while the reply streams on: its final documents once the render
        of its last chunk is back from the worker, else None (then `documents` show it as it is meanwhile, and a
        later call shows the chunk)."""
        self.update(text, width, final=True)
        if self._chunked < len(text):
            return None
        self._tails.forget(self)
        return self.chunks

    def _replaced(self, text: str) -> bool:
        """Whether `text` replaced the text of the previous update rather than extended it."""
        return len(text) < self._seen or not text.startswith(self._seen_end, self._seen - len(self._seen_end))

    def _restart(self) -> None:
        self._tails.forget(self)
        self.__init__(self.theme, self._clock, self._tails)  # its chunk asked for goes with the old state

    def finish(self, text: str, width: int) -> DocumentStack:
        """The piece's final documents: the chunks already rendered, plus one exact render of what
        follows them (here, unless the worker has it ready), so finishing costs the last chunk, not the whole piece."""
        self._tails.forget(self)
        if self._replaced(text):
            self._restart()
        chunk, self._chunk = self._chunk, None
        if chunk is not None:
            rendered = self._tails.take(chunk)
            self._tails.forget(chunk)
            if rendered is not None and text[chunk.start : chunk.end] == rendered.text:
                self._add_chunk(rendered, chunk.end, width)
        if len(text) > self._chunked:
            self._add_chunk(render_tail(0, text[self._chunked :], self.theme), len(text), width)
        self.chunks.setTextWidth(width)
        return self.chunks
