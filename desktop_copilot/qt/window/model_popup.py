"""The model picker's popup: a search field over the models grouped by provider, filtered as you type and driven
by the keyboard; a provider without its key is greyed and says where to add one, the others offer Refresh."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, QObject, QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import QFontMetrics, QKeyEvent, QMouseEvent, QPainter
from PySide6.QtWidgets import (
    QFrame,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QStyle,
    QStyledItemDelegate,
    QVBoxLayout,
    QWidget,
)

from desktop_copilot.core.provider_table import ProviderSpec
from desktop_copilot.qt.common.paint_helpers import fill_rounded
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.common.theme import DEFAULT_THEME, Theme
from desktop_copilot.qt.common.theme_switch import themed_style_sheet

REFRESH = QT_TRANSLATE_NOOP("ModelPopup", "Refresh")
ROW_ROLE = Qt.ItemDataRole.UserRole + 1
CHOOSABLE = ("model", "add_key")
ROW_HEIGHTS = {"provider": 30, "model": 28}


def add_key_words() -> str:
    """The row under a provider without its key (every provider's key is on Settings ▸ Providers)."""
    return QCoreApplication.translate("ModelPopup", "Add a key in Settings ▸ {page}").format(
        page=QCoreApplication.translate("ModelPopup", "Providers"))


def refresh_words() -> str:
    """A provider header's Refresh, as shown (and compared to find a click on it)."""
    return QCoreApplication.translate("ModelPopup", "Refresh")


@dataclass(slots=True)
class ProviderState:
    """What the popup shows of one provider: its models, whether its key is there (None: not known yet)."""

    spec: ProviderSpec
    models: list[str]
    has_key: bool | None = None
    refreshing: bool = False
    problem: str = ""


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the popup: a provider's header, a model, "Add a key…", or a note."""

    kind: str
    provider_id: str = ""
    text: str = ""
    enabled: bool = True
    current: bool = False
    hint: str = ""

    @property
    def choosable(self) -> bool:
        return self.enabled and self.kind in CHOOSABLE


def picker_rows(states: list[ProviderState], query: str, current: tuple[str, str]) -> list[Row]:
    """The popup's rows for `query`: every word must be in the provider's name or the model id (any case)."""
    terms = query.lower().split()
    rows: list[Row] = []
    for state in states:
        spec, label = state.spec, state.spec.label.lower()
        models = [m for m in state.models if all(t in label or t in m.lower() for t in terms)]
        if terms and not models and not all(t in label for t in terms):
            continue
        locked = state.has_key is False
        hint = QCoreApplication.translate("ModelPopup", "No key") if locked else QCoreApplication.translate("ModelPopup",
            "Refreshing…") if state.refreshing else refresh_words()
        rows.append(Row("provider", spec.id, spec.label, enabled=not locked, hint=hint))
        if locked:
            rows.append(Row("add_key", spec.id, add_key_words()))
        if state.problem:
            rows.append(Row("problem", spec.id, state.problem, enabled=False))
        elif not state.models:
            rows.append(Row("note", spec.id, QCoreApplication.translate("ModelPopup", "No models listed yet: press Refresh."), enabled=False))
        rows += [Row("model", spec.id, m, enabled=not locked, current=(spec.id, m) == current) for m in models]
    if not rows:
        words = (QCoreApplication.translate("ModelPopup", "Nothing matches “{query}”.").format(query=query.strip()) if terms
                 else QCoreApplication.translate("ModelPopup", "Every provider is switched off in Settings ▸ Providers."))
        rows.append(Row("note", text=words, enabled=False))
    return rows


@themed_style_sheet
def popup_style(theme: Theme) -> str:
    return f"""
        QFrame#modelPopup {{ background: {theme.card}; border: 1px solid {theme.button_border}; }}
        QLineEdit#modelSearch {{
            background: {theme.background}; color: {theme.text}; border: 1px solid {theme.border};
            border-radius: 8px; padding: 6px 8px; font-size: 10pt;
        }}
        QLineEdit#modelSearch:focus {{ border-color: {theme.accent}; }}
        QListWidget#modelList {{ background: transparent; border: none; outline: none; }}
        QLabel#pickerHint {{ color: {theme.faint}; font-size: 8.5pt; }}
    """


class RowDelegate(QStyledItemDelegate):
    """Paints the popup's rows: provider headers with their hint, indented models with a tick for the current one."""

    INDENT = 22

    def __init__(self, theme: Theme, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.theme = theme

    def sizeHint(self, option, index) -> QSize:  # noqa: N802 - Qt name
        row: Row = index.data(ROW_ROLE)
        return QSize(option.rect.width(), ROW_HEIGHTS.get(row.kind, 26))

    def hint_rect(self, rect: QRect, hint: str) -> QRect:
        width = QFontMetrics(self.theme.font("small")).horizontalAdvance(hint) + 20
        return QRect(rect.right() - width, rect.top(), width, rect.height())

    def paint(self, painter: QPainter, option, index) -> None:
        row: Row = index.data(ROW_ROLE)
        theme, rect = self.theme, option.rect
        if row.choosable and option.state & QStyle.StateFlag.State_Selected:
            fill_rounded(painter, rect.adjusted(4, 1, -4, -1), 6, theme.color("row_hover"))
        painter.save()
        colour = theme.color("text" if row.enabled else "muted")
        left, font = rect.left() + self.INDENT, theme.font("body")
        if row.kind == "provider":
            left, font = rect.left() + 10, theme.font("small_bold")
            hint = self.hint_rect(rect, row.hint)
            painter.setFont(theme.font("small"))
            painter.setPen(theme.color("accent" if row.hint == refresh_words() else "muted"))
            painter.drawText(hint.adjusted(0, 0, -10, 0), int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), row.hint)
            rect = rect.adjusted(0, 0, -hint.width(), 0)
        elif row.kind == "add_key":
            colour, font = theme.color("accent"), theme.font("small")
        elif row.kind in ("problem", "note"):
            colour, font = theme.color("error_text" if row.kind == "problem" else "muted"), theme.font("small")
        if row.current:
            painter.setPen(theme.color("accent"))
            painter.setFont(theme.font("label"))
            painter.drawText(rect.adjusted(0, 0, -12, 0), int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), "✓")
            rect = rect.adjusted(0, 0, -28, 0)
        painter.setFont(font)
        painter.setPen(colour)
        text_rect = QRect(left, rect.top(), max(0, rect.right() - left - 8), rect.height())
        text = QFontMetrics(font).elidedText(row.text, Qt.TextElideMode.ElideRight, text_rect.width())
        painter.drawText(text_rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), text)
        painter.restore()


