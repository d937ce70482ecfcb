"""The header of a code block in a Markdown part: its language and a Copy button (a hotspot), painted in the
CODE_HEADER space the renderer leaves above the code, and the exact code a click copies."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, QPoint, QRect, QRectF, Qt
from PySide6.QtGui import QFontMetrics, QPainter, QTextDocument, QTextFormat, QTextFrame, QTextTable

from desktop_copilot.qt.common.paint_helpers import fill_rounded
from desktop_copilot.qt.transcript.parts.base import Hotspot, PaintEnv, Part
from desktop_copilot.qt.transcript.parts.documents import Documents
from desktop_copilot.qt.transcript.parts.markdown import CODE_HEADER, code_blocks_of
from desktop_copilot.qt.transcript.parts.text_ranges import positioned

COPY_ACTION = "copy_code"
BUTTON_PAD_X, BUTTON_INSET = 8, 6
COPIED_MS = 1500
"""How long a Copy button says "Copied"."""


def copy_label() -> str:
    return QCoreApplication.translate("CodeBlock", "Copy")


def copied_label() -> str:
    return QCoreApplication.translate("CodeBlock", "Copied")


@dataclass(slots=True)
class CodeBox:
    """A code block's header strip (relative to the top-left of the part's documents, then of the part) and its language."""

    header: QRectF
    language: str


def _code_tables(frame: QTextFrame):
    """The code tables under `frame` in document order (one cell with a background; quotes have two cells,
    Markdown tables a header row and no background of their own)."""
    for child in frame.childFrames():
        if isinstance(child, QTextTable) and child.rows() == 1 and child.columns() == 1 \
                and child.format().hasProperty(QTextFormat.Property.BackgroundBrush):
            yield child
        yield from _code_tables(child)


def _header(document: QTextDocument, table: QTextTable) -> QRectF:
    cell = table.cellAt(0, 0)
    padding = cell.format().toTableCellFormat()
    layout = document.documentLayout()
    content = layout.blockBoundingRect(document.findBlock(cell.firstPosition()))  # where the code's first line starts
    left = content.left() - padding.leftPadding()
    return QRectF(left, content.top() - padding.topPadding(), layout.frameBoundingRect(table).width(), CODE_HEADER)


def code_boxes(documents: Documents) -> list[CodeBox]:
    boxes = []
    for document, top, _base in positioned(documents):
        languages = [language for language, _code in getattr(document, "code", [])]
        for number, table in enumerate(_code_tables(document.rootFrame())):
            language = languages[number] if number < len(languages) else ""
            boxes.append(CodeBox(_header(document, table).translated(0, top), language))
    return boxes


def lay_out(part: Part, env: PaintEnv, origin: QPoint) -> None:
    """Find the part's code blocks (documents drawn at `origin` within the part): `part.items` gets their
    headers, `part.hotspots` a Copy button on each (wide enough for "Copied" too)."""
    metrics = QFontMetrics(env.theme.font("small"))
    width = max(metrics.horizontalAdvance(copy_label()), metrics.horizontalAdvance(copied_label())) + 2 * BUTTON_PAD_X
    height = min(CODE_HEADER - 2 * 3, metrics.height() + 6)
    part.items = code_boxes(part.documents)
    part.hotspots = []
    for number, box in enumerate(part.items):
        box.header = box.header.translated(origin.x(), origin.y())
        header = box.header.toAlignedRect()
        button = QRect(header.right() - BUTTON_INSET - width + 1, header.top() + (CODE_HEADER - height) // 2 + 2, width, height)
        part.hotspots.append(Hotspot(button, COPY_ACTION, str(number), box.language))


def paint(painter: QPainter, part: Part, rect: QRect, env: PaintEnv) -> None:
    """The language at the left of each header, the Copy (or Copied) button at its right."""
    theme, font = env.theme, env.theme.font("small")
    painter.save()
    painter.setFont(font)
    for box, hotspot in zip(part.items, part.hotspots, strict=False):
        button = hotspot.rect.translated(rect.topLeft())
        key = (part.owner, hotspot.action, hotspot.value)
        if box.language:
            left = rect.left() + int(box.header.left()) + 10
            label = QRect(left, button.top(), max(0, button.left() - left - 10), button.height())
            painter.setPen(theme.color("muted"))
            text = QFontMetrics(font).elidedText(box.language, Qt.TextElideMode.ElideRight, label.width())
            painter.drawText(label, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), text)
        if env.cards.pressed == key or env.cards.hover == key:
            fill = "button_pressed" if env.cards.pressed == key else "button_hover"
            fill_rounded(painter, button, 5, theme.color(fill), theme.color("button_border"))
        painter.setPen(theme.color("text") if env.cards.hover == key else theme.color("muted"))
        painter.drawText(button, int(Qt.AlignmentFlag.AlignCenter), copied_label() if env.cards.copied == key else copy_label())
    painter.restore()


def code_of(part: Part, number: int) -> str:
    """The exact code of the part's code block `number` (as the reply wrote it, without the fences): read from
    the whole block's Markdown, so a block that runs over several rows is copied whole."""
    text, segment = part.block.text, part.segment
    start, end = (segment.start, segment.end) if segment is not None else (0, len(text))
    first = text.count("\n", 0, start)
    last = text.count("\n", 0, end) + (0 if end > 0 and text[end - 1] == "\n" else 1)
    overlapping = [code for top, bottom, code in code_blocks_of(text) if top < last and bottom > first]
    if number < len(overlapping):
        code = overlapping[number]
    else:  # not found in the block (should not happen): what this row rendered
        rendered = [code for item in part.documents for document, _t, _b in positioned([item]) for _l, code in getattr(document, "code", [])]
        code = rendered[number] if number < len(rendered) else ""
    return code[:-1] if code.endswith("\n") else code
