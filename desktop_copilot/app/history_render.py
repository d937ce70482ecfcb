"""What `desktop-copilot history` prints for people: the conversation table, a conversation's messages with every part
and status, and search hits (the JSON forms are the export's, see history_cli.py)."""

from __future__ import annotations

import itertools
import json
import time
import unicodedata
from dataclasses import dataclass

from desktop_copilot.core.content.citations import cited_sources
from desktop_copilot.core.conversation.history import compacted_ranges
from desktop_copilot.core.conversation.models import (
    Compaction,
    Conversation,
    DocumentBlock,
    ImageBlock,
    Message,
    MessageStatus,
    RawBlock,
    RedactedThinkingBlock,
    Role,
    TextBlock,
    TextFileBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolCallStatus,
)
from desktop_copilot.core.providers.attachment_limits import human_size
from desktop_copilot.core.storage.search import MARK_END, MARK_START

SHORT_ID = len("conv_") + 8
"""The fewest characters of an id the table shows (more when needed to tell two ids apart)."""
TITLE_COLUMNS = 60
EXCERPT_CHARS = 300
"""Characters of a tool's arguments or result, a compaction's summary or a raw block shown before "…"."""
UNTITLED = "Untitled conversation"


@dataclass(frozen=True, slots=True)
class Row:
    """One conversation as `history list` shows it."""

    conversation: Conversation
    messages: int
    last_status: str | None
    """The status of its newest message (None: it has none)."""

    def to_json(self) -> dict:
        c = self.conversation
        return {"id": c.id, "title": c.title, "provider": c.provider, "model": c.model, "messages": self.messages,
                "last_status": self.last_status, "created_at": c.created_at, "updated_at": c.updated_at}


def when(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))


def width(text: str) -> int:
    """Columns `text` takes on a terminal (CJK and other wide characters take two)."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def fit(text: str, columns: int) -> str:
    """`text` cut with "…" to at most `columns` terminal columns."""
    if width(text) <= columns:
        return text
    kept, used = [], 1
    for char in text:
        used += width(char)
        if used > columns:
            break
        kept.append(char)
    return "".join(kept) + "…"


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """`text` on one line (runs of whitespace made one space), cut after `limit` characters saying how many more."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else f"{flat[:limit]}… ({len(flat) - limit:,} more characters)"


def short_ids(ids: list[str]) -> dict[str, str]:
    """Each id cut to one length, at least SHORT_ID, at which no two of `ids` look the same (git's abbreviation)."""
    ordered = sorted(set(ids))
    needed = SHORT_ID
    for a, b in itertools.pairwise(ordered):
        common = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        needed = max(needed, common + 1)
    return {i: i[:needed] for i in ids}


def title_of(conversation: Conversation) -> str:
    return conversation.title.strip() or UNTITLED


def model_of(conversation: Conversation) -> str:
    return f"{conversation.provider or 'anthropic'} · {conversation.model or 'default model'}"


def conversation_table(rows: list[Row], ids: dict[str, str]) -> str:
    """ID, updated, message count, provider · model and title (last, so wide characters need no padding); a reply
    that did not complete is named after the title."""
    head = ("ID", "UPDATED", "MSGS", "PROVIDER · MODEL", "TITLE")
    cells = [(ids[r.conversation.id], when(r.conversation.updated_at), str(r.messages), model_of(r.conversation),
              _titled(r)) for r in rows]
    widths = [max(width(row[i]) for row in [head, *cells]) for i in range(4)]

    def line(row: tuple[str, ...]) -> str:
        padded = [cell + " " * (w - width(cell)) if i != 2 else " " * (w - width(cell)) + cell
                  for i, (cell, w) in enumerate(zip(row, widths))]
        return "  ".join([*padded, row[4]]).rstrip()

    return "\n".join(line(row) for row in [head, *cells])


def _titled(row: Row) -> str:
    title = fit(title_of(row.conversation), TITLE_COLUMNS)
    unfinished = row.last_status not in (None, MessageStatus.COMPLETED.value, MessageStatus.CREATED.value)
    return f"{title}  [{row.last_status}]" if unfinished else title


def conversation_text(conversation: Conversation) -> str:
    """The header, then every message: who, when, model and status, then its parts in order; compaction markers
    around the messages a compaction stands for."""
    messages = conversation.messages
    count = f"{len(messages)} message{'s' * (len(messages) != 1)}"
    out = [title_of(conversation),
           f"{conversation.id}  ·  {model_of(conversation)}  ·  {count}  ·  updated {when(conversation.updated_at)}"]
    if conversation.system:
        out.append(f"system: {excerpt(conversation.system)}")
    ranges = compacted_ranges(messages, conversation.compactions)
    starts = {first: compaction for first, _, compaction in ranges}
    ends = {last: compaction for _, last, compaction in ranges}
    for index, message in enumerate(messages):
        if index in starts:
            out += ["", *_compaction_start(starts[index])]
        out += ["", _message_head(message), *_message_body(message)]
        if index in ends:
            out += ["", f"── end of the {ends[index].messages} compacted messages ──"]
    if not messages:
        out += ["", "(no messages)"]
    return "\n".join(out) + "\n"


