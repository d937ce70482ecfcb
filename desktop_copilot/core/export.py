"""Export conversations to Markdown (for reading) and versioned JSON (for moving), and import JSON."""

from __future__ import annotations

import json
import time
from typing import Any

from pydantic import ValidationError

from desktop_copilot.core.citations import cited_sources
from desktop_copilot.core.models import (
    Conversation,
    DocumentBlock,
    ImageBlock,
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


def to_markdown(conversation: Conversation) -> str:
    """Readable Markdown: thinking in a collapsible section, tool calls with arguments and results."""
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(conversation.created_at))
    out = [f"# {conversation.title or 'Untitled conversation'}", "", f"*{when} · {conversation.model or ''}*", ""]
    for message in conversation.messages:
        out.append("## You" if message.role is Role.USER else "## Claude")
        out.append("")
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
    return "\n".join(out).rstrip() + "\n"


def to_json(conversations: list[Conversation]) -> str:
    """The full stored structure, versioned, for `import_json`."""
    document: dict[str, Any] = {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "exported_at": time.time(),
        "conversations": [c.model_dump(mode="json") for c in conversations],
    }
    return json.dumps(document, ensure_ascii=False, indent=1)


def export_all(store: Store) -> str:
    conversations = [store.load_conversation(c.id) for c in store.list_conversations()]
    return to_json([c for c in conversations if c is not None])


def parse_json(text: str) -> list[Conversation]:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ExportFormatError(f"The file is not JSON ({exc}). Choose a file made by Export → JSON.") from None
    if not isinstance(document, dict) or document.get("format") != EXPORT_FORMAT:
        raise ExportFormatError("This is not a Desktop Copilot export. Choose a file made by Export → JSON.")
    if document.get("version", 0) > EXPORT_VERSION:
        raise ExportFormatError("The export was made by a newer Desktop Copilot; update the app to import it.")
    try:
        return [Conversation.model_validate(c) for c in document.get("conversations", [])]
    except ValidationError as exc:
        raise ExportFormatError(f"The export is damaged: {exc.error_count()} problems, first: {exc.errors()[0]['msg']}.") from None


def import_json(store: Store, text: str) -> tuple[int, int]:
    """Store the conversations of an export; returns (imported, skipped because already present)."""
    imported = skipped = 0
    for conversation in parse_json(text):
        if store.load_conversation(conversation.id) is not None:
            skipped += 1
            continue
        updated_at = conversation.updated_at
        store.save_conversation(conversation)
        for seq, message in enumerate(conversation.messages):
            store.save_message(conversation.id, seq, message)
        store.touch_conversation(conversation.id, updated_at)
        imported += 1
    return imported, skipped
