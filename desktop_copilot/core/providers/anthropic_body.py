"""The Anthropic request as JSON bytes, made again only where the conversation changed: the turns a previous request of
the same conversation already sent are kept as JSON (with what the breakpoints and call ids need of them), so a tool
round at message 3,000 converts its last few messages, not the conversation. The body is the JSON of
`anthropic_wire.build_params` with `"stream": true` (the tests hold the two equal); it is sent as it is, without the
SDK's copy of a request dict and its encoding (25 ms a request at 3,000 messages)."""

from __future__ import annotations

import json
import operator
import threading
from dataclasses import dataclass, field
from typing import Any

from desktop_copilot.core.conversation.models import Message
from desktop_copilot.core.conversation.prefix import ByConversation, SeenMessages
from desktop_copilot.core.providers.anthropic_cache import PrefixSize, carries_breakpoint, place_breakpoints
from desktop_copilot.core.providers.anthropic_wire import CallIds, message_content, request_params
from desktop_copilot.core.providers.attachment_limits import AttachmentLimits, limits_for
from desktop_copilot.core.providers.base import ProviderRequest

CHECKPOINT_EVERY = 32
"""Messages between two kept states: a message changed or trimmed N messages back costs at most this many more."""
HELD_CONVERSATIONS = 4
"""Conversations whose turns are kept (by weak reference to their messages: none is kept alive)."""

_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode


@dataclass(frozen=True, slots=True)
class _State:
    """Where a walk over the messages stood before message `index`: how many turns were closed and call ids taken,
    and the turn still open (the next message may add to it)."""

    index: int
    closed: int
    taken: int
    open_role: str | None
    open_blocks: tuple[dict[str, Any], ...]


@dataclass(slots=True)
class _Kept:
    """One conversation's last request: the messages it sent (weakly, with their revisions); its closed turns
    as JSON with their roles, the prefix size after each (as anthropic_cache counts it, up to enough to be cached) and
    the breakpoints up to each; the call ids it took; and the states a walk can resume from."""

    model: str
    seen: SeenMessages = field(default_factory=SeenMessages)
    closed: list[str] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    breakpoints: list[int] = field(default_factory=list)
    taken: list[str] = field(default_factory=list)
    states: list[_State] = field(default_factory=list)

    def resume(self, state: _State) -> None:
        for kept in (self.closed, self.roles, self.sizes, self.breakpoints):
            del kept[state.closed:]
        del self.taken[state.taken:]
        self.states = [earlier for earlier in self.states if earlier.index < state.index and not earlier.index % CHECKPOINT_EVERY]
        self.states.append(state)  # (the end states of earlier requests go: one per request would pile up)


class _Walk:
    """Messages turned into turns from a state: each closed turn's JSON, role, size and breakpoints go to the `_Kept`;
    the last turn stays open."""

    def __init__(self, kept: _Kept, state: _State, limits: AttachmentLimits) -> None:
        kept.resume(state)
        self.kept, self.limits = kept, limits
        self.call_ids = CallIds(kept.taken)
        self.open_role = state.open_role
        self.open_blocks = list(state.open_blocks)

    def add(self, message: Message) -> None:
        for role, block in message_content(message, self.call_ids, self.limits):
            if role != self.open_role:
                self.close()
                self.open_role = role
            self.open_blocks.append(block)

    def close(self) -> None:
        if self.open_role is None:
            return
        kept = self.kept
        size = PrefixSize(kept.sizes[-1] if kept.sizes else 0)
        marks = kept.breakpoints[-1] if kept.breakpoints else 0
        for block in self.open_blocks:
            size.add_block(block)
            marks += carries_breakpoint(block)
        kept.closed.append(_encode({"role": self.open_role, "content": self.open_blocks}))
        kept.roles.append(self.open_role)
        kept.sizes.append(size.tokens)
        kept.breakpoints.append(marks)
        self.open_role, self.open_blocks = None, []

    def state(self, index: int) -> _State:
        return _State(index, len(self.kept.closed), len(self.call_ids.taken), self.open_role, tuple(self.open_blocks))


_START = _State(0, 0, 0, None, ())
_held: ByConversation[_Kept] = ByConversation(HELD_CONVERSATIONS)
_lock = threading.Lock()


def request_body(request: ProviderRequest) -> bytes:
    """The request as the JSON bytes `POST /v1/messages` takes: `build_params(request)` with `"stream": true`."""
    params = request_params(request)
    with _lock:
        kept = _held.get(request.messages, lambda: _Kept(request.model), lambda held: held.model == request.model)
        closed, tail, tokens, breakpoints = _turns(kept, request.messages, limits_for("anthropic", "anthropic", request.model))
        params["messages"] = tail
        place_breakpoints(params, earlier_tokens=tokens, earlier_breakpoints=breakpoints)
        turns = ",".join([*closed, *map(_encode, tail)])
    del params["messages"]  # the turns go in as JSON, the kept ones as they were
    head = _encode({**params, **params.pop("extra_body", {}), "stream": True})
    return f'{head[:-1]},"messages":[{turns}]}}'.encode()


def forget() -> None:
    """Drops every kept request (tests, a benchmark's cold start)."""
    with _lock:
        _held.clear()


def _turns(kept: _Kept, messages: list[Message], limits: AttachmentLimits) -> tuple[list[str], list[dict[str, Any]], int, int]:
    """(the JSON of the turns before the second latest user turn; the turns from there as dicts, to carry breakpoints;
    the prefix size and the breakpoints before them). Walks the messages from the latest state whose messages are the
    same objects at the same revisions as in the last request."""
    unchanged = kept.seen.update(messages)
    start = max((state for state in kept.states if state.index <= unchanged), key=operator.attrgetter("index"), default=_START)
    walk = _Walk(kept, start, limits)
    for index in range(start.index, len(messages)):
        if index > start.index and index % CHECKPOINT_EVERY == 0:
            kept.states.append(walk.state(index))
        walk.add(messages[index])
    kept.states.append(walk.state(len(messages)))
    kept.taken[:] = walk.call_ids.taken
    tail_from = _marked_from(kept.roles, open_user=walk.open_role == "user")
    tail = [json.loads(text) for text in kept.closed[tail_from:]]
    if walk.open_role is not None:
        tail.append({"role": walk.open_role, "content": [dict(block) for block in walk.open_blocks]})
    before = tail_from - 1
    return kept.closed[:tail_from], tail, kept.sizes[before] if before >= 0 else 0, kept.breakpoints[before] if before >= 0 else 0


def _marked_from(roles: list[str], *, open_user: bool) -> int:
    """Where the closed turns place_breakpoints may mark begin: the two latest user turns count the open turn's (the
    earlier of them among the closed turns; every closed turn from there goes in the tail)."""
    wanted = needed = 1 if open_user else 2
    index = len(roles)
    while wanted and index > 0:
        index -= 1
        wanted -= roles[index] == "user"
    return index if wanted < needed else len(roles)
