"""A chat session: one conversation, its store, and runs of the agent loop on it."""

from __future__ import annotations

import time
from dataclasses import dataclass

from desktop_copilot.core import events as ev
from desktop_copilot.core.agent.loop import AgentLoop, ConfirmLoop, Emit, RunOptions
from desktop_copilot.core.models import Conversation, Message
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.storage.store import Store

WRITE_INTERVAL = 0.25
"""A streaming reply reaches the database at least this often (seconds)."""

_DELTAS = (ev.TextDelta, ev.ThinkingDelta, ev.ToolCallDelta, ev.UsageUpdate)
TITLE_CHARS = 60


def title_from(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"


class StoreRecorder:
    """Writes messages as their events arrive: deltas at most every 250 ms, anything else at once."""

    def __init__(self, store: Store | None, conversation: Conversation) -> None:
        self.store = store
        self.conversation = conversation
        self._dirty: dict[str, Message] = {}
        self._last_write = 0.0

    def _seq(self, message: Message) -> int:
        for seq, candidate in enumerate(self.conversation.messages):
            if candidate is message:
                return seq
        return len(self.conversation.messages)

    def record(self, event: ev.Event) -> None:
        if self.store is None:
            return
        if isinstance(event, ev.MessageCreated):
            self.store.save_conversation(self.conversation)
            self._dirty[event.message.id] = event.message
            self.flush()
            return
        message = self._find(event.message_id)
        if message is not None:
            self._dirty[message.id] = message
        if not isinstance(event, _DELTAS) or time.monotonic() - self._last_write >= WRITE_INTERVAL:
            self.flush()

    def _find(self, message_id: str) -> Message | None:
        if message_id in self._dirty:
            return self._dirty[message_id]
        for message in reversed(self.conversation.messages):
            if message.id == message_id:
                return message
        return None

    def flush(self) -> None:
        if self.store is None or not self._dirty:
            return
        for message in self._dirty.values():
            self.store.save_message(self.conversation.id, self._seq(message), message)
        self._dirty.clear()
        self._last_write = time.monotonic()


@dataclass(slots=True)
class ChatSession:
    runtime: Runtime
    conversation: Conversation
    store: Store | None = None

    def options(self) -> RunOptions:
        config = self.runtime.config
        return RunOptions(
            model=self.conversation.model or config.model,
            system=self.conversation.system or config.system,
            thinking_budget=config.thinking_budget,
            max_tokens=config.max_tokens,
            max_tool_rounds=config.max_tool_rounds,
        )

    async def send(self, text: str, emit: Emit, confirm_loop: ConfirmLoop | None = None) -> ev.RunFinished:
        """Append the user's message and run the loop until the reply is complete, stopped or failed.
        Raises MissingKeyError before anything is stored when no Anthropic key is configured."""
        provider = self.runtime.provider()
        recorder = StoreRecorder(self.store, self.conversation)

        def forward(event: ev.Event) -> None:
            recorder.record(event)
            emit(event)

        if not self.conversation.title:
            self.conversation.title = title_from(text)
        if not self.conversation.model:
            self.conversation.model = self.runtime.config.model
        user = Message.user(text)
        self.conversation.messages.append(user)
        forward(ev.MessageCreated(message=user, message_id=user.id))
        tools = self.runtime.enabled_tools()
        loop = AgentLoop(provider, tools, self.runtime.tool_context(tools), self.options(), forward, confirm_loop)
        try:
            return await loop.run(self.conversation.messages)
        finally:
            recorder.flush()
