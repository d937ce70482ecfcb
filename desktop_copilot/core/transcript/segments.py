"""Segments, the transcript's rows: a message cut into one row per block or piece, and the row diff."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from desktop_copilot.core.conversation.models import (
    Compaction,
    Message,
    MessageStatus,
    RawBlock,
    RedactedThinkingBlock,
    Role,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)
from desktop_copilot.core.transcript.chunking import Chunker, Piece

NOTICE_STATUSES = (MessageStatus.FAILED, MessageStatus.INTERRUPTED, MessageStatus.STOPPED)
NOTICE_STOP_REASONS = ("max_tokens", "refusal")
"""A completed reply that still needs a word under it: cut off at the output limit, or refused."""
NEW_MESSAGE, NEW_BLOCK, SAME_BLOCK, HIDDEN = 2, 1, 0, -1
"""Placement of a row: what it follows (decides the spacing above it); HIDDEN: a row of a message in a collapsed
compaction, which keeps its place in the model but shows nothing (no height)."""
LEAD_KINDS = ("compaction", "compaction_summary", "origin")
"""Rows a message can start with that are not about the message itself: a compaction's marker and summary before
the first message it stands for, and the line saying which conversation a summary chat was started from."""


@dataclass(slots=True, unsafe_hash=True)
class Segment:
    """One row: `kind` of part, the `block` it shows (-1 for message-level rows), and for text the piece
    [start, end) of it. Equal segments look the same; a segment with the same `key` is the same row.
    Never changed once made (not frozen only because frozen dataclasses are several times slower to build)."""

    message_id: str
    kind: str
    block: int = -1
    start: int = 0
    end: int = 0
    open: bool = False
    """Still growing: the last piece of a block that is streaming."""
    prefix: str = ""
    lines: int = 0
    """Line breaks in the piece (for height estimates)."""
    state: tuple = ()
    """Whatever else the row's look depends on (tool status, expanded, …)."""
    head: bool = True
    tail: bool = True
    """First / last piece of its block (a user bubble rounds its ends)."""

    @property
    def key(self) -> tuple:
        return self.message_id, self.kind, self.block, self.start


def pending_segment(message_id: str, role: str, chars: int) -> Segment:
    """The one row of a message not segmented yet (its body maybe not even loaded): `chars`, about how
    many characters it shows, is all its height estimate has to go on."""
    return Segment(message_id, "pending", state=(role, chars))


def compaction_rows(message_id: str, compaction: Compaction, opened: bool, slot: int = 0) -> list[Segment]:
    """The rows before `message_id`, the first message `compaction` stands for: its marker, and while it is open
    the summary requests send in the messages' place (a summary compaction not undone), cut into pieces of bounded
    height. `slot` numbers the compactions that start at the same message (their summaries' rows stay apart)."""
    shown = (compaction.id, compaction.kind, compaction.messages, compaction.tokens_before, compaction.tokens_after,
             compaction.undone)
    rows = [Segment(message_id, "compaction", -2 - slot, state=(*shown, opened))]
    summary = compaction.summary
    if not opened or compaction.undone or compaction.kind != "summary" or not summary.strip():
        return rows
    chunker = Chunker(markdown=False)
    pieces = list(chunker.feed(summary))
    if chunker.start < len(summary) or not pieces:
        pieces.append(Piece(chunker.start, len(summary), chunker.prefix))
    for n, piece in enumerate(pieces):
        row = _segment(message_id, "compaction_summary", -2 - slot, piece, summary, open_=False)
        rows.append(_with_state(_with_ends(row, n == 0, n == len(pieces) - 1), (compaction.id, summary)))
    return rows


def origin_row(message_id: str, conversation_id: str, title: str | None) -> Segment:
    """The row before the first message of a conversation started from a summary of another ("New chat from a
    summary"): `title` of that one, None when it is no longer stored."""
    return Segment(message_id, "origin", -1, state=(conversation_id, title))


