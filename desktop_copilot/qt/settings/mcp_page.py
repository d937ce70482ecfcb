"""Settings ▸ MCP servers: the servers in mcp.json with their live state (the manager tells the page from its own
thread), Sign in… (OAuth through the browser), Test (a separate connection that lists the tools and their risks),
Restart, Remove, Add server and Import.
Changes go to mcp.json (secrets to the keyring) at once, off the GUI thread, and the manager reloads in the background."""

from __future__ import annotations

import logging

import shiboken6
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QMessageBox, QPushButton, QVBoxLayout, QWidget

from desktop_copilot.core.mcp.config_file import ImportReport, McpConfigError, McpConfigFile
from desktop_copilot.core.mcp.server_config import McpServerConfig
from desktop_copilot.qt.bridge.background import BackgroundTasks, off_gui_thread
from desktop_copilot.qt.common.change_relay import ChangeRelay
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.settings.keys_page import cancel_when_destroyed
from desktop_copilot.qt.settings.mcp_parts import ServerForm, ServerRow
from desktop_copilot.qt.settings.models_page import hint
from desktop_copilot.qt.settings.styles import set_kind

log = logging.getLogger(__name__)

TEST_TIMEOUT = 20.0
SIGN_IN_TIMEOUT = 300.0
ABOUT = QT_TRANSLATE_NOOP("McpPage", "Each server's tools are offered to Claude while it runs. Read-only tools run without asking; the others ask "
                            "first. Values of environment variables and headers are kept in the system keyring.")
EMPTY = QT_TRANSLATE_NOOP("McpPage", "No MCP servers yet. Add one, or import the servers of Claude Desktop (claude_desktop_config.json).")


def import_summary(report: ImportReport) -> str:
    parts = []
    if report.added:
        parts.append(QCoreApplication.translate("McpPage", "added {names}").format(names=", ".join(report.added)))
    if report.replaced:
        parts.append(QCoreApplication.translate("McpPage", "replaced {names}").format(names=", ".join(report.replaced)))
    if report.skipped:
        parts.append(QCoreApplication.translate("McpPage", "skipped {names} (a server of that name exists; remove it first to import it)")
            .format(names=", ".join(report.skipped)))
    text = QCoreApplication.translate("McpPage", "From {file}: {outcome}.").format(file=report.source.name, outcome="; ".join(parts) if parts
        else QCoreApplication.translate("McpPage", "no servers found"))
    for name, reason in report.invalid:
        text += "\n" + QCoreApplication.translate("McpPage", "{name} could not be imported: {reason}").format(name=name, reason=reason)
    return text


