"""Painters for a row's textual parts: user bubble, Markdown, notices, the model-switch line, waiting dots, raw
blocks, placeholders."""

from __future__ import annotations

import math

from PySide6.QtCore import QCoreApplication, QPoint, QRect, QRectF, Qt
from PySide6.QtGui import QFontMetrics, QPainter

from desktop_copilot.core.content.citations import cited_sources
from desktop_copilot.core.conversation.models import MessageStatus
from desktop_copilot.qt.transcript.parts.documents import (
    LiveMarkdown,
    documents_height,
    draw_documents,
    markdown_document,
    plain_document,
    sources_document,
    sources_html_document,
)
from desktop_copilot.qt.transcript.parts.markdown import render_knowledge_sources
from desktop_copilot.qt.common.paint_helpers import draw_wrapped, fill_rounded, wrapped_height
from desktop_copilot.qt.transcript.parts import attachments, code_blocks
from desktop_copilot.qt.transcript.parts.base import PaintEnv, Part, PartPainter

BUBBLE_PAD_X, BUBBLE_PAD_Y = 16, 10
BUBBLE_RADIUS = 16
BUBBLE_MAX = 0.8
"""The user's bubble takes at most this share of the column."""


class UserBubble(PartPainter):
    """The user's message in a bubble; a long one spans several rows, each a piece of one tall bubble."""

    def _text_width(self, width: int) -> int:
        return int(width * BUBBLE_MAX) - 2 * BUBBLE_PAD_X

    @staticmethod
    def _ends(part: Part) -> tuple[bool, bool]:
        segment = part.segment
        return (True, True) if segment is None else (segment.head, segment.tail)

    def measure(self, part: Part, env: PaintEnv, width: int) -> int:
        text = part.piece(part.message.text, plain=True)
        inner = self._text_width(width)
        segment = part.segment
        key = ("user", part.message.id, segment.start if segment else 0, len(text))
        font = env.theme.font("body")
        part.documents = [env.cached(key, inner, lambda: plain_document(text, inner, env.theme, font))]
        head, tail = self._ends(part)
        shown = attachments.lay_out(part, env, inner)  # images and files above the text of the first piece
        if shown and not text.strip():
            return shown + BUBBLE_PAD_Y * (head + tail)
        return documents_height(part.documents) + attachments.text_offset(part) + BUBBLE_PAD_Y * (head + tail)

    def _bubble(self, part: Part, rect: QRect) -> QRect:
        head, tail = self._ends(part)
        text_width = self._text_width(rect.width())
        ideal = min(max(int(part.documents[0].idealWidth() + 1), attachments.strip_width(part)), text_width) if head and tail else text_width
        return QRect(rect.right() - ideal - 2 * BUBBLE_PAD_X + 1, rect.top(), ideal + 2 * BUBBLE_PAD_X, rect.height())

    def text_origin(self, part: Part, rect: QRect, env: PaintEnv) -> QPoint | None:
        bubble = self._bubble(part, rect)
        return QPoint(bubble.left() + BUBBLE_PAD_X, bubble.top() + (BUBBLE_PAD_Y if self._ends(part)[0] else 0) + attachments.text_offset(part))

    def paint(self, painter: QPainter, part: Part, rect: QRect, env: PaintEnv) -> None:
        head, tail = self._ends(part)
        bubble = self._bubble(part, rect)
        shape = bubble.adjusted(0, 0 if head else -2 * BUBBLE_RADIUS, 0, 0 if tail else 2 * BUBBLE_RADIUS)
        painter.save()
        painter.setClipRect(rect, Qt.ClipOperation.IntersectClip)  # a piece of a taller bubble: square inner ends
        fill_rounded(painter, shape, BUBBLE_RADIUS, env.theme.color("user_bubble"))
        painter.restore()
        attachments.draw(painter, part, bubble.left() + BUBBLE_PAD_X, bubble.top() + BUBBLE_PAD_Y, env.theme)
        origin = self.text_origin(part, rect, env)
        draw_documents(painter, part.documents, origin.x(), origin.y(), env.theme.color("text"), env.highlight(part))


