"""Painters for the collapsible parts of a reply: thinking (live timer), redacted thinking and tool cards."""

from __future__ import annotations

import json

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPen, QTextDocument

from desktop_copilot.core.models import ThinkingBlock, ToolCallBlock
from desktop_copilot.qt.documents import LivePlainText, documents_height, draw_documents, plain_document
from desktop_copilot.qt.paint_helpers import badge_size, draw_badge, draw_chevron, fill_rounded, format_seconds
from desktop_copilot.qt.parts import PaintEnv, Part, PartPainter
from desktop_copilot.qt.theme import TOOL_BADGES

RESULT_CHARS = 6000
"""An expanded tool result shows at most this many characters."""


def thinking_label(block: ThinkingBlock, now: float) -> str:
    started = block.started_at or now
    if block.ended_at is None:
        return f"Thinking… {format_seconds(now - started)}"
    return f"Thought for {format_seconds(block.ended_at - started)}"


class ThinkingSection(PartPainter):
    INDENT = 18
    GAP = 6

    def _header_height(self, env: PaintEnv) -> int:
        return QFontMetrics(env.theme.font("body")).height() + 8

    def measure(self, part: Part, env: PaintEnv, width: int) -> int:
        header = self._header_height(env)
        if not part.expanded:
            part.documents = []
            return header
        block, inner = part.block, width - self.INDENT
        font = env.theme.font("body")
        if block.ended_at is None and not part.message.status.finished:
            part.documents = env.live.get(part.message.id, part.index, lambda: LivePlainText(env.theme, font)).update(block.thinking, inner)
        else:
            key = ("thinking", part.message.id, part.index, len(block.thinking), inner)
            part.documents = [env.cached(key, lambda: plain_document(block.thinking, inner, env.theme, font))]
        return header + self.GAP + documents_height(part.documents) + 4

    def paint(self, painter: QPainter, part: Part, rect: QRect, env: PaintEnv) -> None:
        theme, header = env.theme, self._header_height(env)
        color = theme.color("muted")
        draw_chevron(painter, rect.left() + 5, rect.top() + header / 2, part.expanded, color)
        painter.setFont(theme.font("body"))
        painter.setPen(color)
        label_rect = QRect(rect.left() + self.INDENT, rect.top(), rect.width() - self.INDENT, header)
        painter.drawText(label_rect, int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft), thinking_label(part.block, env.clock()))
        if part.expanded:
            top = rect.top() + header + self.GAP
            painter.setPen(QPen(theme.color("border"), 2))
            painter.drawLine(rect.left() + 5, top, rect.left() + 5, rect.bottom() - 2)
            draw_documents(painter, part.documents, rect.left() + self.INDENT, top, color)

    def toggle_rect(self, part: Part, rect: QRect, env: PaintEnv) -> QRect | None:
        metrics = QFontMetrics(env.theme.font("body"))
        width = self.INDENT + metrics.horizontalAdvance(thinking_label(part.block, env.clock())) + 40
        return QRect(rect.left(), rect.top(), min(width, rect.width()), self._header_height(env))


class RedactedThinking(PartPainter):
    LABEL = "Thinking redacted by the provider (kept encrypted for replay)"

    def measure(self, part: Part, env: PaintEnv, width: int) -> int:
        return QFontMetrics(env.theme.font("body")).height() + 8

    def paint(self, painter: QPainter, part: Part, rect: QRect, env: PaintEnv) -> None:
        font = QFont(env.theme.font("body"))
        font.setItalic(True)
        painter.setFont(font)
        painter.setPen(env.theme.color("muted"))
        painter.drawText(rect.adjusted(ThinkingSection.INDENT, 0, 0, 0), int(Qt.AlignmentFlag.AlignVCenter), self.LABEL)


def tool_elapsed(block: ToolCallBlock, now: float) -> str:
    if block.started_at is None:
        return ""
    return format_seconds((block.ended_at or now) - block.started_at, precise=True)


def arguments_summary(block: ToolCallBlock) -> str:
    if block.arguments:
        return json.dumps(block.arguments, ensure_ascii=False)
    return " ".join(block.partial_arguments.split()) or "{}"


