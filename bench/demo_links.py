"""Seeds a reply with images, allowed and refused links and cited sources, hovers a link, and saves
`inert_links.png`: images as placeholders, only web/mail links clickable, the hovered link's target in a
tooltip, the numbered sources under the text.

    Xvfb :96 -screen 0 1100x760x24 & DISPLAY=:96 python bench/demo_links.py --out docs/screenshots

The tooltip, a window of its own, is painted onto the window's grab where it stands. Not part of the test run.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QEvent, QPoint, QTimer  # noqa: E402
from PySide6.QtGui import QCursor, QHelpEvent, QPainter  # noqa: E402
from PySide6.QtWidgets import QApplication, QToolTip  # noqa: E402

from bench._demo_support import demo_options, run_demo, seeded_window, show_at  # noqa: E402
from desktop_copilot.core.conversation.models import Conversation, Message, Role, TextBlock  # noqa: E402

QUESTION = "What's the weather in Hong Kong today? Any chart?"
ANSWER = """Mostly **cloudy with a shower or two**, 24–28 °C ([forecast](https://www.hko.gov.hk/en/wxinfo/currwx/fnd.htm)).

Here is the chart: ![temperature chart](https://data.weather.gov.hk/chart.png)
and the one the page embeds locally: ![radar](/var/cache/radar.png)

Write to [the Observatory](mailto:mailbox@hko.gov.hk). The page also offered
[a network share](smb://files.example/forecast) and [an app link](weather-app://open) — shown as text only.
Careful with [https://www.hko.gov.hk](https://hko-weather.example/login): its text names another host.
"""
CITATIONS = [
    {"type": "web_search_result_location", "url": "https://www.hko.gov.hk/en/wxinfo/currwx/fnd.htm",
     "title": "Local Weather Forecast - Hong Kong Observatory", "cited_text": "Mainly cloudy with one or two showers."},
    {"type": "web_search_result_location", "url": "https://www.hko.gov.hk/en/wxinfo/currwx/fnd.htm",
     "title": "Local Weather Forecast - Hong Kong Observatory", "cited_text": "Temperatures 24 to 28 degrees."},
    {"type": "web_search_result_location", "url": "https://www.weather.gov.hk/en/", "title": "Hong Kong weather today",
     "cited_text": "Showers in the afternoon."},
    {"type": "char_location", "document_title": "travel-notes.txt", "cited_text": "Bring an umbrella in June.",
     "document_index": 0, "start_char_index": 0, "end_char_index": 26},
]
HOVERED = "https://hko-weather.example/login"


def seed(store) -> str:
    model = "claude-sonnet-4-5-20250929"
    conversation = Conversation(title="Hong Kong weather", model=model)
    reply = Message(role=Role.ASSISTANT, model=model, blocks=[TextBlock(text=ANSWER, citations=CITATIONS)])
    conversation.messages = [Message.user(QUESTION), reply]
    store.save_conversation(conversation)
    for seq, message in enumerate(conversation.messages):
        store.save_message(conversation.id, seq, message)
    return conversation.id


def _spot(view, href: str) -> QPoint | None:
    model = view.model()
    for row in range(model.rowCount()):
        index = model.index(row, 0)
        rect = view.visualRect(index)
        for y in range(max(0, rect.top()), min(rect.bottom(), view.viewport().height()), 3):
            for x in range(rect.left(), rect.right(), 3):
                hit = view.delegate.link_hit(index, rect, QPoint(x, y))
                if hit and hit.href == href:
                    return QPoint(x + 6, y)
    return None


def main() -> int:
    options = demo_options(1100, 760)
    out = options.out
    window, loop, store, _ = seeded_window("dc-links-", seed)
    show_at(window, options)

    def hover() -> None:
        view = window.view
        spot = _spot(view, HOVERED)
        if spot is None:
            print("link not on screen", flush=True)
            return
        where = view.viewport().mapToGlobal(spot)
        QCursor.setPos(where)
        QApplication.sendEvent(view.viewport(), QHelpEvent(QEvent.Type.ToolTip, spot, where))
        print("hovering", HOVERED, "at", spot, flush=True)

    def shot() -> None:
        """The window with the tooltip painted where it stands (a grab of the root window misses it under Xvfb)."""
        path = out / "inert_links.png"
        image = window.grab()
        painter = QPainter(image)
        for tip in (w for w in QApplication.topLevelWidgets() if w.inherits("QTipLabel") and w.isVisible()):
            painter.drawPixmap(tip.pos() - window.mapToGlobal(QPoint(0, 0)), tip.grab())
        painter.end()
        image.save(str(path))
        print("saved", path, "tooltip shown:", QToolTip.isVisible(), flush=True)

    for delay, step in ((800, hover), (2000, shot), (2200, window.close)):
        QTimer.singleShot(delay, step)
    return run_demo(window, loop, store)


if __name__ == "__main__":
    raise SystemExit(main())