class McpPage(QWidget):
    def __init__(self, config: McpConfigFile | None, manager, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.config = config
        self.manager = manager
        """The McpManager (None: MCP is not running in this process, e.g. no config file could be made)."""
        self.tasks = BackgroundTasks(lambda text: shiboken6.isValid(self.message) and self.say(text, "error"))
        cancel_when_destroyed(self, self.tasks)
        self.rows: dict[str, ServerRow] = {}
        self.form: ServerForm | None = None
        self.file_dialog: QFileDialog | None = None
        self.confirm_box: QMessageBox | None = None
        self.problem = PlainLabel(objectName="keyMessage", wordWrap=True)
        set_kind(self.problem, "error")
        self.message = PlainLabel(objectName="keyMessage", wordWrap=True)
        self.message.hide()
        self.empty = PlainLabel(self.tr(EMPTY), objectName="hint", wordWrap=True)
        self.add_button = QPushButton(self.tr("Add server…"), objectName="addServerButton")
        self.import_button = QPushButton(self.tr("Import…"), objectName="importServersButton")
        self.import_button.setToolTip(self.tr("Takes the servers of a claude_desktop_config.json (or another app's mcp.json)"))
        self.open_button = QPushButton(self.tr("Open mcp.json"), objectName="openMcpJson")
        for button in (self.add_button, self.import_button, self.open_button):
            button.setEnabled(config is not None)
        self.list = QVBoxLayout()
        self.list.setSpacing(8)
        buttons = QHBoxLayout()
        buttons.setSpacing(8)
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.import_button)
        buttons.addStretch(1)
        buttons.addWidget(self.open_button)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(12)
        column.addWidget(hint(self.tr(ABOUT)))
        column.addLayout(buttons)
        column.addWidget(self.problem)
        column.addWidget(self.message)
        column.addWidget(self.empty)
        column.addLayout(self.list)
        column.addStretch(1)
        self.add_button.clicked.connect(self.open_form)
        self.import_button.clicked.connect(self.choose_import)
        self.open_button.clicked.connect(self.open_file)
        self._relay = ChangeRelay(self, self.show_statuses)
        if manager is not None:
            manager.subscribe(self._relay.listener())
        self.reload()

    # --- the list ------------------------------------------------------------------------------

    def reload(self) -> None:
        """Rebuilds the rows from mcp.json, then shows the manager's states."""
        configs = self.config.configs() if self.config is not None else []
        problem = self.config.problem if self.config is not None else self.tr("MCP servers are not available in this session.")
        self.problem.setText(problem or "")
        self.problem.setVisible(bool(problem))
        for row in self.rows.values():
            row.hide()
            row.deleteLater()
        self.rows = {config.name: self._make_row(config) for config in configs}
        self.empty.setVisible(not self.rows and self.config is not None and not self.config.problem)
        self.show_statuses()

    def _make_row(self, config: McpServerConfig) -> ServerRow:
        row = ServerRow(config)
        row.test_button.setEnabled(self.manager is not None)
        row.sign_in_button.setEnabled(self.manager is not None)
        row.sign_in_button.clicked.connect(lambda: self.start_sign_in(config.name))
        row.test_button.clicked.connect(lambda: self.start_test(config.name))
        row.restart_button.clicked.connect(lambda: self.tasks.start(self.restart(config.name)))
        row.remove_button.clicked.connect(lambda: self.ask_remove(config.name))
        self.list.addWidget(row)
        return row

    def show_statuses(self) -> None:
        """The manager's states on the rows (called on the GUI thread, queued after each change the manager reports)."""
        statuses = {status.name: status for status in self.manager.statuses()} if self.manager is not None else {}
        for name, row in self.rows.items():
            row.set_status(statuses.get(name))

    def say(self, text: str, kind: str = "info") -> None:
        self.message.setText(text)
        set_kind(self.message, kind)
        self.message.setVisible(bool(text))

    # --- per server ------------------------------------------------------------------------------

    def start_test(self, name: str):
        """Test pressed: the row says it is connecting at once; the connection is made on the manager's thread."""
        self.rows[name].set_testing(True)
        return self.tasks.start(self.test(name))

    async def test(self, name: str):
        """Connects to the server apart from the running one and shows its tools (or why not); the ServerStatus."""
        row = self.rows[name]
        row.set_testing(True)
        try:
            status = await self.manager.test(row.config, timeout=TEST_TIMEOUT)
        finally:
            if shiboken6.isValid(row):  # the dialog may have closed meanwhile
                row.set_testing(False)
        if shiboken6.isValid(row):
            row.show_test(status)
        return status

    def start_sign_in(self, name: str):
        """Sign in… pressed: the row waits for the browser; the manager opens it and takes the redirect on its thread."""
        self.rows[name].set_signing_in(True)
        return self.tasks.start(self.sign_in(name))

    async def sign_in(self, name: str):
        """Signs in to the server through the browser (OAuth), keeps the sign-in in the keyring and connects; the
        ServerStatus (None when the manager could not try)."""
        row = self.rows[name]
        row.set_signing_in(True)
        status, problem = None, ""
        try:
            status = await self.manager.login(name, timeout=SIGN_IN_TIMEOUT)
        except KeyError:
            problem = self.tr("{name} is not running in this session yet; try again in a moment.").format(name=name)
        except (ValueError, RuntimeError) as exc:
            problem = str(exc)
        finally:
            if shiboken6.isValid(row):
                row.set_signing_in(False)
        if not shiboken6.isValid(row):
            return status
        if status is None:
            row.show_result(self.tr("Could not sign in: {problem}").format(problem=problem), "error")
        else:
            row.show_sign_in(status)
            self.show_statuses()
        return status

    async def restart(self, name: str) -> None:
        self.rows[name].restart_button.setEnabled(False)
        await self.manager.restart(name)
        if shiboken6.isValid(self):
            self.show_statuses()

    def ask_remove(self, name: str) -> QMessageBox:
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("Remove MCP server"),
                          self.tr("Remove the MCP server “{name}”? Its tools go away, and its secrets are deleted from the keyring.").format(name=name),
                          QMessageBox.StandardButton.Cancel, self)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.addButton(self.tr("Remove"), QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        destructive = QMessageBox.ButtonRole.DestructiveRole
        box.buttonClicked.connect(lambda button: box.buttonRole(button) == destructive and self.tasks.start(self.remove(name)))
        self.confirm_box = box
        box.open()
        return box

    async def remove(self, name: str) -> bool:
        try:
            removed = await off_gui_thread(self.config.remove, name)
        except McpConfigError as exc:
            self.say(self.tr("Not removed: {problem}").format(problem=exc), "error")
            return False
        if removed.left_in_keyring:
            self.say(self.tr("Removed {name}, but {problem}").format(name=name, problem=removed.left_in_keyring), "warning")
        else:
            self.say(self.tr("Removed {name}.").format(name=name), "ok")
        await self._changed()
        return True

    # --- adding and importing ------------------------------------------------------------------------

    def open_form(self) -> ServerForm:
        self.form = ServerForm(set(self.rows), self)
        self.form.accepted.connect(lambda form=self.form: self.tasks.start(self.add(form.server())))
        self.form.open()
        return self.form

    async def add(self, config: McpServerConfig) -> bool:
        """Saves the server (its env and header values to the keyring, references to mcp.json), then reloads."""
        try:
            await off_gui_thread(self.config.add, config)
        except McpConfigError as exc:
            self.say(self.tr("Not added: {problem}").format(problem=exc), "error")
            return False
        self.say(self.tr("Added {name}.").format(name=config.name), "ok")
        await self._changed()
        return True

    def choose_import(self) -> QFileDialog:
        dialog = QFileDialog(self, self.tr("Import MCP servers"), "", self.tr("MCP configuration (*.json);;All files (*)"))
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(lambda path: self.tasks.start(self.import_from(path)))
        self.file_dialog = dialog
        dialog.open()
        return dialog

    async def import_from(self, path: str) -> ImportReport | None:
        try:
            report = await off_gui_thread(self.config.import_file, path)
        except McpConfigError as exc:
            self.say(self.tr("Nothing imported: {problem}").format(problem=exc), "error")
            return None
        self.say(import_summary(report), "warning" if report.invalid or report.skipped else "ok")
        if report.added or report.replaced:
            await self._changed()
        return report

    def open_file(self) -> None:
        if self.config is not None:
            if not self.config.path.exists():
                self.say(self.tr("{path} does not exist yet: add a server first.").format(path=self.config.path), "info")
                return
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.config.path)))

    async def _changed(self) -> None:
        """mcp.json changed: the rows follow at once, the running servers after the manager's reload."""
        self.reload()
        if self.manager is not None:
            await self.manager.reload()
            if shiboken6.isValid(self):
                self.show_statuses()