def shown_chars(message: Message) -> int:
    """About how many characters a message shows (text; thinking and tool cards start collapsed)."""
    return sum(len(block.text) if isinstance(block, TextBlock) else 80 for block in message.blocks)


def stored_chars(role: str, size: int) -> int:
    """`shown_chars` guessed from the length of a message's stored blocks (JSON)."""
    return max(0, size - 40) if role == Role.USER.value else size // 2


class MessageSegmenter:
    """Segments one message, keeping a Chunker per long text so a streaming text is cut incrementally and
    its finished pieces stay the very same Segment objects from one update to the next."""

    def __init__(self) -> None:
        self._chunkers: dict[int, tuple[Chunker, list[Segment]]] = {}

    def segments(self, message: Message, expanded: frozenset[int] | set[int] = frozenset(),
                 switched_to: str | None = None) -> list[Segment]:
        """`switched_to`: the "Provider · model" a reply was written by when the reply before it was not
        (`switch_label`); a quiet "switch" row then comes first."""
        if message.role is Role.USER:
            return self._pieces(message.id, "user", 0, message.text, markdown=False, live=False, ends=True)
        rows: list[Segment] = [Segment(message.id, "switch", state=(switched_to,))] if switched_to else []
        notices = len(rows)
        finished = message.status.finished
        last = len(message.blocks) - 1
        for index, block in enumerate(message.blocks):
            live = not finished and index == last
            if isinstance(block, TextBlock):
                if block.text.strip():
                    pieces = self._pieces(message.id, "text", index, block.text, markdown=True, live=live)
                    if block.citations:  # the last piece shows them: it changes when they arrive
                        pieces[-1] = _with_state(pieces[-1], (len(block.citations),))
                    rows += pieces
            elif isinstance(block, ThinkingBlock):
                rows += self._thinking(message, index, block, index in expanded)
            elif isinstance(block, ToolCallBlock):
                rows.append(Segment(message.id, "tool", index, state=_tool_state(block, index in expanded, live)))
            elif isinstance(block, RedactedThinkingBlock):
                rows.append(Segment(message.id, "redacted", index))
            elif isinstance(block, RawBlock) and block.shown:
                rows.append(Segment(message.id, "raw", index))
        if not finished and len(rows) == notices:
            rows.append(Segment(message.id, "waiting"))
        if message.status in NOTICE_STATUSES or (
            message.status is MessageStatus.COMPLETED and message.stop_reason in NOTICE_STOP_REASONS
        ):
            rows.append(Segment(message.id, "notice", state=(message.status.value, message.stop_reason, message.error)))
        return rows

    def _thinking(self, message: Message, index: int, block: ThinkingBlock, expanded: bool) -> list[Segment]:
        live = block.ended_at is None and not message.status.finished
        preview = len(block.thinking) if live and not expanded else 0
        header = Segment(message.id, "thinking", index, state=(expanded, live, block.started_at, block.ended_at, preview))
        if not expanded or not block.thinking:
            return [header]
        return [header, *self._pieces(message.id, "thinking_body", index, block.thinking, markdown=False, live=live, ends=True)]

    def _pieces(self, message_id: str, kind: str, index: int, text: str, *, markdown: bool, live: bool,
                ends: bool = False) -> list[Segment]:
        chunker, closed = self._chunkers.get(index) or self._chunkers.setdefault(index, (Chunker(markdown), []))
        if chunker.markdown != markdown:
            chunker, closed = self._chunkers[index] = (Chunker(markdown), [])
        pieces = chunker.feed(text)
        for piece in pieces[len(closed) :]:
            closed.append(_segment(message_id, kind, index, piece, text, open_=False))
        rows = list(closed)
        if chunker.start < len(text) or not rows:
            rows.append(_segment(message_id, kind, index, Piece(chunker.start, len(text), chunker.prefix), text, open_=live))
        elif live:  # the text ends exactly at a cut: the last piece is still the growing one
            rows[-1] = _segment(message_id, kind, index, pieces[-1], text, open_=True)
        if ends and len(rows) > 1:
            rows = [_with_ends(row, n == 0, n == len(rows) - 1) for n, row in enumerate(rows)]
        return rows


