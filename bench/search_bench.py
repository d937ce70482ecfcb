"""Full-text search over 50,000 stored messages (English and Chinese): p50 / p95 latency of Store.search
for several queries, the time to store and index them, and the cost of saving one message as the index
grows (it should stay flat: index rows are replaced by key), side by side in one run.

    python bench/search_bench.py [--messages 50000] [--repeats 40] [--growth 1000,2000,4000,8000]

The 50,000 messages are written through Store.save_message, as the app writes them. Not part of the test run.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from desktop_copilot.core.conversation.models import Conversation, Message, Role, TextBlock  # noqa: E402
from desktop_copilot.core.storage.store import Store  # noqa: E402

ENGLISH = ("the quick model answers every question about python asyncio tasks and event loops while the database "
           "keeps each conversation safe with write ahead logging and careful migrations so nothing is lost when the "
           "laptop sleeps or the network drops during a long streaming reply about rust lifetimes borrow checker "
           "sql window functions gardening recipes travel plans budgets and weather forecasts").split()
CHINESE = "今天香港天气怎么样明天会下雨吗数据库索引怎么设计请帮我安排东京三日游行程红楼梦的主要人物有哪些用中文解释异步编程"
RARE = {"zeppelin": "English rare", "饕餮": "Chinese rare"}
QUERIES = ["asyncio", "weather forecasts", "pyth", "rust lifetimes borrow", "zeppelin", "天气", "香港天气", "数据库 索引",
           "饕餮", "nothingmatcheshere"]


def sentence(rng: random.Random, n: int) -> str:
    if n % 3 == 2:  # a third of the messages are Chinese, with some English mixed in
        start = rng.randrange(len(CHINESE) - 24)
        return CHINESE[start:start + rng.randint(12, 24)] + " " + " ".join(rng.choices(ENGLISH, k=4))
    return " ".join(rng.choices(ENGLISH, k=rng.randint(12, 60))).capitalize() + "."


def build(store: Store, messages: int, per_conversation: int) -> None:
    rng = random.Random(7)
    for c in range(messages // per_conversation):
        conversation = Conversation(title=f"Conversation {c}: " + " ".join(rng.choices(ENGLISH, k=4)), model="claude-sonnet-4-5")
        store.save_conversation(conversation)
        for seq in range(per_conversation):
            n = c * per_conversation + seq
            text = sentence(rng, n)
            if n % 5000 == 1234:
                text += " zeppelin 饕餮"
            role = Role.USER if seq % 2 == 0 else Role.ASSISTANT
            store.save_message(conversation.id, seq, Message(role=role, blocks=[TextBlock(text=text)]))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def growth(sizes: list[int], per_conversation: int) -> None:
    print("Store.save_message (with its index update) as the index grows:")
    for size in sizes:
        with tempfile.TemporaryDirectory(prefix="dc-search-growth-") as folder:
            store = Store(Path(folder) / "growth.sqlite3")
            started = time.perf_counter()
            build(store, size, per_conversation)
            elapsed = time.perf_counter() - started
            store.close()
        print(f"  {size:>6,} messages: {elapsed:6.1f} s, {elapsed / size * 1e3:5.2f} ms per message on average")
    print()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=50_000)
    parser.add_argument("--per-conversation", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=40)
    parser.add_argument("--growth", default="1000,2000,4000,8000", help="sizes for the per-message cost ('' to skip)")
    options = parser.parse_args()
    if options.growth:
        growth([int(n) for n in options.growth.split(",")], options.per_conversation)
    with tempfile.TemporaryDirectory(prefix="dc-search-bench-") as folder:
        store = Store(Path(folder) / "bench.sqlite3")
        started = time.perf_counter()
        build(store, options.messages, options.per_conversation)
        written = time.perf_counter() - started
        size_mb = sum(p.stat().st_size for p in Path(folder).iterdir()) / 1e6
        print(f"{options.messages:,} messages in {options.messages // options.per_conversation:,} conversations, {size_mb:.0f} MB")
        print(f"  written and indexed through the Store API: {written:.1f} s\n")
        print(f"{'query':<24}{'hits':>6}{'p50 ms':>10}{'p95 ms':>10}{'max ms':>10}")
        for query in QUERIES:
            timings = []
            for _ in range(options.repeats):
                t0 = time.perf_counter()
                hits = store.search(query)
                timings.append((time.perf_counter() - t0) * 1e3)
            print(f"{query:<24}{len(hits):>6}{statistics.median(timings):>10.2f}{percentile(timings, 0.95):>10.2f}{max(timings):>10.2f}")
        store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
