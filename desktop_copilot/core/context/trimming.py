"""What a request sends of a conversation (`sent_messages`: the agent loop's requests, the meter and compaction count
the same), with old tool results trimmed: a result older than the last few turns goes to the model as its head and
tail with a note of what was left out; the conversation's own messages (the card, the database, exports) keep it
whole."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from desktop_copilot.core.conversation.history import sendable_history, starts_turn
from desktop_copilot.core.conversation.prefix import ByConversation, SeenMessages
from desktop_copilot.core.conversation.models import Compaction, Message, Role, ToolCallBlock

KEEP_TURNS = 4
"""Turns (a user message and the replies after it) whose tool results go whole, counted from the end."""
RESULT_LIMIT = 2_000
"""Characters of an older result sent whole; a longer one is cut to about this much."""
HEAD_SHARE = 2 / 3
"""How much of the excerpt is the result's start (the rest is its end)."""
NOTE = "\n\n[… {left:,} characters of this result were left out of the request; the full result is in the conversation]\n\n"


def sent_messages(history: list[Message], compactions: Sequence[Compaction] = ()) -> list[Message]:
    """What a request made now with `history` sends of it: as `sendable_history` has it (compactions, refusals,
    Continue), old tool results trimmed."""
    return trim_old_tool_results(sendable_history(history, compactions))


def trim_old_tool_results(messages: list[Message], keep_turns: int = KEEP_TURNS, limit: int = RESULT_LIMIT) -> list[Message]:
    """`messages` as a request sends them: each tool call older than the last `keep_turns` turns whose result (as the
    model would get it) is over `limit` characters carries a head-and-tail excerpt in `model_result`, on a copy of its
    message; every other message is the same object, and none is changed. The copies of a conversation's last call
    are kept (while its first message lives), so the same message gets the same copy and only messages that changed
    or newly left the last turns are looked at."""
    boundary = _recent_turns_start(messages, keep_turns)
    if boundary is None:
        return messages
    trimmed = list(messages)
    with _lock:
        for index, copy in _copies(messages, boundary, limit).items():
            trimmed[index] = copy
    return trimmed


def _recent_turns_start(messages: list[Message], keep_turns: int) -> int | None:
    """Where the last `keep_turns` turns begin (history.turn_starts, counted from the end; with none kept, the end), or
    None when the messages have no more turns than that."""
    keep_turns = max(0, keep_turns)
    found, boundary = 0, len(messages)
    for index in range(len(messages) - 1, -1, -1):
        if starts_turn(messages, index):
            found += 1
            if found == keep_turns:
                boundary = index
            elif found > keep_turns:
                return boundary
    return None


@dataclass(slots=True)
class _Copies:
    """One conversation's trimmed copies as its last call made them, by position, and the messages they were made
    from (what decides whether a position's copy still holds)."""

    limit: int
    seen: SeenMessages = field(default_factory=SeenMessages)
    copies: dict[int, Message] = field(default_factory=dict)


def _copies(messages: list[Message], boundary: int, limit: int) -> dict[int, Message]:
    """The trimmed copies of `messages[:boundary]`, by position: kept ones where the messages up to them are the same
    objects at the same revisions as at the last call, the rest made."""
    kept = _kept.get(messages, lambda: _Copies(limit), lambda held: held.limit == limit)
    looked = messages[:boundary]
    same = kept.seen.update(looked)
    copies = {index: copy for index, copy in kept.copies.items() if index < same}
    for index in range(same, boundary):
        message = messages[index]
        if message.role is not Role.ASSISTANT:
            continue
        blocks = None  # copied only for a message with a result to cut
        for position, block in enumerate(message.blocks):
            if isinstance(block, ToolCallBlock) and (cut := _trimmed(block, limit)) is not block:
                if blocks is None:
                    blocks = list(message.blocks)
                blocks[position] = cut
        if blocks is not None:
            copies[index] = message.model_copy(update={"blocks": blocks})
    kept.copies = copies
    return copies


_kept: ByConversation[_Copies] = ByConversation()
_lock = threading.Lock()


def excerpt(text: str, limit: int = RESULT_LIMIT) -> str:
    """The head and tail of `text` within about `limit` characters, cut at line ends where one is near, with a note
    of how many characters were left out between them."""
    head_size = int(limit * HEAD_SHARE)
    head = text[:head_size]
    newline = head.rfind("\n")
    if newline > head_size * 0.8:
        head = head[:newline]
    tail = text[len(text) - (limit - head_size):]
    newline = tail.find("\n")
    if 0 <= newline < len(tail) * 0.2:
        tail = tail[newline + 1:]
    return head + NOTE.format(left=len(text) - len(head) - len(tail)) + tail


def _trimmed(call: ToolCallBlock, limit: int) -> ToolCallBlock:
    """`call` itself when its result is short enough (or it has none), else a copy carrying the excerpt."""
    text = call.model_result if call.model_result is not None else call.result
    if text is None or len(text) <= limit or not call.status.finished:
        return call
    return call.model_copy(update={"model_result": excerpt(text, limit)})
