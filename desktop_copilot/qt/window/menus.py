"""The window's menu bar: File (the history's entries, Settings…, Quit), Edit (undo to select all, sent to the focused
widget; Find in chats), View (the conversation list, Usage…) and Help (Keyboard shortcuts, Open log folder, About)."""

from __future__ import annotations

import platform
from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, QObject, Qt, qVersion
from PySide6.QtGui import QAction, QGuiApplication, QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLineEdit,
    QMainWindow,
    QMenu,
    QPlainTextEdit,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from desktop_copilot import __version__
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.history.file_actions import file_menu
from desktop_copilot.qt.settings.entry import install_settings_action
from desktop_copilot.qt.window.history_pane import SEARCH_SHORTCUTS
from desktop_copilot.qt.window.shortcuts_dialog import ShortcutsDialog, open_shortcuts_dialog

if TYPE_CHECKING:
    from importlib.metadata import PackageMetadata


DISTRIBUTION = "desktop-copilot"
LICENCE = "MIT"
"""pyproject.toml's licence, for a frozen bundle that carries no package metadata."""

EDIT_COMMANDS: tuple[tuple[str, str, QKeySequence.StandardKey], ...] = (
    ("undo", QT_TRANSLATE_NOOP("WindowMenus", "&Undo"), QKeySequence.StandardKey.Undo),
    ("redo", QT_TRANSLATE_NOOP("WindowMenus", "&Redo"), QKeySequence.StandardKey.Redo),
    ("cut", QT_TRANSLATE_NOOP("WindowMenus", "Cu&t"), QKeySequence.StandardKey.Cut),
    ("copy", QT_TRANSLATE_NOOP("WindowMenus", "&Copy"), QKeySequence.StandardKey.Copy),
    ("paste", QT_TRANSLATE_NOOP("WindowMenus", "&Paste"), QKeySequence.StandardKey.Paste),
    ("selectAll", QT_TRANSLATE_NOOP("WindowMenus", "Select &All"), QKeySequence.StandardKey.SelectAll),
)
"""(the text widgets' method, the menu text, translated where it is shown, the key) of each Edit command."""
TEXT_WIDGETS = (QLineEdit, QTextEdit, QPlainTextEdit)
FIND_SHORTCUTS = ("Ctrl+K", *(key for key in SEARCH_SHORTCUTS if key != "Ctrl+K"))
"""Edit ▸ Find in chats: the keys the history pane bound to the search field, Ctrl+K (which the field names) first."""


def command_available(widget: QWidget | None, command: str) -> bool:
    """Whether the Edit command can do something in `widget`; widgets other than text fields decide for themselves."""
    if widget is None:
        return False
    if isinstance(widget, QLineEdit):
        has_text, selected, writable = bool(widget.text()), widget.hasSelectedText(), not widget.isReadOnly()
        undo, redo = widget.isUndoAvailable(), widget.isRedoAvailable()
        pastable = writable and bool(QGuiApplication.clipboard().text())
    elif isinstance(widget, (QTextEdit, QPlainTextEdit)):
        document = widget.document()
        has_text, selected, writable = not document.isEmpty(), widget.textCursor().hasSelection(), not widget.isReadOnly()
        undo, redo = writable and document.isUndoAvailable(), writable and document.isRedoAvailable()
        pastable = writable and widget.canPaste()  # asks the field, which may take more than text (an image)
    else:
        return True
    return {"undo": undo, "redo": redo, "cut": selected and writable, "copy": selected, "paste": pastable, "selectAll": has_text}[command]


def send_key(widget: QWidget, sequence: QKeySequence) -> None:
    """Delivers `sequence`'s first key to `widget` as if typed there (its own key handling decides what it means)."""
    combination = sequence[0]
    for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
        QCoreApplication.sendEvent(widget, QKeyEvent(kind, combination.key(), combination.keyboardModifiers()))


