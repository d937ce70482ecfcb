"""The table of Settings ▸ Model profiles: a row per model with its context window, output limit, thinking, tools and
images, each figure in words with a small mark of where it came from (and its note as the tooltip)."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QAbstractTableModel,
    QCoreApplication,
    QLocale,
    QModelIndex,
    QPersistentModelIndex,
    QRect,
    QSize,
    Qt,
)
from PySide6.QtGui import QFont, QFontMetrics, QPainter
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from desktop_copilot.core.profiles.profile import Figure, ModelProfile, Source
from desktop_copilot.qt.common.theme import DEFAULT_THEME, Theme

ModelIndex = QModelIndex | QPersistentModelIndex
CONTEXT = "ModelProfiles"
COLUMNS = ("model", "context_window", "output_limit", "thinking", "tools", "images")
HEADERS = (QT_TRANSLATE_NOOP("ModelProfiles", "Model"), QT_TRANSLATE_NOOP("ModelProfiles", "Context"),
           QT_TRANSLATE_NOOP("ModelProfiles", "Output"), QT_TRANSLATE_NOOP("ModelProfiles", "Thinking"),
           QT_TRANSLATE_NOOP("ModelProfiles", "Tools"), QT_TRANSLATE_NOOP("ModelProfiles", "Images"))
SOURCE_ROLE = Qt.ItemDataRole.UserRole + 1
"""A figure's source ("user", "provider", "table", "default"); None in the model column."""
VALUE_ROLE = Qt.ItemDataRole.UserRole + 2
"""What a column sorts by: the figure's value (the id in the model column)."""
MARKS: dict[Source, str] = {
    "user": QT_TRANSLATE_NOOP("ModelProfiles", "u"),
    "provider": QT_TRANSLATE_NOOP("ModelProfiles", "p"),
    "table": QT_TRANSLATE_NOOP("ModelProfiles", "t"),
    "default": QT_TRANSLATE_NOOP("ModelProfiles", "?"),
}
SOURCE_WORDS: dict[Source, str] = {
    "user": QT_TRANSLATE_NOOP("ModelProfiles", "set by you"),
    "provider": QT_TRANSLATE_NOOP("ModelProfiles", "reported by the provider"),
    "table": QT_TRANSLATE_NOOP("ModelProfiles", "from the shipped table"),
    "default": QT_TRANSLATE_NOOP("ModelProfiles", "a guess"),
}
MARK_COLOURS: dict[Source, str] = {"user": "accent", "provider": "info_text", "table": "muted", "default": "warn_text"}
"""The Theme colour each source's mark is drawn in."""
VALUE_WORDS: dict[str, str] = {
    "none": QT_TRANSLATE_NOOP("ModelProfiles", "None"),
    "anthropic": QT_TRANSLATE_NOOP("ModelProfiles", "Anthropic blocks"),
    "reasoning_field": QT_TRANSLATE_NOOP("ModelProfiles", "Reasoning field"),
    "think_tags": QT_TRANSLATE_NOOP("ModelProfiles", "<think> tags"),
    "gemini": QT_TRANSLATE_NOOP("ModelProfiles", "Gemini thoughts"),
    "native": QT_TRANSLATE_NOOP("ModelProfiles", "Native"),
    "text": QT_TRANSLATE_NOOP("ModelProfiles", "As text"),
}
"""The thinking styles and tool protocols in the table's short words."""
YES, NO = QT_TRANSLATE_NOOP("ModelProfiles", "Yes"), QT_TRANSLATE_NOOP("ModelProfiles", "No")
MARK_PADDING = 6


def _tr(text: str) -> str:
    return QCoreApplication.translate(CONTEXT, text)


def figure_text(figure: Figure[Any]) -> str:
    """A figure's value as a cell shows it: a token count with the locale's separators, Yes or No, or a short word."""
    value = figure.value
    if isinstance(value, bool):
        return _tr(YES if value else NO)
    if isinstance(value, int):
        return QLocale().toString(value)
    return _tr(VALUE_WORDS[value]) if value in VALUE_WORDS else str(value)


def figure_note(figure: Figure[Any]) -> str:
    """Where a figure came from, for its tooltip: "set by you", else the note the core gave it."""
    return _tr(SOURCE_WORDS["user"]) if figure.source == "user" else figure.note or _tr(SOURCE_WORDS[figure.source])


