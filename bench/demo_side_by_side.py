"""Asks three models at once (Anthropic, a Chat Completions server and Ollama, all on a loopback server) in the real
window and saves a screenshot of their answers in columns: one while they stream, one when they are done.

    Xvfb :97 & DISPLAY=:97 python bench/demo_side_by_side.py --out docs/screenshots

Not part of the test run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QTimer  # noqa: E402

from bench._demo_support import demo_options, run_demo, seeded_window, show_at  # noqa: E402
from tests.support import ollama_support  # noqa: E402
from tests.support.chat_completions_support import CHAT, chat_reply, chat_response  # noqa: E402
from tests.support.history_seed import seed_conversation  # noqa: E402
from tests.support.loopback import LoopbackServer, anthropic_text_reply, sse_response  # noqa: E402

QUESTION = "In two sentences: why do we still use SQLite for desktop apps?"
CLAUDE = ("SQLite is **one file** the app owns: no server to install, and it survives crashes through its "
          "write-ahead log.\n\nIt is also fast enough that a desktop app rarely notices it is there.")
THOUGHT = "The user wants brevity. Mention zero setup, durability, speed."
MISTRAL = ("Because it needs **no server** and stores everything in a single portable file.\n\n"
           "- ACID transactions\n- full-text search with FTS5\n- bindings in every language")
LLAMA = ("SQLite ships inside the app, so there is nothing for the user to run or configure. "
         "Its transactions keep data safe even when the power goes.")


def script(loopback: LoopbackServer) -> None:
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply(CLAUDE, pieces=30, model="claude-sonnet-4-6", input_tokens=412, output_tokens=96), delay=0.08))
    loopback.enqueue(CHAT, chat_response(chat_reply(MISTRAL, pieces=30, reasoning=THOUGHT, model="mistral-7b-instruct"), delay=0.09))
    words = LLAMA.split(" ")
    loopback.enqueue(ollama_support.CHAT, ollama_support.text_reply(*(w + " " for w in words), delay=0.12))


def main() -> int:
    options = demo_options(1440, 860)
    loopback = LoopbackServer().start()
    os.environ.update({"ANTHROPIC_API_KEY": "sk-ant-demo", "ANTHROPIC_BASE_URL": loopback.url,
                       "LMSTUDIO_BASE_URL": f"{loopback.url}/v1", "OLLAMA_HOST": loopback.url})
    script(loopback)
    window, loop, store, conversation_id = seeded_window("dc-side-by-side-", lambda store: seed_conversation(
        store, "Storage for the notes app", [("We are building a notes app with PySide6.",
                                               "Great — a native app keeps memory low. What would you like to decide first?")]).id)
    show_at(window, options)
    from desktop_copilot.core.side_by_side import ModelChoice

    def ask() -> None:
        window.history.open(conversation_id)
        window.composer.edit.setPlainText(QUESTION)
        window.side_by_side.ask(QUESTION, [ModelChoice("anthropic", "claude-sonnet-4-6"),
                                           ModelChoice("lmstudio", "mistral-7b-instruct"), ModelChoice("ollama", "llama3.2")])

    def shot(name: str) -> None:
        path = options.out / name
        window.grab().save(str(path))
        print("saved", path, flush=True)

    def done_shot() -> None:
        if window.controller.busy:
            QTimer.singleShot(300, done_shot)
            return
        QTimer.singleShot(300, lambda: (shot("side_by_side.png"), QTimer.singleShot(200, window.close)))

    for delay, step in ((500, ask), (3600, lambda: shot("side_by_side_streaming.png")), (3800, done_shot)):
        QTimer.singleShot(delay, step)
    try:
        return run_demo(window, loop, store)
    finally:
        loopback.stop()
        subprocess.run(["true"])


if __name__ == "__main__":
    sys.exit(main())
