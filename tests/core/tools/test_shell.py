"""The shell tool with real subprocesses: exit status, stdout and stderr reach the model (long output cut for it,
whole on the card), output streams to the card while the command runs, a timeout or a stop leaves no process of the
command's group behind (checked in /proc), the app's keys stay out of its environment, and it is off until switched on."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

import pytest

from desktop_copilot.core.agent.execution import ToolExecutor
from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.config.settings import Settings, SettingsFile
from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.accumulate import accumulate
from desktop_copilot.core.conversation.models import TOOL_OUTPUT_LIMIT, Message, MessageStatus, ToolCallBlock, ToolCallStatus
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.tools.base import ToolContext, ToolError, ToolResult
from desktop_copilot.core.tools.builtin import builtin_registry
from desktop_copilot.core.tools.hooks import ResultCapHook
from desktop_copilot.core.tools.shell import (
    DEFAULT_TIMEOUT,
    MAX_TIMEOUT,
    MODEL_HEAD_CHARS,
    MODEL_TAIL_CHARS,
    Capture,
    Shell,
    ShellArgs,
    command_environment,
    time_limit,
)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="checks processes in /proc")


def group_members(group: int) -> list[int]:
    """Processes of process group `group` still running (zombies waiting to be reaped do not count)."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == group and fields[0] not in (b"Z", b"X"):
            members.append(int(entry))
    return members


def running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except OSError:
        return False


