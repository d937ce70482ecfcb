"""The knowledge passages under a reply in a real transcript view: numbered, only the cited ones, only once the reply
has ended, under its last text block although the search ran in an earlier round; a click asks the window to show
the passage and opens nothing; a model's own link to the same scheme is not a link."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt

from desktop_copilot.core.conversation.models import Message, MessageStatus, TextBlock, ToolCallBlock, ToolCallStatus
from desktop_copilot.qt.transcript.model import TranscriptModel
from tests.qt.transcript.test_link_clicks import Recorder
from tests.qt.transcript.transcript_support import show_view


def _part(number: int, path: str, location: str) -> dict:
    return {"type": "knowledge_passage", "number": number, "source": "notes", "path": path, "file": f"/home/u/notes/{path}",
            "location": location, "text": f"text of {path}"}


def _reply(answer: str, status=MessageStatus.COMPLETED) -> list[Message]:
    question = Message.user("How do I bake it?")
    searching = Message.assistant()
    searching.blocks = [TextBlock(text="Let me look in your notes."),
                        ToolCallBlock(id="c1", name="search_knowledge", arguments={"query": "bake"}, status=ToolCallStatus.DONE,
                                      result="…", result_parts=[_part(1, "bread.md", "lines 3–9"), _part(2, "cake.md", "page 2"),
                                                                _part(3, "pie.md", "lines 1–2")])]
    searching.status = MessageStatus.COMPLETED
    answering = Message.assistant()
    answering.blocks = [TextBlock(text=answer)]
    answering.status = status
    return [question, searching, answering]


def test_cited_passages_show_under_the_answer_and_a_click_asks_for_the_passage(qtbot):
    model = TranscriptModel()
    messages = _reply("Bake at 230 degrees [3], after the starter rises [1]. See [link](dc-knowledge:x/2).")
    model.set_messages(messages)
    view = show_view(qtbot, model, 760, 700)
    recorder = Recorder()
    view.link_opener.open_url, view.link_opener.confirm = recorder.open_url, recorder.confirm
    view.viewport().repaint()
    answer_id = messages[2].id
    spots = {}
    for row in range(model.rowCount()):
        index = model.index(row, 0)
        rect = view.visualRect(index)
        for y in range(rect.top(), rect.bottom(), 3):
            for x in range(rect.left(), rect.right(), 3):
                hit = view.delegate.link_hit(index, rect, QPoint(x, y))
                if hit and hit.href not in spots:
                    spots[hit.href] = (QPoint(x, y), hit.text)
    assert set(spots) == {f"dc-knowledge:{answer_id}/1", f"dc-knowledge:{answer_id}/3"}  # cited only; the model's link is text
    assert spots[f"dc-knowledge:{answer_id}/1"][1] == "bread.md"
    with qtbot.waitSignal(view.sig_open_passage) as opened:
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=spots[f"dc-knowledge:{answer_id}/3"][0])
    assert opened.args == [answer_id, 3]
    assert recorder.opened == [] and recorder.asked == []
    assert view.link_tooltip_at(spots[f"dc-knowledge:{answer_id}/1"][0]) == "Show this passage"


def test_nothing_shows_while_the_answer_streams_and_all_found_show_when_none_is_cited(qtbot):
    model = TranscriptModel()
    streaming = _reply("Bake at 230 degrees [1]", status=MessageStatus.STREAMING)
    model.set_messages(streaming)
    view = show_view(qtbot, model, 760, 700)
    assert not any(href.startswith("dc-knowledge:") for row in range(model.rowCount())
                   for href in _hrefs(view, row))
    uncited = _reply("Bake it hot.")
    model.set_messages(uncited)
    view.viewport().repaint()
    found = {href for row in range(model.rowCount()) for href in _hrefs(view, row)}
    assert found == {f"dc-knowledge:{uncited[2].id}/{n}" for n in (1, 2, 3)}


def _hrefs(view, row: int) -> set[str]:
    index = view.model().index(row, 0)
    rect = view.visualRect(index)
    return {hit.href for y in range(rect.top(), rect.bottom(), 4) for x in range(rect.left(), rect.right(), 4)
            if (hit := view.delegate.link_hit(index, rect, QPoint(x, y)))}
