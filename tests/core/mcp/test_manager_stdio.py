"""McpManager against the real demo server over stdio: tools and risks, results, crash and restart, cancellation,
tools/list_changed, secrets in the child's environment, reload, Test, and no process left behind."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time

import pytest

from desktop_copilot.core.mcp.connection import McpConnection
from desktop_copilot.core.mcp.manager import McpManager, ServerState
from desktop_copilot.core.tools.base import Risk, ToolError
from tests.support.mcp_servers.http_fixture import process_gone, stdio_config

SECRET = "s3cr3t-value-for-the-demo-server-123"
SECRET_REF = "${keyring:mcp/demo/env/DEMO_TOKEN}"


async def started(manager: McpManager, timeout: float = 30.0) -> McpManager:
    manager.start()
    await manager.wait_ready(timeout)
    return manager


def tool(manager: McpManager, name: str):
    found = {t.name: t for t in manager.tools()}
    assert name in found, sorted(found)
    return found[name]


async def until(predicate, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached"
        await asyncio.sleep(0.05)


@pytest.fixture
def managers():
    made: list[McpManager] = []

    def make(*configs, **kwargs) -> McpManager:
        manager = McpManager.from_configs(list(configs), **kwargs)
        made.append(manager)
        return manager

    yield make
    for manager in made:
        manager.stop()


@pytest.mark.asyncio
async def test_connects_lists_tools_with_risks_and_calls_them(managers):
    manager = await started(managers(stdio_config("demo")))
    [status] = manager.statuses()
    assert (status.state, status.kind, status.last_error, status.restarts) == (ServerState.READY, "stdio", "", 0)
    assert status.where.endswith("-m tests.support.mcp_servers.demo_server")
    risks = {t.name: t.risk for t in status.tools}
    assert risks["read_note"] is Risk.READ_ONLY
    assert risks["delete_note"] is Risk.DESTRUCTIVE
    assert risks["no_hints"] is Risk.UNKNOWN
    assert risks["open_world"] is Risk.OPEN_WORLD
    assert {t.model_name for t in status.tools} == {t.name for t in manager.tools()}

    read = tool(manager, "mcp__demo__read_note")
    assert read.source.identity == stdio_config("demo").identity and read.title == "read_note"
    assert (await read.run(read.validate({"name": "hello"}), None)).text == "Hello from the demo server."
    assert (await tool(manager, "mcp__demo__delete_note").run({"name": "hello"}, None)).text == "deleted hello"
    gone = await read.run({"name": "hello"}, None)
    assert gone.is_error and "no note called 'hello'" in gone.text

    image = await tool(manager, "mcp__demo__image").run({}, None)
    assert image.parts[0]["type"] == "image" and image.parts[0]["media_type"] == "image/png"
    assert image.text.splitlines() == ["a red square", "[image: image/png, 1 KB]"]
    structured = await tool(manager, "mcp__demo__structured").run({"city": "Oslo"}, None)
    assert structured.parts == [{"type": "structured", "data": {"city": "Oslo", "temperature": 21.5, "unit": "C"}}]
    assert '"city": "Oslo"' in structured.text
    failed = await tool(manager, "mcp__demo__fail").run({"reason": "nope"}, None)
    assert failed.is_error and failed.text == "failed: nope"


@pytest.mark.asyncio
async def test_the_servers_stderr_goes_to_the_log(managers, caplog):
    caplog.set_level(logging.INFO, logger="desktop_copilot.mcp.stderr")
    await started(managers(stdio_config("demo")))
    await until(lambda: "[demo] demo server: starting (stdio)" in caplog.text)


@pytest.mark.asyncio
async def test_a_crash_restarts_once_then_the_server_stays_failed(managers):
    manager = await started(managers(stdio_config("demo")))
    with pytest.raises(ToolError, match="stopped during the call to crash"):
        await tool(manager, "mcp__demo__crash").run({}, None)
    await until(lambda: manager.statuses()[0].state is ServerState.READY and manager.statuses()[0].restarts == 1)
    assert (await tool(manager, "mcp__demo__read_note").run({"name": "todo"}, None)).text == "Buy milk."

    crash = tool(manager, "mcp__demo__crash")
    with pytest.raises(ToolError, match="stopped during the call"):
        await crash.run({}, None)
    await until(lambda: manager.statuses()[0].state is ServerState.FAILED)
    status = manager.statuses()[0]
    assert status.restarts == 1
    assert "stopped unexpectedly" in status.last_error and "crashing on request" in status.last_error
    assert manager.tools() == []
    with pytest.raises(ToolError, match="is not running"):
        await crash.run({}, None)

    await manager.restart("demo")
    assert manager.statuses()[0].state is ServerState.READY


@pytest.mark.asyncio
async def test_cancelling_a_slow_call_cancels_it_on_the_server(managers, tmp_path):
    manager = await started(managers(stdio_config("demo")))
    marker = tmp_path / "slow.txt"
    call = asyncio.create_task(tool(manager, "mcp__demo__slow").run({"seconds": 60, "marker": str(marker)}, None))
    await until(lambda: marker.exists())
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    await until(lambda: marker.read_text() == "cancelled")
    assert (await tool(manager, "mcp__demo__read_note").run({"name": "todo"}, None)).text == "Buy milk."


@pytest.mark.asyncio
async def test_tools_list_changed_is_picked_up(managers):
    manager = await started(managers(stdio_config("demo")))
    changes: list[int] = []
    manager.subscribe(lambda: changes.append(len(manager.tools())))
    await tool(manager, "mcp__demo__add_tool").run({"name": "late_tool"}, None)
    await until(lambda: any(t.name == "mcp__demo__late_tool" for t in manager.tools()))
    assert changes
    added = tool(manager, "mcp__demo__late_tool")
    assert added.risk is Risk.READ_ONLY
    assert (await added.run({}, None)).text == "hi from late_tool"


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_list_changed_in_both_protocol_eras(mode):
    """Before 2026-07-28 a notification; at 2026-07-28 a subscriptions/listen stream."""
    seen: list[tuple[str, ...]] = []
    connection = McpConnection(stdio_config("demo"), mode=mode, on_tools=lambda c: seen.append(tuple(t.name for t in c.tools)))
    await connection.open()
    try:
        assert connection.protocol_version == ("2026-07-28" if mode == "auto" else "2025-11-25")
        await connection.call_tool("add_tool", {"name": "extra"}, 10)
        await until(lambda: any("extra" in names for names in seen))
    finally:
        await connection.close()


@pytest.mark.asyncio
async def test_tool_lists_are_followed_across_pages(managers):
    manager = await started(managers(stdio_config("demo", "--page-size", "3")))
    assert len(manager.statuses()[0].tools) == 15


@pytest.mark.asyncio
async def test_a_keyring_secret_reaches_the_child_and_nothing_else(managers, caplog):
    caplog.set_level(logging.DEBUG)
    config = stdio_config("demo", env={"DEMO_TOKEN": SECRET_REF})
    entries = {"mcp/demo/env/DEMO_TOKEN": SECRET}
    asked: list[str] = []

    def resolve(entry: str) -> str | None:
        asked.append(entry)
        return entries.get(entry)

    manager = await started(McpManager(lambda: [config], resolve))
    try:
        out = await tool(manager, "mcp__demo__env_check").run({"name": "DEMO_TOKEN"}, None)
        assert out.text == f"DEMO_TOKEN: set sha256={hashlib.sha256(SECRET.encode()).hexdigest()}"
        assert asked == ["mcp/demo/env/DEMO_TOKEN"]
        shown = repr(manager) + repr(manager.statuses()) + repr(manager.tools()) + caplog.text
        assert SECRET not in shown
    finally:
        manager.stop()


@pytest.mark.asyncio
async def test_a_missing_secret_fails_with_what_to_do(managers):
    manager = await started(managers(stdio_config("demo", env={"DEMO_TOKEN": SECRET_REF})))
    [status] = manager.statuses()
    assert status.state is ServerState.FAILED
    assert status.last_error == "the secret mcp/demo/env/DEMO_TOKEN is not in the keyring; run desktop-copilot mcp add again"


@pytest.mark.asyncio
async def test_a_missing_program_fails_in_words(managers):
    from desktop_copilot.core.mcp.server_config import McpServerConfig

    manager = await started(managers(McpServerConfig(name="ghost", command="/nonexistent/mcp-server")))
    assert manager.statuses()[0].state is ServerState.FAILED
    assert "no such program" in manager.statuses()[0].last_error


@pytest.mark.asyncio
async def test_disabled_servers_do_not_start(managers):
    manager = await started(managers(stdio_config("off", disabled=True)))
    assert manager.statuses()[0].state is ServerState.DISABLED and manager.tools() == []


@pytest.mark.asyncio
async def test_reload_starts_new_stops_removed_and_restarts_changed():
    configs = [stdio_config("one"), stdio_config("two")]
    manager = McpManager(lambda: list(configs), {}.get)
    try:
        await started(manager)
        pid_two = int((await tool(manager, "mcp__two__pid").run({}, None)).text)
        pid_one = int((await tool(manager, "mcp__one__pid").run({}, None)).text)
        configs[:] = [stdio_config("one", env={"X": "1"}), stdio_config("three")]
        await manager.reload()
        await manager.wait_ready(30)
        assert {s.name: s.state for s in manager.statuses()} == {"one": ServerState.READY, "three": ServerState.READY}
        assert process_gone(pid_two)
        assert int((await tool(manager, "mcp__one__pid").run({}, None)).text) != pid_one
    finally:
        manager.stop()


@pytest.mark.asyncio
async def test_test_connects_once_and_reports(managers):
    manager = managers()
    good = await manager.test(stdio_config("probe"))
    assert good.state is ServerState.READY and len(good.tools) == 15 and good.kind == "stdio"
    bad = await manager.test(stdio_config("probe", env={"T": "${keyring:nope}"}))
    assert bad.state is ServerState.FAILED and "nope" in bad.last_error
    assert manager.statuses() == []


@pytest.mark.asyncio
async def test_wait_ready_is_awaitable_from_another_loop_before_start_finishes(managers):
    manager = managers(stdio_config("demo"))
    manager.start()
    await manager.wait_ready(30)
    assert manager.statuses()[0].state is ServerState.READY


def test_stop_leaves_no_process_behind():
    manager = McpManager.from_configs([stdio_config("a"), stdio_config("b")])

    async def pids() -> list[int]:
        await started(manager)
        return [int((await tool(manager, f"mcp__{n}__pid").run({}, None)).text) for n in ("a", "b")]

    found = asyncio.run(pids())
    manager.stop()
    assert all(process_gone(pid) for pid in found)
    assert {s.state for s in manager.statuses()} == {ServerState.STOPPED}
    assert manager._thread is not None and not manager._thread.is_alive()


def test_calls_work_from_a_plain_thread_loop_too():
    manager = McpManager.from_configs([stdio_config("demo")])
    try:
        async def call() -> str:
            await started(manager)
            return (await tool(manager, "mcp__demo__read_note").run({"name": "todo"}, None)).text

        assert asyncio.run(call()) == "Buy milk."
    finally:
        manager.stop()
