"""Search in the sidebar: Ctrl+K / Ctrl+F focus the field, typing is debounced into Store.search, English
and Chinese queries find their messages with the match in bold, and a click jumps to the message."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from desktop_copilot.core.storage.search import MARK_END, MARK_START
from desktop_copilot.core.storage.search_index import SearchHit
from desktop_copilot.core.storage.store import Store
from desktop_copilot.qt.transcript.message_jump import RowFlash
from desktop_copilot.qt.history.search_results import SearchResultsModel, readable_snippet, snippet_html
from tests.support.history_seed import seed_app_store, seed_conversation


def _seed(store: Store) -> dict[str, str]:
    long_turns = [(f"Question {n} about gardening", f"Answer {n}: water the plants in the morning.") for n in range(40)]
    long_turns[3] = ("What makes asyncio event loops tick?", "The selector waits on sockets; callbacks run in turn.")
    return {
        "weather": seed_conversation(store, "Hong Kong trip", [("今天香港天气怎么样", "多云，有一两阵骤雨。")], age_days=0.5).id,
        "garden": seed_conversation(store, "Garden diary", long_turns, age_days=2).id,
        "recipes": seed_conversation(store, "Dumplings", [("How do I fold dumplings?", "Pleat the edge, 饺子 need a tight seal.")]).id,
    }


@pytest.fixture
def searchable(make_window):
    ids = seed_app_store(_seed)
    return make_window(), ids


def _search(qtbot, window, text: str) -> list[SearchHit]:
    sidebar = window.history.sidebar
    sidebar.search_field.setText(text)  # keyClicks asserts on non-ASCII characters
    qtbot.waitUntil(lambda: sidebar.showing_results() and window.history.runner.query == text and not window.history.runner.pending())
    return [sidebar.results.hit_at(row) for row in range(sidebar.results.rowCount())]


def test_snippet_markers_become_bold_and_text_is_escaped():
    snippet = f"a <tag> & {MARK_START}天{MARK_END}{MARK_START}气{MARK_END} 怎么样 ？ **bold**"
    assert snippet_html(snippet) == "a &lt;tag&gt; &amp; <b>天气</b> 怎么样？bold"
    assert readable_snippet("x\n  y") == "x y"


def test_results_model_passes_the_model_tester(qtmodeltester):
    model = SearchResultsModel()
    qtmodeltester.check(model)
    model.set_hits([SearchHit("c1", "", "Title", f"{MARK_START}Title{MARK_END}"), SearchHit("c1", "m1", "Title", "x"),
                    SearchHit("c2", "", "Other", "Other")])
    assert [(h.conversation_id, h.message_id) for h in map(model.hit_at, range(model.rowCount()))] == [("c1", "m1"), ("c2", "")]


def test_ctrl_k_and_ctrl_f_focus_the_search_field(qtbot, searchable):
    window, _ids = searchable
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    field = window.history.sidebar.search_field
    for key in (Qt.Key.Key_K, Qt.Key.Key_F):
        window.composer.focus()
        assert not field.hasFocus()
        qtbot.keyClick(window.composer.edit, key, Qt.KeyboardModifier.ControlModifier)
        assert field.hasFocus()


def test_typing_is_debounced_into_one_search(qtbot, searchable, monkeypatch):
    window, _ids = searchable
    store = window.controller.session.store
    queries = []
    real_search = store.search
    monkeypatch.setattr(store, "search", lambda q, *a, **k: queries.append(q) or real_search(q, *a, **k))
    qtbot.keyClicks(window.history.sidebar.search_field, "asyncio")
    qtbot.waitUntil(lambda: window.history.sidebar.showing_results())
    assert queries == ["asyncio"]


def test_english_query_finds_the_message_with_the_match_in_bold(qtbot, searchable):
    window, ids = searchable
    hits = _search(qtbot, window, "asyncio")
    assert [(h.conversation_id, h.title) for h in hits] == [(ids["garden"], "Garden diary")]
    html = window.history.sidebar.results.index(0, 0).data(SearchResultsModel.SnippetHtmlRole)
    assert "<b>asyncio</b>" in html
    assert window.history.sidebar.results_label.text() == "1 result"


def test_chinese_query_finds_a_word_inside_a_sentence(qtbot, searchable):
    window, ids = searchable
    hits = _search(qtbot, window, "天气")
    assert [h.conversation_id for h in hits] == [ids["weather"]]
    assert "<b>天气</b>" in window.history.sidebar.results.index(0, 0).data(SearchResultsModel.SnippetHtmlRole)
    assert [h.conversation_id for h in _search(qtbot, window, "饺子")] == [ids["recipes"]]


def test_no_results_and_escape_goes_back_to_the_list(qtbot, searchable):
    window, _ids = searchable
    sidebar = window.history.sidebar
    assert _search(qtbot, window, "zebra") == []
    assert sidebar.results_label.text() == "No results for “zebra”"
    qtbot.keyClick(sidebar.search_field, Qt.Key.Key_Escape)
    assert sidebar.search_field.text() == "" and not sidebar.showing_results()


def test_clicking_a_result_opens_the_conversation_and_jumps_to_the_message(qtbot, searchable):
    window, ids = searchable
    assert window.controller.session.conversation.id == ids["recipes"]
    hits = _search(qtbot, window, "selector")
    view = window.history.sidebar.results_view
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(view.model().index(0, 0)).center())
    assert window.controller.session.conversation.id == ids["garden"]
    assert window.title_label.text() == "Garden diary"
    transcript = window.view
    row = transcript.model().row_of(hits[0].message_id)
    assert row == 7  # the answer of turn 3, far above the end of an 80-message conversation
    qtbot.waitUntil(lambda: transcript.viewport().rect().intersects(transcript.visualRect(transcript.model().index(row, 0))))
    assert transcript.verticalScrollBar().value() < transcript.verticalScrollBar().maximum()
    flashes = transcript.viewport().findChildren(RowFlash)
    assert len(flashes) == 1 and flashes[0].index.row() == row and flashes[0].isVisible()
    assert window.history.sidebar.showing_results()  # the results stay for the next click


def test_return_in_the_field_opens_the_first_result(qtbot, searchable):
    window, ids = searchable
    window.history.sidebar.search_field.setText("天气")
    qtbot.keyClick(window.history.sidebar.search_field, Qt.Key.Key_Return)
    assert window.controller.session.conversation.id == ids["weather"]
