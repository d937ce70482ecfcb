"""Message bodies for the transcript model: handed-over ones held, stored ones loaded into a bounded cache."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable

from desktop_copilot.core.conversation.models import Message

MESSAGE_CACHE = 256
"""Stored messages kept loaded at once (a 10,000-message conversation is never all in memory)."""


class MessageSource:
    """Messages handed to the model (live ones included) are held; stored ones are read on demand into a
    least-recently-used cache of `capacity` messages."""

    def __init__(self, store=None, conversation_id: str = "", capacity: int = MESSAGE_CACHE) -> None:
        self.store = store
        self.conversation_id = conversation_id
        self.capacity = capacity
        self._held: dict[str, Message] = {}
        self._cache: OrderedDict[str, Message] = OrderedDict()
        self.loads = 0
        """Messages read from the store so far (for tests and benchmarks)."""

    def hold(self, message: Message) -> None:
        """Keep `message` for as long as the model shows it (handed over, or still streaming)."""
        self._cache.pop(message.id, None)
        self._held[message.id] = message

    def release(self, message_id: str) -> None:
        """The model no longer shows `message_id` (it became an earlier version)."""
        self._held.pop(message_id, None)
        self._cache.pop(message_id, None)

    def peek(self, message_id: str) -> Message | None:
        """The message if it is in memory; never touches the store."""
        message = self._held.get(message_id)
        if message is None and (message := self._cache.get(message_id)) is not None:
            self._cache.move_to_end(message_id)
        return message

    def get(self, message_id: str) -> Message | None:
        """The message, read from the store if it is not in memory."""
        message = self.peek(message_id)
        if message is None and self.store is not None:
            loaded = self.load([message_id])
            message = loaded[0] if loaded else None
        return message

    def load(self, message_ids: Iterable[str]) -> list[Message]:
        """Read the messages not yet in memory in one query; returns all of `message_ids` that exist, in order."""
        ids = list(message_ids)
        missing = [i for i in ids if self.peek(i) is None]
        if missing and self.store is not None:
            for message in self.store.load_messages(missing):
                self.loads += 1
                self._cache[message.id] = message
        found = [m for i in ids if (m := self.peek(i)) is not None]
        while len(self._cache) > max(self.capacity, len(ids)):
            self._cache.popitem(last=False)
        return found

    def in_memory(self) -> int:
        return len(self._held) + len(self._cache)