@pytest.fixture
def ctx(tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return ToolContext({}, None, {}, workspace=workspace)


async def shell(ctx: ToolContext, command: str, **arguments) -> ToolResult:
    tool = Shell()
    return await tool.run(tool.validate({"command": command, **arguments}), ctx)


def for_model(result: ToolResult) -> str:
    return result.model_text if result.model_text is not None else result.text


@pytest.mark.asyncio
async def test_output_and_exit_status_reach_the_model(ctx):
    result = await shell(ctx, "pwd; echo hello; exit 2")
    assert result.is_error is True
    assert for_model(result) == f"exit status 2\n--- stdout ---\n{ctx.workspace.resolve()}\nhello\n--- stderr ---\n(nothing)"

    done = await shell(ctx, "printf 'a\\nb'")
    assert done.is_error is False and done.text == "exit status 0\n--- stdout ---\na\nb\n--- stderr ---\n(nothing)"


@pytest.mark.asyncio
async def test_stderr_has_its_own_section(ctx):
    result = await shell(ctx, "echo out; echo oops >&2; ls /no/such/path")
    text = for_model(result)
    assert text.startswith("exit status ") and not text.startswith("exit status 0")
    stdout, stderr = text.split("--- stderr ---\n")
    assert stdout.endswith("--- stdout ---\nout\n")
    assert stderr.startswith("oops\n") and "/no/such/path" in stderr


@pytest.mark.asyncio
async def test_long_output_is_cut_for_the_model_and_kept_whole_on_the_card(ctx):
    result = await shell(ctx, "i=0; while [ $i -lt 20000 ]; do echo \"line $i\"; i=$((i+1)); done; echo bad >&2")
    assert result.is_error is False
    assert "line 0\n" in result.text and "line 10000\n" in result.text and "line 19999\n" in result.text
    model = result.model_text
    assert model is not None and len(model) < MODEL_HEAD_CHARS + MODEL_TAIL_CHARS + 500
    assert "line 0\n" in model and "line 19999" in model and "line 10000\n" not in model  # the beginning and the end
    assert "characters left out" in model and model.endswith("--- stderr ---\nbad")

    capped = await ResultCapHook(1000).after_call(None, result, ctx)  # the user's limit still applies on top
    assert len(capped.model_text) < 1200 and capped.text == result.text


def test_a_capture_keeps_its_beginning_and_end():
    capture = Capture(head=10, tail=20)
    for n in range(1000):
        capture.add(f"{n:04d}\n")
    assert capture.chars == 5000
    text = capture.text()
    assert text.startswith("0000\n0001\n") and text.endswith("0996\n0997\n0998\n0999\n")
    assert "[… 4,970 characters left out …]" in text
    assert capture.text(5, 5) == "0000\n\n[… 4,990 characters left out …]\n0999\n"
    small = Capture(head=10, tail=20)
    small.add("short")
    assert small.text(2, 2) == "sh\n[… 1 characters left out …]\nrt" and small.text() == "short"


def test_the_time_limit_defaults_and_is_capped():
    assert time_limit(ShellArgs(command="x")) == DEFAULT_TIMEOUT == 120
    assert time_limit(ShellArgs(command="x", timeout=5)) == 5
    assert time_limit(ShellArgs(command="x", timeout=10_000)) == MAX_TIMEOUT == 600
    assert Shell().timeout > MAX_TIMEOUT  # the executor's limit lets the tool's own fire first


def run_executor(ctx: ToolContext, command: str, **arguments):
    """A reply with one shell call, and an executor whose events are applied to it and recorded with their time."""
    reply = Message.assistant("m")
    reply.blocks = [ToolCallBlock(id="call_1", name="shell", arguments={"command": command, **arguments})]
    reply.status = MessageStatus.COMPLETED
    seen: list[tuple[float, ev.Event]] = []

    def apply(message: Message, event: ev.Event) -> None:
        accumulate(message, event)
        seen.append((time.monotonic(), event))

    executor = ToolExecutor([Shell()], ctx, apply, [ResultCapHook(100_000)])
    return reply, seen, executor


@pytest.mark.asyncio
async def test_output_streams_to_the_card_before_the_command_ends(ctx):
    reply, seen, executor = run_executor(ctx, "for i in 1 2 3; do echo $i; sleep 0.2; done")
    outputs_while_running: list[str] = []
    task = asyncio.create_task(executor.run_all(reply, reply.tool_calls))
    while not task.done():
        await asyncio.sleep(0.02)
        if reply.blocks[0].status is ToolCallStatus.RUNNING and reply.blocks[0].output:
            outputs_while_running.append(reply.blocks[0].output)
    await task

    outputs = [(at, event.text) for at, event in seen if isinstance(event, ev.ToolOutput)]
    finished_at = next(at for at, event in seen if isinstance(event, ev.ToolStatus) and event.status is ToolCallStatus.DONE)
    assert "".join(text for _, text in outputs) == "1\n2\n3\n"
    assert len(outputs) >= 2 and outputs[0][0] < finished_at - 0.3  # the first line came long before the end
    assert ev.ToolOutput in ev.DELTA_EVENTS  # written and repainted at most once per interval, as text deltas are
    assert "1\n" in outputs_while_running and "1\n2\n" in outputs_while_running  # the block grew while it ran
    block = reply.blocks[0]
    assert block.status is ToolCallStatus.DONE and block.output == ""  # the result holds it now
    assert block.result == "exit status 0\n--- stdout ---\n1\n2\n3\n--- stderr ---\n(nothing)"


def test_a_running_calls_output_is_kept_to_its_tail():
    reply = Message.assistant("m")
    reply.blocks = [ToolCallBlock(id="c", name="shell", status=ToolCallStatus.RUNNING)]
    line = "x" * 99 + "\n"
    for n in range(3000):
        accumulate(reply, ev.ToolOutput(tool_call_id="c", text=f"{n:05d}" + line))
    output = reply.blocks[0].output
    assert len(output) <= TOOL_OUTPUT_LIMIT and output.endswith("02999" + line)
    assert output.startswith(tuple("0123456789"))  # cut at a line start
    accumulate(reply, ev.ToolOutput(tool_call_id="other", text="not mine"))
    accumulate(reply, ev.ToolStatus(tool_call_id="c", name="shell", status=ToolCallStatus.CANCELLED, result="Cancelled.", is_error=True))
    assert reply.blocks[0].output == output  # a cancelled call keeps what it printed
    accumulate(reply, ev.ToolOutput(tool_call_id="c", text="late"))
    assert reply.blocks[0].output == output  # nothing is added once it ended


def started_group(outputs: list[str]) -> tuple[int, int] | None:
    """(the shell's process group, the background grandchild's pid) from the command's first line of output."""
    first = "".join(outputs).split("\n")
    if len(first) < 2:
        return None
    group, child = first[0].split()
    return int(group), int(child)


SPAWNS_A_GRANDCHILD = "sleep 60 & echo $$ $!; sleep 60"


@pytest.mark.asyncio
async def test_a_timeout_stops_the_whole_process_group(ctx):
    outputs: list[str] = []
    ctx.report_output = outputs.append
    started = time.monotonic()
    result = await shell(ctx, SPAWNS_A_GRANDCHILD, timeout=1)
    assert time.monotonic() - started < 6
    group, child = started_group(outputs)
    assert result.is_error is True
    assert for_model(result).startswith("timed out after 1 s: the command and every process it started were stopped\n--- stdout ---\n")
    assert group_members(group) == [] and not running(child)


@pytest.mark.asyncio
async def test_stopping_the_run_stops_the_whole_process_group(ctx):
    outputs: list[str] = []
    ctx.report_output = outputs.append
    task = asyncio.create_task(shell(ctx, SPAWNS_A_GRANDCHILD))
    deadline = time.monotonic() + 10
    while started_group(outputs) is None and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    group, child = started_group(outputs)
    assert running(child) and group in group_members(group)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert group_members(group) == [] and not running(child)


@pytest.mark.asyncio
async def test_stop_through_the_executor_cancels_the_call_and_keeps_its_output(ctx):
    reply, _seen, executor = run_executor(ctx, SPAWNS_A_GRANDCHILD)
    task = asyncio.create_task(executor.run_all(reply, reply.tool_calls))
    deadline = time.monotonic() + 10
    while "\n" not in reply.blocks[0].output and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    group, child = started_group([reply.blocks[0].output])
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    block = reply.blocks[0]
    assert block.status is ToolCallStatus.CANCELLED and block.output == f"{group} {child}\n"
    assert group_members(group) == [] and not running(child)


@pytest.mark.asyncio
async def test_what_a_finished_command_leaves_running_is_stopped(ctx):
    outputs: list[str] = []
    ctx.report_output = outputs.append
    result = await shell(ctx, "sleep 60 & echo $$ $!")
    group, child = started_group(outputs)
    assert result.is_error is False and "stopped" in result.text.split("\n--- stdout ---")[0]
    assert group_members(group) == [] and not running(child)


@pytest.mark.asyncio
async def test_without_a_workspace_it_says_so(ctx):
    ctx.workspace = None
    with pytest.raises(ToolError, match="No workspace folder is chosen"):
        await shell(ctx, "echo hi")
    ctx.workspace = Path("/no/such/folder")
    with pytest.raises(ToolError, match="does not exist any more"):
        await shell(ctx, "echo hi")


@pytest.mark.asyncio
async def test_the_environment_carries_no_keys_or_tokens(ctx, monkeypatch):
    secrets = {
        "ANTHROPIC_API_KEY": "sk-ant-shell-test-0001",
        "OPENAI_API_KEY": "sk-openai-shell-test-0002",
        "GITHUB_TOKEN": "ghp_shell_test_0003",
        "TAVILY_API_KEY": "tvly-shell-test-0004",
        "MY_SERVICE_PASSWORD": "hunter2-shell-test-0005",
        "DEPLOY_SECRET": "deploy-shell-test-0006",
        "DESKTOP_COPILOT_EXTRA": "internal-shell-test-0007",
        "openrouter_api_key": "sk-or-shell-test-0008",
    }
    for name, value in secrets.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("SHELL_TEST_VISIBLE", "still-here")
    result = await shell(ctx, "env")
    assert result.is_error is False
    for value in secrets.values():
        assert value not in result.text
    assert "SHELL_TEST_VISIBLE=still-here" in result.text and "PATH=" in result.text
    assert not set(secrets) & set(command_environment())


def test_it_always_asks_and_no_grant_covers_it():
    tool = Shell()
    assert tool.risk.needs_approval and tool.grantable is False and tool.needs_workspace
    assert all(other.grantable for other in builtin_registry().all() if other.name != "shell")


@pytest.mark.asyncio
async def test_the_preview_shows_the_whole_command_and_where_it_runs(ctx):
    tool = Shell()
    preview = await tool.preview(tool.validate({"command": "cd src &&\n-rm -rf build", "timeout": 30}), ctx)
    assert preview == f"Runs in {ctx.workspace}, stopped after 30 s:\n$ cd src &&\n  -rm -rf build"


@pytest.mark.asyncio
async def test_it_is_off_until_switched_on_in_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-shell-switch")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    runtime = Runtime(AppPaths.resolve().ensure(), AppConfig())
    try:
        assert "shell" in [tool.name for tool in runtime.registry.all()]
        assert "shell" in runtime.switched_off() and runtime.switched_off_tools == set()
        runtime.settings = Settings(workspace_folder=str(workspace))
        offered = [tool.name for tool in (await runtime.prepare_run("anthropic")).tools]
        assert "read_file" in offered and "shell" not in offered

        runtime.settings = Settings(workspace_folder=str(workspace), enabled_tools={"shell"})
        assert "shell" not in runtime.switched_off()
        assert "shell" in [tool.name for tool in (await runtime.prepare_run("anthropic")).tools]
        runtime.switched_off_tools = {"shell"}  # switched off again in Settings: off wins
        assert "shell" not in [tool.name for tool in (await runtime.prepare_run("anthropic")).tools]
    finally:
        await runtime.aclose()


def test_enabled_tools_are_kept_in_the_settings_file():
    file = SettingsFile(AppPaths.resolve().ensure().settings_file)
    file.save(Settings(enabled_tools={"shell", "another"}))
    assert json.loads(file.path.read_text())["enabled_tools"] == ["another", "shell"]
    assert file.load().enabled_tools == {"shell", "another"}
    assert Settings().enabled_tools == set()
