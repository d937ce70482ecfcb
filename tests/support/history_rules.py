"""Whether a stored conversation can go on with every provider: the request each wire would build for the next
turn, checked against the rules its API enforces (a broken one is a 400 in real life)."""

from __future__ import annotations

from typing import Any

from desktop_copilot.core.conversation.history import sendable_history
from desktop_copilot.core.conversation.models import Message
from desktop_copilot.core.providers import anthropic_wire, chat_completions_wire, gemini_wire, ollama_wire
from desktop_copilot.core.providers.base import ProviderRequest, ToolSpec
from tests.support.anthropic_rules import history_problems

NEXT_TURN = "And now?"
TOOLS = [ToolSpec("mcp__demo__read_note", "Reads a note.", {"type": "object", "properties": {"name": {"type": "string"}}})]


def _request(provider: str, model: str, history: list[Message]) -> ProviderRequest:
    return ProviderRequest(model=model, messages=sendable_history(history), provider=provider, tools=TOOLS)


def chat_completions_problems(messages: list[dict[str, Any]]) -> list[str]:
    """Chat Completions: every assistant `tool_calls` answered by one `tool` message per id right after it, no
    `tool` message without its call, no empty assistant turn, and the last turn the user's or a tool's."""
    problems: list[str] = []
    pending: list[str] = []
    for i, message in enumerate(messages):
        role = message["role"]
        if role == "tool":
            if message.get("tool_call_id") not in pending:
                problems.append(f"message {i} answers {message.get('tool_call_id')!r}, which no call before it asked")
            else:
                pending.remove(message["tool_call_id"])
            continue
        if pending:
            problems.append(f"calls {pending} are not answered before message {i}")
            pending = []
        if role == "assistant":
            calls = message.get("tool_calls") or []
            if not calls and not (message.get("content") or "").strip():
                problems.append(f"message {i} is an empty assistant turn")
            pending = [call["id"] for call in calls]
        elif role == "user" and not message.get("content"):
            problems.append(f"message {i} is an empty user turn")
    if pending:
        problems.append(f"calls {pending} are never answered")
    if not messages or messages[-1]["role"] not in ("user", "tool"):
        problems.append("the last message must be the user's or a tool result")
    return problems


def gemini_problems(contents: list[dict[str, Any]]) -> list[str]:
    """Gemini: user and model turns only, alternating ("Please ensure that multiturn requests alternate between user
    and model"), never an empty one, starting with the user; each model turn's `functionCall`s answered by
    `functionResponse`s of the same names in the next user turn."""
    problems: list[str] = []
    if not contents or contents[0]["role"] != "user":
        problems.append("the first content must be the user's")
    for i, content in enumerate(contents):
        if content["role"] not in ("user", "model"):
            problems.append(f"content {i} has role {content['role']!r}")
        if i and contents[i - 1]["role"] == content["role"]:
            problems.append(f"contents {i - 1} and {i} are both {content['role']!r}: turns must alternate")
        if not content.get("parts"):
            problems.append(f"content {i} has no parts")
        calls = sorted(p["functionCall"]["name"] for p in content.get("parts", []) if "functionCall" in p)
        if calls:
            following = contents[i + 1]["parts"] if i + 1 < len(contents) else []
            answers = sorted(p["functionResponse"]["name"] for p in following if "functionResponse" in p)
            if answers != calls:
                problems.append(f"calls {calls} in content {i} answered by {answers}")
    if contents and contents[-1]["role"] != "user":
        problems.append("the last content must be the user's")
    return problems


def ollama_problems(messages: list[dict[str, Any]]) -> list[str]:
    """Ollama: `tool` messages only right after an assistant turn with as many calls, no empty turn."""
    problems: list[str] = []
    expected = 0
    for i, message in enumerate(messages):
        if message["role"] == "tool":
            if expected <= 0:
                problems.append(f"message {i} is a tool result without a call before it")
            expected -= 1
            continue
        if expected > 0:
            problems.append(f"{expected} calls not answered before message {i}")
        expected = len(message.get("tool_calls") or []) if message["role"] == "assistant" else 0
        if not (message.get("content") or "").strip() and not message.get("tool_calls") and not message.get("images"):
            problems.append(f"message {i} ({message['role']}) is empty")
    if messages and messages[-1]["role"] not in ("user", "tool"):
        problems.append("the last message must be the user's or a tool result")
    return problems


def sent_request_problems(provider: str, body: dict[str, Any]) -> list[str]:
    """The rules a request body `provider`'s wire really sent breaks (empty when its API takes it)."""
    if provider == "anthropic":
        return history_problems(body["messages"])
    if provider == "gemini":
        return gemini_problems(body["contents"])
    if provider == "ollama":
        return ollama_problems(body["messages"])
    return chat_completions_problems([m for m in body["messages"] if m["role"] != "system"])


def problems_for_every_provider(history: list[Message]) -> dict[str, list[str]]:
    """Provider -> the rules its request for the next turn after `history` breaks (all empty when valid)."""
    nxt = [*history, Message.user(NEXT_TURN)]
    anthropic = anthropic_wire.build_params(_request("anthropic", "claude-test", nxt))["messages"]
    openai = chat_completions_wire.build_params(_request("openai", "gpt-test", nxt), vendor="openai")["messages"]
    gemini = gemini_wire.build_body(_request("gemini", "gemini-test", nxt))["contents"]
    ollama = ollama_wire.build_body(_request("ollama", "llama3.2", nxt))["messages"]
    return {
        "anthropic": history_problems(anthropic),
        "openai": chat_completions_problems([m for m in openai if m["role"] != "system"]),
        "gemini": gemini_problems(gemini),
        "ollama": ollama_problems(ollama),
    }


def assert_valid_for_every_provider(history: list[Message]) -> None:
    broken = {provider: found for provider, found in problems_for_every_provider(history).items() if found}
    assert not broken, f"the history would be refused: {broken}"
