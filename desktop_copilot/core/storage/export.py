"""Export conversations to Markdown (for reading) and versioned JSON (for moving), and import JSON."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

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
)
from desktop_copilot.core.providers.attachment_limits import Attachment, human_size
from desktop_copilot.core.storage.store import Store
from desktop_copilot.core.words import tr

if TYPE_CHECKING:
    from desktop_copilot.core.storage.versions import ArchivedTail

EXPORT_FORMAT = "desktop-copilot/conversations"
EXPORT_VERSION = 1


class ExportFormatError(ValueError):
    """The file is not a Desktop Copilot export this version can read; the message says why."""


def _fence(text: str, lang: str = "") -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}{lang}\n{text}\n{fence}"


def _details(summary: str, body: str) -> str:
    return f"<details>\n<summary>{summary}</summary>\n\n{body}\n\n</details>"


_MARKDOWN_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]<>()#|!~&"})


def _sources(citations: list[dict[str, Any]]) -> str:
    """A numbered "Sources" list; only http(s)/mailto targets become links, any other stays escaped text."""
    lines = ["**Sources**", ""]
    for source in cited_sources(citations):
        title = source.title.translate(_MARKDOWN_SPECIAL)
        if source.openable:
            target = "".join(f"%{ord(c):02X}" if c in "()<> " else c for c in source.url)
            entry = f"[{title}]({target}) — {source.host}"
        elif source.url:
            entry = f"{title} — {source.url.translate(_MARKDOWN_SPECIAL)}"
        else:
            entry = title + (f" — {source.detail.translate(_MARKDOWN_SPECIAL)}" if source.detail else "")
        lines.append(f"{source.number}. {entry}")
    return "\n".join(lines)


def attachment_line(block: Attachment) -> str:
    """"📎 name (size)": an attachment in the Markdown export (the JSON export keeps the blocks whole)."""
    return f"📎 {(block.name or 'attachment').translate(_MARKDOWN_SPECIAL)} ({human_size(block.size)})"


def compaction_marker(compaction: Compaction) -> list[str]:
    """The lines before a compaction's messages (which follow whole): what requests send in their place."""
    if compaction.kind == "dropped":
        return [f"*— Compacted {compaction.messages} messages —* (left out of requests: no summary could be made)", ""]
    return [f"*— Compacted {compaction.messages} messages —* ({compaction.tokens_before} → {compaction.tokens_after} tokens)",
            "", _details("Summary sent in their place", compaction.summary), ""]


def to_markdown(conversation: Conversation, versions: Sequence[ArchivedTail] = ()) -> str:
    """Readable Markdown: thinking in a collapsible section, tool calls with arguments and results, a marker where
    compacted messages begin; then the earlier `versions` of its replies (e.g. the other models' answers)."""
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(conversation.created_at))
    out = [f"# {conversation.title or 'Untitled conversation'}", "", f"*{when} · {conversation.model or ''}*", ""]
    compacted = {first: compaction for first, _, compaction in compacted_ranges(conversation.messages, conversation.compactions)}
    for index, message in enumerate(conversation.messages):
        if index in compacted:
            out += compaction_marker(compacted[index])
        out += _message_lines(message)
    if versions:
        out += ["---", "", "# Other versions", ""]
        for tail in versions:
            models = ", ".join(dict.fromkeys(f"{m.provider or 'anthropic'}/{m.model}" for m in tail.messages if m.model))
            out += [f"### From message {tail.anchor + 1}" + (f" · {models}" if models else ""), ""]
            for message in tail.messages:
                out += _message_lines(message, level="####")
    return "\n".join(out).rstrip() + "\n"


def _message_lines(message: Message, level: str = "##") -> list[str]:
    out = [f"{level} You" if message.role is Role.USER else f"{level} Claude", ""]
    for block in message.blocks:
        match block:
            case TextBlock(text=text, citations=citations) if text:
                out.append(text)
                if citations:
                    out += ["", _sources(citations)]
            case ThinkingBlock(thinking=thinking):
                out.append(_details("Thinking", thinking))
            case RedactedThinkingBlock():
                out.append("*Thinking (redacted by the provider)*")
            case ToolCallBlock():
                status = "error" if block.is_error else block.status.value
                body = "**Arguments**\n\n" + _fence(json.dumps(block.arguments, ensure_ascii=False, indent=2), "json")
                if block.result is not None:
                    body += "\n\n**Result**\n\n" + _fence(block.result)
                out.append(_details(f"Tool call: <code>{block.name}</code> ({status})", body))
            case TextFileBlock(text=text):
                out += [attachment_line(block), "", _details("Contents", _fence(text))]
            case ImageBlock() | DocumentBlock():
                out.append(attachment_line(block))
            case RawBlock(data=data) if block.shown:
                out.append(_details(f"{data.get('type', 'block')}", _fence(json.dumps(data, ensure_ascii=False, indent=2), "json")))
        out.append("")
    if message.status not in (MessageStatus.COMPLETED, MessageStatus.CREATED):
        out += [f"> *Reply {message.status.value}: {message.error or ''}*", ""]
    return out


