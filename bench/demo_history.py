"""Seeds a temporary store with conversations over several days and saves screenshots of the sidebar.

    DISPLAY=:99 dbus-run-session python bench/demo_history.py --out docs/screenshots

`sidebar.png`: the list grouped by day with the newest conversation open. `search.png`: the Chinese
query 天气 typed into the search field, its results, and the transcript jumped to a matching message.
`recovery.png`: a conversation whose reply was interrupted, with Retry and Continue. Not part of the test run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QTimer  # noqa: E402

from desktop_copilot.core.conversation.models import MessageStatus  # noqa: E402
from bench._demo_support import run_demo, seeded_window  # noqa: E402
from tests.support.history_seed import seed_conversation  # noqa: E402

WEATHER_ANSWER = """根据香港天文台的最新资料，今天香港**多云，有一两阵骤雨**，午后雷暴机会较高。

- 气温：**24–28 °C**，湿度 70–90%
- 风向：东风 3 至 4 级

> 出门建议带伞，下午骤雨机会较高。"""

CONVERSATIONS = [
    ("Learn French: travel phrases", 70, [("Teach me ten French phrases for a train station.", "1. **Où est le quai ?** — Where is the platform?\n2. **Un aller simple, s'il vous plaît.** — A one-way ticket, please.")]),
    ("Quarterly report outline", 40, [("Outline a Q3 engineering report.", "## Q3 report\n\n1. Highlights\n2. Delivery against plan\n3. Incidents\n4. Hiring\n5. Q4 priorities")]),
    ("Notes on PySide6 model/view", 15, [("When should I use a QListView with a delegate instead of widgets?", "Use a **model + delegate** when rows are many or cheap to paint: the view creates no widget per row.")]),
    ("台北周末天气与穿衣建议", 6, [("台北这个周末天气如何？该穿什么？", "台北周末以**多云到晴**为主，早晚温差较大，建议穿薄外套，午后可能有阵雨。")]),
    ("Birthday dinner menu for six", 5, [("Plan a birthday dinner for six, one vegetarian.", "**Starter:** burrata with peaches\n\n**Main:** roast chicken, and a mushroom risotto for the vegetarian guest")]),
    ("Explain Rust lifetimes with examples", 3, [("Explain Rust lifetimes with a short example.", "A lifetime names how long a reference is valid:\n\n```rust\nfn longest<'a>(a: &'a str, b: &'a str) -> &'a str { if a.len() > b.len() { a } else { b } }\n```")]),
    ("东京三日游行程", 1.3, [("帮我安排东京三日游", "**第一天**：浅草寺、晴空塔\n\n**第二天**：明治神宫、涩谷\n\n**第三天**：筑地市场、银座。十月东京天气凉爽，适合步行。")]),
    ("SQL window functions for running totals", 1.1, [("How do I compute a running total per customer in SQL?", "Use a window function:\n\n```sql\nSELECT customer_id, amount,\n       SUM(amount) OVER (PARTITION BY customer_id ORDER BY created_at) AS running_total\nFROM orders;\n```")]),
    ("Refactor the asyncio retry helper", 0.1, [("Refactor this retry helper to use asyncio.timeout.", "Here is a smaller version that uses `asyncio.timeout` and exponential backoff.")]),
    ("今天香港天气怎么样", 0.01, [("今天香港天气怎么样？", WEATHER_ANSWER), ("明天呢？会下雨吗？", "明天香港天气**大致多云**，早上有一两阵雨，下午天色好转，气温 25–29 °C。")]),
]
INTERRUPTED = ("Summarise the plot of 红楼梦", 0.2, [(
    "Summarise the plot of 红楼梦 in three paragraphs.",
    "**红楼梦** follows the decline of the wealthy Jia family through the eyes of Jia Baoyu, a sensitive young heir, "
    "and his cousins Lin Daiyu and Xue Baochai.\n\nThe first part of the novel ")])


def seed(store) -> dict[str, str]:
    ids = {}
    for title, age, turns in CONVERSATIONS:
        ids[title] = seed_conversation(store, title, turns, age_days=age).id
    title, age, turns = INTERRUPTED
    ids[title] = seed_conversation(store, title, turns, age_days=age, last_status=MessageStatus.INTERRUPTED,
                                   error="The app closed before this reply finished.").id
    return ids


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="docs/screenshots")
    parser.add_argument("--width", type=int, default=1200)
    parser.add_argument("--height", type=int, default=800)
    parser.add_argument("--query", default="天气")
    options = parser.parse_args()
    out = Path(options.out)
    out.mkdir(parents=True, exist_ok=True)

    def seed_newest_weather(store):
        ids = seed(store)
        store.touch_conversation(ids["今天香港天气怎么样"])  # the newest: opened at start
        return ids

    window, loop, store, ids = seeded_window("dc-history-", seed_newest_weather)
    window.resize(options.width, options.height)
    window.show()
    sidebar = window.history.sidebar

    def shot(name: str) -> None:
        window.grab().save(str(out / name))
        print("saved", out / name, flush=True)

    def search() -> None:
        sidebar.focus_search()
        sidebar.search_field.setText(options.query)

    def open_hit() -> None:
        results = sidebar.results
        rows = [r for r in range(results.rowCount()) if results.hit_at(r).conversation_id == ids["东京三日游行程"]]
        index = results.index(rows[0] if rows else 0, 0)
        sidebar.results_view.setCurrentIndex(index)
        sidebar.results_view.clicked.emit(index)

    def recovery() -> None:
        sidebar.search_field.clear()
        window.history.open(ids[INTERRUPTED[0]])

    steps = [(400, lambda: shot("sidebar.png")), (300, search), (500, open_hit), (350, lambda: shot("search.png")),
             (300, recovery), (500, lambda: shot("recovery.png")), (100, window.close)]
    delay = 0
    for pause, step in steps:
        delay += pause
        QTimer.singleShot(delay, step)
    return run_demo(window, loop, store)


if __name__ == "__main__":
    raise SystemExit(main())
