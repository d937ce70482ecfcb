"""`ask --tools`, `ask --no-tools`, and the loop question on a terminal, as a user runs them (subprocesses against the
loopback server: Anthropic and Tavily)."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time

from tests.app.test_ask_mcp import ROOT, cli, env_for, requests
from tests.support.loopback import anthropic_text_reply, anthropic_tool_reply, sse_response, tavily_results


def tavily_env(loopback):
    return env_for(loopback, TAVILY_API_KEY="tvly-ask-tools-test", TAVILY_BASE_URL=loopback.url)


def offered(body) -> set[str]:
    return {tool["name"] for tool in body.get("tools", [])}


def test_no_tools_and_only_the_tools_named(loopback):
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("Plain.")), sse_response(anthropic_text_reply("Some.")))
    assert cli(loopback, "ask", "--no-tools", "hi").returncode == 0
    assert offered(requests(loopback)[0]) == set()
    named = subprocess.run([sys.executable, "-m", "desktop_copilot", "ask", "--tools", "web_fetch", "hi"], env=tavily_env(loopback),
                           cwd=ROOT, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=90)
    assert named.returncode == 0, named.stderr
    assert offered(requests(loopback)[1]) == {"web_fetch"}


def test_a_tool_that_cannot_be_offered_is_an_error_in_words(loopback):
    result = cli(loopback, "ask", "--tools", "shell,web_fetch", "hi")  # the shell is off until enabled
    assert result.returncode == 2
    assert "no tool named shell can be offered" in result.stderr and "desktop-copilot tools enable" in result.stderr
    assert requests(loopback) == []


def test_the_loop_question_on_a_terminal_allows_repeats_for_the_conversation(loopback):
    call = ("toolu_{n}", "tavily_search", {"query": "weather in Lisbon"})
    for n in range(1, 5):
        loopback.enqueue("/v1/messages", sse_response(anthropic_tool_reply([(call[0].format(n=n), call[1], call[2])], msg_id=f"m{n}")))
        loopback.enqueue("/search", tavily_results("weather in Lisbon", [("Lisbon", "https://example.org/lisbon", "Sunny.")]))
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("Sunny, four times over.")))
    controller, terminal = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "desktop_copilot", "ask", "weather?"], env=tavily_env(loopback), cwd=ROOT,
                               stdin=terminal, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.close(terminal)
    seen, answered, deadline = b"", False, time.monotonic() + 90
    while process.poll() is None and time.monotonic() < deadline:
        ready, _, _ = select.select([process.stderr], [], [], 0.2)
        if ready:
            seen += os.read(process.stderr.fileno(), 65536)
        if not answered and b"[c]ontinue once" in seen:
            os.write(controller, b"a\n")
            answered = True
    out, err = process.communicate(timeout=30)
    os.close(controller)
    stderr = (seen + err).decode()
    assert process.returncode == 0, stderr
    assert stderr.count("[loop] tavily_search was called 3 times in a row") == 1  # the 4th repeat is not asked again
    assert out.decode().strip() == "Sunny, four times over."
    assert len(requests(loopback)) == 5


def test_without_a_terminal_a_loop_stops_the_run(loopback):
    for n in range(1, 4):
        loopback.enqueue("/v1/messages", sse_response(anthropic_tool_reply([(f"toolu_{n}", "tavily_search", {"query": "x"})], msg_id=f"m{n}")))
        loopback.enqueue("/search", tavily_results("x", [("X", "https://example.org/x", "x")]))
    result = subprocess.run([sys.executable, "-m", "desktop_copilot", "ask", "loop"], env=tavily_env(loopback), cwd=ROOT,
                            capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=90)
    assert "called 3 times in a row" in result.stderr
    assert len(requests(loopback)) == 3
