"""OpenAI Chat Completions wire format (OpenAI and the vendors that speak it: DeepSeek, Kimi, GLM, OpenRouter,
Groq, xAI, …): domain history to request JSON, and streamed chunks to unified events."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.history import written_by
from desktop_copilot.core.conversation.models import ImageBlock, Message, Role, TextBlock, ThinkingBlock, Usage
from desktop_copilot.core.providers.wire_common import field_of, parse_arguments, stable_call_id, tool_result_of
from desktop_copilot.core.providers.wire_values import count_of, list_of, text_of
from desktop_copilot.core.providers.base import ProviderRequest
from desktop_copilot.core.providers.attachment_limits import AttachmentLimits, data_url, limits_for, user_parts

REASONING_ECHO_VENDORS = frozenset({"deepseek", "moonshot"})
"""Vendors whose thinking models answer 400 unless each earlier assistant turn that made tool calls carries its
`reasoning_content` (DeepSeek's thinking mode, Kimi's thinking models)."""

CONTENT_FILTER_WORDS = "The provider's content filter stopped this reply."
FINISH_REASONS = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
    "sensitive": "refusal",  # Zhipu GLM: blocked by its safety review
}
FINISH_DETAILS = {
    "content_filter": CONTENT_FILTER_WORDS,
    "sensitive": CONTENT_FILTER_WORDS,
    "insufficient_system_resource": "The provider ran out of capacity and cut this reply short. Retry in a little while.",
    "network_error": "The provider's model failed while writing this reply. Retry in a little while.",
}
_OPENAI_REASONING_MODEL = re.compile(r"^(o\d|gpt-5)")
_NO_REASONING_EFFORT = re.compile(r"^o1-(mini|preview)|chat")


# --- history -> request ------------------------------------------------------------------


def message_text(message: Message) -> str:
    """The text of `message` as one string: adjacent text blocks (Anthropic splits cited text into several)
    are joined as they are, runs of text separated by other blocks become paragraphs; blank runs are left out."""
    runs: list[list[str]] = [[]]
    for block in message.blocks:
        if isinstance(block, TextBlock):
            runs[-1].append(block.text)
        elif runs[-1]:
            runs.append([])
    return "\n\n".join(text for run in runs if (text := "".join(run)).strip())


def _assistant_turn(message: Message, vendor: str) -> dict[str, Any] | None:
    text, calls = message_text(message), message.tool_calls
    if not text and not calls:
        return None
    turn: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        if vendor in REASONING_ECHO_VENDORS and written_by(message, vendor):
            # Required on every tool-call turn in thinking mode, even when the thinking was empty.
            turn["reasoning_content"] = "".join(b.thinking for b in message.blocks if isinstance(b, ThinkingBlock))
        turn["tool_calls"] = [
            {"id": call.id, "type": "function",
             "function": {"name": call.name, "arguments": json.dumps(call.arguments, ensure_ascii=False)}}
            for call in calls
        ]
    return turn


def _add(turns: list[dict[str, Any]], turn: dict[str, Any]) -> None:
    """Append `turn`, merging it into the previous one of the same role (a dropped empty reply can leave two
    user turns adjacent, which some vendors refuse). An assistant turn with tool calls is always followed by
    its tool results, so two adjacent assistant turns never both have calls."""
    last = turns[-1] if turns else None
    if last is None or last["role"] != turn["role"] or turn["role"] not in ("user", "assistant"):
        turns.append(turn)
        return
    if isinstance(last["content"], list) or isinstance(turn["content"], list):  # a user turn with attachments
        last["content"] = _content_parts(last["content"]) + _content_parts(turn["content"])
        return
    last["content"] = "\n\n".join(text for text in (last["content"], turn["content"]) if text) or None
    for key in ("reasoning_content", "tool_calls"):
        if key in turn:
            last[key] = turn[key]


def _content_parts(content: str | list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    if isinstance(content, list):
        return content
    return [{"type": "text", "text": content}] if content else []


def user_content(message: Message, limits: AttachmentLimits) -> str | list[dict[str, Any]]:
    """A user message's `content`: its text as a string, or with attachments a list of parts: images as
    `image_url` data URLs, PDFs as `file` parts (only vendors that read them: OpenAI, OpenRouter; others get
    a note, and a new PDF is refused before sending), text files as text headed by their name."""
    if not message.attachments:
        return message_text(message)
    content: list[dict[str, Any]] = []
    for part in user_parts(message, limits):
        if isinstance(part, str):
            content.append({"type": "text", "text": part})
        elif isinstance(part, ImageBlock):
            content.append({"type": "image_url", "image_url": {"url": data_url(part)}})
        else:
            content.append({"type": "file", "file": {"filename": part.name or "document.pdf", "file_data": data_url(part)}})
    return content


def build_messages(history: list[Message], *, vendor: str, model: str = "") -> list[dict[str, Any]]:
    """The `messages` array for `history` (without the system prompt): each assistant turn with tool calls is
    followed by one `tool` message per call, in order; empty turns and whitespace-only text are left out;
    thinking goes back only where the vendor requires it, and only its own. `model` decides which attachments
    go as they are (attachment_limits)."""
    turns: list[dict[str, Any]] = []
    limits = limits_for(vendor, "chat_completions", model)
    for message in history:
        if message.role is Role.USER:
            if content := user_content(message, limits):
                _add(turns, {"role": "user", "content": content})
            continue
        turn = _assistant_turn(message, vendor)
        if turn is None:
            continue
        _add(turns, turn)
        for call in message.tool_calls:  # text only: not every model behind this wire takes images
            text, _is_error = tool_result_of(call)
            turns.append({"role": "tool", "tool_call_id": call.id, "content": text})
    return turns


def reasoning_effort(request: ProviderRequest, vendor: str) -> str | None:
    """OpenAI's `reasoning_effort` for the thinking budget, for its reasoning models only (o-series, gpt-5);
    other vendors' reasoning models think without being asked."""
    model = request.model.lower()
    if not request.thinking_budget or vendor != "openai" or not _OPENAI_REASONING_MODEL.match(model):
        return None
    if _NO_REASONING_EFFORT.search(model):
        return None
    if request.thinking_budget <= 4096:
        return "low"
    return "medium" if request.thinking_budget <= 16384 else "high"


