"""Settings ▸ Knowledge with real widgets, real files and a real SQLite index: a folder added through the chooser is
indexed in the background while the page and the status bar indicator follow its progress, then its counts show;
files left out are listed with their reasons; a file changed on disk is indexed again by the watcher; switching off
and removing act at once (the files on disk stay); the embedding model is saved with the settings on OK/Apply."""

from __future__ import annotations

import json

import pytest
from PySide6.QtWidgets import QMessageBox

from desktop_copilot.core.bootstrap import make_editable
from desktop_copilot.qt.knowledge.status import KnowledgeStatus
from desktop_copilot.qt.settings.dialog import SettingsDialog
from desktop_copilot.qt.settings.knowledge_page import FILES, LEFT_OUT, PASSAGES, STATE, KnowledgePage
from tests.qt.conftest import run_async
from tests.qt.knowledge.knowledge_support import close_library, make_runtime, write_notes

WAIT_MS = 10_000


@pytest.fixture
def runtime():
    made = make_runtime()
    yield made
    close_library(made)


@pytest.fixture
def page(qtbot, runtime):
    made = KnowledgePage(runtime)
    qtbot.addWidget(made)
    made.resize(680, 720)
    made.show()
    yield made
    made.release()


def cells(page: KnowledgePage, row: int = 0) -> tuple[str, ...]:
    return tuple(page.table.item(row, column).text() for column in (FILES, PASSAGES, LEFT_OUT, STATE))


def add_through_the_chooser(qtbot, page: KnowledgePage, folder) -> None:
    page.add_folder_button.click()
    chooser = page.file_dialog
    qtbot.waitUntil(chooser.isVisible)
    chooser.setDirectory(str(folder.parent))
    chooser.selectFile(str(folder))
    chooser.accept()
    qtbot.waitUntil(lambda: not chooser.isVisible())


def wait_indexed(qtbot, page: KnowledgePage, row: int = 0) -> None:
    qtbot.waitUntil(lambda: page.table.rowCount() > row and cells(page, row)[3] == "Indexed just now" and not page.indexing.busy,
                    timeout=WAIT_MS)


def test_a_folder_added_is_indexed_in_the_background_with_live_progress_then_its_counts(qtbot, page, runtime, tmp_path):
    notes = write_notes(tmp_path / "notes")
    database = runtime.paths.data_dir / "knowledge.sqlite3"
    assert page.table.rowCount() == 0 and not database.exists()  # opening the page makes no database
    status = KnowledgeStatus(page.indexing)
    qtbot.addWidget(status)
    seen_on_page, seen_in_status = [], []
    page.indexing.sig_progress.connect(lambda p: seen_on_page.append(cells(page)[3]))  # after the page's own slot
    page.indexing.sig_progress.connect(lambda p: seen_in_status.append((not status.isHidden(), status.label.text(),
                                                                        status.bar.value(), status.bar.maximum())))
    add_through_the_chooser(qtbot, page, notes)
    assert page.indexing.started and database.exists()
    wait_indexed(qtbot, page)
    assert "Indexing 0%" in seen_on_page
    assert (True, "Indexing “notes” · 0 / 3 files", 0, 3) in seen_in_status
    assert seen_in_status[-1][0] is False  # hidden once the run ended without problems
    passages = runtime.knowledge_library().source("notes").passages
    assert passages >= 6  # the guide's sections, the to-do list, the other note
    assert cells(page) == ("3", str(passages), "0", "Indexed just now")
    assert page.table.cellWidget(0, 1).name.text() == "notes"
    assert page.table.cellWidget(0, 1).path.toolTip() == str(notes.resolve())
    assert page.selected().name == "notes"
    assert page.problems_title.text() == "No file of “notes” was left out."
    assert runtime.has_knowledge(fresh=True)


def test_files_left_out_are_listed_with_their_reasons_and_said_in_the_status_bar(qtbot, page, runtime, tmp_path):
    notes = write_notes(tmp_path / "notes", left_out=True)
    status = KnowledgeStatus(page.indexing)
    qtbot.addWidget(status)
    page.add_path(str(notes))
    wait_indexed(qtbot, page)
    assert cells(page) == ("3", str(runtime.knowledge_library().source("notes").passages), "2", "Indexed just now")
    assert page.problems_title.text() == "Files left out of “notes”"
    assert [page.problems.item(i).text() for i in range(page.problems.count())] == [
        ".env — may hold secrets (left out on purpose)", "broken.pdf — damaged PDF: not a readable PDF file"]
    assert not status.isHidden() and status.label.text() == "“notes”: 2 files left out"
    assert status.bar.isHidden()


def test_a_file_changed_on_disk_is_indexed_again_by_the_watcher(qtbot, page, runtime, tmp_path):
    notes = write_notes(tmp_path / "notes")
    page.add_path(str(notes))
    wait_indexed(qtbot, page)
    qtbot.waitUntil(lambda: not page.indexing.chores_pending, timeout=WAIT_MS)  # the folder is watched
    library = runtime.knowledge_library()
    before = library.source("notes").passages
    (notes / "deep" / "new.md").write_text("# Rye\n\nRye bread wants a longer proof.\n", encoding="utf-8")
    (notes / "todo.txt").write_text("Buy rye flour.\n", encoding="utf-8")
    qtbot.waitUntil(lambda: library.file_passages("notes", "deep/new.md") != [], timeout=WAIT_MS)
    qtbot.waitUntil(lambda: cells(page)[:2] == ("4", str(before + 1)) and not page.indexing.busy, timeout=WAIT_MS)
    assert [row.text for row in library.file_passages("notes", "todo.txt")] == ["Buy rye flour."]


