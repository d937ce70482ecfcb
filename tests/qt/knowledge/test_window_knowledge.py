"""Knowledge in the real window: indexing starts a few seconds after the window shows, and only when a knowledge
database is there (no database is made, no watcher started otherwise); its progress shows in the status bar; a click
on a cited source under a reply opens the passage viewer on that passage; closing the window stops the indexing."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt

from desktop_copilot.core.conversation.models import Conversation
from desktop_copilot.core.knowledge.indexer import index_source
from desktop_copilot.core.knowledge.library import KnowledgeLibrary
from desktop_copilot.qt.knowledge.status import KnowledgeStatus
from desktop_copilot.qt.settings.entry import open_settings
from desktop_copilot.qt.window import knowledge_part
from tests.qt.knowledge.knowledge_support import close_library, make_runtime, reply_citing, write_notes

WAIT_MS = 10_000


@pytest.fixture(autouse=True)
def quick_start(monkeypatch):
    monkeypatch.setattr(knowledge_part, "START_DELAY_MS", 200)


@pytest.fixture
def runtime():
    made = make_runtime()
    yield made
    close_library(made)


def indexed_notes(runtime, folder) -> KnowledgeLibrary:
    library = runtime.knowledge_library()
    library.add_source(write_notes(folder), "notes")
    index_source(library, library.source("notes"))
    return library


def link_spots(view) -> dict[str, QPoint]:
    """Where each link of the transcript is (viewport coordinates), by its target."""
    view.viewport().repaint()
    spots = {}
    model = view.model()
    for row in range(model.rowCount()):
        index = model.index(row, 0)
        rect = view.visualRect(index)
        for y in range(max(rect.top(), 0), min(rect.bottom(), view.viewport().height()), 3):
            for x in range(rect.left(), rect.right(), 3):
                hit = view.delegate.link_hit(index, rect, QPoint(x, y))
                if hit and hit.href not in spots:
                    spots[hit.href] = QPoint(x, y)
    return spots


def test_without_a_database_nothing_starts_and_nothing_is_made(qtbot, loopback_env, make_window, runtime):
    window = make_window(runtime)
    qtbot.wait(600)
    assert window.knowledge.indexing is None and window.knowledge.status is None
    assert not (runtime.paths.data_dir / "knowledge.sqlite3").exists()


def test_with_a_database_indexing_starts_after_the_window_shows_and_follows_changes(qtbot, loopback_env, make_window,
                                                                                    runtime, tmp_path):
    library = indexed_notes(runtime, tmp_path / "notes")
    (tmp_path / "notes" / "late.md").write_text("# Late\n\nAdded while the app was closed.\n", encoding="utf-8")
    window = make_window(runtime)
    assert window.knowledge.indexing is None  # not with the window: a little later
    qtbot.waitUntil(lambda: window.knowledge.indexing is not None and window.knowledge.indexing.started, timeout=WAIT_MS)
    indexing = window.knowledge.indexing
    status = window.statusBar().findChild(KnowledgeStatus)
    assert status is window.knowledge.status
    qtbot.waitUntil(lambda: library.file_passages("notes", "late.md") != [] and not indexing.busy, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not indexing.chores_pending, timeout=WAIT_MS)
    seen = []
    indexing.sig_progress.connect(lambda p: seen.append((not status.isHidden(), status.label.text())))
    (tmp_path / "notes" / "later.md").write_text("# Later\n\nWritten while the app runs.\n", encoding="utf-8")
    qtbot.waitUntil(lambda: library.file_passages("notes", "later.md") != [], timeout=WAIT_MS)
    qtbot.waitUntil(lambda: seen and not seen[-1][0], timeout=WAIT_MS)
    assert (True, "Indexing “notes” · 0 / 1 files") in seen
    window.close()
    assert indexing._stopped and indexing.service._thread is None


def test_adding_a_source_in_settings_starts_the_window_indexing(qtbot, loopback_env, make_window, runtime, tmp_path):
    window = make_window(runtime)
    dialog = open_settings(window, "knowledge")
    page = dialog.knowledge_page
    assert page.indexing is window.knowledge.indexing and not page.owns_indexing
    assert not page.indexing.started and not (runtime.paths.data_dir / "knowledge.sqlite3").exists()
    page.add_path(str(write_notes(tmp_path / "notes")))
    assert page.indexing.started
    qtbot.waitUntil(lambda: page.table.item(0, 5).text() == "Indexed just now" and not page.indexing.busy, timeout=WAIT_MS)
    assert runtime.has_knowledge()
    assert "search_knowledge" in {tool.name for tool in window.tools_menu.available()}
    window.knowledge.status.sig_clicked.emit()  # the indicator leads to this page
    assert dialog.current_page() == "knowledge"
    dialog.reject()
    assert not page.indexing._stopped  # the window's indexing outlives the dialog


def test_clicking_a_cited_source_opens_the_viewer_on_that_passage(qtbot, loopback_env, make_window, runtime, tmp_path):
    library = indexed_notes(runtime, tmp_path / "notes")
    guide = library.file_passages("notes", "guide.md")
    todo = library.file_passages("notes", "todo.txt")
    messages = reply_citing([todo[0], guide[2]], "Follow the usage section [2].")
    window = make_window(runtime)
    window.knowledge.opener = lambda path: True
    window.controller.set_conversation(Conversation(messages=messages))
    qtbot.waitUntil(lambda: bool(link_spots(window.view)))  # laid out and painted
    spots = link_spots(window.view)
    href = f"dc-knowledge:{messages[2].id}/2"
    assert set(spots) == {href}  # only the cited passage is listed
    qtbot.mouseClick(window.view.viewport(), Qt.MouseButton.LeftButton, pos=spots[href])
    viewer = window.knowledge.viewer
    qtbot.waitUntil(lambda: viewer is not None and viewer.isVisible())
    assert viewer.windowTitle() == "guide.md" and viewer.note.isHidden()
    assert viewer.body.extraSelections()[0].cursor.selectedText().replace("\u2029", "\n") == guide[2].text
    assert window.knowledge.open_passage(messages[2].id, 1) is viewer  # one viewer, reused
    assert viewer.windowTitle() == "todo.txt"
    assert window.knowledge.open_passage(messages[2].id, 9) is None  # no such passage: nothing opens
    assert window.knowledge.open_passage("no-such-message", 1) is None