def to_json(conversations: list[Conversation], versions: Mapping[str, Sequence[ArchivedTail]] | None = None) -> str:
    """The full stored structure, versioned, for `import_json`; with `versions` (conversation id -> its earlier
    versions), each conversation's under "versions" (anchor, created_at, messages)."""
    dumped = []
    for conversation in conversations:
        entry = conversation.model_dump(mode="json")
        if versions and versions.get(conversation.id):
            entry["versions"] = [{"anchor": t.anchor, "created_at": t.created_at,
                                  "messages": [m.model_dump(mode="json") for m in t.messages]} for t in versions[conversation.id]]
        dumped.append(entry)
    document: dict[str, Any] = {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "exported_at": time.time(),
        "conversations": dumped,
    }
    return json.dumps(document, ensure_ascii=False, indent=1)


def stored_versions(store: Store, conversation_id: str) -> list[ArchivedTail]:
    """The earlier versions of a stored conversation's replies, oldest first."""
    from desktop_copilot.core.storage.versions import TailArchive

    return TailArchive(store).tails(conversation_id)


def export_all(store: Store) -> str:
    conversations = [c for c in (store.load_conversation(c.id) for c in store.list_conversations()) if c is not None]
    return to_json(conversations, {c.id: stored_versions(store, c.id) for c in conversations})


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def _no_constant(name: str) -> float:
    raise ValueError(name)


def parse_json(text: str) -> list[Conversation]:
    """The conversations of an export, checked so that importing them can neither fail half-way nor store what the
    app cannot read back; ExportFormatError saying why otherwise."""
    try:
        document = json.loads(text, parse_float=_finite, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise ExportFormatError(tr("The file is not JSON ({error}). Choose a file made by Export → JSON.").format(error=exc)) from None
    except ValueError as exc:  # NaN, Infinity or a number too large: not JSON, and not storable
        raise ExportFormatError(tr("The export is damaged: it holds the number {number}, which JSON does not allow.").format(
            number=exc)) from None
    except RecursionError:
        raise ExportFormatError(tr("The file is nested too deeply to be an export. Choose a file made by Export → JSON.")) from None
    if not isinstance(document, dict) or document.get("format") != EXPORT_FORMAT:
        raise ExportFormatError(tr("This is not a Desktop Copilot export. Choose a file made by Export → JSON."))
    version = document.get("version", 0)
    if type(version) is not int:
        raise ExportFormatError(tr("The export is damaged: its version is not a whole number."))
    if version > EXPORT_VERSION:
        raise ExportFormatError(tr("The export was made by a newer Desktop Copilot; update the app to import it."))
    listed = document.get("conversations", [])
    if not isinstance(listed, list):
        raise ExportFormatError(tr('The export is damaged: its "conversations" is not a list.'))
    try:
        conversations = [Conversation.model_validate(_without_versions(c)) for c in listed]
    except ValidationError as exc:
        raise ExportFormatError(tr("The export is damaged: {count} problems, first: {first}.").format(
            count=exc.error_count(), first=exc.errors()[0]["msg"])) from None
    _check_storable(conversations)
    return conversations


def _without_versions(entry: Any) -> Any:
    """A conversation of an export without its earlier versions (kept by the export, not imported yet)."""
    return {k: v for k, v in entry.items() if k != "versions"} if isinstance(entry, dict) else entry


def _check_storable(conversations: list[Conversation]) -> None:
    """Refuses what the store would fail on, or mix up, part-way through an import."""
    owner: dict[str, str] = {}
    for conversation in conversations:
        try:
            conversation.model_dump_json()
        except ValueError:  # a lone surrogate from a "\ud800" escape: SQLite's UTF-8 cannot hold it
            raise ExportFormatError(tr("The export is damaged: it holds an escaped character that is not Unicode text.")) from None
        for message in conversation.messages:
            if owner.setdefault(message.id, conversation.id) != conversation.id or \
                    sum(m.id == message.id for m in conversation.messages) > 1:
                raise ExportFormatError(tr("The export is damaged: the message {id} appears twice.").format(id=repr(message.id[:80])))


def import_json(store: Store, text: str) -> tuple[int, int]:
    """Store the conversations of an export; returns (imported, skipped because already present). Nothing is stored
    when the file is refused (ExportFormatError), or when one of its messages is already stored in another
    conversation (its id would take that message over)."""
    new, skipped = [], 0
    for conversation in parse_json(text):
        if any(c.id == conversation.id for c in new) or store.load_conversation(conversation.id) is not None:
            skipped += 1
        else:
            new.append(conversation)
    ids = [message.id for conversation in new for message in conversation.messages]
    if taken := store.load_messages(ids):
        raise ExportFormatError(tr("The export cannot be imported: its message {id} is already stored in another "
                                   "conversation.").format(id=repr(taken[0].id[:80])))
    for conversation in new:
        updated_at = conversation.updated_at
        store.save_conversation(conversation)
        for seq, message in enumerate(conversation.messages):
            store.save_message(conversation.id, seq, message)
        for seq, compaction in enumerate(conversation.compactions):
            store.save_compaction(conversation.id, seq, compaction)
        store.touch_conversation(conversation.id, updated_at)
    return len(new), skipped
