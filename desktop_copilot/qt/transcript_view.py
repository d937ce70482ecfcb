"""The transcript view: rows of any height laid out incrementally (estimated until shown, then measured;
a change re-measures only the rows it names), what is on screen kept in place while rows above change,
stored messages fetched as they scroll into view, the bottom followed while a reply streams unless the
user scrolled up, a debounced re-layout on resize, live timers repainted, links opened, a copy menu."""

from __future__ import annotations

import json

from PySide6.QtCore import QEvent, QModelIndex, QPoint, QRect, Qt, QTimer, QUrl
from PySide6.QtGui import QContextMenuEvent, QDesktopServices, QGuiApplication, QMouseEvent, QPainter, QRegion
from PySide6.QtWidgets import QAbstractItemView, QFrame, QMenu, QStyleOptionViewItem

from desktop_copilot.qt.row_geometry import RowGeometry
from desktop_copilot.qt.transcript_delegate import TranscriptDelegate
from desktop_copilot.qt.transcript_model import TranscriptModel

RESIZE_DEBOUNCE_MS = 120
TICK_MS = 250
"""How often live timers ("Thinking… 4 s", tool elapsed time) repaint while a run is busy."""
BOTTOM_SLACK = 24
"""Within this many pixels of the end counts as "at the bottom"."""
BOTTOM_MARGIN = 18
FETCH_SCREENS = 1
"""Stored messages are loaded this many screens ahead of what is shown, above and below."""
Anchor = tuple[int, int]
"""(row at the top of the viewport, pixels of it above the viewport): what stays put while rows change."""


