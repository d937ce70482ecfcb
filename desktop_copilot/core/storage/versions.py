"""Earlier versions of a conversation: the tail replaced by an edit or a regeneration, or an answer written beside the
active one (core/side_by_side.py), kept to switch back; their text stays searchable (the hit opens the conversation)."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import TypeAdapter

from desktop_copilot.core.conversation.models import Message, new_id, now
from desktop_copilot.core.storage.search import searchable_text
from desktop_copilot.core.storage.store import Store

_MESSAGES = TypeAdapter(list[Message])


@dataclass(frozen=True, slots=True)
class ArchivedTail:
    id: str
    anchor: int
    """Position in the conversation where this version starts."""
    created_at: float
    messages: list[Message]


class TailArchive:
    """Stores and restores replaced tails of conversations in the same database as the store."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def archive(self, conversation_id: str, anchor: int, messages: list[Message]) -> ArchivedTail | None:
        """Move `messages` (the active tail from `anchor`) into the archive."""
        if not messages:
            return None
        tail = ArchivedTail(new_id("tail"), anchor, now(), list(messages))
        with self._store.transaction() as db:
            db.execute(
                "INSERT INTO archived_tails (id, conversation_id, anchor, created_at, messages) VALUES (?, ?, ?, ?, ?)",
                (tail.id, conversation_id, anchor, tail.created_at, _MESSAGES.dump_json(tail.messages).decode()),
            )
            self._store.delete_messages(conversation_id, [m.id for m in messages], keep_searchable=True)
        return tail

    def keep(self, tail: ArchivedTail, conversation_id: str) -> None:
        """Write `tail` (new, or grown since it was last kept) as an earlier version of the conversation: an answer
        written beside the active one is kept as it streams."""
        with self._store.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO archived_tails (id, conversation_id, anchor, created_at, messages) VALUES (?, ?, ?, ?, ?)",
                (tail.id, conversation_id, tail.anchor, tail.created_at, _MESSAGES.dump_json(tail.messages).decode()),
            )

    def index(self, tail: ArchivedTail, conversation_id: str) -> None:
        """Make the finished messages of `tail` findable by search (in the background)."""
        for message in tail.messages:
            self._store.indexer.index(conversation_id, message.id, searchable_text(message))

    def tails(self, conversation_id: str, anchor: int | None = None) -> list[ArchivedTail]:
        query = "SELECT * FROM archived_tails WHERE conversation_id=?"
        args: list = [conversation_id]
        if anchor is not None:
            query += " AND anchor=?"
            args.append(anchor)
        rows = self._store.archive_connection.execute(query + " ORDER BY created_at", args).fetchall()
        return [ArchivedTail(r["id"], r["anchor"], r["created_at"], _MESSAGES.validate_json(r["messages"])) for r in rows]

    def anchors(self, conversation_id: str) -> dict[int, int]:
        """Anchor position -> how many earlier versions it has."""
        rows = self._store.archive_connection.execute(
            "SELECT anchor, COUNT(*) FROM archived_tails WHERE conversation_id=? GROUP BY anchor", (conversation_id,)
        ).fetchall()
        return {row[0]: row[1] for row in rows}

    def restore(self, conversation_id: str, tail_id: str) -> ArchivedTail:
        """Take a tail out of the archive (the caller writes its messages back as the active tail)."""
        with self._store.transaction() as db:
            row = db.execute("SELECT * FROM archived_tails WHERE id=? AND conversation_id=?",
                             (tail_id, conversation_id)).fetchone()
            if row is None:
                raise KeyError(f"no earlier version {tail_id} in this conversation")
            db.execute("DELETE FROM archived_tails WHERE id=?", (tail_id,))
        return ArchivedTail(row["id"], row["anchor"], row["created_at"], _MESSAGES.validate_json(row["messages"]))

