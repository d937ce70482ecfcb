"""The open conversation's generation options (temperature, top-p): the header's "Generation…" button, whose tooltip
says them, and the small dialog it opens, which saves them with the conversation as the System prompt dialog does."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDialog, QFormLayout, QMainWindow, QPushButton, QVBoxLayout, QWidget

from desktop_copilot.core.chat import ChatSession
from desktop_copilot.core.config.assistants import AssistantLibrary
from desktop_copilot.core.conversation.generation import GenerationOptionError, checked_temperature, checked_top_p
from desktop_copilot.qt.common.generation_fields import generation_summary, temperature_row, top_p_row
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.common.theme_switch import current_theme
from desktop_copilot.qt.settings.styles import set_kind, settings_style_sheet
from desktop_copilot.qt.window.system_prompt import assistant_library, button_row, save_header


class GenerationDialog(QDialog):
    """Edits one conversation's temperature and top-p; Save keeps them with a stored conversation at once (a new one
    keeps them until its first message stores it)."""

    sig_saved = Signal()

    def __init__(self, session: ChatSession, library: AssistantLibrary, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="generationDialog")
        self.setStyleSheet(settings_style_sheet(current_theme()))
        self.session = session
        self.assistant = library.of(session.conversation)
        conversation = session.conversation
        self.setWindowTitle(self.tr("Generation options"))
        title = conversation.title or self.tr("New chat")
        self.about = PlainLabel(self.tr("“{0}”: how the model picks its words. A change applies from the next message.")
                                .format(title), objectName="hint", wordWrap=True)
        self.temperature = temperature_row(self)
        self.top_p = top_p_row(self)
        self.temperature.set_value(conversation.temperature)
        self.top_p.set_value(conversation.top_p)
        form = QFormLayout()
        form.setHorizontalSpacing(14)
        for text, row in ((self.tr("&Temperature"), self.temperature), (self.tr("Top-&p"), self.top_p)):
            label = PlainLabel(text, alignment=Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
            label.setBuddy(row)
            # as tall as the field, so the words sit on its centre line; 4 px wider than the words, whose last letter's
            # ink can reach past its advance (a label clips its text to its width)
            label.setMinimumSize(label.sizeHint().width() + 4, row.sizeHint().height())
            form.addRow(label, row)
        self.explanation = PlainLabel(
            self.tr("Lower temperature gives steadier answers, higher more varied ones; top-p limits the words considered "
                    "to the most likely. Change one of the two rather than both. Models that refuse them (with extended "
                    "thinking, or reasoning models) are sent neither."),
            objectName="hint", wordWrap=True)
        self.message = PlainLabel(objectName="keyMessage", wordWrap=True)
        self.restore_button = QPushButton(self.tr("Use the assistant's"), objectName="restoreGeneration", autoDefault=False)
        self.restore_button.setToolTip(self.tr("Put back the options of the assistant this conversation started from"))
        self.restore_button.setVisible(self.assistant is not None)
        self.cancel_button = QPushButton(self.tr("Cancel"), autoDefault=False)
        self.save_button = QPushButton(self.tr("Save"), objectName="primaryButton", default=True)
        column = QVBoxLayout(self)
        column.setContentsMargins(18, 16, 18, 14)
        column.setSpacing(10)
        column.addWidget(self.about)
        column.addLayout(form)
        column.addWidget(self.explanation)
        column.addWidget(self.message)
        column.addLayout(button_row(self.restore_button, self.cancel_button, self.save_button))
        self.setMinimumWidth(440)
        self.restore_button.clicked.connect(self.restore)
        self.cancel_button.clicked.connect(self.reject)
        self.save_button.clicked.connect(self.save)
        self.temperature.setFocus(Qt.FocusReason.OtherFocusReason)

    def restore(self) -> None:
        if self.assistant is not None:
            self.temperature.set_value(self.assistant.temperature)
            self.top_p.set_value(self.assistant.top_p)

    def save(self) -> bool:
        """Gives the conversation the options shown; a stored conversation is saved at once."""
        try:
            temperature = checked_temperature(self.temperature.value())
            top_p = checked_top_p(self.top_p.value())
        except GenerationOptionError as exc:  # the spin boxes keep to the ranges: only a changed range gets here
            return self._refuse(str(exc))
        conversation = self.session.conversation
        before = conversation.temperature, conversation.top_p
        conversation.temperature, conversation.top_p = temperature, top_p
        try:
            save_header(self.session)
        except Exception as exc:  # noqa: BLE001 - a disk or database error is shown, not raised into Qt
            conversation.temperature, conversation.top_p = before
            return self._refuse(self.tr("Not saved: {0}").format(str(exc)))
        self.sig_saved.emit()
        self.accept()
        return True

    def _refuse(self, text: str) -> bool:
        self.message.setText(text)
        set_kind(self.message, "error")
        return False


class GenerationAction(QAction):
    """The header menu's "Generation…": opens the dialog for the conversation shown; its tooltip says the options."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(self.tr("Generation…"), window, objectName="generationAction")
        self.main_window = window
        self.triggered.connect(self.open_dialog)

    def refresh(self) -> None:
        conversation = self.main_window.controller.session.conversation
        self.setToolTip(self.tr("Temperature and top-p of this conversation") + "\n"
                        + generation_summary(conversation.temperature, conversation.top_p))

    def open_dialog(self) -> GenerationDialog:
        """Opens (window-modal) the options of the conversation the window shows."""
        dialog = GenerationDialog(self.main_window.controller.session, assistant_library(self.main_window), self.main_window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.sig_saved.connect(self.refresh)
        dialog.open()
        return dialog