class WindowMenus(QObject):
    """Builds the menus on `window` (a MainWindow with its history pane installed) and keeps their actions."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.sidebar = window.history.sidebar
        self._build_file_menu()
        self._build_edit_menu()
        self._build_view_menu()
        self._build_help_menu()

    def _action(self, text: str, slot, shortcuts: list[QKeySequence] | tuple = (), name: str = "") -> QAction:
        action = QAction(text, self.window, objectName=name)
        action.setShortcuts([QKeySequence(s) for s in shortcuts])
        action.triggered.connect(lambda _checked=False: slot())
        return action

    def _menu(self, title: str, name: str) -> QMenu:
        menu = self.window.menuBar().addMenu(title)
        menu.setObjectName(name)
        return menu

    # --- File --------------------------------------------------------------------------

    def _build_file_menu(self) -> None:
        """After the history's New conversation, exports and import: Settings… and Quit."""
        menu = file_menu(self.window)  # the history's entries end with a separator
        self.settings_action = install_settings_action(self.window)  # adds itself to the File menu
        menu.addSeparator()
        self.quit_action = self._action(self.tr("&Quit"), self.window.close, [QKeySequence.StandardKey.Quit, "Ctrl+Q"], "quitAction")
        self.quit_action.setShortcuts(list({s.toString(): s for s in self.quit_action.shortcuts() if not s.isEmpty()}.values()))
        self.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        menu.addAction(self.quit_action)

    # --- Edit --------------------------------------------------------------------------

    def _build_edit_menu(self) -> None:
        menu = self.edit_menu = self._menu(self.tr("&Edit"), "editMenu")
        self.edit_actions: dict[str, QAction] = {}
        for command, text, key in EDIT_COMMANDS:
            action = self._action(self.tr(text), lambda c=command: self.run_edit_command(c), [key], f"{command}Action")
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            self.edit_actions[command] = action
            menu.addAction(action)
            if command in ("redo", "paste"):
                menu.addSeparator()
        menu.addSeparator()
        self._take_over(SEARCH_SHORTCUTS)
        self.find_action = self._action(self.tr("&Find in chats"), self.find_in_chats, FIND_SHORTCUTS, "findInChatsAction")
        self.find_action.setToolTip(self.tr("Search the titles and messages of every conversation"))
        menu.addAction(self.find_action)
        menu.aboutToShow.connect(self.update_edit_actions)
        menu.aboutToHide.connect(lambda: [action.setEnabled(True) for action in self.edit_actions.values()])

    def _take_over(self, sequences: tuple[str, ...]) -> None:
        """The history pane binds the search keys with QShortcuts; the menu's action owns them now (two bindings of one
        key in a window cancel each other out)."""
        wanted = {QKeySequence(s).toString() for s in sequences}
        for shortcut in self.window.findChildren(QShortcut):
            if shortcut.key().toString() in wanted:
                shortcut.setEnabled(False)
                shortcut.setParent(None)
                shortcut.deleteLater()

    def edit_target(self) -> QWidget | None:
        """The widget with the keyboard focus in the window (kept while a menu is open)."""
        return self.window.focusWidget()

    def update_edit_actions(self) -> None:
        target = self.edit_target()
        for command, action in self.edit_actions.items():
            action.setEnabled(command_available(target, command))

    def run_edit_command(self, command: str) -> bool:
        """Undo, Redo, Cut, Copy, Paste or Select All in the focused widget: a text field's own method, or the key
        itself for other widgets (the transcript, the conversation list), which decide what it means."""
        target = self.edit_target()
        if target is None or not command_available(target, command):
            return False
        if isinstance(target, TEXT_WIDGETS):
            getattr(target, command)()
        else:
            send_key(target, self.edit_actions[command].shortcut())
        return True

    def find_in_chats(self) -> None:
        self.sidebar_action.setChecked(True)
        if self.sidebar.isHidden():  # hidden by something else than the action
            self.window.set_sidebar_visible(True)
        self.sidebar.focus_search()

    # --- View --------------------------------------------------------------------------

    def _build_view_menu(self) -> None:
        menu = self.view_menu = self._menu(self.tr("&View"), "viewMenu")
        self.sidebar_action = QAction(self.tr("Show &conversation list"), self.window, objectName="toggleSidebarAction", checkable=True)
        self.sidebar_action.setShortcut(QKeySequence("Ctrl+B"))
        self.sidebar_action.setChecked(not self.sidebar.isHidden())
        self.sidebar_action.toggled.connect(self.window.set_sidebar_visible)
        menu.addAction(self.sidebar_action)
        menu.addSeparator()
        self.zoom_in_action = self._action(self.tr("Zoom &in"), lambda: self.window.zoom_transcript(+1), name="zoomInAction")
        self.zoom_in_action.setShortcuts([QKeySequence("Ctrl+="), QKeySequence("Ctrl++")])
        self.zoom_out_action = self._action(self.tr("Zoom &out"), lambda: self.window.zoom_transcript(-1), name="zoomOutAction")
        self.zoom_out_action.setShortcut(QKeySequence("Ctrl+-"))
        self.zoom_reset_action = self._action(self.tr("&Actual size"), lambda: self.window.zoom_transcript(0), name="zoomResetAction")
        self.zoom_reset_action.setShortcut(QKeySequence("Ctrl+0"))
        for action in (self.zoom_in_action, self.zoom_out_action, self.zoom_reset_action):
            menu.addAction(action)
        menu.addSeparator()
        self.usage_action = self._action(self.tr("&Usage…"), self.open_usage, name="usageAction")
        self.usage_action.setToolTip(self.tr("Tokens and cost per day and per model"))
        menu.addAction(self.usage_action)

    def open_usage(self) -> None:
        """The Usage view (tokens and cost per day and per model), once a build has it."""
        try:
            from desktop_copilot.qt.usage.usage_view import open_usage_view
        except ModuleNotFoundError as exc:
            if exc.name is None or not exc.name.startswith("desktop_copilot.qt.usage"):
                raise
            self.window.banner.show_error(self.tr("The Usage view is not part of this version."))
            return
        session = self.window.controller.session
        open_usage_view(self.window, session.runtime, session.store)

    # --- Help --------------------------------------------------------------------------

    def _build_help_menu(self) -> None:
        menu = self.help_menu = self._menu(self.tr("&Help"), "helpMenu")
        self.shortcuts_action = self._action(self.tr("&Keyboard shortcuts"), self.show_shortcuts, ["Ctrl+/"], "shortcutsAction")
        menu.addAction(self.shortcuts_action)
        self.open_log_folder_action = self._action(self.tr("Open log folder"), self.window.open_log_folder, name="openLogFolderAction")
        self.open_log_folder_action.setToolTip(self.tr("Show the folder with the app's log files, to attach to a bug report"))
        menu.addAction(self.open_log_folder_action)
        menu.addSeparator()
        self.about_action = self._action(self.tr("&About Desktop Copilot"), self.show_about, name="aboutAction")
        self.about_action.setMenuRole(QAction.MenuRole.AboutRole)
        menu.addAction(self.about_action)

    def show_shortcuts(self) -> ShortcutsDialog:
        return open_shortcuts_dialog(self.window)

    def show_about(self) -> AboutDialog:
        for old in self.window.findChildren(AboutDialog):
            old.close()
            old.deleteLater()
        dialog = AboutDialog(self.window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog


def _metadata() -> PackageMetadata | None:
    import importlib.metadata  # when About opens, not at start-up

    try:
        return importlib.metadata.metadata(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:  # a frozen bundle without the dist-info
        return None


PROJECT_URL_LABELS = ("homepage", "source", "repository")


def project_url(metadata: PackageMetadata | None = None) -> str | None:
    """The project's https address from the package metadata (a Project-URL, Homepage or Source first, or the
    Home-page), if it names one."""
    metadata = metadata if metadata is not None else _metadata()
    if metadata is None:
        return None
    urls = []
    for entry in metadata.get_all("Project-URL") or []:
        label, _comma, url = entry.partition(",")
        if url.strip().startswith("https://"):
            urls.append((label.strip().casefold() not in PROJECT_URL_LABELS, url.strip()))
    if urls:
        return min(urls, key=lambda item: item[0])[1]
    home = metadata.get("Home-page") or ""
    return home if home.startswith("https://") else None


def licence() -> str:
    metadata = _metadata()
    return (metadata.get("License-Expression") or metadata.get("License") or LICENCE) if metadata is not None else LICENCE


def version_details() -> str:
    """The versions a bug report needs, one line."""
    import PySide6

    line = QCoreApplication.translate("AboutDialog", "Python {python} · Qt {qt} · PySide6 {pyside}")
    return line.format(python=platform.python_version(), qt=qVersion(), pyside=PySide6.__version__)


class AboutDialog(QDialog):
    """Name, version, the Python, Qt and PySide versions, the licence and the project's address (as text to copy)."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent, objectName="aboutDialog")
        self.setWindowTitle(self.tr("About Desktop Copilot"))
        self.setMinimumWidth(380)
        self.name_label = PlainLabel(self.tr("Desktop Copilot {version}").format(version=__version__), objectName="aboutName")
        font = self.name_label.font()
        font.setPointSizeF(font.pointSizeF() * 1.4)
        font.setBold(True)
        self.name_label.setFont(font)
        summary = PlainLabel(self.tr("A desktop chat client for Claude and other models."), wordWrap=True)
        self.versions_label = PlainLabel(version_details(), objectName="aboutVersions")
        self.licence_label = PlainLabel(self.tr("Licence: {licence}").format(licence=licence()), objectName="aboutLicence")
        layout = QVBoxLayout(self)
        layout.setSpacing(8)
        for label in (self.name_label, summary, self.versions_label, self.licence_label):
            layout.addWidget(label)
        self.url_label: PlainLabel | None = None
        if url := project_url():
            self.url_label = PlainLabel(url, objectName="aboutProjectUrl")  # text to copy, not a link that opens
            self.url_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            layout.addWidget(self.url_label)
        for label in (self.versions_label, self.licence_label):
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.copy_button = buttons.addButton(self.tr("Copy details"), QDialogButtonBox.ButtonRole.ActionRole)
        self.copy_button.setToolTip(self.tr("Copy the versions, to paste into a bug report"))
        self.copy_button.clicked.connect(self.copy_details)
        buttons.rejected.connect(self.reject)
        layout.addSpacing(6)
        layout.addWidget(buttons)

    def details(self) -> str:
        lines = [self.name_label.text(), self.versions_label.text(), self.licence_label.text()]
        if self.url_label is not None:
            lines.append(self.url_label.text())
        return "\n".join(lines)

    def copy_details(self) -> None:
        QGuiApplication.clipboard().setText(self.details())


def install_menus(window: QMainWindow) -> WindowMenus:
    return WindowMenus(window)
