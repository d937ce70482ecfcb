"""Opening a stored conversation without reading all of it (lazy transcript, history loaded when needed)."""

from __future__ import annotations

from desktop_copilot.core.chat import ChatSession
from desktop_copilot.core.models import Message


def open_conversation_lazily(controller, conversation_id: str) -> bool:
    """Show the stored conversation `conversation_id` in `controller`'s window without loading all of it:
    what the sidebar calls instead of `controller.set_conversation(store.load_conversation(id))`.
    False (nothing changes) while a run is in progress or when the conversation does not exist."""
    store = controller.session.store
    if controller.busy or store is None:
        return False
    conversation = store.load_conversation_header(conversation_id)
    if conversation is None:
        return False
    recent: list[Message] = controller.model.open_lazy(store, conversation_id)
    conversation.messages = list(recent)
    controller.session = ChatSession(controller.session.runtime, conversation, store, history_loaded=False)
    controller.sig_usage_changed.emit(store.conversation_usage(conversation_id))
    return True
