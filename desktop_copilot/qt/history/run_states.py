"""Each conversation's state in the sidebar: replying, waiting for approval (with how many calls), failed or
interrupted (its newest reply), or a reply that finished while another conversation was shown and is not seen yet;
kept in step with the controller's runs."""

from __future__ import annotations

from typing import NamedTuple

from PySide6.QtCore import QObject

from desktop_copilot.core.conversation.models import Conversation
from desktop_copilot.core.conversation.statuses import MessageStatus
from desktop_copilot.core.storage.store import Store
from desktop_copilot.qt.bridge.controller import ChatController
from desktop_copilot.qt.history.conversation_list_model import ConversationListModel

STREAMING, APPROVAL, FAILED, INTERRUPTED, UNSEEN = "streaming", "approval", "failed", "interrupted", "unseen"
SHOWN_STATUSES = {MessageStatus.FAILED.value: FAILED, MessageStatus.INTERRUPTED.value: INTERRUPTED}
"""A newest message with one of these statuses marks its row (stopped is the user's doing: no mark)."""


class RowState(NamedTuple):
    kind: str
    count: int = 0
    """How many calls wait for approval (APPROVAL)."""


class RunStates(QObject):
    def __init__(self, controller: ChatController, conversations: ConversationListModel, store: Store | None) -> None:
        super().__init__(conversations)
        self.controller = controller
        self.conversations = conversations
        self.unseen: set[str] = set()
        """Conversations whose reply finished while another one was shown."""
        self._newest: dict[str, str] = store.newest_statuses() if store is not None else {}
        """Conversation id -> its newest message's status, as stored at start and as runs left it since."""
        conversations.state_of = self.state_of
        controller.sig_runs_changed.connect(self._on_runs_changed)
        controller.sig_background_news.connect(self._on_background_news)

    def state_of(self, conversation_id: str) -> RowState | None:
        if self.controller.running(conversation_id):
            waiting = len(self.controller.approvals.waiting(conversation_id))
            return RowState(APPROVAL, waiting) if waiting else RowState(STREAMING)
        kind = SHOWN_STATUSES.get(self._newest.get(conversation_id, ""))
        if kind:  # a reply that failed in the background says so, not just that something is new
            return RowState(kind)
        return RowState(UNSEEN) if conversation_id in self.unseen else None

    def seen(self, conversation_id: str) -> None:
        """The conversation is shown: its finished reply is seen."""
        if conversation_id in self.unseen:
            self.unseen.discard(conversation_id)
            self.conversations.state_changed(conversation_id)

    def forget(self, conversation_id: str) -> None:
        self.unseen.discard(conversation_id)
        self._newest.pop(conversation_id, None)

    def _on_runs_changed(self, conversation: Conversation) -> None:
        if conversation.messages:
            self._newest[conversation.id] = conversation.messages[-1].status.value
        self.conversations.state_changed(conversation.id)

    def _on_background_news(self, conversation: Conversation, kind: str, _detail: str) -> None:
        if kind not in ("approval", "stopped") and conversation.id != self.controller.session.conversation.id:
            self.unseen.add(conversation.id)
            self.conversations.state_changed(conversation.id)
