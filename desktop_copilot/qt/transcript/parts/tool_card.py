"""The tool-call card: name and server, live arguments, status badge, elapsed time, how it was approved, and while it
runs the tail of its output (the shell's); expands to capped arguments, preview, result, images and links; a call
waiting for approval shows its decision buttons."""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QRect, QSize, Qt
from PySide6.QtGui import QFontMetrics, QImage, QPainter, QTextDocument

from desktop_copilot.core.conversation.models import ToolCallBlock, ToolCallStatus
from desktop_copilot.qt.common.paint_helpers import badge_size, draw_badge, draw_chevron, fill_rounded, format_seconds
from desktop_copilot.qt.transcript.parts import approval
from desktop_copilot.qt.transcript.parts.attachments import decode_image
from desktop_copilot.qt.transcript.parts.base import CardState, Hotspot, PaintEnv, Part, PartPainter
from desktop_copilot.qt.transcript.parts.documents import documents_height, draw_documents, plain_document

RESULT_CHARS = 6000
"""An expanded tool card shows at most this many characters of its arguments and of its result,"""
RESULT_LINES = 80
"""... and at most this many lines of each, so an expanded card stays a few thousand pixels tall at most."""
WHOLE_CHARS, WHOLE_LINES = 200_000, 4_000
"""What "Show all" shows of the arguments at most (a card that tall is still painted only where it is on screen)."""
PREVIEW_CHARS, PREVIEW_LINES = 40_000, 600
OUTPUT_CHARS, OUTPUT_LINES = 4000, 12
"""A running call's card shows the last this many characters and lines of its output (the shell's), as it comes."""
MAX_IMAGE_BYTES = 5 * 1024 * 1024
MAX_IMAGE_PIXELS = 4096 * 4096
"""An image larger than this (decoded bytes, or pixels as its header claims) is not decoded at all."""
THUMBNAIL_WIDTH, THUMBNAIL_HEIGHT = 360, 480
MAX_IMAGES = 6
THUMBNAILS_KEPT = 24
BROKEN_IMAGE = QT_TRANSLATE_NOOP("ToolCard", "image could not be shown")
_INVISIBLE = {"Cc", "Cf", "Zl", "Zp"}
"""Control, format (bidi overrides, zero-width) and separator characters: not shown in a link line."""


def tool_elapsed(block: ToolCallBlock, now: float) -> str:
    if block.started_at is None:
        return ""
    return format_seconds((block.ended_at or now) - block.started_at, precise=True)


def arguments_summary(block: ToolCallBlock) -> str:
    """One line: the parsed arguments (those that run) as compact JSON, or the partial JSON while it streams."""
    arguments = approval.arguments_to_run(block)
    if arguments:
        return json.dumps(arguments, ensure_ascii=False)
    return " ".join(block.partial_arguments.split()) or "{}"


def capped(text: str, chars: int = RESULT_CHARS, lines: int = RESULT_LINES) -> str:
    """`text` cut to `chars` characters and `lines` lines, saying how much was left out."""
    cut = min(len(text), chars)
    line_end = -1
    for _ in range(lines):
        line_end = text.find("\n", line_end + 1, cut)
        if line_end < 0:
            break
    else:
        cut = line_end
    if cut >= len(text):
        return text
    rest = text[cut:].lstrip("\n")
    left_out = QCoreApplication.translate("ToolCard", "… {lines:,} more lines, {chars:,} characters not shown (right-click the card to copy all)")
    return f"{text[:cut]}\n" + left_out.format(lines=rest.count(chr(10)) + 1, chars=len(rest))


def output_tail(text: str, chars: int = OUTPUT_CHARS, lines: int = OUTPUT_LINES) -> str:
    """The last `lines` lines (and at most `chars` characters) of a call's output, after a line saying that earlier
    output is not shown when there was some."""
    text = text.rstrip("\n")
    floor = max(0, len(text) - chars)
    cut, end = floor, len(text)
    for _ in range(lines):
        end = text.rfind("\n", floor, end)
        if end < 0:
            cut = floor
            break
        cut = end + 1
    if cut == 0:
        return text
    return QCoreApplication.translate("ToolCard", "… earlier output not shown") + "\n" + text[cut:]


def arguments_text(block: ToolCallBlock, whole: bool) -> tuple[str, bool]:
    """The arguments section: pretty JSON of the arguments that run, long values shortened unless `whole`; and
    whether a "Show all" / "Show less" toggle applies."""
    arguments = approval.arguments_to_run(block)
    if not arguments:
        return capped(block.partial_arguments or "{}"), False
    short, cut = approval.shortened_json(arguments)
    shown = capped(short)
    toggles = cut or shown != short
    if whole and toggles:
        return capped(approval.shortened_json(arguments, whole=True)[0], WHOLE_CHARS, WHOLE_LINES), True
    return shown, toggles


