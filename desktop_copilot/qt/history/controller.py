"""HistoryController: opens, creates and deletes conversations for the sidebar and keeps its list in step
with runs (the window lays it out: qt/window/history_pane.py)."""

from __future__ import annotations

import logging

from PySide6.QtCore import QT_TRANSLATE_NOOP, QObject, Signal
from PySide6.QtWidgets import QMainWindow

from desktop_copilot.core.conversation.models import Conversation
from desktop_copilot.qt.history.conversation_list_model import ConversationListModel
from desktop_copilot.qt.history.search_results import SearchRunner
from desktop_copilot.qt.history.sidebar import Sidebar
from desktop_copilot.qt.transcript.message_jump import jump_to_message

log = logging.getLogger(__name__)

BUSY_MESSAGE = QT_TRANSLATE_NOOP("HistoryController", "A reply is still being written: stop the reply (Esc) before leaving this conversation.")


class HistoryController(QObject):
    sig_current_changed = Signal(str)
    """The open conversation changed, or its title did (its id)."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.controller = window.controller
        self.store = self.controller.session.store
        self.conversations = ConversationListModel(self.store, self)
        self.runner = SearchRunner(self.store, self)
        self.sidebar = Sidebar(self.conversations, self.runner)
        self.file_actions = None
        """The File menu's HistoryActions, set by install_history_pane."""
        self.sidebar.sig_new_requested.connect(self.new_conversation)
        self.sidebar.sig_open_requested.connect(self.open)
        self.sidebar.sig_result_activated.connect(self.open_result)
        self.sidebar.sig_delete_requested.connect(self.delete)
        self.conversations.sig_renamed.connect(self._on_renamed)
        self.controller.model.sig_message_appended.connect(lambda _id: self.sync_current())
        self.controller.sig_busy_changed.connect(lambda _busy: self.sync_current())
        self.sidebar.select_conversation(self.current_id)

    @property
    def current(self) -> Conversation:
        return self.controller.session.conversation

    @property
    def current_id(self) -> str:
        return self.current.id

    # --- actions ---------------------------------------------------------------------

    def open(self, conversation_id: str) -> bool:
        """Show the stored conversation `conversation_id` in the transcript."""
        if conversation_id == self.current_id:
            self.sidebar.select_conversation(conversation_id)
            return True
        if self._refuse_while_busy():
            return False
        if self.store is None or self.store.load_conversation_header(conversation_id) is None:
            self.conversations.remove(conversation_id)
            self.window.banner.show_error(self.tr("That conversation is no longer in the history."))
            return False
        if not self.controller.open_stored(conversation_id):
            return False
        return self._shown(conversation_id)

    def open_result(self, conversation_id: str, message_id: str) -> bool:
        """Open a search hit's conversation and, for a message hit, scroll to and flash that message."""
        if not self.open(conversation_id):
            return False
        return not message_id or jump_to_message(self.window.view, message_id)

    def new_conversation(self) -> bool:
        if not self.current.messages:
            self.window.composer.focus()
            return True
        if self._refuse_while_busy():
            return False
        shown = self._show(Conversation())
        self.window.composer.focus()
        return shown

    def delete(self, conversation_id: str) -> bool:
        """Delete from the store and the list (the user has confirmed); a deleted open one becomes a new chat."""
        is_current = conversation_id == self.current_id
        if is_current and self.controller.busy:
            self.window.banner.show_error(self.tr("Stop the reply in progress before deleting this conversation."))
            return False
        if self.store is not None:
            from desktop_copilot.core.storage.health import StorageUnavailableError

            try:
                self.store.delete_conversation(conversation_id)
            except StorageUnavailableError:  # the disk refuses writes: the banner's storage line says so already
                log.warning("the conversation could not be deleted: the database cannot be written")
                return False
        self.conversations.remove(conversation_id)
        if is_current:
            self._show(Conversation())
        if self.sidebar.showing_results():
            self.runner.run_now()
        return True

    def reload(self) -> None:
        """Re-read the list from the store (after an import)."""
        self.conversations.reload()
        self.sidebar.select_conversation(self.current_id)

    def sync_current(self) -> None:
        """Put the open conversation's header (title, time) in the list, at the top once it has been sent."""
        conversation = self.current
        if self.store is not None and conversation.messages:
            self.conversations.upsert(conversation)
            self.sidebar.select_conversation(conversation.id)
            self.sig_current_changed.emit(conversation.id)

    # --- internals -------------------------------------------------------------------

    def _refuse_while_busy(self) -> bool:
        if self.controller.busy:
            self.window.statusBar().showMessage(self.tr(BUSY_MESSAGE), 5000)
            self.sidebar.select_conversation(self.current_id)
            return True
        return False

    def _show(self, conversation: Conversation) -> bool:
        if not self.controller.set_conversation(conversation):
            return False
        return self._shown(conversation.id)

    def _shown(self, conversation_id: str) -> bool:
        self.window.banner.dismiss()
        self.window.view.follow()
        self.sidebar.select_conversation(conversation_id)
        self.sig_current_changed.emit(conversation_id)
        return True

    def _on_renamed(self, conversation_id: str, title: str) -> None:
        if conversation_id == self.current_id:
            self.current.title = title  # or the next save of the open conversation would undo the rename
            self.sig_current_changed.emit(conversation_id)
        if self.sidebar.showing_results():
            self.runner.run_now()
