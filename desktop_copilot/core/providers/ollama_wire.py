"""Ollama `/api/chat` wire format: domain history to the request body, and NDJSON lines to unified events.

Native tool calls arrive whole (no deltas, often without ids); for models without native tools the text protocol
(core/providers/text_protocol/) is used instead, in both directions, and it also reads thinking and calls that a
model writes as text."""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

from desktop_copilot.core.context.tokens import factor, message_weight, text_weight
from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.history import written_by
from desktop_copilot.core.conversation.models import Message, Role, TextBlock, ThinkingBlock, Usage
from desktop_copilot.core.providers.attachment_limits import limits_for, user_parts
from desktop_copilot.core.providers.base import ProviderRequest
from desktop_copilot.core.providers.parts import Parts
from desktop_copilot.core.providers.text_protocol.reader import TextReader
from desktop_copilot.core.providers.text_protocol.think_tags import LONE_CLOSE_WINDOW
from desktop_copilot.core.providers.text_protocol.writing import reply_text, results_text, tools_system_prompt, written_as_text
from desktop_copilot.core.providers.wire_common import stable_call_id, tool_result_of
from desktop_copilot.core.conversation.clean_values import clean_json, clean_text
from desktop_copilot.core.providers.wire_values import count_of, dict_of, list_of, text_of
from desktop_copilot.core.words import tr

STOP_REASONS = {"stop": "end_turn", "length": "max_tokens"}
MIN_NUM_CTX = 8_192
ESTIMATE_MARGIN = 1.1
"""The estimate is a few percent off either way; a window too small is cut silently, so it errs on the large side."""


def _texts(message: Message) -> list[str]:
    return [b.text for b in message.blocks if isinstance(b, TextBlock) and b.text.strip()]


def _native_assistant(message: Message, own: bool) -> list[dict[str, Any]]:
    """The assistant turn (text, own thinking, tool calls) and one `tool` message per call, in order."""
    turn: dict[str, Any] = {"role": "assistant", "content": "\n\n".join(_texts(message))}
    thinking = "".join(b.thinking for b in message.blocks if isinstance(b, ThinkingBlock)) if own else ""
    if thinking.strip():  # only Ollama's own thinking goes back (other providers' is theirs)
        turn["thinking"] = thinking
    calls = message.tool_calls
    if calls:
        turn["tool_calls"] = [{"id": c.id, "function": {"name": c.name, "arguments": c.arguments}} for c in calls]
    if not turn["content"] and not calls:
        return []  # nothing but thinking or blank text: no empty assistant turn
    results = []
    for call in calls:
        text, is_error = tool_result_of(call)
        results.append({"role": "tool", "tool_name": call.name, "tool_call_id": call.id,
                        "content": f"Error: {text}" if is_error else text})
    return [turn, *results]


def _text_assistant(message: Message, own: bool) -> list[dict[str, Any]]:
    """The text form: the reply as the model wrote it (its calls as text), and the results as a user message."""
    turns: list[dict[str, Any]] = []
    if content := reply_text(message):
        turn: dict[str, Any] = {"role": "assistant", "content": content}
        thinking = "".join(b.thinking for b in message.blocks if isinstance(b, ThinkingBlock)) if own else ""
        if thinking.strip():
            turn["thinking"] = thinking
        turns.append(turn)
    if message.tool_calls:
        turns.append({"role": "user", "content": results_text(message.tool_calls)})
    return turns


def build_messages(request: ProviderRequest, *, prompt_tools: bool = False) -> list[dict[str, Any]]:
    """The `messages` array: the system prompt first (with the tool protocol in prompt mode), then the
    history; adjacent user turns are merged, whitespace-only text and empty turns are left out."""
    system = request.system or ""
    if prompt_tools and request.tools:
        system = (system.rstrip() + "\n\n" if system.strip() else "") + tools_system_prompt(request.tools)
    turns: list[dict[str, Any]] = [{"role": "system", "content": system}] if system.strip() else []
    limits = limits_for(request.provider, "ollama", request.model)
    for message in request.messages:
        if message.role is Role.USER:
            parts = user_parts(message, limits)
            text = "\n\n".join(part for part in parts if isinstance(part, str))
            images = [part.data for part in parts if not isinstance(part, str)]  # PDFs are never sent: a note instead
            added = [{"role": "user", "content": text, **({"images": images} if images else {})}] if text or images else []
        else:
            own = written_by(message, request.provider)
            as_text = prompt_tools or (own and written_as_text(message))
            added = _text_assistant(message, own) if as_text else _native_assistant(message, own)
        for turn in added:
            if turn["role"] == "user" and turns and turns[-1]["role"] == "user":
                last = turns[-1]
                last["content"] = "\n\n".join(text for text in (last["content"], turn["content"]) if text)
                if turn.get("images"):
                    last["images"] = [*last.get("images", []), *turn["images"]]
            else:
                turns.append(turn)
    return turns


