"""Seeds a conversation whose question carries a chart (an image) and a PDF, and saves `attachment_message.png`:
the image as a thumbnail and the PDF as a chip (name, size, pages) in the user's bubble, the reply under it, and
the composer with a file waiting as a chip.

    QT_QPA_PLATFORM=offscreen python bench/demo_attachments.py --out docs/screenshots

Not part of the test run.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, Qt, QTimer  # noqa: E402
from PySide6.QtGui import QColor, QFont, QImage, QPainter  # noqa: E402

from bench._demo_support import demo_options, run_demo, seeded_window, show_at  # noqa: E402
from desktop_copilot.core.content.attachments import attachment_from_bytes  # noqa: E402
from desktop_copilot.core.conversation.models import Conversation, Message, Role, TextBlock  # noqa: E402
from tests.support.attachment_files import pdf  # noqa: E402

QUESTION = "Does the chart match the figures in the report? Page 2 has the table."
ANSWER = """Mostly, yes. The chart and the table on page 2 agree for **Q1–Q3**:

| Quarter | Chart | Report |
|---|---:|---:|
| Q1 | 42 | 42 |
| Q2 | 57 | 57 |
| Q3 | 61 | 61 |
| Q4 | 78 | **74** |

Only **Q4** differs: the chart shows 78 where the report's table says 74. The report's note under the table says the
Q4 figure was revised after an audit, so the chart was probably made from the earlier number.
"""


def chart_png() -> bytes:
    """A small bar chart drawn with QPainter, as PNG bytes."""
    image = QImage(480, 300, QImage.Format.Format_RGB32)
    image.fill(QColor("#ffffff"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QColor("#1f1e1d"))
    painter.setFont(QFont("Sans", 16, QFont.Weight.Bold))
    painter.drawText(QRectF(0, 10, 480, 30), int(Qt.AlignmentFlag.AlignCenter), "Revenue by quarter")
    painter.setFont(QFont("Sans", 12))
    for n, (label, value) in enumerate((("Q1", 42), ("Q2", 57), ("Q3", 61), ("Q4", 78))):
        height = value * 2.6
        left = 60 + n * 100
        painter.fillRect(QRectF(left, 260 - height, 60, height), QColor(("#5b8def", "#5b8def", "#5b8def", "#e8744f")[n]))
        painter.drawText(QRectF(left, 265, 60, 24), int(Qt.AlignmentFlag.AlignCenter), label)
        painter.drawText(QRectF(left, 236 - height, 60, 22), int(Qt.AlignmentFlag.AlignCenter), str(value))
    painter.drawLine(40, 260, 450, 260)
    painter.end()
    array = QByteArray()
    buffer = QBuffer(array)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return bytes(array.data())


def seed(store) -> str:
    model = "claude-sonnet-4-6"
    conversation = Conversation(title="Quarterly chart vs report", provider="anthropic", model=model)
    files = [attachment_from_bytes(chart_png(), "revenue-chart.png"), attachment_from_bytes(pdf(12, "Quarterly report"), "Q4-report.pdf")]
    reply = Message(role=Role.ASSISTANT, model=model, provider="anthropic", blocks=[TextBlock(text=ANSWER)])
    conversation.messages = [Message.user(QUESTION, files), reply]
    store.save_conversation(conversation)
    for seq, message in enumerate(conversation.messages):
        store.save_message(conversation.id, seq, message)
    return conversation.id


def main() -> int:
    options = demo_options(1100, 820)
    out = options.out
    window, loop, store, _ = seeded_window("dc-attachments-", seed)
    show_at(window, options)
    notes = Path(__file__).resolve().parents[1] / "docs" / "ARCHITECTURE.md"

    def attach() -> None:
        window.composer.tray.add_files([str(notes)])  # a text file waiting as a chip
        window.composer.set_text("And the notes, for the next question")

    def shot() -> None:
        path = out / "attachment_message.png"
        window.view.scrollToTop()
        window.grab().save(str(path))
        print("saved", path, flush=True)

    for delay, step in ((600, attach), (1800, shot), (2000, window.close)):
        QTimer.singleShot(delay, step)
    return run_demo(window, loop, store)


if __name__ == "__main__":
    raise SystemExit(main())
