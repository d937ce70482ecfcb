"""The message composer: Enter sends, Shift+Enter adds a line, Esc stops; Send becomes Stop while busy.
Files are attached with the paperclip (a file dialog), by dropping them on the composer or by pasting an image;
they show as removable chips above the text (qt/window/attachment_chips.py) and go with the text when it is sent."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QT_TRANSLATE_NOOP, QMimeData, QSize, Qt, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QFontMetrics, QImage, QKeyEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QPlainTextEdit, QPushButton, QToolButton, QVBoxLayout, QWidget

from desktop_copilot.core.providers.attachment_limits import Attachment, AttachmentLimits
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.window.attachment_chips import AttachmentTray, dropped_files, pasted_image

MAX_LINES = 8
PLACEHOLDER = QT_TRANSLATE_NOOP("PromptEdit", "Message Claude…")
HINT = QT_TRANSLATE_NOOP("Composer", "Enter to send · Shift+Enter for a new line · Esc to stop")


class PromptEdit(QPlainTextEdit):
    """The text box: grows with its content up to MAX_LINES, then scrolls."""

    sig_enter = Signal()
    sig_escape = Signal()
    sig_files_dropped = Signal(list)
    """Local files dropped or pasted on the box (paths): attached, not inserted as text."""
    sig_image_pasted = Signal(QImage)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("prompt")
        self.setPlaceholderText(self.tr(PLACEHOLDER))
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

    def canInsertFromMimeData(self, source: QMimeData) -> bool:  # noqa: N802 - Qt name
        return bool(dropped_files(source)) or pasted_image(source) is not None or super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:  # noqa: N802 - Qt name
        """A pasted or dropped file or image is attached; text is inserted as text."""
        if files := dropped_files(source):
            self.sig_files_dropped.emit(files)
        elif pasted_image(source) is not None:
            self.sig_image_pasted.emit(pasted_image(source))
        else:
            super().insertFromMimeData(source)

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
    """The text to send (maybe empty when files are attached); `attachments()` are sent with it."""
    sig_stop_requested = Signal()
    sig_ask_several = Signal(str)
    """"Ask several models" with the text (maybe empty when files are attached): the window asks which models."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("composer")
        self.setAcceptDrops(True)
        self.busy = False
        self.limits: Callable[[], AttachmentLimits | None] = lambda: None
        """What the model of the next message takes (set by the window); checked as files are added."""
        self.edit = PromptEdit(self)
        self.tray = AttachmentTray(self, limits=lambda: self.limits())
        self.button = QPushButton(self.tr("Send"), self)
        self.button.setObjectName("sendButton")
        self.button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.button.setMinimumSize(QSize(72, 34))
        self.several_button = QToolButton(self, objectName="askSeveralButton", text="⇶")
        self.several_button.setToolTip(self.tr("Ask several models: send this message to two to four models at once "
                                               "and compare their answers side by side"))
        self.several_button.setAccessibleName(self.tr("Ask several models"))
        self.several_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.hint = PlainLabel(self.tr(HINT), self)
        self.hint.setObjectName("composerHint")
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(10)
        row.addWidget(self.tray.attach_button, 0, Qt.AlignmentFlag.AlignBottom)
        row.addWidget(self.edit, 1)
        row.addWidget(self.several_button, 0, Qt.AlignmentFlag.AlignBottom)
        row.addWidget(self.button, 0, Qt.AlignmentFlag.AlignBottom)
        column = QVBoxLayout(self)
        column.setContentsMargins(16, 12, 12, 10)
        column.setSpacing(6)
        column.addWidget(self.tray.chips)
        column.addLayout(row)
        self.row = row
        column.addWidget(self.tray.notice)
        column.addWidget(self.hint)
        self.edit.sig_files_dropped.connect(self.tray.add_files)
        self.edit.sig_image_pasted.connect(self.tray.add_image)
        self.tray.sig_changed.connect(self._update_button)
        self.edit.sig_enter.connect(self.submit)
        self.edit.sig_escape.connect(self._escape)
        self.edit.textChanged.connect(self._update_button)
        self.button.clicked.connect(self._clicked)
        self.several_button.clicked.connect(self.ask_several)
        self._update_button()

    def text(self) -> str:
        return self.edit.toPlainText()

    def set_text(self, text: str) -> None:
        self.edit.setPlainText(text)
        self.edit.moveCursor(self.edit.textCursor().MoveOperation.End)

    def set_busy(self, busy: bool) -> None:
        self.busy = busy
        self.button.setText(self.tr("Stop") if busy else self.tr("Send"))
        self.button.setProperty("stop", busy)
        self.button.style().unpolish(self.button)
        self.button.style().polish(self.button)
        self._update_button()

    def attachments(self) -> list[Attachment]:
        """The files attached to the next message, in the order they were added."""
        return self.tray.attachments()

    def submit(self) -> bool:
        text = self.text().strip()
        if self.busy or not (text or self.tray.attachments()):
            return False
        self.tray.mark_submitted()
        self.sig_submitted.emit(text)  # the text and the chips stay until the message is sent (accept_sent)
        return True

    def add_tool_button(self, button: QWidget) -> None:
        """Put `button` in the composer's row, before Ask several models (the window's Tools button)."""
        row = self.row
        row.insertWidget(row.indexOf(self.several_button), button, 0, Qt.AlignmentFlag.AlignBottom)

    def ask_several(self) -> bool:
        """Ask the window to send the message to several models (it asks which); False when there is nothing to send
        or a reply is being written."""
        text = self.text().strip()
        if self.busy or not (text or self.tray.attachments()):
            return False
        self.tray.mark_submitted()
        self.sig_ask_several.emit(text)
        return True

    def accept_sent(self, text: str) -> None:
        """The message `text` is in the conversation: clear the box, unless it was changed meanwhile, and the
        chips that went with it."""
        if self.text().strip() == text.strip():
            self.edit.clear()
        self.tray.remove_submitted()

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 - Qt name
        if dropped_files(event.mimeData()) or pasted_image(event.mimeData()) is not None:
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 - Qt name
        mime = event.mimeData()
        if files := dropped_files(mime):
            self.tray.add_files(files)
        elif (image := pasted_image(mime)) is not None:
            self.tray.add_image(image)
        else:
            return super().dropEvent(event)
        event.acceptProposedAction()

    def _clicked(self) -> None:
        if self.busy:
            self.sig_stop_requested.emit()
        else:
            self.submit()

    def _escape(self) -> None:
        if self.busy:
            self.sig_stop_requested.emit()

    def _update_button(self) -> None:
        has_message = bool(self.text().strip()) or bool(self.tray.attachments())
        self.button.setEnabled(self.busy or has_message)
        self.several_button.setEnabled(not self.busy and has_message)

    def focus(self) -> None:
        self.edit.setFocus()