def build_body(request: ProviderRequest, *, prompt_tools: bool = False, think_supported: bool = True) -> dict[str, Any]:
    """The JSON body for `POST /api/chat` (streamed). `prompt_tools`: the model has no native tools, so
    the tools are described in the system prompt and the history carries calls as text.
    `think_supported=False` leaves thinking off for a model that refused it."""
    body: dict[str, Any] = {
        "model": request.model,
        "messages": build_messages(request, prompt_tools=prompt_tools),
        "stream": True,
        # Sent either way: a thinking model thinks unless told not to.
        "think": bool(request.thinking_budget) and think_supported,
        "options": {"num_predict": request.max_tokens, **request.sampling_options()},
    }
    if request.tools and not prompt_tools:
        body["tools"] = [
            {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.input_schema}}
            for t in request.tools
        ]
    body["options"]["num_ctx"] = num_ctx(request, body)
    return body


def num_ctx(request: ProviderRequest, body: dict[str, Any]) -> int:
    """The context window to ask Ollama for (`options.num_ctx`), or it cuts the start of the conversation to its
    default (a few thousand tokens) without a word: what is sent (estimated, with a margin) plus the output reserve
    (`num_predict`), at least 8,192, at most the model's window when a source knows it (a guessed one is not passed,
    so it cannot cap the window below what the request needs). Ollama reloads the model whenever `num_ctx` changes,
    so the size moves in steps (8k, 12k, 16k, 24k, 32k, 48k, …): a few reloads over a long conversation, at most
    half again the memory needed. The text is weighed with the calibration learned for Ollama but never below 1: a
    server that reported only the part of its prompt it had not cached teaches a factor under 1, and a window sized
    on it would cut the prompt."""
    system = body["messages"][0]["content"] if body["messages"] and body["messages"][0]["role"] == "system" else ""
    text, fixed = text_weight(system), 0
    if body.get("tools"):
        text += text_weight(json.dumps(body["tools"], ensure_ascii=False))
    for message in request.messages:
        weight = message_weight(message)
        text, fixed = text + weight.text + weight.thinking, fixed + weight.fixed
    sent = round(text * max(1.0, factor("ollama"))) + fixed
    needed = int(sent * ESTIMATE_MARGIN) + request.max_tokens
    size = MIN_NUM_CTX
    while size < needed:
        size = size * 3 // 2 if size & (size - 1) == 0 else size * 4 // 3  # 8k -> 12k -> 16k -> 24k -> 32k …
    return min(size, request.context_window) if request.context_window else size


def _arguments(value: Any) -> tuple[dict[str, Any], str]:
    """(a call's arguments, their raw text when they are not a JSON object). Arguments come as an object (Ollama's
    own form), a JSON string (some proxies), or not at all; anything else gives `{}` and keeps its text, which goes
    to the call's `partial_arguments` for the tool executor to report to the model."""
    if value is None or isinstance(value, dict):
        return clean_json(value or {}), ""
    if isinstance(value, str):
        if not value.strip():
            return {}, ""
        try:
            parsed = json.loads(value)
        except (json.JSONDecodeError, RecursionError):  # not JSON, or nested deeper than Python reads
            return {}, clean_text(value)
        return (clean_json(parsed), "") if isinstance(parsed, dict) else ({}, clean_text(value))
    return {}, json.dumps(value)


