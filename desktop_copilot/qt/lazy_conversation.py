"""Opening a stored conversation without reading all of it (lazy transcript, history loaded when needed)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from desktop_copilot.core.chat import ChatSession
from desktop_copilot.core.models import Message

HISTORY_FREE = frozenset({"options"})
"""ChatSession methods that do not need the full history; every other public method first loads it."""


@dataclass(slots=True)
class LazyHistorySession(ChatSession):
    """A ChatSession whose `conversation.messages` starts as the conversation's last messages: enough to
    tell whether it is empty and how it ends (what the window asks when it opens). The first call of any
    session method (send, regenerate, edit, continue, versions, …) loads the whole history into that same
    list, once: one query, ~30 µs a message, which a run then needs anyway."""

    history_loaded: bool = False

    def ensure_history(self) -> None:
        if self.history_loaded or self.store is None:
            self.history_loaded = True
            return
        stored = self.store.load_conversation(self.conversation.id)
        if stored is not None:  # keep the objects already held (the transcript shows them), in stored order
            held = {message.id: message for message in self.conversation.messages}
            history = [held.pop(message.id, message) for message in stored.messages]
            self.conversation.messages[:] = history + list(held.values())
        self.history_loaded = True


def _with_history(method):
    @functools.wraps(method)
    def wrapper(self: LazyHistorySession, *args, **kwargs):
        self.ensure_history()
        return method(self, *args, **kwargs)

    return wrapper


for _name, _member in list(vars(ChatSession).items()):
    if callable(_member) and not _name.startswith("_") and _name not in HISTORY_FREE:
        setattr(LazyHistorySession, _name, _with_history(_member))


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
    controller.session = LazyHistorySession(controller.session.runtime, conversation, store)
    controller.sig_usage_changed.emit(store.conversation_usage(conversation_id))
    return True
