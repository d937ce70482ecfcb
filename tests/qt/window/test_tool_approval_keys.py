"""Approval from the keyboard alone in the real window, through the real controller and a built-in write_file call
the loopback Anthropic server asks for: Tab from the message box puts the focus ring on the waiting card's first
button; Enter allows the call (the file is written, the model gets the result), Esc denies it through the reason box
(nothing is written, the model gets the reason), as the buttons' clicks do. Two calls at once: the keyboard answers
the first, then the ring is on the next."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QInputDialog

from desktop_copilot.core.approval.grants import GrantStore
from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.config.settings import Settings
from desktop_copilot.core.conversation.models import ToolCallStatus
from desktop_copilot.core.runtime import Runtime
from tests.qt.window.test_tool_approval_window import replies, send, tool_results, waiting_card_row
from tests.support.loopback import anthropic_text_reply, anthropic_tool_reply, sse_response


@pytest.fixture
def keyboard_window(qtbot, loopback_env, make_window, tmp_path):
    """The real window with a workspace (the file tools on), active, the focus in the message box."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    paths = AppPaths.resolve().ensure()
    runtime = Runtime(paths, AppConfig.from_environment())
    runtime.settings = Settings(workspace_folder=str(workspace))
    runtime.grants = GrantStore(paths.config_dir / "permissions.json")
    window = make_window(runtime)
    window.activateWindow()
    qtbot.waitUntil(window.composer.edit.hasFocus)
    return window, workspace


def wait_for_card(qtbot, window) -> None:
    qtbot.waitUntil(lambda: waiting_card_row(window) >= 0, timeout=20000)
    qtbot.waitUntil(lambda: window.view.focusPolicy() == Qt.FocusPolicy.TabFocus)
    assert window.composer.edit.hasFocus()  # the user is still in the message box


def ask_to_note_milk(qtbot, window, loopback, answer: str) -> None:
    """The model asks to write todo.md (then says `answer`); its card waits, the focus still in the message box."""
    loopback.enqueue("/v1/messages",
                     sse_response(anthropic_tool_reply([("toolu_1", "write_file", {"path": "todo.md", "content": "milk"})])),
                     sse_response(anthropic_text_reply(answer)))
    send(qtbot, window, "note milk")
    wait_for_card(qtbot, window)


def ring(window) -> tuple:
    return window.view.delegate.env.cards.focused


def test_tab_then_enter_allows_the_call_and_it_runs(qtbot, loopback_env, keyboard_window):
    window, workspace = keyboard_window
    ask_to_note_milk(qtbot, window, loopback_env, "Written.")
    assert "write_file" in window.view.accessibleDescription()

    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Tab)
    assert window.view.hasFocus() and ring(window) == ("toolu_1", "decide", "allow_once")
    assert "Allow once, button 1 of" in window.view.accessibleDescription()
    qtbot.keyClick(window.view, Qt.Key.Key_Return)

    qtbot.waitUntil(lambda: not window.controller.busy, timeout=20000)
    call = replies(window)[0].tool_calls[0]
    assert call.status is ToolCallStatus.DONE and call.approval.decision == "allow_once"
    assert (workspace / "todo.md").read_text() == "milk"
    assert tool_results(loopback_env, 1)["toolu_1"].get("is_error") is not True
    assert window.composer.edit.hasFocus() and ring(window) == ()  # back in the message box when the reply is done
    assert window.view.focusPolicy() == Qt.FocusPolicy.NoFocus


def test_esc_denies_the_call_and_nothing_runs(qtbot, loopback_env, keyboard_window):
    window, workspace = keyboard_window
    ask_to_note_milk(qtbot, window, loopback_env, "OK, nothing written.")
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Tab)
    qtbot.keyClick(window.view, Qt.Key.Key_Right)  # wherever the ring is on the card, Esc denies the call

    asked = []

    def answer() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, QInputDialog):
            QTimer.singleShot(20, answer)
            return
        asked.append(dialog.windowTitle())
        dialog.setTextValue("not now")
        dialog.accept()

    QTimer.singleShot(0, answer)
    qtbot.keyClick(window.view, Qt.Key.Key_Escape)

    qtbot.waitUntil(lambda: not window.controller.busy, timeout=20000)
    call = replies(window)[0].tool_calls[0]
    assert asked == ["Deny write_file"]
    assert call.status is ToolCallStatus.CANCELLED and call.approval.decision == "deny" and call.approval.reason == "not now"
    assert not (workspace / "todo.md").exists()
    denied = tool_results(loopback_env, 1)["toolu_1"]
    assert denied["is_error"] is True and "not now" in denied["content"]
    assert replies(window)[-1].text == "OK, nothing written."


def test_two_waiting_calls_are_answered_one_after_the_other(qtbot, loopback_env, keyboard_window):
    window, workspace = keyboard_window
    loopback_env.enqueue("/v1/messages",
                         sse_response(anthropic_tool_reply([("toolu_1", "write_file", {"path": "a.md", "content": "A"}),
                                                            ("toolu_2", "write_file", {"path": "b.md", "content": "B"})])),
                         sse_response(anthropic_text_reply("Both done.")))
    send(qtbot, window, "write a and b")
    qtbot.waitUntil(lambda: len(window.controller.waiting_calls) == 2, timeout=20000)
    wait_for_card(qtbot, window)
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Tab)
    assert ring(window) == ("toolu_1", "decide", "allow_once")
    qtbot.keyClick(window.view, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: ring(window) == ("toolu_2", "decide", "allow_once"))
    assert window.view.hasFocus()
    qtbot.keyClick(window.view, Qt.Key.Key_Return)

    qtbot.waitUntil(lambda: not window.controller.busy, timeout=20000)
    calls = replies(window)[0].tool_calls
    assert [c.status for c in calls] == [ToolCallStatus.DONE, ToolCallStatus.DONE]
    assert (workspace / "a.md").read_text() == "A" and (workspace / "b.md").read_text() == "B"