class OllamaEventMapper:
    """Maps the NDJSON lines of one `/api/chat` stream to unified events through the parts manager.
    `message.thinking` and `message.content` open parts in the order they come (the content read by the text
    protocol: `<think>` at the start is thinking; with tools offered, calls written as text become calls);
    `message.tool_calls` arrive whole; the line with `done: true` carries the stop reason and token counts. A field
    of the wrong type is read as absent."""

    def __init__(self, *, prompt_tools: bool = False, tool_names: Collection[str] | None = None, thinks_in_tags: bool = False) -> None:
        """`prompt_tools`: the tools were described in the prompt (calls come as text, a final json block among them)."""
        self.parts = Parts()
        self.usage = Usage()
        self.started = False
        self.finished = False
        self.failed = False
        self._calls = 0
        self._salt = ""
        names = tool_names if tool_names is not None else ([] if prompt_tools else None)
        self.reader = TextReader(self.parts, think_tags=True, tool_names=names, lax_json=prompt_tools,
                                 lone_close_window=LONE_CLOSE_WINDOW if thinks_in_tags else 0)

    @property
    def drained(self) -> bool:
        return self.finished or self.failed

    @property
    def tool_calls(self) -> int:
        return self.parts.calls_made

    def feed(self, line: dict[str, Any]) -> list[ev.Event]:
        message = line.get("message")
        if (self.started and type(message) is dict and not line.get("done") and not line.get("error")
                and not message.get("thinking") and not message.get("tool_calls")):  # most lines: more of the content
            content = message.get("content")
            return self.reader.feed(clean_text(content)) if type(content) is str else []
        if line.get("error"):
            return self.fail(_error_text(line["error"]))
        events: list[ev.Event] = []
        if not self.started:
            self.started = True
            self._salt = self.reader.id_salt = text_of(line.get("created_at"))
            events.append(ev.Start(model=text_of(line.get("model"))))
        message = dict_of(line.get("message"))
        if thinking := text_of(message.get("thinking")):
            events += self.reader.flush() + self.parts.thinking(thinking)
        if content := text_of(message.get("content")):
            events += self.reader.feed(content)
        for call in list_of(message.get("tool_calls")):
            events += self.reader.flush() + self._tool_call(call)
        if line.get("done"):
            events += self.close()
            self._update_usage(line)
            self.finished = True
            detail = " ".join(self.reader.problems)
            events += [ev.UsageUpdate(usage=self.usage.model_copy()), ev.Done(reason=self._stop_reason(line.get("done_reason")), detail=detail)]
        return events

    def finish(self) -> list[ev.Event]:
        """Nothing more: the `done` line gave the closing events."""
        return []

    def fail(self, detail: str) -> list[ev.Event]:
        """An `{"error": …}` line: the open parts are closed and the message fails, its partial kept."""
        self.failed = True
        if self.started:
            words = tr("Ollama reported an error mid-reply: {detail}. The partial reply was kept.").format(detail=detail)
        else:
            words = tr("Ollama reported an error: {detail}.").format(detail=detail)
        return [*self.close(), ev.Error(reason="error", message=words)]

    def close(self) -> list[ev.Event]:
        """End events for every open part (at the end of the stream, or before an error)."""
        return self.reader.finish() + self.parts.close_all()

    def _tool_call(self, call: Any) -> list[ev.Event]:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            return []
        name = text_of(function.get("name"))
        arguments, raw = _arguments(function.get("arguments"))
        call_id = text_of(call.get("id")) or stable_call_id(self._calls, name, {"raw": raw} if raw else arguments, self._salt)
        self._calls += 1
        return self.parts.whole_call(("native", self._calls), call_id, name, arguments, raw=raw)

    def _stop_reason(self, done_reason: Any) -> str:
        reason = text_of(done_reason) or "stop"
        if reason == "length":
            return "max_tokens"
        if self.tool_calls:
            return "tool_use"
        return STOP_REASONS.get(reason, reason)

    def _update_usage(self, line: dict[str, Any]) -> None:
        # Both counts are left out when zero (Go's omitempty): a fully cached prompt has no prompt_eval_count.
        self.usage.input_tokens = count_of(line.get("prompt_eval_count")) or 0
        self.usage.output_tokens = count_of(line.get("eval_count")) or 0


def _error_text(error: Any) -> str:
    if isinstance(error, dict):  # OpenAI-style proxies in front of Ollama
        return str(error.get("message") or error)
    return str(error)