def build_params(request: ProviderRequest, *, vendor: str) -> dict[str, Any]:
    """Keyword arguments for `client.chat.completions.create` (without `stream`)."""
    messages = build_messages(request.messages, vendor=vendor, model=request.model)
    if request.system and request.system.strip():
        messages.insert(0, {"role": "system", "content": request.system})
    params: dict[str, Any] = {"model": request.model, "messages": messages, "stream_options": {"include_usage": True}}
    max_tokens = request.max_tokens
    if effort := reasoning_effort(request, vendor):
        params["reasoning_effort"] = effort
        if max_tokens <= (request.thinking_budget or 0):  # the limit counts the reasoning too
            max_tokens = (request.thinking_budget or 0) + 4096
    # OpenAI's newer models refuse `max_tokens`; the other vendors know only `max_tokens`.
    params["max_completion_tokens" if vendor == "openai" else "max_tokens"] = max_tokens
    if request.tools:
        params["tools"] = [
            {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.input_schema}}
            for t in request.tools
        ]
    return params


# --- chunks -> events ----------------------------------------------------------------------


@dataclass
class _Call:
    id: str = ""
    name: str = ""
    fragments: list[str] = field(default_factory=list)
    index: int | None = None
    """Its position in the message's blocks, given when the call starts (once its name is known)."""


