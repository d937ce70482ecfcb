"""Character positions in a part's stacked documents: hit-testing a point, words and paragraphs, and the
text of a range as a reader would copy it (paragraphs apart, table cells by tabs)."""

from __future__ import annotations

from collections.abc import Iterator

from PySide6.QtCore import QPointF, QSize, Qt
from PySide6.QtGui import QTextBlock, QTextCursor, QTextDocument, QTextDocumentFragment

from desktop_copilot.qt.transcript.parts.documents import DocumentStack, Documents

PARAGRAPH_GAP = 6
"""A block with at least this bottom margin (a paragraph, a heading, a list's end) is followed by a blank line."""
_INVISIBLE = {"\u2028": "\n", "\u2029": "\n", "\xa0": " ", "\ufffc": ""}


def positioned(documents: Documents) -> Iterator[tuple[QTextDocument, float, int]]:
    """Each document with its top (pixels from the first one's top) and where its character positions start:
    a part's positions run through its documents in order, each counting its characterCount()."""
    top, base = 0.0, 0
    for item in documents:
        for document in item.documents if isinstance(item, DocumentStack) else [item]:
            yield document, top, base
            top += document.size().height()
            base += document.characterCount()


def character_count(documents: Documents) -> int:
    return sum(item.characterCount() for item in documents)


def documents_size(documents: Documents) -> QSize:
    """The width and height the stacked documents take."""
    width = max((document.textWidth() for document, _top, _base in positioned(documents)), default=0)
    return QSize(int(width), int(sum(document.size().height() for document, _top, _base in positioned(documents)) + 0.999))


def position_at(documents: Documents, x: float, y: float) -> int:
    """The position nearest (x, y), relative to the documents' top-left: above them the start, below the end."""
    last = None
    for document, top, base in positioned(documents):
        last = document, base
        if y < top:
            return base
        if y < top + document.size().height():
            return base + max(0, document.documentLayout().hitTest(QPointF(max(0.0, x), y - top), Qt.HitTestAccuracy.FuzzyHit))
    return last[1] + last[0].characterCount() - 1 if last else 0


def point_of(documents: Documents, position: int) -> QPointF | None:
    """Where position `position` is drawn (the left of its character, the middle of its line), relative to the
    documents' top-left: the inverse of position_at."""
    for document, top, base in positioned(documents):
        if position < base + document.characterCount():
            block = document.findBlock(position - base)
            line = block.layout().lineForTextPosition(position - base - block.position())
            x = line.cursorToX(position - base - block.position())
            box = document.documentLayout().blockBoundingRect(block)
            return QPointF(box.left() + (x[0] if isinstance(x, tuple) else x), top + box.top() + line.y() + line.height() / 2)
    return None


def find_text(documents: Documents, needle: str) -> int | None:
    """The position of the first `needle` in the documents' text, if there."""
    for document, _top, base in positioned(documents):
        if (at := document.toPlainText().find(needle)) >= 0:
            return base + at
    return None


def _locate(documents: Documents, position: int) -> tuple[QTextDocument, int] | None:
    for document, _top, base in positioned(documents):
        if position < base + document.characterCount():
            return document, base
    return None


def word_range(documents: Documents, position: int) -> tuple[int, int]:
    """The word at `position` (or the single character there when it is not part of a word)."""
    found = _locate(documents, position)
    if found is None:
        return position, position
    document, base = found
    cursor = QTextCursor(document)
    cursor.setPosition(position - base)
    cursor.select(QTextCursor.SelectionType.WordUnderCursor)
    if not cursor.hasSelection():
        end = min(position - base + 1, document.characterCount() - 1)
        return position, base + end
    return base + cursor.selectionStart(), base + cursor.selectionEnd()


def paragraph_range(documents: Documents, position: int) -> tuple[int, int]:
    """The paragraph (text block: a paragraph, a list item, a line of code) at `position`."""
    found = _locate(documents, position)
    if found is None:
        return position, position
    document, base = found
    block = document.findBlock(position - base)
    return base + block.position(), base + block.position() + block.length() - 1


def _cell(block: QTextBlock):
    table = QTextCursor(block).currentTable()
    return (table, table.cellAt(block.position())) if table is not None else (None, None)


def _separator(block: QTextBlock, following: QTextBlock) -> str:
    table, cell = _cell(block)
    next_table, next_cell = _cell(following)
    if table is not None and next_table is not None and table == next_table:
        if cell.row() == next_cell.row() and cell.column() != next_cell.column():
            return "\t"
        return "\n"
    if table is not None and next_table is None:
        return "\n\n"
    return "\n\n" if block.blockFormat().bottomMargin() >= PARAGRAPH_GAP else "\n"


def plain_text(document: QTextDocument, start: int = 0, end: int | None = None) -> str:
    """The text of [start, end) as plain text: blocks on their own lines, a blank line after paragraphs and
    tables, cells of a table row apart by tabs, no empty cells (a quote's bar), non-breaking spaces as spaces."""
    end = document.characterCount() - 1 if end is None else min(end, document.characterCount() - 1)
    out: list[str] = []
    block = document.findBlock(max(0, start))
    while block.isValid() and block.position() <= end:
        first, stop = max(start, block.position()), min(end, block.position() + block.length() - 1)
        text = block.text()[first - block.position() : stop - block.position()]
        following = block.next()
        if text or _cell(block)[0] is None:
            out.append(text)
            if following.isValid() and following.position() <= end:
                out.append(_separator(block, following))
        elif out and out[-1] == "\t":  # an empty cell after a filled one: no second tab
            out.pop()
        block = following
    joined = "".join(out)
    for character, replacement in _INVISIBLE.items():
        joined = joined.replace(character, replacement)
    return joined


def range_text(documents: Documents, start: int, end: int) -> str:
    """The plain text of [start, end) across the stacked documents (apart like blocks of one document)."""
    texts = []
    for document, _top, base in positioned(documents):
        count = document.characterCount()
        if base + count <= start or base >= end:
            continue
        texts.append(plain_text(document, max(0, start - base), end - base).strip("\n"))
    return "\n\n".join(text for text in texts if text)


def range_fragments(documents: Documents, start: int, end: int) -> list[QTextDocumentFragment]:
    """The formatted pieces of [start, end), one per document it touches (for an HTML copy)."""
    fragments = []
    for document, _top, base in positioned(documents):
        low, high = max(0, start - base), min(end - base, document.characterCount() - 1)
        if low < high:
            cursor = QTextCursor(document)
            cursor.setPosition(low)
            cursor.setPosition(high, QTextCursor.MoveMode.KeepAnchor)
            fragments.append(cursor.selection())
    return fragments
