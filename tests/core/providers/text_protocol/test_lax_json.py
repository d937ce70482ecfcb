"""The lax form: a fenced ```json block of calls is a call only when it ends the reply, names offered tools and
holds nothing but calls; otherwise it is the text it looks like, released as soon as that is certain."""

from __future__ import annotations

import pytest

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.providers.parts import Parts
from desktop_copilot.core.providers.text_protocol.reader import TextReader

from .replay import every_split, read, shapes

BLOCK = '```json\n{"name": "calc", "arguments": {"x": 2}}\n```'
CALC = ("call", "calc", {"x": 2}, "json")


@pytest.mark.parametrize("text,expected", [
    (f"I will compute it.\n\n{BLOCK}\n", [("text", "I will compute it.\n\n"), CALC]),
    (BLOCK, [CALC]),
    (f"<think>Use calc.</think>\n{BLOCK}  \n\n", [("thinking", "Use calc."), CALC]),
    ('```JSON\n[{"name": "calc", "arguments": {"x": 2}}, {"name": "web_search", "parameters": {"query": "q"}}]\n```',
     [CALC, ("call", "web_search", {"query": "q"}, "json")]),
    ("```json\n{\"name\": \"calc\"}\n  ```", [("call", "calc", {}, "json")]),
])
def test_a_json_block_that_ends_the_reply_is_a_call(text, expected):
    whole = read([text])
    assert shapes(whole.message) == expected and whole.reader.problems == []
    for deltas in every_split(text):
        assert read(deltas).blocks == whole.blocks, deltas


@pytest.mark.parametrize("text", [
    f"Call it like this:\n{BLOCK}\nand you get 4.",
    f"{BLOCK}\n{BLOCK}x",
    '```json\n{"name": "rm_rf", "arguments": {}}\n```',
    '```json\n[{"name": "calc", "arguments": {}}, {"name": "delete_all", "arguments": {}}]\n```',
    '```json\n{"name": "calc", "arguments": {"x": 2}, "id": 7}\n```',
    '```json\n{"name": "calc", "arguments": [2]}\n```',
    '```json\n{"name": "calc", "arguments": {"x": \n```',
    '```json\n{"config": true}\n```',
    '```json\n{"name": "calc", "arguments": {"x": 2}}\n',
    "```json",
    '```python\n{"name": "calc", "arguments": {"x": 2}}\n```',
    '```\n{"name": "calc", "arguments": {"x": 2}}\n```',
    'Inline ```json {"name": "calc", "arguments": {}}```',
])
def test_any_other_json_block_is_text(text):
    for deltas in [[text], *every_split(text)]:
        replay = read(deltas)
        assert (replay.blocks, replay.reader.problems) == ([("text", text)], []), deltas


def test_with_no_tools_offered_or_none_matching_a_json_block_is_text():
    assert read([BLOCK], tool_names=None).blocks == [("text", BLOCK)]
    assert read([BLOCK], tool_names=[]).blocks == [("text", BLOCK)]
    assert read([BLOCK], tool_names=["Calc"]).blocks == [("text", BLOCK)]


def test_the_block_is_held_back_from_its_fence_and_released_when_text_follows_it():
    reader = TextReader(Parts(), think_tags=False, tool_names=["calc"])
    assert reader.feed("Example:\n```js") == [ev.TextStart(index=0), ev.TextDelta(index=0, text="Example:\n")]
    assert reader.feed('on\n{"name": "calc", "arguments": {}}\n```') == []
    assert reader.feed("\n\n") == []
    released = '```json\n{"name": "calc", "arguments": {}}\n```\n\n'
    assert reader.feed("More.") == [ev.TextDelta(index=0, text=released + "More.")]  # one delta for what one feed gives
    assert reader.finish() == [ev.TextEnd(index=0)]


def test_a_block_that_is_no_call_is_released_when_it_closes_not_at_the_end():
    reader = TextReader(Parts(), think_tags=False, tool_names=["calc"])
    assert reader.feed('```json\n{"port": 8080}\n') == []
    assert reader.feed("```") == []  # the closing run might go on
    released = reader.feed("\n")
    assert "".join(e.text for e in released if isinstance(e, ev.TextDelta)) == '```json\n{"port": 8080}\n```\n'
    assert reader.finish() == [ev.TextEnd(index=0)]


def shown(events: list[ev.Event]) -> str:
    return "".join(e.text for e in events if isinstance(e, ev.TextDelta))


def test_another_fence_streams_as_soon_as_its_info_cannot_be_json():
    reader = TextReader(Parts(), think_tags=False, tool_names=["calc"])
    assert shown(reader.feed("```py")) == "```py"
    assert shown(reader.feed("thon\nprint(1)")) == "thon\nprint(1)"
    reader = TextReader(Parts(), think_tags=False, tool_names=["calc"])
    assert reader.feed("``` js") == []
    assert shown(reader.feed("onx\n{}")) == "``` jsonx\n{}"


def test_a_tag_call_after_a_shown_json_block_is_still_read():
    text = f'{BLOCK}\n<tool_call>{{"name": "calc", "arguments": {{"x": 3}}}}</tool_call>'
    assert shapes(read([text]).message) == [("text", BLOCK + "\n"), ("call", "calc", {"x": 3}, "hermes")]
