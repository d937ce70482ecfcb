"""OpenAI Chat Completions wire format (OpenAI and the vendors and local servers that speak it: DeepSeek, Kimi, GLM,
OpenRouter, Groq, xAI, LM Studio, llama.cpp, vLLM, …): domain history to request JSON, and streamed chunks to unified
events. Thinking and tool calls a model writes as text are read by the text protocol (core/providers/text_protocol/);
a request in text-tools mode describes the tools in the system prompt and carries calls and results as text."""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.history import written_by
from desktop_copilot.core.conversation.models import ImageBlock, Message, Role, TextBlock, ThinkingBlock, Usage
from desktop_copilot.core.provider_table import spec_of
from desktop_copilot.core.providers.attachment_limits import AttachmentLimits, data_url, limits_for, user_parts
from desktop_copilot.core.providers.base import ProviderRequest
from desktop_copilot.core.providers.parts import Parts
from desktop_copilot.core.providers.text_protocol.reader import TextReader
from desktop_copilot.core.providers.text_protocol.think_tags import LONE_CLOSE_WINDOW
from desktop_copilot.core.providers.text_protocol.writing import reply_text, results_text, tools_system_prompt, written_as_text
from desktop_copilot.core.providers.wire_common import stable_call_id, tool_result_of
from desktop_copilot.core.providers.wire_values import count_of, dict_of, list_of, text_of
from desktop_copilot.core.words import N_, tr

CONTENT_FILTER_WORDS = N_("The provider's content filter stopped this reply.")
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
    "insufficient_system_resource": N_("The provider ran out of capacity and cut this reply short. Retry in a little while."),
    "network_error": N_("The provider's model failed while writing this reply. Retry in a little while."),
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


def echoes_reasoning(vendor: str) -> bool:
    """Whether the vendor's thinking models need `reasoning_content` on earlier tool-call turns (the provider table)."""
    spec = spec_of(vendor)
    return spec is not None and spec.echoes_reasoning


def as_text(message: Message, vendor: str, text_tools: bool) -> bool:
    """Whether the calls of `message` go back as text: every call in text-tools mode, else the calls this vendor's
    model wrote as text."""
    return bool(message.tool_calls) and (text_tools or (written_by(message, vendor) and written_as_text(message)))


def _assistant_turn(message: Message, vendor: str) -> dict[str, Any] | None:
    text, calls = message_text(message), message.tool_calls
    if not text and not calls:
        return None
    turn: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        if echoes_reasoning(vendor) and written_by(message, vendor):
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


def build_messages(history: list[Message], *, vendor: str, model: str = "", text_tools: bool = False) -> list[dict[str, Any]]:
    """The `messages` array for `history` (without the system prompt): each assistant turn with tool calls is
    followed by one `tool` message per call, in order (calls written as text, and every call in `text_tools` mode, go
    as text with a user message of results); empty turns and whitespace-only text are left out; thinking goes back
    only where the vendor requires it, and only its own. `model` decides which attachments go as they are."""
    turns: list[dict[str, Any]] = []
    limits = limits_for(vendor, "chat_completions", model)
    for message in history:
        if message.role is Role.USER:
            if content := user_content(message, limits):
                _add(turns, {"role": "user", "content": content})
            continue
        if as_text(message, vendor, text_tools):
            _add(turns, {"role": "assistant", "content": reply_text(message)})
            _add(turns, {"role": "user", "content": results_text(message.tool_calls)})
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


def build_params(request: ProviderRequest, *, vendor: str, text_tools: bool = False) -> dict[str, Any]:
    """Keyword arguments for `client.chat.completions.create` (without `stream`). `text_tools`: the model takes no
    native tools, so they are described in the system prompt and the history carries calls as text."""
    text_tools = text_tools and bool(request.tools)
    messages = build_messages(request.messages, vendor=vendor, model=request.model, text_tools=text_tools)
    system = request.system or ""
    if text_tools:
        system = (system.rstrip() + "\n\n" if system.strip() else "") + tools_system_prompt(request.tools)
    if system.strip():
        messages.insert(0, {"role": "system", "content": system})
    params: dict[str, Any] = {"model": request.model, "messages": messages, "stream_options": {"include_usage": True}}
    max_tokens = request.max_tokens
    if effort := reasoning_effort(request, vendor):
        params["reasoning_effort"] = effort
        if max_tokens <= (request.thinking_budget or 0):  # the limit counts the reasoning too
            max_tokens = (request.thinking_budget or 0) + 4096
    spec = spec_of(vendor)  # OpenAI's newer models refuse `max_tokens`; the other vendors know only `max_tokens`
    params[spec.max_tokens_field if spec is not None else "max_tokens"] = max_tokens
    if effort is None:  # reasoning models refuse sampling options
        params.update(request.sampling_options())
    if request.tools and not text_tools:
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
    started: bool = False


