"""Tools for models without native tool calling (seed 003): a system prompt that teaches the
`<tool_call>{"name": …, "arguments": {…}}</tool_call>` protocol, a streaming parser that turns such calls
in the reply's text into unified tool-call events, and the text that sends calls and results back.
Provider-agnostic: the caller hands in text deltas and block indices."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Iterable
from typing import Any

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.models import ToolCallBlock
from desktop_copilot.core.providers.base import ToolSpec
from desktop_copilot.core.providers.wire_common import stable_call_id, tool_result_of
from desktop_copilot.core.conversation.clean_values import clean_json, clean_text

OPEN, CLOSE = "<tool_call>", "</tool_call>"

PROTOCOL = f"""You can use tools. To call a tool, write exactly:
{OPEN}{{"name": "TOOL_NAME", "arguments": {{...}}}}{CLOSE}
The text between the tags is one JSON object: "name" is the tool's name and "arguments" is an object that \
matches the tool's parameters (a JSON Schema, listed below). Write one {OPEN} block per call; you may write \
several. After your calls, stop writing and wait: the results come back in the next user message, one per \
call in the same order, as
<tool_result name="TOOL_NAME">…</tool_result>
Never write a <tool_result> yourself and never guess what a tool would return. When no tool is needed, \
answer normally, without these tags.

Available tools:"""


def tools_system_prompt(tools: Iterable[ToolSpec]) -> str:
    """The protocol and every tool's name, description and parameters, for the system prompt."""
    lines = [PROTOCOL]
    for tool in tools:
        schema = json.dumps(tool.input_schema, ensure_ascii=False, sort_keys=True)
        lines.append(f"- {tool.name}: {tool.description.strip()}\n  parameters: {schema}")
    return "\n".join(lines)


def format_tool_call(name: str, arguments: dict[str, Any]) -> str:
    """A call as the model writes it in this protocol (for sending history back)."""
    return OPEN + json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False) + CLOSE


def format_tool_results(calls: Iterable[ToolCallBlock]) -> str:
    """One `<tool_result>` per call, in order: the user message that answers the calls."""
    parts = []
    for call in calls:
        text, is_error = tool_result_of(call)
        error = ' error="true"' if is_error else ""
        parts.append(f'<tool_result name="{html.escape(call.name, quote=True)}"{error}>\n{text}\n</tool_result>')
    return "\n".join(parts)


_NAME = re.compile(r'"name"\s*:\s*"([^"\\]{1,200})"')


def _parse_call(body: str) -> tuple[str, dict[str, Any], bool]:
    """(name, arguments, valid) for the JSON between the tags. `valid` is False when the body is not a
    JSON object with a string "name" (the name is then guessed, so the error names the tool)."""
    try:
        value = json.loads(body)
    except (json.JSONDecodeError, RecursionError):  # not JSON, or nested deeper than Python reads
        value = None
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        found = _NAME.search(body)
        return (found.group(1) if found else ""), {}, False
    # JSON can decode to what no reply can keep (a lone surrogate from a "\ud800" escape, NaN): made storable.
    name = clean_text(value["name"])
    arguments = value.get("arguments", value.get("parameters"))
    if isinstance(arguments, str):  # some models write the arguments as a JSON string
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except (json.JSONDecodeError, RecursionError):
            return name, {}, False
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return name, {}, False
    return name, clean_json(arguments), True


def _partial_tag_length(text: str, tag: str) -> int:
    """How many characters at the end of `text` could be the start of `tag` (held back until the next delta)."""
    for size in range(min(len(tag) - 1, len(text)), 0, -1):
        if tag.startswith(text[-size:]):
            return size
    return 0


class PromptToolParser:
    """Consumes the text deltas of one reply and yields unified events: the visible text (TextStart /
    TextDelta / TextEnd) without the `<tool_call>…</tool_call>` spans, and a ToolCallStart + ToolCallEnd per
    complete call. A possible partial tag at the end of a delta is held back until the next one decides.

    `next_index` hands out block indices (so a provider can interleave its own blocks, e.g. thinking);
    by default the parser counts from 0. `id_salt` goes into the generated call ids."""

    def __init__(self, next_index: Callable[[], int] | None = None, *, id_salt: str = "") -> None:
        self._counter = 0
        self._next_index = next_index or self._own_index
        self.id_salt = id_salt
        self.calls = 0
        self._pending = ""
        self._in_call = False
        self._text_index: int | None = None
        self._blank = ""
        """Whitespace seen while no text block is open: it opens one only if visible text follows."""

    def _own_index(self) -> int:
        self._counter += 1
        return self._counter - 1

    def feed(self, text: str) -> list[ev.Event]:
        self._pending += text
        events: list[ev.Event] = []
        while True:
            if self._in_call:
                end = self._pending.find(CLOSE)
                if end < 0:
                    return events
                body, self._pending = self._pending[:end], self._pending[end + len(CLOSE):]
                self._in_call = False
                events += self._call(body)
                continue
            start = self._pending.find(OPEN)
            if start < 0:
                keep = _partial_tag_length(self._pending, OPEN)
                visible, self._pending = self._pending[: len(self._pending) - keep], self._pending[len(self._pending) - keep:]
                return events + self._text(visible)
            events += self._text(self._pending[:start])
            self._pending = self._pending[start + len(OPEN):]
            self._in_call = True

    def end_text(self) -> list[ev.Event]:
        """Close the open text block (the provider is about to start another kind of block)."""
        if self._text_index is None:
            return []
        index, self._text_index = self._text_index, None
        return [ev.TextEnd(index=index)]

    def finish(self) -> list[ev.Event]:
        """The reply ended: a call whose closing tag never came counts if its JSON is complete, else it is
        shown as text; held-back text is released and the text block closed."""
        events: list[ev.Event] = []
        if self._in_call:
            body, self._pending, self._in_call = self._pending, "", False
            name, _, valid = _parse_call(body)
            events += self._call(body) if valid and name else self._text(OPEN + body)
        elif self._pending:
            events += self._text(self._pending)
            self._pending = ""
        self._blank = ""
        return events + self.end_text()

    def _text(self, text: str) -> list[ev.Event]:
        if not text:
            return []
        if self._text_index is None:
            if not text.strip():
                self._blank += text
                return []
            text, self._blank = self._blank + text, ""
            self._text_index = self._next_index()
            return [ev.TextStart(index=self._text_index), ev.TextDelta(index=self._text_index, text=text)]
        return [ev.TextDelta(index=self._text_index, text=text)]

    def _call(self, body: str) -> list[ev.Event]:
        events = self.end_text()
        self._blank = ""
        name, arguments, valid = _parse_call(body.strip())
        index = self._next_index()
        call_id = stable_call_id(self.calls, name, arguments if valid else {"raw": body}, self.id_salt)
        self.calls += 1
        events.append(ev.ToolCallStart(index=index, tool_call_id=call_id, name=name, arguments=dict(arguments)))
        if not valid:  # the raw text goes to the block's partial_arguments: the executor reports it to the model
            events.append(ev.ToolCallDelta(index=index, partial_json=body.strip() or "(empty)"))
        events.append(ev.ToolCallEnd(index=index, arguments=arguments))
        return events
