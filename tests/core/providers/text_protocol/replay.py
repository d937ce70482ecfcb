"""Feeding text to a TextReader and reading back what it made: the events checked as a valid sequence, folded
through `accumulate` onto an assistant message, and the message's blocks in a short comparable form."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.accumulate import accumulate
from desktop_copilot.core.conversation.models import Message, TextBlock, ThinkingBlock, ToolCallBlock
from desktop_copilot.core.providers.parts import Parts
from desktop_copilot.core.providers.text_protocol.reader import TextReader

TOOLS = ("calc", "web_search")


@dataclass
class Replay:
    events: list[ev.Event]
    message: Message
    reader: TextReader

    @property
    def blocks(self) -> list[tuple[Any, ...]]:
        return blocks_of(self.message)

    @property
    def calls(self) -> list[ToolCallBlock]:
        return self.message.tool_calls


def read(deltas: Iterable[str], *, think_tags: bool = True, tool_names: Iterable[str] | None = TOOLS, id_salt: str = "",
         **options: Any) -> Replay:
    """Feed each delta, then finish; the events must form a valid sequence."""
    reader = TextReader(Parts(), think_tags=think_tags, tool_names=None if tool_names is None else tuple(tool_names),
                        id_salt=id_salt, **options)
    events = [event for delta in deltas for event in reader.feed(delta)] + reader.finish()
    assert_valid_sequence(events)
    return Replay(events, fold(events), reader)


def fold(events: Iterable[ev.Event]) -> Message:
    message = Message.assistant()
    for event in events:
        accumulate(message, event)
    return message


def blocks_of(message: Message) -> list[tuple[Any, ...]]:
    """("text", text), ("thinking", thinking) or ("call", name, arguments, form, id) per block, in order."""
    out: list[tuple[Any, ...]] = []
    for block in message.blocks:
        if isinstance(block, TextBlock):
            out.append(("text", block.text))
        elif isinstance(block, ThinkingBlock):
            out.append(("thinking", block.thinking))
        elif isinstance(block, ToolCallBlock):
            out.append(("call", block.name, block.arguments, block.provider_fields.get("text_form"), block.id))
        else:
            raise TypeError(f"unexpected block {block!r}")
    return out


def shapes(message: Message) -> list[tuple[Any, ...]]:
    """`blocks_of` without the call ids."""
    return [block[:4] if block[0] == "call" else block for block in blocks_of(message)]


def assert_valid_sequence(events: list[ev.Event], first_index: int = 0) -> None:
    """Every part starts once at the next index, gets deltas only while open, ends once; text and thinking parts
    never overlap; a call's start and end are adjacent but for its deltas; nothing stays open."""
    starts = (ev.TextStart, ev.ThinkingStart, ev.ToolCallStart)
    ends = {ev.TextEnd: ev.TextStart, ev.ThinkingEnd: ev.ThinkingStart, ev.ToolCallEnd: ev.ToolCallStart}
    deltas = {ev.TextDelta: ev.TextStart, ev.ThinkingDelta: ev.ThinkingStart, ev.ToolCallDelta: ev.ToolCallStart}
    open_parts: dict[int, type] = {}
    next_index = first_index
    for event in events:
        kind = type(event)
        if kind in starts:
            assert event.index == next_index, f"{event} should have index {next_index}"
            if kind is not ev.ToolCallStart:
                assert not [i for i, k in open_parts.items() if k is not ev.ToolCallStart], f"{event} while a part is open"
            open_parts[event.index] = kind
            next_index += 1
        elif kind in deltas:
            assert open_parts.get(event.index) is deltas[kind], f"{event} outside its part"
            assert getattr(event, "text", None) != "", f"empty {event}"
        elif kind in ends:
            assert open_parts.pop(event.index, None) is ends[kind], f"{event} without its start"
        else:
            raise AssertionError(f"unexpected event {event}")
    assert not open_parts, f"parts left open: {open_parts}"


def every_split(text: str) -> Iterator[list[str]]:
    """The text cut in two at every offset, then one character at a time."""
    for cut in range(1, len(text)):
        yield [text[:cut], text[cut:]]
    yield list(text)
