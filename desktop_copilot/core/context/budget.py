"""The size of the next request against the model's context window (`measure` gives a `ContextBreakdown`): the history
exact up to the last reply whose usage its provider reported, estimated after it; the system prompt and tools, the
draft and its attachments estimated; the output reserve. Each message is weighed once per revision and the history's
total is kept until the conversation changes, so measuring again as the user types costs only the draft."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from desktop_copilot.core.context.tokens import (
    COMPARABLE,
    MESSAGE_OVERHEAD,
    Weight,
    calibrate,
    estimate_tokens,
    factor,
    image_tokens,
    message_weight,
    text_weight,
    tool_result_weight,
    tool_spec_weight,
)
from desktop_copilot.core.context.trimming import sent_messages
from desktop_copilot.core.conversation.history import written_by
from desktop_copilot.core.conversation.models import Compaction, Conversation, Message, Role, TextBlock
from desktop_copilot.core.conversation.prefix import SeenMessages
from desktop_copilot.core.provider_table import spec_of

LEAST_PLAUSIBLE = 0.25
"""A reported input under this share of the estimate of its request, however small, cannot be the same request's count
(a server or an emulator that reports a fixed figure): the history is estimated instead. (A report far above the
estimate is plausible: Anthropic adds a few hundred tokens of its own when tools are offered.)"""
SLACK = 2_000
"""A reported input farther from the estimate of the same request than tokens.COMPARABLE allows, by more than SLACK
tokens, is not trusted as the history's size (a local server that did not count its cached prompt): the history is estimated instead."""
CALIBRATE_FROM = 1_000
"""Smaller requests teach the calibration nothing: the provider's own hidden prompt (tool use) outweighs the text."""
CANDIDATES = 4
"""Replies with a reported usage tried as the anchor, latest first, before estimating everything instead."""
STAND_IN_OVERHEAD = 24
"""The words around a compaction's summary in requests."""
HELD_CONVERSATIONS = 4
"""Conversations whose weights are kept (no message is kept alive by them)."""
RUNNING_TOTALS_FROM = 64
"""Messages to estimate after the anchor beyond which the running totals are used rather than a sum."""


class ToolLike(Protocol):
    """A tool as offered to the model: a ToolSpec or a Tool."""

    name: str
    description: str

    @property
    def input_schema(self) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class ContextBreakdown:
    """The next request in tokens, by part. `total` is what the window must hold (the output reserve included);
    `exact_tokens` of it come from what the provider reported, the rest is estimated. `window` 0: not known."""

    window: int
    system_and_tools: int
    history: int
    draft: int
    attachments: int
    output_reserve: int
    total: int
    exact_tokens: int = 0

    @property
    def fraction(self) -> float:
        """`total` as a share of the window (0.0 when the window is not known; may pass 1.0)."""
        return self.total / self.window if self.window > 0 else 0.0

    @property
    def estimated_tokens(self) -> int:
        """The input the request would send that is estimated (neither reported nor the output reserve)."""
        return max(0, self.total - self.exact_tokens - self.output_reserve)


def measure(conversation: Conversation, *, window: int, output_reserve: int = 0, system: str | None = None,
            tools: Sequence[ToolLike] = (), draft: str = "", attachments: Sequence[Any] = (),
            provider: str | None = None, next_message: bool = True) -> ContextBreakdown:
    """The next request of `conversation` to `provider` (None: Anthropic) with the user's `draft` and its
    `attachments` (image, PDF and text-file blocks), the `system` prompt and `tools` offered, against `window` with
    `output_reserve` kept for the reply. `next_message` False: the request the history makes as it stands (the agent
    loop's next one, a tool round's too), with no message of the user's to come. Learns the provider's calibration
    from the last reported usage on the way."""
    provider = provider or "anthropic"
    with _lock:
        prompt_weight = text_weight(system or "") + _tools_weight(tools)
        history, exact = _counter(conversation.id).history(conversation, provider, prompt_weight, next_message)
        system_and_tools = round(prompt_weight * factor(provider))
        attached = _attachments_tokens(attachments, provider)
    typed = estimate_tokens(draft, provider)
    draft_tokens = typed + MESSAGE_OVERHEAD if typed or attached else 0
    reserve = max(0, output_reserve)
    total = system_and_tools + history + draft_tokens + attached + reserve
    return ContextBreakdown(window=max(0, window), system_and_tools=system_and_tools, history=history, draft=draft_tokens,
                            attachments=attached, output_reserve=reserve, total=total, exact_tokens=min(exact, total))


