"""Painters for compactions: the marker before the messages a compaction stands for (a chevron that opens and closes
them, "Undo compaction"), the summary sent in their place, the origin line of a chat started from a summary, and the
rows hidden under a collapsed marker."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QRect, Qt
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPen

from desktop_copilot.qt.common.paint_helpers import draw_chevron, fill_rounded
from desktop_copilot.qt.transcript.parts.base import Hotspot, PaintEnv, Part, PartPainter
from desktop_copilot.qt.transcript.parts.documents import documents_height, draw_documents, plain_document
from desktop_copilot.qt.usage.words import format_tokens

TOGGLE, UNDO, OPEN_ORIGIN = "toggle_compaction", "undo_compaction", "open_origin"
"""Hotspot actions: open or close a marker's messages, undo its compaction, open the conversation a chat came from."""
PAD_X, PAD_Y = 12, 7
INDENT = 18
GAP = 6


def marker_text(state: tuple) -> str:
    """What a marker says, from its segment's state (segments.compaction_rows)."""
    _id, kind, messages, before, after, undone, _opened = state
    if undone:
        return QCoreApplication.translate("Compaction", "Compaction undone · %n messages sent whole again", "", messages)
    if kind == "dropped":
        return QCoreApplication.translate("Compaction", "%n earlier messages left out of requests: no summary could be made", "", messages)
    return QCoreApplication.translate("Compaction", "Compacted %n messages · {before} → {after} tokens", "", messages).format(
        before=format_tokens(before), after=format_tokens(after))


def undo_text() -> str:
    return QCoreApplication.translate("Compaction", "Undo compaction")


class CompactionMarker(PartPainter):
    """A quiet rounded bar across the column: chevron, what was compacted, and "Undo compaction" at its right end.
    A click anywhere else on it opens or closes the messages under it."""

    def _height(self, env: PaintEnv) -> int:
        return QFontMetrics(env.theme.font("small")).height() + 2 * PAD_Y

    def measure(self, part: Part, env: PaintEnv, width: int) -> int:
        height = self._height(env)
        compaction_id, undone = part.segment.state[0], part.segment.state[5]
        part.hotspots = []
        if not undone:
            link = QFontMetrics(env.theme.font("small")).horizontalAdvance(undo_text()) + 2 * PAD_X
            part.hotspots.append(Hotspot(QRect(width - link, 0, link, height), UNDO, compaction_id, undo_text()))
        part.hotspots.append(Hotspot(QRect(0, 0, width, height), TOGGLE, compaction_id))
        return height

    def paint(self, painter: QPainter, part: Part, rect: QRect, env: PaintEnv) -> None:
        theme, cards = env.theme, env.cards
        state = part.segment.state
        compaction_id, undone, opened = state[0], state[5], state[6]
        hover = cards.hover[1:] if cards.hover and cards.hover[0] == part.owner else ()
        fill = theme.color("row_hover") if hover == (TOGGLE, compaction_id) else theme.color("user_bubble" if not undone else "background")
        border = theme.color("focus_border") if cards.current_marker == compaction_id else theme.color("border")
        fill_rounded(painter, rect, 8, fill, border)
        small = theme.font("small")
        draw_chevron(painter, rect.left() + PAD_X, rect.center().y(), opened, theme.color("muted"))
        right = rect.right() - PAD_X
        if not undone:
            link = next(h for h in part.hotspots if h.action == UNDO).rect.translated(rect.topLeft())
            pressed = cards.pressed[1:] if cards.pressed and cards.pressed[0] == part.owner else ()
            if hover == (UNDO, compaction_id) or pressed == (UNDO, compaction_id):
                fill_rounded(painter, link.adjusted(2, 3, -2, -3), 6, theme.color("accent_soft"))
            painter.setFont(small)
            painter.setPen(theme.color("accent"))
            painter.drawText(link, int(Qt.AlignmentFlag.AlignCenter), undo_text())
            right = link.left() - 4
        label = QRect(rect.left() + PAD_X + 12, rect.top(), max(0, right - rect.left() - PAD_X - 12), rect.height())
        font = QFont(small)
        font.setItalic(undone)
        painter.setFont(font)
        painter.setPen(theme.color("muted") if undone else theme.color("text"))
        text = QFontMetrics(font).elidedText(marker_text(state), Qt.TextElideMode.ElideRight, label.width())
        painter.drawText(label, int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft), text)


