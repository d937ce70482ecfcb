"""TailRecorder: writes an answer streaming beside the conversation's active reply (core/side_by_side.py) as an earlier
version of that reply, as its events arrive: deltas at most every WRITE_INTERVAL, anything else at once, so a crash
loses none of it; its finished text is made searchable."""

from __future__ import annotations

import logging
import sqlite3

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.models import Message, new_id, now
from desktop_copilot.core.storage.health import StorageUnavailableError
from desktop_copilot.core.storage.recorder import WRITTEN_LATER, WriteThrottle
from desktop_copilot.core.storage.store import Store
from desktop_copilot.core.storage.versions import ArchivedTail, TailArchive

log = logging.getLogger(__name__)


class TailRecorder:
    """Keeps `messages[anchor:]` (a branch of the conversation: its history, then the answer) as one earlier version."""

    def __init__(self, store: Store | None, conversation_id: str, anchor: int, messages: list[Message]) -> None:
        self.store = store
        self.conversation_id = conversation_id
        self.anchor = anchor
        self.messages = messages
        self.tail_id = new_id("tail")
        self.created_at = now()
        self.throttle = WriteThrottle(self.flush)

    def tail(self) -> ArchivedTail:
        return ArchivedTail(self.tail_id, self.anchor, self.created_at, list(self.messages[self.anchor:]))

    def record(self, event: ev.Event) -> None:
        if self.store is None:
            return
        if isinstance(event, WRITTEN_LATER):
            self.throttle.delta()
        else:
            self.flush()

    def flush(self, *, finished: bool = False) -> None:
        """Write the answer as it stands now; `finished`: also index it for search."""
        self.throttle.cancel()
        if self.store is None or len(self.messages) <= self.anchor:
            return
        archive, tail = TailArchive(self.store), self.tail()
        try:
            archive.keep(tail, self.conversation_id)
        except (StorageUnavailableError, sqlite3.Error) as exc:  # the banner says the disk refuses; kept in memory
            log.warning("an answer written beside the reply could not be stored yet: %s", exc)
            return
        self.throttle.wrote()
        if finished:
            archive.index(tail, self.conversation_id)
