"""Seeds a Store with conversations at chosen times (for sidebar/search tests, screenshots and benchmarks)."""

from __future__ import annotations

import time

from desktop_copilot.core.conversation.models import Conversation, Message, MessageStatus, Role, TextBlock
from desktop_copilot.core.storage.store import Store

DAY = 86_400.0


def seed_conversation(
    store: Store,
    title: str,
    turns: list[tuple[str, str]],
    *,
    age_days: float = 0.0,
    model: str = "claude-sonnet-4-5-20250929",
    last_status: MessageStatus = MessageStatus.COMPLETED,
    error: str | None = None,
) -> Conversation:
    """A stored conversation of (user text, assistant text) turns, last updated `age_days` ago.
    `last_status` and `error` apply to the final assistant reply (e.g. INTERRUPTED)."""
    updated_at = time.time() - age_days * DAY
    conversation = Conversation(title=title, model=model, created_at=updated_at - 120)
    for n, (question, answer) in enumerate(turns):
        conversation.messages.append(Message.user(question))
        reply = Message(role=Role.ASSISTANT, model=model, blocks=[TextBlock(text=answer)])
        if n == len(turns) - 1 and last_status is not MessageStatus.COMPLETED:
            reply.status, reply.error = last_status, error
        conversation.messages.append(reply)
    store.save_conversation(conversation)
    for seq, message in enumerate(conversation.messages):
        store.save_message(conversation.id, seq, message)
    store.touch_conversation(conversation.id, updated_at)
    conversation.updated_at = updated_at
    return conversation


def seed_app_store(seed) -> dict:
    """Run `seed(store)` on the app's database (DESKTOP_COPILOT_HOME), then close it; returns what it returned."""
    from desktop_copilot.core.config.paths import AppPaths

    store = Store(AppPaths.resolve().ensure().database)
    try:
        return seed(store)
    finally:
        store.close()
