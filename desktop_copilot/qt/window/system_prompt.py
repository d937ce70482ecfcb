"""The open conversation's system prompt, seen and edited in a small dialog (`open_system_prompt`), and a new
conversation started from an assistant (`new_chat_menu`, the New chat button's drop-down)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QDialog, QHBoxLayout, QMainWindow, QMenu, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from desktop_copilot.core.config.assistants import MAX_SYSTEM_CHARS, Assistant, AssistantLibrary
from desktop_copilot.core.chat import ChatSession
from desktop_copilot.qt.common.plain_label import PlainLabel

BUSY_STATUS_MS = 5000


def assistant_library(window: QMainWindow) -> AssistantLibrary:
    """The assistants as saved now (read afresh: Settings ▸ Assistants may have changed them)."""
    return AssistantLibrary.in_folder(window.controller.session.runtime.paths.config_dir)


def button_row(restore: QPushButton, cancel: QPushButton, save: QPushButton) -> QHBoxLayout:
    """The buttons under a dialog that edits the open conversation: restore at the left, Cancel and Save at the right."""
    row = QHBoxLayout()
    row.addWidget(restore)
    row.addStretch(1)
    row.addWidget(cancel)
    row.addWidget(save)
    return row


def save_header(session: ChatSession) -> None:
    """Saves the conversation's header at once when it is stored (a new conversation is stored with its first
    message); raises what the store raises."""
    if session.store is not None and session.conversation.messages:
        session.store.save_conversation(session.conversation)


class SystemPromptDialog(QDialog):
    """Shows and edits one conversation's system prompt; Save keeps it with a stored conversation at once."""

    sig_saved = Signal()

    def __init__(self, session: ChatSession, library: AssistantLibrary, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="systemPromptDialog")
        self.session = session
        self.assistant = library.of(session.conversation)
        self.setWindowTitle(self.tr("System prompt"))
        self.resize(560, 420)
        conversation = session.conversation
        title = conversation.title or self.tr("New chat")
        origin = (self.tr("“{0}” started from the assistant “{1}”.").format(title, self.assistant.name) if self.assistant
                  else self.tr("“{0}”.").format(title))
        self.about = PlainLabel(origin + " " + self.tr("A change applies from the next message."), objectName="hint", wordWrap=True)
        self.edit = QPlainTextEdit(objectName="systemPromptEdit")
        self.edit.setPlainText(conversation.system or "")
        fallback = session.runtime.config.system
        self.edit.setPlaceholderText(self.tr("No system prompt: the model gets only the conversation.") if not fallback
                                     else self.tr("Empty: the app's default system prompt is used."))
        self.message = PlainLabel(objectName="keyMessage", wordWrap=True)
        self.restore_button = QPushButton(self.tr("Use the assistant's"), objectName="restoreSystemPrompt")
        self.restore_button.setToolTip(self.tr("Put back the system prompt of the assistant this conversation started from"))
        self.restore_button.setVisible(self.assistant is not None)
        self.cancel_button = QPushButton(self.tr("Cancel"), autoDefault=False)
        self.save_button = QPushButton(self.tr("Save"), objectName="primaryButton", default=True)
        column = QVBoxLayout(self)
        column.addWidget(self.about)
        column.addWidget(self.edit, 1)
        column.addWidget(self.message)
        column.addLayout(button_row(self.restore_button, self.cancel_button, self.save_button))
        self.restore_button.clicked.connect(self.restore)
        self.cancel_button.clicked.connect(self.reject)
        self.save_button.clicked.connect(self.save)
        self.edit.setFocus(Qt.FocusReason.OtherFocusReason)

    def restore(self) -> None:
        if self.assistant is not None:
            self.edit.setPlainText(self.assistant.system)

    def save(self) -> bool:
        """Gives the conversation the typed prompt (blank: none); a stored conversation is saved at once."""
        text = self.edit.toPlainText()
        if len(text) > MAX_SYSTEM_CHARS:
            self.message.setText(self.tr("The system prompt is longer than {0:,} characters; shorten it.").format(MAX_SYSTEM_CHARS))
            return False
        self.session.conversation.system = text.strip() or None
        try:
            save_header(self.session)
        except Exception as exc:  # noqa: BLE001 - a disk or database error is shown, not raised into Qt
            self.message.setText(self.tr("Not saved: {0}").format(str(exc)))
            return False
        self.sig_saved.emit()
        self.accept()
        return True


def open_system_prompt(window: QMainWindow) -> SystemPromptDialog:
    """Opens (window-modal) the system prompt of the conversation the window shows."""
    dialog = SystemPromptDialog(window.controller.session, assistant_library(window), window)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog


def new_chat_menu(window: QMainWindow) -> QMenu:
    """The assistants, each starting a new conversation from it, and a way to manage them."""
    menu = QMenu(window, objectName="newChatMenu")
    library = assistant_library(window)
    for assistant in library.all():
        action = menu.addAction(assistant.name)
        action.setObjectName(f"assistant:{assistant.id}")
        action.setData(assistant.id)
        if assistant.system:
            action.setToolTip(assistant.system[:300])
        action.triggered.connect(lambda _checked=False, chosen=assistant: start_from_assistant(window, chosen))
    menu.setToolTipsVisible(True)
    menu.addSeparator()
    manage = menu.addAction(QCoreApplication.translate("NewChatMenu", "Manage assistants…"))
    manage.setObjectName("manageAssistants")
    manage.triggered.connect(lambda: _manage_assistants(window))
    return menu


def start_from_assistant(window: QMainWindow, assistant: Assistant) -> bool:
    """Shows a new conversation that starts from `assistant`; False (said in the status bar) while a reply is written."""
    controller = window.controller
    if controller.busy:
        window.statusBar().showMessage(
            QCoreApplication.translate("NewChatMenu", "A reply is still being written: stop the reply (Esc) before starting a new chat."),
            BUSY_STATUS_MS)
        return False
    conversation = assistant.new_conversation()
    if conversation.provider and conversation.provider not in controller.session.runtime.providers():
        conversation.provider = conversation.model = None  # an endpoint removed since: the default provider answers
        window.statusBar().showMessage(
            QCoreApplication.translate("NewChatMenu", "The provider of “{0}” is no longer set up; the default provider answers.").format(
                assistant.name),
            BUSY_STATUS_MS)
    if not controller.set_conversation(conversation):
        return False
    history = window.history
    history.sidebar.select_conversation(conversation.id)
    history.sig_current_changed.emit(conversation.id)  # the window refreshes its header, recovery bar and versions
    window.banner.dismiss()
    window.view.follow()
    window.composer.focus()
    return True


def _manage_assistants(window: QMainWindow) -> None:
    from desktop_copilot.qt.settings.entry import open_settings

    open_settings(window, "assistants")
