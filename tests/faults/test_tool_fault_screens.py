"""A tool that fails, as the user sees it in the real window: its card shows the error state with the words the
model was given, the reply that follows is complete, and the database holds the same call."""

from __future__ import annotations

import pytest

from desktop_copilot.core.mcp.tools import McpTool
from desktop_copilot.core.conversation.models import MessageStatus, ToolCallStatus
from tests.qt.window.test_tool_approval_window import replies, send
from tests.support.loopback import anthropic_text_reply, anthropic_tool_reply, sse_response


def tool_rows(window) -> list:
    view = window.view
    segments = [view.transcript.segment_at(row) for row in range(view.model().rowCount())]
    return [segment for segment in segments if segment.kind == "tool"]


@pytest.mark.parametrize("name, arguments, timeout, words", [
    ("mcp__demo__boom", {"reason": "no paper"}, 60.0, "Error executing tool boom"),
    ("mcp__demo__slow", {"seconds": 120}, 1.0, " 1 s"),  # the executor's or the MCP call's deadline, whichever fires first
])
def test_a_failing_tool_card_shows_the_error_and_the_reply_completes(qtbot, mcp_window, loopback_env, monkeypatch, name, arguments,
                                                                     timeout, words):
    monkeypatch.setattr(McpTool, "timeout", timeout)
    window, _runtime = mcp_window
    loopback_env.enqueue("/v1/messages", sse_response(anthropic_tool_reply([("toolu_fault", name, arguments)])),
                         sse_response(anthropic_text_reply("The tool failed; here is what I know.")))
    send(qtbot, window, "Use the tool")
    qtbot.waitUntil(lambda: len(replies(window)) == 2 and not window.controller.busy, timeout=20000)

    [segment] = tool_rows(window)
    assert segment.state[0] == ToolCallStatus.ERROR.value
    [call] = replies(window)[0].tool_calls
    assert call.status is ToolCallStatus.ERROR and words in call.result
    assert replies(window)[-1].status is MessageStatus.COMPLETED and window.recovery.isHidden()
    session = window.controller.session
    stored = session.store.load_conversation(session.conversation.id)
    [stored_call] = [c for m in stored.messages for c in m.tool_calls]
    assert stored_call.status is ToolCallStatus.ERROR and stored_call.result == call.result
