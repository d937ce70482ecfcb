"""StoreRecorder: writes a run's messages to the store as their events arrive (the rows are taken at once and
written on the store's writer thread), and keeps a stalled stream's tail on disk by a timer, not by the next event;
a compaction made or undone is written at once."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Callable

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.models import Compaction, Conversation, Message
from desktop_copilot.core.storage.health import StorageUnavailableError
from desktop_copilot.core.storage.store import Store

log = logging.getLogger(__name__)

WRITE_INTERVAL = 0.25
"""What has arrived of a streaming reply is on disk within this many seconds, whether or not more follows."""
WRITTEN_LATER = (*ev.DELTA_EVENTS, ev.TextEnd, ev.ThinkingEnd)
"""Events written with the next write, as deltas are: they change nothing a crash could lose but the text's end
(a long reply is not written once more per block that ends, just before the write that finishes it)."""
_WRITTEN_LATER_TYPES = frozenset(WRITTEN_LATER)


class WriteThrottle:
    """Writes what deltas changed at most every WRITE_INTERVAL: `flush` at once when the last write is that old, else
    by a timer on the running event loop, so a stalled stream's tail is on disk without waiting for the next event.
    The owner's flush calls `cancel` first and `wrote` after a write."""

    def __init__(self, flush: Callable[[], None]) -> None:
        self._flush = flush
        self._last_write = 0.0
        self._timer: asyncio.TimerHandle | None = None

    def delta(self) -> None:
        if self._timer is not None:  # a write is already due: the delta goes with it
            return
        due = self._last_write + WRITE_INTERVAL - time.monotonic()
        if due <= 0:
            self._flush()
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop (a synchronous caller): write now rather than never
            self._flush()
            return
        self._timer = loop.call_later(due, self._flush)

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def wrote(self) -> None:
        self._last_write = time.monotonic()


class StoreRecorder:
    """Deltas (WRITTEN_LATER) are written at most every WRITE_INTERVAL (a timer on the running event loop
    writes the last ones when the stream goes quiet); any other event is written at once."""

    def __init__(self, store: Store | None, conversation: Conversation) -> None:
        self.store = store
        self.conversation = conversation
        self._dirty: dict[str, Message] = {}
        self._positions: dict[str, int] = {}
        self.throttle = WriteThrottle(self.flush)

    def record(self, event: ev.Event) -> None:
        if self.store is None:
            return
        if type(event) in _WRITTEN_LATER_TYPES:  # most events: the message is marked changed, the write comes later
            self._changed(event)
            self.throttle.delta()
            return
        if isinstance(event, ev.MessageCreated):
            self._positions[event.message.id] = self._position(event.message)
            self.store.save_conversation(self.conversation)
            self._dirty[event.message.id] = event.message
            self.flush()
            return
        if isinstance(event, ev.ContextCompacted):
            self._save_compaction(event.compaction.id, event.compaction)
            return
        if isinstance(event, ev.CompactionUndone):
            self._save_compaction(event.compaction_id)
            return
        self._changed(event)  # any other event is written at once (the deltas took the first branch)
        self.flush()

    def _changed(self, event: ev.Event) -> None:
        """The message of `event` is written with the next write: the one the loop folded it into (`event.snapshot`),
        else the conversation's message of that id (nothing when it holds none)."""
        if event.message_id in self._dirty:
            return
        message = event.snapshot if event.snapshot is not None else self._find(event.message_id)
        if message is not None:
            self._dirty[message.id] = message

    def flush(self) -> None:
        """Write every message changed since the last write, now."""
        self.throttle.cancel()
        if self.store is None or not self._dirty:
            return
        for message in self._dirty.values():
            self.store.save_message(self.conversation.id, self._seq(message), message, background=True)
        self._dirty.clear()
        self.throttle.wrote()

    def _save_compaction(self, compaction_id: str, made: Compaction | None = None) -> None:
        """Write the compaction `compaction_id` as the conversation holds it now (`made`: one just made, at the end when
        the conversation does not hold it); one the disk refuses is only logged (its messages are all stored: the next
        request sends them whole, or compacts them again)."""
        assert self.store is not None
        compactions = self.conversation.compactions
        seq = next((i for i, c in enumerate(compactions) if c.id == compaction_id), None)
        compaction = compactions[seq] if seq is not None else made
        if compaction is None:
            return
        try:
            self.store.save_compaction(self.conversation.id, len(compactions) if seq is None else seq, compaction)
        except (StorageUnavailableError, sqlite3.Error) as exc:
            log.warning("the compaction %s could not be stored: %s", compaction_id, exc)

    def _find(self, message_id: str) -> Message | None:
        if not message_id:  # an event of the run, not of a message (no walk through the whole history for it)
            return None
        if message_id in self._dirty:
            return self._dirty[message_id]
        for message in reversed(self.conversation.messages):
            if message.id == message_id:
                return message
        return None

    def _seq(self, message: Message) -> int:
        position = self._positions.get(message.id)
        messages = self.conversation.messages
        if position is not None and position < len(messages) and messages[position] is message:
            return position
        position = self._position(message)
        self._positions[message.id] = position
        return position

    def _position(self, message: Message) -> int:
        """Where `message` stands in the conversation (searched from the end, where new ones are)."""
        messages = self.conversation.messages
        for seq in range(len(messages) - 1, -1, -1):
            if messages[seq] is message:
                return seq
        return len(messages)
