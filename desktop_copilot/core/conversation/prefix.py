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
    """The messages of the last list seen: their ids and revisions, and weak references that say when one of them is
    gone (its id may be another's then)."""

    __slots__ = ("_refs", "_ids", "_revisions", "_lost", "__weakref__")

    def __init__(self) -> None:
        self._refs: list[weakref.ref] = []
        self._ids: list[int] = []
        self._revisions: list[int] = []
        self._lost = False

    def update(self, messages: Sequence[Message]) -> int:
        """How many first `messages` are the objects seen last time at the same positions, at the revisions seen then;
        `messages` are remembered for the next time."""
        ids, revisions = list(map(id, messages)), list(map(_revision, messages))
        if self._lost:
            self._ids = [-1 if message is None else id(message) for message in (ref() for ref in self._refs)]
        same = min(common_prefix(self._ids, ids), common_prefix(self._revisions, revisions))
        del self._refs[same:]
        lose = _Loser(self)
        self._refs += [weakref.ref(message, lose) for message in messages[same:]]
        self._ids, self._revisions, self._lost = ids, revisions, False
        return same


class _Loser:
    """A weak reference's callback marking its SeenMessages (weakly held: the references do not keep it alive)."""

    __slots__ = ("seen",)

    def __init__(self, seen: SeenMessages) -> None:
        self.seen = weakref.ref(seen)

    def __call__(self, _ref: weakref.ref) -> None:
        if (seen := self.seen()) is not None:
            seen._lost = True


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
