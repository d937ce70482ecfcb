"""The shell tool in the real window: the model asks to run a command, the card waits for the user, Allow once runs
it, and while it runs the card shows the output as it comes (plain monospace text, markup shown as typed); once it
is done the card shows the result as any other does, and the model gets the exit status and the output."""

from __future__ import annotations

import sys

import pytest
from PySide6.QtCore import Qt

from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.config.settings import Settings
from desktop_copilot.core.conversation.models import ToolCallStatus
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.qt.transcript.parts.tool_card import OUTPUT_LINES, output_tail
from tests.qt.conftest import window_replies
from tests.qt.transcript.parts.test_approval_card import card_geometry, hotspot_rect
from tests.support.loopback import anthropic_text_reply, anthropic_tool_reply, sse_response

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a POSIX shell command")

COMMAND = "echo '<b>not bold</b>'; for i in one two three four; do echo line-$i; sleep 0.4; done"


def send(qtbot, window, text: str) -> None:
    window.composer.edit.insertPlainText(text)
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)


def waiting_card_row(window) -> int:
    view = window.view
    for row in range(view.model().rowCount()):
        segment = view.transcript.segment_at(row)
        if segment.kind == "tool" and segment.state[0] == ToolCallStatus.AWAITING_APPROVAL.value:
            return row
    return -1


def tool_results(loopback, number: int) -> dict:
    body = loopback.requests_to("/v1/messages")[number].json()
    return {b["tool_use_id"]: b for b in body["messages"][-1]["content"] if b.get("type") == "tool_result"}


def shell_row(window) -> int:
    view = window.view
    for row in range(view.model().rowCount()):
        segment = view.transcript.segment_at(row)
        if segment.kind == "tool":
            return row
    return -1


def card_sections(window) -> dict[str, str]:
    """The card's sections as painted: title -> the plain text of its box."""
    view = window.view
    _rect, part = card_geometry(view, shell_row(window))
    sections, title = {}, None
    for item in part.items:
        if item.kind == "label":
            title = item.text
        elif item.kind == "box" and title is not None:
            sections[title] = item.document.toPlainText()
    return sections


def test_the_card_shows_the_output_while_the_command_runs(qtbot, loopback_env, make_window, tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    runtime = Runtime(AppPaths.resolve().ensure(), AppConfig.from_environment())
    runtime.settings = Settings(workspace_folder=str(workspace), enabled_tools={"shell"})
    window = make_window(runtime)
    loopback_env.enqueue("/v1/messages", sse_response(anthropic_tool_reply([("toolu_1", "shell", {"command": COMMAND})])),
                         sse_response(anthropic_text_reply("It printed four lines.")))
    send(qtbot, window, "run it")

    qtbot.waitUntil(lambda: waiting_card_row(window) >= 0, timeout=20000)
    call = window_replies(window)[0].tool_calls[0]
    assert call.name == "shell" and call.approval.risk == "destructive"
    window.view.scrollToBottom()
    window.view.viewport().repaint()
    qtbot.mouseClick(window.view.viewport(), Qt.MouseButton.LeftButton,
                     pos=hotspot_rect(window.view, "Allow once", waiting_card_row(window)).center())

    qtbot.waitUntil(lambda: "line-two" in card_sections(window).get("OUTPUT", ""), timeout=10000)
    assert call.status is ToolCallStatus.RUNNING  # shown before the command ended
    shown = card_sections(window)["OUTPUT"]
    assert shown.startswith("<b>not bold</b>\nline-one\nline-two")  # inert: the markup is shown as it was printed
    assert "Result" not in str(card_sections(window))
    window.view.viewport().repaint()  # and it paints

    qtbot.waitUntil(lambda: not window.controller.busy, timeout=20000)
    assert call.status is ToolCallStatus.DONE and call.output == ""
    assert "OUTPUT" not in card_sections(window)  # a finished card looks as any other: collapsed, result inside
    sent = tool_results(loopback_env, 1)["toolu_1"]
    assert sent["content"] == ("exit status 0\n--- stdout ---\n<b>not bold</b>\nline-one\nline-two\nline-three\nline-four\n"
                               "--- stderr ---\n(nothing)")
    assert window_replies(window)[-1].text == "It printed four lines."


def test_the_output_tail_is_the_last_lines():
    lines = [f"line {n}" for n in range(40)]
    tail = output_tail("\n".join(lines) + "\n")
    assert tail.split("\n")[1:] == lines[-OUTPUT_LINES:] and tail.split("\n")[0] == "… earlier output not shown"
    assert output_tail("one\ntwo\n") == "one\ntwo"
    assert output_tail("x" * 10_000, chars=100) == "… earlier output not shown\n" + "x" * 100
