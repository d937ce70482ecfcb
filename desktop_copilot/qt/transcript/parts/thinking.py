"""Painters for thinking: the collapsible header with a live timer, its text (a row per piece), redacted."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QRect, Qt
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPen

from desktop_copilot.core.conversation.models import ThinkingBlock
from desktop_copilot.qt.transcript.parts.documents import LivePlainText, documents_height, draw_documents, plain_document
from desktop_copilot.qt.common.paint_helpers import draw_chevron, format_seconds
from desktop_copilot.qt.transcript.parts.base import PaintEnv, Part, PartPainter

INDENT = 18
GAP = 6
"""Space between the header and the thinking text, and below the text."""


def thinking_label(block: ThinkingBlock, now: float) -> str:
    started = block.started_at or now
    if block.ended_at is None:
        return QCoreApplication.translate("Thinking", "Thinking… {time}").format(time=format_seconds(now - started))
    return QCoreApplication.translate("Thinking", "Thought for {time}").format(time=format_seconds(block.ended_at - started))


def thinking_live(part: Part) -> bool:
    return part.block.ended_at is None and not part.message.status.finished


class ThinkingSection(PartPainter):
    """The header: chevron, "Thinking… 4 s" / "Thought for 4 s", and while collapsed and live the latest words."""

    INDENT = INDENT

    def _header_height(self, env: PaintEnv) -> int:
        return QFontMetrics(env.theme.font("body")).height() + 8

    def _preview_height(self, env: PaintEnv) -> int:
        return QFontMetrics(env.theme.font("small")).height() + 2

    def measure(self, part: Part, env: PaintEnv, width: int) -> int:
        part.documents = []
        preview = not part.expanded and thinking_live(part)
        return self._header_height(env) + (self._preview_height(env) if preview else 0)

    def paint(self, painter: QPainter, part: Part, rect: QRect, env: PaintEnv) -> None:
        theme, header = env.theme, self._header_height(env)
        color = theme.color("muted")
        draw_chevron(painter, rect.left() + 5, rect.top() + header / 2, part.expanded, color)
        painter.setFont(theme.font("body"))
        painter.setPen(color)
        label_rect = QRect(rect.left() + INDENT, rect.top(), rect.width() - INDENT, header)
        painter.drawText(label_rect, int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft), thinking_label(part.block, env.clock()))
        if not part.expanded and thinking_live(part):
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
        width = INDENT + metrics.horizontalAdvance(thinking_label(part.block, env.clock())) + 40
        return QRect(rect.left(), rect.top(), min(width, rect.width()), self._header_height(env))


class ThinkingBody(PartPainter):
    """A piece of the expanded thinking text, plain, beside a bar that runs through all its pieces."""

    def measure(self, part: Part, env: PaintEnv, width: int) -> int:
        segment, inner, font = part.segment, width - INDENT, env.theme.font("body")
        text = part.piece(part.block.thinking, plain=True)
        live_key = (part.message.id, part.index, segment.start)
        if segment.open:
            part.documents = env.live.get(live_key, lambda: LivePlainText(env.theme, font)).update(text, inner)
        else:
            def build():
                live = env.live.pop(live_key)
                return live.finish(text, inner) if isinstance(live, LivePlainText) else plain_document(text, inner, env.theme, font)

            key = ("thinking", part.message.id, part.index, segment.start, len(text))
            part.documents = [env.cached(key, inner, build)]
        return documents_height(part.documents) + (GAP if segment.head else 0) + (GAP if segment.tail else 0)

    def paint(self, painter: QPainter, part: Part, rect: QRect, env: PaintEnv) -> None:
        color = env.theme.color("muted")
        top = rect.top() + (GAP if part.segment.head else 0)
        bottom = rect.bottom() - (GAP if part.segment.tail else 0)
        painter.setPen(QPen(env.theme.color("border"), 2))
        painter.drawLine(rect.left() + 5, top, rect.left() + 5, bottom)
        draw_documents(painter, part.documents, rect.left() + INDENT, top, color)


class RedactedThinking(PartPainter):
    LABEL = QT_TRANSLATE_NOOP("Thinking", "Thinking redacted by the provider (kept encrypted for replay)")

    def measure(self, part: Part, env: PaintEnv, width: int) -> int:
        return QFontMetrics(env.theme.font("body")).height() + 8

    def paint(self, painter: QPainter, part: Part, rect: QRect, env: PaintEnv) -> None:
        font = QFont(env.theme.font("body"))
        font.setItalic(True)
        painter.setFont(font)
        painter.setPen(env.theme.color("muted"))
        painter.drawText(rect.adjusted(INDENT, 0, 0, 0), int(Qt.AlignmentFlag.AlignVCenter), QCoreApplication.translate("Thinking", self.LABEL))
