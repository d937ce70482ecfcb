"""The attachments of a user's message, drawn in its bubble above the text: a thumbnail per image (decoded in
memory with QImageReader, capped in bytes and pixels; never a file or the network) and a chip per PDF or text file
(its name, size and pages)."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

from PySide6.QtCore import QBuffer, QByteArray, QCoreApplication, QIODevice, QRect, QSize, Qt
from PySide6.QtGui import QFontMetrics, QImage, QImageReader, QPainter

from desktop_copilot.core.conversation.models import DocumentBlock, ImageBlock, Message, TextFileBlock
from desktop_copilot.core.providers.attachment_limits import human_size
from desktop_copilot.qt.common.paint_helpers import fill_rounded
from desktop_copilot.qt.common.theme import Theme
from desktop_copilot.qt.transcript.parts.base import PaintEnv, Part

THUMBNAIL_SIZE = QSize(220, 160)
"""An image's thumbnail fits this box."""
MAX_DECODED_BYTES = 24 * 1024 * 1024
MAX_DECODED_PIXELS = 8000 * 8000
"""An image larger than this (file bytes, or pixels as its header claims) is shown as a chip, not decoded."""
THUMBNAIL_FORMATS = {"png", "jpeg", "jpg", "gif", "webp"}
CHIP_WIDTH, CHIP_HEIGHT = 220, 44
GAP = 8
RADIUS = 8


@dataclass(slots=True)
class Tile:
    """One attachment laid out: `rect` relative to the strip's top-left; an image's thumbnail, or a chip's lines."""

    rect: QRect
    image: QImage | None = None
    badge: str = ""
    title: str = ""
    detail: str = ""


def decode_image(data: str, box: QSize = THUMBNAIL_SIZE, *, max_bytes: int = MAX_DECODED_BYTES,
                 max_pixels: int = MAX_DECODED_PIXELS) -> QImage | None:
    """The base64 image `data` decoded in memory and scaled into `box`; None when it is not an image Qt reads, is
    bigger than `max_bytes` (file) or `max_pixels` (as its header claims: nothing that big is decoded), or broken."""
    if not isinstance(data, str) or not data or len(data) > max_bytes * 4 // 3 + 16:
        return None
    try:
        raw = base64.b64decode(data, validate=True)
    except (ValueError, binascii.Error):
        return None
    buffer = QBuffer()
    buffer.setData(QByteArray(raw))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buffer)
    reader.setDecideFormatFromContent(True)
    size = reader.size()
    if bytes(reader.format().data()).decode("ascii", "replace").lower() not in THUMBNAIL_FORMATS:
        return None
    if not size.isValid() or size.isEmpty() or size.width() * size.height() > max_pixels:
        return None
    scaled = size.scaled(box.boundedTo(size), Qt.AspectRatioMode.KeepAspectRatio) if size.width() > box.width() or size.height() > box.height() else size
    reader.setScaledSize(scaled)
    image = reader.read()
    return None if image.isNull() else image


def chip_lines(block: ImageBlock | DocumentBlock | TextFileBlock) -> tuple[str, str, str]:
    """(badge, name, detail) of an attachment's chip: "PDF", "report.pdf", "1.2 MB · 12 pages"."""
    size = human_size(block.size)
    if isinstance(block, DocumentBlock):
        pages = ""
        if block.pages:
            pages = QCoreApplication.translate("Attachments", "1 page") if block.pages == 1 else \
                QCoreApplication.translate("Attachments", "{count} pages").format(count=block.pages)
        return "PDF", block.name, " · ".join(p for p in (size, pages) if p)
    if isinstance(block, ImageBlock):
        return "IMG", block.name, f"{size} · {block.width}×{block.height}"
    suffix = block.name.rsplit(".", 1)[-1].upper()[:4] if "." in block.name else "TXT"
    return suffix, block.name, size


