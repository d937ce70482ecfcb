"""The menu bar of the real window: File keeps the history's entries and Settings…, ends with Quit; Edit works on the
focused widget (text fields and the conversation list); Find in chats, the conversation list toggle, Usage…, the
shortcuts dialog, Open log folder and About."""

from __future__ import annotations

import sys
import types
from email.message import Message

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QKeySequence

from desktop_copilot import __version__
from desktop_copilot.qt.window.menus import AboutDialog, project_url
from desktop_copilot.qt.window.shortcuts_dialog import ShortcutsDialog
from tests.support.history_seed import seed_app_store, seed_conversation

USAGE_MODULE = "desktop_copilot.qt.usage.usage_view"


def menus(window) -> dict:
    return {a.text().replace("&", ""): a.menu() for a in window.menuBar().actions() if a.menu() is not None}


def texts(menu) -> list[str]:
    return [a.text().replace("&", "") for a in menu.actions() if not a.isSeparator()]


@pytest.fixture
def clipboard():
    board = QGuiApplication.clipboard()
    board.setText("")
    return board


def test_the_menu_bar_has_file_edit_view_and_help_in_that_order(make_window):
    window = make_window()
    assert list(menus(window)) == ["File", "Edit", "View", "Help"]
    assert [m.objectName() for m in menus(window).values()] == ["fileMenu", "editMenu", "viewMenu", "helpMenu"]


def test_file_keeps_the_history_entries_then_settings_and_ends_with_quit(make_window):
    window = make_window()
    file_texts = texts(menus(window)["File"])
    assert file_texts[0] == "New conversation" and "Import conversations…" in file_texts
    assert file_texts[-2:] == ["Settings…", "Quit"]
    assert window.menus.quit_action.shortcut() == QKeySequence("Ctrl+Q")
    assert window.history.file_actions.new_action.shortcut() == QKeySequence("Ctrl+N")
    assert len([a for a in window.actions() if a.objectName() == "settingsAction"]) == 1  # installed once


def test_quit_closes_the_window(qtbot, make_window):
    window = make_window()
    with qtbot.waitSignal(window.sig_closed, timeout=2000):
        window.menus.quit_action.trigger()
    assert not window.isVisible()


def test_edit_commands_work_on_the_message_box(make_window, clipboard):
    window = make_window()
    edit = window.composer.edit
    edit.setFocus()
    edit.setPlainText("first draft")
    actions = window.menus.edit_actions
    actions["selectAll"].trigger()
    assert edit.textCursor().selectedText() == "first draft"
    actions["copy"].trigger()
    assert clipboard.text() == "first draft"
    actions["cut"].trigger()
    assert edit.toPlainText() == ""
    actions["paste"].trigger()
    actions["paste"].trigger()
    assert edit.toPlainText() == "first draftfirst draft"
    actions["undo"].trigger()
    assert edit.toPlainText() == "first draft"
    actions["redo"].trigger()
    assert edit.toPlainText() == "first draftfirst draft"


def test_edit_commands_work_on_the_search_field(make_window, clipboard):
    window = make_window()
    field = window.history.sidebar.search_field
    field.setFocus()
    clipboard.setText("asyncio")
    window.menus.edit_actions["paste"].trigger()
    assert field.text() == "asyncio"
    window.menus.edit_actions["selectAll"].trigger()
    assert field.selectedText() == "asyncio"


def test_copy_in_the_conversation_list_copies_the_title(make_window, clipboard):
    """Widgets other than text fields get the key itself: the list copies its current row, as on Ctrl+C."""
    seed_app_store(lambda store: seed_conversation(store, "Trip to Florence", [("q", "a")]))
    window = make_window()
    window.history.sidebar.list_view.setFocus()
    assert window.menus.run_edit_command("copy")
    assert clipboard.text() == "Trip to Florence"


def test_the_edit_menu_offers_only_what_the_focused_field_can_do(make_window, clipboard):
    window = make_window()
    edit = window.composer.edit
    edit.setFocus()
    edit.insertPlainText("hello")  # as typed: undoable
    menu = menus(window)["Edit"]
    menu.aboutToShow.emit()
    enabled = {name: action.isEnabled() for name, action in window.menus.edit_actions.items()}
    assert enabled == {"undo": True, "redo": False, "cut": False, "copy": False, "paste": False, "selectAll": True}
    assert not window.menus.run_edit_command("copy")  # nothing selected: nothing happens
    edit.selectAll()
    clipboard.setText("x")
    menu.aboutToShow.emit()
    assert window.menus.edit_actions["copy"].isEnabled() and window.menus.edit_actions["paste"].isEnabled()
    menu.aboutToHide.emit()
    assert all(action.isEnabled() for action in window.menus.edit_actions.values())  # the keys work again


