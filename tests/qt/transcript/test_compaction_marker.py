"""Compaction markers in the transcript model and view: the compacted messages stay rows of the model (hidden while
collapsed, never loaded from the store until opened), the marker keeps its place on screen when it opens at the bottom,
and markers follow the events that make and undo compactions."""

from __future__ import annotations

from PySide6.QtCore import Qt

from desktop_copilot.core.conversation.models import Compaction, Conversation, Message, MessageStatus, Role, TextBlock
from desktop_copilot.core.storage.store import Store
from desktop_copilot.core.transcript.segments import LEAD_KINDS
from desktop_copilot.qt.transcript.model import TranscriptModel
from desktop_copilot.qt.transcript.parts.compaction import TOGGLE, UNDO, marker_text
from tests.qt.transcript.transcript_support import hotspot_point, show_view

COUNT = 400
COMPACTED = 300


def _messages(count: int) -> list[Message]:
    return [Message.user(f"Question {n}") if n % 2 == 0 else
            Message(role=Role.ASSISTANT, status=MessageStatus.COMPLETED, blocks=[TextBlock(text=f"Answer {n}\n\nMore words.")])
            for n in range(count)]


def _compaction(messages: list[Message], first: int, last: int, **fields) -> Compaction:
    return Compaction(first_message_id=messages[first].id, last_message_id=messages[last].id, messages=last - first + 1,
                      summary="Questions about rivers, answered.", tokens_before=90_000, tokens_after=700, **fields)


def _shown(qtbot, count: int, last: int, height: int) -> tuple[list[Message], TranscriptModel, Compaction, object]:
    """A view of `count` messages whose first `last` + 1 are compacted, painted once."""
    messages = _messages(count)
    model = TranscriptModel()
    compaction = _compaction(messages, 0, last)
    model.set_messages(messages, [compaction])
    view = show_view(qtbot, model, height=height)
    view.viewport().repaint()
    return messages, model, compaction, view


def _kinds(model: TranscriptModel) -> list[str]:
    return [model.segment_at(row).kind for row in range(model.rowCount())]


def _stored(tmp_path) -> tuple[Store, str, list[Message], Compaction]:
    store = Store(tmp_path / "db.sqlite")
    store.indexer.index = lambda *args: None
    conversation = Conversation(title="Long")
    store.save_conversation(conversation)
    messages = _messages(COUNT)
    for seq, message in enumerate(messages):
        store.save_message(conversation.id, seq, message)
    return store, conversation.id, messages, _compaction(messages, 0, COMPACTED - 1)


def test_a_collapsed_compaction_is_not_read_from_the_store_until_it_opens(qtbot, tmp_path, qtmodeltester):
    store, conversation_id, _messages_stored, compaction = _stored(tmp_path)
    try:
        model = TranscriptModel()
        loaded = model.open_lazy(store, conversation_id, compactions=[compaction])
        assert len(loaded) == 40 and model.rowCount() == COUNT + 1 and _kinds(model)[0] == "compaction"
        view = show_view(qtbot, model, height=600)
        view.scrollTo(model.index(0, 0), view.ScrollHint.PositionAtTop)  # the top: the marker, then the messages after it
        view.viewport().repaint()
        before = model.source.loads
        assert model.source.loads <= 40 + 60  # what is on screen, not the 300 hidden messages
        assert all(model.segment_at(row).kind == "pending" for row in range(2, COMPACTED))
        assert view.rows.total() < 60 * 200  # the hidden rows take no room
        assert view.visualRect(model.index(0, 0)).top() == 0

        view.toggle_compaction(compaction.id)
        view.viewport().repaint()
        assert view.visualRect(model.index(0, 0)).top() == 0  # the marker stays put; the messages open under it
        assert model.message_at(2).text == "Question 0" and view.rows.heights[2] > 0
        assert before < model.source.loads < before + COMPACTED // 2  # loaded as they come into view
        qtmodeltester.check(model)
    finally:
        store.close()


