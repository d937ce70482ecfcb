"""The keyboard-shortcuts dialog (Help ▸ Keyboard shortcuts, Ctrl+/): the shortcuts are read from the window's menus,
actions and QShortcuts each time it opens, so the list cannot drift from the keys that work; the keys that fields
handle themselves (Enter sends, Esc stops) follow."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLineEdit, QMainWindow, QMenu, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget


@dataclass(frozen=True)
class ShortcutEntry:
    section: str
    description: str
    keys: tuple[str, ...]
    """Each key sequence as the platform writes it (Ctrl+K; ⌘K on macOS)."""


_BOX = QT_TRANSLATE_NOOP("ShortcutsDialog", "In the message box")
_SEARCH = QT_TRANSLATE_NOOP("ShortcutsDialog", "In the search field")
_LIST = QT_TRANSLATE_NOOP("ShortcutsDialog", "In the conversation list")
_CARD = QT_TRANSLATE_NOOP("ShortcutsDialog", "On a tool call waiting for approval")
FIELD_KEYS = (
    (_BOX, QT_TRANSLATE_NOOP("ShortcutsDialog", "Send the message"), "Return"),
    (_BOX, QT_TRANSLATE_NOOP("ShortcutsDialog", "New line"), "Shift+Return"),
    (_BOX, QT_TRANSLATE_NOOP("ShortcutsDialog", "Stop the reply, or stop editing a message"), "Esc"),
    (_SEARCH, QT_TRANSLATE_NOOP("ShortcutsDialog", "Clear the search"), "Esc"),
    (_SEARCH, QT_TRANSLATE_NOOP("ShortcutsDialog", "Move into the results"), "Down"),
    (_SEARCH, QT_TRANSLATE_NOOP("ShortcutsDialog", "Open the first result"), "Return"),
    (_LIST, QT_TRANSLATE_NOOP("ShortcutsDialog", "Rename the conversation"), "F2"),
    (_LIST, QT_TRANSLATE_NOOP("ShortcutsDialog", "Delete the conversation"), "Del"),
    (_CARD, QT_TRANSLATE_NOOP("ShortcutsDialog", "Move to its buttons from the message box"), "Tab"),
    (_CARD, QT_TRANSLATE_NOOP("ShortcutsDialog", "Next or previous button"), "Right|Left"),
    (_CARD, QT_TRANSLATE_NOOP("ShortcutsDialog", "Press the button with the focus"), "Return|Space"),
    (_CARD, QT_TRANSLATE_NOOP("ShortcutsDialog", "Deny the call"), "Esc"),
)
"""(section, what it does, key or keys between "|") of the keys widgets handle in their own key handling: no QAction or QShortcut stands for
them (composer.py PromptEdit, sidebar.py SearchField and ConversationListView, qt/transcript/approval_keys.py)."""


def _field_keys() -> list[ShortcutEntry]:
    return [ShortcutEntry(_translated(section), _translated(text), tuple(native(QKeySequence(one)) for one in keys.split("|")))
            for section, text, keys in FIELD_KEYS]


def _translated(text: str) -> str:
    return QCoreApplication.translate("ShortcutsDialog", text)


def native(sequence: QKeySequence) -> str:
    return sequence.toString(QKeySequence.SequenceFormat.NativeText)


def action_text(action: QAction) -> str:
    """The action's menu text without its mnemonic ampersands ("&&" stays one "&")."""
    return action.text().replace("&&", "\0").replace("&", "").replace("\0", "&")


def _menu_actions(menu: QMenu) -> list[QAction]:
    found = []
    for action in menu.actions():
        if action.menu() is not None:
            found.extend(_menu_actions(action.menu()))
        elif not action.isSeparator():
            found.append(action)
    return found


def _in_window(item: QAction | QShortcut, window: QWidget) -> bool:
    """Not one of a dialog's own (the settings dialog is a child of the window too)."""
    parent = item.parent()
    return not isinstance(parent, QWidget) or parent.window() is window


