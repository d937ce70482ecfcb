"""HistoryController: opens, creates and deletes conversations for the sidebar (a run goes on in its conversation
while another is shown) and keeps its list in step with runs (the window lays it out: qt/window/history_pane.py)."""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMainWindow

from desktop_copilot.core.conversation.models import Conversation
from desktop_copilot.qt.history.conversation_list_model import ConversationListModel
from desktop_copilot.qt.history.run_states import RunStates
from desktop_copilot.qt.history.search_results import SearchRunner
from desktop_copilot.qt.history.sidebar import Sidebar
from desktop_copilot.qt.transcript.message_jump import jump_to_message

log = logging.getLogger(__name__)


class HistoryController(QObject):
    sig_current_changed = Signal(str)
    """The open conversation changed, or its title did (its id)."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.controller = window.controller
        self.store = self.controller.session.store
        self.conversations = ConversationListModel(self.store, self)
        self.states = RunStates(self.controller, self.conversations, self.store)
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
        self.controller.sig_runs_changed.connect(self._on_runs_changed)
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
        running = self.controller.running(conversation_id)  # shown as its run holds it, following the run
        if not running and (self.store is None or self.store.load_conversation_header(conversation_id) is None):
            self.conversations.remove(conversation_id)
            self.window.banner.show_error(self.tr("That conversation is no longer in the history."))
            return False
        self.window.banner.dismiss()  # before the switch: what a run said while not shown goes up with it
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
        shown = self._show(Conversation())
        self.window.composer.focus()
        return shown

    def delete(self, conversation_id: str) -> bool:
        """Delete from the store and the list (the user has confirmed); a deleted open one becomes a new chat."""
        is_current = conversation_id == self.current_id
        if self.controller.running(conversation_id):
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
        self.states.forget(conversation_id)
        self.controller.side_by_side.forget(conversation_id)
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

    def _show(self, conversation: Conversation) -> bool:
        self.window.banner.dismiss()
        if not self.controller.set_conversation(conversation):
            return False
        return self._shown(conversation.id)

    def _shown(self, conversation_id: str) -> bool:
        self.states.seen(conversation_id)
        self.window.view.follow()
        self.sidebar.select_conversation(conversation_id)
        self.sig_current_changed.emit(conversation_id)
        return True

    def _on_runs_changed(self, conversation: Conversation) -> None:
        """A run started or ended, or its calls wait: the row's header (title, time) and state are brought up to date."""
        if self.store is not None and conversation.messages:
            self.conversations.upsert(conversation)
            self.sidebar.select_conversation(self.current_id)

    def _on_renamed(self, conversation_id: str, title: str) -> None:
        if conversation_id == self.current_id:
            self.current.title = title  # or the next save of the open conversation would undo the rename
            self.sig_current_changed.emit(conversation_id)
        if self.sidebar.showing_results():
            self.runner.run_now()
