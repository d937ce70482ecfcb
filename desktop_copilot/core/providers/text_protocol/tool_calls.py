"""Tool calls a model writes in its reply's text, read while the text streams: the visible text with the calls
taken out, and each call whole once its markup closes.

Read outside Markdown code: `<tool_call>…</tool_call>` (Hermes/Qwen JSON, or MiniMax `<invoke>` XML inside),
`<minimax:tool_call>…</minimax:tool_call>` and a bare `<invoke name=…>…</invoke>`. Markup that does not read as a
call, or that the stream leaves open, is shown as the text it is and a sentence in `problems` says it did not run.

The lax form, a fenced ```json block of `{"name", "arguments"}` objects: only a block that ends the reply, closed,
with nothing but whitespace after it, every name one of the offered tools and no other key. Such a block is held back
from its opening fence on: released as text as soon as it cannot be a call (its JSON is no call, or more text
follows its closing fence), read as calls when the stream ends right after it."""

from __future__ import annotations

from collections.abc import Callable, Collection

from desktop_copilot.core.providers.text_protocol.call_formats import (
    TextCall,
    UnreadableCall,
    invoke_calls,
    json_calls,
    unfinished_sentence,
    unreadable_sentence,
)
from desktop_copilot.core.providers.text_protocol.code_spans import END, FENCE_CLOSE, FENCE_OPEN, WAIT, CodeSpans, next_mark

CALL_TAGS = {"<tool_call>": "</tool_call>", "<minimax:tool_call>": "</minimax:tool_call>", "<invoke name=": "</invoke>"}
_OPENINGS = tuple(CALL_TAGS)

Item = str | TextCall
"""Visible text, or a call read from the text."""

_TEXT, _CALL, _FENCE_LINE, _JSON_BLOCK, _AFTER_JSON = range(5)


