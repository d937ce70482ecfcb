"""Which knowledge passages show under a reply: those its text cites by number, else all it found."""

from __future__ import annotations

from desktop_copilot.core.conversation.models import Message, MessageStatus, Role, TextBlock, ToolCallBlock, ToolCallStatus
from desktop_copilot.core.knowledge.citing import cited_numbers, last_text, reply_sources, searched


def _part(number: int, path: str) -> dict:
    return {"type": "knowledge_passage", "number": number, "source": "notes", "path": path, "file": f"/n/{path}",
            "location": "lines 1–3", "text": f"text of {path}"}


def _reply(text: str, *parts: dict, error: bool = False) -> list[Message]:
    """As the loop writes it: the round with the call in one message, the answer in the next."""
    call = ToolCallBlock(id="c1", name="search_knowledge", arguments={"query": "q"}, status=ToolCallStatus.DONE,
                         result="…", is_error=error, result_parts=list(parts))
    return [Message(role=Role.ASSISTANT, status=MessageStatus.COMPLETED, blocks=[TextBlock(text="Let me look."), call]),
            Message(role=Role.ASSISTANT, status=MessageStatus.COMPLETED, blocks=[TextBlock(text=text)])]


def test_cited_numbers_in_the_usual_forms():
    assert cited_numbers("As [2] says, and [1][3]; see also [4, 5]、[6，7]. Not [x] or [1000].") == [2, 1, 3, 4, 5, 6, 7]


def test_only_the_cited_passages_show_in_number_order():
    sources = reply_sources(_reply("Bake at 230 degrees [3], after feeding the starter [1].", _part(1, "a.md"), _part(2, "b.md"), _part(3, "c.md")))
    assert sources.cited and [p.number for p in sources.passages] == [1, 3]
    assert sources.passages[1].path == "c.md" and sources.passages[1].location == "lines 1–3"


def test_a_reply_citing_nothing_shows_all_it_found_and_numbers_it_did_not_find_are_ignored():
    sources = reply_sources(_reply("No numbers here, or only [9].", _part(1, "a.md"), _part(2, "b.md")))
    assert not sources.cited and [p.number for p in sources.passages] == [1, 2]


def test_no_sources_without_a_successful_search():
    assert reply_sources(_reply("Hi [1]")) is None
    assert reply_sources(_reply("Hi [1]", _part(1, "a.md"), error=True)) is None
    assert reply_sources(_reply("Hi", {"type": "knowledge_passage", "number": "not a number"})) is None


def test_the_sources_go_under_the_last_text_block_of_the_reply():
    reply = _reply("x", _part(1, "a.md"))
    assert last_text(reply) == (reply[1].id, 0) and last_text(reply[:1]) == (reply[0].id, 0)
    assert searched(reply) and not searched(reply[1:])
