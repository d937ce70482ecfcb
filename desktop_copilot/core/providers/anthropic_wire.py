"""Anthropic Messages wire format: domain history to request JSON, and SSE events to unified events."""

from __future__ import annotations

import hashlib
import re
from typing import Any

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.models import (
    DocumentBlock,
    ImageBlock,
    Message,
    RawBlock,
    RedactedThinkingBlock,
    Role,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    Usage,
)
from desktop_copilot.core.conversation.history import written_by
from desktop_copilot.core.providers.anthropic_cache import place_breakpoints
from desktop_copilot.core.providers.base import ProviderRequest
from desktop_copilot.core.providers.attachment_limits import AttachmentLimits, limits_for, user_parts
from desktop_copilot.core.providers.parts import Parts
from desktop_copilot.core.providers.wire_common import parse_arguments, result_images, tool_result_of
from desktop_copilot.core.providers.wire_values import count_of, dict_of, index_of, list_of, text_of
from desktop_copilot.core.words import tr



_TOOL_USE_ID = re.compile(r"[a-zA-Z0-9_-]+")
_NOT_IN_ID = re.compile(r"[^a-zA-Z0-9_-]")


class CallIds:
    """The `tool_use` ids of one request: the API refuses an id with other characters than `[a-zA-Z0-9_-]` and an
    id used twice in the conversation (400s that would stop every later turn). An id that is fine is sent as it is;
    another (Kimi's "functions.get_weather:0", "call_0" reused in each reply, an empty one) becomes a stable id made
    from it, the same for its `tool_use` and its `tool_result`."""

    def __init__(self, taken: list[str] | None = None) -> None:
        self.taken: list[str] = list(taken or [])
        """The ids sent so far, in order (a request built from a kept state starts from them)."""
        self._used: set[str] = set(self.taken)

    def of(self, message: Message) -> list[str]:
        """The ids to send for the calls of `message`, in order."""
        return [self._take(call.id) for call in message.tool_calls]

    def _take(self, call_id: str) -> str:
        if _TOOL_USE_ID.fullmatch(call_id) and call_id not in self._used:
            self._used.add(call_id)
            self.taken.append(call_id)
            return call_id
        digest = hashlib.sha256(call_id.encode("utf-8", "replace")).hexdigest()[:12]
        base = candidate = f"toolu_{_NOT_IN_ID.sub('_', call_id)[:40]}_{digest}"
        number = 1
        while candidate in self._used:
            candidate, number = f"{base}_{number}", number + 1
        self._used.add(candidate)
        self.taken.append(candidate)
        return candidate


def _assistant_content(message: Message, call_ids: list[str] | None = None) -> list[dict[str, Any]]:
    """A reply as Anthropic content. One Anthropic wrote is sent back exactly (thinking with its signature,
    redacted thinking, server-tool blocks, citations, a call's `caller`); another provider's reply is sent
    as its text and tool calls only (its thinking stays in the transcript). `call_ids`: the ids its calls are
    sent with (CallIds; default: their own)."""
    own = written_by(message, "anthropic")
    ids = iter(call_ids if call_ids is not None else [call.id for call in message.tool_calls])
    content: list[dict[str, Any]] = []
    for block in message.blocks:
        match block:
            case TextBlock(text=text, citations=citations) if text.strip():  # the API refuses whitespace-only text
                cited = {"citations": citations} if citations and own else {}
                content.append({"type": "text", "text": text, **cited})
            case ThinkingBlock(thinking=thinking, signature=signature) if signature and own:
                # An unsigned block (cut off mid-thought) would be rejected: it is dropped.
                content.append({"type": "thinking", "thinking": thinking, "signature": signature})
            case RedactedThinkingBlock(data=data) if own:
                content.append({"type": "redacted_thinking", "data": data})
            case ToolCallBlock():
                extra = block.provider_fields if own else {}
                content.append({"type": "tool_use", "id": next(ids), "name": block.name, "input": block.arguments, **extra})
            case RawBlock(data=data) if own:
                content.append(data)
    return content