class MarkdownText(PartPainter):
    """A piece of Markdown text. Finished: one exact render, cached, re-wrapped on resize. Streaming: a
    `LiveMarkdown` stack, so a delta never re-renders the piece (`pending` while part of it shows as plain text, so the
    view lays it out again when the stream pauses); when the piece closes while the reply streams on, its
    last chunk (or, for a piece never shown open, all of it) renders on the tail worker and the part is `pending`
    (shown as it was, measured again shortly) until the stack is complete and handed to the cache; when the reply has
    ended, the stack is finished with one exact render of its last chunk here.
    The block's last piece, once closed, is followed by the sources its text cites (rendered once)."""

    def measure(self, part: Part, env: PaintEnv, width: int) -> int:
        segment = part.segment
        text = part.piece(part.block.text)
        live_key = (part.message.id, part.index, segment.start)
        if segment.open:
            live = env.live.get(live_key, lambda: LiveMarkdown(env.theme, tails=env.tails))
            part.documents = live.update(text, width)
            part.pending = isinstance(live, LiveMarkdown) and live.pending  # shows more rendered without a delta
        else:
            key = ("md", part.message.id, part.index, segment.start, segment.end, segment.prefix)
            if not part.message.status.finished and key not in env.documents and self._closing(part, env, text, width, key, live_key):
                code_blocks.lay_out(part, env, QPoint(0, 0))
                return documents_height(part.documents)
            def build():
                live = env.live.pop(live_key)
                return live.finish(text, width) if isinstance(live, LiveMarkdown) else markdown_document(text, width, env.theme)

            part.documents = [env.cached(key, width, build)]
            citations = part.block.citations
            if citations and segment.end == len(part.block.text):
                key = ("sources", part.message.id, part.index, len(citations))
                build_sources = lambda: sources_document(cited_sources(citations), width, env.theme)  # noqa: E731
                part.documents.append(env.cached(key, width, build_sources))
            if segment.end == len(part.block.text) and part.message.status.finished:
                self._add_knowledge_sources(part, env, width)
        code_blocks.lay_out(part, env, QPoint(0, 0))
        return documents_height(part.documents)

    @staticmethod
    def _closing(part: Part, env: PaintEnv, text: str, width: int, key: tuple, live_key: tuple) -> bool:
        """A piece that has ended while its reply streams on: True while the render of its last chunk is not back
        (the part shows the piece as it was, `pending`), else its complete stack goes to the cache (False)."""
        live = env.live.get(live_key, lambda: LiveMarkdown(env.theme, tails=env.tails))
        if not isinstance(live, LiveMarkdown):
            return False
        stack = live.close(text, width)
        if stack is None:
            part.documents, part.pending = live.documents, True
            return True
        env.live.pop(live_key)
        env.cached(key, width, lambda: stack)
        return False

    @staticmethod
    def _add_knowledge_sources(part: Part, env: PaintEnv, width: int) -> None:
        """The knowledge passages the reply cites, under its last text block once it has ended."""
        from desktop_copilot.core.knowledge.citing import last_text, reply_sources, searched

        message = part.message
        if last_text([message]) != (message.id, part.index):
            return  # not the message's last text block: the reply's messages need not be read
        reply = env.reply_of(message.id) if env.reply_of is not None else [message]
        if not reply or not searched(reply) or not all(m.status.finished for m in reply):
            return
        if last_text(reply) != (message.id, part.index):
            return
        sources = reply_sources(reply)
        if sources is None:
            return
        key = ("knowledge", message.id, part.index, tuple(p.number for p in sources.passages), sources.cited)
        build = lambda: sources_html_document(render_knowledge_sources(message.id, sources), width, env.theme)  # noqa: E731
        part.documents.append(env.cached(key, width, build))

    def text_origin(self, part: Part, rect: QRect, env: PaintEnv) -> QPoint | None:
        return rect.topLeft()

    def paint(self, painter: QPainter, part: Part, rect: QRect, env: PaintEnv) -> None:
        draw_documents(painter, part.documents, rect.left(), rect.top(), env.theme.color("text"), env.highlight(part))
        code_blocks.paint(painter, part, rect, env)