class CallScanner:
    """Reads the calls out of one reply's answer text; `feed` and `finish` return the visible text and the calls,
    in order. `tool_names`: the offered tools (only they make a lax json block a call). `lax_json`: a fenced json block
    that ends the reply is read as calls (for a model told to write its calls as text; a model given native tools that
    ends with a json block is far likelier to show an example)."""

    __slots__ = ("_code", "_deferred", "_held", "_held_calls", "_lax", "_names", "_opening", "_pending", "_state", "problems")

    def __init__(self, tool_names: Collection[str], *, lax_json: bool = True) -> None:
        self._names = frozenset(tool_names)
        self._lax = lax_json and bool(self._names)
        self._state = _TEXT
        self._pending = ""
        """Text not decided yet: a possible tag or backtick run (text), the closing tag's start (call), the fence's
        info so far (fence line)."""
        self._code = CodeSpans()
        self._opening = ""
        self._held: list[str] = []
        """The markup of the open call, or the held json block (and the whitespace after it)."""
        self._held_calls: list[TextCall] = []
        self.problems: list[str] = []
        self._deferred: list[str] = []
        """Text given out without a scan (no tag could start in it, no fence run): `_code` catches up on it only when
        a possible tag or fence comes, so a reply that holds none costs a membership test per delta."""

    @property
    def idle(self) -> bool:  # text given out unscanned is not held back
        """Nothing is held back (no possible tag, call or json block waits for more text)."""
        return self._state == _TEXT and not self._pending and not self._held

    def takes_plain(self, text: str) -> bool:
        """Whether `text` can be given out as it is, unscanned (no tag can start in it; most deltas): if so it is
        noted for the code state to catch up on later."""
        if (self._state == _TEXT and not self._pending and "<" not in text
                and ("`" not in text or (not self._splits_a_run(text) and not (self._lax and "``" in text)))):
            self._deferred.append(text)
            return True
        return False

    def feed(self, text: str) -> list[Item]:
        if self.takes_plain(text):
            return [text] if text else []
        self._catch_up()
        return self._run(text, final=False)

    def _splits_a_run(self, text: str) -> bool:
        """Whether a run of backticks may go on across the end of `text` or began before its start (the catch-up reads
        the deferred text as final, so a run cut in two would be read as two)."""
        return text.endswith("`") or (text.startswith("`") and bool(self._deferred) and self._deferred[-1].endswith("`"))

    def _catch_up(self) -> None:
        """Bring the code state up to the end of the text given out unscanned (inline spans and line starts)."""
        if self._deferred:
            deferred, self._deferred = "".join(self._deferred), []
            if self._lax:  # it held no fence run: a line break ends inline code and starts a line, whatever came before
                line_break = deferred.rfind("\n")
                if line_break >= 0:
                    self._code.plain(deferred[:line_break + 1])
                    deferred = deferred[line_break + 1:]
            position = 0
            while position < len(deferred):  # fences opened and closed in it are followed too
                position = next_mark(deferred, position, self._code, (), final=True).end

    def finish(self) -> list[Item]:
        """The reply ended: held text is released, an unfinished call shown as text, a final json block read."""
        if self.idle:  # nothing held back: the code state no longer matters
            self._deferred.clear()
            return []
        self._catch_up()
        return self._run("", final=True)

    def _run(self, text: str, *, final: bool) -> list[Item]:
        items: list[Item] = []
        rest: str | None = text
        while rest is not None:
            rest = _STEPS[self._state](self, rest, final, items)
        return [item for item in items if item]

    def _problem(self, sentence: str) -> None:
        if sentence not in self.problems:
            self.problems.append(sentence)

    # --- the states; each consumes text and returns what the next state must read (None: all consumed) ---

    def _text(self, text: str, final: bool, items: list[Item]) -> str | None:
        work, self._pending = self._pending + text, ""
        mark = next_mark(work, 0, self._code, _OPENINGS, final=final)
        while mark.what == FENCE_CLOSE or (mark.what == FENCE_OPEN and not self._lax):
            mark = next_mark(work, mark.end, self._code, _OPENINGS, final=final)
        items.append(work[:mark.start])
        if mark.what in (END, WAIT):
            self._pending = work[mark.start:]
            return None
        if mark.what == FENCE_OPEN:
            self._state, self._held = _FENCE_LINE, [work[mark.start:mark.end]]
        else:
            self._state, self._opening, self._held = _CALL, mark.what, []
        return work[mark.end:]

    def _call(self, text: str, final: bool, items: list[Item]) -> str | None:
        closing = CALL_TAGS[self._opening]
        work, self._pending = self._pending + text, ""
        end = work.find(closing)
        if end < 0 and not final:
            keep = min(len(work), len(closing) - 1)
            self._held.append(work[:len(work) - keep])
            self._pending = work[len(work) - keep:]
            return None
        self._state, self._code.line_start = _TEXT, False
        tag = self._opening if self._opening != "<invoke name=" else "<invoke>"
        if end < 0:
            items.append(self._opening + "".join(self._held) + work)
            self._problem(unfinished_sentence(tag))
            return None
        body = "".join(self._held) + work[:end]
        try:
            items.extend(self._read(body))
        except UnreadableCall as unreadable:
            items.append(self._opening + body + closing)
            self._problem(unreadable_sentence(tag, str(unreadable)))
        return work[end + len(closing):]

    def _read(self, body: str) -> list[TextCall]:
        if self._opening == "<invoke name=":
            return invoke_calls("<invoke name=" + body + "</invoke>", "invoke")
        if self._opening == "<tool_call>" and not body.lstrip().startswith("<invoke"):
            return json_calls(body, "hermes")
        return invoke_calls(body, "minimax")

    def _fence_line(self, text: str, final: bool, items: list[Item]) -> str | None:
        line_end = text.find("\n")
        info = self._pending + (text if line_end < 0 else text[:line_end])
        if line_end < 0 and not final and "json".startswith(info.strip().lower()):
            self._pending = info
            return None
        if line_end >= 0 and info.strip().lower() == "json":
            self._code.plain(info + "\n")
            self._held.append(info + "\n")
            self._state, self._pending = _JSON_BLOCK, ""
            return text[line_end + 1:]
        self._code.plain(self._pending)  # not a json block: its fence line is text, and the fence stays open
        items.append("".join(self._held) + self._pending)
        self._state, self._pending, self._held = _TEXT, "", []
        return text

    def _json_block(self, text: str, final: bool, items: list[Item]) -> str | None:
        work, self._pending = self._pending + text, ""
        mark = next_mark(work, 0, self._code, (), final=final)
        if mark.what == WAIT:
            self._held.append(work[:mark.start])
            self._pending = work[mark.start:]
            return None
        if mark.what == END:
            self._held.append(work)
            if final:  # the stream ended inside the block: it was text
                items.append("".join(self._held))
                self._state, self._held = _TEXT, []
            return None
        self._held.append(work[:mark.end])  # the block closed
        block = "".join(self._held)
        closing_fence = mark.end - mark.start
        self._held_calls = self._lax_calls(block[block.index("\n") + 1:len(block) - closing_fence])
        if not self._held_calls:
            items.append(block)
            self._state, self._held = _TEXT, []
        else:
            self._state = _AFTER_JSON
        return work[mark.end:]

    def _lax_calls(self, body: str) -> list[TextCall]:
        try:
            calls = json_calls(body, "json", only_call_keys=True)
        except UnreadableCall:
            return []
        return calls if all(call.name in self._names for call in calls) else []

    def _after_json(self, text: str, final: bool, items: list[Item]) -> str | None:
        if final:
            items.extend(self._held_calls)  # the whitespace after the block goes with it
        elif not text.strip():
            self._code.plain(text)
            self._held.append(text)
            return None
        else:  # more text follows the block: it was shown, not called
            items.append("".join(self._held))
        self._state, self._held, self._held_calls = _TEXT, [], []
        return None if final else text


_STEPS: tuple[Callable[[CallScanner, str, bool, list[Item]], str | None], ...] = (
    CallScanner._text, CallScanner._call, CallScanner._fence_line, CallScanner._json_block, CallScanner._after_json)
"""The step of each state, in the order of their numbers."""
