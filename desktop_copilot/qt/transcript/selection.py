"""The transcript's text selection: two points keyed by message, block, piece and character position (never by
pixels, so it survives streaming, re-layout and rows added), the range each row paints, and the selected text."""

from __future__ import annotations

from dataclasses import dataclass, replace

from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor

from desktop_copilot.core.transcript.segments import Segment
from desktop_copilot.qt.transcript.model import TranscriptModel
from desktop_copilot.qt.transcript.parts.base import Part
from desktop_copilot.qt.transcript.parts.documents import InertDocument
from desktop_copilot.qt.transcript.parts.text_ranges import (
    character_count,
    documents_size,
    paragraph_range,
    position_at,
    range_fragments,
    range_text,
    word_range,
)

SELECTABLE_KINDS = ("user", "text")
"""Rows whose text can be selected (their painters say where their documents are drawn)."""
SNAP_ROWS = 60
"""A point off text (a tool card, a gap) snaps to the nearest text row at most this many rows away."""


@dataclass(frozen=True, slots=True)
class TextPoint:
    """A place in the transcript's text: the row showing piece `piece` (its start in the block's text) of block
    `block` of message `message_id`, and a character position in that row's documents."""

    message_id: str
    block: int
    piece: int
    offset: int

    @property
    def row_key(self) -> tuple[str, int, int]:
        return self.message_id, self.block, self.piece


def point_key(segment: Segment) -> tuple[str, int, int]:
    return segment.message_id, segment.block, segment.start


class TextSelection:
    """From `anchor` (where the drag started) to `cursor` (where it is now), in reading order either way."""

    def __init__(self, model: TranscriptModel) -> None:
        self.model = model
        self.anchor: TextPoint | None = None
        self.cursor: TextPoint | None = None
        self.highlight = QColor("#3399ff")
        self.highlighted_text = QColor("#ffffff")
        """Set by the view from its palette."""

    # --- state -------------------------------------------------------------------------

    def set(self, anchor: TextPoint, cursor: TextPoint) -> None:
        self.anchor, self.cursor = anchor, cursor

    def clear(self) -> bool:
        """Forget the selection; True if there was one."""
        had = self.anchor is not None
        self.anchor = self.cursor = None
        return had

    def is_empty(self) -> bool:
        bounds = self.bounds()
        return bounds is None or bounds[0] == bounds[1]

    def _order(self, point: TextPoint) -> tuple[int, int, int, int] | None:
        row = self.model.row_of(point.message_id)
        return None if row is None else (row, point.block, point.piece, point.offset)

    def bounds(self) -> tuple[TextPoint, TextPoint] | None:
        """(start, end) in reading order, or None when there is no selection or its message is gone."""
        if self.anchor is None or self.cursor is None:
            return None
        first, second = self._order(self.anchor), self._order(self.cursor)
        if first is None or second is None:
            return None
        return (self.anchor, self.cursor) if first <= second else (self.cursor, self.anchor)

    # --- painting (parts.base.SelectionLook) ---------------------------------------------

    def range_in(self, part: Part) -> tuple[int, int] | None:
        if part.segment is None or part.kind not in SELECTABLE_KINDS:
            return None
        bounds = self.bounds()
        if bounds is None:
            return None
        start, end = bounds
        row = self.model.row_of(part.message.id)
        if row is None:
            return None
        here = (row, part.segment.block, part.segment.start)
        if here < self._order(start)[:3] or here > self._order(end)[:3]:
            return None
        low = start.offset if point_key(part.segment) == start.row_key else 0
        high = end.offset if point_key(part.segment) == end.row_key else 1 << 30
        return (low, high) if low < high else None

    def char_format(self) -> QTextCharFormat:
        look = QTextCharFormat()
        look.setBackground(self.highlight)
        look.setForeground(self.highlighted_text)
        return look

    # --- reading -------------------------------------------------------------------------

    def rows(self) -> range:
        """The rows from the start's to the end's (empty without a selection)."""
        bounds = self.bounds()
        if bounds is None:
            return range(0)
        first, last = (self._row(point) for point in bounds)
        return range(first, last + 1) if first is not None and last is not None else range(0)

    def _row(self, point: TextPoint) -> int | None:
        for row in self.model.rows_of(point.message_id):
            if point_key(self.model.segment_at(row)) == point.row_key:
                return row
        return None

    def selected(self, layout_part) -> tuple[str, str]:
        """(plain text, HTML) of the selection; `layout_part(row)` gives a row's measured Part. Pieces of one
        block, blocks and messages are a blank line apart (pieces cut inside a code block or table, a line)."""
        texts: list[str] = []
        collector = InertDocument()
        cursor = QTextCursor(collector)
        previous: Segment | None = None
        for row in self.rows():
            segment = self.model.segment_at(row)
            if segment.kind not in SELECTABLE_KINDS:
                continue
            part = layout_part(row)
            found = self.range_in(part) if part is not None else None
            if found is None:
                continue
            text = range_text(part.documents, *found)
            if text:
                cut_inside = previous is not None and point_key(previous)[:2] == point_key(segment)[:2] and bool(segment.prefix)
                texts.append(("\n" if cut_inside else "\n\n") if texts else "")  # a fence or table cut in two: one line apart
                texts.append(text)
            for fragment in range_fragments(part.documents, *found):
                if not collector.isEmpty():
                    cursor.insertBlock()
                cursor.insertFragment(fragment)
            previous = segment
        return "".join(texts), ("" if collector.isEmpty() else collector.toHtml())


