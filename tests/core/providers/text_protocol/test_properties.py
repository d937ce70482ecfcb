"""Properties over any input: cutting the content into other deltas never changes the reply (its text, thinking,
calls and problems), the events always form a valid sequence, and nothing raises, on hostile or huge text too."""

from __future__ import annotations

import itertools
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_copilot.core.conversation.clean_values import clean_text
from desktop_copilot.core.providers.parts import Parts
from desktop_copilot.core.providers.text_protocol.reader import TextReader

from .replay import read

FRAGMENTS = [
    "<think>", "</think>", "<thinking>", "</thinking>", "<tool_call>", "</tool_call>", "<minimax:tool_call>",
    "</minimax:tool_call>", '<invoke name="calc">', '<invoke name="web_search">', "</invoke>", '<parameter name="x">',
    "</parameter>", '{"name": "calc", "arguments": {"x": 1}}', '[{"name": "web_search", "parameters": {}}]', '{"name": ',
    "```", "```json\n", "````", "`", "``", "\n", "\n\n", " ", "  ", "<", ">", "</", "{", "}", '"', "2", "null", "text",
    "é", "香港", "\ud800", "\x00", "\r\n", "\t",
]

pieces = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=6)), max_size=30).map("".join)


def cut(text: str, offsets: list[int]) -> list[str]:
    bounds = sorted({0, len(text), *(offset % (len(text) + 1) for offset in offsets)})
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def outcome(deltas: list[str], **options) -> tuple:
    replay = read(deltas, **options)
    return replay.blocks, replay.reader.problems, replay.reader.calls


@settings(max_examples=400, deadline=None)
@given(pieces, st.lists(st.integers(min_value=0), max_size=12), st.booleans(), st.booleans())
def test_any_cut_gives_the_reply_of_one_whole_feed(text, offsets, think_tags, offer_tools):
    options = {"think_tags": think_tags, "tool_names": ("calc", "web_search") if offer_tools else None, "lone_close_window": 40}
    assert outcome(cut(text, offsets), **options) == outcome([text], **options)


@settings(max_examples=200, deadline=None)
@given(st.text(), st.lists(st.integers(min_value=0), max_size=8))
def test_any_unicode_text_is_read_the_same_however_cut(text, offsets):
    assert outcome(cut(text, offsets)) == outcome([text])


@settings(max_examples=300, deadline=None)
@given(pieces)
def test_text_is_never_lost_when_no_call_is_read(text):
    replay = read([text], think_tags=False)
    if replay.reader.calls == 0:
        assert replay.message.text == ("" if text.isspace() else clean_text(text))


def test_huge_hostile_inputs_finish_quickly_without_raising():
    hostile = [
        "<tool_call>" + "[" * 100_000,  # nested deeper than json reads
        '<tool_call>{"name": "calc", "arguments": ' + "[" * 100_000 + "]" * 100_000 + "}</tool_call>",
        "<minimax:tool_call>" + '<invoke name="a">' * 20_000 + "</minimax:tool_call>",
        "<minimax:tool_call><invoke name=\"a\">" + "<parameter name=\"p\">" * 20_000 + "</invoke></minimax:tool_call>",
        "`" * 50_000 + "<tool_call>",
        "```json\n" + '{"name": "calc", "arguments": {"s": "' + "x" * 300_000 + '"}}\n```',
        "<think>" + "</thin" * 30_000,
        "\x00\ud800" * 50_000,
        "<" * 100_000,
    ]
    for text in hostile:
        started = time.perf_counter()
        reader = TextReader(Parts(), think_tags=True, tool_names=["calc"])
        for start in range(0, len(text), 97):
            reader.feed(text[start:start + 97])
        reader.finish()
        assert time.perf_counter() - started < 5, text[:40]


def test_a_long_call_streamed_in_small_deltas_costs_time_linear_in_its_size():
    body = '{"name": "calc", "arguments": {"s": "' + "<x> `y` " * 40_000 + '"}}'
    text = f"Writing it.\n<tool_call>{body}</tool_call>"
    reader = TextReader(Parts(), think_tags=True, tool_names=["calc"])
    started = time.perf_counter()
    for start in range(0, len(text), 4):
        reader.feed(text[start:start + 4])
    reader.finish()
    assert reader.calls == 1 and time.perf_counter() - started < 5
