"""Thinking written as text: `<think>`/`<thinking>` opening a reply, a lone closing tag whose opening the template
wrote, and tags that are answer text (later in the reply, inside code, or with think_tags off)."""

from __future__ import annotations

import pytest

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.providers.parts import Parts
from desktop_copilot.core.providers.text_protocol.reader import TextReader

from .replay import every_split, read

SPLIT_CASES = {
    "think pair": ("<think>Let me add 2 and 2.</think>It is 4.", [("thinking", "Let me add 2 and 2."), ("text", "It is 4.")]),
    "thinking pair": ("<thinking>Hmm.</thinking>\n\nYes.", [("thinking", "Hmm."), ("text", "Yes.")]),
    "leading whitespace": ("\n  <think>\nStep one.\nStep two.\n</think>\n\nDone.",
                           [("thinking", "Step one.\nStep two.\n"), ("text", "Done.")]),
    "lone closing tag": ("The user greets me.\n</think>\n\nHello!", [("thinking", "The user greets me.\n"), ("text", "Hello!")]),
    "lone </thinking>": ("Plan: greet.</thinking>Hi", [("thinking", "Plan: greet."), ("text", "Hi")]),
    "no tags at all": ("Just < an answer, with <b>bold</b>.", [("text", "Just < an answer, with <b>bold</b>.")]),
    "empty thinking": ("<think>\n\n</think>\n\nHi.", [("text", "Hi.")]),
    "thinking only": ("<think>still thinking when the stream ends", [("thinking", "still thinking when the stream ends")]),
    "almost a tag": ("<thinker> is a word", [("text", "<thinker> is a word")]),
    "pair later in the text": ("Models write <think>x</think> tags.", [("text", "Models write <think>x</think> tags.")]),
    "closing tag in inline code": ("Strip `</think>` from replies.", [("text", "Strip `</think>` from replies.")]),
    "closing tag in a fence": ("Like this:\n```\nreasoning</think>\n```\nDone.", [("text", "Like this:\n```\nreasoning</think>\n```\nDone.")]),
    "closing tag after code": ("Use `x`.\n</think>Answer", [("thinking", "Use `x`.\n"), ("text", "Answer")]),
}


@pytest.mark.parametrize("name", SPLIT_CASES)
def test_thinking_is_split_from_the_answer_wherever_the_deltas_are_cut(name):
    text, expected = SPLIT_CASES[name]
    assert read([text]).blocks == expected
    for deltas in every_split(text):
        assert read(deltas).blocks == expected, deltas


def test_think_tags_off_leaves_the_tags_in_the_text():
    text = "<think>x</think>y"
    assert read([text], think_tags=False).blocks == [("text", text)]
    assert read(["x</think>y"], think_tags=False).blocks == [("text", "x</think>y")]


def test_thinking_ends_when_its_closing_tag_arrives_not_when_the_answer_does():
    reader = TextReader(Parts(), think_tags=True, tool_names=None)
    assert reader.feed("<think>hm") == [ev.ThinkingStart(index=0), ev.ThinkingDelta(index=0, text="hm")]
    assert reader.feed("m</think>\n\n") == [ev.ThinkingDelta(index=0, text="m"), ev.ThinkingEnd(index=0)]
    assert reader.feed("Yes") == [ev.TextStart(index=1), ev.TextDelta(index=1, text="Yes")]
    assert reader.finish() == [ev.TextEnd(index=1)]


def test_thinking_streams_as_it_comes_holding_back_only_a_possible_closing_tag():
    reader = TextReader(Parts(), think_tags=True, tool_names=None)
    assert reader.feed("<think>") == []
    assert reader.feed("a </th") == [ev.ThinkingStart(index=0), ev.ThinkingDelta(index=0, text="a ")]
    assert reader.feed("ough") == [ev.ThinkingDelta(index=0, text="</though")]
    assert reader.finish() == [ev.ThinkingEnd(index=0)]