# --- the history -----------------------------------------------------------------------

_NEXT = Message(id="msg_next_request", role=Role.USER, blocks=[TextBlock(text="")])
"""Stands for the message about to be written: the history is sent as it will be with it (no Continue request, old
tool results trimmed as they will be)."""


@dataclass(frozen=True, slots=True)
class _Anchor:
    index: int
    """In the messages sent."""
    input: int
    """What the provider reported its request held (cache reads and writes included)."""


@dataclass(slots=True)
class _Requested:
    """The messages a reply's request sent (weakly), their weights and running sums of their text weight and fixed
    tokens (text[i], fixed[i]: the first i)."""

    seen: SeenMessages = field(default_factory=SeenMessages)
    weights: list[Weight] = field(default_factory=list)
    text: list[float] = field(default_factory=lambda: [0])
    fixed: list[int] = field(default_factory=lambda: [0])


class _HistoryCounter:
    """One conversation's message weights (by id, revision and object identity), the estimates of the requests its
    replies reported on, and its last history total (by what it depends on)."""

    def __init__(self) -> None:
        self.weights: dict[str, tuple[int, int, Weight]] = {}
        """Message id -> (its revision, the identity of the object weighed, its weight)."""
        self.derived: dict[tuple[str, int], Weight] = {}
        """Messages a request sends in place of the conversation's own (trimmed copies, compactions' stand-ins), by id
        and revision: each is made the same way from the same message."""
        self.requests: dict[str, tuple[float, int]] = {}
        """Reply id -> the text weight and fixed tokens of the messages its request sent (they stay as they were while
        the reply streams)."""
        self.seen = SeenMessages()
        self.sent_weights: list[Weight] = []
        """The weights of the messages the last count sent, in order (the objects in `seen`)."""
        self.reporting: list[int] = []
        """Where the replies that reported an input are among them."""
        self.totals_key: tuple[str, float] | None = None
        self.totals: list[int] = [0]
        """Running estimated tokens of them (totals[i]: the first i), for the provider and calibration of `totals_key`."""
        self.requested = _Requested()
        """The messages of the last reply's request weighed (`_request_of`)."""
        self.key: tuple | None = None
        self.result: tuple[int, int] = (0, 0)
        """(What the anchor reported, the estimate of what came after it)."""

    def weight(self, message: Message, originals: set[int]) -> Weight:
        """`message`'s weight, once per revision (`originals`: the ids of the conversation's own message objects)."""
        if id(message) not in originals:
            key = (message.id, message.revision)
            if (derived := self.derived.get(key)) is None:
                derived = self.derived[key] = message_weight(message)
            return derived
        held = self.weights.get(message.id)
        if held is not None and held[0] == message.revision and held[1] == id(message):
            return held[2]
        weight = message_weight(message)
        self.weights[message.id] = (message.revision, id(message), weight)
        return weight

    def history(self, conversation: Conversation, provider: str, prompt_weight: float, next_message: bool = True) -> tuple[int, int]:
        """(the history's tokens in the next request, how many of them the provider reported). Weighed again only when
        the conversation, the provider or its calibration changed; the system prompt and tools only move the split."""
        messages = conversation.messages
        last = messages[-1] if messages else None
        key = (len(messages), id(last), last.id if last else "", last.revision if last else -1, provider, factor(provider),
               tuple((c.id, c.undone, c.kind, len(c.summary)) for c in conversation.compactions), next_message)
        if key != self.key:
            sent = sent_messages([*messages, _NEXT] if next_message else messages, conversation.compactions)
            if sent and sent[-1] is _NEXT:
                sent.pop()
            originals = set(map(id, messages))
            weights = self._weights_of(sent, originals)
            self.result = self._count(sent, weights, conversation, provider, prompt_weight, originals)
            if len(self.weights) > len(messages) or len(self.requests) > len(messages) or len(self.derived) > len(sent):
                kept = {message.id for message in messages} | {message.id for message in sent}  # (only when something
                self.weights = {k: v for k, v in self.weights.items() if k in kept}  # left: not a walk per new message)
                self.derived = {k: v for k, v in self.derived.items() if k[0] in kept}
                self.requests = {k: v for k, v in self.requests.items() if k in kept}
            self.key = (*key[:5], factor(provider), *key[6:])  # the calibration may have learned from it
        exact, after = self.result
        return max(0, exact - round(prompt_weight * factor(provider))) + after if exact else after, exact

    def _weights_of(self, sent: list[Message], originals: set[int]) -> list[Weight]:
        """The weights of the messages sent, and the replies among them that reported usage: kept for the messages
        that are the same objects at the same revisions as at the last count, weighed for the rest."""
        same = self.seen.update(sent)
        del self.sent_weights[same:]
        self.sent_weights.extend(self.weight(message, originals) for message in sent[same:])
        while self.reporting and self.reporting[-1] >= same:
            self.reporting.pop()
        self.reporting += [index for index in range(same, len(sent)) if _reported(sent[index]) > 0]
        if self.totals_key is not None and len(self.totals) > same + 1:
            del self.totals[same + 1:]
        return self.sent_weights

    def _estimate(self, sent: list[Message], weights: list[Weight], start: int, provider: str) -> int:
        """The estimated tokens of the messages sent from `start` on. From far back (no reply's usage to start from),
        the running totals of the last count are extended rather than everything summed again."""
        def tokens(index: int) -> int:
            return weights[index].tokens(provider, with_thinking=written_by(sent[index], provider))

        if len(sent) - start <= RUNNING_TOTALS_FROM:
            return sum(map(tokens, range(start, len(sent))))
        key = (provider, factor(provider))
        if key != self.totals_key:
            self.totals_key, self.totals = key, [0]
        totals = self.totals
        for index in range(len(totals) - 1, len(sent)):
            totals.append(totals[-1] + tokens(index))
        return totals[len(sent)] - totals[start]

    def _count(self, sent: list[Message], weights: list[Weight], conversation: Conversation, provider: str,
               prompt_weight: float, originals: set[int]) -> tuple[int, int]:
        """(what the anchor reported: its input, cache and output; the estimate of its tool results and of everything
        after it), or (0, the estimate of everything) without an anchor. Thinking counts where it goes back (to the
        provider that wrote it)."""
        anchor = self._anchor(sent, weights, conversation, provider, prompt_weight, originals)
        start = 0 if anchor is None else anchor.index + 1
        after = self._estimate(sent, weights, start, provider)
        if anchor is None:
            return 0, after
        reply = sent[anchor.index]
        results = sum(tool_result_weight(call) for call in reply.tool_calls)
        images = sum(image_tokens() for call in reply.tool_calls if not call.is_error
                     for part in call.result_parts if part.get("type") == "image")
        return anchor.input + reply.usage.output_tokens, round(results * factor(provider)) + images + after

    def _anchor(self, sent: list[Message], weights: list[Weight], conversation: Conversation, provider: str,
                prompt_weight: float, originals: set[int]) -> _Anchor | None:
        """The last reply of `provider` whose reported input can stand for everything before it: the same provider's
        tokenizer, no compaction since its request was sent (a reply sent again after an overflow's compaction is
        dated anew) that changed what is sent, and near enough to the estimate of its request
        (from which its provider's calibration learns, once)."""
        tried = 0
        for index in reversed(self.reporting):
            reply = sent[index]
            if not written_by(reply, provider):
                continue
            reported = _reported(reply)
            if reported <= 0:
                continue
            if (tried := tried + 1) > CANDIDATES:
                return None
            if any(not c.undone and c.created_at > reply.created_at for c in conversation.compactions):
                return None  # its request (sent when the reply was dated, core/agent/loop.py) counted messages that are
                # sent as a summary now; so did every reply before it
            text_weight_then, fixed = self._request_of(reply, conversation, originals)
            text = round((prompt_weight + text_weight_then) * factor(provider))
            estimated = text + fixed
            if _counted_summaries(sent, weights, conversation, reply, provider, reported, estimated):
                return None
            ratio = reported / max(1, estimated)
            if ratio < LEAST_PLAUSIBLE or (
                    abs(reported - estimated) > SLACK and not COMPARABLE[0] <= ratio <= COMPARABLE[1]):
                continue
            if reply.id not in _calibrated and text >= CALIBRATE_FROM:
                calibrate(provider, text, reported - fixed)
                _calibrated[reply.id] = True
                if len(_calibrated) > 4096:
                    _calibrated.popitem(last=False)
            return _Anchor(index, reported)
        return None

    def _request_of(self, reply: Message, conversation: Conversation, originals: set[int]) -> tuple[float, int]:
        """(text weight, fixed tokens) of the messages the request that `reply` answered sent, trimmed as they were then;
        thinking only within its own turn (earlier turns' thinking is not sent back, or not counted)."""
        if (held := self.requests.get(reply.id)) is not None:
            return held
        messages = conversation.messages
        position = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].id == reply.id), len(messages))
        sent = sent_messages(messages[:position], conversation.compactions)
        turn = next((i + 1 for i in range(len(sent) - 1, -1, -1) if sent[i].role is Role.USER), 0)
        requested = self.requested
        same = requested.seen.update(sent)
        del requested.weights[same:], requested.text[same + 1:], requested.fixed[same + 1:]
        for message in sent[same:]:  # (the replies' requests share their messages: each new one weighs its new ones)
            weight = self.weight(message, originals)
            requested.weights.append(weight)
            requested.text.append(requested.text[-1] + weight.text)
            requested.fixed.append(requested.fixed[-1] + weight.fixed)
        text = requested.text[len(sent)] + sum(w.thinking for w in requested.weights[turn:])
        fixed = requested.fixed[len(sent)]
        self.requests[reply.id] = (text, fixed)
        return text, fixed


