"""Turns a row's segment into its measured part with the spacing above it, or estimates its height unseen."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QFontMetrics

from desktop_copilot.core.conversation.models import Message, ToolCallStatus
from desktop_copilot.qt.transcript.parts.base import Hotspot, PaintEnv, Part, PartPainter
from desktop_copilot.core.transcript.segments import HIDDEN, NEW_BLOCK, NEW_MESSAGE, Segment
from desktop_copilot.qt.transcript.parts.compaction import INDENT as SUMMARY_INDENT
from desktop_copilot.qt.transcript.parts.compaction import CompactionMarker, CompactionSummary, HiddenRow, OriginNotice
from desktop_copilot.qt.transcript.parts.text import (
    BUBBLE_MAX,
    BUBBLE_PAD_X,
    BUBBLE_PAD_Y,
    MarkdownText,
    Notice,
    PendingRow,
    RawNotice,
    SwitchNotice,
    UserBubble,
    WaitingDots,
)
from desktop_copilot.qt.common.theme import Theme
from desktop_copilot.qt.transcript.parts.thinking import INDENT, RedactedThinking, ThinkingBody, ThinkingSection
from desktop_copilot.qt.transcript.parts.tool_card import ToolCard

PAINTERS: dict[str, PartPainter] = {
    "user": UserBubble(),
    "text": MarkdownText(),
    "thinking": ThinkingSection(),
    "thinking_body": ThinkingBody(),
    "redacted": RedactedThinking(),
    "tool": ToolCard(),
    "raw": RawNotice(),
    "notice": Notice(),
    "switch": SwitchNotice(),
    "waiting": WaitingDots(),
    "pending": PendingRow(),
    "compaction": CompactionMarker(),
    "compaction_summary": CompactionSummary(),
    "origin": OriginNotice(),
    "hidden": HiddenRow(),
}


@dataclass(slots=True)
class RowLayout:
    parts: list[Part]
    height: int
    width: int

    @property
    def pending(self) -> bool:
        """A part's documents are not final yet (see Part.pending): to be laid out again shortly."""
        return any(part.pending for part in self.parts)

    def part_rect(self, part: Part, column: QRect) -> QRect:
        return QRect(column.left(), column.top() + part.top, column.width(), part.height)

    def toggle_at(self, pos: QPoint, column: QRect, env: PaintEnv) -> Part | None:
        """The part whose expand/collapse area contains `pos` (row coordinates), if any."""
        for part in self.parts:
            area = PAINTERS[part.kind].toggle_rect(part, self.part_rect(part, column), env)
            if area is not None and area.contains(pos):
                return part
        return None

    def hotspot_at(self, pos: QPoint, column: QRect) -> tuple[Part, Hotspot] | None:
        """The part and the button (or other hotspot) under `pos` (row coordinates), if any."""
        for part in self.parts:
            at = pos - self.part_rect(part, column).topLeft()
            for hotspot in part.hotspots:
                if hotspot.rect.contains(at):
                    return part, hotspot
        return None


def spacing_above(placement: int, theme: Theme) -> int:
    """A row starting a message gets the row spacing, a new block the block spacing, a continued block none."""
    return theme.row_spacing if placement == NEW_MESSAGE else theme.block_spacing if placement == NEW_BLOCK else 0


def is_expanded(segment: Segment) -> bool:
    if segment.kind == "thinking":
        return bool(segment.state[0])
    return segment.kind == "tool" and (bool(segment.state[1]) or segment.state[0] == ToolCallStatus.AWAITING_APPROVAL.value)


def layout_segment(segment: Segment, message: Message | None, placement: int, width: int, env: PaintEnv) -> RowLayout:
    """Measure the row's part for a row `width` pixels wide (the column inside it is narrower). A row hidden under a
    collapsed compaction marker is a "hidden" part of no height."""
    if placement == HIDDEN:
        return RowLayout([Part("hidden", message, segment.block, segment=segment)], 0, width)
    column_width = env.column(QRect(0, 0, width, 0)).width()
    part = Part(segment.kind, message, segment.block, expanded=is_expanded(segment), segment=segment)
    part.top = spacing_above(placement, env.theme)
    if message is None or segment.kind == "pending":
        part.kind, part.height = "pending", estimate_height(segment, placement, column_width, env.theme) - part.top
    else:
        part.height = PAINTERS[segment.kind].measure(part, env, column_width)
    return RowLayout([part], part.top + part.height, width)


_METRICS: dict[int, tuple[float, float, int]] = {}


def _text_metrics(theme: Theme) -> tuple[float, float, int]:
    """(average character width, line height, one-line row height) of body text (by theme identity: hashing
    a Theme costs more than the estimate it serves, and there are ten thousand estimates to a long chat)."""
    found = _METRICS.get(id(theme))
    if found is None:
        metrics = QFontMetrics(theme.font("body"))
        found = _METRICS[id(theme)] = (max(4.0, metrics.averageCharWidth() * 1.1), metrics.height() * 1.3, metrics.height() + 12)
    return found


def _text_height(chars: float, lines: float, width: float, theme: Theme) -> int:
    char_width, line_height, _ = _text_metrics(theme)
    per_line = max(8.0, width / char_width)
    return int((chars / per_line + lines * 0.6 + 1) * line_height)


def estimate_height(segment: Segment, placement: int, column: int, theme: Theme) -> int:
    """A guess at the height of a row whose reading column is `column` wide, from the segment alone (no
    message body, no documents): rows off screen are laid out with these until shown and measured."""
    if placement == HIDDEN:
        return 0
    pad = spacing_above(placement, theme)
    kind, chars = segment.kind, segment.end - segment.start
    if kind == "pending":
        role, chars = segment.state
        return pad + min(3000, max(40, _text_height(chars, chars / 60, column * (BUBBLE_MAX if role == "user" else 1), theme)))
    if kind == "user":
        return pad + _text_height(chars, segment.lines, column * BUBBLE_MAX - 2 * BUBBLE_PAD_X, theme) + 2 * BUBBLE_PAD_Y
    if kind == "text":
        return pad + _text_height(chars, segment.lines, column, theme)
    if kind == "thinking_body":
        return pad + _text_height(chars, segment.lines, column - INDENT, theme)
    if kind == "compaction_summary":
        return pad + _text_height(chars, segment.lines, column - SUMMARY_INDENT, theme) + 12
    if kind == "tool":
        return pad + (260 if is_expanded(segment) else 64)
    return pad + _text_metrics(theme)[2]
