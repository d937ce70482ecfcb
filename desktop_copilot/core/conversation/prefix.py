"""Which first messages of a list are the same objects, at the same revisions, as in a list seen before: what the
caches of request data derived from a conversation (trimmed copies, the Anthropic body, the context budget's weights)
resume from. The messages seen are held by weak reference, so no cache keeps one alive; the lists are compared in C."""

from __future__ import annotations

import operator
import weakref
from collections.abc import Sequence

from desktop_copilot.core.conversation.models import Message

_revision = operator.attrgetter("revision")


class SeenMessages:
    """The messages of the last list seen: their ids (valid while none of them is gone, which their weak references
    tell) and revisions."""

    __slots__ = ("_refs", "_ids", "_revisions", "_lost")

    def __init__(self) -> None:
        self._refs: list[weakref.ref] = []
        self._ids: list[int] = []
        self._revisions: list[int] = []
        self._lost = False

    def update(self, messages: Sequence[Message]) -> int:
        """How many first `messages` are the objects seen last time at the same positions, at the revisions seen then;
        `messages` are remembered for the next time."""
        ids, revisions = list(map(id, messages)), list(map(_revision, messages))
        if self._lost:  # a message seen is gone: its id may be another's now
            self._ids = [-1 if message is None else id(message) for message in map(operator.call, self._refs)]
        same = min(common_prefix(self._ids, ids), common_prefix(self._revisions, revisions))
        del self._refs[same:]
        self._refs.extend(weakref.ref(message, self._lose) for message in messages[same:])
        self._ids, self._revisions, self._lost = ids, revisions, False
        return same

    def _lose(self, _ref: weakref.ref) -> None:
        self._lost = True


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
