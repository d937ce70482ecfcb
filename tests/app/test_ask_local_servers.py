"""`ask --provider lmstudio|llamacpp|vllm` as a user runs it, against emulators of those servers: replies stream,
thinking written in tags shows as thinking, tools run through native calls and through calls written as text (also
after a server refuses `tools`), and `-c` continues with a history the server accepts."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.local_servers import LocalModel, LocalServer, ToolCall
from tests.support.loopback import LoopbackServer, tavily_results

KINDS = ("lmstudio", "llamacpp", "vllm")
MODEL = {"lmstudio": "qwen/qwen3-8b", "llamacpp": "Qwen3-8B-Q4_K_M.gguf", "vllm": "Qwen/Qwen3-8B"}
SEARCH = ("Hong Kong weather", [("HKO", "https://www.hko.gov.hk", "Sunny, 24 °C")])


@pytest.fixture
def tavily():
    with LoopbackServer() as server:
        yield server


def run_ask(kind: str, server: LocalServer, tavily: LoopbackServer, *args: str, env: dict[str, str] | None = None):
    environ = dict(os.environ, PYTHONIOENCODING="utf-8", TAVILY_API_KEY="tvly-test-4444", TAVILY_BASE_URL=tavily.url,
                   **{f"{kind.upper()}_BASE_URL": server.base_url}, **(env or {}))
    return subprocess.run([sys.executable, "-m", "desktop_copilot", "ask", "--provider", kind, *args], env=environ,
                          capture_output=True, text=True, encoding="utf-8", timeout=90)


def events_of(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def stored_blocks() -> list[tuple[str, list[dict]]]:
    db = Path(os.environ["DESKTOP_COPILOT_HOME"]) / "data" / "conversations.sqlite3"
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT role, blocks FROM messages ORDER BY seq").fetchall()
    conn.close()
    return [(role, json.loads(blocks)) for role, blocks in rows]


def assert_valid_chat_history(messages: list[dict]) -> None:
    """What a Chat Completions server checks: every assistant `tool_calls` entry is answered by one `tool` message right
    after it, roles alternate sensibly, no empty assistant turn."""
    for position, message in enumerate(messages):
        if message["role"] == "assistant":
            assert message.get("content") or message.get("tool_calls"), message
            ids = [call["id"] for call in message.get("tool_calls") or []]
            answers = [m["tool_call_id"] for m in messages[position + 1:position + 1 + len(ids)]]
            assert answers == ids, (ids, answers)


@pytest.mark.parametrize("kind", KINDS)
def test_thinking_in_tags_is_thinking_and_the_answer_streams(kind, tavily):
    with LocalServer(kind, reasoning="tags") as server:
        server.reply(["The answer", " is 4."], reasoning=["Two plus", " two."])
        result = run_ask(kind, server, tavily, "--json", "What is 2+2?")
    assert result.returncode == 0, result.stderr
    events = events_of(result.stdout)
    thinking = "".join(e["text"] for e in events if e["type"] == "thinking_delta")
    text = "".join(e["text"] for e in events if e["type"] == "text_delta")
    assert thinking == "Two plus two." and text == "The answer is 4."
    assert "<think>" not in text and "</think>" not in text
    request = server.chat_requests[0].json()
    assert request["model"] == MODEL[kind] and request["stream"] is True  # the model the server lists
    assert "authorization" not in {name.lower() for name in server.chat_requests[0].headers} or \
        server.chat_requests[0].headers.get("authorization") in (None, "")
    [(_, user), (_, reply)] = stored_blocks()
    assert [b["type"] for b in reply] == ["thinking", "text"] and reply[1]["text"] == "The answer is 4."


@pytest.mark.parametrize("kind", KINDS)
def test_native_tool_call_runs_and_the_conversation_continues(kind, tavily):
    tavily.enqueue("/search", tavily_results(*SEARCH))
    with LocalServer(kind) as server:
        server.reply(["Let me look."], calls=[ToolCall("tavily_search", {"query": "Hong Kong weather"})])
        server.reply(["Sunny, 24 °C."])
        first = run_ask(kind, server, tavily, "Weather in Hong Kong?")
        assert first.returncode == 0, first.stderr
        assert "Sunny, 24 °C." in first.stdout
        second = server.chat_requests[1].json()
        assert "tavily_search" in [t["function"]["name"] for t in second["tools"]]
        assert_valid_chat_history(second["messages"])
        assert second["messages"][-1]["role"] == "tool" and "Sunny" in second["messages"][-1]["content"]

        server.reply(["You're welcome."])
        again = run_ask(kind, server, tavily, "-c", "Thanks!")
    assert again.returncode == 0, again.stderr
    third = server.chat_requests[2].json()
    assert_valid_chat_history(third["messages"])
    assert [m["role"] for m in third["messages"]] == ["user", "assistant", "tool", "assistant", "user"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_server_that_refuses_tools_gets_them_as_text_and_remembers(kind, tavily):
    tavily.enqueue("/search", tavily_results(*SEARCH))
    call = '<tool_call>\n{"name": "tavily_search", "arguments": {"query": "Hong Kong weather"}}\n</tool_call>'
    with LocalServer(kind, tools="refuse") as server:
        server.reply(["I will search.\n", call[:17], call[17:]])
        server.reply(["Sunny, 24 °C."])
        first = run_ask(kind, server, tavily, "--json", "Weather in Hong Kong?")
        assert first.returncode == 0, first.stderr
        refused, resent, answered = (r.json() for r in server.chat_requests)
        assert "tools" in refused and "tools" not in resent and "tools" not in answered
        assert resent["messages"][0]["role"] == "system" and "<tool_call>" in resent["messages"][0]["content"]
        assert "tavily_search" in resent["messages"][0]["content"]
        events = events_of(first.stdout)
        assert "<tool_call>" not in "".join(e["text"] for e in events if e["type"] == "text_delta")
        assert [e["name"] for e in events if e["type"] == "toolcall_start"] == ["tavily_search"]
        assistant, results = answered["messages"][-2:]
        assert assistant["role"] == "assistant" and "<tool_call>" in assistant["content"] and "tool_calls" not in assistant
        assert results["role"] == "user" and results["content"].startswith('<tool_response name="tavily_search">')
        assert "Sunny" in results["content"]

        server.reply(["Bye."])
        again = run_ask(kind, server, tavily, "-c", "Thanks, bye")  # another process: the model is known to take text tools
    assert again.returncode == 0, again.stderr
    last = server.chat_requests[3].json()
    assert "tools" not in last and "<tool_call>" in last["messages"][0]["content"]
    assert len(server.chat_requests) == 4  # no second refusal
    roles = [m["role"] for m in last["messages"]]
    assert roles == ["system", "user", "assistant", "user", "assistant", "user"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_call_written_as_text_although_native_tools_were_offered_runs(kind, tavily):
    tavily.enqueue("/search", tavily_results(*SEARCH))
    with LocalServer(kind) as server:
        server.reply(['<minimax:tool_call>\n<invoke name="tavily_search">\n<parameter name="query">Hong Kong weather'
                      '</parameter>\n</invoke>\n</minimax:tool_call>'])
        server.reply(["Sunny, 24 °C."])
        result = run_ask(kind, server, tavily, "Weather in Hong Kong?")
    assert result.returncode == 0, result.stderr
    assert "invoke" not in result.stdout and "Sunny, 24 °C." in result.stdout
    assert tavily.requests_to("/search")[0].json()["query"] == "Hong Kong weather"
    answered = server.chat_requests[1].json()
    assert "tools" in answered  # still offered natively
    assert answered["messages"][-1]["content"].startswith('<tool_response name="tavily_search">')


def test_a_malformed_call_stays_visible_with_a_notice_and_never_runs(tavily):
    with LocalServer("vllm") as server:
        server.reply(['Trying: <tool_call>{"name": "tavily_search", "arguments": {"query": </tool_call>'])
        result = run_ask("vllm", server, tavily, "Weather?")
    assert result.returncode == 0, result.stderr
    assert '<tool_call>{"name": "tavily_search"' in result.stdout and not tavily.requests_to("/search")
    assert "could not be read" in result.stderr or "could not be read" in result.stdout
    [(_, _), (_, reply)] = stored_blocks()
    assert [b["type"] for b in reply] == ["text"]


def test_a_lone_closing_tag_makes_what_came_before_it_thinking(tavily):
    """A DeepSeek-R1 distill whose chat template opens `<think>` itself: the table knows it thinks in tags."""
    with LocalServer("llamacpp", [LocalModel("DeepSeek-R1-Distill-Qwen-7B-Q4_K_M.gguf")], reasoning="none") as server:
        server.reply(["Hmm, 2+2", " is 4.</th", "ink>\n\nIt is 4."])
        result = run_ask("llamacpp", server, tavily, "--json", "2+2?")
    assert result.returncode == 0, result.stderr
    events = events_of(result.stdout)
    assert "".join(e["text"] for e in events if e["type"] == "thinking_delta") == "Hmm, 2+2 is 4."
    assert "".join(e["text"] for e in events if e["type"] == "text_delta") == "It is 4."


def test_no_model_loaded_says_what_to_do(tavily):
    with LocalServer("lmstudio", [LocalModel("qwen/qwen3-8b", loaded=False)], jit=False) as server:
        result = run_ask("lmstudio", server, tavily, "hi")
    assert result.returncode == 2
    assert "lists no model" in result.stderr and "LM Studio" in result.stderr


def test_an_optional_key_goes_as_bearer(tavily):
    with LocalServer("vllm") as server:
        server.reply(["Hi."])
        result = run_ask("vllm", server, tavily, "hi", env={"VLLM_API_KEY": "vllm-secret-token-1234"})
    assert result.returncode == 0, result.stderr
    assert server.chat_requests[0].headers.get("authorization") == "Bearer vllm-secret-token-1234"
