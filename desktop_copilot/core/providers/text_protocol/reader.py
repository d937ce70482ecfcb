"""`TextReader`: the content of one reply from a model that writes its thinking and tool calls as text, turned into
unified events through the wire's `Parts` (so the wire's own thinking and calls keep their places and indices)."""

from __future__ import annotations

from collections.abc import Collection

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.providers.parts import Parts
from desktop_copilot.core.providers.text_protocol.call_formats import TEXT_FORM_FIELD, TextCall
from desktop_copilot.core.providers.text_protocol.think_tags import LONE_CLOSE_WINDOW, ThinkSplitter
from desktop_copilot.core.providers.text_protocol.tool_calls import CallScanner
from desktop_copilot.core.providers.wire_common import stable_call_id

_CALL_KEY = "text_protocol"


class TextReader:
    """Reads the content deltas of one reply: `feed` each one, `finish` at the end of the stream. `think_tags`:
    thinking written in `<think>` tags is split off (think_tags.py); `tool_names` (None: no tools were offered, so no
    call is read): calls written as text become tool calls (tool_calls.py), each with a `stable_call_id` salted with
    `id_salt` and its form in `provider_fields["text_form"]`. `problems` holds a sentence per kind of call that was
    written but could not run; `calls` counts the calls read."""

    __slots__ = ("_blank", "_lax", "_names", "_parts", "_scanner", "_splitter", "calls", "id_salt", "problems")

    def __init__(self, parts: Parts, *, think_tags: bool, tool_names: Collection[str] | None, id_salt: str = "",
                 lone_close_window: int = LONE_CLOSE_WINDOW, lax_json: bool = True) -> None:
        self._parts = parts
        self._splitter = ThinkSplitter(lone_close_window=lone_close_window) if think_tags else None
        self._names = tool_names
        self._lax = lax_json
        self._scanner = CallScanner(tool_names, lax_json=lax_json) if tool_names is not None else None
        self.id_salt = id_salt
        self.problems: list[str] = self._scanner.problems if self._scanner is not None else []
        self.calls = 0
        self._blank = ""
        """Whitespace while no text part is open: it opens one only if visible text follows."""

    def feed(self, text: str) -> list[ev.Event]:
        if not text:
            return []
        if self._splitter is None:
            if self._scanner is None or self._scanner.takes_plain(text):  # most deltas: answer text, nothing else
                return self._parts.text(text) if self._parts.open_kind == "text" else self._show(text)
            return self._items(self._scanner.feed(text))
        if self._splitter.starting and self._parts.open_kind == "thinking":
            self._splitter.native_thinking_came()
        events: list[ev.Event] = []
        for kind, piece in self._splitter.feed(text):
            events += self._piece(kind, piece)
        if self._splitter.answering:  # all the rest is answer text: nothing more to split, hold or release
            self._splitter = None
        return events

    def flush(self) -> list[ev.Event]:
        """A part of the wire's own comes next (its thinking, a native call): what is held back goes out first, as at
        the end of the stream, so the parts keep their order; later content is read afresh, never again as the
        thinking that opens a reply."""
        events: list[ev.Event] = []
        if self._splitter is not None and not self._splitter.starting:
            for kind, piece in self._splitter.finish():
                events += self._piece(kind, piece)
            self._splitter = None
        if self._scanner is not None and not self._scanner.idle:
            events += self._items(self._scanner.finish())
            fresh = CallScanner(self._names or (), lax_json=self._lax)
            fresh.problems = self.problems  # one list of problems for the whole reply
            self._scanner = fresh
        return events

    def finish(self) -> list[ev.Event]:
        """The stream ended: what was held back is released, and the open text or thinking part ends."""
        events: list[ev.Event] = []
        if self._splitter is not None:
            for kind, piece in self._splitter.finish():
                events += self._piece(kind, piece)
        if self._scanner is not None:
            events += self._items(self._scanner.finish())
        self._blank = ""
        return events + self._parts.close_open()

    def _piece(self, kind: str, piece: str) -> list[ev.Event]:
        if kind == "text":
            return self._answer(piece)
        if kind == "thinking":
            return self._parts.thinking(piece)
        return self._parts.close_open("thinking")

    def _answer(self, text: str) -> list[ev.Event]:
        if self._scanner is None:
            return self._show(text)
        return self._items(self._scanner.feed(text))

    def _items(self, items: list[str | TextCall]) -> list[ev.Event]:
        if len(items) == 1 and type(items[0]) is str:  # most deltas: text and nothing else
            return self._show(items[0])
        events: list[ev.Event] = []
        text: list[str] = []  # adjacent pieces of text go out as one delta
        for item in items:
            if isinstance(item, str):
                text.append(item)
                continue
            if text:
                events += self._show("".join(text))
                text.clear()
            events += self._call(item)
        return events + self._show("".join(text)) if text else events

    def _show(self, text: str) -> list[ev.Event]:
        if self._parts.open_kind != "text":
            if not text or text.isspace():
                self._blank += text
                return []
            text, self._blank = self._blank + text, ""
        return self._parts.text(text)

    def _call(self, call: TextCall) -> list[ev.Event]:
        self._blank = ""
        call_id = stable_call_id(self.calls, call.name, call.arguments, self.id_salt)
        key = (_CALL_KEY, self.calls)
        self.calls += 1
        return self._parts.whole_call(key, call_id, call.name, call.arguments, provider_fields={TEXT_FORM_FIELD: call.form})