def legend() -> str:
    """"u set by you · p reported by the provider · …": what the marks mean, in the words the tooltips use."""
    return " · ".join(f"{_tr(mark)} {_tr(SOURCE_WORDS[source])}" for source, mark in MARKS.items())


def plain_tooltip(text: str) -> str:
    """`text` as a tooltip shows it: escaped, so a note's "<think>" or a model id is never read as markup."""
    return f"<qt>{html.escape(text)}</qt>"


class ProfileTableModel(QAbstractTableModel):
    """The profiles of one provider's models, a row each; `replace` updates one row in place."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._profiles: list[ModelProfile] = []
        self._rows: dict[str, int] = {}

    def set_profiles(self, profiles: list[ModelProfile]) -> None:
        self.beginResetModel()
        self._profiles = list(profiles)
        self._rows = {profile.model: row for row, profile in enumerate(self._profiles)}
        self.endResetModel()

    def replace(self, profile: ModelProfile) -> None:
        """Shows `profile` in its model's row (nothing when the model has no row)."""
        row = self._rows.get(profile.model)
        if row is not None:
            self._profiles[row] = profile
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))

    def profile_at(self, row: int) -> ModelProfile:
        return self._profiles[row]

    def row_of(self, model: str) -> int:
        """The row of `model`, or -1."""
        return self._rows.get(model, -1)

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: N802 - Qt name
        return 0 if parent.isValid() else len(self._profiles)

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: N802 - Qt name
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(HEADERS):
            return _tr(HEADERS[section])
        return None

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        profile = self._profiles[index.row()]
        if index.column() == 0:
            if role in (Qt.ItemDataRole.DisplayRole, VALUE_ROLE, Qt.ItemDataRole.AccessibleTextRole):
                return profile.model
            return plain_tooltip(profile.model) if role == Qt.ItemDataRole.ToolTipRole else None
        figure: Figure[Any] = getattr(profile, COLUMNS[index.column()])
        if role == Qt.ItemDataRole.DisplayRole:
            return figure_text(figure)
        if role == SOURCE_ROLE:
            return figure.source
        if role == VALUE_ROLE:
            return figure.value
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tooltip(figure_note(figure))
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return f"{figure_text(figure)}, {_tr(SOURCE_WORDS[figure.source])}"
        if role == Qt.ItemDataRole.TextAlignmentRole and isinstance(figure.value, int) and not isinstance(figure.value, bool):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class SourceMarkDelegate(QStyledItemDelegate):
    """Paints a figure's value with its source mark after it, small and in the theme's colour for that source; the
    theme switch hands it the new theme (its `theme` attribute)."""

    def __init__(self, theme: Theme = DEFAULT_THEME, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.theme = theme

    @staticmethod
    def _mark_font(font: QFont) -> QFont:
        small = QFont(font)
        small.setPointSizeF(max(6.0, font.pointSizeF() - 1.5))
        small.setBold(True)
        return small

    def _mark_width(self, font: QFont) -> int:
        metrics = QFontMetrics(self._mark_font(font))
        return max(metrics.horizontalAdvance(_tr(mark)) for mark in MARKS.values()) + 2 * MARK_PADDING

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: ModelIndex) -> None:
        source = index.data(SOURCE_ROLE)
        if source not in MARKS:
            super().paint(painter, option, index)
            return
        item = QStyleOptionViewItem(option)
        self.initStyleOption(item, index)
        style = item.widget.style() if item.widget is not None else QApplication.style()
        width = self._mark_width(item.font)
        style.drawPrimitive(QStyle.PrimitiveElement.PE_PanelItemViewItem, item, painter, item.widget)
        text_part = QStyleOptionViewItem(item)
        text_part.rect = item.rect.adjusted(0, 0, -width, 0)
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, text_part, painter, item.widget)
        painter.save()
        painter.setFont(self._mark_font(item.font))
        painter.setPen(self.theme.color(MARK_COLOURS[source]))
        mark_rect = QRect(item.rect.right() - width + 1, item.rect.top(), width, item.rect.height())
        painter.drawText(mark_rect, int(Qt.AlignmentFlag.AlignCenter), _tr(MARKS[source]))
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: ModelIndex) -> QSize:  # noqa: N802
        size = super().sizeHint(option, index)
        if index.data(SOURCE_ROLE) in MARKS:
            size.setWidth(size.width() + self._mark_width(option.font))
        return size
