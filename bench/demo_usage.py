"""Seeds a month of replies from several models (one without a known price) and saves `usage_view.png`:
View ▸ Usage with its period tiles, the chart per day and the table per model.

    QT_QPA_PLATFORM=offscreen python bench/demo_usage.py --out docs/screenshots

Not part of the test run.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QTimer  # noqa: E402

from bench._demo_support import demo_options, run_demo, seeded_window, show_at  # noqa: E402
from desktop_copilot.core.conversation.models import Conversation, Message, TextBlock, Usage  # noqa: E402

MODELS = [("anthropic", "claude-sonnet-4-6", 1.0), ("anthropic", "claude-haiku-4-5", 0.6), ("openai", "gpt-4.1-mini", 0.4),
          ("deepseek", "deepseek-chat", 0.5), ("ollama", "qwen3:8b", 0.3), ("custom-lab", "lab-model-x", 0.15)]


def seed(store) -> str:
    rng = random.Random(7)
    now = time.time()
    last = ""
    for day in range(30, -1, -1):
        for _ in range(rng.randint(0, 4)):
            provider, model, weight = rng.choice(MODELS)
            if rng.random() > weight + 0.3:
                continue
            stamp = now - day * 86400 - rng.randint(0, 6 * 3600)
            conversation = Conversation(title=f"Chat {day}", model=model, provider=provider, created_at=stamp, updated_at=stamp)
            messages = [Message.user("…")]
            for _ in range(rng.randint(1, 6)):
                reply = Message.assistant(model, provider)
                reply.blocks = [TextBlock(text="…")]
                reply.usage = Usage(input_tokens=rng.randint(2_000, 40_000), output_tokens=rng.randint(200, 4_000),
                                    cache_read_tokens=rng.randint(0, 20_000) if provider == "anthropic" else 0)
                reply.created_at = stamp
                messages.append(reply)
            conversation.messages = messages
            store.save_conversation(conversation)
            for seq, message in enumerate(messages):
                store.save_message(conversation.id, seq, message)
            last = conversation.id
    return last


def main() -> int:
    options = demo_options(1100, 760)
    window, loop, store, _ = seeded_window("dc-usage-", seed)
    show_at(window, options)

    def shoot() -> None:
        from desktop_copilot.qt.usage.usage_view import open_usage_view

        view = open_usage_view(window, window.controller.session.runtime, store)
        view.resize(900, 700)

        def grab() -> None:
            view.grab().save(str(options.out / "usage_view.png"))
            view.close()
            window.close()

        QTimer.singleShot(600, grab)

    QTimer.singleShot(800, shoot)
    return run_demo(window, loop, store)


if __name__ == "__main__":
    raise SystemExit(main())
