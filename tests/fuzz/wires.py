"""Each wire's mapper fed the way its provider feeds it (reader, JSON, mapper, the closing events), the message the
events fold into, and the rules every provider's API holds a history to (a request it would refuse is a finding)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.accumulate import accumulate
from desktop_copilot.core.storage.export import to_markdown
from desktop_copilot.core.conversation.history import sendable_history
from desktop_copilot.core.conversation.models import (
    Conversation,
    Message,
    MessageStatus,
    RawBlock,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolCallStatus,
)
from desktop_copilot.core.providers import anthropic_wire, chat_completions_wire, gemini_wire, ollama_wire
from desktop_copilot.core.providers.anthropic_wire import AnthropicEventMapper
from desktop_copilot.core.providers.base import ProviderRequest
from desktop_copilot.core.providers.chat_completions_wire import ChatCompletionsEventMapper
from desktop_copilot.core.providers.gemini_wire import GeminiEventMapper
from desktop_copilot.core.providers.ollama_wire import OllamaEventMapper
from desktop_copilot.core.providers.stream_reader import LineReader, SSEReader
from desktop_copilot.core.transcript.segments import MessageSegmenter
from tests.support.history_rules import NEXT_TURN, TOOLS, problems_for_every_provider

INTERRUPTED = ev.Error(reason="interrupted", message="interrupted")


# --- the providers' reading loops, without HTTP (anthropic_provider.py, chat_completions_provider.py, …) ----------


def anthropic_events(chunks: Iterable[bytes]) -> list[ev.Event]:
    """As AnthropicProvider.stream reads the body: an `error` event ends it, pings and empty events are skipped."""
    mapper, reader, out = AnthropicEventMapper(), SSEReader(), []
    for chunk in chunks:
        for name, data in reader.feed(chunk):
            if name == "error":
                return [*out, ev.Error(reason="error", message="error event")]
            if not name or name == "ping" or not data:
                continue
            out += mapper.feed(json.loads(data))
    return out if mapper.finished else [*out, INTERRUPTED]


def chat_completions_events(chunks: Iterable[bytes], *, position: int = 1) -> list[ev.Event]:
    """As ChatCompletionsProvider.stream reads the body: `[DONE]` ends it, an error object fails it."""
    mapper, reader, out = ChatCompletionsEventMapper(position=position), SSEReader(), []
    for chunk in chunks:
        for _name, data in reader.feed(chunk):
            if data.startswith(b"[DONE]"):
                return out + (mapper.finish() if mapper.finished else [INTERRUPTED])
            value = json.loads(data)
            if isinstance(value, dict) and value.get("error"):
                return [*out, ev.Error(reason="error", message="error object")]
            out += mapper.feed(value)
    return out + (mapper.finish() if mapper.finished else [INTERRUPTED])


def gemini_events(chunks: Iterable[Any]) -> list[ev.Event]:
    """As GeminiProvider feeds its mapper: JSON objects only (anything else fails the stream), then `finish()`."""
    mapper, out = GeminiEventMapper(), []
    for chunk in (json.loads(json.dumps(chunk)) for chunk in chunks):  # as read off the wire: fresh objects
        if not isinstance(chunk, dict) or isinstance(chunk.get("error"), dict):
            return out if mapper.finished else [*out, *mapper.finish("cut")]
        out += mapper.feed(chunk)
    return out + mapper.finish()


def ollama_events(chunks: Iterable[bytes], *, prompt_tools: bool = False) -> list[ev.Event]:
    """As OllamaProvider reads NDJSON: a line that is not a JSON object fails the reply; it ends at `done`."""
    mapper, reader, out = OllamaEventMapper(prompt_tools=prompt_tools), LineReader(), []
    for line in (*(line for chunk in chunks for line in reader.feed(chunk)), *reader.close()):
        try:
            data = json.loads(line.decode())
        except ValueError:
            data = None
        out += mapper.fail("not a JSON object") if not isinstance(data, dict) else mapper.feed(data)
        if mapper.finished or mapper.failed:
            return out
    return [*out, *(mapper.close() if mapper.started else []), INTERRUPTED]


# --- the message ---------------------------------------------------------------------------------------------------


def fold(events: Iterable[ev.Event], provider: str) -> Message:
    message = Message.assistant(provider=provider)
    for event in events:
        accumulate(message, event)
    return message


def summary(message: Message) -> list[Any]:
    """What a reader sees of a reply (times left out): its blocks, status and stop reason."""
    blocks: list[Any] = []
    for block in message.blocks:
        match block:
            case TextBlock():
                blocks.append(("text", block.text, block.citations))
            case ThinkingBlock():
                blocks.append(("thinking", block.thinking, block.signature))
            case RedactedThinkingBlock():
                blocks.append(("redacted", block.data))
            case ToolCallBlock():
                blocks.append(("call", block.id, block.name, block.arguments, block.partial_arguments, block.provider_fields))
            case RawBlock():
                blocks.append(("raw", block.data))
    return [blocks, message.status, message.stop_reason, message.error]


def close_calls(message: Message) -> None:
    """What the loop does after a reply: every call gets a result (here: not run)."""
    for call in message.tool_calls:
        if not call.status.finished:
            accumulate(message, ev.ToolStatus(tool_call_id=call.id, name=call.name, status=ToolCallStatus.CANCELLED,
                                              result="not run", is_error=True))


# --- the rules of each provider's API (tests/support/history_rules.py, and what the fuzzing needs beyond it) ----------

ANTHROPIC_ID = re.compile(r"[a-zA-Z0-9_-]+")


def encoding_problems(body: Any) -> list[str]:
    """What an HTTP client could not send: httpx encodes JSON with allow_nan=False, as strict UTF-8."""
    try:
        json.dumps(body, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (ValueError, TypeError) as exc:
        return [f"the body cannot be sent as JSON: {type(exc).__name__}: {exc}"]
    return []


def anthropic_id_problems(messages: list[dict[str, Any]]) -> list[str]:
    """The API takes tool_use ids of `[a-zA-Z0-9_-]+` only, each once in a conversation."""
    ids = [b["id"] for m in messages for b in m["content"] if b["type"] == "tool_use"]
    problems = [f"tool_use id {i!r} does not match {ANTHROPIC_ID.pattern}" for i in ids if not ANTHROPIC_ID.fullmatch(i)]
    return problems + ([f"tool_use ids are not unique: {ids}"] if len(set(ids)) != len(ids) else [])


def arguments_problems(messages: list[dict[str, Any]]) -> list[str]:
    """Chat Completions: each call's `arguments` is the JSON text of an object."""
    problems = []
    for message in messages:
        for call in message.get("tool_calls") or []:
            try:
                if not isinstance(json.loads(call["function"]["arguments"]), dict):
                    problems.append(f"arguments {call['function']['arguments'][:80]!r} are not a JSON object")
            except ValueError:
                problems.append(f"arguments {call['function']['arguments'][:80]!r} are not JSON")
    return problems