def tool_results(message: Message, call_ids: list[str] | None = None) -> list[dict[str, Any]]:
    """One `tool_result` per call of `message`; a call that never finished gets an error result. `call_ids`: as
    for `_assistant_content`."""
    results = []
    ids = call_ids if call_ids is not None else [call.id for call in message.tool_calls]
    for call, call_id in zip(message.tool_calls, ids, strict=True):
        text, is_error = tool_result_of(call)
        images = result_images(call)
        content: str | list[dict[str, Any]] = text
        if images:  # a tool_result takes image blocks beside the text
            content = [{"type": "text", "text": text},
                       *({"type": "image", "source": {"type": "base64", **image}} for image in images)]
        results.append({"type": "tool_result", "tool_use_id": call_id, "content": content, "is_error": is_error})
    return results


def user_content(message: Message, limits: AttachmentLimits) -> list[dict[str, Any]]:
    """A user message as content blocks: images as `image`, PDFs as `document` (titled with the file's name),
    text files as text headed by their name (core.providers.attachment_limits.user_parts)."""
    content: list[dict[str, Any]] = []
    for part in user_parts(message, limits):
        if isinstance(part, str):
            content.append({"type": "text", "text": part})
        else:
            source = {"type": "base64", "media_type": part.media_type, "data": part.data}
            if isinstance(part, ImageBlock):
                content.append({"type": "image", "source": source})
            elif isinstance(part, DocumentBlock):
                content.append({"type": "document", "source": source, **({"title": part.name} if part.name else {})})
    return content


def build_messages(history: list[Message], limits: AttachmentLimits | None = None) -> list[dict[str, Any]]:
    """The `messages` array for `history`: tool results follow their `tool_use` in one user
    turn ahead of any text, adjacent turns of one role are merged, empty turns are dropped.
    `limits`: what the model takes as attachments (default: any Claude model's)."""
    limits = limits or limits_for("anthropic", "anthropic", "")
    turns: list[dict[str, Any]] = []
    call_ids = CallIds()
    for message in history:
        for role, block in message_content(message, call_ids, limits):
            if turns and turns[-1]["role"] == role:
                turns[-1]["content"].append(block)
            else:
                turns.append({"role": role, "content": [block]})
    return turns


def build_params(request: ProviderRequest) -> dict[str, Any]:
    """Keyword arguments for `client.messages.create` (without `stream`), with the prompt-caching breakpoints
    (core/providers/anthropic_cache.py). (Requests are sent as the JSON of core/providers/anthropic_body.py, the same
    request made again only where the conversation changed.)"""
    params = request_params(request)
    params["messages"] = build_messages(request.messages, limits_for("anthropic", "anthropic", request.model))
    place_breakpoints(params)
    return params


def request_params(request: ProviderRequest) -> dict[str, Any]:
    """Everything of a request but its `messages` (and the breakpoints, placed once they are in)."""
    params: dict[str, Any] = {"model": request.model, "max_tokens": request.max_tokens}
    if request.system:
        params["system"] = request.system
    if request.tools:
        params["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": t.input_schema}
            for t in request.tools
        ]
    if request.thinking_budget:
        params["thinking"] = {"type": "enabled", "budget_tokens": request.thinking_budget}
        if params["max_tokens"] <= request.thinking_budget:  # the API wants room for the answer after the thinking
            params["max_tokens"] = request.thinking_budget + 4096
    elif sampling := request.sampling_options():  # extended thinking refuses sampling options
        params["extra_body"] = sampling  # the SDK (1.0 on) no longer takes them as arguments; the API still reads them
    return params


def message_content(message: Message, call_ids: CallIds, limits: AttachmentLimits) -> list[tuple[str, dict[str, Any]]]:
    """`message` as (role, content block) pairs in request order: a user message's content; a reply's content, then its
    tool results (as the user). Consecutive blocks of one role make one turn (build_messages)."""
    if message.role is Role.USER:
        return [("user", block) for block in user_content(message, limits)]
    ids = call_ids.of(message)
    return [*(("assistant", block) for block in _assistant_content(message, ids)),
            *(("user", block) for block in tool_results(message, ids))]


TRACKS_INPUT = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})
"""Block types whose `input_json_delta`s build their `input` (as the SDK's accumulator has it)."""
_MODELLED_CALL_FIELDS = frozenset({"type", "id", "name", "input"})


