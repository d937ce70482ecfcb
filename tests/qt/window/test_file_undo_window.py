"""Undo file changes in the real window: a reply from the loopback Anthropic server writes and edits workspace files
(its calls approved on the cards), its context menu offers "Undo file changes…", which asks listing the files and then
puts them back; a file changed since shows the diff in a dialog and nothing is put back."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QApplication, QMenu, QMessageBox

from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.config.settings import Settings
from desktop_copilot.core.conversation.models import Role
from desktop_copilot.core.runtime import Runtime
from tests.support.loopback import anthropic_text_reply, anthropic_tool_reply, sse_response

UNDO = "Undo file changes…"


@pytest.fixture
def workspace_window(tmp_path, loopback_env, make_window):
    folder = tmp_path / "workspace"
    folder.mkdir()
    (folder / "readme.md").write_text("# Project\n\nOld words.\n", encoding="utf-8")
    runtime = Runtime(AppPaths.resolve().ensure(), AppConfig.from_environment())
    runtime.settings = Settings(workspace_folder=str(folder))
    return make_window(runtime), folder


def menu_actions(window, message_id: str) -> dict:
    """The transcript's context-menu entries for `message_id`'s first row, by text."""
    model = window.controller.model
    menu = QMenu(window.view)
    for extend in window.view.menu_extenders:  # as the view builds its context menu
        extend(menu, model.index(model.row_of(message_id), 0))
    return {action.text(): action for action in menu.actions()}


def messages(window, role: Role) -> list:
    return [m for m in window.controller.model.messages() if m.role is role]


def reply_changing_files(qtbot, window, loopback) -> None:
    loopback.enqueue(
        "/v1/messages",
        sse_response(anthropic_tool_reply([
            ("toolu_1", "write_file", {"path": "notes/todo.txt", "content": "buy milk\n"}),
            ("toolu_2", "edit_file", {"path": "readme.md", "old_text": "Old words.", "new_text": "New words."}),
        ])),
        sse_response(anthropic_text_reply("I wrote the notes and updated the readme.")),
    )
    assert window.send("write my notes and update the readme")
    qtbot.waitUntil(lambda: len(window.controller.waiting_calls) == 2, timeout=15000)
    for call_id in list(window.controller.waiting_calls):
        assert window.controller.decide(call_id, "allow_once")
    qtbot.waitUntil(lambda: not window.controller.busy and len(messages(window, Role.ASSISTANT)) == 2, timeout=15000)


def answer_the_question(button_text: str | None, seen: list) -> None:
    """Clicks `button_text` (None: Cancel) on the question once it is open; keeps the box's texts in `seen`."""
    box = QApplication.activeModalWidget()
    if not isinstance(box, QMessageBox):
        QTimer.singleShot(20, lambda: answer_the_question(button_text, seen))
        return
    seen.append((box.text(), box.informativeText()))
    if button_text is None:
        box.button(QMessageBox.StandardButton.Cancel).click()
    else:
        next(b for b in box.buttons() if b.text() == button_text).click()


def test_the_reply_that_wrote_files_offers_undo_which_asks_and_puts_them_back(qtbot, loopback_env, workspace_window):
    window, folder = workspace_window
    reply_changing_files(qtbot, window, loopback_env)
    assert (folder / "notes" / "todo.txt").read_text(encoding="utf-8") == "buy milk\n"
    assert (folder / "readme.md").read_text(encoding="utf-8") == "# Project\n\nNew words.\n"
    tool_round, answer = messages(window, Role.ASSISTANT)
    assert UNDO not in menu_actions(window, messages(window, Role.USER)[0].id)
    assert UNDO in menu_actions(window, answer.id)  # the whole reply: its tool round and its answer
    action = menu_actions(window, tool_round.id)[UNDO]
    assert action.isEnabled()

    seen: list = []
    QTimer.singleShot(0, lambda: answer_the_question(None, seen))
    action.trigger()
    assert (folder / "readme.md").read_text(encoding="utf-8") == "# Project\n\nNew words.\n"  # cancelled: as it was

    QTimer.singleShot(0, lambda: answer_the_question("Undo changes", seen))
    menu_actions(window, answer.id)[UNDO].trigger()

    question, listed = seen[-1]
    assert question == "Put back the files this reply changed, as they were before it?"
    assert "readme.md — put back as it was" in listed and "notes/todo.txt — removed (the reply created it)" in listed
    assert not (folder / "notes" / "todo.txt").exists()
    assert (folder / "readme.md").read_text(encoding="utf-8") == "# Project\n\nOld words.\n"
    assert window.statusBar().currentMessage() == "Undid this reply's changes to 2 files."
    assert UNDO not in menu_actions(window, answer.id)  # nothing left to undo


def test_a_file_changed_since_shows_the_diff_and_puts_nothing_back(qtbot, loopback_env, workspace_window, monkeypatch):
    window, folder = workspace_window
    reply_changing_files(qtbot, window, loopback_env)
    (folder / "readme.md").write_text("# Project\n\nNew words.\nA line of my own.\n", encoding="utf-8")
    monkeypatch.setattr(window.file_undo, "confirm", lambda files: pytest.fail("asked although nothing can be undone"))

    menu_actions(window, messages(window, Role.ASSISTANT)[-1].id)[UNDO].trigger()

    dialog = window.file_undo.dialog
    qtbot.waitUntil(lambda: dialog.isVisible(), timeout=5000)
    assert "readme.md" in dialog.label.text()
    assert dialog.diff.isReadOnly() and "+A line of my own." in dialog.diff.toPlainText()
    assert dialog.diff.font().family() == QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()
    assert (folder / "notes" / "todo.txt").exists()  # nothing was put back
    assert (folder / "readme.md").read_text(encoding="utf-8").endswith("A line of my own.\n")
    dialog.reject()
    assert UNDO in menu_actions(window, messages(window, Role.ASSISTANT)[-1].id)  # still there to undo later
