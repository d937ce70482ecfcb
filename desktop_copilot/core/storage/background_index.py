"""BackgroundIndexer: writes finished messages' search rows on a thread of its own, with its own SQLite connection,
so indexing a long reply never stalls the thread that saved it."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator

from desktop_copilot.core.storage.keyed_worker import KeyedWorker, rollback
from desktop_copilot.core.storage.search import segment
from desktop_copilot.core.storage.search_index import SearchIndex

SLICE_CHARS = 32_768
"""Text is prepared for the index this many characters at a time, letting other threads run in between (a
long reply's text would otherwise hold the interpreter for tens of milliseconds at once)."""
INDEX_DELAY = 0.5
"""Indexing starts this long after a message is saved (or at once when a search or close waits for it): a reply
that just finished is laid out and painted first."""
Key = tuple[str, str]
"""(conversation id, message id)."""


def segment_in_slices(text: str) -> Iterator[str]:
    """`segment(text)` in slices (segmenting works character by character, so the slices join up exactly)."""
    for start in range(0, len(text), SLICE_CHARS):
        yield segment(text[start : start + SLICE_CHARS])


STILL_STORED = """SELECT 1 FROM messages WHERE id=? AND conversation_id=?
    UNION ALL SELECT 1 FROM archived_tails AS t, json_each(t.messages) AS m
    WHERE t.conversation_id=? AND json_extract(m.value, '$.id')=? LIMIT 1"""
"""Whether a message is still stored, in the conversation or as an earlier version of it (else it is not indexed)."""


class BackgroundIndexer(KeyedWorker):
    """(conversation, message) -> the text to index, newest text per message. The saver records each message in
    the `search_pending` table when it writes it; this thread deletes that row in the transaction that writes the
    index, so whatever an exit or a crash leaves unwritten is still listed there for the next start. A message
    that no longer exists (deleted meanwhile) is not indexed."""

    thread_name = "search-indexer"
    delay = INDEX_DELAY

    def index(self, conversation_id: str, message_id: str, text: str) -> None:
        self.submit((conversation_id, message_id), text)

    def _handle(self, db: sqlite3.Connection, key: Key, text: str) -> None:
        body = ""
        for piece in segment_in_slices(text):
            body += piece
            time.sleep(0)  # let the GUI thread have the interpreter between slices
        conversation_id, message_id = key
        db.execute("BEGIN IMMEDIATE")
        try:
            if db.execute(STILL_STORED, (message_id, conversation_id, conversation_id, message_id)).fetchone():
                SearchIndex(db).write(conversation_id, message_id, body)
            if not self.queued(key):  # a newer text queued meanwhile keeps the row until it is written
                db.execute("DELETE FROM search_pending WHERE conversation_id=? AND message_id=?", key)
            db.execute("COMMIT")
        except BaseException:
            rollback(db)
            raise