class ModelPopup(QFrame):
    """The popup: a search field (it keeps the focus) over the rows; Up/Down move, Enter chooses, Esc closes,
    Ctrl+R refreshes the provider of the selected row; a click chooses a row or presses a header's Refresh."""

    sig_chosen = Signal(str, str)
    """(provider id, model)"""
    sig_add_key = Signal(str)
    sig_refresh = Signal(str)

    def __init__(self, parent: QWidget, theme: Theme = DEFAULT_THEME) -> None:
        super().__init__(parent, Qt.WindowType.Popup)
        self.setObjectName("modelPopup")
        self.states: list[ProviderState] = []
        self.current = ("", "")
        self.rows: list[Row] = []
        self.search = QLineEdit(objectName="modelSearch", placeholderText=self.tr("Search providers and models"))
        self.list = QListWidget(objectName="modelList")
        self.list.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.list.setMouseTracking(True)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.delegate = RowDelegate(theme, self.list)
        self.list.setItemDelegate(self.delegate)
        column = QVBoxLayout(self)
        column.setContentsMargins(8, 8, 8, 6)
        column.setSpacing(6)
        column.addWidget(self.search)
        column.addWidget(self.list, 1)
        column.addWidget(PlainLabel(self.tr("↑ ↓ move · Enter chooses · Esc closes · Ctrl+R refreshes"), objectName="pickerHint"))
        self.resize(380, 440)
        self.setStyleSheet(popup_style(theme))
        self.search.textChanged.connect(lambda _text: self.rebuild(keep=False))
        self.search.installEventFilter(self)
        self.list.viewport().installEventFilter(self)
        self.list.entered.connect(lambda index: self.select(index.row()))

    def show_states(self, states: list[ProviderState], current: tuple[str, str] | None = None) -> None:
        """Show `states` (on opening, with the conversation's `current` model; while open, keeping the selection)."""
        self.states = states
        if current is not None:
            self.current = current
        self.rebuild(keep=current is None)

    def rebuild(self, keep: bool) -> None:
        """Rows for the typed words; the selection stays on its row (`keep`), else goes to the current model
        (no words typed) or the first match."""
        kept = self.selected()
        self.rows = picker_rows(self.states, self.search.text(), self.current)
        self.list.clear()
        for row in self.rows:
            item = QListWidgetItem()
            item.setData(ROW_ROLE, row)
            flags = Qt.ItemFlag.ItemIsEnabled | (Qt.ItemFlag.ItemIsSelectable if row.choosable else Qt.ItemFlag.NoItemFlags)
            item.setFlags(flags)
            self.list.addItem(item)
        same = [n for n, row in enumerate(self.rows) if kept and (row.kind, row.provider_id, row.text) == (kept.kind, kept.provider_id, kept.text)]
        current = [n for n, row in enumerate(self.rows) if row.current and not self.search.text().strip()]
        choosable = [n for n, row in enumerate(self.rows) if row.choosable]
        target = (same if keep else []) or current or choosable
        if target:
            self.select(target[0])
            self.list.scrollToItem(self.list.item(target[0]))

    def selected(self) -> Row | None:
        number = self.list.currentRow()
        return self.rows[number] if 0 <= number < len(self.rows) and self.rows[number].choosable else None

    def select(self, number: int) -> None:
        if 0 <= number < len(self.rows) and self.rows[number].choosable:
            self.list.setCurrentRow(number)

    def step(self, step: int) -> None:
        """Select the choosable row `step` choosable rows away (or the last one that way)."""
        choosable = [n for n, row in enumerate(self.rows) if row.choosable]
        if not choosable:
            return
        here = self.list.currentRow()
        ahead = [n for n in choosable if (n > here if step > 0 else n < here)]
        if ahead:
            self.select(ahead[min(abs(step), len(ahead)) - 1] if step > 0 else ahead[-min(abs(step), len(ahead))])
        self.list.scrollToItem(self.list.currentItem())

    def activate(self, number: int) -> None:
        row = self.rows[number] if 0 <= number < len(self.rows) else None
        if row is None or not row.choosable:
            return
        self.close()
        if row.kind == "model":
            self.sig_chosen.emit(row.provider_id, row.text)
        else:
            self.sig_add_key.emit(row.provider_id)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt name
        if watched is self.search and event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            return self._key(event)
        if (watched is self.list.viewport() and event.type() == QEvent.Type.MouseButtonRelease
                and isinstance(event, QMouseEvent) and event.button() == Qt.MouseButton.LeftButton):
            return self._click(event.position().toPoint())
        return super().eventFilter(watched, event)

    def _key(self, event: QKeyEvent) -> bool:
        key, steps = event.key(), {Qt.Key.Key_Down: 1, Qt.Key.Key_Up: -1, Qt.Key.Key_PageDown: 8, Qt.Key.Key_PageUp: -8}
        if key in steps:
            self.step(steps[key])
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.activate(self.list.currentRow())
        elif key == Qt.Key.Key_Escape:
            self.close()
        elif key == Qt.Key.Key_R and event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            if (row := self.selected()) is not None:
                self.sig_refresh.emit(row.provider_id)
        else:
            return False
        return True

    def _click(self, pos: QPoint) -> bool:
        index = self.list.indexAt(pos)
        if not index.isValid():
            return False
        row = self.rows[index.row()]
        if row.kind == "provider" and row.hint == refresh_words():
            if self.delegate.hint_rect(self.list.visualRect(index), row.hint).contains(pos):
                self.sig_refresh.emit(row.provider_id)
            return True
        self.activate(index.row())
        return True
