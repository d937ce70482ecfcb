"""The soak, scaled down (bench/soak.py runs the issue's 1,000 turns and 200 conversations): tool turns through the
real window, the real Anthropic adapter on the loopback wire and a real MCP stdio server, then stored conversations
opened, made and deleted. After a warm-up nothing may grow: no asyncio task, thread, socket, file descriptor, child
process, SQLite connection, event-loop timer, widget or held message; and once the app is closed, nothing it made
is left. RSS is the bench's business."""

from __future__ import annotations

import asyncio

import pytest

from tests.qt.conftest import run_async
from tests.support import soak
from tests.support.resources import describe

WARM_TURNS, TURNS = 10, 40
WARM_CONVERSATIONS, CONVERSATIONS = 10, 25


@pytest.fixture
def model_server(monkeypatch, tmp_path):
    process, url = soak.start_model_server()
    for name, value in soak.environment(url, str(tmp_path / "home")).items():
        monkeypatch.setenv(name, value)
    yield process
    soak.stop_model_server(process)


@pytest.mark.timeout(240)
def test_tool_turns_and_conversations_leave_nothing_behind(qtbot, qasync_loop, model_server):
    pids = {model_server.pid}
    soak.prepare_profile(WARM_CONVERSATIONS + CONVERSATIONS)
    before = run_async(qtbot, soak.snapshot(None, pids))
    app = soak.open_app()
    try:
        problems = run_async(qtbot, soak.tool_turns(app, WARM_TURNS), timeout=120_000)
        problems += run_async(qtbot, soak.conversations(app, WARM_CONVERSATIONS), timeout=60_000)
        warm = run_async(qtbot, soak.snapshot(app, pids))
        assert warm.children, "the MCP demo server should be running"

        problems += run_async(qtbot, soak.tool_turns(app, TURNS - WARM_TURNS), timeout=180_000)
        problems += run_async(qtbot, soak.conversations(app, CONVERSATIONS - WARM_CONVERSATIONS, skip=WARM_CONVERSATIONS), timeout=120_000)
        end = run_async(qtbot, soak.snapshot(app, pids))
        assert problems == []
        grew = soak.grew_while_running(warm, end)
        assert grew == {}, f"grew while running: {describe(grew)}"
    finally:
        if app.window is not None:
            run_async(qtbot, soak.close_app(app), timeout=30_000)
    soak.close_loop_executor(asyncio.get_event_loop())
    after = run_async(qtbot, soak.snapshot(None, pids))
    left, _lifetime = soak.left_after_closing(before, after)
    assert left == {}, f"left after closing: {describe(left)}"


def test_messages_the_modules_hold_as_constants_are_not_counted_as_held():
    from desktop_copilot.core.context import budget
    from desktop_copilot.core.conversation.models import Message
    from tests.support.resources import live_instances

    held = Message.user("a conversation's message")
    constants = soak.module_messages()
    assert constants >= 1 and budget._NEXT is not held  # the next request's stand-in, made at import
    assert live_instances(Message) - constants >= 1  # `held` still counts
    del held
