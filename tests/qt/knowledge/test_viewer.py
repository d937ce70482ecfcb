"""The passage viewer on a real index: the file's passages in order as plain text with the cited one highlighted and
in view; the passage as it was found, with a note, when the file changed or left the index; Copy passage; Open in
default app only after a confirmation that shows the path; Esc closes."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QTextCursor
from PySide6.QtWidgets import QMessageBox

from desktop_copilot.core.knowledge.indexer import index_source
from desktop_copilot.qt.knowledge.viewer import PassageViewer
from tests.qt.knowledge.knowledge_support import cited, close_library, make_runtime, write_notes

FALLBACK_NOTE = "This file has changed since the reply, or is no longer indexed: showing the passage as it was found."


@pytest.fixture
def library(tmp_path):
    runtime = make_runtime()
    library = runtime.knowledge_library()
    library.add_source(write_notes(tmp_path / "notes"), "notes")
    index_source(library, library.source("notes"))
    yield library
    close_library(runtime)


@pytest.fixture
def viewer(qtbot):
    opened: list[str] = []
    made = PassageViewer(opener=lambda path: opened.append(path) or True)
    made.opened = opened
    qtbot.addWidget(made)
    made.resize(700, 360)  # short: the cited passage must be scrolled to
    return made


def highlighted_text(viewer: PassageViewer) -> str:
    (mark,) = viewer.body.extraSelections()
    return mark.cursor.selectedText().replace("\u2029", "\n")


def test_the_file_shows_with_the_cited_passage_highlighted_and_in_view(qtbot, viewer, library):
    passages = library.file_passages("notes", "guide.md")
    target = passages[-1]  # the last section: below the fold of a short viewer
    viewer.show_passage(cited(target), passages)
    qtbot.waitExposed(viewer)
    assert viewer.windowTitle() == "guide.md"
    assert viewer.path_label.toolTip() == str(target.file) and viewer.path_label.full_text.endswith("notes/guide.md")
    assert viewer.where_label.text() == f"Source “notes” · {target.location} · {target.heading}"
    assert viewer.note.isHidden()
    text = viewer.body.toPlainText()
    assert all(row.text in text for row in passages)
    assert text.index(passages[1].text) < text.index(passages[2].text) < text.index(target.text)
    assert highlighted_text(viewer) == target.text
    qtbot.waitUntil(lambda: viewer.body.verticalScrollBar().value() > 0)
    start = QTextCursor(viewer.body.document())
    start.setPosition(viewer.highlighted[0])
    assert viewer.body.viewport().rect().contains(viewer.body.cursorRect(start).center())
    assert viewer.body.isReadOnly() and viewer.open_button.isEnabled()


def test_a_file_gone_from_the_index_shows_the_passage_as_found_with_a_note(qtbot, viewer, library, tmp_path):
    passages = library.file_passages("notes", "guide.md")
    found = cited(passages[2])
    (tmp_path / "notes" / "guide.md").unlink()
    index_source(library, library.source("notes"))
    assert library.file_passages("notes", "guide.md") == []
    viewer.show_passage(found, [])
    assert viewer.body.toPlainText() == found.text
    assert not viewer.note.isHidden() and viewer.note.text() == FALLBACK_NOTE
    assert viewer.body.extraSelections() == [] and viewer.highlighted is None
    assert not viewer.open_button.isEnabled()  # the file is not there


def test_a_changed_file_shows_the_passage_as_found(qtbot, viewer, library, tmp_path):
    found = cited(library.file_passages("notes", "todo.txt")[0])
    (tmp_path / "notes" / "todo.txt").write_text("Something else entirely.\n", encoding="utf-8")
    index_source(library, library.source("notes"))
    viewer.show_passage(found, library.file_passages("notes", "todo.txt"))
    assert viewer.body.toPlainText() == found.text and not viewer.note.isHidden()
    assert viewer.open_button.isEnabled()  # the file is there, only different


def test_a_passage_is_shown_as_text_never_rendered(qtbot, viewer, library):
    row = library.file_passages("notes", "todo.txt")[0]
    hostile = cited(row).__class__(1, "notes", "evil.html", "/nowhere/evil.html", "line 1",
                                   '<img src="file:///etc/passwd"><b>bold</b> &amp; <a href="x">link</a>')
    viewer.show_passage(hostile, [])
    assert viewer.body.toPlainText() == hostile.text
    assert viewer.windowTitle() == "evil.html"


def test_open_in_default_app_asks_first_with_the_full_path(qtbot, viewer, library):
    passages = library.file_passages("notes", "todo.txt")
    viewer.show_passage(cited(passages[0]), passages)
    path = str(passages[0].file)
    viewer.open_button.click()
    box = viewer.open_box
    assert isinstance(box, QMessageBox) and box.isVisible()
    assert box.text() == f"Open {path} in its default app?"
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert viewer.opened == []
    viewer.open_button.click()
    next(b for b in viewer.open_box.buttons() if b.text() == "Open").click()
    assert viewer.opened == [path]


def test_copy_passage_and_esc_closes(qtbot, viewer, library):
    passages = library.file_passages("notes", "guide.md")
    viewer.show_passage(cited(passages[1]), passages)
    qtbot.waitExposed(viewer)
    viewer.copy_button.click()
    assert QGuiApplication.clipboard().text() == passages[1].text
    assert viewer.copy_button.text() == "Copied"
    viewer.body.setFocus()
    qtbot.keyClick(viewer.body, Qt.Key.Key_Escape)
    assert not viewer.isVisible()
