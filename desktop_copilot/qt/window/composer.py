"""The message composer: Enter sends, Shift+Enter adds a line, Esc stops; Send becomes Stop while busy."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QFontMetrics, QKeyEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from desktop_copilot.qt.common.plain_label import PlainLabel

MAX_LINES = 8
PLACEHOLDER = "Message Claude…"
HINT = "Enter to send · Shift+Enter for a new line · Esc to stop"


class PromptEdit(QPlainTextEdit):
    """The text box: grows with its content up to MAX_LINES, then scrolls."""

    sig_enter = Signal()
    sig_escape = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("prompt")
        self.setPlaceholderText(PLACEHOLDER)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setTabChangesFocus(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.document().setDocumentMargin(2)
        self.document().contentsChanged.connect(self._fit_height)
        self._fit_height()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt name
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                self.insertPlainText("\n")
            else:
                self.sig_enter.emit()
            return
        if event.key() == Qt.Key.Key_Escape:
            self.sig_escape.emit()
            return
        super().keyPressEvent(event)

    def _fit_height(self) -> None:
        line = QFontMetrics(self.font()).lineSpacing()
        lines = max(1, min(MAX_LINES, int(self.document().size().height())))
        margins = self.contentsMargins()
        self.setFixedHeight(lines * line + int(2 * self.document().documentMargin()) + margins.top() + margins.bottom() + 6)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt name
        super().resizeEvent(event)
        self._fit_height()


class Composer(QFrame):
    sig_submitted = Signal(str)
    sig_stop_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("composer")
        self.busy = False
        self.edit = PromptEdit(self)
        self.button = QPushButton("Send", self)
        self.button.setObjectName("sendButton")
        self.button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.button.setMinimumSize(QSize(72, 34))
        self.hint = PlainLabel(HINT, self)
        self.hint.setObjectName("composerHint")
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(10)
        row.addWidget(self.edit, 1)
        row.addWidget(self.button, 0, Qt.AlignmentFlag.AlignBottom)
        column = QVBoxLayout(self)
        column.setContentsMargins(16, 12, 12, 10)
        column.setSpacing(6)
        column.addLayout(row)
        column.addWidget(self.hint)
        self.edit.sig_enter.connect(self.submit)
        self.edit.sig_escape.connect(self._escape)
        self.edit.textChanged.connect(self._update_button)
        self.button.clicked.connect(self._clicked)
        self._update_button()

    def text(self) -> str:
        return self.edit.toPlainText()

    def set_text(self, text: str) -> None:
        self.edit.setPlainText(text)
        self.edit.moveCursor(self.edit.textCursor().MoveOperation.End)

    def set_busy(self, busy: bool) -> None:
        self.busy = busy
        self.button.setText("Stop" if busy else "Send")
        self.button.setProperty("stop", busy)
        self.button.style().unpolish(self.button)
        self.button.style().polish(self.button)
        self._update_button()

    def submit(self) -> bool:
        text = self.text().strip()
        if self.busy or not text:
            return False
        self.sig_submitted.emit(text)  # the text stays until the message is sent (accept_sent)
        return True

    def accept_sent(self, text: str) -> None:
        """The message `text` is in the conversation: clear the box, unless it was changed meanwhile."""
        if self.text().strip() == text.strip():
            self.edit.clear()

    def _clicked(self) -> None:
        if self.busy:
            self.sig_stop_requested.emit()
        else:
            self.submit()

    def _escape(self) -> None:
        if self.busy:
            self.sig_stop_requested.emit()

    def _update_button(self) -> None:
        self.button.setEnabled(self.busy or bool(self.text().strip()))

    def focus(self) -> None:
        self.edit.setFocus()