class PointFinder:
    """Turns points of the view (viewport coordinates) into TextPoints through the rows' measured documents
    (QTextDocument hit-testing). `view` is the TranscriptView: indexAt, visualRect, delegate, transcript."""

    def __init__(self, view) -> None:
        self.view = view

    def _part(self, row: int) -> tuple[Part, QPoint] | None:
        view = self.view
        if not 0 <= row < view.transcript.rowCount() or view.transcript.segment_at(row).kind not in SELECTABLE_KINDS:
            return None
        index = view.transcript.index(row, 0)
        return view.delegate.text_part(index, view.visualRect(index))

    def part_of(self, point: TextPoint) -> Part | None:
        """The measured part of the row `point` is in (for words and paragraphs)."""
        for row in self.view.transcript.rows_of(point.message_id):
            if point_key(self.view.transcript.segment_at(row)) == point.row_key:
                found = self._part(row)
                return found[0] if found else None
        return None

    def in_row(self, row: int, pos: QPoint) -> TextPoint | None:
        found = self._part(row)
        if found is None:
            return None
        part, origin = found
        segment = part.segment
        return TextPoint(segment.message_id, segment.block, segment.start, position_at(part.documents, pos.x() - origin.x(), pos.y() - origin.y()))

    def on_text(self, pos: QPoint) -> bool:
        """Whether `pos` is on a row's selectable text (for the I-beam pointer)."""
        index = self.view.indexAt(pos)
        found = self._part(index.row()) if index.isValid() else None
        if found is None:
            return False
        part, origin = found
        return QRect(origin, documents_size(part.documents)).contains(pos)

    def _edge(self, row: int, end: bool) -> TextPoint | None:
        found = self._part(row)
        if found is None:
            return None
        part = found[0]
        segment = part.segment
        return TextPoint(segment.message_id, segment.block, segment.start, max(0, character_count(part.documents) - 1) if end else 0)

    def _snap(self, row: int, forward: bool) -> TextPoint | None:
        """Off text: the end of the text row before `row` when selecting forward (its start after, backward)."""
        count = self.view.transcript.rowCount()
        before = ((r, True) for r in range(min(row, count - 1), max(-1, row - SNAP_ROWS), -1))
        after = ((r, False) for r in range(max(row, 0), min(count, row + SNAP_ROWS)))
        for candidate, end in [*before, *after] if forward else [*after, *before]:
            if (point := self._edge(candidate, end)) is not None:
                return point
        return None

    def at(self, pos: QPoint, forward: bool = True) -> TextPoint | None:
        """The text point under `pos`, or the nearest one (see _snap) when `pos` is off text or off the rows."""
        index = self.view.indexAt(pos)
        if index.isValid():
            return self.in_row(index.row(), pos) or self._snap(index.row(), forward)
        if pos.y() + self.view.verticalOffset() < 0:
            return self._snap(0, False)
        return self._snap(self.view.transcript.rowCount() - 1, True)

    def word(self, point: TextPoint, paragraph: bool = False) -> tuple[TextPoint, TextPoint] | None:
        """The word (or the paragraph) around `point`."""
        part = self.part_of(point)
        if part is None:
            return None
        low, high = (paragraph_range if paragraph else word_range)(part.documents, point.offset)
        return replace(point, offset=low), replace(point, offset=high)
