"""The File menu's history actions: New conversation (Ctrl+N), export the open conversation as Markdown or
JSON, export all, import a JSON export. Files are chosen with QFileDialog; failures go to the error banner."""

from __future__ import annotations

import re
import time
from contextlib import contextmanager
from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject, QStandardPaths, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QFileDialog, QMainWindow, QMenu

from desktop_copilot.core.storage.export import ExportFormatError, export_all, import_json, stored_versions, to_json, to_markdown
from desktop_copilot.core.conversation.models import Conversation
from desktop_copilot.qt.history.controller import HistoryController

MARKDOWN_FILTER = QT_TRANSLATE_NOOP("HistoryActions", "Markdown (*.md)")
JSON_FILTER = QT_TRANSLATE_NOOP("HistoryActions", "Desktop Copilot export (*.json)")
STATUS_MS = 6000


def safe_file_name(title: str, suffix: str) -> str:
    """A file name from a conversation title: no path separators or characters Windows rejects."""
    name = re.sub(r'[\\/:*?"<>|\x00-\x1f]+', " ", title).strip(" .")
    name = " ".join(name.split())[:80].rstrip(" .")
    return (name or "conversation") + suffix


@contextmanager
def busy_cursor():
    """A wait cursor while a long export or import runs on the GUI thread."""
    QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
    try:
        yield
    finally:
        QApplication.restoreOverrideCursor()


def file_menu(window: QMainWindow) -> QMenu:
    """The window's File menu, created when no other module has made one yet."""
    for action in window.menuBar().actions():
        menu = action.menu()
        if menu is not None and (menu.objectName() == "fileMenu" or action.text().replace("&", "") == "File"):
            return menu
    menu = window.menuBar().addMenu(QCoreApplication.translate("WindowMenus", "&File"))
    menu.setObjectName("fileMenu")
    return menu


class HistoryActions(QObject):
    def __init__(self, window: QMainWindow, history: HistoryController) -> None:
        super().__init__(window)
        self.window = window
        self.history = history
        self.folder = Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation) or Path.home())
        self.new_action = self._action(self.tr("New conversation"), history.new_conversation, "Ctrl+N")
        self.export_markdown_action = self._action(self.tr("Export conversation as Markdown…"), lambda: self.export_current("markdown"))
        self.export_json_action = self._action(self.tr("Export conversation as JSON…"), lambda: self.export_current("json"))
        self.export_all_action = self._action(self.tr("Export all conversations…"), self.export_all)
        self.import_action = self._action(self.tr("Import conversations…"), self.import_file)
        history.sig_current_changed.connect(lambda _id: self.update_enabled())
        window.controller.sig_busy_changed.connect(lambda _busy: self.update_enabled())
        self.update_enabled()

    def _action(self, text: str, slot, shortcut: str = "") -> QAction:
        action = QAction(text, self.window)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(lambda _checked=False: slot())
        return action

    def actions(self) -> list[QAction | None]:
        """In menu order; None is a separator."""
        return [self.new_action, None, self.export_markdown_action, self.export_json_action, self.export_all_action,
                None, self.import_action]

    def update_enabled(self) -> None:
        has_messages = bool(self.history.current.messages)
        self.export_markdown_action.setEnabled(has_messages)
        self.export_json_action.setEnabled(has_messages)
        self.export_all_action.setEnabled(self.history.store is not None)
        self.import_action.setEnabled(self.history.store is not None)

    # --- export ----------------------------------------------------------------------

    def _stored_current(self) -> Conversation:
        current = self.history.current
        store = self.history.store
        stored = store.load_conversation(current.id) if store is not None and not self.window.controller.busy else None
        return stored or current

    def export_current(self, kind: str) -> Path | None:
        conversation = self._stored_current()
        if not conversation.messages:
            self.window.banner.show_error(self.tr("This conversation is empty: there is nothing to export yet."))
            return None
        markdown = kind == "markdown"
        suffix, name_filter = (".md", self.tr(MARKDOWN_FILTER)) if markdown else (".json", self.tr(JSON_FILTER))
        title = self.tr("Export conversation as Markdown") if markdown else self.tr("Export conversation as JSON")
        path = self._ask_save(title, safe_file_name(conversation.title, suffix), name_filter, suffix)
        if path is None:
            return None
        store = self.history.store
        versions = stored_versions(store, conversation.id) if store is not None else []  # other answers, regenerated replies
        return self._write(path, lambda: to_markdown(conversation, versions) if markdown
                           else to_json([conversation], {conversation.id: versions}))

    def export_all(self) -> Path | None:
        if self.history.store is None:
            return None
        name = f"desktop-copilot-{time.strftime('%Y-%m-%d')}.json"
        path = self._ask_save(self.tr("Export all conversations"), name, self.tr(JSON_FILTER), ".json")
        return None if path is None else self._write(path, lambda: export_all(self.history.store))

    def _ask_save(self, title: str, name: str, name_filter: str, suffix: str) -> Path | None:
        chosen, _filter = QFileDialog.getSaveFileName(self.window, title, str(self.folder / name), name_filter)
        if not chosen:
            return None
        path = Path(chosen)
        return path if path.suffix else path.with_suffix(suffix)

    def _write(self, path: Path, render) -> Path | None:
        try:
            with busy_cursor():
                path.write_text(render(), encoding="utf-8")
        except OSError as exc:
            self.window.banner.show_error(self.tr("Could not save {path}: {problem}. Choose another folder.").format(path=path, problem=exc.strerror or exc))
            return None
        self.folder = path.parent
        self.window.statusBar().showMessage(self.tr("Exported to {path}").format(path=path), STATUS_MS)
        return path

    # --- import ----------------------------------------------------------------------

    def import_file(self) -> tuple[int, int] | None:
        store = self.history.store
        if store is None:
            return None
        chosen, _filter = QFileDialog.getOpenFileName(self.window, self.tr("Import conversations"), str(self.folder),
                                                      self.tr(JSON_FILTER) + ";;" + self.tr("All files (*)"))
        if not chosen:
            return None
        path = Path(chosen)
        try:
            with busy_cursor():
                imported, skipped = import_json(store, path.read_text(encoding="utf-8"))
        except UnicodeDecodeError:
            return self._import_failed(path, self.tr("it is not a text file. Choose a file made by Export → JSON."))
        except OSError as exc:
            return self._import_failed(path, f"{exc.strerror or exc}.")
        except ExportFormatError as exc:
            return self._import_failed(path, str(exc))
        self.folder = path.parent
        self.history.reload()
        message = (self.tr("Imported 1 conversation from {file}.") if imported == 1
                   else self.tr("Imported %n conversations from {file}.", "", imported)).format(file=path.name)
        if skipped:
            message += " " + (self.tr("1 was already here and kept as it was.") if skipped == 1
                              else self.tr("%n were already here and kept as they were.", "", skipped))
        self.window.statusBar().showMessage(message, STATUS_MS)
        return imported, skipped

    def _import_failed(self, path: Path, reason: str) -> None:
        self.window.banner.show_error(self.tr("Could not import {file}: {reason}").format(file=path.name, reason=reason))
        return None


def install_file_menu(window: QMainWindow, history: HistoryController) -> HistoryActions:
    """Add the history actions to the File menu, ahead of anything already there (e.g. Settings…, Quit)."""
    actions = HistoryActions(window, history)
    menu = file_menu(window)
    before = menu.actions()[0] if menu.actions() else None
    for action in actions.actions() + [None]:  # QMenu hides a trailing separator
        if action is None:
            menu.insertSeparator(before)  # before=None appends
        else:
            menu.insertAction(before, action)
    return actions
