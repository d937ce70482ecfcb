"""Painters for the thinking parts of a reply: a collapsible section with a live timer, and redacted thinking."""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPen

from desktop_copilot.core.models import ThinkingBlock
from desktop_copilot.qt.documents import LivePlainText, documents_height, draw_documents, plain_document
from desktop_copilot.qt.paint_helpers import draw_chevron, format_seconds
from desktop_copilot.qt.parts import PaintEnv, Part, PartPainter

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

    @staticmethod
    def _thinking_live(part: Part) -> bool:
        return part.block.ended_at is None and not part.message.status.finished

    def _preview_height(self, env: PaintEnv) -> int:
        return QFontMetrics(env.theme.font("small")).height() + 2

    def measure(self, part: Part, env: PaintEnv, width: int) -> int:
        header = self._header_height(env)
        part.documents = []
        if not part.expanded:
            return header + (self._preview_height(env) if self._thinking_live(part) else 0)
        block, inner = part.block, width - self.INDENT
        font = env.theme.font("body")
        if self._thinking_live(part):
            part.documents = env.live.get(part.message.id, part.index, lambda: LivePlainText(env.theme, font)).update(block.thinking, inner)
        else:
            key = ("thinking", part.message.id, part.index, len(block.thinking))
            part.documents = [env.cached(key, inner, lambda: plain_document(block.thinking, inner, env.theme, font))]
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
        elif self._thinking_live(part):
            self._paint_preview(painter, part, QRect(label_rect.left(), rect.top() + header, label_rect.width(), self._preview_height(env)), env)

    @staticmethod
    def _paint_preview(painter: QPainter, part: Part, rect: QRect, env: PaintEnv) -> None:
        """The latest words of the thinking on one line, so a collapsed section still shows progress."""
        font = QFont(env.theme.font("small"))
        font.setItalic(True)
        tail = " ".join(part.block.thinking[-400:].split())
        painter.setFont(font)
        painter.setPen(env.theme.color("muted"))
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignVCenter), QFontMetrics(font).elidedText(tail, Qt.TextElideMode.ElideLeft, rect.width()))

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