def _thumbnail(env: PaintEnv, message: Message, index: int, block: ImageBlock) -> QImage | None:
    """Decoded once, a few kept (the tool cards' LRU of thumbnails, keyed by message id and block index)."""
    images = env.cards.images
    key = (message.id, index)
    if key not in images:
        images[key] = decode_image(block.data)
        while len(images) > 24:
            images.popitem(last=False)
    images.move_to_end(key)
    return images[key]


def layout_attachments(message: Message, env: PaintEnv, width: int) -> tuple[list[Tile], int, int]:
    """The tiles of `message`'s attachments flowed left to right in `width`: (tiles, height, widest row)."""
    tiles: list[Tile] = []
    x = y = row_height = widest = 0
    for index, block in enumerate(message.blocks):
        if not isinstance(block, ImageBlock | DocumentBlock | TextFileBlock):
            continue
        image = _thumbnail(env, message, index, block) if isinstance(block, ImageBlock) else None
        size = image.size() if image is not None else QSize(min(CHIP_WIDTH, width), CHIP_HEIGHT)
        if x and x + size.width() > width:
            x, y, row_height = 0, y + row_height + GAP, 0
        badge, title, detail = chip_lines(block)
        tiles.append(Tile(QRect(x, y, size.width(), size.height()), image, badge, title, detail))
        x += size.width() + GAP
        row_height = max(row_height, size.height())
        widest = max(widest, x - GAP)
    return tiles, (y + row_height) if tiles else 0, widest


def draw_attachments(painter: QPainter, tiles: list[Tile], left: int, top: int, theme: Theme) -> None:
    for tile in tiles:
        rect = tile.rect.translated(left, top)
        if tile.image is not None:
            painter.drawImage(rect, tile.image)
            continue
        _draw_chip(painter, rect, tile, theme)


def _draw_chip(painter: QPainter, rect: QRect, tile: Tile, theme: Theme) -> None:
    fill_rounded(painter, rect, RADIUS, theme.color("card"), theme.color("border"))
    badge = QRect(rect.left() + 6, rect.top() + 6, rect.height() - 12, rect.height() - 12)
    fill_rounded(painter, badge, 6, theme.color("accent"))
    painter.save()
    painter.setFont(theme.font("small_bold"))
    painter.setPen(theme.color("card"))
    painter.drawText(badge, int(Qt.AlignmentFlag.AlignCenter), tile.badge)
    text_left = badge.right() + 8
    text_width = max(10, rect.right() - 8 - text_left)
    body, small = theme.font("body"), theme.font("small")
    title = QFontMetrics(body).elidedText(tile.title, Qt.TextElideMode.ElideMiddle, text_width)
    painter.setFont(body)
    painter.setPen(theme.color("text"))
    line = QFontMetrics(body).height()
    painter.drawText(QRect(text_left, rect.top() + 4, text_width, line), int(Qt.AlignmentFlag.AlignVCenter), title)
    painter.setFont(small)
    painter.setPen(theme.color("muted"))
    detail = QFontMetrics(small).elidedText(tile.detail, Qt.TextElideMode.ElideRight, text_width)
    painter.drawText(QRect(text_left, rect.top() + 4 + line, text_width, rect.bottom() - 4 - line - rect.top()),
                     int(Qt.AlignmentFlag.AlignTop), detail)
    painter.restore()


def lay_out(part: Part, env: PaintEnv, width: int) -> int:
    """Lay out the attachments of a user message's first piece in `part.items`; their height (0: none)."""
    segment = part.segment
    if segment is not None and not segment.head:
        part.items = []
        return 0
    part.items, height, _widest = layout_attachments(part.message, env, width)
    return height


def strip_width(part: Part) -> int:
    return max((tile.rect.right() + 1 for tile in part.items if isinstance(tile, Tile)), default=0)


def text_offset(part: Part) -> int:
    """How far below the attachments the text starts (0 without attachments)."""
    bottom = max((tile.rect.bottom() + 1 for tile in part.items if isinstance(tile, Tile)), default=0)
    return bottom + GAP if bottom else 0


def draw(painter: QPainter, part: Part, left: int, top: int, theme: Theme) -> None:
    draw_attachments(painter, [tile for tile in part.items if isinstance(tile, Tile)], left, top, theme)
