"""What the store reads, with the rows still waiting on the writer thread (a disk problem holds them) laid over it:
a reply that could not be written yet still shows when its conversation is opened again."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from desktop_copilot.core.conversation.models import Conversation, Message
from desktop_copilot.core.storage.message_writer import HeaderRow, MessageRow


class Unwritten(NamedTuple):
    """The rows the writer has not written, taken once per read, before the read (a row written meanwhile is then
    read twice, the same)."""

    headers: dict[str, HeaderRow]
    """Conversation id -> its newest header not yet written."""
    messages: list[MessageRow]
    """The newest row of each message not yet written."""

    @classmethod
    def of(cls, pending: Iterable[object]) -> Unwritten:
        """From the writer's pending rows, oldest first (a newer row of a key replaces an older one)."""
        headers: dict[str, HeaderRow] = {}
        messages: dict[str, MessageRow] = {}
        for row in pending:
            if isinstance(row, HeaderRow):
                headers[row.conversation_id] = row
            elif isinstance(row, MessageRow):
                messages[row.message_id] = row
        return cls(headers, list(messages.values()))

    def __bool__(self) -> bool:
        return bool(self.headers or self.messages)

    def conversations(self, stored: list[Conversation]) -> list[Conversation]:
        """`stored` (newest first) with the headers not yet written in their place."""
        by_id = {conversation.id: conversation for conversation in stored}
        by_id.update({id_: row.conversation() for id_, row in self.headers.items()})
        return sorted(by_id.values(), key=lambda conversation: conversation.updated_at, reverse=True)

    def header(self, conversation_id: str, stored: Conversation | None) -> Conversation | None:
        row = self.headers.get(conversation_id)
        return stored if row is None else row.conversation()

    def of_conversation(self, conversation_id: str) -> list[MessageRow]:
        return [row for row in self.messages if row.conversation_id == conversation_id]

    def in_order(self, conversation_id: str, stored: list[tuple[int, str, object]]) -> list[object]:
        """`stored` as (seq, id, item) in order, with the conversation's unwritten messages in their place (as
        MessageRows): one replaces the stored item of its id, a new one goes in at its seq."""
        rows = {row.message_id: row for row in self.of_conversation(conversation_id)}
        merged = [(row.seq, row) if (row := rows.pop(id_, None)) else (seq, item) for seq, id_, item in stored]
        merged += [(row.seq, row) for row in rows.values()]
        merged.sort(key=lambda pair: pair[0])
        return [item for _seq, item in merged]

    def message(self, message_id: str) -> Message | None:
        for row in self.messages:
            if row.message_id == message_id:
                return row.message()
        return None
