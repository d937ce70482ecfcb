"""A list view of rows of any height laid out incrementally: estimated until shown, then measured."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPoint, QRect, Qt, QTimer
from PySide6.QtGui import QPainter, QRegion
from PySide6.QtWidgets import QAbstractItemView, QFrame, QStyleOptionViewItem

from desktop_copilot.qt.transcript.row_geometry import RowGeometry
from desktop_copilot.qt.transcript.delegate import TranscriptDelegate
from desktop_copilot.qt.transcript.model import TranscriptModel

BOTTOM_SLACK = 24
"""Within this many pixels of the end counts as "at the bottom"."""
BOTTOM_MARGIN = 18
PENDING_MS = 16
"""Rows on screen whose documents are still rendering on the tail worker are laid out again this often."""
FETCH_SCREENS = 1
"""Stored messages are loaded this many screens ahead of what is shown, above and below."""
Anchor = tuple[int, int]
"""(row at the top of the viewport, pixels of it above the viewport): what stays put while rows change."""


class RowView(QAbstractItemView):
    """Unlike QListView (which asks every row its size on any change and keeps a row's height in a short),
    it measures only rows on screen or named by a change (`delegate.row_height`), estimates the others
    (`delegate.estimate`), keeps the row at the top of the viewport in place while rows above change,
    and asks the model to `fetch` rows not loaded yet as they come near. `stick_to_bottom`: show the end."""

    def __init__(self, model: TranscriptModel, delegate: TranscriptDelegate, parent=None) -> None:
        super().__init__(parent)
        self.transcript = model
        self.delegate = delegate
        self.rows = RowGeometry()
        self.stick_to_bottom = True
        self._painting = False
        self._syncing = False
        self._removal_anchor: Anchor | None = None
        self._pending: list[int] = []
        """Rows painted last with documents still rendering (RowLayout.pending)."""
        self._pending_timer = QTimer(self, singleShot=True, interval=PENDING_MS)
        self._pending_timer.timeout.connect(self._lay_out_pending)
        self.setModel(model)
        self.setItemDelegate(delegate)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.verticalScrollBar().setSingleStep(24)
        self.verticalScrollBar().valueChanged.connect(self._on_scrolled)
        model.modelReset.connect(self._on_reset)
        model.layoutChanged.connect(self._on_reset)
        model.rowsInserted.connect(self._on_rows_inserted)
        model.rowsAboutToBeRemoved.connect(self._on_rows_about_to_be_removed)
        model.rowsRemoved.connect(self._on_rows_removed)
        model.dataChanged.connect(self._on_data_changed)
        model.sig_rows_shown_changed.connect(self._on_rows_shown_changed)
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

    def _estimate_all(self) -> list[int]:
        model, estimate = self.transcript, self.delegate.estimate
        return [estimate(model.segment_at(row), model.placement(row)) for row in range(model.rowCount())]

    def _on_reset(self) -> None:
        self.rows.reset(self._estimate_all())
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
        anchor, moved = self._anchor(), False
        rows = range(top.row(), min(bottom.row(), len(self.rows) - 1) + 1)
        for row in rows:
            if self._near_screen(row):
                moved |= self._measure(row) != 0
            else:
                moved |= self.rows.set(row, self._estimate(row), False) != 0
        if moved:
            self._restore(anchor)
        elif rows and not self._painting:  # same heights: repaint just these rows
            self.viewport().update(self.visualRect(self.transcript.index(rows[0], 0)).united(
                self.visualRect(self.transcript.index(rows[-1], 0))))

    def _on_rows_shown_changed(self, first: int, last: int) -> None:
        """Rows were hidden or shown (a compaction marker opened or closed): estimated again, measured as they come
        into view. The row at the top stays put; if it was hidden, the nearest row still shown above it does."""
        last = min(last, len(self.rows) - 1)
        if first > last:
            return
        row, into = self._anchor()
        self.rows.estimate_again(first, [self._estimate(n) for n in range(first, last + 1)])
        if first <= row <= last and not self.rows.heights[row]:
            while row > 0 and not self.rows.heights[row]:
                row -= 1
            into = 0
        self._restore((row, into))

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
            pending = []
            while 0 <= row < len(self.rows) and (top := self.rows.top(row) - offset) < height:
                option.rect = QRect(0, top, width, self.rows.heights[row])
                if option.rect.height() > 0 and option.rect.intersects(exposed):
                    index = self.transcript.index(row, 0)
                    self.delegate.paint(painter, option, index)
                    if self.delegate.layout(index).pending:
                        pending.append(row)
                row += 1
            painter.end()
            self._pending = pending
            if pending and not self._pending_timer.isActive():
                self._pending_timer.start()
        finally:
            self._painting = False

    def _lay_out_pending(self) -> None:
        """Lay the pending rows painted last out again: those whose render is back show it (heights may change)."""
        anchor, moved, done, waiting = self._anchor(), False, [], []
        for row in self._pending:
            index = self.transcript.index(row, 0)
            if row < len(self.rows) and self.delegate.forget_pending(index):
                moved |= self._measure(row) != 0
                (waiting if self.delegate.layout(index).pending else done).append(row)
        self._pending = waiting
        if moved:
            self._restore(anchor)
        elif done:
            self.viewport().update(self.visualRect(self.transcript.index(done[0], 0)).united(
                self.visualRect(self.transcript.index(done[-1], 0))))
        if waiting and not self._pending_timer.isActive():
            self._pending_timer.start()

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

    def _on_scrolled(self, value: int) -> None:
        if not self._syncing:  # the user scrolled (wheel, scroll bar, keys)
            self.stick_to_bottom = value >= self.verticalScrollBar().maximum() - BOTTOM_SLACK