def test_without_an_opening_tag_the_start_is_held_back_until_a_lone_closing_tag_decides():
    reader = TextReader(Parts(), think_tags=True, tool_names=None)
    assert reader.feed("Okay, the user wants ") == []
    assert reader.feed("a greeting.") == []
    assert reader.feed("</think>Hello") == [
        ev.ThinkingStart(index=0), ev.ThinkingDelta(index=0, text="Okay, the user wants a greeting."), ev.ThinkingEnd(index=0),
        ev.TextStart(index=1), ev.TextDelta(index=1, text="Hello"),
    ]
    assert reader.feed(" there") == [ev.TextDelta(index=1, text=" there")]


def test_held_back_text_is_released_as_text_when_the_stream_ends_without_a_closing_tag():
    reader = TextReader(Parts(), think_tags=True, tool_names=None)
    assert reader.feed("A plain answer ") == [] and reader.feed("with no thinking.") == []
    assert reader.finish() == [ev.TextStart(index=0), ev.TextDelta(index=0, text="A plain answer with no thinking."), ev.TextEnd(index=0)]


def test_held_back_text_is_released_once_the_window_passes_and_a_later_closing_tag_is_text():
    reader = TextReader(Parts(), think_tags=True, tool_names=None, lone_close_window=10)
    assert reader.feed("123456789") == []
    assert reader.feed("0ab") == [ev.TextStart(index=0), ev.TextDelta(index=0, text="1234567890ab")]
    assert reader.feed("</think>c") == [ev.TextDelta(index=0, text="</think>c")]


def test_the_window_is_counted_in_characters_of_the_reply_whatever_the_deltas():
    thinking = "x" * 3990
    inside, outside = thinking + "</think>Answer", thinking + "yyyyyyyy</think>Answer"
    assert read([inside]).blocks == [("thinking", thinking), ("text", "Answer")]
    assert read([inside[i:i + 7] for i in range(0, len(inside), 7)]).blocks == [("thinking", thinking), ("text", "Answer")]
    assert read([outside]).blocks == [("text", outside)]  # the tag ends past the 4,000th character
    assert read([outside[i:i + 7] for i in range(0, len(outside), 7)]).blocks == [("text", outside)]


def test_an_opening_tag_after_other_text_releases_the_text_at_once():
    reader = TextReader(Parts(), think_tags=True, tool_names=None)
    assert reader.feed("See ") == []
    assert reader.feed("<think> tags") == [ev.TextStart(index=0), ev.TextDelta(index=0, text="See <think> tags")]


def test_a_later_closing_tag_after_a_thinking_block_is_answer_text():
    assert read(["<think>a</think>b</think>c"]).blocks == [("thinking", "a"), ("text", "b</think>c")]


def test_the_reader_feeds_the_wires_parts_so_native_blocks_keep_their_places():
    parts = Parts()
    reader = TextReader(parts, think_tags=True, tool_names=None)
    events = parts.thinking("native reasoning") + reader.feed("<think>more</think>Answer")
    events += parts.start_call("native", "call_1", "calc", arguments={"x": 1}) + parts.end_call("native")
    events += reader.feed(" again") + reader.finish()
    assert [(type(e).__name__, e.index) for e in events] == [
        ("ThinkingStart", 0), ("ThinkingDelta", 0), ("ThinkingDelta", 0), ("ThinkingEnd", 0),
        ("TextStart", 1), ("TextDelta", 1), ("TextEnd", 1), ("ToolCallStart", 2), ("ToolCallEnd", 2),
        ("TextStart", 3), ("TextDelta", 3), ("TextEnd", 3),
    ]


def test_content_after_the_wires_own_thinking_is_not_held_back():
    parts = Parts()
    reader = TextReader(parts, think_tags=True, tool_names=None)
    events = parts.thinking("reasoning the server separated")
    events += reader.feed("The answer")
    assert events[-3:] == [ev.ThinkingEnd(index=0), ev.TextStart(index=1), ev.TextDelta(index=1, text="The answer")]
    assert reader.feed("</think>") == [ev.TextDelta(index=1, text="</think>")]
