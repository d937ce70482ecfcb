"""Paints transcript rows from small per-part painters; caches row heights and a bounded number of
row layouts; toggles thinking sections and tool cards on click (state per message and block) and
reports clicked links."""

from __future__ import annotations

from collections import OrderedDict

from PySide6.QtCore import QEvent, QModelIndex, QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import QMouseEvent, QPainter
from PySide6.QtWidgets import QStyledItemDelegate, QStyleOptionViewItem

from desktop_copilot.core.models import Message
from desktop_copilot.qt.parts import PaintEnv
from desktop_copilot.qt.row_layout import PAINTERS, RowLayout, anchor_at, layout_row
from desktop_copilot.qt.transcript_model import TranscriptModel

LAYOUT_CACHE_ROWS = 96
"""Row layouts (which hold their documents) kept at once; heights alone are kept for every row."""


class TranscriptDelegate(QStyledItemDelegate):
    sig_link_activated = Signal(str)

    def __init__(self, parent=None, env: PaintEnv | None = None) -> None:
        super().__init__(parent)
        self.env = env or PaintEnv()
        self.width = 640
        self._expanded: dict[str, set[int]] = {}
        self._layouts: OrderedDict[str, tuple[tuple, RowLayout]] = OrderedDict()
        self._heights: dict[str, tuple[tuple, int]] = {}

    # --- geometry --------------------------------------------------------------------

    def set_width(self, width: int) -> bool:
        """The viewport width rows are laid out for; True when it changed (the view then re-lays out)."""
        width = max(200, width)
        if width == self.width:
            return False
        self.width = width
        return True

    def _key(self, message: Message) -> tuple:
        return message.revision, message.status, self.width, frozenset(self._expanded.get(message.id, ()))

    def layout(self, message: Message) -> RowLayout:
        key = self._key(message)
        cached = self._layouts.get(message.id)
        if cached is not None and cached[0] == key:
            self._layouts.move_to_end(message.id)
            return cached[1]
        row = layout_row(message, self.width, key[3], self.env)
        self._layouts[message.id] = (key, row)
        self._layouts.move_to_end(message.id)
        while len(self._layouts) > LAYOUT_CACHE_ROWS:
            self._layouts.popitem(last=False)
        self._heights[message.id] = (key, row.height)
        return row

    def row_height(self, message: Message) -> int:
        cached = self._heights.get(message.id)
        if cached is not None and cached[0] == self._key(message):
            return cached[1]
        return self.layout(message).height

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:  # noqa: N802 - Qt name
        message = index.data(TranscriptModel.MessageRole)
        if message is None:
            return QSize(self.width, 0)
        return QSize(self.width, self.row_height(message))

    # --- painting --------------------------------------------------------------------

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        message = index.data(TranscriptModel.MessageRole)
        if message is None:
            return
        row = self.layout(message)
        column = self.env.column(QRect(option.rect.left(), option.rect.top(), self.width, row.height))
        visible = option.rect
        if option.widget is not None and hasattr(option.widget, "viewport"):
            visible = visible.intersected(option.widget.viewport().rect())
        painter.save()
        painter.setClipRect(visible)
        for part in row.parts:
            rect = row.part_rect(part, column)
            if rect.intersects(visible):
                PAINTERS[part.kind].paint(painter, part, rect, self.env)
        painter.restore()

    # --- interaction -----------------------------------------------------------------

    def is_expanded(self, message_id: str, block_index: int) -> bool:
        return block_index in self._expanded.get(message_id, ())

    def set_expanded(self, message_id: str, block_index: int, expanded: bool) -> None:
        indices = self._expanded.setdefault(message_id, set())
        (indices.add if expanded else indices.discard)(block_index)

    def _hit(self, index: QModelIndex, rect: QRect, pos: QPoint):
        """(message, row layout, column, position in row coordinates) for a point in view coordinates."""
        message = index.data(TranscriptModel.MessageRole)
        if message is None:
            return None
        row = self.layout(message)
        return message, row, self.env.column(QRect(0, 0, self.width, row.height)), pos - rect.topLeft()

    def toggle_at(self, index: QModelIndex, rect: QRect, pos: QPoint) -> bool:
        """Expand or collapse the part under `pos` (view coordinates) of the row at `rect`."""
        hit = self._hit(index, rect, pos)
        part = hit and hit[1].toggle_at(hit[3], hit[2], self.env)
        if not part:
            return False
        message = hit[0]
        self.set_expanded(message.id, part.index, not self.is_expanded(message.id, part.index))
        self.sizeHintChanged.emit(index)
        return True

    def link_at(self, index: QModelIndex, rect: QRect, pos: QPoint) -> str:
        hit = self._hit(index, rect, pos)
        return anchor_at(hit[1], hit[3], hit[2]) if hit else ""

    def is_clickable_at(self, index: QModelIndex, rect: QRect, pos: QPoint) -> bool:
        hit = self._hit(index, rect, pos)
        return bool(hit) and (hit[1].toggle_at(hit[3], hit[2], self.env) is not None or bool(anchor_at(hit[1], hit[3], hit[2])))

    def editorEvent(self, event: QEvent, model, option: QStyleOptionViewItem, index: QModelIndex) -> bool:  # noqa: N802
        if not (
            event.type() == QEvent.Type.MouseButtonRelease
            and isinstance(event, QMouseEvent)
            and event.button() == Qt.MouseButton.LeftButton
        ):
            return False
        pos = event.position().toPoint()
        if self.toggle_at(index, option.rect, pos):
            return True
        if link := self.link_at(index, option.rect, pos):
            self.sig_link_activated.emit(link)
            return True
        return False
