"""The tool-call card: name, live arguments, status badge, elapsed time; expands to capped arguments and result."""

from __future__ import annotations

import json

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QTextDocument

from desktop_copilot.core.models import ToolCallBlock
from desktop_copilot.qt.transcript.parts.documents import documents_height, draw_documents, plain_document
from desktop_copilot.qt.common.paint_helpers import badge_size, draw_badge, draw_chevron, fill_rounded, format_seconds
from desktop_copilot.qt.transcript.parts.base import PaintEnv, Part, PartPainter
from desktop_copilot.qt.common.theme import TOOL_BADGES

RESULT_CHARS = 6000
"""An expanded tool card shows at most this many characters of its arguments and of its result,"""
RESULT_LINES = 80
"""... and at most this many lines of each, so an expanded card stays a few thousand pixels tall at most."""


def tool_elapsed(block: ToolCallBlock, now: float) -> str:
    if block.started_at is None:
        return ""
    return format_seconds((block.ended_at or now) - block.started_at, precise=True)


def arguments_summary(block: ToolCallBlock) -> str:
    """One line: the parsed arguments as compact JSON, or the partial JSON while it streams."""
    if block.arguments:
        return json.dumps(block.arguments, ensure_ascii=False)
    return " ".join(block.partial_arguments.split()) or "{}"


def capped(text: str) -> str:
    """`text` cut to RESULT_CHARS characters and RESULT_LINES lines, saying how much was left out."""
    cut = len(text) if len(text) <= RESULT_CHARS else RESULT_CHARS
    line_end = -1
    for _ in range(RESULT_LINES):
        line_end = text.find("\n", line_end + 1, cut)
        if line_end < 0:
            break
    else:
        cut = line_end
    if cut >= len(text):
        return text
    rest = text[cut:].lstrip("\n")
    return f"{text[:cut]}\n… {rest.count(chr(10)) + 1:,} more lines, {len(rest):,} characters not shown (right-click the card to copy all)"


def detail_sections(block: ToolCallBlock) -> list[tuple[str, str]]:
    arguments = json.dumps(block.arguments, ensure_ascii=False, indent=2) if block.arguments else block.partial_arguments or "{}"
    sections = [("Arguments", capped(arguments))]
    if block.result is not None:
        sections.append(("Error" if block.is_error else "Result", capped(block.result)))
    return sections


class ToolCard(PartPainter):
    PAD = 12
    INDENT = 18
    BOX_PAD = 8
    SECTION_GAP = 10

    def _rows(self, env: PaintEnv) -> tuple[int, int, int]:
        """Heights of the header row, the arguments line and a section label."""
        badge_height = badge_size(TOOL_BADGES[next(iter(TOOL_BADGES))], env.theme.font("small_bold"))[1]
        header = max(QFontMetrics(env.theme.font("label")).height(), badge_height)
        return header, QFontMetrics(env.theme.font("mono")).height(), QFontMetrics(env.theme.font("small_bold")).height()

    def _summary_height(self, env: PaintEnv) -> int:
        header, line, _ = self._rows(env)
        return self.PAD + header + 4 + line + self.PAD

    def _documents(self, part: Part, env: PaintEnv, width: int) -> list[QTextDocument]:
        theme, font = env.theme, env.theme.font("mono")
        return [
            env.cached(("tool", part.message.id, part.index, n, len(text)), width,
                       lambda text=text: plain_document(text, width, theme, font), len(text))
            for n, (_label, text) in enumerate(detail_sections(part.block))
        ]

    def measure(self, part: Part, env: PaintEnv, width: int) -> int:
        height = self._summary_height(env)
        part.documents = []
        if part.expanded:
            label = self._rows(env)[2]
            part.documents = self._documents(part, env, width - 2 * self.PAD - 2 * self.BOX_PAD)
            for document in part.documents:
                height += label + 4 + 2 * self.BOX_PAD + documents_height([document]) + self.SECTION_GAP
        return height

    def paint(self, painter: QPainter, part: Part, rect: QRect, env: PaintEnv) -> None:
        theme, block = env.theme, part.block
        header, line, label = self._rows(env)
        fill_rounded(painter, rect, 10, theme.color("card"), theme.color("border"))
        inner = rect.adjusted(self.PAD, self.PAD, -self.PAD, -self.PAD)
        center_y = inner.top() + header // 2
        draw_chevron(painter, inner.left() + 5, center_y, part.expanded, theme.color("muted"))
        badge_left = draw_badge(painter, inner.right() + 1, center_y, TOOL_BADGES[block.status], theme.font("small_bold"))
        elapsed = tool_elapsed(block, env.clock())
        elapsed_width = QFontMetrics(theme.font("small")).horizontalAdvance(elapsed) + 10 if elapsed else 0
        painter.setFont(theme.font("small"))
        painter.setPen(theme.color("muted"))
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
        summary = QFontMetrics(theme.font("mono")).elidedText(arguments_summary(block), mode, args_rect.width())
        painter.drawText(args_rect, int(Qt.AlignmentFlag.AlignVCenter), summary)
        top = rect.top() + self._summary_height(env)
        for (title, _text), document in zip(detail_sections(block), part.documents):
            top = self._paint_section(painter, QRect(inner.left(), top, inner.width(), 0), title, document, env)

    def _paint_section(self, painter: QPainter, area: QRect, title: str, document: QTextDocument, env: PaintEnv) -> int:
        theme, label = env.theme, self._rows(env)[2]
        error = title == "Error"
        painter.setFont(theme.font("small_bold"))
        painter.setPen(theme.color("error_text") if error else theme.color("muted"))
        painter.drawText(QRect(area.left(), area.top(), area.width(), label), int(Qt.AlignmentFlag.AlignVCenter), title.upper())
        box = QRect(area.left(), area.top() + label + 4, area.width(), documents_height([document]) + 2 * self.BOX_PAD)
        fill_rounded(painter, box, 6, QColor(theme.error_background) if error else theme.color("code_background"))
        color = theme.color("error_text") if error else theme.color("text")
        draw_documents(painter, [document], box.left() + self.BOX_PAD, box.top() + self.BOX_PAD, color)
        return box.bottom() + 1 + self.SECTION_GAP

    def toggle_rect(self, part: Part, rect: QRect, env: PaintEnv) -> QRect | None:
        return QRect(rect.left(), rect.top(), rect.width(), self._summary_height(env))