def test_find_in_chats_focuses_the_search_and_shows_a_hidden_list(qtbot, make_window):
    window = make_window()
    find = window.menus.find_action
    assert {s.toString() for s in find.shortcuts()} == {"Ctrl+K", "Ctrl+F"}
    window.menus.sidebar_action.trigger()
    assert window.history.sidebar.isHidden()
    find.trigger()
    assert not window.history.sidebar.isHidden() and window.menus.sidebar_action.isChecked()
    assert window.focusWidget() is window.history.sidebar.search_field


def test_ctrl_b_hides_and_shows_the_conversation_list(make_window):
    window = make_window()
    action = window.menus.sidebar_action
    assert action.shortcut() == QKeySequence("Ctrl+B") and action.isChecked()
    window.history.sidebar.search_field.setFocus()
    action.trigger()
    assert window.history.sidebar.isHidden() and not action.isChecked()
    assert window.focusWidget() is window.composer.edit  # focus left the hidden list
    action.trigger()
    assert window.history.sidebar.isVisible() and action.isChecked()


def test_usage_opens_the_usage_view_with_the_runtime_and_store(make_window, monkeypatch):
    window = make_window()
    calls = []
    module = types.ModuleType(USAGE_MODULE)
    module.open_usage_view = lambda *args: calls.append(args)
    monkeypatch.setitem(sys.modules, USAGE_MODULE, module)
    window.menus.usage_action.trigger()
    session = window.controller.session
    assert calls == [(window, session.runtime, session.store)]


def test_usage_without_the_usage_view_says_so(make_window, monkeypatch):
    window = make_window()
    monkeypatch.setitem(sys.modules, USAGE_MODULE, None)  # the import fails as if the module were missing
    window.menus.usage_action.trigger()
    assert window.banner.text() == "The Usage view is not part of this version."


def test_help_has_shortcuts_log_folder_and_about(make_window):
    window = make_window()
    assert texts(menus(window)["Help"]) == ["Keyboard shortcuts", "Open log folder", "About Desktop Copilot"]
    assert window.open_log_folder_action.objectName() == "openLogFolderAction"
    assert window.menus.shortcuts_action.shortcut() == QKeySequence("Ctrl+/")


def test_keyboard_shortcuts_opens_one_dialog(qtbot, make_window):
    window = make_window()
    window.menus.shortcuts_action.trigger()
    window.menus.shortcuts_action.trigger()
    qtbot.waitUntil(lambda: len(window.findChildren(ShortcutsDialog)) == 1, timeout=2000)  # the first was closed
    assert window.findChildren(ShortcutsDialog)[0].isVisible()


def test_about_names_the_version_the_libraries_and_the_licence(qtbot, make_window, clipboard):
    import platform

    import PySide6
    from PySide6.QtCore import qVersion

    window = make_window()
    window.menus.about_action.trigger()
    dialog = window.findChild(AboutDialog)
    assert dialog is not None and dialog.isVisible()
    assert dialog.name_label.text() == f"Desktop Copilot {__version__}"
    assert dialog.versions_label.text() == f"Python {platform.python_version()} · Qt {qVersion()} · PySide6 {PySide6.__version__}"
    assert dialog.licence_label.text() == "Licence: MIT"
    dialog.copy_button.click()
    assert clipboard.text().splitlines()[:3] == [dialog.name_label.text(), dialog.versions_label.text(), "Licence: MIT"]


def test_the_project_address_comes_from_the_package_metadata():
    metadata = Message()
    metadata["Project-URL"] = "Issues, https://example.org/desktop-copilot/issues"
    metadata["Project-URL"] = "Source, https://example.org/desktop-copilot"
    assert project_url(metadata) == "https://example.org/desktop-copilot"  # Source before Issues
    only_home = Message()
    only_home["Home-page"] = "https://example.org/home"
    assert project_url(only_home) == "https://example.org/home"
    assert project_url(Message()) is None
    unsafe = Message()
    unsafe["Home-page"] = "javascript:alert(1)"
    assert project_url(unsafe) is None


def test_the_keys_themselves_still_reach_the_focused_widget(qtbot, make_window, clipboard):
    """Ctrl+A / Ctrl+C typed in the message box are the box's own; in the conversation list they reach the list once."""
    seed_app_store(lambda store: seed_conversation(store, "Trip to Florence", [("q", "a")]))
    window = make_window()
    edit = window.composer.edit
    edit.insertPlainText("typed text")
    qtbot.keyClick(edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(edit, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert clipboard.text() == "typed text"
    clipboard.setText("")
    copies = []
    clipboard.dataChanged.connect(lambda: copies.append(clipboard.text()))
    window.history.sidebar.list_view.setFocus()
    qtbot.keyClick(window.history.sidebar.list_view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert copies == ["Trip to Florence"]
