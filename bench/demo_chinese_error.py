"""Shows a provider error in the Chinese interface: the window in Simplified Chinese (the zh_CN translation installed
before any widget is built, as `app/gui.py main` does for Settings.language "zh_CN") sends a question to the loopback
Anthropic server, which answers 401 (an invalid key); the reply fails with the core's message said in Chinese
(core/words.py through the Qt translation), saved as `zh_provider_error.png`.

    Xvfb :96 -screen 0 1600x1000x24 & DISPLAY=:96 python bench/demo_chinese_error.py --out docs/screenshots

Chinese glyphs need a CJK font (fonts-noto-cjk). Not part of the test run.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtWidgets import QApplication  # noqa: E402

from bench._demo_support import ask_in_new_chat, demo_options, run_scenario, show_at  # noqa: E402
from bench._demo_workspace import configured_window  # noqa: E402
from desktop_copilot.qt.i18n import install_translator  # noqa: E402
from tests.support.loopback import LoopbackServer, anthropic_error  # noqa: E402

QUESTION = "用三句话介绍一下西湖。"


def seed(store) -> None:
    install_translator(QApplication.instance(), "zh_CN")  # before the window is built, as app/gui.py does


def main() -> int:
    options = demo_options(1100, 700)
    loopback = LoopbackServer().start()
    loopback.enqueue("/v1/messages", anthropic_error(401, "authentication_error", "invalid x-api-key"))
    window, loop, store, _runtime, _ = configured_window("dc-zh-error-", loopback, settings={"language": "zh_CN"}, seed=seed)
    show_at(window, options)

    async def scenario() -> None:
        await asyncio.sleep(0.8)
        await ask_in_new_chat(window, QUESTION, lambda: not window.controller.busy, 10)
        await asyncio.sleep(0.6)
        window.view.scrollToBottom()
        await asyncio.sleep(0.3)
        path = options.out / "zh_provider_error.png"
        window.grab().save(str(path))
        print("saved", path, flush=True)
        window.close()

    return run_scenario(window, loop, store, scenario, loopback)


if __name__ == "__main__":
    raise SystemExit(main())
