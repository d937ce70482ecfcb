"""Seeds a conversation whose last reply reported a large request (a long log attached) and saves `context_meter.png`:
the composer with a question typed, the meter by it in amber ("173k / 200k") and its tooltip split by part.

    xvfb-run -a -s '-screen 0 1280x1024x24' python bench/demo_context_meter.py --out /tmp         # the tooltip is a window of its own: Xvfb, not offscreen

Not part of the test run.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QPoint, QTimer  # noqa: E402
from PySide6.QtGui import QCursor, QGuiApplication  # noqa: E402
from PySide6.QtWidgets import QToolTip  # noqa: E402

from bench._demo_support import demo_options, run_demo, seeded_window, show_at  # noqa: E402
from desktop_copilot.core.conversation.models import Conversation, Message, TextBlock, TextFileBlock, Usage  # noqa: E402

MODEL = "claude-sonnet-4-5"


def seed(store) -> str:
    log = "".join(f"2026-11-25 12:{i % 60:02d}:{i % 57:02d} WARN worker-{i % 16} retry {i % 7} after timeout on /api/jobs/{i}\n"
                  for i in range(12_000))
    conversation = Conversation(title="Why do the workers time out?", provider="anthropic", model=MODEL)
    question = Message.user("Here is yesterday's worker log. Why do the jobs keep timing out?",
                            [TextFileBlock(name="worker.log", text=log, size=len(log))])
    reply = Message.assistant(MODEL, "anthropic")
    reply.blocks = [TextBlock(text="The timeouts cluster on `/api/jobs`: every worker retries the same job ids after the "
                                   "queue's 30-second visibility timeout, so a slow job is picked up again while it still runs.")]
    reply.usage = Usage(input_tokens=212, cache_read_tokens=98_400, cache_write_tokens=41_300, output_tokens=1_180)
    conversation.messages = [question, reply]
    store.save_conversation(conversation)
    for seq, message in enumerate(conversation.messages):
        store.save_message(conversation.id, seq, message)
    return conversation.id


def main() -> int:
    options = demo_options(1000, 720)
    window, loop, store, conversation_id = seeded_window("dc-meter-", seed)
    show_at(window, options)
    window.history.open(conversation_id)

    def type_question() -> None:
        window.composer.set_text("Which job ids repeat most often, and since when?")
        window.composer.focus()
        meter = window.context_meter
        QCursor.setPos(meter.mapToGlobal(meter.rect().center()))  # a tooltip stays while the pointer is on its widget
        QTimer.singleShot(500, show_tooltip)

    def show_tooltip() -> None:
        meter = window.context_meter
        meter.update_now()
        QToolTip.showText(meter.mapToGlobal(QPoint(-330, -230)), meter.toolTip(), meter, meter.rect())  # above the meter
        QTimer.singleShot(700, shoot)

    def shoot() -> None:
        meter = window.context_meter
        corner = window.composer.mapToGlobal(QPoint(0, 0))
        left, top = window.mapToGlobal(QPoint(0, 0)).x(), max(0, corner.y() - 300)
        image = QGuiApplication.primaryScreen().grabWindow(0, left, top, window.width(), corner.y() - top + window.composer.height() + 16)
        image.save(str(options.out / "context_meter.png"))
        print(f"{meter.text()} ({meter.level}); saved {options.out / 'context_meter.png'}")
        window.close()

    QTimer.singleShot(900, type_question)
    return run_demo(window, loop, store)


if __name__ == "__main__":
    raise SystemExit(main())