def _segment(message_id: str, kind: str, index: int, piece: Piece, text: str, open_: bool) -> Segment:
    return Segment(message_id, kind, index, piece.start, piece.end, open_, piece.prefix, text.count("\n", piece.start, piece.end))


def _with_ends(row: Segment, head: bool, tail: bool) -> Segment:
    return Segment(row.message_id, row.kind, row.block, row.start, row.end, row.open, row.prefix, row.lines, row.state, head, tail)


def _with_state(row: Segment, state: tuple) -> Segment:
    return Segment(row.message_id, row.kind, row.block, row.start, row.end, row.open, row.prefix, row.lines, state, row.head, row.tail)


def _tool_state(block: ToolCallBlock, expanded: bool, live: bool) -> tuple:
    approval = block.approval
    decided = (approval.risk, approval.asked, approval.decision, approval.reason, len(approval.preview),
               approval.arguments is not None) if approval is not None else ()
    return (block.status.value, expanded, live, len(block.partial_arguments), bool(block.arguments),
            None if block.result is None else len(block.result), block.is_error, block.started_at, block.ended_at,
            block.source, decided, len(block.result_parts), len(block.output))


_DATED = re.compile(r"([-@:](\d{8}|\d{4}-\d{2}-\d{2}|latest))$")
"""A version suffix an API adds to the model asked for ("gpt-4.1-mini" answers as "gpt-4.1-mini-2025-04-14")."""


def _model_family(model: str | None) -> str:
    return _DATED.sub("", (model or "").strip().lower())


def switch_label(previous: Message, message: Message, label_of: Callable[[str], str]) -> str | None:
    """"DeepSeek · deepseek-chat" when reply `message` was written by another provider or model than the reply
    before it, `previous`; else None. A reply without a provider was Anthropic's; a model the API reported
    with a date or "latest" appended counts as the one asked for; an unknown model as the same."""
    provider, before = message.provider or "anthropic", previous.provider or "anthropic"
    model, model_before = _model_family(message.model), _model_family(previous.model)
    if provider == before and (model == model_before or not model or not model_before):
        return None
    return f"{label_of(provider)} · {message.model}" if message.model else label_of(provider)


@dataclass(frozen=True, slots=True)
class RowDiff:
    """How `new` rows replace `old` ones: rows [0, prefix) and the last `suffix` rows keep their identity
    (`changed` lists those that look different); in between, `replaced` rows change in place and the
    rest are inserted (`delta` > 0) or removed (`delta` < 0) after them."""

    prefix: int
    suffix: int
    replaced: int
    delta: int
    changed: tuple[int, ...]


def diff_rows(old: list[Segment], new: list[Segment]) -> RowDiff:
    """Compare by identity first (finished pieces are the same objects), so a long streaming reply costs
    a pointer comparison per row."""
    limit = min(len(old), len(new))
    prefix = 0
    while prefix < limit and (old[prefix] is new[prefix] or old[prefix].key == new[prefix].key):
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[-1 - suffix].key == new[-1 - suffix].key:
        suffix += 1
    middle_old, middle_new = len(old) - prefix - suffix, len(new) - prefix - suffix
    replaced = min(middle_old, middle_new)
    changed = [n for n in range(prefix) if old[n] is not new[n] and old[n] != new[n]]
    changed += [prefix + n for n in range(replaced)]
    tail_new = len(new) - suffix
    changed += [tail_new + n for n in range(suffix) if old[len(old) - suffix + n] != new[tail_new + n]]
    return RowDiff(prefix, suffix, replaced, middle_new - middle_old, tuple(changed))


def runs(numbers: list[int]):
    """Consecutive runs of sorted numbers as (first, last) pairs."""
    start = previous = None
    for number in numbers:
        if start is None:
            start = previous = number
        elif number == previous + 1:
            previous = number
        else:
            yield start, previous
            start = previous = number
    if start is not None:
        yield start, previous