def bodies(history: list[Message]) -> dict[str, Any]:
    """The request body each wire builds for the next turn after `history` (DeepSeek and Ollama's prompt-tool mode
    beside the lead's four)."""
    nxt = [*history, Message.user(NEXT_TURN)]

    def request(provider: str) -> ProviderRequest:
        return ProviderRequest(model="m", messages=sendable_history(nxt), provider=provider, tools=TOOLS, system="s")

    return {
        "anthropic": anthropic_wire.build_params(request("anthropic")),
        "openai": chat_completions_wire.build_params(request("openai"), vendor="openai"),
        "deepseek": chat_completions_wire.build_params(request("deepseek"), vendor="deepseek"),
        "gemini": gemini_wire.build_body(request("gemini")),
        "ollama": ollama_wire.build_body(request("ollama")),
        "ollama (prompt tools)": ollama_wire.build_body(request("ollama"), prompt_tools=True),
    }


def request_problems(history: list[Message]) -> dict[str, list[str]]:
    """Target -> what its API (or the HTTP client) would refuse in the next turn's request after `history`. Building
    a request must not raise either: an exception is reported as a problem."""
    try:
        found = {provider: found for provider, found in problems_for_every_provider(history).items() if found}
        built = bodies(history)
    except Exception as exc:  # noqa: BLE001 - any exception is the finding
        return {"building the request": [f"{type(exc).__name__}: {exc}"]}
    for target, body in built.items():
        problems = encoding_problems(body)
        if target == "anthropic":
            problems += anthropic_id_problems(body["messages"])
        elif target in ("openai", "deepseek"):
            problems += arguments_problems(body["messages"])
        if problems:
            found[target] = found.get(target, []) + problems
    return found


def display_problems(message: Message) -> list[str]:
    """What would fail showing or exporting the reply: the transcript's rows (core/transcript/segments.py), whether
    a kept block is shown, the Markdown export."""
    try:
        MessageSegmenter().segments(message)
        assert all(isinstance(block.shown, bool) for block in message.blocks if isinstance(block, RawBlock))
        to_markdown(Conversation(messages=[Message.user("q"), message]))
    except Exception as exc:  # noqa: BLE001
        return [f"showing the reply raised {type(exc).__name__}: {exc}"]
    return []


def storage_problems(message: Message) -> list[str]:
    """What the store could not write or read back (core/storage/message_writer.py dumps the blocks as JSON)."""
    try:
        again = Message.model_validate_json(message.model_dump_json())
    except Exception as exc:  # noqa: BLE001
        return [f"the message cannot be stored: {type(exc).__name__}: {exc}"]
    return [] if summary(again) == summary(message) else ["the stored message reads back different"]


def reply_problems(message: Message) -> dict[str, list[str]]:
    """Every problem of a folded reply: as stored, and as history sent to each provider, before and after the loop
    gives its calls results."""
    found = {}
    if problems := storage_problems(message):
        found["store"] = problems
    if problems := display_problems(message):
        found["display"] = problems
    if message.status is MessageStatus.STREAMING:
        accumulate(message, INTERRUPTED)  # what the loop records when a stream ends without a last event
    history = [Message.user("q"), message]
    for when in ("as streamed", "after the loop"):
        if when == "after the loop":
            close_calls(message)
        for target, problems in request_problems(history).items():
            found[f"{target} ({when})"] = problems
    return found