def summary_caption() -> str:
    return QCoreApplication.translate("Compaction", "Sent to the model in place of these messages:")


class CompactionSummary(PartPainter):
    """A piece of an open compaction's summary: muted plain text beside a bar, under a caption on its first piece."""

    def _caption_height(self, env: PaintEnv) -> int:
        return QFontMetrics(env.theme.font("small_bold")).height() + 4

    def measure(self, part: Part, env: PaintEnv, width: int) -> int:
        segment, inner, font = part.segment, width - INDENT, env.theme.font("body")
        compaction_id, summary = segment.state
        text = part.piece(summary, plain=True)
        key = ("compaction_summary", compaction_id, segment.start, len(text))
        part.documents = [env.cached(key, inner, lambda: plain_document(text, inner, env.theme, font))]
        top = GAP + self._caption_height(env) if segment.head else 0
        return top + documents_height(part.documents) + (GAP if segment.tail else 0)

    def paint(self, painter: QPainter, part: Part, rect: QRect, env: PaintEnv) -> None:
        theme, segment = env.theme, part.segment
        top = rect.top()
        if segment.head:
            top += GAP
            painter.setFont(theme.font("small_bold"))
            painter.setPen(theme.color("muted"))
            caption = QRect(rect.left() + INDENT, top, rect.width() - INDENT, self._caption_height(env))
            painter.drawText(caption, int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft), summary_caption())
            top += caption.height()
        bottom = rect.bottom() - (GAP if segment.tail else 0)
        painter.save()
        painter.setPen(QPen(theme.color("accent_soft_border"), 2))
        painter.drawLine(rect.left() + 5, top, rect.left() + 5, bottom)
        painter.restore()
        draw_documents(painter, part.documents, rect.left() + INDENT, top, theme.color("muted"))


def origin_text(title: str | None) -> str:
    if title is None:
        return QCoreApplication.translate("Compaction", "Started from a summary of a conversation that is no longer stored")
    title = title or QCoreApplication.translate("ConversationList", "New chat")
    return QCoreApplication.translate("Compaction", "Started from a summary of «{title}»").format(title=title)


def open_original_text() -> str:
    return QCoreApplication.translate("Compaction", "Open the original")


class OriginNotice(PartPainter):
    """"Started from a summary of «title»" and a link that opens that conversation."""

    def _height(self, env: PaintEnv) -> int:
        return QFontMetrics(env.theme.font("small")).height() + 2 * PAD_Y

    def measure(self, part: Part, env: PaintEnv, width: int) -> int:
        height = self._height(env)
        conversation_id, title = part.segment.state
        part.hotspots = []
        if title is not None:
            metrics = QFontMetrics(env.theme.font("small"))
            left = min(width, metrics.horizontalAdvance(origin_text(title)) + 12)
            link = metrics.horizontalAdvance(open_original_text()) + 2 * GAP
            part.hotspots.append(Hotspot(QRect(left, 0, min(link, max(0, width - left)), height), OPEN_ORIGIN, conversation_id,
                                         open_original_text()))
        return height

    def paint(self, painter: QPainter, part: Part, rect: QRect, env: PaintEnv) -> None:
        theme = env.theme
        small = theme.font("small")
        painter.setFont(small)
        painter.setPen(theme.color("muted"))
        text = QFontMetrics(small).elidedText(origin_text(part.segment.state[1]), Qt.TextElideMode.ElideMiddle, rect.width())
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft), text)
        for hotspot in part.hotspots:
            area = hotspot.rect.translated(rect.topLeft())
            if env.cards.hover == (part.owner, hotspot.action, hotspot.value):
                fill_rounded(painter, area.adjusted(0, 3, 0, -3), 6, theme.color("accent_soft"))
            painter.setPen(theme.color("accent"))
            painter.drawText(area, int(Qt.AlignmentFlag.AlignCenter), hotspot.label)


class HiddenRow(PartPainter):
    """A row of a message under a collapsed marker: it keeps its place in the model and shows nothing."""

    def measure(self, part: Part, env: PaintEnv, width: int) -> int:
        return 0

    def paint(self, painter: QPainter, part: Part, rect: QRect, env: PaintEnv) -> None:
        return None
