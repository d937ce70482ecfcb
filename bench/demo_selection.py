"""Seeds a reply with prose and code, drags a selection over a passage with real mouse events and saves
`selection.png`, then clicks a code block's Copy button and saves `code_copy.png` (language label, "Copied").

    QT_QPA_PLATFORM=offscreen python bench/demo_selection.py --out docs/screenshots
    (or under Xvfb: Xvfb :96 -screen 0 1100x760x24 & DISPLAY=:96 python bench/demo_selection.py)

Not part of the test run.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, Qt, QTimer  # noqa: E402
from PySide6.QtGui import QGuiApplication, QMouseEvent  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from bench._demo_support import demo_options, run_demo, seeded_window, show_at  # noqa: E402
from desktop_copilot.core.conversation.models import Conversation, Message, Role, TextBlock  # noqa: E402
from desktop_copilot.qt.transcript.parts.text_ranges import find_text, point_of  # noqa: E402

QUESTION = "How do I read a large CSV file in Python without running out of memory?"
ANSWER = """Read it in **chunks** instead of all at once. With pandas, pass `chunksize` and handle each piece as it
arrives; memory then depends on the chunk size, not on the file.

```python
import pandas as pd

total = 0
for chunk in pd.read_csv("sales.csv", chunksize=100_000):
    total += chunk["amount"].sum()
print(f"Total: {total:,.2f}")
```

If you only need a few columns, add `usecols=["amount"]`: pandas then skips the others while parsing, which
saves both time and memory. For plain rows without pandas, the standard library's `csv` module reads one line
at a time:

```bash
python -c "import csv; print(sum(1 for _ in csv.reader(open('sales.csv'))))"
```
"""
FROM, TO = "Read it in", "not on the file."


def seed(store) -> str:
    model = "claude-sonnet-4-5-20250929"
    conversation = Conversation(title="Large CSV files", model=model)
    reply = Message(role=Role.ASSISTANT, model=model, blocks=[TextBlock(text=ANSWER)])
    conversation.messages = [Message.user(QUESTION), reply]
    store.save_conversation(conversation)
    for seq, message in enumerate(conversation.messages):
        store.save_message(conversation.id, seq, message)
    return conversation.id


def _spot(view, needle: str, after: int = 0) -> QPoint | None:
    """Where `needle` (+`after` characters) is painted, in viewport coordinates."""
    model = view.model()
    for row in range(model.rowCount()):
        index = model.index(row, 0)
        found = view.delegate.text_part(index, view.visualRect(index))
        at = find_text(found[0].documents, needle) if found else None
        if at is not None:
            return (point_of(found[0].documents, at + after) + found[1] + QPointF(1.5, 0)).toPoint()
    return None


def _mouse(viewport, kind: QEvent.Type, at: QPoint, buttons) -> None:
    button = Qt.MouseButton.NoButton if kind == QEvent.Type.MouseMove else Qt.MouseButton.LeftButton
    QApplication.sendEvent(viewport, QMouseEvent(kind, QPointF(at), QPointF(viewport.mapToGlobal(at)), button, buttons,
                                                 Qt.KeyboardModifier.NoModifier))


def main() -> int:
    options = demo_options(1100, 760)
    out = options.out
    window, loop, store, _ = seeded_window("dc-selection-", seed)
    show_at(window, options)

    def select() -> None:
        view = window.view
        view.verticalScrollBar().setValue(0)
        view.viewport().repaint()
        start, end = _spot(view, FROM), _spot(view, TO, after=len(TO) - 1)
        if start is None or end is None:
            print("passage not on screen", flush=True)
            return
        viewport, held = view.viewport(), Qt.MouseButton.LeftButton
        _mouse(viewport, QEvent.Type.MouseButtonPress, start, held)
        for step in range(1, 9):
            _mouse(viewport, QEvent.Type.MouseMove, start + (end + QPoint(6, 0) - start) * (step / 8), held)
        _mouse(viewport, QEvent.Type.MouseButtonRelease, end + QPoint(6, 0), Qt.MouseButton.NoButton)
        view.copy_selection()
        print("selected:", repr(QGuiApplication.clipboard().text()), flush=True)

    def shot(name: str) -> None:
        path = out / name
        window.grab().save(str(path))
        print("saved", path, flush=True)

    def copy_code() -> None:
        view = window.view
        view.clear_selection()
        model = view.model()
        for row in range(model.rowCount()):
            index = model.index(row, 0)
            rect = view.visualRect(index)
            layout = view.delegate.layout(index)
            column = view.delegate.env.column(QRect(rect.left(), rect.top(), view.delegate.width, layout.height))
            for part in layout.parts:
                for hotspot in part.hotspots:
                    if hotspot.action == "copy_code" and hotspot.label == "python":
                        at = hotspot.rect.translated(layout.part_rect(part, column).topLeft()).center()
                        viewport = view.viewport()
                        _mouse(viewport, QEvent.Type.MouseMove, at, Qt.MouseButton.NoButton)
                        _mouse(viewport, QEvent.Type.MouseButtonPress, at, Qt.MouseButton.LeftButton)
                        _mouse(viewport, QEvent.Type.MouseButtonRelease, at, Qt.MouseButton.NoButton)
                        print("copied code:", repr(QGuiApplication.clipboard().text()), flush=True)
                        return
        print("no python code block on screen", flush=True)

    for delay, step in ((800, select), (1300, lambda: shot("selection.png")), (1500, copy_code),
                        (1700, lambda: shot("code_copy.png")), (1900, window.close)):
        QTimer.singleShot(delay, step)
    return run_demo(window, loop, store)


if __name__ == "__main__":
    raise SystemExit(main())
