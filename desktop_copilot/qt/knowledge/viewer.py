"""The app's own viewer of a cited knowledge passage: the file's passages as plain text (never rendered: a document's
text is data from outside), the cited one highlighted and scrolled to; Copy passage, and Open in default app after a
confirmation that shows the path. When the file changed or left the index, the passage as it was found."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, QUrl
from PySide6.QtGui import QColor, QDesktopServices, QGuiApplication, QResizeEvent, QTextCharFormat, QTextCursor, QTextFormat
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.common.theme import Theme
from desktop_copilot.qt.common.theme_switch import current_theme, themed_style_sheet

if TYPE_CHECKING:
    from desktop_copilot.core.knowledge.citing import CitedPassage
    from desktop_copilot.core.knowledge.library import PassageRow

RUNNABLE = frozenset({".bat", ".cmd", ".com", ".exe", ".msi", ".ps1", ".psm1", ".vbs", ".vbe", ".js", ".jse", ".wsf", ".wsh",
                      ".hta", ".scr", ".lnk", ".jar", ".py", ".pyw", ".sh", ".command", ".app", ".desktop", ".appimage"})
"""Kinds of file the default app may run rather than show: the confirmation says so."""
COPIED_MS = 1500


def open_in_default_app(path: str) -> bool:
    return QDesktopServices.openUrl(QUrl.fromLocalFile(path))


@themed_style_sheet
def viewer_style_sheet(theme: Theme) -> str:
    return f"""
        QDialog#passageViewer {{ background: {theme.background}; color: {theme.text}; }}
        QLabel#passagePath {{ font-weight: 600; }}
        QLabel#passageWhere {{ color: {theme.muted}; }}
        QLabel#passageNote {{
            color: {theme.warn_text}; background: {theme.warn_background}; border: 1px solid {theme.warn_border};
            border-radius: 8px; padding: 6px 10px;
        }}
        QPlainTextEdit#passageBody {{
            background: {theme.card}; color: {theme.text}; border: 1px solid {theme.border}; border-radius: 8px;
            padding: 6px 8px; selection-background-color: {theme.row_selected}; selection-color: {theme.text};
        }}
        QDialog#passageViewer QPushButton {{
            background: {theme.card}; color: {theme.text}; border: 1px solid {theme.input_border}; border-radius: 8px;
            padding: 5px 14px;
        }}
        QDialog#passageViewer QPushButton:hover {{ background: {theme.button_hover}; }}
        QDialog#passageViewer QPushButton:disabled {{ color: {theme.faint}; background: {theme.disabled_background}; border-color: {theme.border}; }}
    """


class ElidedPath(PlainLabel):
    """A path on one line, elided in the middle when it does not fit; the whole path in its tooltip."""

    def __init__(self, parent: QWidget | None = None, objectName: str = "") -> None:  # noqa: N803 - Qt name
        super().__init__(parent, objectName=objectName)
        self.full_text = ""
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

    def set_path(self, path: str) -> None:
        self.full_text = path
        self.setToolTip(path)
        self._elide()

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt name
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        width = max(self.contentsRect().width(), 40)
        self.setText(self.fontMetrics().elidedText(self.full_text, Qt.TextElideMode.ElideMiddle, width))


def matching(cited: CitedPassage, passages: Sequence[PassageRow]) -> int | None:
    """The index of the cited passage among the file's passages now: the same place and text, else the same text."""
    same_text = [index for index, row in enumerate(passages) if row.text == cited.text]
    return next((index for index in same_text if passages[index].ordinal == cited.ordinal), same_text[0] if same_text else None)


def location_of(row: PassageRow) -> str:
    try:
        return row.location
    except Exception:  # noqa: BLE001 - a label is not worth failing the viewer for
        return ""