def _clean(value: Any, limit: int = 300) -> str:
    text = "".join(" " if unicodedata.category(c) in _INVISIBLE else c for c in str(value or "")[: limit * 2])
    return " ".join(text.split())[:limit]


def link_lines(block: ToolCallBlock) -> str:
    """Resource links as plain text lines ("🔗 name — uri"): shown, never opened."""
    lines = []
    for part in block.result_parts:
        if part.get("type") == "resource_link":
            name, uri = _clean(part.get("name")), _clean(part.get("uri"), 1000)
            lines.append(f"🔗 {name} — {uri}" if name and name != uri else f"🔗 {uri}")
    return "\n".join(lines)


def structured_text(block: ToolCallBlock) -> str:
    """Structured content as pretty JSON, unless the text result already says the same."""
    shown = []
    for part in block.result_parts:
        if part.get("type") != "structured" or "data" not in part:
            continue
        data, result = part["data"], block.result or ""
        try:
            if json.loads(result) == data:
                continue
        except ValueError:
            pass
        if json.dumps(data, ensure_ascii=False) in result or json.dumps(data, ensure_ascii=False, indent=2) in result:
            continue
        shown.append(json.dumps(data, ensure_ascii=False, indent=2))
    return "\n".join(shown)


def decode_thumbnail(data: Any) -> QImage | None:
    """A result image decoded in memory (never from a file or the network) to at most THUMBNAIL_WIDTH × HEIGHT;
    None when it is not a known image, too big, or broken (the same decoder as the user's attachments)."""
    return decode_image(data, QSize(THUMBNAIL_WIDTH, THUMBNAIL_HEIGHT), max_bytes=MAX_IMAGE_BYTES, max_pixels=MAX_IMAGE_PIXELS)


def result_images(block: ToolCallBlock, cards: CardState) -> list[QImage | None]:
    """The thumbnails of the result's images (decoded once, a few kept), None for each that cannot be shown."""
    images = []
    for n, part in enumerate(p for p in block.result_parts if p.get("type") == "image"):
        if n == MAX_IMAGES:
            break
        key = (block.id, n)
        if key not in cards.images:
            cards.images[key] = decode_thumbnail(part.get("data"))
            while len(cards.images) > THUMBNAILS_KEPT:
                cards.images.popitem(last=False)
        cards.images.move_to_end(key)
        images.append(cards.images[key])
    return images


@dataclass(slots=True)
class CardItem:
    """One thing an expanded card paints, placed by `measure` relative to the part's top-left."""

    kind: str
    """"label" (a section title), "box" (a document on a tinted box), "image" or "note" (small muted text)."""
    rect: QRect
    text: str = ""
    document: QTextDocument | None = None
    image: QImage | None = None
    error: bool = False


