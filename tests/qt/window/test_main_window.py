"""The real window against a loopback Anthropic + Tavily server: send through the composer, watch the
thinking, tool card and Markdown arrive in the model; Stop mid-stream; a 401 shows the error banner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from PySide6.QtCore import Qt

from desktop_copilot.core.conversation.models import MessageStatus, Role, TextBlock, ThinkingBlock, ToolCallBlock, ToolCallStatus
from tests.support.loopback import (
    anthropic_error,
    anthropic_text_reply,
    anthropic_tool_reply,
    corpus_chunks,
    sse_response,
    tavily_results,
)

ANSWER = "## 香港天气\n\n今天香港**多云**，气温 24–28 °C。\n\n```python\nprint('带伞')\n```\n"


def _assistant(window):
    return [m for m in window.controller.model.messages() if m.role is Role.ASSISTANT]


def _type_and_send(qtbot, window, text: str) -> None:
    window.composer.edit.insertPlainText(text)  # keyClicks asserts on non-ASCII characters
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)


def test_thinking_tool_call_and_markdown_arrive_in_the_transcript(qtbot, loopback_env, make_window):
    loopback = loopback_env
    loopback.enqueue(
        "/v1/messages",
        sse_response(anthropic_tool_reply(
            [("toolu_01", "tavily_search", {"query": "今天香港天气"})],
            thinking="The user asks about Hong Kong weather today. I should search.",
        )),
        sse_response(anthropic_text_reply(ANSWER, pieces=12, msg_id="msg_test_0003")),
    )
    loopback.enqueue("/search", tavily_results("今天香港天气", [("HK Observatory", "https://www.hko.gov.hk", "Cloudy, 24-28 °C")]))
    window = make_window()

    _type_and_send(qtbot, window, "今天香港天气怎么样")

    qtbot.waitUntil(lambda: window.composer.busy, timeout=2000)
    qtbot.waitUntil(lambda: len(_assistant(window)) == 2 and not window.controller.busy, timeout=15000)
    first, second = _assistant(window)
    assert isinstance(first.blocks[0], ThinkingBlock) and first.blocks[0].ended_at is not None
    call = first.blocks[1]
    assert isinstance(call, ToolCallBlock) and call.status is ToolCallStatus.DONE
    assert call.arguments == {"query": "今天香港天气"} and "HK Observatory" in call.result
    assert isinstance(second.blocks[0], TextBlock) and second.blocks[0].text == ANSWER
    assert second.status is MessageStatus.COMPLETED
    model = window.controller.model  # what the transcript shows: a row per part, in order
    assert [model.segment_at(row).kind for row in model.rows_of(first.id)] == ["thinking", "tool"]
    assert {model.segment_at(row).kind for row in model.rows_of(second.id)} == {"text"}
    shown = "".join(model.index(row, 0).data() for row in model.rows_of(second.id)[:1])
    assert shown == ANSWER
    window.view.viewport().repaint()
    assert all(window.view.rows.measured[row] for row in range(model.rowCount()))
    assert window.composer.button.text() == "Send" and window.composer.text() == ""
    assert window.banner.isHidden()
    tokens_in, tokens_out = (sum(getattr(m.usage, f) for m in (first, second)) for f in ("input_tokens", "output_tokens"))
    assert tokens_in > 0 and tokens_out > 0  # the two replies' usage as the stream reported it, summed
    from desktop_copilot.qt.window.usage_display import format_usage, session_totals

    totals = session_totals(window.controller.session)
    assert (totals.counts.input, totals.counts.output) == (tokens_in, tokens_out)
    assert window.usage_label.text() == format_usage(totals) and f"{tokens_in:,} in" in window.usage_label.text()
    assert window.model_label.text() == window.controller.model_name
    assert [r.path for r in loopback.requests] == ["/v1/messages", "/search", "/v1/messages"]


def test_corpus_stream_with_an_unknown_tool_gets_an_error_card(qtbot, loopback_env, make_window):
    loopback_env.enqueue(
        "/v1/messages",
        sse_response(corpus_chunks("anthropic_thinking_tool_use_01.sse")),
        sse_response(anthropic_text_reply("I could not check the weather.", msg_id="msg_test_0009")),
    )
    window = make_window()
    assert window.send("What's the weather?")
    qtbot.waitUntil(lambda: not window.controller.busy and len(_assistant(window)) == 2, timeout=15000)
    call = _assistant(window)[0].tool_calls[0]
    assert call.status is ToolCallStatus.ERROR and "Unknown tool" in call.result


def test_stop_mid_stream_keeps_the_partial_reply_and_reenables_the_composer(qtbot, loopback_env, make_window):
    slow = anthropic_text_reply("word " * 200, pieces=200)
    loopback_env.enqueue("/v1/messages", sse_response(slow, delay=0.05))
    window = make_window()
    assert window.send("Write a long answer")
    qtbot.waitUntil(lambda: bool(_assistant(window)) and len(_assistant(window)[0].text) > 20, timeout=10000)
    assert window.composer.button.text() == "Stop"

    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Escape)

    qtbot.waitUntil(lambda: not window.controller.busy, timeout=5000)
    reply = _assistant(window)[0]
    assert reply.status is MessageStatus.STOPPED
    assert 20 < len(reply.text) < len("word " * 200)
    assert window.composer.button.text() == "Send" and not window.composer.busy
    assert window.banner.isHidden()


def test_a_401_is_said_once_under_the_reply_not_again_in_the_banner(qtbot, loopback_env, make_window):
    loopback_env.enqueue("/v1/messages", anthropic_error(401, "authentication_error", "invalid x-api-key"))
    window = make_window()
    assert window.send("Hello")
    qtbot.waitUntil(lambda: not window.controller.busy and bool(_assistant(window)) and bool(_assistant(window)[0].error), timeout=10000)
    reply = _assistant(window)[0]
    assert reply.status is MessageStatus.FAILED and "invalid x-api-key" in reply.error  # the transcript's notice
    qtbot.waitUntil(lambda: window.recovery.isVisible(), timeout=5000)  # Retry, with what went wrong
    assert window.banner.isHidden()


def test_missing_key_gives_the_text_back_and_explains(qtbot, qasync_loop, make_window, monkeypatch):
    window = make_window()
    _type_and_send(qtbot, window, "Hello there")
    qtbot.waitUntil(lambda: not window.banner.isHidden(), timeout=5000)
    assert "ANTHROPIC_API_KEY" in window.banner.text()
    assert window.composer.text() == "Hello there"
    assert window.controller.model.rowCount() == 0


def test_gui_main_shows_the_window_before_importing_the_sdk_and_exits_cleanly(tmp_path):
    script = textwrap.dedent(
        """
        import json, sys
        from PySide6.QtCore import QTimer
        from PySide6.QtWidgets import QApplication
        app = QApplication(["desktop-copilot"])
        from desktop_copilot.app import gui
        seen = {}
        def check():
            windows = [w for w in app.topLevelWidgets() if isinstance(w, gui.MainWindow) and w.isVisible()]
            seen["visible_windows"] = len(windows)
            seen["sdk_imported"] = "anthropic" in sys.modules
            windows[0].close()
        QTimer.singleShot(50, check)
        seen["exit_code"] = gui.main([])
        print(json.dumps(seen))
        """
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "DESKTOP_COPILOT_HOME": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=90, cwd=Path(__file__).parents[3]
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"visible_windows": 1, "sdk_imported": False, "exit_code": 0}
    assert (tmp_path / "data" / "conversations.sqlite3").exists()


def test_gui_main_in_the_dark_theme_shows_a_dark_first_frame_and_a_dark_window(tmp_path):
    """The first frame takes the theme from settings.json, and the parts built after it follow the switch installed
    then (a sidebar built with the default theme once stayed light)."""
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "settings.json").write_text(json.dumps({"theme": "dark"}))
    script = textwrap.dedent(
        """
        import json
        from PySide6.QtCore import QTimer
        from PySide6.QtWidgets import QApplication
        app = QApplication(["desktop-copilot"])
        from desktop_copilot.app import gui
        from desktop_copilot.qt.common.theme import DARK_THEME
        from desktop_copilot.qt.window import startup_frame
        seen = {}
        painted = startup_frame.StartupFrame.paintEvent
        def first_paint(frame, event):
            painted(frame, event)
            seen.setdefault("first_frame_dark", f"background: {DARK_THEME.background}" in frame.styleSheet())
        startup_frame.StartupFrame.paintEvent = first_paint
        def check():
            window = next(w for w in app.topLevelWidgets() if isinstance(w, gui.MainWindow) and w.isVisible())
            sidebar = window.history.sidebar
            seen["sidebar"] = sidebar.grab().toImage().pixelColor(sidebar.width() - 5, sidebar.height() - 5).lightness()
            seen["transcript"] = window.view.grab().toImage().pixelColor(20, 20).lightness()
            window.close()
        QTimer.singleShot(1500, check)
        seen["exit_code"] = gui.main([])
        print(json.dumps(seen))
        """
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "DESKTOP_COPILOT_HOME": str(tmp_path)}
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=90,
                            cwd=Path(__file__).parents[3])
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["exit_code"] == 0
    assert seen["first_frame_dark"] and seen["sidebar"] < 80 and seen["transcript"] < 80, seen
