"""The sidebar: its list model (qtmodeltester, day sections, relative times), inline rename, delete with
confirmation, Ctrl+N, opening a conversation, and a sent conversation moving to the top."""

from __future__ import annotations

import time
from datetime import date, datetime, timedelta

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit, QMessageBox

from desktop_copilot.core.conversation.models import Conversation
from desktop_copilot.core.storage.store import Store
from desktop_copilot.qt.history.conversation_list_model import ConversationListModel, section_of, time_text
from tests.support.history_seed import DAY, seed_app_store, seed_conversation
from tests.support.loopback import anthropic_text_reply, sse_response

Model = ConversationListModel


def _seed_days(store: Store) -> dict[str, str]:
    ages = {"Fresh": 0, "From yesterday": 1, "Four days old": 4, "Last month": 30, "Older still": 60}
    return {title: seed_conversation(store, title, [(f"{title} question", f"{title} answer")], age_days=age).id
            for title, age in ages.items()}


def _titles(model: ConversationListModel) -> list[str]:
    return [model.index(row, 0).data() for row in range(model.rowCount())]


def test_sections_and_relative_times():
    today = date(2025, 3, 12)
    at = lambda d: datetime.combine(d, datetime.min.time()).timestamp() + 3600  # noqa: E731
    assert [section_of(at(today - timedelta(days=n)), today) for n in (0, 1, 2, 7, 8, 400)] == [
        "Today", "Yesterday", "Previous 7 days", "Previous 7 days", "Earlier", "Earlier"]
    now = datetime(2025, 3, 12, 15, 0).timestamp()
    assert time_text(now - 20, now) == "just now"
    assert time_text(now - 300, now) == "5 min ago"
    assert time_text(now - 3 * 3600, now) == "3 h ago"
    assert time_text(now - DAY, now) == "Yesterday"
    assert time_text(datetime(2025, 3, 9, 10).timestamp(), now) == "Sun"
    assert time_text(datetime(2025, 1, 2, 10).timestamp(), now) == "2 Jan"
    assert time_text(datetime(2023, 1, 2, 10).timestamp(), now) == "2 Jan 2023"


def test_list_model_passes_the_model_tester_through_changes(qtmodeltester, tmp_path):
    store = Store(tmp_path / "db.sqlite3")
    ids = _seed_days(store)
    model = ConversationListModel(store)
    qtmodeltester.check(model)
    assert _titles(model) == ["Fresh", "From yesterday", "Four days old", "Last month", "Older still"]
    assert [model.index(r, 0).data(Model.SectionRole) for r in range(5)] == [
        "Today", "Yesterday", "Previous 7 days", "Earlier", "Earlier"]
    assert [model.index(r, 0).data(Model.FirstInSectionRole) for r in range(5)] == [True, True, True, True, False]
    assert model.index(0, 0).data(Model.ModelNameRole).startswith("claude-")

    older = store.load_conversation(ids["Older still"])
    store.save_conversation(older)  # touched now: moves to the top, into Today
    model.upsert(older)
    assert _titles(model)[:2] == ["Older still", "Fresh"]
    assert model.index(1, 0).data(Model.FirstInSectionRole) is False
    new = Conversation(title="Brand new")
    model.upsert(new)
    assert _titles(model)[0] == "Brand new" and model.rowCount() == 6
    assert model.remove(ids["Fresh"]) and "Fresh" not in _titles(model)
    assert model.setData(model.index(0, 0), "  Renamed   title ", Qt.ItemDataRole.EditRole)
    assert model.index(0, 0).data() == "Renamed title"
    model.refresh_clock()
    store.close()


def test_rename_saves_the_title_and_keeps_the_order(qtmodeltester, tmp_path):
    store = Store(tmp_path / "db.sqlite3")
    ids = _seed_days(store)
    model = ConversationListModel(store)
    qtmodeltester.check(model)
    renamed = []
    model.sig_renamed.connect(lambda *args: renamed.append(args))
    row = model.row_of(ids["Four days old"])
    assert model.setData(model.index(row, 0), "  Trip   notes ", Qt.ItemDataRole.EditRole)
    assert model.index(row, 0).data() == "Trip notes" and renamed == [(ids["Four days old"], "Trip notes")]
    assert not model.setData(model.index(row, 0), "   ", Qt.ItemDataRole.EditRole)
    stored = {c.id: c for c in store.list_conversations()}
    assert stored[ids["Four days old"]].title == "Trip notes"
    assert _titles(ConversationListModel(store)) == _titles(model)  # updated_at was put back
    assert store.search("trip")[0].conversation_id == ids["Four days old"]
    store.close()


@pytest.fixture
def seeded(make_window):
    ids = seed_app_store(_seed_days)
    window = make_window()
    return window, ids


def test_the_newest_conversation_opens_selected(seeded):
    window, ids = seeded
    sidebar = window.history.sidebar
    assert window.controller.session.conversation.id == ids["Fresh"]
    assert sidebar.list_view.currentIndex().data(Model.ConversationIdRole) == ids["Fresh"]
    assert window.title_label.text() == "Fresh"