class ToolCard(PartPainter):
    PAD = 12
    GAP = 8
    INDENT = 18

    def _rows(self, env: PaintEnv) -> tuple[int, int]:
        header = max(QFontMetrics(env.theme.font("label")).height(), badge_size(TOOL_BADGES[next(iter(TOOL_BADGES))], env.theme.font("small_bold"))[1])
        return header, QFontMetrics(env.theme.font("mono")).height()

    def measure(self, part: Part, env: PaintEnv, width: int) -> int:
        header, line = self._rows(env)
        height = 2 * self.PAD + header + 4 + line
        part.documents = []
        if part.expanded:
            part.documents = self._details(part, env, width - 2 * self.PAD)
            height += self.GAP + documents_height(part.documents) + 4
        return height

    @staticmethod
    def _details(part: Part, env: PaintEnv, width: int) -> list[QTextDocument]:
        """The expanded body: pretty arguments, then the result (capped at RESULT_CHARS)."""
        block, theme, font = part.block, env.theme, env.theme.font("mono")
        arguments = json.dumps(block.arguments, ensure_ascii=False, indent=2) if block.arguments else block.partial_arguments or "{}"
        texts = ["Arguments\n" + arguments]
        if block.result is not None:
            result = block.result if len(block.result) <= RESULT_CHARS else block.result[:RESULT_CHARS] + "\n… (truncated)"
            texts.append("\nResult\n" + result)
        return [
            env.cached(("tool", part.message.id, part.index, n, len(text), width), lambda text=text: plain_document(text, width, theme, font))
            for n, text in enumerate(texts)
        ]

    def paint(self, painter: QPainter, part: Part, rect: QRect, env: PaintEnv) -> None:
        theme, block = env.theme, part.block
        header, line = self._rows(env)
        fill_rounded(painter, rect, 10, theme.color("card"), theme.color("border"))
        inner = rect.adjusted(self.PAD, self.PAD, -self.PAD, -self.PAD)
        center_y = inner.top() + header // 2
        draw_chevron(painter, inner.left() + 5, center_y, part.expanded, theme.color("muted"))
        badge = TOOL_BADGES[block.status]
        badge_left = draw_badge(painter, inner.right() + 1, center_y, badge, theme.font("small_bold"))
        elapsed = tool_elapsed(block, env.clock())
        painter.setFont(theme.font("small"))
        painter.setPen(theme.color("muted"))
        elapsed_width = QFontMetrics(theme.font("small")).horizontalAdvance(elapsed) + 10 if elapsed else 0
        painter.drawText(QRect(badge_left - elapsed_width, inner.top(), elapsed_width - 8, header), int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), elapsed)
        name_rect = QRect(inner.left() + self.INDENT, inner.top(), badge_left - elapsed_width - inner.left() - self.INDENT - 8, header)
        painter.setFont(theme.font("label"))
        painter.setPen(theme.color("text"))
        name = QFontMetrics(theme.font("label")).elidedText(block.name, Qt.TextElideMode.ElideRight, name_rect.width())
        painter.drawText(name_rect, int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft), name)
        args_rect = QRect(inner.left() + self.INDENT, inner.top() + header + 4, inner.width() - self.INDENT, line)
        mode = Qt.TextElideMode.ElideLeft if part.live and not block.arguments else Qt.TextElideMode.ElideRight
        painter.setFont(theme.font("mono"))
        painter.setPen(theme.color("muted"))
        painter.drawText(args_rect, int(Qt.AlignmentFlag.AlignVCenter), QFontMetrics(theme.font("mono")).elidedText(arguments_summary(block), mode, args_rect.width()))
        if part.documents:
            top = args_rect.bottom() + 1 + self.GAP
            painter.setPen(QPen(theme.color("border"), 1))
            painter.drawLine(inner.left(), top - self.GAP // 2, inner.right(), top - self.GAP // 2)
            draw_documents(painter, part.documents[:1], inner.left(), top + 2, theme.color("text"))
            result_color = theme.color("error_text") if block.is_error else theme.color("text")
            draw_documents(painter, part.documents[1:], inner.left(), top + 2 + documents_height(part.documents[:1]), result_color)

    def toggle_rect(self, part: Part, rect: QRect, env: PaintEnv) -> QRect | None:
        header, line = self._rows(env)
        return QRect(rect.left(), rect.top(), rect.width(), self.PAD + header + 4 + line + self.PAD)
