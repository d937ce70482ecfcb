"""Seeds a long conversation whose older turns are compacted and saves screenshots of the compaction marker, collapsed
(with the context meter by the composer) and opened (the summary sent in the messages' place, then the originals), in
the light and the dark theme.

    xvfb-run -a python bench/demo_compaction.py --out docs/screenshots

Saves `compaction.png` (light, collapsed) in --out, and all four (compaction_light_collapsed.png,
compaction_light_open.png, compaction_dark_collapsed.png, compaction_dark_open.png) in /tmp. Not part of the test run.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QTimer  # noqa: E402
from PySide6.QtWidgets import QAbstractItemView, QApplication  # noqa: E402

from bench._demo_support import demo_options, run_demo, seeded_window, show_at  # noqa: E402
from desktop_copilot.core.conversation.models import Compaction  # noqa: E402
from desktop_copilot.qt.common.theme_switch import install_theme_switch, theme_switch  # noqa: E402
from tests.support.history_seed import seed_conversation  # noqa: E402

TURNS = [
    ("I'm planning two weeks along the Yangtze in April. Where should I start?",
     ("Start in **Shanghai** and travel upstream: the river towns are easier by rail going west, and April is before the "
      "summer floods.")),
    ("How long should I stay in Nanjing?", "Two days covers the Ming city wall, the Presidential Palace and Xuanwu Lake."),
    ("Is the Three Gorges cruise worth it?", "Yes, from Yichang to Chongqing: three nights, the dam's ship lift on day one."),
    ("Which cruise line?", "Century Cruises for the cabins, Yangtze Gold for the food; both sail the same route."),
    ("What about Wuhan?", "One day: the Yellow Crane Tower, the Hubei museum's bronze bells, then the night train to Yichang."),
    ("Budget per day?", "About ¥900 outside the cruise: hotels ¥450, trains ¥200, food ¥250."),
    ("Visa?", "A 30-day tourist visa, or the 240-hour transit if you fly in and out through different countries."),
    ("Any festivals in April?", "Qingming (April 4–6) fills trains: book those days a month ahead."),
    ("OK. Can you turn all this into a day-by-day plan?",
     ("Here is the plan, upstream from Shanghai:\n\n| Days | Where | What |\n|---|---|---|\n| 1–2 | Shanghai | the Bund, Yu "
      "Garden |\n| 3–4 | Nanjing | city wall, Xuanwu Lake |\n| 5 | Wuhan | Yellow Crane Tower |\n| 6–9 | Yichang → Chongqing | "
      "Three Gorges cruise |\n| 10–11 | Chongqing | Ciqikou, hotpot |\n| 12–14 | Chengdu | pandas, Leshan Buddha |")),
    ("Add a rest day somewhere.", "Make day 11 a rest day in Chongqing: the riverside cable car in the evening is enough."),
]
SUMMARY = """The user plans two weeks along the Yangtze in April and asked where to start, how long to stay, and costs.
- Start in Shanghai, travel upstream by rail; April is before the summer floods.
- Nanjing: two days (Ming city wall, Presidential Palace, Xuanwu Lake). Wuhan: one day (Yellow Crane Tower, Hubei museum).
- Three Gorges cruise Yichang → Chongqing, three nights; Century Cruises (cabins) or Yangtze Gold (food).
- Budget about ¥900 a day outside the cruise. Visa: 30-day tourist, or the 240-hour transit.
- Qingming (April 4–6) fills trains: book a month ahead."""
COMPACTED = 16
"""The first eight turns."""


def seed(store) -> dict:
    conversation = seed_conversation(store, "Two weeks on the Yangtze", TURNS, model="claude-sonnet-4-5")
    messages = conversation.messages
    compaction = Compaction(first_message_id=messages[0].id, last_message_id=messages[COMPACTED - 1].id, summary=SUMMARY,
                            messages=COMPACTED, tokens_before=118_400, tokens_after=6_200, provider="anthropic",
                            model="claude-haiku-4-5")
    store.save_compaction(conversation.id, 0, compaction)
    return {"compaction": compaction}


def main() -> int:
    options = demo_options(1100, 760)
    window, loop, store, seeded = seeded_window("dc-compaction-", seed)
    install_theme_switch(QApplication.instance(), "light")
    show_at(window, options)
    compaction_id = seeded["compaction"].id
    saved: list[Path] = []

    def show(opened: bool) -> None:
        view = window.view
        view.toggle_compaction(compaction_id, opened)
        model = view.transcript
        view.scrollTo(model.index(model.row_of(model.message_id_at(0)), 0), QAbstractItemView.ScrollHint.PositionAtTop)
        view.viewport().repaint()
        view.scrollTo(model.index(0, 0), QAbstractItemView.ScrollHint.PositionAtTop)  # the heights are measured now

    def shoot(name: str) -> None:
        path = Path("/tmp") / f"compaction_{name}.png"
        window.grab().save(str(path))
        saved.append(path)
        print("saved", path, flush=True)

    def dark() -> None:
        theme_switch().set_setting("dark")

    def finish() -> None:
        shutil.copyfile(saved[0], options.out / "compaction.png")
        print("saved", options.out / "compaction.png", flush=True)
        window.close()

    steps = ((900, lambda: show(False)), (1100, lambda: shoot("light_collapsed")), (1300, lambda: show(True)),
             (1500, lambda: shoot("light_open")), (1700, dark), (2100, lambda: show(False)), (2300, lambda: shoot("dark_collapsed")),
             (2500, lambda: show(True)), (2700, lambda: shoot("dark_open")), (2900, finish))
    for delay, step in steps:
        QTimer.singleShot(delay, step)
    return run_demo(window, loop, store)


if __name__ == "__main__":
    raise SystemExit(main())