def window_shortcuts(window: QWidget) -> list[ShortcutEntry]:
    """Every shortcut the window has now: its menus' actions by menu, then other actions and QShortcuts."""
    entries: list[ShortcutEntry] = []
    listed: list[QAction] = []
    if isinstance(window, QMainWindow):
        for bar_action in window.menuBar().actions():
            if bar_action.menu() is None:
                continue
            section = action_text(bar_action)
            for action in _menu_actions(bar_action.menu()):
                listed.append(action)
                if action.shortcuts():
                    entries.append(ShortcutEntry(section, action_text(action), tuple(native(s) for s in action.shortcuts())))
    other = QCoreApplication.translate("ShortcutsDialog", "Window")
    for action in [*window.actions(), *window.findChildren(QAction)]:
        if action.shortcuts() and action not in listed and _in_window(action, window):
            listed.append(action)
            entries.append(ShortcutEntry(other, action_text(action), tuple(native(s) for s in action.shortcuts())))
    for shortcut in window.findChildren(QShortcut):
        sequences = shortcut.keys()
        if shortcut.isEnabled() and sequences and _in_window(shortcut, window):
            description = shortcut.whatsThis() or shortcut.objectName() or QCoreApplication.translate("ShortcutsDialog", "(no description)")
            entries.append(ShortcutEntry(other, description, tuple(native(s) for s in sequences)))
    return entries + _field_keys()


class ShortcutsDialog(QDialog):
    """The list of shortcuts, grouped by menu, with a filter field."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window, objectName="shortcutsDialog")
        self.setWindowTitle(self.tr("Keyboard shortcuts"))
        self.resize(520, 560)
        self.filter_field = QLineEdit(objectName="shortcutsFilter", placeholderText=self.tr("Filter"), clearButtonEnabled=True)
        self.tree = QTreeWidget(objectName="shortcutsList")
        self.tree.setColumnCount(2)
        self.tree.setHeaderLabels([self.tr("Action"), self.tr("Keys")])
        self.tree.setRootIsDecorated(False)
        self.tree.setSelectionMode(QTreeWidget.SelectionMode.NoSelection)
        self.tree.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.filter_field)
        layout.addWidget(self.tree, 1)
        layout.addWidget(buttons)
        self.entries = window_shortcuts(window)
        self._fill()
        self.filter_field.textChanged.connect(self.apply_filter)
        self.filter_field.setFocus()

    def _fill(self) -> None:
        sections: dict[str, QTreeWidgetItem] = {}
        for entry in self.entries:
            section = sections.get(entry.section)
            if section is None:
                section = sections[entry.section] = QTreeWidgetItem(self.tree, [entry.section])
                font = section.font(0)
                font.setBold(True)
                section.setFont(0, font)
                section.setFirstColumnSpanned(True)
            QTreeWidgetItem(section, [entry.description, ", ".join(entry.keys)])
        self.tree.expandAll()
        self.tree.resizeColumnToContents(0)

    def rows(self) -> list[tuple[str, str, str]]:
        """(section, description, keys) of every row shown now."""
        shown = []
        for i in range(self.tree.topLevelItemCount()):
            section = self.tree.topLevelItem(i)
            for j in range(section.childCount()):
                row = section.child(j)
                if not row.isHidden():
                    shown.append((section.text(0), row.text(0), row.text(1)))
        return shown

    def apply_filter(self, text: str) -> None:
        """Shows the rows whose description, keys or section contain `text` (any case)."""
        needle = text.strip().casefold()
        for i in range(self.tree.topLevelItemCount()):
            section = self.tree.topLevelItem(i)
            in_section = needle in section.text(0).casefold()
            visible = 0
            for j in range(section.childCount()):
                row = section.child(j)
                match = in_section or needle in row.text(0).casefold() or needle in row.text(1).casefold()
                row.setHidden(not match)
                visible += match
            section.setHidden(visible == 0)


def open_shortcuts_dialog(window: QWidget) -> ShortcutsDialog:
    """Shows the window's shortcuts dialog, built afresh so it lists the shortcuts the window has now."""
    for old in window.findChildren(ShortcutsDialog):
        old.close()
        old.deleteLater()
    dialog = ShortcutsDialog(window)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.show()
    dialog.raise_()
    return dialog
