"""Painters for the textual parts of a row: the user's bubble, Markdown text, the error/stopped notice,
the "waiting for the first token" dots and unsupported raw blocks."""

from __future__ import annotations

import math

from PySide6.QtCore import QRect, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter

from desktop_copilot.core.models import MessageStatus
from desktop_copilot.qt.documents import LiveMarkdown, documents_height, draw_documents, markdown_document, plain_document
from desktop_copilot.qt.paint_helpers import draw_wrapped, fill_rounded, wrapped_height
from desktop_copilot.qt.parts import PaintEnv, Part, PartPainter

BUBBLE_PAD_X, BUBBLE_PAD_Y = 16, 10
BUBBLE_MAX = 0.8
"""The user's bubble takes at most this share of the column."""


class UserBubble(PartPainter):
    def _text_width(self, width: int) -> int:
        return int(width * BUBBLE_MAX) - 2 * BUBBLE_PAD_X

    def measure(self, part: Part, env: PaintEnv, width: int) -> int:
        text = part.message.text
        inner = self._text_width(width)
        key = ("user", part.message.id, len(text))
        part.documents = [env.cached(key, inner, lambda: plain_document(text, inner, env.theme, env.theme.font("body")))]
        return documents_height(part.documents) + 2 * BUBBLE_PAD_Y

    def paint(self, painter: QPainter, part: Part, rect: QRect, env: PaintEnv) -> None:
        document = part.documents[0]
        bubble_width = min(int(document.idealWidth() + 1), self._text_width(rect.width())) + 2 * BUBBLE_PAD_X
        bubble = QRect(rect.right() - bubble_width + 1, rect.top(), bubble_width, rect.height())
        fill_rounded(painter, bubble, 16, env.theme.color("user_bubble"))
        draw_documents(painter, part.documents, bubble.left() + BUBBLE_PAD_X, bubble.top() + BUBBLE_PAD_Y, env.theme.color("text"))


class MarkdownText(PartPainter):
    """Finished text: one exact render, cached by text length (text only ever grows), re-wrapped on resize.
    Streaming text: a `LiveMarkdown` stack, so a delta never re-renders the whole reply."""

    def measure(self, part: Part, env: PaintEnv, width: int) -> int:
        text = part.block.text
        if part.live:
            live = env.live.get(part.message.id, part.index, lambda: LiveMarkdown(env.theme))
            part.documents = live.update(text, width)
        else:
            key = ("md", part.message.id, part.index, len(text))
            part.documents = [env.cached(key, width, lambda: markdown_document(text, width, env.theme))]
        return documents_height(part.documents)

    def paint(self, painter: QPainter, part: Part, rect: QRect, env: PaintEnv) -> None:
        draw_documents(painter, part.documents, rect.left(), rect.top(), env.theme.color("text"))


class Notice(PartPainter):
    """Why a reply ended early: a red banner for failed/interrupted, a quiet line for stopped."""

    PAD = 10
    ICON = 18

    @staticmethod
    def _text(part: Part) -> str:
        message = part.message
        if message.status is MessageStatus.STOPPED:
            return message.error or "Stopped."
        if message.status is MessageStatus.INTERRUPTED:
            return message.error or "The reply was interrupted."
        return message.error or "The reply failed."

    @staticmethod
    def _quiet(part: Part) -> bool:
        return part.message.status is MessageStatus.STOPPED

    def measure(self, part: Part, env: PaintEnv, width: int) -> int:
        if self._quiet(part):
            return wrapped_height(env.theme.font("small"), "■ " + self._text(part), width)
        inner = width - 2 * self.PAD - self.ICON - 8
        return max(self.ICON, wrapped_height(env.theme.font("body"), self._text(part), inner)) + 2 * self.PAD

    def paint(self, painter: QPainter, part: Part, rect: QRect, env: PaintEnv) -> None:
        theme = env.theme
        if self._quiet(part):
            draw_wrapped(painter, rect, "■ " + self._text(part), theme.font("small"), theme.color("muted"))
            return
        fill_rounded(painter, rect, 10, theme.color("error_background"), theme.color("error_border"))
        icon = QRectF(rect.left() + self.PAD, rect.top() + self.PAD + 1, self.ICON, self.ICON)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(theme.color("error_text"))
        painter.drawEllipse(icon)
        painter.setPen(QColor("white"))
        painter.setFont(theme.font("small_bold"))
        painter.drawText(icon, int(Qt.AlignmentFlag.AlignCenter), "!")
        painter.restore()
        text_rect = rect.adjusted(self.PAD + self.ICON + 8, self.PAD, -self.PAD, -self.PAD)
        draw_wrapped(painter, text_rect, self._text(part), theme.font("body"), theme.color("error_text"))


class WaitingDots(PartPainter):
    """Three pulsing dots until the first block of the reply arrives."""

    def measure(self, part: Part, env: PaintEnv, width: int) -> int:
        return QFontMetrics(env.theme.font("body")).height() + 4

    def paint(self, painter: QPainter, part: Part, rect: QRect, env: PaintEnv) -> None:
        phase = env.clock() * 3.0
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        for dot in range(3):
            color = env.theme.color("accent")
            color.setAlphaF(0.35 + 0.65 * (0.5 + 0.5 * math.sin(phase - dot * 0.9)))
            painter.setBrush(color)
            painter.drawEllipse(QRectF(rect.left() + 2 + dot * 14, rect.center().y() - 4, 8, 8))
        painter.restore()


class RawNotice(PartPainter):
    """A block type the app keeps for replay but cannot show (e.g. `server_tool_use`)."""

    @staticmethod
    def _text(part: Part) -> str:
        return f"[{part.block.data.get('type', 'unknown')} block, not shown]"

    def measure(self, part: Part, env: PaintEnv, width: int) -> int:
        return wrapped_height(env.theme.font("small"), self._text(part), width)

    def paint(self, painter: QPainter, part: Part, rect: QRect, env: PaintEnv) -> None:
        draw_wrapped(painter, rect, self._text(part), env.theme.font("small"), env.theme.color("muted"))