def _reported(message: Message) -> int:
    """The input a reply's provider reported its request held (cache reads and writes included); 0 for a user message."""
    if message.role is not Role.ASSISTANT:
        return 0
    usage = message.usage
    return usage.input_tokens + (usage.cache_read_tokens + usage.cache_write_tokens if _cache_apart(message.provider) else 0)


def _cache_apart(provider: str | None) -> bool:
    """Whether the provider reports cache reads and writes beside its input count (Anthropic), not inside it (as
    core.usage.pricing.input_includes_cache says; not imported from there: core.usage reads the store)."""
    spec = spec_of(provider)
    return spec is not None and spec.cache_apart


def _counted_summaries(sent: list[Message], weights: list[Weight], conversation: Conversation, reply: Message,
                       provider: str, reported: int, estimated: int) -> bool:
    """Whether `reply`'s request still sent as summaries the compactions undone since (told by which of the two the
    reported input is nearer to)."""
    undone = [c for c in conversation.compactions if c.undone and c.created_at < reply.created_at]
    if not undone:
        return False
    position = {message.id: index for index, message in enumerate(sent)}
    end = position[reply.id]
    saved = 0
    for compaction in undone:
        first, last = position.get(compaction.first_message_id), position.get(compaction.last_message_id)
        if first is None or last is None or not first <= last < end:
            continue
        whole = sum(w.tokens(provider, with_thinking=False) for w in weights[first:last + 1])
        saved += whole - _stand_in_tokens(compaction, provider)
    return saved > 0 and abs(reported - (estimated - saved)) < abs(reported - estimated)