def refusal_words(details: Any) -> str:
    """What to tell the user when Claude declined to answer (`stop_details` of a refusal)."""
    details = dict_of(details)
    category = text_of(details.get("category"))
    explanation = text_of(details.get("explanation"))
    words = [tr("Claude declined to answer this request (policy category: {category}).").format(category=category) if category
             else tr("Claude declined to answer this request.")]
    if explanation.strip():
        words.append(explanation.strip())
    return " ".join([*words, tr("The request is left out of later turns of this conversation; rephrase it or start anew.")])


class AnthropicEventMapper:
    """Maps the Messages stream's events (plain dicts) to unified events through the parts manager, reading each
    block as the SDK's accumulator does: content and stop reason may already come in `message_start`, a call's input
    may come whole in `content_block_start`, and block types this app does not model are kept verbatim with their
    deltas applied. Parts are keyed by the wire's block index. A field of the wrong type is read as absent, and an
    event without a valid block index is ignored."""

    def __init__(self) -> None:
        self.parts = Parts()
        self.usage = Usage()
        self.stop_reason: str | None = None
        self.stop_details: Any = None
        self.started = False
        self.finished = False
        self._kinds: dict[int, str] = {}
        self._json: dict[int, list[str]] = {}
        self._raw: dict[int, dict[str, Any]] = {}

    @property
    def drained(self) -> bool:
        return self.finished

    def feed(self, raw: dict[str, Any]) -> list[ev.Event]:
        if not isinstance(raw, dict):  # the provider hands over JSON objects only; anything else says nothing
            return []
        kind = raw.get("type")
        if kind == "content_block_delta":  # most events: text of a text block
            delta, index = raw.get("delta"), raw.get("index")
            if type(delta) is dict and delta.get("type") == "text_delta" and type(index) is int and index not in self._raw:
                return self.parts.text(text_of(delta.get("text")), key=index)
        handler = getattr(self, f"_on_{kind}", None) if isinstance(kind, str) else None
        return handler(raw) if handler else []

    def finish(self) -> list[ev.Event]:
        """Nothing more: `message_stop` gave the closing events."""
        return []

    def close(self) -> list[ev.Event]:
        return self.parts.close_all()

    def _on_message_start(self, raw: dict[str, Any]) -> list[ev.Event]:
        self.started = True
        message = dict_of(raw.get("message"))
        self._update_usage(message.get("usage"))
        self._update_stop(message)
        events: list[ev.Event] = [
            ev.Start(model=text_of(message.get("model")), provider_message_id=text_of(message.get("id"))),
            ev.UsageUpdate(usage=self.usage.model_copy()),
        ]
        for index, block in enumerate(list_of(message.get("content"))):  # a reply given whole at the start
            events += self._on_content_block_start({"index": index, "content_block": block})
            events += self._on_content_block_stop({"index": index})
        return events

    def _on_content_block_start(self, raw: dict[str, Any]) -> list[ev.Event]:
        index = index_of(raw.get("index"))
        block = dict(dict_of(raw.get("content_block")))
        kind = block.get("type")
        if index is None or not isinstance(kind, str):
            return []
        self._kinds[index] = kind
        self._raw.pop(index, None)  # an index started again starts afresh
        parts = self.parts
        if kind == "text":
            citations = [c for c in list_of(block.get("citations")) if isinstance(c, dict)]
            events = parts.open_part("text", key=index) + parts.text(text_of(block.get("text")), key=index)
            return events + [e for c in citations for e in parts.cite(c)]
        if kind == "thinking":
            return parts.open_part("thinking", key=index, signature=text_of(block.get("signature"))) + \
                parts.thinking(text_of(block.get("thinking")), key=index)
        if kind == "redacted_thinking":
            return parts.open_part("thinking", key=index, redacted_data=text_of(block.get("data")))
        self._json[index] = []
        if kind == "tool_use":
            extra = {k: v for k, v in block.items() if k not in _MODELLED_CALL_FIELDS}
            return parts.start_call(index, text_of(block.get("id")), text_of(block.get("name")),
                                    arguments=dict_of(block.get("input")), provider_fields=extra)
        self._raw[index] = block
        return []

    def _on_content_block_delta(self, raw: dict[str, Any]) -> list[ev.Event]:
        index = index_of(raw.get("index"))
        delta = dict_of(raw.get("delta"))
        kind = delta.get("type")
        if index is None:
            return []
        if index in self._raw:
            self._apply_to_raw(index, delta)
            return []
        if kind == "text_delta":
            return self.parts.text(text_of(delta.get("text")), key=index)
        if kind == "citations_delta":
            citation = dict_of(delta.get("citation"))
            return self.parts.cite(dict(citation)) if citation else []
        if kind == "thinking_delta":
            return self.parts.thinking(text_of(delta.get("thinking")), key=index)
        if kind == "signature_delta":
            self.parts.sign(text_of(delta.get("signature")))
            return []
        if kind == "input_json_delta":
            fragment = text_of(delta.get("partial_json"))
            self._json.setdefault(index, []).append(fragment)
            if self._kinds.get(index) == "tool_use":
                return self.parts.call_delta(index, fragment)
        return []

    def _apply_to_raw(self, index: int, delta: dict[str, Any]) -> None:
        """A delta for a block type this app does not model, applied as the SDK's accumulator does."""
        block, kind = self._raw[index], delta.get("type")
        if kind == "input_json_delta":
            self._json.setdefault(index, []).append(text_of(delta.get("partial_json")))
        elif kind == "text_delta":
            block["text"] = text_of(block.get("text")) + text_of(delta.get("text"))
        elif kind == "thinking_delta":
            block["thinking"] = text_of(block.get("thinking")) + text_of(delta.get("thinking"))
        elif kind == "citations_delta":
            block["citations"] = [*list_of(block.get("citations")), dict(dict_of(delta.get("citation")))]
        elif kind == "compaction_delta":  # both fields replaced, absent ones by null (as the SDK does)
            block.update(content=delta.get("content"), encrypted_content=delta.get("encrypted_content"))
        else:  # a delta type unknown to the SDK too: its fields replace the block's
            block.update({key: value for key, value in delta.items() if key != "type"})

    def _on_content_block_stop(self, raw: dict[str, Any]) -> list[ev.Event]:
        index = index_of(raw.get("index"))
        kind = self._kinds.pop(index, None) if index is not None else None
        if kind is None:
            return []
        if kind in ("text", "thinking", "redacted_thinking"):
            return self.parts.close_open() if self.parts.open_key == index else []
        text = "".join(self._json.pop(index, []))
        if kind == "tool_use":
            return self.parts.end_call(index)
        data = self._raw.pop(index, {})
        if text and (kind in TRACKS_INPUT or "input" in data):
            data["input"] = parse_arguments(text)
        return self.parts.raw(data)

    def _on_message_delta(self, raw: dict[str, Any]) -> list[ev.Event]:
        self._update_stop(raw.get("delta"))
        self._update_usage(raw.get("usage"))
        return [ev.UsageUpdate(usage=self.usage.model_copy())]

    def _on_message_stop(self, raw: dict[str, Any]) -> list[ev.Event]:
        self.finished = True
        # Blocks the stream never stopped are closed, so every *_start still gets its *_end.
        ends = [e for i in sorted(self._kinds) for e in self._on_content_block_stop({"index": i})]
        reason = self.stop_reason or "end_turn"
        detail = refusal_words(self.stop_details) if reason == "refusal" else ""
        return [*ends, *self.parts.close_all(), ev.Done(reason=reason, detail=detail)]

    def _update_stop(self, source: Any) -> None:
        source = dict_of(source)
        self.stop_reason = text_of(source.get("stop_reason")) or self.stop_reason
        self.stop_details = source.get("stop_details") or self.stop_details

    def _update_usage(self, usage: Any) -> None:
        usage = dict_of(usage)
        for ours, theirs in (
            ("input_tokens", "input_tokens"),
            ("output_tokens", "output_tokens"),
            ("cache_read_tokens", "cache_read_input_tokens"),
            ("cache_write_tokens", "cache_creation_input_tokens"),
        ):
            value = count_of(usage.get(theirs))
            if value is not None:
                setattr(self.usage, ours, value)