def _compaction_start(compaction: Compaction) -> list[str]:
    tokens = f"{compaction.tokens_before:,} → {compaction.tokens_after:,} tokens"
    if compaction.kind == "dropped":
        return [f"── compacted {compaction.messages} messages ({tokens}): left out of requests, no summary could be made ──"]
    return [f"── compacted {compaction.messages} messages ({tokens}): requests send this summary in their place ──",
            *_marked("summary", compaction.summary)]


def _message_head(message: Message) -> str:
    who = "You" if message.role is Role.USER else "Assistant"
    parts = [who, when(message.created_at)]
    if message.role is Role.ASSISTANT:
        parts += [p for p in (message.model, message.status.value) if p]
    elif message.status is not MessageStatus.COMPLETED:
        parts.append(message.status.value)
    return f"── {' · '.join(parts)} ──"


def _message_body(message: Message) -> list[str]:
    out: list[str] = []
    for block in message.blocks:
        match block:
            case TextBlock(text=text, citations=citations):
                if text:
                    out.append(text)
                out += [f"  [{s.number}] {s.title}" + (f" — {s.url}" if s.url else "") for s in cited_sources(citations)]
            case ThinkingBlock(thinking=thinking):
                out += _marked("thinking", thinking)
            case RedactedThinkingBlock():
                out.append("[thinking, redacted by the provider]")
            case ToolCallBlock():
                out += _tool_call(block)
            case ImageBlock() | DocumentBlock() | TextFileBlock():
                out.append(attachment_line(block))
            case RawBlock(data=data) if block.shown:
                out.append(f"[{data.get('type', 'block')}] {excerpt(json.dumps(data, ensure_ascii=False))}")
    if message.stop_reason == "max_tokens":
        out.append("[cut off at the output limit]")
    if message.error and message.status is not MessageStatus.COMPLETED:
        out.append(f"[{message.status.value}] {message.error}")
    return out


def _marked(kind: str, text: str) -> list[str]:
    return [f"[{kind}]", *(f"│ {line}".rstrip() for line in text.splitlines())]


def _tool_call(call: ToolCallBlock) -> list[str]:
    status = "error" if call.is_error and call.status is not ToolCallStatus.CANCELLED else call.status.value
    if call.started_at and call.ended_at:
        status += f", {call.ended_at - call.started_at:.1f} s"
    arguments = json.dumps(call.arguments, ensure_ascii=False) if call.arguments else call.partial_arguments or "{}"
    out = [f"[tool call] {call.name} ({status})", f"  arguments: {excerpt(arguments)}"]
    if call.approval is not None and call.approval.decision:
        reason = f": {call.approval.reason}" if call.approval.reason else ""
        out.append(f"  approval: {call.approval.decision}{reason}")
    if call.result is not None:
        out.append(f"  result: {excerpt(call.result)}")
    return out


def attachment_line(block: ImageBlock | DocumentBlock | TextFileBlock) -> str:
    details = [block.media_type if not isinstance(block, TextFileBlock) else "text", human_size(block.size)]
    if isinstance(block, ImageBlock) and block.width and block.height:
        details.append(f"{block.width}x{block.height}")
    if isinstance(block, DocumentBlock) and block.pages:
        details.append(f"{block.pages} page{'s' * (block.pages != 1)}")
    return f"[attachment] {block.name or 'unnamed'} ({', '.join(details)})"


def plain_snippet(snippet: str) -> tuple[str, list[list[int]]]:
    """A search snippet without its highlight marks, and where the matches are in it ([start, end) offsets)."""
    text, spans, start = [], [], None
    for char in snippet:
        if char == MARK_START:
            start = len(text)
        elif char == MARK_END and start is not None:
            spans.append([start, len(text)])
            start = None
        elif char not in (MARK_START, MARK_END):
            text.append(char)
    return "".join(text), spans


def highlighted(snippet: str, *, ansi: bool) -> str:
    """The snippet on one line with its matches in bold (a terminal) or between ** (anywhere else)."""
    on, off = ("\x1b[1m", "\x1b[0m") if ansi else ("**", "**")
    return " ".join(snippet.split()).replace(MARK_START, on).replace(MARK_END, off)


def search_results(hits, roles: dict[str, str], ids: dict[str, str], *, ansi: bool) -> str:
    """Hits grouped by conversation, best first: the conversation's id and title, then a line per match (the title's
    or a message's, with who wrote it) with its snippet."""
    groups: dict[str, list] = {}
    for hit in hits:
        groups.setdefault(hit.conversation_id, []).append(hit)
    out: list[str] = []
    for conversation_id, found in groups.items():
        out.append(f"{ids.get(conversation_id, conversation_id)}  {fit(found[0].title.strip() or UNTITLED, TITLE_COLUMNS)}")
        for hit in found:
            who = "title" if not hit.message_id else {"user": "you"}.get(roles.get(hit.message_id, ""), roles.get(hit.message_id, "message"))
            out.append(f"  {who + ':':<11}{highlighted(hit.snippet, ansi=ansi)}")
    return "\n".join(out)
