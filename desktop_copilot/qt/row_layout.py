"""Turns a Message into a stack of measured parts (one per block, plus notices) for the delegate."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPoint, QRect

from desktop_copilot.core.models import (
    Message,
    MessageStatus,
    RawBlock,
    RedactedThinkingBlock,
    Role,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
)
from desktop_copilot.qt.thinking_parts import RedactedThinking, ThinkingSection
from desktop_copilot.qt.tool_card import ToolCard
from desktop_copilot.qt.documents import anchor_at as documents_anchor_at
from desktop_copilot.qt.parts import PaintEnv, Part, PartPainter
from desktop_copilot.qt.text_parts import MarkdownText, Notice, RawNotice, UserBubble, WaitingDots

PAINTERS: dict[str, PartPainter] = {
    "user": UserBubble(),
    "text": MarkdownText(),
    "thinking": ThinkingSection(),
    "redacted": RedactedThinking(),
    "tool": ToolCard(),
    "raw": RawNotice(),
    "notice": Notice(),
    "waiting": WaitingDots(),
}
_BLOCK_KINDS = {
    TextBlock: "text",
    ThinkingBlock: "thinking",
    RedactedThinkingBlock: "redacted",
    ToolCallBlock: "tool",
    RawBlock: "raw",
}
_NOTICE_STATUSES = (MessageStatus.FAILED, MessageStatus.INTERRUPTED, MessageStatus.STOPPED)


def build_parts(message: Message, expanded: frozenset[int]) -> list[Part]:
    if message.role is Role.USER:
        return [Part("user", message, 0)]
    parts = []
    for index, block in enumerate(message.blocks):
        if isinstance(block, TextBlock) and not block.text.strip():
            continue
        parts.append(Part(_BLOCK_KINDS[type(block)], message, index, expanded=index in expanded))
    if not message.status.finished and not parts:
        parts.append(Part("waiting", message))
    if message.status in _NOTICE_STATUSES:
        parts.append(Part("notice", message))
    return parts


@dataclass(slots=True)
class RowLayout:
    parts: list[Part]
    height: int
    width: int

    def part_rect(self, part: Part, column: QRect) -> QRect:
        return QRect(column.left(), column.top() + part.top, column.width(), part.height)

    def toggle_at(self, pos: QPoint, column: QRect, env: PaintEnv) -> Part | None:
        """The part whose expand/collapse area contains `pos` (row coordinates), if any."""
        for part in self.parts:
            area = PAINTERS[part.kind].toggle_rect(part, self.part_rect(part, column), env)
            if area is not None and area.contains(pos):
                return part
        return None


def anchor_at(row: RowLayout, pos: QPoint, column: QRect) -> str:
    """The link under `pos` (row coordinates) in a Markdown part, or ""."""
    for part in row.parts:
        rect = row.part_rect(part, column)
        if part.kind == "text" and rect.contains(pos):
            return documents_anchor_at(part.documents, pos.x() - rect.left(), pos.y() - rect.top())
    return ""


def layout_row(message: Message, width: int, expanded: frozenset[int], env: PaintEnv) -> RowLayout:
    """Measure every part for a row `width` pixels wide (the column inside it is narrower)."""
    theme = env.theme
    column_width = env.column(QRect(0, 0, width, 0)).width()
    if message.status.finished:
        env.live.release(message.id)
    parts = build_parts(message, expanded)
    y = theme.row_spacing // 2
    for part in parts:
        part.top = y
        part.height = PAINTERS[part.kind].measure(part, env, column_width)
        y += part.height + theme.block_spacing
    if parts:
        y -= theme.block_spacing
    return RowLayout(parts, y + theme.row_spacing // 2, width)
