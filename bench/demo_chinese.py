"""Shows the window in Simplified Chinese (the zh_CN translation installed before any widget is built, as
`app/gui.py main` does for Settings.language "zh_CN") with a short Chinese conversation, a tool card and a
thinking row, and saves `chinese_ui.png`; then opens the Settings dialog on Models (the Language choice)
scrolled down to the Language choice, and saves `chinese_settings.png`.

    QT_QPA_PLATFORM=offscreen python bench/demo_chinese.py --out docs/screenshots
    (or under Xvfb: Xvfb :96 -screen 0 1100x760x24 & DISPLAY=:96 python bench/demo_chinese.py)

Chinese glyphs need a CJK font (fonts-noto-cjk, in packaging/debian-test-deps.txt). Not part of the test run.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from bench._demo_support import demo_options, run_demo, seeded_window, show_at  # noqa: E402
from desktop_copilot.core.conversation.models import (  # noqa: E402
    Conversation,
    Message,
    Role,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolCallStatus,
    Usage,
)
from desktop_copilot.qt.i18n import install_translator  # noqa: E402

QUESTION = "帮我查一下杭州明天的天气，适合去西湖骑车吗？"
ANSWER = """明天杭州**多云转晴**，气温 18–26 °C，东北风 2–3 级，降水概率约 10%。

适合骑车环湖，建议：

1. 上午 9 点前出发，避开苏堤、白堤的人流高峰；
2. 环湖一圈约 **15 公里**，骑行 1 小时左右；
3. 下午紫外线较强，记得防晒、多喝水。

傍晚可以在**断桥**附近看日落。"""


def seed(store) -> str:
    install_translator(QApplication.instance(), "zh_CN")  # before the window is built, as app/gui.py does
    model = "claude-sonnet-4-5-20250929"
    now = time.time()
    conversation = Conversation(title="杭州天气与西湖骑行", model=model)
    search = ToolCallBlock(id="toolu_demo_1", name="tavily_search", arguments={"query": "杭州 明天 天气预报"},
                           status=ToolCallStatus.DONE, result="杭州：明天多云转晴，18–26 °C，东北风 2–3 级。",
                           started_at=now - 9, ended_at=now - 7.6)
    reply = Message(role=Role.ASSISTANT, model=model, usage=Usage(input_tokens=2_310, output_tokens=412),
                    blocks=[ThinkingBlock(thinking="先查天气预报，再给出骑行建议。", started_at=now - 12, ended_at=now - 9),
                            search, TextBlock(text=ANSWER)])
    conversation.messages = [Message.user(QUESTION), reply]
    store.save_conversation(conversation)
    for seq, message in enumerate(conversation.messages):
        store.save_message(conversation.id, seq, message)
    return conversation.id


def main() -> int:
    options = demo_options(1100, 760)
    window, loop, store, _ = seeded_window("dc-chinese-", seed)
    show_at(window, options)

    def shot(name: str, widget=None) -> None:
        path = options.out / name
        (widget or window).grab().save(str(path))
        print("saved", path, flush=True)

    def settings() -> None:
        from desktop_copilot.qt.settings.entry import open_settings

        dialog = open_settings(window, "models")
        bar = dialog._scrolls["models"].verticalScrollBar()
        QTimer.singleShot(500, lambda: bar.setValue(bar.maximum()))  # down to Interface ▸ Language
        QTimer.singleShot(800, lambda: (shot("chinese_settings.png", dialog), dialog.reject()))

    for delay, step in ((900, lambda: shot("chinese_ui.png")), (1100, settings), (2400, window.close)):
        QTimer.singleShot(delay, step)
    return run_demo(window, loop, store)


if __name__ == "__main__":
    raise SystemExit(main())
