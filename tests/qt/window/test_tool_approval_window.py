"""Approval in the real window: a real stdio MCP server (on the manager's own thread) offers its tools, the loopback
Anthropic server asks for the destructive one, the card waits in the transcript with the server's name, and a click
on it decides: Allow once runs the call, Deny sends the model the reason, "Always allow" is kept for the next run. A
built-in write_file call also offers "always allow writing files like this": the rule it adds lets the next call of
that folder run without asking."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QInputDialog

from desktop_copilot.core.approval.grants import GrantStore
from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.mcp.manager import McpManager, ServerState
from desktop_copilot.core.mcp.server_config import McpServerConfig
from desktop_copilot.core.conversation.models import Role, ToolCallStatus
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.config.settings import Settings
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.qt.transcript.parts.approval import decision_text
from tests.qt.conftest import run_async
from tests.qt.transcript.parts.test_approval_card import card_geometry, hotspot_rect
from tests.support.loopback import anthropic_text_reply, anthropic_tool_reply, sse_response

DEMO = Path(__file__).resolve().parents[2] / "support" / "mcp_servers" / "demo_server.py"


@pytest.fixture
def mcp_window(qtbot, loopback_env, make_window):
    paths = AppPaths.resolve().ensure()
    runtime = Runtime(paths, AppConfig.from_environment())
    runtime.grants = GrantStore(paths.config_dir / "permissions.json")
    manager = McpManager.from_configs([McpServerConfig(name="demo", command=sys.executable, args=[str(DEMO), "--transport", "stdio"])])
    runtime.mcp = manager
    runtime.registry.add_provider(manager)
    manager.start()
    run_async(qtbot, manager.wait_ready(30), timeout=40000)
    assert [s.state for s in manager.statuses()] == [ServerState.READY], manager.statuses()
    window = make_window(runtime)
    yield window, runtime
    manager.stop()


def send(qtbot, window, text):
    window.composer.edit.insertPlainText(text)
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_Return)


def waiting_card_row(window) -> int:
    view = window.view
    for row in range(view.model().rowCount()):
        segment = view.transcript.segment_at(row)
        if segment.kind == "tool" and segment.state[0] == ToolCallStatus.AWAITING_APPROVAL.value:
            return row
    return -1


def replies(window):
    return [m for m in window.controller.model.messages() if m.role is Role.ASSISTANT]


def tool_results(loopback, number):
    body = loopback.requests_to("/v1/messages")[number].json()
    return {b["tool_use_id"]: b for b in body["messages"][-1]["content"] if b.get("type") == "tool_result"}


def test_allow_once_on_the_card_runs_the_destructive_call(qtbot, loopback_env, mcp_window):
    window, _runtime = mcp_window
    loopback_env.enqueue("/v1/messages",
                         sse_response(anthropic_tool_reply([("toolu_1", "mcp__demo__delete_note", {"name": "todo"})])),
                         sse_response(anthropic_text_reply("Deleted your todo note.")))
    send(qtbot, window, "delete my todo note")

    qtbot.waitUntil(lambda: waiting_card_row(window) >= 0, timeout=20000)
    call = replies(window)[0].tool_calls[0]
    assert call.source == "demo" and call.approval.risk == "destructive"
    assert window.controller.waiting_calls == ["toolu_1"]
    assert "waiting for your approval" in window.statusBar().currentMessage()
    window.view.scrollToBottom()
    row = waiting_card_row(window)
    window.view.viewport().repaint()
    qtbot.mouseClick(window.view.viewport(), Qt.MouseButton.LeftButton, pos=hotspot_rect(window.view, "Allow once", row).center())

    qtbot.waitUntil(lambda: not window.controller.busy, timeout=20000)
    assert call.status is ToolCallStatus.DONE and call.approval.decision == "allow_once"
    assert tool_results(loopback_env, 1)["toolu_1"]["content"] == "deleted todo"
    assert window.statusBar().currentMessage() == ""


def test_deny_on_the_card_sends_the_reason_and_keeps_the_conversation_going(qtbot, loopback_env, mcp_window):
    window, _runtime = mcp_window
    loopback_env.enqueue("/v1/messages",
                         sse_response(anthropic_tool_reply([("toolu_1", "mcp__demo__delete_note", {"name": "todo"})])),
                         sse_response(anthropic_text_reply("OK, I kept it.")))
    send(qtbot, window, "delete my todo note")
    qtbot.waitUntil(lambda: waiting_card_row(window) >= 0, timeout=20000)
    window.view.scrollToBottom()
    window.view.viewport().repaint()

    def answer() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, QInputDialog):
            QTimer.singleShot(20, answer)
            return
        dialog.setTextValue("keep it until Friday")
        dialog.accept()

    QTimer.singleShot(0, answer)
    qtbot.mouseClick(window.view.viewport(), Qt.MouseButton.LeftButton,
                     pos=hotspot_rect(window.view, "Deny…", waiting_card_row(window)).center())

    qtbot.waitUntil(lambda: not window.controller.busy, timeout=20000)
    call = replies(window)[0].tool_calls[0]
    assert call.status is ToolCallStatus.CANCELLED and call.approval.reason == "keep it until Friday"
    denied = tool_results(loopback_env, 1)["toolu_1"]
    assert denied["is_error"] is True and "keep it until Friday" in denied["content"]
    assert replies(window)[-1].text == "OK, I kept it."


def test_always_allow_is_kept_and_the_next_call_runs_without_a_card(qtbot, loopback_env, mcp_window):
    window, runtime = mcp_window
    loopback_env.enqueue("/v1/messages",
                         sse_response(anthropic_tool_reply([("toolu_1", "mcp__demo__delete_note", {"name": "todo"})])),
                         sse_response(anthropic_text_reply("Deleted.")),
                         sse_response(anthropic_tool_reply([("toolu_2", "mcp__demo__delete_note", {"name": "hello"})], msg_id="m2")),
                         sse_response(anthropic_text_reply("Deleted that too.")))
    send(qtbot, window, "delete todo")
    qtbot.waitUntil(lambda: waiting_card_row(window) >= 0, timeout=20000)
    window.view.scrollToBottom()
    window.view.viewport().repaint()
    qtbot.mouseClick(window.view.viewport(), Qt.MouseButton.LeftButton,
                     pos=hotspot_rect(window.view, "Always allow", waiting_card_row(window)).center())
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=20000)
    [grant] = runtime.grants.all()
    assert grant.tool == "mcp__demo__delete_note" and grant.source_label == "demo"

    send(qtbot, window, "and hello")
    qtbot.waitUntil(lambda: len(replies(window)) == 4 and not window.controller.busy, timeout=20000)
    second = replies(window)[2].tool_calls[0]
    assert second.status is ToolCallStatus.DONE and second.approval.decision == "granted" and not second.approval.asked


def test_an_mcp_card_offers_no_rule_for_calls_like_it(qtbot, loopback_env, mcp_window):
    window, _runtime = mcp_window
    loopback_env.enqueue("/v1/messages",
                         sse_response(anthropic_tool_reply([("toolu_1", "mcp__demo__delete_note", {"name": "todo"})])),
                         sse_response(anthropic_text_reply("Kept.")))
    send(qtbot, window, "delete todo")
    qtbot.waitUntil(lambda: waiting_card_row(window) >= 0, timeout=20000)
    row = waiting_card_row(window)
    assert replies(window)[0].tool_calls[0].approval.proposed_pattern == ""
    _card, part = card_geometry(window.view, row)
    assert [h.label for h in part.hotspots] == ["Allow once", "Allow in this conversation", "Always allow", "Deny…"]
    window.view.scrollToBottom()
    window.view.viewport().repaint()
    qtbot.mouseClick(window.view.viewport(), Qt.MouseButton.LeftButton,
                     pos=hotspot_rect(window.view, "Allow once", waiting_card_row(window)).center())
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=20000)


LIKE_NOTES = "Always allow writing files like `notes/*`"


@pytest.fixture
def workspace_window(qtbot, loopback_env, make_window, tmp_path):
    """The real window with a workspace chosen in Settings (the file tools on) and permissions.json in the profile."""
    workspace = tmp_path / "ws"
    (workspace / "notes").mkdir(parents=True)
    paths = AppPaths.resolve().ensure()
    runtime = Runtime(paths, AppConfig.from_environment())
    runtime.settings = Settings(workspace_folder=str(workspace))
    runtime.grants = GrantStore(paths.config_dir / "permissions.json")
    return make_window(runtime), runtime, workspace


def click_on_waiting_card(qtbot, window, label: str) -> None:
    qtbot.waitUntil(lambda: waiting_card_row(window) >= 0, timeout=20000)
    window.view.scrollToBottom()
    window.view.viewport().repaint()
    qtbot.mouseClick(window.view.viewport(), Qt.MouseButton.LeftButton,
                     pos=hotspot_rect(window.view, label, waiting_card_row(window)).center())


def test_allow_writing_files_like_this_adds_a_rule_and_the_next_call_runs(qtbot, loopback_env, workspace_window):
    window, runtime, workspace = workspace_window
    loopback_env.enqueue("/v1/messages",
                         sse_response(anthropic_tool_reply([("toolu_1", "write_file", {"path": "notes/todo.md", "content": "milk"})])),
                         sse_response(anthropic_text_reply("Written.")),
                         sse_response(anthropic_tool_reply([("toolu_2", "write_file", {"path": "notes/other.md", "content": "eggs"})],
                                                           msg_id="m2")),
                         sse_response(anthropic_text_reply("Written too.")))
    asked = []
    window.view.ask_rule_pattern = lambda _parent, tool, pattern: asked.append((tool, pattern)) or "notes/*"
    send(qtbot, window, "note milk")
    qtbot.waitUntil(lambda: waiting_card_row(window) >= 0, timeout=20000)
    call = replies(window)[0].tool_calls[0]
    assert call.source == "" and call.approval.proposed_pattern == "notes/*"
    click_on_waiting_card(qtbot, window, LIKE_NOTES)

    qtbot.waitUntil(lambda: not window.controller.busy, timeout=20000)
    assert asked == [("write_file", "notes/*")]
    assert call.status is ToolCallStatus.DONE and call.approval.decision == "allow_like"
    assert (workspace / "notes" / "todo.md").read_text() == "milk"
    assert [rule.describe() for rule in runtime.grants.rules()] == ["allow write_file `notes/*`"]
    assert [r.describe() for r in GrantStore(runtime.paths.config_dir / "permissions.json").rules()] == ["allow write_file `notes/*`"]
    assert runtime.grants.all() == []  # a rule, not a grant of the whole tool
    assert decision_text(call) == ("Allowed, with a rule for calls like it: allow write_file “notes/*”", False)

    send(qtbot, window, "and eggs")
    qtbot.waitUntil(lambda: len(replies(window)) == 4 and not window.controller.busy, timeout=20000)
    second = replies(window)[2].tool_calls[0]
    assert second.status is ToolCallStatus.DONE and not second.approval.asked
    assert second.approval.decision == "rule_allowed" and second.approval.reason == "allow write_file `notes/*`"
    assert (workspace / "notes" / "other.md").read_text() == "eggs"
    assert asked == [("write_file", "notes/*")]  # not asked again


def test_cancelling_the_rule_prompt_leaves_the_card_waiting(qtbot, loopback_env, workspace_window):
    window, runtime, workspace = workspace_window
    loopback_env.enqueue("/v1/messages",
                         sse_response(anthropic_tool_reply([("toolu_1", "write_file", {"path": "notes/todo.md", "content": "milk"})])),
                         sse_response(anthropic_text_reply("Written.")))
    window.view.ask_rule_pattern = lambda _parent, _tool, _pattern: None
    send(qtbot, window, "note milk")
    click_on_waiting_card(qtbot, window, LIKE_NOTES)
    qtbot.wait(200)
    call = replies(window)[0].tool_calls[0]
    assert call.status is ToolCallStatus.AWAITING_APPROVAL and call.approval.decision == ""
    assert window.controller.waiting_calls == ["toolu_1"] and window.controller.busy
    assert runtime.grants.rules() == [] and not (workspace / "notes" / "todo.md").exists()

    click_on_waiting_card(qtbot, window, "Allow once")  # still answerable
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=20000)
    assert call.status is ToolCallStatus.DONE and runtime.grants.rules() == []