def test_opening_a_marker_at_the_end_keeps_it_on_screen(qtbot):
    messages, model, compaction, view = _shown(qtbot, 40, 35, height=400)
    marker = view.visualRect(model.index(0, 0)).top()
    assert view.stick_to_bottom and 0 <= marker < 400
    view.toggle_compaction(compaction.id)
    view.viewport().repaint()
    assert view.visualRect(model.index(0, 0)).top() == marker and not view.stick_to_bottom
    view.toggle_compaction(compaction.id)
    view.viewport().repaint()
    assert view.rows.heights[model.message_row(messages[5].id)] == 0


def test_events_add_and_undo_markers_in_place(qtbot, qtmodeltester):
    messages = _messages(12)
    model = TranscriptModel()
    model.set_messages(messages)
    seen = []
    model.rowsInserted.connect(lambda _p, first, last: seen.append(("inserted", first, last)))
    model.sig_rows_shown_changed.connect(lambda first, last: seen.append(("shown", first, last)))
    compaction = _compaction(messages, 0, 7)
    model.add_compaction(compaction)
    assert _kinds(model)[0] == "compaction" and seen == [("inserted", 0, 0), ("shown", 0, 8)]
    assert [model.is_hidden(row) for row in range(10)] == [False] + [True] * 8 + [False]
    qtmodeltester.check(model)
    assert model.compaction_undone(compaction.id)
    assert model.segment_at(0).state[5] is True and not any(model.is_hidden(row) for row in range(model.rowCount()))
    assert not compaction.undone  # the event's object is the core's


def test_a_compaction_whose_messages_became_an_earlier_version_loses_its_marker(qtbot):
    messages = _messages(12)
    model = TranscriptModel()
    compaction = _compaction(messages, 2, 7)
    model.set_messages(messages, [compaction])
    assert model.segment_at(model.row_of(messages[2].id)).kind == "compaction"
    model.replace_from(5, [Message.user("Edited")])
    assert "compaction" not in _kinds(model) and not any(model.is_hidden(row) for row in range(model.rowCount()))


def test_a_user_message_after_a_marker_is_still_known_as_the_users(qtbot):
    messages = _messages(8)
    messages[3] = Message(role=Role.ASSISTANT, status=MessageStatus.COMPLETED, model="other-model", provider="deepseek",
                          blocks=[TextBlock(text="Answer 3")])
    model = TranscriptModel()
    model.set_messages(messages, [_compaction(messages, 2, 3, undone=True)])
    rows = [model.segment_at(row).kind for row in model.rows_of(messages[3].id)]
    assert rows[0] == "switch"  # the reply before it was found through the user's message behind the marker
    assert [model.segment_at(row).kind for row in model.rows_of(messages[2].id)] == ["compaction", "user"]
    assert model.message_row(messages[2].id) == model.row_of(messages[2].id) + 1
    assert all(model.segment_at(row).kind not in LEAD_KINDS for row in model.rows_of(messages[4].id))


def test_clicking_the_marker_toggles_and_a_click_on_undo_asks_for_it(qtbot):
    _, model, compaction, view = _shown(qtbot, 10, 5, height=500)
    with qtbot.waitSignal(view.sig_undo_compaction) as asked:
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=hotspot_point(view, 0, UNDO))
    assert asked.args == [compaction.id] and not model.is_compaction_open(compaction.id)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=hotspot_point(view, 0, TOGGLE))
    assert model.is_compaction_open(compaction.id)


def test_a_dropped_compaction_says_its_messages_are_left_out_and_opens_without_a_summary(qtbot):
    messages = _messages(10)
    model = TranscriptModel()
    dropped = _compaction(messages, 0, 5, kind="dropped")
    model.set_messages(messages, [dropped])
    assert marker_text(model.segment_at(0).state) == "6 earlier messages left out of requests: no summary could be made"
    assert model.set_compaction_open(dropped.id, True) and "compaction_summary" not in _kinds(model)
    assert not model.set_compaction_open("cmp_unknown", True)
