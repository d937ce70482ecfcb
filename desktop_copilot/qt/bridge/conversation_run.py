"""One conversation's run in progress: its session, its asyncio task, whether the user's message is in yet, and
what happened that the window says when the conversation is shown again (an error, text given back)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from desktop_copilot.core.chat import ChatSession


@dataclass(eq=False)
class ConversationRun:
    session: ChatSession
    task: asyncio.Task | None = None
    user_message_sent: bool = False
    outcome: str = ""
    """The loop's RunFinished outcome ("completed", "stopped", "failed", …) once it has come."""

    @property
    def conversation_id(self) -> str:
        return self.session.conversation.id


@dataclass
class HeldNews:
    """What a run of a conversation not on screen said for the window: shown when the conversation is opened."""

    errors: list[str] = field(default_factory=list)
    given_back: str = ""
    """The text of a message that was not sent, for the composer."""