def _stand_in_tokens(compaction: Compaction, provider: str) -> int:
    return STAND_IN_OVERHEAD + (estimate_tokens(compaction.summary, provider) if compaction.kind == "summary" else 0)


# --- the rest of the request -------------------------------------------------------------

def _tools_weight(tools: Sequence[ToolLike]) -> float:
    total = 0.0
    for tool in tools:
        key = (tool.name, tool.description)
        if (weight := _tool_weights.get(key)) is None:
            weight = _tool_weights[key] = tool_spec_weight(tool.name, tool.description, tool.input_schema)
        total += weight
    return total


def _attachments_tokens(attachments: Sequence[Any], provider: str) -> int:
    """The draft's attachments (weighed once each while they are attached)."""
    if not attachments:
        _attachment_weights.clear()
        return 0
    held = {id(block): _attachment_weights.get(id(block)) for block in attachments}
    for block in attachments:
        if held[id(block)] is None or held[id(block)][0] is not block:
            held[id(block)] = (block, message_weight(Message(role=Role.USER, blocks=[block])))
    _attachment_weights.clear()
    _attachment_weights.update(held)
    return sum(weight.tokens(provider) - MESSAGE_OVERHEAD for _, weight in held.values())


def _counter(conversation_id: str) -> _HistoryCounter:
    counter = _counters.pop(conversation_id, None) or _HistoryCounter()
    _counters[conversation_id] = counter
    while len(_counters) > HELD_CONVERSATIONS:
        _counters.popitem(last=False)
    return counter


def forget() -> None:
    """Drops every cached weight (a benchmark's cold start, tests)."""
    with _lock:
        _counters.clear()
        _tool_weights.clear()
        _attachment_weights.clear()
        _calibrated.clear()


_lock = threading.Lock()
_counters: OrderedDict[str, _HistoryCounter] = OrderedDict()
_tool_weights: dict[tuple[str, str], float] = {}
_attachment_weights: dict[int, tuple[Any, Weight]] = {}
_calibrated: OrderedDict[str, bool] = OrderedDict()
"""The replies the calibration has learned from (each once)."""
