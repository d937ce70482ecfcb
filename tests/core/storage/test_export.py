"""Markdown and JSON export, and import of the JSON into another store."""

from __future__ import annotations

import json

import pytest

from desktop_copilot.core.storage.export import ExportFormatError, export_all, import_json, parse_json, to_json, to_markdown
from desktop_copilot.core.conversation.models import (
    Conversation, Message, MessageStatus, RedactedThinkingBlock, TextBlock, ThinkingBlock, ToolCallBlock, ToolCallStatus,
)
from desktop_copilot.core.storage.store import Store


def conversation() -> Conversation:
    reply = Message.assistant("claude-test")
    reply.blocks = [
        ThinkingBlock(thinking="Look it up.", signature="sig=="),
        RedactedThinkingBlock(data="opaque"),
        ToolCallBlock(id="toolu_1", name="tavily_search", arguments={"query": "香港天气"}, status=ToolCallStatus.DONE,
                      result="[1] HKO\nURL: https://hko.gov.hk\n```not a fence```"),
        TextBlock(text="Sunny, **25°C**."),
    ]
    reply.status = MessageStatus.COMPLETED
    cut = Message.assistant("claude-test")
    cut.blocks = [TextBlock(text="Half an ans")]
    cut.status, cut.error = MessageStatus.INTERRUPTED, "The connection closed."
    return Conversation(title="HK weather", model="claude-test",
                        messages=[Message.user("今天香港天气怎么样"), reply, Message.user("more?"), cut])


def test_markdown_has_collapsible_thinking_tool_calls_and_marks_partial_replies():
    text = to_markdown(conversation())
    assert text.startswith("# HK weather\n")
    assert "<details>\n<summary>Thinking</summary>\n\nLook it up.\n\n</details>" in text
    assert "Tool call: <code>tavily_search</code> (done)" in text
    assert '"query": "香港天气"' in text
    assert "````\n[1] HKO" in text  # the result's own ``` cannot close the fence
    assert "Sunny, **25°C**." in text
    assert "Reply interrupted: The connection closed." in text


def test_json_round_trip_through_another_store(tmp_path):
    source = Store(tmp_path / "a.sqlite3")
    original = conversation()
    source.save_conversation(original)
    for seq, message in enumerate(original.messages):
        source.save_message(original.id, seq, message)
    exported = export_all(source)
    source.close()

    target = Store(tmp_path / "b.sqlite3")
    assert import_json(target, exported) == (1, 0)
    assert import_json(target, exported) == (0, 1)
    restored = target.load_conversation(original.id)
    assert [m.model_dump() for m in restored.messages] == [m.model_dump() for m in original.messages]
    assert target.search("天气")
    target.close()


def test_document_is_versioned():
    document = json.loads(to_json([conversation()]))
    assert document["format"] == "desktop-copilot/conversations" and document["version"] == 1


@pytest.mark.parametrize("text, advice", [
    ("not json", "not JSON"),
    ('{"format": "other"}', "not a Desktop Copilot export"),
    ('{"format": "desktop-copilot/conversations", "version": 99}', "newer Desktop Copilot"),
    ('{"format": "desktop-copilot/conversations", "version": 1, "conversations": [{"messages": 3}]}', "damaged"),
])
def test_bad_files_are_refused_with_advice(text, advice):
    with pytest.raises(ExportFormatError, match=advice):
        parse_json(text)
