"""Which messages changed (their revision was bumped) or went away lately, in order: what the caches of data derived
from a conversation's messages check instead of reading every message's revision at every request. A message is
logged when it changes (`Message.touch`; a run of changes to one message is logged once) and when it is collected
(every message a cache has seen is watched), by object id, so an id taken over by a new object is never trusted."""

from __future__ import annotations

import threading
import weakref
from typing import Any

LOG_SIZE = 65_536
"""Changes kept; a cache that last looked further back than this starts again."""


class ChangeLog:
    """Object ids of changed or collected messages, numbered from 0 (`seq` is the number the next one gets)."""

    def __init__(self) -> None:
        self._ids: list[int] = []
        self._first = 0
        """The number of `_ids[0]`."""
        self._last = 0
        self._fresh = False
        """Whether the last id logged was logged after the last reading (then the same id again need not be)."""
        self._watched: dict[int, _Watch] = {}
        self._on_gone = self._gone  # (one bound method for every watch)
        self._lock = threading.RLock()  # (a collection inside a logging call logs too)

    @property
    def seq(self) -> int:
        return self._first + len(self._ids)

    def changed(self, ident: int) -> None:
        if ident != self._last or not self._fresh:
            with self._lock:
                self._ids.append(ident)
                self._last, self._fresh = ident, True
                if len(self._ids) > 2 * LOG_SIZE:
                    dropped = len(self._ids) - LOG_SIZE
                    del self._ids[:dropped]
                    self._first += dropped

    def since(self, seq: int) -> set[int] | None:
        """The ids logged from number `seq` on; None when some of them are no longer kept."""
        with self._lock:
            self._fresh = False
            if seq < self._first:
                return None
            return set(self._ids[seq - self._first:])

    def watch(self, objects: Any) -> None:
        """Log each of `objects` when it is collected (once watched, always: by one shared weak reference)."""
        watched, on_gone = self._watched, self._on_gone
        for item in objects:
            ident = id(item)
            if ident not in watched:
                watched[ident] = _Watch(item, on_gone, ident)

    def _gone(self, ref: _Watch) -> None:
        ident = ref.ident
        self._watched.pop(ident, None)
        self._fresh = False  # (a new object may take the id and change at once: logged again)
        self.changed(ident)


class _Watch(weakref.ref):
    """A weak reference that knows the id its object had (one object a watched message, where a reference and a
    partial holding the id were two)."""

    __slots__ = ("ident",)

    def __new__(cls, item: Any, callback: Any, ident: int) -> _Watch:
        ref = super().__new__(cls, item, callback)
        ref.ident = ident
        return ref

    def __init__(self, item: Any, callback: Any, ident: int) -> None:
        super().__init__(item, callback)


LOG = ChangeLog()