class PassageViewer(QDialog):
    """Non-modal; the window keeps one and shows each passage in it (`show_passage`)."""

    def __init__(self, parent: QWidget | None = None, *, opener: Callable[[str], bool] | None = None) -> None:
        super().__init__(parent, objectName="passageViewer")
        self.setModal(False)
        self.setStyleSheet(viewer_style_sheet(current_theme()))
        self.opener: Callable[[str], bool] = opener or open_in_default_app
        """Opens a file in its default app; tests put a recorder here."""
        self.passage: CitedPassage | None = None
        self.file: Path | None = None
        self.highlighted: tuple[int, int] | None = None
        """Where the cited passage is in the body (character positions), when it is among the file's passages."""
        self.open_box: QMessageBox | None = None
        """The confirmation asked before opening the file (tests answer it)."""
        self.path_label = ElidedPath(objectName="passagePath")
        self.where_label = PlainLabel(objectName="passageWhere")
        self.where_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.note = PlainLabel(objectName="passageNote", wordWrap=True)
        self.note.hide()
        self.body = QPlainTextEdit(objectName="passageBody", readOnly=True, undoRedoEnabled=False)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self.copy_button = QPushButton(self.tr("Copy passage"), objectName="copyPassage", autoDefault=False)
        self.open_button = QPushButton(self.tr("Open in default app"), objectName="openPassageFile", autoDefault=False)
        self.close_button = QPushButton(self.tr("Close"), objectName="closePassage", autoDefault=False)
        self._layout()
        self.copy_button.clicked.connect(self.copy_passage)
        self.open_button.clicked.connect(self.ask_to_open)
        self.close_button.clicked.connect(self.reject)
        self.resize(780, 620)

    def _layout(self) -> None:
        buttons = QHBoxLayout()
        buttons.addWidget(self.copy_button)
        buttons.addWidget(self.open_button)
        buttons.addStretch(1)
        buttons.addWidget(self.close_button)
        column = QVBoxLayout(self)
        column.setContentsMargins(18, 14, 18, 14)
        column.setSpacing(8)
        column.addWidget(self.path_label)
        column.addWidget(self.where_label)
        column.addWidget(self.note)
        column.addWidget(self.body, 1)
        column.addLayout(buttons)

    # --- showing --------------------------------------------------------------------------------

    def show_passage(self, cited: CitedPassage, passages: Sequence[PassageRow]) -> None:
        """Shows `cited` among `passages` (the file's passages now, in order; [] when it is no longer indexed)."""
        self.passage = cited
        self.file = passages[0].file if passages else Path(cited.file)
        self.setWindowTitle(Path(cited.path).name or self.file.name)
        self.path_label.set_path(str(self.file))
        where = [self.tr("Source “{source}”").format(source=cited.source)]
        where += [part for part in (cited.location, cited.heading) if part]
        self.where_label.setText(" · ".join(where))
        self.body.setFont(current_theme().font("mono" if cited.kind == "code" else "body"))
        found = matching(cited, passages)
        if found is None:
            self.note.setText(self.tr("This file has changed since the reply, or is no longer indexed: showing the passage "
                                      "as it was found."))
            self.body.setPlainText(cited.text)
            self.highlighted = None
        else:
            self.highlighted = self._fill(passages, found)
        self.note.setVisible(found is None)
        self._highlight()
        self.open_button.setEnabled(self.file.is_file())
        self.show()
        self.raise_()
        self.activateWindow()
        QTimer.singleShot(0, self.scroll_to_passage)

    def _fill(self, passages: Sequence[PassageRow], found: int) -> tuple[int, int]:
        """Every passage under a muted label with its location; returns where the cited one is."""
        theme = current_theme()
        self.body.clear()
        label = QTextCharFormat()
        label.setForeground(theme.color("muted"))
        label.setFont(theme.font("small"))
        text = QTextCharFormat()
        text.setFont(self.body.font())
        cursor = QTextCursor(self.body.document())
        cursor.beginEditBlock()
        span = (0, 0)
        for index, row in enumerate(passages):
            if index:
                cursor.insertBlock()
                cursor.insertBlock()
            heading = " · ".join(part for part in (location_of(row), row.heading) if part)
            cursor.insertText(f"── {heading}" if heading else "──", label)
            cursor.insertBlock()
            start = cursor.position()
            cursor.insertText(row.text, text)
            if index == found:
                span = (start, cursor.position())
        cursor.endEditBlock()
        return span

    def _highlight(self) -> None:
        selections = []
        if self.highlighted is not None:
            mark = QTextEdit.ExtraSelection()
            cursor = QTextCursor(self.body.document())
            cursor.setPosition(self.highlighted[0])
            cursor.setPosition(self.highlighted[1], QTextCursor.MoveMode.KeepAnchor)
            mark.cursor = cursor
            form = QTextCharFormat()
            form.setBackground(QColor(current_theme().highlight))
            form.setProperty(QTextFormat.Property.FullWidthSelection, True)  # a band, not a ragged right edge
            mark.format = form
            selections.append(mark)
        self.body.setExtraSelections(selections)

    def scroll_to_passage(self) -> None:
        """The cited passage's first line in view, a little below the top."""
        cursor = QTextCursor(self.body.document())
        cursor.setPosition(self.highlighted[0] if self.highlighted else 0)
        self.body.setTextCursor(cursor)
        bar = self.body.verticalScrollBar()
        bar.setValue(max(0, cursor.block().firstLineNumber() - 2) if self.highlighted else 0)
        self.body.ensureCursorVisible()

    # --- actions --------------------------------------------------------------------------------

    def copy_passage(self) -> None:
        if self.passage is None:
            return
        QGuiApplication.clipboard().setText(self.passage.text)
        self.copy_button.setText(self.tr("Copied"))
        QTimer.singleShot(COPIED_MS, self.copy_button, lambda: self.copy_button.setText(self.tr("Copy passage")))

    def ask_to_open(self) -> QMessageBox | None:
        """Asks, with the full path in view, before the file opens in its default app (a window-modal box)."""
        if self.file is None or not self.file.is_file():
            return None
        path = str(self.file)
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("Open the file"),
                          self.tr("Open {path} in its default app?").format(path=path), QMessageBox.StandardButton.NoButton, self)
        box.setObjectName("openPassageBox")
        box.setTextFormat(Qt.TextFormat.PlainText)
        if self.file.suffix.lower() in RUNNABLE:
            box.setInformativeText(self.tr("This is a program or script: its default app may run it."))
        confirm = box.addButton(self.tr("Open"), QMessageBox.ButtonRole.AcceptRole)
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(cancel)
        box.setEscapeButton(cancel)

        def answered(_result: int) -> None:
            self.open_box = None
            box.deleteLater()
            if box.clickedButton() is confirm and not self.opener(path):
                self.note.setText(self.tr("{path} could not be opened.").format(path=path))
                self.note.show()

        box.finished.connect(answered)
        self.open_box = box
        box.open()
        return box