class ChatCompletionsEventMapper:
    """Maps `chat.completion.chunk`s (plain dicts) of choice 0 to unified events through the parts manager. Thinking
    (`reasoning_content` of DeepSeek/Kimi/GLM/vLLM, `reasoning` of OpenRouter/Groq) and text each form a part until
    another kind of output starts; the content goes through the text protocol (`<think>` at the start of a reply is
    thinking; with tools offered, calls written as text become calls); tool calls are keyed by their `index` and end
    when the reply finishes. `finish()` gives the closing `Done` once the stream has ended after a finish reason. A
    field of the wrong type is read as absent."""

    def __init__(self, *, position: int = 0, tool_names: Collection[str] | None = None, thinks_in_tags: bool = False,
                 text_tools: bool = False) -> None:
        self.position = position
        """Where the reply sits in the conversation: seeds the ids made for calls that come without one."""
        self.parts = Parts()
        self.usage = Usage()
        self.started = False
        self.finished = False
        self.drained = False
        """`[DONE]` arrived (set by the provider)."""
        self.finish_reason: str | None = None
        self._response_id = ""
        self._calls: dict[int, _Call] = {}
        self.reader = TextReader(self.parts, think_tags=True, tool_names=tool_names, lax_json=text_tools,
                                 lone_close_window=LONE_CLOSE_WINDOW if thinks_in_tags else 0)

    def feed(self, chunk: dict[str, Any]) -> list[ev.Event]:
        if not isinstance(chunk, dict):  # the provider hands over JSON objects only; anything else says nothing
            return []
        events: list[ev.Event] = []
        if not self.started:
            self.started = True
            self._response_id = text_of(chunk.get("id"))
            self.reader.id_salt = f"{self.position}/{self._response_id}"
            events.append(ev.Start(model=text_of(chunk.get("model")), provider_message_id=self._response_id))
        for choice in list_of(chunk.get("choices")):
            choice = dict_of(choice)
            if (choice.get("index") or 0) != 0:
                continue
            delta = choice.get("delta")
            if isinstance(delta, dict) and not self.finished:
                events += self._on_delta(delta)
            if usage := choice.get("usage"):  # Moonshot puts the usage on the final choice
                events += self._on_usage(usage)
            if (reason := text_of(choice.get("finish_reason"))) and not self.finished:
                self.finished, self.finish_reason = True, reason
                events += self.close()
        if usage := chunk.get("usage"):
            events += self._on_usage(usage)
        return events

    def close(self) -> list[ev.Event]:
        """Everything still open ends: held-back text is given out, then the parts and calls close."""
        events = self.reader.finish()
        for wire in sorted(self._calls):
            call = self._calls[wire]
            if not call.started:  # a call whose name never came
                events += self._start_call(wire, call)
        return events + self.parts.close_all()

    def finish(self) -> list[ev.Event]:
        """The closing `Done` (nothing when no finish reason came: the reply was interrupted)."""
        if not self.finished or self.finish_reason is None:
            return []
        reason = FINISH_REASONS.get(self.finish_reason, self.finish_reason)
        if reason == "end_turn" and self.parts.calls_made:  # servers that end a tool-call reply with "stop"
            reason = "tool_use"
        detail = " ".join([tr(FINISH_DETAILS.get(self.finish_reason, "")), *self.reader.problems]).strip()
        return [ev.Done(reason=reason, detail=detail)]

    def _on_delta(self, delta: dict[str, Any]) -> list[ev.Event]:
        events: list[ev.Event] = []
        if reasoning := text_of(delta.get("reasoning_content")) or text_of(delta.get("reasoning")):
            events += self.reader.flush() + self.parts.thinking(reasoning)  # held-back content first, in its place
        if text := text_of(delta.get("content")):
            events += self.reader.feed(text)
        if text := text_of(delta.get("refusal")):
            events += self.parts.text(text)
        for call in list_of(delta.get("tool_calls")):
            if isinstance(call, dict):
                events += self._on_tool_call(call)
        return events

    def _on_tool_call(self, raw: dict[str, Any]) -> list[ev.Event]:
        wire = raw.get("index")
        call_id = text_of(raw.get("id"))
        if not isinstance(wire, int):  # a vendor that leaves out the index: a new id means a new call
            known = {c.id for c in self._calls.values()}
            latest = max(self._calls, default=-1)
            wire = latest + 1 if latest < 0 or (call_id and call_id not in known) else latest
        function = dict_of(raw.get("function"))
        name = text_of(function.get("name"))
        arguments = function.get("arguments")
        if isinstance(arguments, dict):  # a vendor that sends the object instead of its JSON text
            arguments = json.dumps(arguments, ensure_ascii=False)
        arguments = text_of(arguments)
        call = self._calls.setdefault(wire, _Call())
        call.id = call.id or call_id
        call.name = call.name or name
        if arguments:
            call.fragments.append(arguments)
        if not call.started:
            return self._start_call(wire, call) if call.name else []
        return self.parts.call_delta(wire, arguments)

    def _start_call(self, wire: int, call: _Call) -> list[ev.Event]:
        call.started = True
        call.id = call.id or stable_call_id(wire, "", {}, salt=f"{self.position}/{self._response_id}")
        events = self.reader.flush() + self.parts.start_call(wire, call.id, call.name)
        return events + self.parts.call_delta(wire, "".join(call.fragments))

    def _on_usage(self, raw: Any) -> list[ev.Event]:
        raw = dict_of(raw)
        prompt, completion = dict_of(raw.get("prompt_tokens_details")), dict_of(raw.get("completion_tokens_details"))
        cached = (prompt.get("cached_tokens") or raw.get("prompt_cache_hit_tokens")  # DeepSeek
                  or raw.get("cached_tokens"))  # Moonshot
        for ours, value in (
            ("input_tokens", raw.get("prompt_tokens")),
            ("output_tokens", raw.get("completion_tokens")),
            ("cache_read_tokens", cached),
            ("cache_write_tokens", prompt.get("cache_write_tokens")),
            ("reasoning_tokens", completion.get("reasoning_tokens")),
        ):
            if (count := count_of(value)) is not None:
                setattr(self.usage, ours, count)
        return [ev.UsageUpdate(usage=self.usage.model_copy())]
