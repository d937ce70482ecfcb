"""Paints and measures transcript rows (one segment each), estimates unseen ones, and handles clicks."""

from __future__ import annotations

from collections import OrderedDict

from PySide6.QtCore import QEvent, QModelIndex, QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import QMouseEvent, QPainter
from PySide6.QtWidgets import QStyledItemDelegate, QStyleOptionViewItem

from desktop_copilot.qt.transcript.parts.documents import LinkHit, link_at
from desktop_copilot.qt.transcript.parts.approval import card_look
from desktop_copilot.qt.transcript.parts.base import Hotspot, PaintEnv, Part
from desktop_copilot.qt.transcript.row_layout import PAINTERS, RowLayout, estimate_height, layout_segment
from desktop_copilot.core.transcript.segments import HIDDEN, Segment
from desktop_copilot.qt.transcript.model import TranscriptModel

LAYOUT_CACHE_ROWS = 32
"""Row layouts kept at once (about two screens): they hold their documents, the document cache bounds the rest."""


class TranscriptDelegate(QStyledItemDelegate):
    sig_link_clicked = Signal(str, str)
    """A link was clicked: (its href, its visible text). Nothing is opened here (see link_opener)."""
    sig_hotspot_clicked = Signal(object, object)
    """A button on a part was clicked: (the Part, the Hotspot). The view acts on it."""

    def __init__(self, parent=None, env: PaintEnv | None = None) -> None:
        super().__init__(parent)
        self.env = env or PaintEnv()
        self.width = 640
        self._column = self.env.column(QRect(0, 0, self.width, 0)).width()
        self.model: TranscriptModel | None = None
        self._layouts: OrderedDict[tuple, RowLayout] = OrderedDict()
        self.zoom = 1.0
        """The transcript's text size over the theme's (View ▸ Zoom in, Zoom out, Actual size)."""
        self._base_theme = self.env.theme

    def bind(self, model: TranscriptModel) -> None:
        """The model whose expand/collapse state clicks change; when it shows another conversation, the rows laid out
        for the one before are let go (a reply's "waiting" row holds its message)."""
        self.model = model
        self.env.reply_of = model.reply_of
        model.modelReset.connect(self._layouts.clear)

    # --- geometry --------------------------------------------------------------------

    def apply_theme(self, theme) -> None:
        """Paint with `theme` from now on (the theme switch calls this), at the zoom set: laid-out rows baked the old
        colours and sizes in."""
        self._base_theme = theme
        self.env.apply_theme(theme.scaled(self.zoom))
        self._layouts.clear()

    def set_zoom(self, factor: float) -> None:
        """Text `factor` times its size (View ▸ Zoom in / out); the view lays its rows out again."""
        self.zoom = factor
        self.apply_theme(self._base_theme)

    def set_width(self, width: int) -> bool:
        """The viewport width rows are laid out for; True when it changed (the view then re-lays out)."""
        width = max(200, width)
        if width == self.width:
            return False
        self.width = width
        self._column = self.env.column(QRect(0, 0, width, 0)).width()
        self._layouts.clear()
        return True

    def layout(self, index: QModelIndex) -> RowLayout:
        """The row's part, measured (documents laid out) for the current width."""
        segment = index.data(TranscriptModel.SegmentRole)
        placement = index.data(TranscriptModel.PlacementRole)
        message = None if segment.kind == "pending" or placement == HIDDEN else index.data(TranscriptModel.MessageRole)
        look = ()
        if segment.kind == "tool" and message is not None and 0 <= segment.block < len(message.blocks):
            look = card_look(message.blocks[segment.block], message, self.env.cards)  # approval and clicks change the card too
        if placement == HIDDEN:  # no height: not worth a place in the cache
            return layout_segment(segment, message, placement, self.width, self.env)
        key = (segment, placement, self.width, look)
        row = self._layouts.get(key)
        if row is not None:
            self._layouts.move_to_end(key)
            return row
        row = layout_segment(segment, message, placement, self.width, self.env)
        if row.parts[0].kind != "pending":
            self._layouts[key] = row
            while len(self._layouts) > LAYOUT_CACHE_ROWS:
                self._layouts.popitem(last=False)
        return row

    def forget_pending(self, index: QModelIndex) -> bool:
        """Drop the row's layout if it is `pending` (its next layout may find the render back); True if it was."""
        segment = index.data(TranscriptModel.SegmentRole)
        placement = index.data(TranscriptModel.PlacementRole)
        for key, row in self._layouts.items():
            if row.pending and key[:3] == (segment, placement, self.width):
                del self._layouts[key]
                return True
        return False

    def row_height(self, index: QModelIndex) -> int:
        return self.layout(index).height

    def estimate(self, segment: Segment, placement: int) -> int:
        """The row's height guessed without laying out text (for rows not on screen)."""
        return estimate_height(segment, placement, self._column, self.env.theme)

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:  # noqa: N802 - Qt name
        if not index.isValid():
            return QSize(self.width, 0)
        return QSize(self.width, self.row_height(index))

    # --- painting --------------------------------------------------------------------

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        row = self.layout(index)
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
        return self.model is not None and self.model.is_expanded(message_id, block_index)

    def set_expanded(self, message_id: str, block_index: int, expanded: bool) -> None:
        if self.model is not None:
            self.model.set_expanded(message_id, block_index, expanded)

    def _hit(self, index: QModelIndex, rect: QRect, pos: QPoint):
        """(row layout, column, position in row coordinates) for a point in view coordinates."""
        if not index.isValid():
            return None
        row = self.layout(index)
        return row, self.env.column(QRect(0, 0, self.width, row.height)), pos - rect.topLeft()

    def toggle_part_at(self, index: QModelIndex, rect: QRect, pos: QPoint) -> Part | None:
        """The part whose expand/collapse area is under `pos` (view coordinates) in the row at `rect`."""
        hit = self._hit(index, rect, pos)
        return hit[0].toggle_at(hit[2], hit[1], self.env) if hit else None

    def toggle_at(self, index: QModelIndex, rect: QRect, pos: QPoint) -> bool:
        """Expand or collapse the part under `pos` (view coordinates) of the row at `rect`."""
        part = self.toggle_part_at(index, rect, pos)
        if not part:
            return False
        model = self.model or index.model()
        model.set_expanded(part.message.id, part.index, not model.is_expanded(part.message.id, part.index))
        return True

    def link_hit(self, index: QModelIndex, rect: QRect, pos: QPoint) -> LinkHit | None:
        """The link (target and visible text) under `pos` (view coordinates) in the row at `rect`."""
        hit = self._hit(index, rect, pos)
        if not hit:
            return None
        row, column, at = hit
        for part in row.parts:
            area = row.part_rect(part, column)
            if part.kind == "text" and area.contains(at):
                return link_at(part.documents, at.x() - area.left(), at.y() - area.top())
        return None

    def text_part(self, index: QModelIndex, rect: QRect) -> tuple[Part, QPoint] | None:
        """The row's part whose text can be selected, and where (view coordinates) its documents are drawn when
        the row is at `rect`; None for rows without selectable text."""
        if not index.isValid():
            return None
        row = self.layout(index)
        column = self.env.column(QRect(rect.left(), rect.top(), self.width, row.height))
        for part in row.parts:
            origin = PAINTERS[part.kind].text_origin(part, row.part_rect(part, column), self.env)
            if origin is not None:
                return part, origin
        return None

    def hotspot_at(self, index: QModelIndex, rect: QRect, pos: QPoint) -> tuple[Part, Hotspot] | None:
        """The part and button under `pos` (view coordinates) in the row at `rect`, if any."""
        hit = self._hit(index, rect, pos)
        return hit[0].hotspot_at(hit[2], hit[1]) if hit else None

    def hotspot_rect(self, index: QModelIndex, rect: QRect, part: Part, hotspot: Hotspot) -> QRect:
        """Where (view coordinates) `part` of the row at `rect` paints `hotspot`."""
        row = self.layout(index)
        column = self.env.column(QRect(rect.left(), rect.top(), self.width, row.height))
        return hotspot.rect.translated(row.part_rect(part, column).topLeft())

    def link_at(self, index: QModelIndex, rect: QRect, pos: QPoint) -> str:
        hit = self.link_hit(index, rect, pos)
        return hit.href if hit else ""

    def is_clickable_at(self, index: QModelIndex, rect: QRect, pos: QPoint) -> bool:
        hit = self._hit(index, rect, pos)
        return bool(hit) and (hit[0].toggle_at(hit[2], hit[1], self.env) is not None or hit[0].hotspot_at(hit[2], hit[1]) is not None
                              or bool(self.link_at(index, rect, pos)))

    def editorEvent(self, event: QEvent, model, option: QStyleOptionViewItem, index: QModelIndex) -> bool:  # noqa: N802
        if not (
            event.type() == QEvent.Type.MouseButtonRelease
            and isinstance(event, QMouseEvent)
            and event.button() == Qt.MouseButton.LeftButton
        ):
            return False
        pos = event.position().toPoint()
        if hotspot := self.hotspot_at(index, option.rect, pos):
            self.sig_hotspot_clicked.emit(*hotspot)
            return True
        if self.toggle_at(index, option.rect, pos):
            return True
        if link := self.link_hit(index, option.rect, pos):
            self.sig_link_clicked.emit(link.href, link.text)
            return True
        return False