class TranscriptView(QAbstractItemView):
    def __init__(self, model: TranscriptModel, delegate: TranscriptDelegate | None = None, parent=None) -> None:
        super().__init__(parent)
        self.transcript = model
        self.delegate = delegate or TranscriptDelegate(self)
        self.delegate.bind(model)
        self.rows = RowGeometry()
        self.stick_to_bottom = True
        self._painting = False
        self._syncing = False
        self._removal_anchor: Anchor | None = None
        self.setModel(model)
        self.setItemDelegate(self.delegate)
        self.setObjectName("transcript")
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setMouseTracking(True)
        self.verticalScrollBar().setSingleStep(24)
        self.verticalScrollBar().valueChanged.connect(self._on_scrolled)
        model.modelReset.connect(self._on_reset)
        model.layoutChanged.connect(self._on_reset)
        model.rowsInserted.connect(self._on_rows_inserted)
        model.rowsAboutToBeRemoved.connect(self._on_rows_about_to_be_removed)
        model.rowsRemoved.connect(self._on_rows_removed)
        model.dataChanged.connect(self._on_data_changed)
        self._resize_timer = QTimer(self, singleShot=True, interval=RESIZE_DEBOUNCE_MS)
        self._resize_timer.timeout.connect(self._apply_width)
        self._sized = False
        self._tick = QTimer(self, interval=TICK_MS)
        self._tick.timeout.connect(self.viewport().update)
        self.delegate.sig_link_activated.connect(lambda url: QDesktopServices.openUrl(QUrl(url)))
        self._on_reset()

    # --- geometry bookkeeping ----------------------------------------------------------

    def _offset(self) -> int:
        return self.verticalScrollBar().value()

    def _estimate(self, row: int) -> int:
        return self.delegate.estimate(self.transcript.segment_at(row), self.transcript.placement(row))

    def _measure(self, row: int) -> int:
        """Lay the row out for real; returns how much its height changed."""
        return self.rows.set(row, self.delegate.row_height(self.transcript.index(row, 0)), True)

    def _anchor(self) -> Anchor:
        row = self.rows.row_at(self._offset())
        return (row, self._offset() - self.rows.top(row)) if row >= 0 else (0, 0)

    def _restore(self, anchor: Anchor) -> None:
        """Scroll so the anchor row is where it was (or to the bottom when following it), and repaint."""
        row, into = anchor
        value = None
        if 0 <= row < len(self.rows):
            value = self.rows.top(row) + min(into, self.rows.heights[row])
        self._sync_scrollbar(value)
        if not self._painting:
            self.viewport().update()

    def _sync_scrollbar(self, value: int | None = None) -> None:
        """Range from the rows' total height; value: the bottom when following it, else `value` if given.
        Our own changes of range and value leave "following the bottom" as it was."""
        bar, height = self.verticalScrollBar(), self.viewport().height()
        maximum = max(0, self.rows.total() + BOTTOM_MARGIN - height)
        sticky, self._syncing = self.stick_to_bottom, True
        try:
            bar.setPageStep(max(1, height))
            bar.setRange(0, maximum)
            if sticky:
                bar.setValue(maximum)
            elif value is not None:
                bar.setValue(value)
        finally:
            self._syncing, self.stick_to_bottom = False, sticky

    def _near_screen(self, row: int) -> bool:
        offset, height = self._offset(), self.viewport().height()
        top = self.rows.top(row)
        return top < offset + 2 * height and top + self.rows.heights[row] > offset - height

    # --- model signals -----------------------------------------------------------------

    def _on_reset(self) -> None:
        self.rows.reset([self._estimate(row) for row in range(self.transcript.rowCount())])
        self.stick_to_bottom = True
        self._sync_scrollbar()
        self.viewport().update()

    def _on_rows_inserted(self, _parent: QModelIndex, first: int, last: int) -> None:
        anchor = self._anchor()
        had_rows = len(self.rows) > 0
        self.rows.insert(first, [self._estimate(row) for row in range(first, last + 1)])
        if had_rows and anchor[0] >= first:
            anchor = (anchor[0] + last - first + 1, anchor[1])
        self._restore(anchor)

    def _on_rows_about_to_be_removed(self, _parent: QModelIndex, first: int, last: int) -> None:
        row, into = self._anchor()
        count = last - first + 1
        self.rows.remove(first, count)
        self._removal_anchor = (row - count, into) if row > last else (first, 0) if row >= first else (row, into)

    def _on_rows_removed(self, *_args) -> None:
        anchor, self._removal_anchor = self._removal_anchor or self._anchor(), None
        self._restore(anchor)

    def _on_data_changed(self, top: QModelIndex, bottom: QModelIndex, _roles=()) -> None:
        anchor = self._anchor()
        for row in range(top.row(), min(bottom.row(), len(self.rows) - 1) + 1):
            if self._near_screen(row):
                self._measure(row)
            else:
                self.rows.set(row, self._estimate(row), False)
        self._restore(anchor)

    def doItemsLayout(self) -> None:  # noqa: N802 - Qt name; Qt calls it after setModel, on show, …
        if len(self.rows) != self.transcript.rowCount():
            self._on_reset()
        self._sync_scrollbar()
        self.viewport().update()

    def updateGeometries(self) -> None:  # noqa: N802 - Qt name
        self._sync_scrollbar(self._offset())
        super().updateGeometries()

    # --- painting ----------------------------------------------------------------------

    def _prepare_visible(self) -> None:
        """Before painting: fetch stored messages near the viewport, measure the rows on screen, and keep
        the anchor row in place while their real heights replace the estimates."""
        for _ in range(6):
            offset, height = self._offset(), self.viewport().height()
            near = self.rows.row_at(offset - FETCH_SCREENS * height), self.rows.row_at(offset + (1 + FETCH_SCREENS) * height)
            if near[0] < 0:
                return
            if self.transcript.has_pending(*near) and self.transcript.fetch(*near):
                continue  # the model's signals re-laid the rows out
            anchor, changed = self._anchor(), False
            row = self.rows.row_at(offset)
            while row < len(self.rows) and self.rows.top(row) < offset + height:
                if not self.rows.measured[row]:
                    changed |= self._measure(row) != 0
                row += 1
            if not changed:
                return
            self._restore(anchor)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt name
        self._painting = True
        try:
            self._prepare_visible()
            painter = QPainter(self.viewport())
            option = QStyleOptionViewItem()
            self.initViewItemOption(option)
            offset, width, height = self._offset(), self.viewport().width(), self.viewport().height()
            exposed = event.rect()
            row = self.rows.row_at(offset)
            while 0 <= row < len(self.rows) and (top := self.rows.top(row) - offset) < height:
                option.rect = QRect(0, top, width, self.rows.heights[row])
                if option.rect.height() > 0 and option.rect.intersects(exposed):
                    self.delegate.paint(painter, option, self.transcript.index(row, 0))
                row += 1
            painter.end()
        finally:
            self._painting = False

    def scrollContentsBy(self, dx: int, dy: int) -> None:  # noqa: N802 - Qt name
        if not self._painting:
            self.viewport().update()

    # --- QAbstractItemView contract ----------------------------------------------------

    def visualRect(self, index: QModelIndex) -> QRect:  # noqa: N802 - Qt name
        if not index.isValid() or index.row() >= len(self.rows):
            return QRect()
        row = index.row()
        return QRect(0, self.rows.top(row) - self._offset(), self.viewport().width(), self.rows.heights[row])

    def indexAt(self, point: QPoint) -> QModelIndex:  # noqa: N802 - Qt name
        y = point.y() + self._offset()
        if not self.rows or y < 0 or y >= self.rows.total():
            return QModelIndex()
        return self.transcript.index(self.rows.row_at(y), 0)

    def scrollTo(self, index: QModelIndex, hint=QAbstractItemView.ScrollHint.EnsureVisible) -> None:  # noqa: N802
        if not index.isValid() or index.row() >= len(self.rows):
            return
        self.transcript.fetch(index.row(), index.row())
        row = index.row()
        self._measure(row)
        top, size, offset, height = self.rows.top(row), self.rows.heights[row], self._offset(), self.viewport().height()
        hints = QAbstractItemView.ScrollHint
        if hint == hints.PositionAtTop:
            value = top
        elif hint == hints.PositionAtBottom:
            value = top + size - height
        elif hint == hints.PositionAtCenter:
            value = top + size // 2 - height // 2
        elif top < offset or size > height:
            value = top
        elif top + size > offset + height:
            value = top + size - height
        else:
            return
        self.stick_to_bottom = False
        self._sync_scrollbar(max(0, value))

    def scrollToBottom(self) -> None:  # noqa: N802 - Qt name
        self.stick_to_bottom = True
        self._sync_scrollbar()

    def horizontalOffset(self) -> int:  # noqa: N802 - Qt name
        return 0

    def verticalOffset(self) -> int:  # noqa: N802 - Qt name
        return self._offset()

    def isIndexHidden(self, index: QModelIndex) -> bool:  # noqa: N802 - Qt name
        return False

    def moveCursor(self, action, modifiers) -> QModelIndex:  # noqa: N802 - Qt name
        return QModelIndex()

    def setSelection(self, rect: QRect, command) -> None:  # noqa: N802 - Qt name
        return None

    def visualRegionForSelection(self, selection) -> QRegion:  # noqa: N802 - Qt name
        return QRegion()

    # --- scrolling -------------------------------------------------------------------

    def _on_scrolled(self, value: int) -> None:
        if not self._syncing:  # the user scrolled (wheel, scroll bar, keys)
            self.stick_to_bottom = value >= self.verticalScrollBar().maximum() - BOTTOM_SLACK

    def follow(self) -> None:
        """Scroll to the end and keep following new content (after the user sends)."""
        self.scrollToBottom()
        self.viewport().update()

    def set_live(self, live: bool) -> None:
        """Repaint live timers every TICK_MS while a run is in progress."""
        if live:
            self._tick.start()
        else:
            self._tick.stop()
            self.viewport().update()

    # --- resizing --------------------------------------------------------------------

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt name
        super().resizeEvent(event)
        if not self._sized:
            self._sized = True
            self._apply_width()
        else:
            self._resize_timer.start()

    def _apply_width(self) -> None:
        if self.delegate.set_width(self.viewport().width()):
            anchor = self._anchor()
            self.rows.reset([self._estimate(row) for row in range(len(self.rows))])
            self._restore(anchor)

    # --- mouse -----------------------------------------------------------------------

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt name
        super().mouseMoveEvent(event)
        pos = event.position().toPoint()
        index = self.indexAt(pos)
        clickable = index.isValid() and self.delegate.is_clickable_at(index, self.visualRect(index), pos)
        self.viewport().setCursor(Qt.CursorShape.PointingHandCursor if clickable else Qt.CursorShape.ArrowCursor)

    def viewportEvent(self, event: QEvent) -> bool:  # noqa: N802 - Qt name
        if event.type() == QEvent.Type.Leave:
            self.viewport().unsetCursor()
        return super().viewportEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:  # noqa: N802 - Qt name
        index = self.indexAt(event.pos())
        if not index.isValid():
            return
        menu = QMenu(self)
        menu.addAction("Copy message text", lambda: self._copy(index.data(Qt.ItemDataRole.DisplayRole)))
        segment = index.data(TranscriptModel.SegmentRole)
        if segment.kind == "tool":
            block = index.data(TranscriptModel.MessageRole).blocks[segment.block]
            arguments = json.dumps(block.arguments, ensure_ascii=False, indent=2) if block.arguments else block.partial_arguments
            menu.addAction("Copy tool arguments", lambda: self._copy(arguments))
            if block.result is not None:
                menu.addAction("Copy tool result", lambda: self._copy(block.result))
        menu.exec(event.globalPos())

    @staticmethod
    def _copy(text: str | None) -> None:
        QGuiApplication.clipboard().setText(text or "")
