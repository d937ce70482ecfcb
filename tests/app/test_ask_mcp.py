"""`mcp add` a real stdio MCP server, then `ask` as a user runs it (a subprocess against the loopback Anthropic
server): the read-only tool runs without asking, the destructive one is denied without a terminal (the model reads
why), runs with --yes, and on a terminal (a real pty) waits for the user's answer."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.loopback import anthropic_text_reply, anthropic_tool_reply, sse_response

KEY = "sk-ant-ask-mcp-test-2468"
DEMO = Path(__file__).resolve().parents[1] / "support" / "mcp_servers" / "demo_server.py"
ROOT = Path(__file__).resolve().parents[2]


def env_for(loopback, **extra):
    env = dict(os.environ, ANTHROPIC_API_KEY=KEY, ANTHROPIC_BASE_URL=loopback.url, PYTHONIOENCODING="utf-8")
    env.update(extra)
    return env


def cli(loopback, *args, stdin=subprocess.DEVNULL, timeout=90):
    return subprocess.run([sys.executable, "-m", "desktop_copilot", *args], env=env_for(loopback), stdin=stdin,
                          capture_output=True, text=True, encoding="utf-8", timeout=timeout, cwd=ROOT)


@pytest.fixture
def demo_added(loopback):
    added = cli(loopback, "mcp", "add", "demo", "--", sys.executable, str(DEMO), "--transport", "stdio")
    assert added.returncode == 0, added.stderr
    return added


def requests(loopback):
    return [r.json() for r in loopback.requests_to("/v1/messages")]


def last_results(body):
    return {block["tool_use_id"]: block for block in body["messages"][-1]["content"] if block.get("type") == "tool_result"}


def test_the_read_only_tool_runs_without_asking(loopback, demo_added):
    loopback.enqueue("/v1/messages", sse_response(anthropic_tool_reply([("toolu_1", "mcp__demo__read_note", {"name": "todo"})])),
                     sse_response(anthropic_text_reply("You need milk.")))

    result = cli(loopback, "ask", "what do I need?")

    assert result.returncode == 0, result.stderr
    first, second = requests(loopback)
    offered = {tool["name"] for tool in first["tools"]}
    assert {"mcp__demo__read_note", "mcp__demo__delete_note"} <= offered
    outcome = last_results(second)["toolu_1"]
    assert outcome["is_error"] is False and outcome["content"] == "Buy milk."
    assert "[approval]" not in result.stderr
    assert result.stdout.strip() == "You need milk."


def test_the_destructive_tool_is_denied_without_a_terminal_and_the_model_reads_why(loopback, demo_added):
    loopback.enqueue("/v1/messages", sse_response(anthropic_tool_reply([("toolu_1", "mcp__demo__delete_note", {"name": "groceries"})])),
                     sse_response(anthropic_text_reply("I did not delete it.")))

    result = cli(loopback, "ask", "delete my groceries note")

    assert result.returncode == 0, result.stderr
    denied = last_results(requests(loopback)[1])["toolu_1"]
    assert denied["is_error"] is True
    assert "declined" in denied["content"] and "--yes" in denied["content"]
    assert "mcp__demo__delete_note: cancelled" in result.stderr


def test_the_destructive_tool_runs_with_yes(loopback, demo_added):
    loopback.enqueue("/v1/messages", sse_response(anthropic_tool_reply([("toolu_1", "mcp__demo__delete_note", {"name": "groceries"})])),
                     sse_response(anthropic_text_reply("Deleted.")))

    result = cli(loopback, "ask", "--yes", "delete my groceries note")

    assert result.returncode == 0, result.stderr
    done = last_results(requests(loopback)[1])["toolu_1"]
    assert done["is_error"] is False and "deleted groceries" in done["content"]


def run_on_a_terminal(loopback, answers: list[bytes], prompt: str) -> tuple[int, str]:
    """`ask` with its stdin on a real pty; each answer is typed when the approval prompt shows."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "desktop_copilot", "ask", prompt], env=env_for(loopback), cwd=ROOT,
                               stdin=terminal, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.close(terminal)
    seen = b""
    deadline = time.monotonic() + 90
    pending = list(answers)
    while process.poll() is None and time.monotonic() < deadline:
        ready, _, _ = select.select([process.stderr], [], [], 0.2)
        if ready:
            chunk = os.read(process.stderr.fileno(), 65536)
            seen += chunk
        if pending and seen.count(b"Allow?") + seen.count(b"Reason for the model") > len(answers) - len(pending):
            os.write(controller, pending.pop(0))
    out, err = process.communicate(timeout=30)
    os.close(controller)
    return process.returncode, (seen + err).decode()


def test_on_a_terminal_the_user_is_asked_with_the_full_arguments_and_can_deny_with_a_reason(loopback, demo_added):
    loopback.enqueue("/v1/messages", sse_response(anthropic_tool_reply([("toolu_1", "mcp__demo__delete_note", {"name": "taxes-2025"})])),
                     sse_response(anthropic_text_reply("Kept it.")))

    code, stderr = run_on_a_terminal(loopback, [b"n\n", b"I still need it\n"], "delete my taxes note")

    assert code == 0, stderr
    assert "delete_note from demo (Destructive)" in stderr and '"name": "taxes-2025"' in stderr
    denied = last_results(requests(loopback)[1])["toolu_1"]
    assert denied["is_error"] is True and "I still need it" in denied["content"]


def test_on_a_terminal_always_allow_is_remembered_for_the_next_ask(loopback, demo_added):
    for number in (1, 2):
        loopback.enqueue("/v1/messages",
                         sse_response(anthropic_tool_reply([(f"toolu_{number}", "mcp__demo__delete_note", {"name": f"n{number}"})], msg_id=f"m{number}")),
                         sse_response(anthropic_text_reply("Deleted.")))

    code, stderr = run_on_a_terminal(loopback, [b"a\n"], "delete n1")
    assert code == 0, stderr
    assert "deleted n1" in last_results(requests(loopback)[1])["toolu_1"]["content"]

    again = cli(loopback, "ask", "delete n2")  # no terminal now: the stored grant covers the call
    assert again.returncode == 0, again.stderr
    assert "deleted n2" in last_results(requests(loopback)[3])["toolu_2"]["content"]
    assert "permissions.json" in os.listdir(Path(os.environ["DESKTOP_COPILOT_HOME"]) / "config")


def test_a_server_that_cannot_start_is_named_with_the_reason_and_the_reply_still_comes(loopback):
    added = cli(loopback, "mcp", "add", "broken", "--", "/nonexistent/mcp-server")
    assert added.returncode == 0, added.stderr
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("Hello without tools.")))

    result = cli(loopback, "ask", "hi")

    assert result.returncode == 0, result.stderr
    assert "the MCP server 'broken' is not available" in result.stderr and "no such program" in result.stderr
    assert result.stdout.strip() == "Hello without tools."
    assert all(not tool["name"].startswith("mcp__") for tool in requests(loopback)[0].get("tools", []))
