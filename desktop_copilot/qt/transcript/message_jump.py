"""Jump to a message in the transcript: scroll its row into view and flash a highlight over it (a
transparent overlay on the viewport, so the transcript delegate needs no selection state)."""

from __future__ import annotations

from PySide6.QtCore import QEasingCurve, QModelIndex, QPersistentModelIndex, Qt, QVariantAnimation
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import QAbstractItemView, QListView, QWidget

from desktop_copilot.qt.common.paint_helpers import fill_rounded
from desktop_copilot.qt.common.theme import DEFAULT_THEME

FLASH_MS = 2200
"""How long the highlight takes to fade out."""


def row_of_message(model, message_id: str) -> int | None:
    """The transcript row of `message_id`: the model's `message_row` (its first row after any marker before it) or
    `row_of` when it has one, else a scan."""
    if hasattr(model, "message_row"):
        return model.message_row(message_id)
    if hasattr(model, "row_of"):
        return model.row_of(message_id)
    for row in range(model.rowCount()):
        message = model.message_at(row) if hasattr(model, "message_at") else None
        if message is not None and message.id == message_id:
            return row
    return None


class RowFlash(QWidget):
    """A rounded accent overlay over one row of a list view that follows scrolling and fades out."""

    def __init__(self, view: QListView, index: QModelIndex) -> None:
        super().__init__(view.viewport())
        self.view = view
        self.index = QPersistentModelIndex(index)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)
        self._alpha = 1.0
        self._fade = QVariantAnimation(self, startValue=1.0, endValue=0.0, duration=FLASH_MS)
        self._fade.setEasingCurve(QEasingCurve.Type.InQuad)
        self._fade.valueChanged.connect(self._set_alpha)
        self._fade.finished.connect(self.deleteLater)
        view.verticalScrollBar().valueChanged.connect(self.follow)
        model = view.model()
        model.modelAboutToBeReset.connect(self.deleteLater)  # another conversation was opened
        model.layoutChanged.connect(self.follow)
        model.rowsInserted.connect(self.follow)
        self.follow()
        self.show()
        self._fade.start()

    def follow(self, *_args) -> None:
        if not self.index.isValid():
            self.hide()
            return
        rect = self.view.visualRect(QModelIndex(self.index))
        column = DEFAULT_THEME.max_column_width + 2 * DEFAULT_THEME.margin
        if rect.width() > column:  # the transcript centres a reading column
            rect.setLeft(rect.left() + (rect.width() - column) // 2)
            rect.setWidth(column)
        self.setGeometry(rect.adjusted(DEFAULT_THEME.margin // 2, 0, -DEFAULT_THEME.margin // 2, 0))

    def _set_alpha(self, value: float) -> None:
        self._alpha = float(value)
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt name
        painter = QPainter(self)
        fill = QColor(DEFAULT_THEME.highlight)
        fill.setAlphaF(0.35 * self._alpha)
        border = QColor(DEFAULT_THEME.accent)
        border.setAlphaF(0.8 * self._alpha)
        fill_rounded(painter, self.rect(), DEFAULT_THEME.radius, fill, border)


def jump_to_message(view: QListView, message_id: str) -> bool:
    """Scroll the transcript to `message_id` and flash it (opening a collapsed compaction it is in); False when the
    row is not there."""
    model = view.model()
    if model is not None and hasattr(model, "reveal"):
        model.reveal(message_id)
    row = row_of_message(model, message_id) if model is not None else None
    if row is None:
        return False
    index = model.index(row, 0)
    if hasattr(view, "stick_to_bottom"):
        view.stick_to_bottom = False
    view.doItemsLayout()
    fits = view.visualRect(index).height() < view.viewport().height()
    hint = QAbstractItemView.ScrollHint.PositionAtCenter if fits else QAbstractItemView.ScrollHint.PositionAtTop
    view.scrollTo(index, hint)
    for old in view.viewport().findChildren(RowFlash):
        old.deleteLater()
    RowFlash(view, index)
    return True
