"""An MCP server over Streamable HTTP whose answers to `tools/call` break on the way (a fault proxy in front of the
real demo server): each broken call ends as an error in words on its card and in the database, the server stays
usable, and the next call through it works."""

from __future__ import annotations

import pytest

from desktop_copilot.core.mcp.manager import ServerState
from desktop_copilot.core.mcp.server_config import McpServerConfig
from desktop_copilot.core.mcp.tools import McpTool
from desktop_copilot.core.conversation.models import ToolCallStatus
from tests.faults.sessions import ANTHROPIC
from tests.faults.test_tool_faults import run_one_call
from tests.support.history_rules import assert_valid_for_every_provider
from tests.support.mcp_servers.fault_proxy import McpFaultProxy
from tests.support.mcp_servers.http_fixture import DemoHttpServer

WORDS = {
    "busy": "with an HTTP error",
    "silent": ("timed out after 2 s", "did not answer within 2 s"),  # (the call's deadline and the session's are both
    # 2 s: under load either may end the call first, and either says so)
    "malformed": "could not be read",
    "truncated": "could not be read",
    "closed": "stopped during the call",
}


@pytest.fixture(scope="module")
def demo_http():
    with DemoHttpServer("http") as server:
        yield server


@pytest.mark.asyncio
@pytest.mark.parametrize("fault", list(WORDS))
async def test_a_broken_call_is_an_error_in_words_and_the_next_call_works(fault, demo_http, mcp_session, loopback, monkeypatch):
    monkeypatch.setattr(McpTool, "timeout", 2.0)
    with McpFaultProxy(demo_http.url) as proxy:
        session = await mcp_session(McpServerConfig(name="web", url=proxy.url))
        proxy.fail_next(fault)
        finished, stored, call = await run_one_call(session, loopback, ANTHROPIC, "mcp__web__read_note", '{"name": "todo"}')
        assert proxy.calls_seen >= 1
        assert finished.outcome == "completed"  # the model was told, and answered
        assert call.status is ToolCallStatus.ERROR and call.is_error, call.result
        words = WORDS[fault] if isinstance(WORDS[fault], tuple) else (WORDS[fault],)
        assert call.result.strip() and "web" in call.result and any(w in call.result for w in words), call.result
        assert "Buy milk." not in call.result
        assert_valid_for_every_provider(stored)

        manager = session.runtime.registry._sources[0]
        [status] = manager.statuses()
        assert status.state in (ServerState.READY, ServerState.STARTING), status

        session.conversation = type(session.conversation)(provider=ANTHROPIC.provider, model=ANTHROPIC.model)
        await manager.wait_ready(20.0)
        _finished, _stored, again = await run_one_call(session, loopback, ANTHROPIC, "mcp__web__read_note", '{"name": "todo"}')
        assert again.status is ToolCallStatus.DONE and again.result == "Buy milk.", again.result
