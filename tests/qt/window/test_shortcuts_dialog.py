"""Help ▸ Keyboard shortcuts lists every shortcut the real window has, read from its actions and QShortcuts (so a new
one shows up without editing the dialog), no key is bound twice, and the filter narrows the list."""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QWidget

from desktop_copilot.qt.window.shortcuts_dialog import ShortcutsDialog, native, open_shortcuts_dialog


def keys_of(item) -> str:
    return ", ".join(native(s) for s in (item.shortcuts() if isinstance(item, QAction) else item.keys()))


def bindings(window) -> list[tuple[str, str]]:
    """(description, keys) of every QAction with a shortcut and every enabled QShortcut that belongs to the window."""
    def in_window(item) -> bool:
        return not isinstance(item.parent(), QWidget) or item.parent().window() is window

    found = [(a.text().replace("&", ""), keys_of(a)) for a in window.findChildren(QAction) if a.shortcuts() and in_window(a)]
    found += [(s.whatsThis(), keys_of(s)) for s in window.findChildren(QShortcut) if s.isEnabled() and s.keys() and in_window(s)]
    return found


def rows_by_description(dialog: ShortcutsDialog) -> set[tuple[str, str]]:
    return {(description, keys) for _section, description, keys in dialog.rows()}


def test_every_action_and_shortcut_of_the_window_is_listed(qtbot, make_window):
    window = make_window()
    dialog = open_shortcuts_dialog(window)
    expected = bindings(window)
    assert len(expected) >= 13  # the menus' keys and Ctrl+Shift+R: the walk found them
    missing = [binding for binding in expected if binding not in rows_by_description(dialog)]
    assert missing == []


def test_the_usual_keys_are_there_by_menu(make_window):
    window = make_window()
    rows = set(open_shortcuts_dialog(window).rows())
    for row in [("File", "New conversation", "Ctrl+N"), ("File", "Quit", "Ctrl+Q"), ("Edit", "Copy", "Ctrl+C"),
                ("Edit", "Find in chats", "Ctrl+K, Ctrl+F"), ("View", "Show conversation list", "Ctrl+B"),
                ("Help", "Keyboard shortcuts", "Ctrl+/"), ("Window", "Regenerate the last reply", "Ctrl+Shift+R"),
                ("In the message box", "Send the message", "Return"), ("In the message box", "New line", "Shift+Return")]:
        assert row in rows
    assert any(section == "File" and description == "Settings…" and "Ctrl+," in keys for section, description, keys in rows)


def test_no_key_is_bound_twice(make_window):
    """Two bindings of one key in a window cancel each other out: neither works."""
    window = make_window()
    keys = [key for _description, both in bindings(window) for key in both.split(", ")]
    assert sorted(keys) == sorted(set(keys))


def test_a_shortcut_added_later_is_listed_without_touching_the_dialog(make_window):
    window = make_window()
    jump = QShortcut(QKeySequence("Ctrl+Shift+J"), window)
    jump.setWhatsThis("Jump to the newest message")
    assert ("Window", "Jump to the newest message", "Ctrl+Shift+J") in open_shortcuts_dialog(window).rows()
    jump.setEnabled(False)
    assert "Jump to the newest message" not in {row[1] for row in open_shortcuts_dialog(window).rows()}


def test_the_filter_narrows_the_list(qtbot, make_window):
    window = make_window()
    dialog = open_shortcuts_dialog(window)
    every = dialog.rows()
    qtbot.keyClicks(dialog.filter_field, "quit")
    assert dialog.rows() == [("File", "Quit", "Ctrl+Q")]
    dialog.filter_field.setText("ctrl+b")
    assert dialog.rows() == [("View", "Show conversation list", "Ctrl+B")]
    dialog.filter_field.setText("in the search")  # a section's name shows all of it
    assert [row[1] for row in dialog.rows()] == ["Clear the search", "Move into the results", "Open the first result"]
    dialog.filter_field.clear()
    assert dialog.rows() == every


def test_the_approval_card_keys_are_listed(make_window):
    rows = set(open_shortcuts_dialog(make_window()).rows())
    section = "On a tool call waiting for approval"
    for row in [(section, "Move to its buttons from the message box", "Tab"), (section, "Next or previous button", "Right, Left"),
                (section, "Press the button with the focus", "Return, Space"), (section, "Deny the call", "Esc")]:
        assert row in rows
