"""Runs the real window against a scripted loopback Anthropic + Tavily server and saves screenshots.

    DISPLAY=:99 dbus-run-session python bench/demo_window.py --out docs/screenshots

The reply streams thinking, a `tavily_search` call and a Markdown answer (Chinese text, a Python code
block, a table). Screenshots: `streaming.png` and `tool_running.png` (mid-run), `main_window.png`
(finished, collapsed) and `expanded.png` (thinking and tool card expanded). `--scenario error` streams
a reply that breaks off with an overloaded error (`error.png`). `--stay` keeps the window open.
Not part of the test run.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QTimer  # noqa: E402

from tests.support.loopback import (  # noqa: E402
    LoopbackServer,
    anthropic_text_reply,
    anthropic_tool_reply,
    sse_response,
    tavily_results,
)

PROMPT = "今天香港天气怎么样？顺便给我一段用 Python 查询天气的示例代码。"
THINKING = (
    "The user asks (in Chinese) about today's weather in Hong Kong and wants a Python example. "
    "I don't know today's conditions, so I should search the web first, then answer in Chinese "
    "with a short summary, a code sample using the Hong Kong Observatory open data API, and a table."
)
ANSWER = """## 今天香港天气

根据香港天文台的最新资料，今天香港**多云，有一两阵骤雨**，午后雷暴机会较高：

- 气温：**24–28 °C**，湿度 70–90%
- 风向：东风 3 至 4 级
- 紫外线指数：中等

> 出门建议带伞，下午骤雨机会较高。

### 用 Python 查询天气

```python
import httpx

def hk_weather(lang: str = "tc") -> dict:
    url = "https://data.weather.gov.hk/weatherAPI/opendata/weather.php"
    response = httpx.get(url, params={"dataType": "rhrread", "lang": lang})
    return response.raise_for_status().json()

print(hk_weather()["temperature"]["data"][0])  # {'place': '京士柏', 'value': 26, ...}
```

| 时段 | 天气 | 气温 |
|------|------|------|
| 上午 | 多云 | 24 °C |
| 下午 | 骤雨 | 28 °C |