class ChatCompletionsEventMapper:
    """Maps `chat.completion.chunk`s (SDK objects or plain dicts) of choice 0 to unified events. Text and
    thinking (`reasoning_content` of DeepSeek/Kimi/GLM, `reasoning` of OpenRouter/Groq) each form a block
    until another kind of output starts; tool calls are merged by their `index` and end when the reply
    finishes. `finish()` gives the closing `Done` once the stream has ended after a finish reason. A field of
    the wrong type is read as absent."""

    def __init__(self, *, position: int = 0) -> None:
        self.position = position
        """Where the reply sits in the conversation: seeds the ids made for calls that come without one."""
        self.usage = Usage()
        self.started = False
        self.finished = False
        self.finish_reason: str | None = None
        self._response_id = ""
        self._blocks = 0
        self._open: tuple[str, int] | None = None
        self._calls: dict[int, _Call] = {}

    def feed(self, chunk: Any) -> list[ev.Event]:
        events: list[ev.Event] = []
        if not self.started:
            self.started = True
            self._response_id = text_of(field_of(chunk, "id"))
            events.append(ev.Start(model=text_of(field_of(chunk, "model")), provider_message_id=self._response_id))
        for choice in list_of(field_of(chunk, "choices")):
            if (field_of(choice, "index") or 0) != 0:
                continue
            delta = field_of(choice, "delta")
            if delta is not None and not self.finished:
                events += self._on_delta(delta)
            if usage := field_of(choice, "usage"):  # Moonshot puts the usage on the final choice
                events += self._on_usage(usage)
            if (reason := text_of(field_of(choice, "finish_reason"))) and not self.finished:
                self.finished, self.finish_reason = True, reason
                events += self._close_all()
        if usage := field_of(chunk, "usage"):
            events += self._on_usage(usage)
        return events

    def finish(self) -> list[ev.Event]:
        """The closing `Done` (nothing when no finish reason came: the reply was interrupted)."""
        if not self.finished or self.finish_reason is None:
            return []
        reason = FINISH_REASONS.get(self.finish_reason, self.finish_reason)
        if reason == "end_turn" and self._calls:  # servers that end a tool-call reply with "stop"
            reason = "tool_use"
        return [ev.Done(reason=reason, detail=FINISH_DETAILS.get(self.finish_reason, ""))]

    def _on_delta(self, delta: Any) -> list[ev.Event]:
        events: list[ev.Event] = []
        if reasoning := text_of(field_of(delta, "reasoning_content")) or text_of(field_of(delta, "reasoning")):
            events += self._stream("thinking", reasoning)
        for key in ("content", "refusal"):
            if text := text_of(field_of(delta, key)):
                events += self._stream("text", text)
        for call in list_of(field_of(delta, "tool_calls")):
            events += self._on_tool_call(call)
        return events

    def _stream(self, kind: str, text: str) -> list[ev.Event]:
        events: list[ev.Event] = []
        if self._open is None or self._open[0] != kind:
            events += self._close_open()
            self._open = (kind, self._new_index())
            events.append(ev.TextStart(index=self._open[1]) if kind == "text" else ev.ThinkingStart(index=self._open[1]))
        index = self._open[1]
        events.append(ev.TextDelta(index=index, text=text) if kind == "text" else ev.ThinkingDelta(index=index, text=text))
        return events

    def _on_tool_call(self, raw: Any) -> list[ev.Event]:
        wire = field_of(raw, "index")
        call_id = text_of(field_of(raw, "id"))
        if not isinstance(wire, int):  # a vendor that leaves out the index: a new id means a new call
            known = {c.id for c in self._calls.values()}
            latest = max(self._calls, default=-1)
            wire = latest + 1 if latest < 0 or (call_id and call_id not in known) else latest
        function = field_of(raw, "function")
        name = text_of(field_of(function, "name"))
        arguments = field_of(function, "arguments")
        if isinstance(arguments, dict):  # a vendor that sends the object instead of its JSON text
            arguments = json.dumps(arguments, ensure_ascii=False)
        arguments = text_of(arguments)
        call = self._calls.setdefault(wire, _Call())
        call.id = call.id or call_id
        call.name = call.name or name
        if arguments:
            call.fragments.append(arguments)
        if call.index is None:
            return self._start_call(wire, call) if call.name else []
        return [ev.ToolCallDelta(index=call.index, partial_json=arguments)] if arguments else []

    def _start_call(self, wire: int, call: _Call) -> list[ev.Event]:
        events = self._close_open()
        call.index = self._new_index()
        call.id = call.id or self._made_id(wire)
        events.append(ev.ToolCallStart(index=call.index, tool_call_id=call.id, name=call.name))
        if call.fragments:
            events.append(ev.ToolCallDelta(index=call.index, partial_json="".join(call.fragments)))
        return events

    def _made_id(self, wire: int) -> str:
        """A stable id for a call the vendor sent without one (same reply, same id)."""
        return stable_call_id(wire, "", {}, salt=f"{self.position}/{self._response_id}")

    def _close_open(self) -> list[ev.Event]:
        if self._open is None:
            return []
        (kind, index), self._open = self._open, None
        return [ev.TextEnd(index=index) if kind == "text" else ev.ThinkingEnd(index=index, signature="")]

    def _close_all(self) -> list[ev.Event]:
        events = self._close_open()
        for wire in sorted(self._calls):
            call = self._calls[wire]
            if call.index is None:  # a call whose name never came
                events += self._start_call(wire, call)
            events.append(ev.ToolCallEnd(index=call.index, arguments=parse_arguments("".join(call.fragments))))
        return events

    def _new_index(self) -> int:
        self._blocks += 1
        return self._blocks - 1

    def _on_usage(self, raw: Any) -> list[ev.Event]:
        prompt = field_of(raw, "prompt_tokens_details")
        completion = field_of(raw, "completion_tokens_details")
        cached = (
            (field_of(prompt, "cached_tokens") if prompt is not None else None)
            or field_of(raw, "prompt_cache_hit_tokens")  # DeepSeek
            or field_of(raw, "cached_tokens")  # Moonshot
        )
        for ours, value in (
            ("input_tokens", field_of(raw, "prompt_tokens")),
            ("output_tokens", field_of(raw, "completion_tokens")),
            ("cache_read_tokens", cached),
            ("cache_write_tokens", field_of(prompt, "cache_write_tokens") if prompt is not None else None),
            ("reasoning_tokens", field_of(completion, "reasoning_tokens") if completion is not None else None),
        ):
            if (count := count_of(value)) is not None:
                setattr(self.usage, ours, count)
        return [ev.UsageUpdate(usage=self.usage.model_copy())]
