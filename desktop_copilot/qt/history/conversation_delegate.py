"""Paints sidebar rows: a day-section header above the first row of each section, then the title
and a muted "model · time" line on a rounded hover/selection background (the run's state in its place, with a
coloured mark after the title, while a reply runs, waits, failed or is new); edits the title in place."""

from __future__ import annotations

import re

from PySide6.QtCore import QCoreApplication, QModelIndex, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter
from PySide6.QtWidgets import QLineEdit, QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from desktop_copilot.qt.history.conversation_list_model import ConversationListModel as Model
from desktop_copilot.qt.common.paint_helpers import fill_rounded
from desktop_copilot.qt.common.theme import DEFAULT_THEME, Theme
from desktop_copilot.qt.history.run_states import APPROVAL, FAILED, INTERRUPTED, STREAMING, UNSEEN, RowState

HEADER_HEIGHT = 32
ROW_INSET = 8
"""Gap between the sidebar edge and a row's rounded background."""
TEXT_PADDING = 10
ROW_PADDING = 7
LINE_GAP = 2
MARK = 8
"""The diameter of a row's state mark (a pill with the count for calls waiting)."""
STATE_COLORS = {STREAMING: "accent", APPROVAL: "meter_warn", FAILED: "error_text", INTERRUPTED: "warn_text", UNSEEN: "accent"}


def state_words(state: RowState) -> str:
    """What the row's second line says for its state."""
    if state.kind == APPROVAL:
        return QCoreApplication.translate("ConversationDelegate", "Waiting for your approval (%n)", "", state.count)
    words = {STREAMING: QCoreApplication.translate("ConversationDelegate", "Replying…"),
             FAILED: QCoreApplication.translate("ConversationDelegate", "The reply failed"),
             INTERRUPTED: QCoreApplication.translate("ConversationDelegate", "The reply was interrupted"),
             UNSEEN: QCoreApplication.translate("ConversationDelegate", "New reply")}
    return words.get(state.kind, "")


def short_model(name: str) -> str:
    """`claude-sonnet-4-5-20250929` → `sonnet-4-5`: the part of a model id that tells models apart."""
    return re.sub(r"-\d{8}$", "", re.sub(r"^claude-", "", name or ""))


def paint_row_background(painter: QPainter, option: QStyleOptionViewItem, rect: QRect, theme: Theme) -> None:
    """The rounded hover / selection background shared by the sidebar's lists."""
    if option.state & QStyle.StateFlag.State_Selected:
        fill_rounded(painter, rect, 8, theme.color("row_selected"))
    elif option.state & QStyle.StateFlag.State_MouseOver:
        fill_rounded(painter, rect, 8, theme.color("row_hover"))


class ConversationDelegate(QStyledItemDelegate):
    def __init__(self, parent: QWidget | None = None, theme: Theme = DEFAULT_THEME) -> None:
        super().__init__(parent)
        self.theme = theme

    def _line_heights(self) -> tuple[int, int]:
        return QFontMetrics(self.theme.font("body")).height(), QFontMetrics(self.theme.font("small")).height()

    def row_height(self) -> int:
        title, meta = self._line_heights()
        return title + LINE_GAP + meta + 2 * ROW_PADDING + 2

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:  # noqa: N802 - Qt name
        header = HEADER_HEIGHT if index.data(Model.FirstInSectionRole) else 0
        return QSize(option.rect.width() or 240, header + self.row_height())

    def _item_rect(self, option: QStyleOptionViewItem, index: QModelIndex) -> QRect:
        rect = QRect(option.rect)
        if index.data(Model.FirstInSectionRole):
            rect.setTop(rect.top() + HEADER_HEIGHT)
        return rect.adjusted(ROW_INSET, 1, -ROW_INSET, -1)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        theme = self.theme
        painter.save()
        if index.data(Model.FirstInSectionRole):
            header = QRect(option.rect.left() + ROW_INSET + TEXT_PADDING, option.rect.top(),
                           option.rect.width() - 2 * (ROW_INSET + TEXT_PADDING), HEADER_HEIGHT - 6)
            painter.setFont(theme.font("small_bold"))
            painter.setPen(theme.color("muted"))
            painter.drawText(header, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom), index.data(Model.SectionRole))
        item = self._item_rect(option, index)
        paint_row_background(painter, option, item, theme)
        text = item.adjusted(TEXT_PADDING, ROW_PADDING, -TEXT_PADDING, -ROW_PADDING)
        title_height, meta_height = self._line_heights()
        state: RowState | None = index.data(Model.RunStateRole)
        color = QColor(theme.color(STATE_COLORS[state.kind])) if state is not None else None
        title_width = text.width()
        if color is not None:
            title_width -= self._paint_mark(painter, state, color, QRect(text.left(), text.top(), text.width(), title_height))
        body = theme.font("label") if state is not None and state.kind == UNSEEN else theme.font("body")
        painter.setFont(body)
        painter.setPen(theme.color("text"))
        title = QFontMetrics(body).elidedText(index.data(Qt.ItemDataRole.DisplayRole) or "", Qt.TextElideMode.ElideRight, title_width)
        painter.drawText(QRect(text.left(), text.top(), title_width, title_height), int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), title)
        if state is not None:
            meta = state_words(state)
        else:
            meta = " · ".join(part for part in (short_model(index.data(Model.ModelNameRole)), index.data(Model.TimeTextRole)) if part)
        small = theme.font("small")
        painter.setFont(small)
        painter.setPen(color if color is not None else theme.color("muted"))
        meta_rect = QRect(text.left(), text.top() + title_height + LINE_GAP, text.width(), meta_height)
        painter.drawText(meta_rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                         QFontMetrics(small).elidedText(meta, Qt.TextElideMode.ElideRight, text.width()))
        painter.restore()

    def _paint_mark(self, painter: QPainter, state: RowState, color: QColor, line: QRect) -> int:
        """A dot at the right of the title line (a pill with the count while calls wait); the width it takes."""
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color)
        if state.kind == APPROVAL:
            small = self.theme.font("small_bold")
            count = str(state.count)
            width = max(QFontMetrics(small).horizontalAdvance(count) + 10, QFontMetrics(small).height())
            height = QFontMetrics(small).height()
            pill = QRectF(line.right() - width, line.center().y() - height / 2 + 1, width, height)
            painter.drawRoundedRect(pill, height / 2, height / 2)
            painter.setFont(small)
            painter.setPen(QColor(self.theme.color("on_accent")))
            painter.drawText(pill, int(Qt.AlignmentFlag.AlignCenter), count)
            return width + 6
        painter.drawEllipse(QRectF(line.right() - MARK, line.center().y() - MARK / 2 + 1, MARK, MARK))
        return MARK + 6

    # --- inline rename ---------------------------------------------------------------

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem, index: QModelIndex) -> QWidget:  # noqa: N802
        editor = QLineEdit(parent)
        editor.setObjectName("renameEditor")
        editor.setFont(self.theme.font("body"))
        editor.setFrame(False)
        return editor

    def setEditorData(self, editor: QWidget, index: QModelIndex) -> None:  # noqa: N802 - Qt name
        editor.setText(index.data(Qt.ItemDataRole.EditRole) or "")
        editor.selectAll()

    def updateEditorGeometry(self, editor: QWidget, option: QStyleOptionViewItem, index: QModelIndex) -> None:  # noqa: N802
        item = self._item_rect(option, index)
        title_height, _meta = self._line_heights()
        editor.setGeometry(QRect(item.left() + TEXT_PADDING - 5, item.top() + ROW_PADDING - 3,
                                 item.width() - 2 * TEXT_PADDING + 10, title_height + 6))
