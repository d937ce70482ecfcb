"""`ask --provider` as a user runs it, against loopback servers speaking each wire format: a conversation
that goes DeepSeek (thinking + a tool) -> Anthropic -> Ollama with `-c`, each request valid for its API."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.support.anthropic_rules import history_problems
from tests.support.chat_completions_support import chat_reply, chat_response
from tests.support.loopback import anthropic_text_reply, sse_response, tavily_results
from tests.support.ollama_support import text_reply as ollama_text_reply

KEYS = {"DEEPSEEK_API_KEY": "sk-deepseek-test-4242", "ANTHROPIC_API_KEY": "sk-ant-test-4343", "TAVILY_API_KEY": "tvly-test-4444"}


def run_ask(loopback, *args: str):
    env = dict(os.environ, **KEYS, PYTHONIOENCODING="utf-8", DEEPSEEK_BASE_URL=loopback.url,
               ANTHROPIC_BASE_URL=loopback.url, TAVILY_BASE_URL=loopback.url, OLLAMA_HOST=loopback.url)
    return subprocess.run([sys.executable, "-m", "desktop_copilot", "ask", *args], env=env, capture_output=True,
                          text=True, encoding="utf-8", timeout=90)


def stored_providers() -> tuple[str, list[tuple[str, str | None]]]:
    db = Path(os.environ["DESKTOP_COPILOT_HOME"]) / "data" / "conversations.sqlite3"
    with sqlite3.connect(db) as conn:
        conversation = conn.execute("SELECT provider FROM conversations").fetchone()[0]
        messages = conn.execute("SELECT role, provider FROM messages ORDER BY seq").fetchall()
    conn.close()
    return conversation, messages


def test_an_unknown_provider_is_a_usage_error_naming_the_known_ones(loopback):
    result = run_ask(loopback, "--provider", "nosuch", "hi")
    assert result.returncode == 2
    assert "unknown provider 'nosuch'" in result.stderr and "deepseek" in result.stderr and "ollama" in result.stderr


def test_a_missing_key_says_which_and_how(loopback):
    env_without = {name: "" for name in KEYS}
    result = subprocess.run([sys.executable, "-m", "desktop_copilot", "ask", "--provider", "deepseek", "hi"],
                            env=dict(os.environ, **env_without), capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "DeepSeek API key" in result.stderr and "keys set deepseek" in result.stderr and "DEEPSEEK_API_KEY" in result.stderr


def test_deepseek_then_anthropic_then_ollama_in_one_conversation(loopback):
    loopback.enqueue("/chat/completions",
                     chat_response(chat_reply("Let me look.", reasoning="The user wants the weather; search.",
                                              calls=[("call_ds_01", "tavily_search", {"query": "Hong Kong weather"})])),
                     chat_response(chat_reply("Sunny, 24 °C.", reasoning="Now answer.")))
    loopback.enqueue("/search", tavily_results("Hong Kong weather", [("HKO", "https://www.hko.gov.hk", "Sunny, 24 °C")]))
    first = run_ask(loopback, "--provider", "deepseek", "--model", "deepseek-reasoner", "Weather in Hong Kong?")
    assert first.returncode == 0, first.stderr
    assert "Sunny, 24 °C." in first.stdout
    second_request = loopback.requests_to("/chat/completions")[1].json()
    assert second_request["model"] == "deepseek-reasoner"
    assistant = next(m for m in second_request["messages"] if m["role"] == "assistant")
    assert assistant["reasoning_content"] == "The user wants the weather; search."  # DeepSeek's rule for tool turns
    assert assistant["tool_calls"][0]["id"] == "call_ds_01"
    assert second_request["messages"][-1] == {"role": "tool", "tool_call_id": "call_ds_01",
                                              "content": second_request["messages"][-1]["content"]}

    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("Tomorrow looks sunny too.")))
    switched = run_ask(loopback, "-c", "--provider", "anthropic", "And tomorrow?")
    assert switched.returncode == 0, switched.stderr
    sent = loopback.requests_to("/v1/messages")[-1].json()
    assert sent["model"] == "claude-sonnet-4-6"  # the new provider's default, not DeepSeek's model
    assert history_problems(sent["messages"]) == []
    assert not any(block["type"] == "thinking" for turn in sent["messages"] for block in turn["content"])
    assert sent["messages"][1]["content"][-1]["type"] == "tool_use" and sent["messages"][1]["content"][-1]["id"] == "call_ds_01"

    loopback.enqueue("/api/chat", ollama_text_reply("Bye!"))
    last = run_ask(loopback, "-c", "--provider", "ollama", "Thanks, bye")
    assert last.returncode == 0, last.stderr
    body = loopback.requests_to("/api/chat")[-1].json()
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["user", "assistant", "tool", "assistant", "user", "assistant", "user"]
    tool = body["messages"][2]
    assert tool["tool_name"] == "tavily_search" and "HKO" in tool["content"]
    assert not any(m.get("thinking") for m in body["messages"])  # DeepSeek's thinking is not Ollama's

    conversation, messages = stored_providers()
    assert conversation == "ollama"
    assert [p for role, p in messages if role == "assistant"] == ["deepseek", "deepseek", "anthropic", "ollama"]


def test_anthropic_deepseek_gemini_ollama_anthropic_every_request_valid(loopback):
    """The conversation the issue names: thinking and tools on the way, each hop's request valid for its API."""
    from tests.support.gemini_support import chunk as gemini_chunk
    from tests.support.gemini_support import gemini_sse
    from tests.support.gemini_support import usage as gemini_usage
    from tests.support.loopback import anthropic_tool_reply

    os.environ["GEMINI_API_KEY"] = "gemini-test-key-4545"
    os.environ["GEMINI_BASE_URL"] = loopback.url
    try:
        loopback.enqueue("/v1/messages",
                         sse_response(anthropic_tool_reply([("toolu_01A", "tavily_search", {"query": "HK"})], thinking="Search first.")),
                         sse_response(anthropic_text_reply("It is sunny.")))
        loopback.enqueue("/search", tavily_results("HK", [("HKO", "https://www.hko.gov.hk", "Sunny")]),
                         tavily_results("HK rain", [("HKO", "https://www.hko.gov.hk", "No rain")]))
        assert run_ask(loopback, "--thinking-budget", "2048", "Weather in HK?").returncode == 0

        loopback.enqueue("/chat/completions",
                         chat_response(chat_reply(None, reasoning="Check rain.", calls=[("call_ds_9", "tavily_search", {"query": "HK rain"})])),
                         chat_response(chat_reply("No rain expected.", reasoning="Answer.")))
        assert run_ask(loopback, "-c", "--provider", "deepseek", "Any rain?").returncode == 0

        signed = gemini_chunk({"text": "Take sunscreen.", "thoughtSignature": "c2lnbmF0dXJl"}, finish="STOP", usage=gemini_usage())
        loopback.enqueue("/v1beta/models/gemini-2.5-flash:streamGenerateContent", gemini_sse([signed]))
        assert run_ask(loopback, "-c", "--provider", "gemini", "What should I bring?").returncode == 0

        loopback.enqueue("/api/chat", ollama_text_reply("Have fun."))
        assert run_ask(loopback, "-c", "--provider", "ollama", "Thanks").returncode == 0

        loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("Goodbye.")))
        final = run_ask(loopback, "-c", "--provider", "anthropic", "Bye")
        assert final.returncode == 0, final.stderr
    finally:
        os.environ.pop("GEMINI_API_KEY", None)
        os.environ.pop("GEMINI_BASE_URL", None)

    last = loopback.requests_to("/v1/messages")[-1].json()
    assert history_problems(last["messages"]) == []
    kinds = [block["type"] for turn in last["messages"] for block in turn["content"]]
    assert kinds.count("thinking") == 1  # Anthropic's own signed thinking goes back; nobody else's
    assert "call_ds_9" in {block.get("id") for turn in last["messages"] for block in turn["content"]}

    gemini = loopback.requests_to("/v1beta/models/gemini-2.5-flash:streamGenerateContent")[-1].json()
    roles = [content["role"] for content in gemini["contents"]]
    assert roles[0] == "user" and roles[-1] == "user" and all(r in ("user", "model") for r in roles)
    assert not any(part.get("thought") for content in gemini["contents"] for part in content["parts"])

    ollama = loopback.requests_to("/api/chat")[-1].json()
    gemini_turn = [m for m in ollama["messages"] if m["role"] == "assistant"][-1]
    assert gemini_turn["content"] == "Take sunscreen." and "thoughtSignature" not in json.dumps(ollama)
    chat = loopback.requests_to("/chat/completions")[-1].json()
    assert [m["role"] for m in chat["messages"]][:2] == ["user", "assistant"]
    assert "reasoning_content" not in chat["messages"][1]  # Anthropic's thinking is not DeepSeek's