def test_switching_a_source_off_and_removing_it_act_at_once_and_leave_the_files(qtbot, page, runtime, tmp_path):
    notes = write_notes(tmp_path / "notes")
    page.add_path(str(notes))
    wait_indexed(qtbot, page)
    switch = page.switch_of(0)
    assert switch.isChecked()
    switch.click()
    assert not runtime.knowledge_library().source("notes").enabled
    assert not runtime.has_knowledge()  # search_knowledge is no longer offered
    switch.click()
    assert runtime.has_knowledge()

    page.table.selectRow(0)
    box = page.ask_to_remove()
    assert "files on disk are not touched" in box.text()
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert page.table.rowCount() == 1
    box = page.ask_to_remove()
    next(b for b in box.buttons() if b.text() == "Remove").click()
    qtbot.waitUntil(lambda: page.table.rowCount() == 0, timeout=WAIT_MS)
    assert runtime.knowledge_library().sources() == [] and not runtime.has_knowledge(fresh=True)
    assert (notes / "guide.md").exists() and (notes / "deep" / "more.md").exists()
    assert not page.remove_button.isEnabled()


def test_a_second_folder_of_the_same_name_gets_its_own_name_and_a_folder_added_twice_is_refused(qtbot, page, tmp_path):
    first = write_notes(tmp_path / "a" / "notes")
    second = write_notes(tmp_path / "b" / "notes")
    page.add_path(str(first))
    page.add_path(str(second))
    qtbot.waitUntil(lambda: page.table.rowCount() == 2 and not page.indexing.busy, timeout=WAIT_MS)
    assert [source.name for source in page.sources] == ["notes", "notes 2"]
    assert page.add_path(str(first)) is None
    assert page.message.isVisible() and "is already the source “notes”" in page.message.text()
    assert page.message.property("kind") == "error"


def test_the_embedding_model_is_saved_with_the_settings(qtbot, qasync_loop, runtime, tmp_path):
    dialog = SettingsDialog(make_editable(runtime))
    qtbot.addWidget(dialog)
    dialog.show_page("knowledge")
    page = dialog.knowledge_page
    assert page.owns_indexing  # no window: the page keeps its own
    group = page.embedding
    assert group.wire == "" and not group.model_edit.isEnabled()
    group.wire_box.setCurrentIndex(group.wire_box.findData("ollama"))
    assert (group.model_edit.text(), group.url_edit.text()) == ("nomic-embed-text", "http://127.0.0.1:11434")
    group.wire_box.setCurrentIndex(group.wire_box.findData("openai"))
    assert (group.model_edit.text(), group.url_edit.text()) == ("text-embedding-3-small", "https://api.openai.com/v1")
    group.model_edit.setText("")
    assert run_async(qtbot, dialog.apply()) is False
    assert dialog.current_page() == "knowledge" and "name the embedding model" in dialog.status.text()
    group.model_edit.setText("text-embedding-3-large")
    assert run_async(qtbot, dialog.apply()) is True
    saved = json.loads(runtime.paths.settings_file.read_text())["knowledge_embedding"]
    assert saved == {"wire": "openai", "model": "text-embedding-3-large", "base_url": "https://api.openai.com/v1",
                     "key_name": "openai"}
    group.wire_box.setCurrentIndex(group.wire_box.findData("gemini"))
    assert group.url_edit.text() == "https://generativelanguage.googleapis.com/v1beta"
    group.wire_box.setCurrentIndex(group.wire_box.findData("openai"))
    assert group.model_edit.text() == "text-embedding-3-large"  # what was typed comes back
    group.wire_box.setCurrentIndex(0)
    assert run_async(qtbot, dialog.apply()) is True
    assert runtime.settings.knowledge_embedding is None
    dialog.reject()


def test_a_new_embedding_model_embeds_every_source_and_says_so(qtbot, qasync_loop, runtime, tmp_path):
    embedded = []

    def embed(name: str) -> str:  # the runtime's pass, without a model server
        if runtime.settings.knowledge_embedding is None:
            return ""
        embedded.append(name)
        return "Embedded 6 passages with nomic-embed-text (0 already embedded)."

    runtime.embed_knowledge = embed
    dialog = SettingsDialog(make_editable(runtime))
    qtbot.addWidget(dialog)
    page = dialog.knowledge_page
    status = KnowledgeStatus(page.indexing)
    qtbot.addWidget(status)
    page.add_path(str(write_notes(tmp_path / "notes")))
    wait_indexed(qtbot, page)
    assert embedded == [] and page.message.isHidden()
    states = []
    page.indexing.sig_embedding.connect(lambda name, done, message: states.append((done, cells(page)[3], status.label.text())))
    group = page.embedding
    group.wire_box.setCurrentIndex(group.wire_box.findData("ollama"))
    assert run_async(qtbot, dialog.apply()) is True
    qtbot.waitUntil(lambda: embedded == ["notes"] and not page.indexing.busy, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: len(states) == 2)
    assert states[0] == (False, "Embedding…", "Embedding the passages of “notes”…")
    assert states[1] == (True, "Indexed just now", "“notes”: Embedded 6 passages with nomic-embed-text (0 already embedded).")
    assert page.message.text() == "Embedded 6 passages with nomic-embed-text (0 already embedded)."
    assert run_async(qtbot, dialog.apply()) is True
    assert embedded == ["notes"]  # the same model again: nothing to embed again
    dialog.reject()
