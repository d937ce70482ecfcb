"""The full-text index (FTS5) beside the messages: one keyed row per title or message, kept up to date."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from desktop_copilot.core.storage.search import MARK_END, MARK_START, fts_query, segment, unsegment


@dataclass(frozen=True, slots=True)
class SearchHit:
    conversation_id: str
    message_id: str
    """Empty when the conversation's title matched."""
    title: str
    snippet: str
    """Matching text with the match between MARK_START and MARK_END."""


class SearchIndex:
    """Index rows are keyed by (conversation, message) in `search_keys`, so replacing one is a lookup."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def search(self, query: str, limit: int = 50) -> list[SearchHit]:
        """Conversations and messages matching every word of `query` (CJK included), best first."""
        match = fts_query(query)
        if match is None:
            return []
        rows = self._db.execute(
            f"""SELECT s.conversation_id, s.message_id, c.title,
                       snippet(search_index, 2, '{MARK_START}', '{MARK_END}', '…', 16) AS snippet
                FROM search_index AS s JOIN conversations AS c ON c.id = s.conversation_id
                WHERE search_index MATCH ? ORDER BY rank LIMIT ?""",
            (match, limit),
        ).fetchall()
        return [SearchHit(r["conversation_id"], r["message_id"], r["title"], unsegment(r["snippet"])) for r in rows]

    def index(self, conversation_id: str, message_id: str, text: str) -> None:
        """Replace the row of a title (`message_id` "") or a message with `text` (none when blank)."""
        self.write(conversation_id, message_id, segment(text))

    def write(self, conversation_id: str, message_id: str, body: str) -> None:
        """`index` with the text already segmented (`search.segment`)."""
        key = self._db.execute(
            "SELECT id FROM search_keys WHERE conversation_id=? AND message_id=?", (conversation_id, message_id)
        ).fetchone()
        if key is not None:
            self._db.execute("DELETE FROM search_index WHERE rowid=?", (key[0],))
        if not body.strip():
            if key is not None:
                self._db.execute("DELETE FROM search_keys WHERE id=?", (key[0],))
            return
        if key is None:
            key = self._db.execute(
                "INSERT INTO search_keys (conversation_id, message_id) VALUES (?, ?) RETURNING id",
                (conversation_id, message_id),
            ).fetchone()
        self._db.execute(
            "INSERT INTO search_index (rowid, conversation_id, message_id, body) VALUES (?, ?, ?, ?)",
            (key[0], conversation_id, message_id, body),
        )

    def unindex(self, conversation_id: str, message_ids: list[str] | None = None) -> None:
        """Drop the rows of a conversation (or of some of its messages)."""
        query = "SELECT id FROM search_keys WHERE conversation_id=?"
        args: list = [conversation_id]
        if message_ids is not None:
            query += f" AND message_id IN ({','.join('?' * len(message_ids))})"
            args += message_ids
        ids = [row[0] for row in self._db.execute(query, args).fetchall()]
        self._db.executemany("DELETE FROM search_index WHERE rowid=?", [(i,) for i in ids])
        self._db.executemany("DELETE FROM search_keys WHERE id=?", [(i,) for i in ids])
        pending = "DELETE FROM search_pending WHERE conversation_id=?"
        if message_ids is not None:
            pending += f" AND message_id IN ({','.join('?' * len(message_ids))})"
        self._db.execute(pending, args)

    def clear(self) -> None:
        self._db.execute("DELETE FROM search_index")
        self._db.execute("DELETE FROM search_keys")