class Notice(PartPainter):
    """Why a reply ended early: a red banner for failed, interrupted or refused, a quiet line for stopped
    or cut off at the output limit."""

    PAD = 10
    ICON = 18

    @staticmethod
    def _text(part: Part) -> str:
        message = part.message
        if message.status is MessageStatus.STOPPED:
            return message.error or QCoreApplication.translate("TranscriptNotice", "Stopped.")
        if message.stop_reason == "max_tokens":
            return QCoreApplication.translate("TranscriptNotice", "Cut off at the output limit: this reply is incomplete.")
        if message.stop_reason == "refusal":
            return message.error or QCoreApplication.translate("TranscriptNotice", "The model declined to answer this request.")
        if message.status is MessageStatus.INTERRUPTED:
            return message.error or QCoreApplication.translate("TranscriptNotice", "The reply was interrupted.")
        return message.error or QCoreApplication.translate("TranscriptNotice", "The reply failed.")

    @staticmethod
    def _quiet(part: Part) -> bool:
        return part.message.status is MessageStatus.STOPPED or part.message.stop_reason == "max_tokens"

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
        painter.setPen(theme.color("error_background"))  # the "!" cut out of the disc, light or dark
        painter.setFont(theme.font("small_bold"))
        painter.drawText(icon, int(Qt.AlignmentFlag.AlignCenter), "!")
        painter.restore()
        text_rect = rect.adjusted(self.PAD + self.ICON + 8, self.PAD, -self.PAD, -self.PAD)
        draw_wrapped(painter, text_rect, self._text(part), theme.font("body"), theme.color("error_text"))


class SwitchNotice(PartPainter):
    """A quiet centred line above a reply written by another provider or model than the one before it:
    "Switched to DeepSeek · deepseek-chat" between two hairlines."""

    PAD = 4
    GAP = 10

    @staticmethod
    def _text(part: Part) -> str:
        return QCoreApplication.translate("TranscriptNotice", "Switched to {model}").format(model=part.segment.state[0])

    def measure(self, part: Part, env: PaintEnv, width: int) -> int:
        return QFontMetrics(env.theme.font("small")).height() + 2 * self.PAD

    def paint(self, painter: QPainter, part: Part, rect: QRect, env: PaintEnv) -> None:
        font, theme = env.theme.font("small"), env.theme
        metrics = QFontMetrics(font)
        text = metrics.elidedText(self._text(part), Qt.TextElideMode.ElideRight, max(0, rect.width() - 8 * self.GAP))
        width = metrics.horizontalAdvance(text)
        middle_y = rect.center().y()
        left, right = rect.center().x() - width // 2 - self.GAP, rect.center().x() + (width + 1) // 2 + self.GAP
        painter.save()
        painter.setPen(theme.color("border"))
        painter.drawLine(rect.left() + self.GAP, middle_y, left, middle_y)
        painter.drawLine(right, middle_y, rect.right() - self.GAP, middle_y)
        painter.setFont(font)
        painter.setPen(theme.color("muted"))
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), text)
        painter.restore()


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
        return QCoreApplication.translate("TranscriptNotice", "[{type} block, not shown]").format(type=part.block.data.get('type', 'unknown'))

    def measure(self, part: Part, env: PaintEnv, width: int) -> int:
        return wrapped_height(env.theme.font("small"), self._text(part), width)

    def paint(self, painter: QPainter, part: Part, rect: QRect, env: PaintEnv) -> None:
        draw_wrapped(painter, rect, self._text(part), env.theme.font("small"), env.theme.color("muted"))


class PendingRow(PartPainter):
    """A stored message whose body is being loaded (normally replaced before it is ever painted)."""

    def measure(self, part: Part, env: PaintEnv, width: int) -> int:
        return part.height

    def paint(self, painter: QPainter, part: Part, rect: QRect, env: PaintEnv) -> None:
        color = env.theme.color("border")
        for line in range(min(4, rect.height() // 24)):
            fill_rounded(painter, QRect(rect.left(), rect.top() + line * 24, rect.width() * (3 - line % 2) // 4, 12), 6, color)
