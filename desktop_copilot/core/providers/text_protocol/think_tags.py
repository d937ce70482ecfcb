"""Thinking a model writes as text, split from its answer while the reply streams: `<think>…</think>` (or
`<thinking>…</thinking>`) that opens the reply, or a lone `</think>` whose opening tag the chat template wrote.

The rules, for text that arrives in deltas cut at any character:
- A reply that begins (after whitespace) with an opening tag is thinking up to the matching closing tag (the first
  one, wherever it is: inside thinking, code is not told apart). A stream that ends inside stays thinking.
- A reply that begins with anything else may still be thinking: servers whose template opens the tag (DeepSeek-R1,
  QwQ, MiniMax-M2) send only the closing one. Its first `lone_close_window` characters (4,000 by default) are held
  back while they are watched for a closing tag outside Markdown code; one that ends inside the window makes the text
  before it thinking. The window held back without such a tag (or the stream ending first) makes it all answer text,
  shown at once, and so is an opening tag outside code (a pair later in the text is text). What comes later is never
  read as thinking: text already shown cannot be taken back. Content that starts while the wire's own thinking part
  is open is not watched (the server separates thinking already, so no lone closing tag will come).
- Whitespace right after an opening or a closing tag starts neither the thinking nor the answer."""

from __future__ import annotations

from typing import Literal

from desktop_copilot.core.providers.text_protocol.code_spans import FENCE_CLOSE, FENCE_OPEN, CodeSpans, next_mark, partial_tag_length

OPENING_TAGS = {"<think>": "</think>", "<thinking>": "</thinking>"}
CLOSING_TAGS = ("</think>", "</thinking>")
_WATCHED_TAGS = (*CLOSING_TAGS, *OPENING_TAGS)
LONE_CLOSE_WINDOW = 4000

PieceKind = Literal["thinking", "thinking_end", "text"]
Piece = tuple[PieceKind, str]
"""("thinking", text), ("thinking_end", "") when the thinking closed, or ("text", answer text)."""

_START, _THINKING, _AFTER_THINKING, _WATCHING, _ANSWER = range(5)


class ThinkSplitter:
    """Splits the content of one reply into thinking and answer text (see the module's rules)."""

    __slots__ = ("_closing", "_code", "_fresh", "_held", "_scanned", "_state", "_watch", "_window")

    def __init__(self, *, lone_close_window: int = LONE_CLOSE_WINDOW) -> None:
        self._state = _START
        self._held = ""
        """The leading text (start), a possible part of the closing tag (thinking), or the watched text."""
        self._closing = ""
        self._fresh = True
        """No thinking text has come yet (whitespace after the opening tag is dropped)."""
        self._window = lone_close_window
        self._watch = True
        self._code = CodeSpans()
        self._scanned = 0

    @property
    def answering(self) -> bool:
        """Everything from here on is answer text."""
        return self._state == _ANSWER

    @property
    def starting(self) -> bool:
        """No content has come yet."""
        return self._state == _START and not self._held

    def native_thinking_came(self) -> None:
        """The wire's own thinking came before the content: the server separates thinking, so the reply's start is
        not held back to watch for a lone closing tag."""
        self._watch = False

    def feed(self, text: str) -> list[Piece]:
        if self._state == _ANSWER:
            return [("text", text)] if text else []
        if self._state == _THINKING and not self._held and not self._fresh and "<" not in text:
            return [("thinking", text)] if text else []
        return self._step(text, final=False)

    def finish(self) -> list[Piece]:
        """The reply ended: what is held back is released (thinking stays thinking, watched text becomes text)."""
        return self._step("", final=True)

    def _step(self, text: str, *, final: bool) -> list[Piece]:
        pieces: list[Piece] = []
        while True:
            state = self._state
            if state == _ANSWER:
                if text:
                    pieces.append(("text", text))
                return pieces
            if state == _AFTER_THINKING:
                text = text.lstrip()
                if not text:
                    return pieces
                self._state = _ANSWER
            elif state == _START:
                text = self._start(text, final)
                if text is None:
                    return pieces
            elif state == _THINKING:
                text = self._thinking(text, final, pieces)
                if text is None:
                    return pieces
            else:
                text = self._watching(text, final, pieces)
                if text is None:
                    return pieces

    def _start(self, text: str, final: bool) -> str | None:
        held = self._held + text
        head = held.lstrip()
        for tag, closing in OPENING_TAGS.items():
            if head.startswith(tag):
                self._state, self._closing, self._held = _THINKING, closing, ""
                return head[len(tag):]
        if not final and (not head or any(tag.startswith(head) for tag in OPENING_TAGS)):
            self._held = held
            return None
        self._state, self._held = _WATCHING if self._watch else _ANSWER, ""
        return held

    def _thinking(self, text: str, final: bool, pieces: list[Piece]) -> str | None:
        work = self._held + text
        if self._fresh:
            work = work.lstrip()
            self._fresh = not work
        end = work.find(self._closing)
        if end >= 0:
            if end:
                pieces.append(("thinking", work[:end]))
            pieces.append(("thinking_end", ""))
            self._state, self._held = _AFTER_THINKING, ""
            return work[end + len(self._closing):]
        keep = 0 if final else partial_tag_length(work, (self._closing,))
        self._held = work[len(work) - keep:]
        if len(work) > keep:
            pieces.append(("thinking", work[:len(work) - keep]))
        if final:
            pieces.append(("thinking_end", ""))
        return None

    def _watching(self, text: str, final: bool, pieces: list[Piece]) -> str | None:
        self._held += text
        window = self._held[:self._window]
        complete = final or len(self._held) >= self._window
        mark = next_mark(window, self._scanned, self._code, _WATCHED_TAGS, final=complete)
        while mark.what in (FENCE_OPEN, FENCE_CLOSE):
            mark = next_mark(window, mark.end, self._code, _WATCHED_TAGS, final=complete)
        if mark.what in CLOSING_TAGS:
            thinking = self._held[:mark.start].lstrip()
            if thinking:
                pieces.append(("thinking", thinking))
            pieces.append(("thinking_end", ""))
            rest, self._held, self._state = self._held[mark.end:], "", _AFTER_THINKING
            return rest
        if complete or mark.what in OPENING_TAGS:
            released, self._held, self._state = self._held, "", _ANSWER
            return released
        self._scanned = mark.start
        return None
