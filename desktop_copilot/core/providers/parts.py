"""The parts manager: the blocks of one reply as a wire adapter builds them. It opens, extends and closes text,
thinking and tool-call parts, hands out block indices in order, and returns the unified events that say so; every
mapper and the text-protocol reader feed it instead of writing their own block state machine.

A text or thinking part stays open until another kind of output starts (or its key says it is another part); a
tool call is keyed by the wire's own id for it (an index, an id) and stays open until it is ended, so calls may
interleave with each other as some wires send them."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any, Literal

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.providers.wire_common import parse_arguments

Kind = Literal["text", "thinking"]


@dataclass(slots=True)
class _Open:
    kind: Kind
    index: int
    key: Hashable = None
    signature: str = ""


@dataclass(slots=True)
class _Call:
    index: int
    fragments: list[str] = field(default_factory=list)
    arguments: dict[str, Any] | None = None
    """Given whole (at the start or the end); None: parsed from the fragments at the end."""


class Parts:
    """Block indices and the open parts of one reply; each method returns the events for what it did."""

    __slots__ = ("_next", "_open", "_calls", "calls_made")

    def __init__(self) -> None:
        self._next = 0
        self._open: _Open | None = None
        self._calls: dict[Hashable, _Call] = {}
        self.calls_made = 0
        """Tool calls started in this reply (a finished reply with calls stopped for them)."""

    def new_index(self) -> int:
        self._next += 1
        return self._next - 1

    @property
    def open_kind(self) -> Kind | None:
        """The kind of the open text or thinking part (None when none is open)."""
        return self._open.kind if self._open is not None else None

    @property
    def open_index(self) -> int | None:
        return self._open.index if self._open is not None else None

    @property
    def open_key(self) -> Hashable:
        """The key of the open text or thinking part (None when none is open, or it has none)."""
        return self._open.key if self._open is not None else None

    # --- text and thinking ---

    def text(self, text: str, *, key: Hashable = None) -> list[ev.Event]:
        """More text: it extends the open text part (of the same `key`), else a new text part starts."""
        part = self._open
        if text and part is not None and part.kind == "text" and part.key == key:  # most deltas
            return [ev.TextDelta(index=part.index, text=text)]
        return self._extend("text", text, key)

    def thinking(self, text: str, *, key: Hashable = None) -> list[ev.Event]:
        """More thinking: it extends the open thinking part (of the same `key`), else a new one starts."""
        return self._extend("thinking", text, key)

    def open_part(self, kind: Kind, *, key: Hashable = None, signature: str = "", redacted_data: str | None = None) -> list[ev.Event]:
        """Start a part now, even an empty one (a wire that says when its blocks start); `redacted_data` makes it a
        redacted thinking part."""
        events = self.close_open()
        self._open = _Open(kind, self.new_index(), key, signature)
        index = self._open.index
        return [*events, ev.TextStart(index=index) if kind == "text" else ev.ThinkingStart(index=index, redacted_data=redacted_data)]

    def sign(self, signature: str) -> None:
        """The signature the open thinking part ends with (Anthropic's `signature_delta`, Gemini's thought)."""
        if self._open is not None:
            self._open.signature = signature

    def cite(self, citation: dict[str, Any]) -> list[ev.Event]:
        """A source cited by the open text part."""
        if self._open is None or self._open.kind != "text":
            return []
        return [ev.TextCitation(index=self._open.index, citation=citation)]

    def close_open(self, kind: Kind | None = None) -> list[ev.Event]:
        """End the open text or thinking part (only if it is of `kind`, when given)."""
        part = self._open
        if part is None or (kind is not None and part.kind != kind):
            return []
        self._open = None
        if part.kind == "text":
            return [ev.TextEnd(index=part.index)]
        return [ev.ThinkingEnd(index=part.index, signature=part.signature)]

    def _extend(self, kind: Kind, text: str, key: Hashable) -> list[ev.Event]:
        part = self._open
        if part is not None and part.kind == kind and part.key == key:
            return [ev.TextDelta(index=part.index, text=text) if kind == "text" else ev.ThinkingDelta(index=part.index, text=text)] if text else []
        if not text:
            return []
        events = self.open_part(kind, key=key)
        index = self._open.index  # type: ignore[union-attr]
        events.append(ev.TextDelta(index=index, text=text) if kind == "text" else ev.ThinkingDelta(index=index, text=text))
        return events

    # --- tool calls ---

    def start_call(self, key: Hashable, call_id: str, name: str, *, arguments: dict[str, Any] | None = None,
                   provider_fields: dict[str, Any] | None = None, restart: bool = False) -> list[ev.Event]:
        """A tool call begins (the open text or thinking part ends first). `arguments` given whole at the start are
        its arguments unless deltas follow. `restart`: start again a call already started (with fields that came
        late, such as a signature), keeping its index."""
        known = self._calls.get(key)
        if known is not None and restart:
            return [ev.ToolCallStart(index=known.index, tool_call_id=call_id, name=name, arguments=dict(known.arguments or {}),
                                     provider_fields=dict(provider_fields or {}))]
        events = self.close_open()
        call = self._calls[key] = _Call(self.new_index(), arguments=dict(arguments) if arguments is not None else None)
        self.calls_made += 1
        events.append(ev.ToolCallStart(index=call.index, tool_call_id=call_id, name=name, arguments=dict(arguments or {}),
                                       provider_fields=dict(provider_fields or {})))
        return events

    def call_delta(self, key: Hashable, partial_json: str) -> list[ev.Event]:
        """More of a call's arguments as JSON text (the call must have started)."""
        call = self._calls.get(key)
        if call is None or not partial_json:
            return []
        call.fragments.append(partial_json)
        return [ev.ToolCallDelta(index=call.index, partial_json=partial_json)]

    def end_call(self, key: Hashable, arguments: dict[str, Any] | None = None) -> list[ev.Event]:
        """The call is complete: its arguments are `arguments` when given, else those given at its start when no
        delta came, else its fragments parsed (`{}` when they are not a JSON object)."""
        call = self._calls.pop(key, None)
        if call is None:
            return []
        if arguments is None:
            arguments = call.arguments if call.arguments is not None and not call.fragments else parse_arguments("".join(call.fragments))
        return [ev.ToolCallEnd(index=call.index, arguments=arguments)]

    def whole_call(self, key: Hashable, call_id: str, name: str, arguments: dict[str, Any], *, raw: str = "",
                   provider_fields: dict[str, Any] | None = None) -> list[ev.Event]:
        """A call that arrives complete. `raw`: its arguments as written when they were not a JSON object (kept in the
        block's partial arguments, which the tool executor reports to the model)."""
        events = self.start_call(key, call_id, name, arguments=arguments, provider_fields=provider_fields)
        if raw:
            events += self.call_delta(key, raw)
        return events + self.end_call(key, arguments)

    def has_call(self, key: Hashable) -> bool:
        return key in self._calls

    @property
    def open_calls(self) -> list[Hashable]:
        return list(self._calls)

    # --- other blocks, and the end ---

    def raw(self, data: dict[str, Any]) -> list[ev.Event]:
        """A block this app does not model, kept verbatim (the open part ends first)."""
        events = self.close_open()
        return [*events, ev.RawBlockEvent(index=self.new_index(), data=data)]

    def close_all(self) -> list[ev.Event]:
        """End everything still open: the text or thinking part, then each call in the order it began."""
        events = self.close_open()
        for key in sorted(self._calls, key=lambda k: self._calls[k].index):
            events += self.end_call(key)
        return events
