"""Per-update cost of streaming a long Markdown reply into the transcript view (DESIGN §4).

    QT_QPA_PLATFORM=offscreen python bench/transcript_streaming.py

Streams a ~19 KB Markdown answer as ~800 deltas into the real model + view + delegate, one model
update per delta (the worst case: the controller normally coalesces to one per frame), and times
each update including the re-layout and repaint Qt does for it. Side by side: re-rendering the whole
Markdown into a QTextDocument per delta, the strategy the delegate avoids. Not part of the tests.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtWidgets import QApplication  # noqa: E402

from desktop_copilot.core.conversation import events as ev  # noqa: E402
from desktop_copilot.core.conversation.accumulate import accumulate  # noqa: E402
from desktop_copilot.core.conversation.models import Message  # noqa: E402
from desktop_copilot.qt.transcript.parts.documents import markdown_document  # noqa: E402
from desktop_copilot.qt.common.theme import DEFAULT_THEME  # noqa: E402
from desktop_copilot.qt.transcript.model import TranscriptModel  # noqa: E402
from desktop_copilot.qt.transcript.view import TranscriptView  # noqa: E402


def long_answer(target: int = 19_000) -> str:
    parts, n = [], 0
    while sum(map(len, parts)) < target:
        n += 1
        parts.append(f"### Section {n}\n\nSome **bold** text, `inline code` and a [link](https://example.com/{n}). " * 2 + "\n\n")
        parts.append("- first point\n- second point with more words\n- third\n\n")
        if n % 3 == 0:
            parts.append("```python\n" + "".join(f"value_{i} = compute({i}, scale={n})\n" for i in range(8)) + "```\n\n")
    return "".join(parts)


def deltas_of(text: str, count: int = 816) -> list[str]:
    size = -(-len(text) // count)
    return [text[i : i + size] for i in range(0, len(text), size)]


def stream_into_view(app: QApplication, deltas: list[str]) -> list[float]:
    model = TranscriptModel()
    reply = Message.assistant()
    accumulate(reply, ev.Start(model="bench"))
    model.set_messages([Message.user("Explain everything."), reply])
    view = TranscriptView(model)
    view.resize(900, 700)
    view.show()
    app.processEvents()
    times = []
    for delta in deltas:
        start = time.perf_counter()
        accumulate(reply, ev.TextDelta(index=0, text=delta))
        model.message_changed(reply.id)
        app.processEvents()
        view.viewport().repaint()
        times.append(time.perf_counter() - start)
    start = time.perf_counter()
    accumulate(reply, ev.Done(reason="end_turn"))
    model.message_changed(reply.id)
    app.processEvents()
    view.viewport().repaint()
    times.append(time.perf_counter() - start)  # the one exact render at the end
    view.close()
    return times


def rerender_everything(deltas: list[str]) -> list[float]:
    times, text = [], ""
    for delta in deltas:
        text += delta
        start = time.perf_counter()
        markdown_document(text, 820, DEFAULT_THEME).size()
        times.append(time.perf_counter() - start)
    return times


def summary(name: str, times: list[float]) -> str:
    quarter = max(1, len(times) // 4)
    first, last = statistics.mean(times[:quarter]) * 1000, statistics.mean(times[-quarter - 1 : -1]) * 1000
    return f"{name:<34} mean {statistics.mean(times) * 1000:6.2f} ms  first quarter {first:6.2f}  last quarter {last:6.2f}  total {sum(times):6.2f} s"


def main() -> int:
    app = QApplication.instance() or QApplication(sys.argv)
    text = long_answer()
    deltas = deltas_of(text)
    print(f"{len(text):,} characters in {len(deltas)} deltas")
    ours = stream_into_view(app, deltas)
    naive = rerender_everything(deltas)
    print(summary("view update (live Markdown)", ours))
    print(summary("full re-render per delta (doc only)", naive))
    print(f"ratio of totals: {sum(naive) / sum(ours):.1f}x   final exact render: {ours[-1] * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
