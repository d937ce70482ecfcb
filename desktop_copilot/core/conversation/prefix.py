"""Which first messages of a list are the same objects, unchanged, as in a list seen before: what the caches of request
data derived from a conversation (trimmed copies, the Anthropic body, the context budget's weights) resume from. The ids
are compared in C and the change log (core/conversation/changes.py) says which messages changed or went away since, so
a request at message 3,000 reads no message's revision; no message is kept alive."""

from __future__ import annotations

import struct
import sys
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from desktop_copilot.core.conversation.changes import LOG
from desktop_copilot.core.conversation.models import Message

T = TypeVar("T")


class SeenMessages:
    """The ids of the messages of the last list seen, and where the change log stood then."""

    __slots__ = ("_ids", "_seq")

    def __init__(self) -> None:
        self._ids = b""
        """The ids packed 8 bytes each (a list would hold a 32-byte int object for each, in every cache): compared by
        memcmp, and searched by bytes.find (~3× faster than array.index, which makes an int of each id it passes)."""
        self._seq = 0

    def update(self, messages: Sequence[Message]) -> int:
        """How many first `messages` are the objects seen last time at the same positions, unchanged since (none of
        them touched or collected); `messages` are remembered for the next time."""
        ids = struct.pack(f"{len(messages)}Q", *map(id, messages))  # (faster than an array("Q") made from them)
        same = common_prefix(self._ids, ids) // ID_SIZE
        changed = LOG.since(self._seq)
        self._seq = LOG.seq
        if changed is None:
            same = 0
        else:
            for ident in changed:
                same = _first_position(ids, ident, same)
        LOG.watch(messages[same:])
        self._ids = ids
        return same


ID_SIZE = struct.calcsize("Q")


def _first_position(ids: bytes, ident: int, end: int) -> int:
    """Where `ident` first is among the first `end` packed ids; `end` when it is not among them."""
    needle = ident.to_bytes(ID_SIZE, sys.byteorder)
    found = ids.find(needle, 0, end * ID_SIZE)
    while found > 0 and found % ID_SIZE:  # straddling two ids
        found = ids.find(needle, found + 1, end * ID_SIZE)
    return end if found < 0 else found // ID_SIZE


class ByConversation(Generic[T]):
    """What a cache keeps for each of the last `held` conversations, by the first message of the list it is given (its
    id and object): dropped when that message is collected (the conversation closed) or others pushed it out."""

    def __init__(self, held: int = 4) -> None:
        self.held = held
        self._kept: OrderedDict[tuple[str, int], T] = OrderedDict()

    def get(self, messages: Sequence[Message], make: Callable[[], T], fits: Callable[[T], bool] = lambda _kept: True) -> T:
        """The conversation's kept value, or `make()`'s when none is kept or the kept one does not `fit`."""
        key = (messages[0].id, id(messages[0])) if messages else ("", 0)
        kept = self._kept.pop(key, None)
        if kept is None or not fits(kept):
            kept = make()
            if messages:
                weakref.finalize(messages[0], self._kept.pop, key, None)
        self._kept[key] = kept
        while len(self._kept) > self.held:
            self._kept.popitem(last=False)
        return kept

    def clear(self) -> None:
        self._kept.clear()


class PerMessage(Generic[T]):
    """A value `derive`d from each message of a conversation's list, kept for each of the last `held` conversations and
    derived again only for the messages after the unchanged prefix (SeenMessages): what lets a check that looks at every
    message of a request (a refusal, an attachment) look at the new ones only. Safe to call from any thread."""

    def __init__(self, derive: Callable[[Message], T], held: int = 4) -> None:
        self._derive = derive
        self._kept: ByConversation[tuple[SeenMessages, list[T]]] = ByConversation(held)
        self._lock = threading.Lock()

    def of(self, messages: Sequence[Message]) -> list[T]:
        """`derive(message)` for each of `messages`, in order (a new list)."""
        with self._lock:
            seen, values = self._kept.get(messages, lambda: (SeenMessages(), []))
            same = seen.update(messages)
            del values[same:]
            values += map(self._derive, messages[same:])
            return list(values)


def common_prefix(old: Sequence, new: Sequence) -> int:
    """How many first items of the two lists are equal (slices compared in C, halving the range)."""
    most = min(len(old), len(new))
    if old[:most] == new[:most]:
        return most
    low, high = 0, most  # old[:low] == new[:low], old[:high] != new[:high]
    while high - low > 1:
        middle = (low + high) // 2
        if old[:middle] == new[:middle]:
            low = middle
        else:
            high = middle
    return low