class ToolCard(PartPainter):
    PAD = 12
    INDENT = 18
    BOX_PAD = 8
    SECTION_GAP = 10
    IMAGE_GAP = 8

    def _rows(self, env: PaintEnv) -> tuple[int, int, int]:
        """Heights of the header row, the arguments line and a section label."""
        badge_height = badge_size(next(iter(env.theme.tool_badges.values())), env.theme.font("small_bold"))[1]
        header = max(QFontMetrics(env.theme.font("label")).height(), badge_height)
        return header, QFontMetrics(env.theme.font("mono")).height(), QFontMetrics(env.theme.font("small_bold")).height()

    def _summary_height(self, block: ToolCallBlock, env: PaintEnv) -> int:
        header, line, label = self._rows(env)
        decided = label + 4 if approval.decision_text(block)[0] else 0
        return self.PAD + header + 4 + line + decided + self.PAD

    # --- measuring ---------------------------------------------------------------------

    def measure(self, part: Part, env: PaintEnv, width: int) -> int:
        block = part.block
        waiting = approval.is_waiting(block)
        part.expanded = part.expanded or waiting  # a waiting call is never hidden
        part.items, part.hotspots, part.documents = [], [], []
        top = self._summary_height(block, env)
        running = block.status is ToolCallStatus.RUNNING and bool(block.output)  # its output as it comes, open or not
        if not part.expanded:
            return self._output(part, env, top, width - 2 * self.PAD, output_tail(block.output)) if running else top
        inner = width - 2 * self.PAD
        text, toggles = arguments_text(block, block.id in env.cards.shown_whole)
        title = QCoreApplication.translate("ToolCard",
            "Arguments (changed by a hook)") if approval.arguments_changed(block) else QCoreApplication.translate("ToolCard", "Arguments")
        top = self._section(part, env, top, inner, title, self._plain(part, env, "arguments", text, inner))
        if toggles:
            label = QCoreApplication.translate("ToolCard",
                "Show less") if block.id in env.cards.shown_whole else QCoreApplication.translate("ToolCard", "Show all")
            link = QRect(self.PAD, top - self.SECTION_GAP + 2, QFontMetrics(env.theme.font("small_bold")).horizontalAdvance(label) + 4, self._rows(env)[2] + 4)
            part.hotspots.append(Hotspot(link, "show_all", "", label))
            top = link.bottom() + 1 + self.SECTION_GAP
        if block.approval is not None and block.approval.preview:
            preview = capped(block.approval.preview.rstrip("\n"), PREVIEW_CHARS, PREVIEW_LINES)
            document = env.cached(("tool-preview", block.id, hash(preview)), inner - 2 * self.BOX_PAD,
                                  lambda: approval.diff_document(preview, inner - 2 * self.BOX_PAD, env.theme, env.theme.font("mono")))
            top = self._section(part, env, top, inner, QCoreApplication.translate("ToolCard", "Preview"), document)
        if running:
            top = self._output(part, env, top, inner, output_tail(block.output))
        if block.result is not None:
            top = self._section(part, env, top, inner, QCoreApplication.translate("ToolCard", "Error") if block.is_error
                else QCoreApplication.translate("ToolCard", "Result"),
                                self._plain(part, env, "result", capped(block.result), inner), error=block.is_error)
        if block.output and not running:  # what a stopped call printed (one that ended with a result has none)
            top = self._output(part, env, top, inner, output_tail(block.output, RESULT_CHARS, RESULT_LINES))
        top = self._images(part, env, top, inner)
        for title, text in ((QCoreApplication.translate("ToolCard", "Structured result"), capped(structured_text(block))),
            (QCoreApplication.translate("ToolCard", "Links"), link_lines(block))):
            if text:
                top = self._section(part, env, top, inner, title, self._plain(part, env, title, text, inner))
        if waiting:
            top = self._buttons(part, env, top, inner)
        return top

    def _output(self, part: Part, env: PaintEnv, top: int, inner: int, text: str) -> int:
        """The "Output" section: `text` as plain monospace text (never interpreted)."""
        return self._section(part, env, top, inner, QCoreApplication.translate("ToolCard", "Output"),
                             self._plain(part, env, "output", text, inner))

    def _plain(self, part: Part, env: PaintEnv, name: str, text: str, inner: int) -> QTextDocument:
        width, theme, font = inner - 2 * self.BOX_PAD, env.theme, env.theme.font("mono")
        return env.cached(("tool", part.message.id, part.index, name, hash(text)), width,
                          lambda: plain_document(text, width, theme, font))

    def _section(self, part: Part, env: PaintEnv, top: int, inner: int, title: str, document: QTextDocument, error: bool = False) -> int:
        label = self._rows(env)[2]
        part.items.append(CardItem("label", QRect(self.PAD, top, inner, label), title.upper(), error=error))
        box = QRect(self.PAD, top + label + 4, inner, documents_height([document]) + 2 * self.BOX_PAD)
        part.items.append(CardItem("box", box, document=document, error=error))
        part.documents.append(document)
        return box.bottom() + 1 + self.SECTION_GAP

    def _images(self, part: Part, env: PaintEnv, top: int, inner: int) -> int:
        note = QFontMetrics(env.theme.font("small")).height()
        for image in result_images(part.block, env.cards):
            if image is None:
                part.items.append(CardItem("note", QRect(self.PAD, top, inner, note), QCoreApplication.translate("ToolCard", BROKEN_IMAGE)))
                top += note + self.IMAGE_GAP
                continue
            size = image.size().scaled(QSize(min(inner, image.width()), image.height()), Qt.AspectRatioMode.KeepAspectRatio)
            part.items.append(CardItem("image", QRect(self.PAD, top, size.width(), size.height()), image=image))
            top += size.height() + self.IMAGE_GAP
        return top

    def _buttons(self, part: Part, env: PaintEnv, top: int, inner: int) -> int:
        block = part.block
        if block.id in env.cards.sending:
            height = approval.button_height(env.theme)
            part.items.append(CardItem("note", QRect(self.PAD, top, inner, height), QCoreApplication.translate("ToolCard", "Sending…")))
        else:
            hotspots, height = approval.lay_out_buttons(block, part.message, env, self.PAD, top, inner)
            part.hotspots.extend(hotspots)
        return top + height + self.PAD

    # --- painting ----------------------------------------------------------------------

    def paint(self, painter: QPainter, part: Part, rect: QRect, env: PaintEnv) -> None:
        theme, block = env.theme, part.block
        header, line, label = self._rows(env)
        fill_rounded(painter, rect, 10, theme.color("card"), theme.color("border"))
        inner = rect.adjusted(self.PAD, self.PAD, -self.PAD, -self.PAD)
        center_y = inner.top() + header // 2
        draw_chevron(painter, inner.left() + 5, center_y, part.expanded, theme.color("muted"))
        badge_left = draw_badge(painter, inner.right() + 1, center_y, theme.tool_badges[block.status], theme.font("small_bold"))
        if (risk := approval.risk_badge(block, theme)) is not None:
            badge_left = draw_badge(painter, badge_left - 6, center_y, risk, theme.font("small_bold"))
        elapsed = tool_elapsed(block, env.clock())
        elapsed_width = QFontMetrics(theme.font("small")).horizontalAdvance(elapsed) + 10 if elapsed else 0
        painter.setFont(theme.font("small"))
        painter.setPen(theme.color("muted"))
        painter.drawText(QRect(badge_left - elapsed_width, inner.top(), elapsed_width - 8, header), int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), elapsed)
        self._paint_name(painter, block, QRect(inner.left() + self.INDENT, inner.top(), badge_left - elapsed_width - inner.left() - self.INDENT - 8, header), env)
        args_rect = QRect(inner.left() + self.INDENT, inner.top() + header + 4, inner.width() - self.INDENT, line)
        mode = Qt.TextElideMode.ElideLeft if part.live and not block.arguments else Qt.TextElideMode.ElideRight
        painter.setFont(theme.font("mono"))
        painter.setPen(theme.color("muted"))
        summary = QFontMetrics(theme.font("mono")).elidedText(arguments_summary(block), mode, args_rect.width())
        painter.drawText(args_rect, int(Qt.AlignmentFlag.AlignVCenter), summary)
        decided, refused = approval.decision_text(block)
        if decided:
            decided_rect = QRect(args_rect.left(), args_rect.bottom() + 5, args_rect.width(), label)
            painter.setFont(theme.font("small_bold"))
            painter.setPen(theme.color("error_text") if refused else theme.color("muted"))
            painter.drawText(decided_rect, int(Qt.AlignmentFlag.AlignVCenter),
                             QFontMetrics(theme.font("small_bold")).elidedText(decided, Qt.TextElideMode.ElideRight, decided_rect.width()))
        for item in part.items:
            self._paint_item(painter, item, item.rect.translated(rect.topLeft()), env)
        for hotspot in part.hotspots:
            draw = approval.draw_link if hotspot.action == "show_all" else approval.draw_button
            draw(painter, hotspot, hotspot.rect.translated(rect.topLeft()), block.id, env)

    def _paint_name(self, painter: QPainter, block: ToolCallBlock, area: QRect, env: PaintEnv) -> None:
        """The tool's name, then "from SERVER" in muted small text when an MCP server offers it."""
        theme = env.theme
        name_metrics, small = QFontMetrics(theme.font("label")), QFontMetrics(theme.font("small"))
        origin = QCoreApplication.translate("ToolCard", "from {server}").format(server=block.source) if block.source else ""
        origin_width = min(small.horizontalAdvance(origin) + 8, area.width() // 2) if origin else 0
        name = name_metrics.elidedText(approval.shown_name(block), Qt.TextElideMode.ElideRight, area.width() - origin_width)
        painter.setFont(theme.font("label"))
        painter.setPen(theme.color("text"))
        painter.drawText(area, int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft), name)
        if origin:
            left = area.left() + name_metrics.horizontalAdvance(name) + 8
            painter.setFont(theme.font("small"))
            painter.setPen(theme.color("muted"))
            painter.drawText(QRect(left, area.top(), area.right() - left, area.height()), int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft),
                             small.elidedText(origin, Qt.TextElideMode.ElideRight, area.right() - left))

    def _paint_item(self, painter: QPainter, item: CardItem, area: QRect, env: PaintEnv) -> None:
        theme = env.theme
        if item.kind == "label":
            painter.setFont(theme.font("small_bold"))
            painter.setPen(theme.color("error_text") if item.error else theme.color("muted"))
            painter.drawText(area, int(Qt.AlignmentFlag.AlignVCenter), item.text)
        elif item.kind == "box":
            fill_rounded(painter, area, 6, theme.color("error_background") if item.error else theme.color("code_background"))
            color = theme.color("error_text") if item.error else theme.color("text")
            draw_documents(painter, [item.document], area.left() + self.BOX_PAD, area.top() + self.BOX_PAD, color)
        elif item.kind == "image":
            painter.drawImage(area, item.image)
            painter.setPen(theme.color("border"))
            painter.drawRect(area.adjusted(0, 0, -1, -1))
        else:
            painter.setFont(theme.font("small"))
            painter.setPen(theme.color("muted"))
            painter.drawText(area, int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft), item.text)

    def toggle_rect(self, part: Part, rect: QRect, env: PaintEnv) -> QRect | None:
        if approval.is_waiting(part.block):
            return None  # a waiting card stays open: its buttons must stay in sight
        return QRect(rect.left(), rect.top(), rect.width(), self._summary_height(part.block, env))