数据来源：[香港天文台](https://www.hko.gov.hk)。
"""


def script(server: LoopbackServer) -> None:
    call = ("toolu_demo_01", "tavily_search", {"query": "今天香港天气 香港天文台"})
    turn1 = anthropic_tool_reply([call], thinking=THINKING)
    turn1 = turn1[:2] + [e for e in _more_thinking(turn1[2:])]
    server.enqueue("/v1/messages", sse_response(turn1, delay=0.08))
    server.enqueue("/v1/messages", sse_response(anthropic_text_reply(ANSWER, pieces=90, msg_id="msg_demo_2"), delay=0.025))
    search = tavily_results("今天香港天气", [
        ("本港地区天气预报 - 香港天文台", "https://www.hko.gov.hk/sc/wxinfo/currwx/fnd.htm", "多云，有一两阵骤雨。气温介乎 24 至 28 度。吹和缓东风。"),
        ("Hong Kong weather today", "https://www.weather.gov.hk/en/", "Mainly cloudy with one or two showers. Temperatures 24-28 °C."),
    ])
    search.hold = 1.5  # long enough to see the running badge and its timer
    server.enqueue("/search", search)


ERROR_PROMPT = "Summarise the plot of 红楼梦 in three paragraphs."
PARTIAL = "**红楼梦** follows the decline of the wealthy Jia family through the eyes of Jia Baoyu, " \
    "a sensitive young heir, and his cousins Lin Daiyu and Xue Baochai.\n\nThe first part of the novel "


def script_error(server: LoopbackServer) -> None:
    """A reply that breaks off with an `overloaded_error` event after some text (HTTP 200 already sent)."""
    events = anthropic_text_reply(PARTIAL, pieces=30, msg_id="msg_demo_err")[:-3]
    events.append({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    server.enqueue("/v1/messages", sse_response(events, delay=0.03))


def _more_thinking(events: list[dict]) -> list[dict]:
    """Re-split the thinking into word-sized deltas, so the live timer visibly runs."""
    out, words = [], THINKING.split(" ")
    for event in events:
        if event.get("delta", {}).get("type") != "thinking_delta":
            out.append(event)
        elif words:
            out += [{**event, "delta": {"type": "thinking_delta", "thinking": w + " "}} for w in words]
            words = []
    return out


def _thinking_moment(window) -> bool:
    messages = window.controller.model.messages()
    return len(messages) >= 2 and len(messages[1].blocks) >= 1 and len(messages[1].blocks[0].thinking) > 150


def _tool_running_moment(window) -> bool:
    messages = window.controller.model.messages()
    calls = messages[1].tool_calls if len(messages) >= 2 else []
    return bool(calls) and calls[0].status == "running" and calls[0].started_at is not None and time.time() - calls[0].started_at > 0.8


def _shoot_when(window, condition, shot, name: str) -> None:
    poll = QTimer(window, interval=50)
    poll.timeout.connect(lambda: condition(window) and (poll.stop(), shot(name)))
    poll.start()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="docs/screenshots")
    parser.add_argument("--stay", action="store_true")
    parser.add_argument("--width", type=int, default=1100)
    parser.add_argument("--height", type=int, default=960)
    parser.add_argument("--scenario", choices=["weather", "error"], default="weather")
    options = parser.parse_args()
    out = Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    server = LoopbackServer().start()
    (script_error if options.scenario == "error" else script)(server)
    os.environ.update({
        "ANTHROPIC_API_KEY": "sk-ant-demo", "ANTHROPIC_BASE_URL": server.url,
        "TAVILY_API_KEY": "tvly-demo", "TAVILY_BASE_URL": server.url,
        "DESKTOP_COPILOT_HOME": os.environ.get("DESKTOP_COPILOT_HOME") or tempfile.mkdtemp(prefix="dc-demo-"),
    })
    from desktop_copilot.app.gui import create_application
    from desktop_copilot.app.window_setup import create_event_loop, create_main_window, run_until_closed
    from desktop_copilot.core.config.app_config import AppConfig
    from desktop_copilot.core.config.paths import AppPaths
    from desktop_copilot.core.runtime import Runtime
    from desktop_copilot.core.storage.store import Store

    app = create_application([])
    loop = create_event_loop(app)
    paths = AppPaths.resolve().ensure()
    store = Store(paths.database)
    window = create_main_window(Runtime(paths, AppConfig.from_environment()), store)
    window.resize(options.width, options.height)
    window.show()

    def shot(name: str) -> None:
        window.grab().save(str(out / name))
        print("saved", out / name, flush=True)

    def when_idle() -> None:
        if options.scenario == "error":
            shot("error.png")
            options.stay or window.close()
            return
        shot("main_window.png")
        delegate, model = window.view.delegate, window.controller.model
        first_reply = model.message_at(1)
        delegate.set_expanded(first_reply.id, 0, True)
        delegate.set_expanded(first_reply.id, 1, True)
        window.view.doItemsLayout()
        window.view.scrollTo(model.index(1, 0))
        QTimer.singleShot(400, lambda: (shot("expanded.png"), options.stay or window.close()))

    window.controller.sig_busy_changed.connect(lambda busy: busy or QTimer.singleShot(600, when_idle))
    if options.scenario == "weather":
        _shoot_when(window, _thinking_moment, shot, "streaming.png")
        _shoot_when(window, _tool_running_moment, shot, "tool_running.png")
    window.composer.set_text(ERROR_PROMPT if options.scenario == "error" else PROMPT)
    QTimer.singleShot(300, window.composer.submit)
    try:
        run_until_closed(window, loop)
    finally:
        store.close()
        loop.close()
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
