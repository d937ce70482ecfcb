"""McpManager against the real demo server over Streamable HTTP and SSE: calls, cancellation, list changes, the SSE
fallback, header secrets, and a 401 that asks for sign-in."""

from __future__ import annotations

import asyncio
import logging

import pytest

from desktop_copilot.core.mcp.manager import ServerState
from desktop_copilot.core.mcp.server_config import McpServerConfig
from desktop_copilot.core.tools.base import Risk, ToolError
from tests.core.mcp.test_manager_stdio import managers, started, tool, until
from tests.support.mcp_servers.http_fixture import DemoHttpServer

__all__ = ["managers"]  # the fixture, shared with the stdio tests

TOKEN = "bearer-token-for-the-demo-server-42"


@pytest.fixture(scope="module")
def http_server():
    with DemoHttpServer("http") as server:
        yield server


@pytest.fixture(scope="module")
def sse_server():
    with DemoHttpServer("sse") as server:
        yield server


@pytest.mark.asyncio
async def test_streamable_http_tools_and_results(http_server, managers):
    manager = await started(managers(McpServerConfig(name="web", url=http_server.url)))
    [status] = manager.statuses()
    assert (status.state, status.kind, status.where) == (ServerState.READY, "http", http_server.url)
    risks = {t.name: t.risk for t in status.tools}
    assert (risks["read_note"], risks["delete_note"], risks["no_hints"]) == (Risk.READ_ONLY, Risk.DESTRUCTIVE, Risk.UNKNOWN)
    assert (await tool(manager, "mcp__web__read_note").run({"name": "todo"}, None)).text == "Buy milk."
    image = await tool(manager, "mcp__web__image").run({}, None)
    assert image.parts[0]["media_type"] == "image/png"
    structured = await tool(manager, "mcp__web__structured").run({}, None)
    assert structured.parts[0] == {"type": "structured", "data": {"city": "Paris", "temperature": 21.5, "unit": "C"}}
    failed = await tool(manager, "mcp__web__fail").run({}, None)
    assert failed.is_error
    links = await tool(manager, "mcp__web__links").run({}, None)
    assert links.parts[0]["type"] == "resource_link" and "Buy milk." in links.text


@pytest.mark.asyncio
async def test_a_slow_http_call_is_cancelled_on_the_server(http_server, managers, tmp_path):
    manager = await started(managers(McpServerConfig(name="web", url=http_server.url)))
    marker = tmp_path / "slow.txt"
    call = asyncio.create_task(tool(manager, "mcp__web__slow").run({"seconds": 60, "marker": str(marker)}, None))
    await until(lambda: marker.exists())
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    await until(lambda: marker.read_text() == "cancelled")


@pytest.mark.asyncio
async def test_http_list_changed(managers):
    with DemoHttpServer("http") as server:  # its own: the tool list changes
        manager = await started(managers(McpServerConfig(name="web", url=server.url)))
        await tool(manager, "mcp__web__add_tool").run({"name": "fresh"}, None)
        await until(lambda: any(t.name == "mcp__web__fresh" for t in manager.tools()))


@pytest.mark.asyncio
async def test_sse_is_the_fallback_when_streamable_http_is_refused(sse_server, managers):
    manager = await started(managers(McpServerConfig(name="old", url=sse_server.url)))
    [status] = manager.statuses()
    assert (status.state, status.kind) == (ServerState.READY, "sse")
    assert (await tool(manager, "mcp__old__read_note").run({"name": "todo"}, None)).text == "Buy milk."


@pytest.mark.asyncio
async def test_sse_when_configured(sse_server, managers):
    manager = await started(managers(McpServerConfig(name="old", url=sse_server.url, type="sse")))
    assert manager.statuses()[0].kind == "sse" and manager.statuses()[0].state is ServerState.READY


@pytest.mark.asyncio
async def test_a_server_that_went_away_gives_a_tool_error(managers):
    with DemoHttpServer("http") as server:
        manager = await started(managers(McpServerConfig(name="web", url=server.url)))
        read = tool(manager, "mcp__web__read_note")
    with pytest.raises(ToolError):
        await read.run({"name": "todo"}, None)
    await until(lambda: manager.statuses()[0].state is ServerState.FAILED)
    status = manager.statuses()[0]
    assert status.restarts == 1 and status.last_error.startswith("cannot connect to http://127.0.0.1:")


@pytest.mark.asyncio
async def test_nothing_listening_fails_in_words(managers):
    from tests.support.mcp_servers.http_fixture import free_port

    manager = await started(managers(McpServerConfig(name="web", url=f"http://127.0.0.1:{free_port()}/mcp")))
    assert manager.statuses()[0].state is ServerState.FAILED
    assert manager.statuses()[0].last_error.startswith("cannot connect to http://127.0.0.1:")


@pytest.fixture(scope="module")
def guarded_server():
    server = DemoHttpServer("http", extra_args=("--bearer-token-env", "DEMO_BEARER"), env={"DEMO_BEARER": TOKEN})
    with server:
        yield server


@pytest.mark.asyncio
async def test_a_401_asks_for_sign_in(guarded_server, managers):
    manager = await started(managers(McpServerConfig(name="guarded", url=guarded_server.url)))
    assert manager.statuses()[0].state is ServerState.FAILED
    assert manager.statuses()[0].last_error == "needs sign-in: run desktop-copilot mcp login guarded"


@pytest.mark.asyncio
async def test_a_header_secret_from_the_keyring_is_sent_and_never_shown(guarded_server, managers, caplog):
    caplog.set_level(logging.DEBUG)
    config = McpServerConfig(name="guarded", url=guarded_server.url, headers={"Authorization": "${keyring:mcp/guarded/headers/Authorization}"})
    manager = await started(managers(config, secrets={"mcp/guarded/headers/Authorization": f"Bearer {TOKEN}"}))
    assert manager.statuses()[0].state is ServerState.READY
    assert (await tool(manager, "mcp__guarded__read_note").run({"name": "todo"}, None)).text == "Buy milk."
    assert TOKEN not in caplog.text + repr(manager.statuses()) + repr(config)
