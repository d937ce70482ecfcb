"""What the transcript's Copy commands put on the clipboard: a message as Markdown or as plain text, a tool
call's arguments or result, a selection with its HTML. Everything goes through QClipboard; nothing is opened."""

from __future__ import annotations

import json

from PySide6.QtCore import QMimeData
from PySide6.QtGui import QGuiApplication

from desktop_copilot.core.conversation.models import Message, Role, TextBlock, ToolCallBlock
from desktop_copilot.qt.common.theme import DEFAULT_THEME, Theme
from desktop_copilot.qt.transcript.parts.approval import arguments_to_run
from desktop_copilot.qt.transcript.parts.documents import markdown_document
from desktop_copilot.qt.transcript.parts.text_ranges import plain_text

MARKDOWN_MIME = "text/markdown"


def message_markdown(message: Message) -> str:
    """The message's text as written (Markdown), its text blocks a blank line apart; thinking and tool calls left out."""
    texts = [block.text.strip("\n") for block in message.blocks if isinstance(block, TextBlock) and block.text.strip()]
    return "\n\n".join(texts)


def message_plain_text(message: Message, theme: Theme = DEFAULT_THEME) -> str:
    """The message as the reader sees it, without Markdown: a user's text as typed, a reply's text rendered."""
    if message.role is Role.USER:
        return message_markdown(message)
    texts = [plain_text(markdown_document(block.text, 10_000, theme)).strip("\n")
             for block in message.blocks if isinstance(block, TextBlock) and block.text.strip()]
    return "\n\n".join(text for text in texts if text)


def tool_arguments(block: ToolCallBlock) -> str:
    """The arguments the call runs with (as approved or changed by a hook), as indented JSON; while they stream, as received."""
    to_run = arguments_to_run(block)
    return json.dumps(to_run, ensure_ascii=False, indent=2) if to_run else block.partial_arguments


def put_on_clipboard(text: str, html: str = "", markdown: str = "") -> None:
    """`text` as plain text, with an HTML and a Markdown form for the applications that take them."""
    data = QMimeData()
    data.setText(text)
    if html:
        data.setHtml(html)
    if markdown:
        data.setData(MARKDOWN_MIME, markdown.encode("utf-8"))
    QGuiApplication.clipboard().setMimeData(data)
