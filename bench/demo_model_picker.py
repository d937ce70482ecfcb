"""Runs the real window against a scripted loopback Anthropic + DeepSeek server and saves a screenshot of the model
picker open over a conversation that switched from Claude to DeepSeek (its "Switched to …" row showing).

    xvfb-run -a -s "-screen 0 1400x1000x24" dbus-run-session python bench/demo_model_picker.py --out docs/screenshots

Claude answers the first message; the picker is opened, "deepseek chat" typed and Enter pressed; DeepSeek answers
the second. Then the picker is opened again (no key for the other providers: they show greyed) and the screen
region of the window and its popup is saved as `model_picker.png` (a screen grab, so run it under Xvfb, not
offscreen). `--stay` keeps the window open. Not part of the test run.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import Qt, QTimer  # noqa: E402

from bench._demo_support import run_demo, seeded_window  # noqa: E402
from tests.support.chat_completions_support import chat_reply, chat_response  # noqa: E402
from tests.support.loopback import LoopbackServer, anthropic_text_reply, sse_response  # noqa: E402

FIRST = "What is a Python generator, in a few lines?"
CLAUDE = """A **generator** is a function that *yields* values one at a time instead of returning them all at once.
Each `yield` pauses the function and keeps its state, so the next value is computed only when asked for:

```python
def countdown(n):
    while n > 0:
        yield n
        n -= 1

print(list(countdown(3)))  # [3, 2, 1]
```

Generators are lazy, which makes them a good fit for:

- reading a large file line by line,
- endless sequences (`itertools.count()`),
- pipelines where each step feeds the next.
"""
SECOND = "Same question, one sentence, from you this time."
DEEPSEEK = "A generator is a function that produces its values lazily with `yield`, pausing between them."


def script(server: LoopbackServer) -> None:
    server.enqueue("/v1/messages", sse_response(anthropic_text_reply(CLAUDE, pieces=20, model="claude-sonnet-4-6"), delay=0.01))
    server.enqueue("/chat/completions", chat_response(chat_reply(DEEPSEEK, pieces=8, model="deepseek-chat"), delay=0.02))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="docs/screenshots")
    parser.add_argument("--stay", action="store_true")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=900)
    options = parser.parse_args()
    out = Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    server = LoopbackServer().start()
    script(server)
    os.environ.update({"ANTHROPIC_API_KEY": "sk-ant-demo", "ANTHROPIC_BASE_URL": server.url,
                       "DEEPSEEK_API_KEY": "sk-deepseek-demo", "DEEPSEEK_BASE_URL": server.url})
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtTest import QTest

    from desktop_copilot.core.config.settings import Settings, models_cache_now

    window, loop, store, _ = seeded_window("dc-picker-demo-", lambda _store: None)
    window.controller.session.runtime.settings = Settings(  # the lists the settings dialog would have cached
        provider_models={"anthropic": models_cache_now(["claude-sonnet-4-6", "claude-opus-4-1", "claude-haiku-4-5"]),
                         "deepseek": models_cache_now(["deepseek-chat", "deepseek-reasoner"])},
    )
    window.resize(options.width, options.height)
    window.move(0, 0)
    window.show()
    steps = iter(["switch", "shoot"])

    def shoot() -> None:
        popup = window.model_picker.popup
        area = window.frameGeometry().united(popup.frameGeometry())
        QGuiApplication.primaryScreen().grabWindow(0, area.x(), area.y(), area.width(), area.height()).save(
            str(out / "model_picker.png"))
        print("saved", out / "model_picker.png", flush=True)
        options.stay or window.close()

    def when_idle() -> None:
        step = next(steps, None)
        if step == "switch":
            popup = window.model_picker.open_popup()
            QTest.keyClicks(popup.search, "deepseek chat")
            QTimer.singleShot(300, lambda: (QTest.keyClick(popup.search, Qt.Key.Key_Return), window.composer.set_text(SECOND),
                                            QTimer.singleShot(300, window.composer.submit)))
        elif step == "shoot":
            window.view.scrollToBottom()
            window.model_picker.open_popup()
            QTimer.singleShot(800, shoot)  # the keys are checked, the rows repainted

    window.controller.sig_busy_changed.connect(lambda busy: busy or QTimer.singleShot(500, when_idle))
    window.composer.set_text(FIRST)
    QTimer.singleShot(300, window.composer.submit)
    try:
        return run_demo(window, loop, store)
    finally:
        server.stop()


if __name__ == "__main__":
    raise SystemExit(main())
