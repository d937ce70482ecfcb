"""Which part of a conversation is sent to a provider: compacted stretches as their summary (or a note that they are
left out), everything but the exchanges a model refused, and a request to go on when the conversation ends with a
partial reply (Continue)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence

from desktop_copilot.core.conversation.models import Compaction, Message, Role, TextBlock
from desktop_copilot.core.conversation.prefix import PerMessage

REFUSAL = "refusal"
CONTINUE_INSTRUCTION = (
    "Continue your previous reply exactly where it stopped, as if it had never been interrupted: do not repeat "
    "or summarise what you already wrote. If it stopped inside a code block, first reopen that code block with "
    "the same fence and language."
)
"""Sent (not stored) after a partial reply that is to be continued. Current models refuse a request that ends
with an assistant turn (prefill), and most providers other than Anthropic never took one."""
SUMMARY_INTRO = "Summary of the earlier conversation ({count} messages were compacted):\n\n{summary}"
DROPPED_NOTE = ("({count} earlier messages are not shown to the model: the context window was full and no summary "
                "could be made.)")


def written_by(message: Message, provider: str) -> bool:
    """Whether `message` came from `provider`: only then do its thinking signatures, raw blocks and
    provider_fields go back (a message stored before providers were chosen is Anthropic's)."""
    return (message.provider or "anthropic") == provider


def is_refused(message: Message) -> bool:
    return message.role is Role.ASSISTANT and message.stop_reason == REFUSAL


_refused = PerMessage(is_refused)
"""Whether each message of a conversation is a refused reply, looked at again only past the unchanged prefix."""


def sendable_history(history: list[Message], compactions: Sequence[Compaction] = ()) -> list[Message]:
    """`history` as a request sends it: each live compaction's messages replaced by one user message (its summary, or
    a note that they are left out); without each refused reply and the user turn(s) that led to it, as Anthropic asks
    after a refusal (the same prompt sent again would be refused again, or merged into the next user turn); and ending
    with a user turn. The conversation itself is not changed."""
    refused = _refused.of(history)
    kept: list[Message] = []
    for start, piece in _pieces(history, compactions):
        if isinstance(piece, Message):
            kept.append(piece)
        else:
            kept += _without_refusals(piece) if True in refused[start:start + len(piece)] else piece
    if kept and kept[-1].role is Role.ASSISTANT and not kept[-1].tool_calls:
        if kept[-1].text.strip():  # a partial reply to continue
            kept.append(Message.user(CONTINUE_INSTRUCTION))
        else:  # nothing of it can be continued: the request asks again
            kept.pop()
    return kept


def turn_starts(messages: Sequence[Message]) -> list[int]:
    """Where each turn begins: a user message (or a run of them) followed by the replies and tool rounds that answer
    it. Tool results live on the call blocks of the reply, so a turn never ends between a call and its result."""
    return [index for index in range(len(messages)) if starts_turn(messages, index)]


def starts_turn(messages: Sequence[Message], index: int) -> bool:
    """Whether a turn begins at `index`: a user message after anything but another user message."""
    return messages[index].role is Role.USER and (index == 0 or messages[index - 1].role is not Role.USER)


def span(compaction: Compaction, position: Mapping[str, int]) -> tuple[int, int] | None:
    """(first, last) of `compaction`'s messages in a history (`position`: each message id's index there), or None when
    they are not all in it (edited away or regenerated: the compaction no longer applies)."""
    first, last = position.get(compaction.first_message_id), position.get(compaction.last_message_id)
    return None if first is None or last is None or first > last else (first, last)


def taken_over(compactions: Sequence[Compaction], position: Mapping[str, int] | None = None) -> set[str]:
    """The ids of the compactions another one took over: one that is not undone and whose messages are all in the
    history (`position`, as for `span`; None: every one is taken to be) put their summaries into its own."""
    return {replaced for c in compactions if not c.undone and (position is None or span(c, position) is not None)
            for replaced in c.replaces}


def live_compactions(compactions: Sequence[Compaction], history: Sequence[Message] | None = None) -> list[Compaction]:
    """The compactions requests apply: neither undone nor taken over by another one in effect; with `history`, only
    those whose messages are all in it (None: every one is taken to be)."""
    return [c for c, _ in _live(compactions, None if history is None else _positions(history))]


def compacted_ranges(history: Sequence[Message], compactions: Sequence[Compaction]) -> list[tuple[int, int, Compaction]]:
    """(first, last, compaction) of each live compaction whose messages are all in `history`, by position (last
    included), oldest first; where two overlap (a compaction undone under a live one), the newer one wins."""
    found: list[tuple[int, int, Compaction]] = []
    for compaction, (first, last) in sorted(_live(compactions, _positions(history)), key=lambda c: c[0].created_at, reverse=True):
        if all(last < start or first > end for start, end, _ in found):
            found.append((first, last, compaction))
    return sorted(found, key=lambda item: item[0])


def _positions(history: Sequence[Message]) -> dict[str, int]:
    return {message.id: index for index, message in enumerate(history)}


def _live(compactions: Sequence[Compaction], position: Mapping[str, int] | None) -> list[tuple[Compaction, tuple[int, int]]]:
    """Each live compaction with its span (with `position` None: every one, spanning (0, 0))."""
    gone = taken_over(compactions, position)
    live = []
    for compaction in compactions:
        if compaction.undone or compaction.id in gone:
            continue
        where = (0, 0) if position is None else span(compaction, position)
        if where is not None:
            live.append((compaction, where))
    return live


_STAND_INS_KEPT = 64
_stand_ins: OrderedDict[tuple, Message] = OrderedDict()


def stand_in(compaction: Compaction) -> Message:
    """The user message a request sends in place of `compaction`'s messages: the same object for the same compaction
    (while it is among the last few used), so what caches request data by message (the Anthropic body, the trimmed
    copies) resumes past it. Never to be changed: make a copy for that."""
    key = (compaction.id, compaction.kind, compaction.messages, compaction.summary, compaction.created_at)
    message = _stand_ins.get(key)
    if message is None:
        message = _stand_ins[key] = _make_stand_in(compaction)
        while len(_stand_ins) > _STAND_INS_KEPT:
            _stand_ins.popitem(last=False)
    return message


def _make_stand_in(compaction: Compaction) -> Message:
    if compaction.kind == "summary":
        text = SUMMARY_INTRO.format(count=compaction.messages, summary=compaction.summary.strip())
    else:
        text = DROPPED_NOTE.format(count=compaction.messages)
    return Message(id=compaction.id, role=Role.USER, blocks=[TextBlock(text=text)], created_at=compaction.created_at)


def _pieces(history: list[Message], compactions: Sequence[Compaction]) -> list[tuple[int, Message | list[Message]]]:
    """`history` cut at its compactions: a stand-in message for each, and the runs of messages between them, each with
    where it starts in `history`."""
    if not compactions:
        return [(0, history)]
    pieces: list[tuple[int, Message | list[Message]]] = []
    start = 0
    for first, last, compaction in compacted_ranges(history, compactions):
        pieces += [(start, history[start:first]), (first, stand_in(compaction))]
        start = last + 1
    pieces.append((start, history[start:]))
    return pieces


def _without_refusals(history: list[Message]) -> list[Message]:
    kept: list[Message] = []
    for message in history:
        if is_refused(message):
            while kept and kept[-1].role is Role.USER:
                kept.pop()
            continue
        kept.append(message)
    return kept
