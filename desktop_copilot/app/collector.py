"""When the garbage collector walks the whole process in the window: not while a reply streams, but once the window
has been idle a moment after it."""

from __future__ import annotations

import gc
import time

from PySide6.QtCore import QObject, QTimer

IDLE_COLLECT_MS = 3000
"""After a reply, the window waits this long without another before the one full collection."""
MOST_FROZEN_S = 30.0
"""Replies that follow each other closer than IDLE_COLLECT_MS (tool rounds, a run of quick questions) keep what they
made frozen; past this long, the next reply's start lets it go and collects it first (cycles that became garbage while
frozen would otherwise stay)."""


class StreamingCollector(QObject):
    """While a reply streams, what was alive when it started is frozen (the collector's permanent generation), so a
    full collection then walks only what the stream made: a full pass over the whole process (modules, the SDK, the
    conversation) took ~90 ms mid-stream at 500 deltas/s. Once no reply has streamed for IDLE_COLLECT_MS they are let
    go and collected in one pass (cycles among them included); `release` (the window closes) lets them go at once.
    Nothing stays frozen past that: a conversation closed meanwhile is freed at the idle pass."""

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self.frozen = False
        self._frozen_at = 0.0
        self._idle = QTimer(self, singleShot=True, interval=IDLE_COLLECT_MS)
        self._idle.timeout.connect(self.release)  # idle after a reply

    def busy_changed(self, busy: bool) -> None:
        if busy:
            self._idle.stop()
            if self.frozen and time.monotonic() - self._frozen_at > MOST_FROZEN_S:
                self.release()
            gc.collect(1)  # the young garbage goes before it could be frozen
            gc.freeze()  # again if frozen: what the last reply left alive joins
            if not self.frozen:
                self.frozen, self._frozen_at = True, time.monotonic()
        elif self.frozen:
            self._idle.start()

    def release(self) -> None:
        """Let the frozen objects go and collect them with the rest (idle after a reply, or the window closes): here, on
        the GUI thread, where Qt objects in cycles among them must die (not by a pass that happens to run on a worker
        thread later)."""
        self._idle.stop()
        if self.frozen:
            gc.unfreeze()
            self.frozen = False
            gc.collect()
