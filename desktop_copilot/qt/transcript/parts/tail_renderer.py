"""The Markdown of streaming tails turned into HTML on a worker thread, so the GUI thread only swaps a finished render
in (QTextDocument.setHtml and its layout, which hold the GIL wherever they run, stay on the GUI thread)."""

from __future__ import annotations

import logging
import threading
import weakref
from dataclasses import dataclass, field
from typing import Protocol

from PySide6.QtGui import QImage

from desktop_copilot.qt.common.theme import Theme
from desktop_copilot.qt.transcript.parts.markdown import render_markdown

log = logging.getLogger(__name__)

IDLE_EXIT_S = 2.0
"""The worker's thread ends after this long without a request (no reply streaming): an idle window keeps no thread."""


@dataclass(slots=True)
class RenderedTail:
    """The HTML of `text`, the tail of a streaming piece from character `start` of the piece on."""

    start: int
    text: str
    html: str = ""
    code: list[tuple[str, str]] = field(default_factory=list)
    """(language, code) of each code block, as InertDocument.code keeps them."""
    formulas: dict[str, QImage] = field(default_factory=dict)
    """The formula images the HTML names (`math:N`), to add to the document before the HTML."""


def render_tail(start: int, text: str, theme: Theme) -> RenderedTail:
    """The HTML of the Markdown `text` (a streaming tail from character `start` of its piece, or a whole text)."""
    tail = RenderedTail(start, text)
    tail.html = render_markdown(text, theme, code=tail.code, math=tail.formulas).rstrip("\n")  # a last newline would end the text with a space
    return tail


class TailRendering(Protocol):
    """Where a live piece's tail is rendered: `submit` asks for a render (replacing one not started yet), `take` gives
    the newest finished one, once."""

    def submit(self, owner: object, start: int, text: str, theme: Theme) -> None: ...

    def take(self, owner: object) -> RenderedTail | None: ...

    def forget(self, owner: object) -> None: ...


class RenderNow:
    """Renders in `submit`, on the caller's thread (tests, and anything that must see the render at once)."""

    def __init__(self) -> None:
        self._done: weakref.WeakKeyDictionary[object, RenderedTail] = weakref.WeakKeyDictionary()

    def submit(self, owner: object, start: int, text: str, theme: Theme) -> None:
        self._done[owner] = render_tail(start, text, theme)

    def take(self, owner: object) -> RenderedTail | None:
        return self._done.pop(owner, None)

    def forget(self, owner: object) -> None:
        self._done.pop(owner, None)


class TailWorker:
    """One daemon thread (while pieces stream in) rendering what is asked for, oldest request first, the newest request
    per owner only: a piece that asks again before its render started replaces the request, so the worker never
    renders a tail already outgrown. An owner is a live piece (its tail) or one of its finished chunks (`LiveChunk`).
    Results (the newest per owner) wait for the owner's next update on the GUI thread; an owner that is dropped (a
    piece scrolled away) takes its request and result with it (weak keys)."""

    def __init__(self) -> None:
        self._wanted: weakref.WeakKeyDictionary[object, tuple[int, str, Theme]] = weakref.WeakKeyDictionary()
        self._done: weakref.WeakKeyDictionary[object, RenderedTail] = weakref.WeakKeyDictionary()
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stopping = False
        self.rendered = 0
        """Tails rendered so far (for tests and benchmarks)."""

    def submit(self, owner: object, start: int, text: str, theme: Theme) -> None:
        with self._wake:
            self._wanted[owner] = (start, text, theme)
            self._stopping = False
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="markdown-tails", daemon=True)
                self._thread.start()
            self._wake.notify()

    def take(self, owner: object) -> RenderedTail | None:
        with self._wake:
            return self._done.pop(owner, None)

    def forget(self, owner: object) -> None:
        with self._wake:
            self._wanted.pop(owner, None)
            self._done.pop(owner, None)

    def stop(self, timeout: float = 2.0) -> None:
        """Drop what waits and let the thread end (the window closes); a later request starts it again."""
        with self._wake:
            self._wanted.clear()
            self._done.clear()
            self._stopping = True
            thread = self._thread
            self._wake.notify_all()
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def _next(self) -> tuple[weakref.ref, tuple[int, str, Theme]] | None:
        """The next request; None (and the thread is let go) when none came for IDLE_EXIT_S, or on `stop`."""
        with self._wake:
            while True:
                if not self._wake.wait_for(lambda: bool(self._wanted) or self._stopping, IDLE_EXIT_S) or self._stopping:
                    self._thread = None  # the next request starts another
                    return None
                owner = next(iter(self._wanted), None)  # the oldest request first: a chunk asked before a tail shows first
                if owner is not None:  # (None: its owner was dropped meanwhile)
                    return weakref.ref(owner), self._wanted.pop(owner)

    def _run(self) -> None:
        while (request := self._next()) is not None:
            owner_ref, (start, text, theme) = request
            try:
                rendered = render_tail(start, text, theme)
            except Exception:  # noqa: BLE001 - the piece keeps its plain text; its final render shows the problem
                log.exception("rendering a streaming tail failed")
                continue
            with self._wake:
                owner = owner_ref()
                if owner is not None:  # kept even when a newer request waits: the piece may still show it
                    self._done[owner] = rendered
                self.rendered += 1
            del owner


_shared: TailWorker | None = None


def shared_tail_worker() -> TailWorker:
    """The app's one tail worker (its thread starts with the first streaming tail)."""
    global _shared
    if _shared is None:
        _shared = TailWorker()
    return _shared


def stop_shared_tail_worker() -> None:
    """The window closes: the tail worker's thread ends (if it was ever started)."""
    if _shared is not None:
        _shared.stop()