def test_selecting_a_row_loads_it_into_the_transcript(qtbot, seeded):
    window, ids = seeded
    view = window.history.sidebar.list_view
    row = window.history.conversations.row_of(ids["Last month"])
    rect = view.visualRect(view.model().index(row, 0))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.controller.session.conversation.id == ids["Last month"]
    assert [m.text for m in window.controller.model.messages()] == ["Last month question", "Last month answer"]
    assert window.title_label.text() == "Last month"


def test_inline_rename_through_the_editor(qtbot, seeded):
    window, ids = seeded
    view = window.history.sidebar.list_view
    index = view.model().index(0, 0)
    view.setCurrentIndex(index)
    view.edit(index)
    editor = view.findChild(QLineEdit, "renameEditor")
    assert editor is not None and editor.text() == "Fresh"
    editor.setText("Fresh ideas")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: index.data() == "Fresh ideas")
    assert window.controller.session.conversation.title == "Fresh ideas"  # the open one: header and next save agree
    assert window.title_label.text() == "Fresh ideas"
    assert window.controller.session.store.load_conversation(ids["Fresh"]).title == "Fresh ideas"


def _answer_message_box(monkeypatch, button_text: str) -> list[str]:
    asked = []

    def fake_exec(box):
        asked.append(box.text())
        next(b for b in box.buttons() if b.text() == button_text).click()
        return 0

    monkeypatch.setattr(QMessageBox, "exec", fake_exec)
    return asked


def test_delete_asks_first_and_cancel_keeps_it(qtbot, seeded, monkeypatch):
    window, ids = seeded
    asked = _answer_message_box(monkeypatch, "Cancel")
    view = window.history.sidebar.list_view
    view.setCurrentIndex(view.model().index(window.history.conversations.row_of(ids["Four days old"]), 0))
    qtbot.keyClick(view, Qt.Key.Key_Delete)
    assert asked and "Four days old" in asked[0]
    assert window.controller.session.store.load_conversation(ids["Four days old"]) is not None
    assert window.history.conversations.rowCount() == 5


def test_delete_the_open_conversation_leaves_a_new_chat(qtbot, seeded, monkeypatch):
    window, ids = seeded
    _answer_message_box(monkeypatch, "Delete")
    view = window.history.sidebar.list_view
    qtbot.keyClick(view, Qt.Key.Key_Delete)  # the open one (Fresh) is current
    store = window.controller.session.store
    assert store.load_conversation(ids["Fresh"]) is None
    assert "Fresh" not in _titles(window.history.conversations)
    assert window.controller.session.conversation.messages == []
    assert window.title_label.text() == "New chat"
    assert not view.selectionModel().hasSelection()


def test_ctrl_n_starts_a_new_conversation(qtbot, seeded):
    window, _ids = seeded
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    qtbot.keyClick(window.composer.edit, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert window.controller.session.conversation.messages == []
    assert window.title_label.text() == "New chat" and window.controller.model.rowCount() == 0
    assert not window.history.sidebar.list_view.selectionModel().hasSelection()
    assert window.composer.edit.hasFocus()


def test_a_sent_conversation_appears_at_the_top_titled_by_its_first_message(qtbot, seeded, loopback_env):
    window, _ids = seeded
    loopback_env.enqueue("/v1/messages", sse_response(anthropic_text_reply("Sandwiches and lemonade.", pieces=4)))
    assert window.history.new_conversation()
    assert window.send("  Plan a picnic\n for Saturday  ")
    qtbot.waitUntil(lambda: _titles(window.history.conversations)[0] == "Plan a picnic for Saturday", timeout=5000)
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=10000)
    model = window.history.conversations
    assert model.rowCount() == 6 and model.index(0, 0).data(Model.SectionRole) == "Today"
    current = window.history.sidebar.list_view.currentIndex()
    assert current.row() == 0 and current.data(Model.ConversationIdRole) == window.controller.session.conversation.id
    assert model.index(0, 0).data(Model.TimeTextRole) == "just now"
    assert time.time() - model.index(0, 0).data(Model.UpdatedAtRole) < 30


def test_switching_while_a_reply_streams_leaves_it_running(qtbot, seeded, loopback_env):
    window, ids = seeded
    story = "word " * 60
    loopback_env.enqueue("/v1/messages", sse_response(anthropic_text_reply(story, pieces=60), delay=0.03))
    assert window.send("Tell me a long story")
    qtbot.waitUntil(lambda: window.controller.busy and window.controller.model.rowCount() == 4)
    assert window.history.open(ids["Last month"])
    assert window.controller.session.conversation.id == ids["Last month"]
    assert not window.controller.busy and window.controller.running(ids["Fresh"])
    assert window.composer.button.text() == "Send"  # this conversation has nothing running: it can be sent to
    qtbot.waitUntil(lambda: not window.controller.running(ids["Fresh"]), timeout=10000)
    assert [m.text for m in window.controller.model.messages()] == ["Last month question", "Last month answer"]
    assert window.history.open(ids["Fresh"])
    assert window.controller.model.messages()[-1].text.split() == story.split()
