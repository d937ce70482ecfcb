"""The widgets of Settings ▸ MCP servers: a server's row (name, kind, command line or URL, live state, tools, last
error, Sign in… for remote servers that want an OAuth sign-in, Test / Restart / Remove) and the Add server form (a local
command or a remote URL), with its checks."""

from __future__ import annotations

import re
import shlex

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDialog,
    QFormLayout,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QRadioButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_copilot.core.mcp.config_file import HEADER_NAME
from desktop_copilot.core.mcp.server_config import SERVER_NAME, McpServerConfig
from desktop_copilot.core.tools.base import Risk
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.settings.form_parts import form_label, form_layout, lay_out_dialog
from desktop_copilot.qt.settings.models_page import hint
from desktop_copilot.qt.settings.providers_parts import url_problem
from desktop_copilot.qt.settings.styles import set_kind

KINDS = {"stdio": "Local command", "http": "Remote (Streamable HTTP)", "sse": "Remote (SSE)"}
STATES = {"disabled": ("Disabled", "off"), "starting": ("Starting…", "off"), "ready": ("Ready", "on"),
          "failed": ("Failed", "needs_key"), "stopped": ("Stopped", "off")}
"""ServerState value -> (the pill's text, its style kind)."""
KEYRING_NOTE = "Values are stored in the system keyring, not in mcp.json."
SIGN_IN_NEEDED = "needs sign-in"
"""How a ServerStatus.last_error starts when the server wants an OAuth sign-in (core/mcp/connection.describe_error)."""
WAITING_FOR_BROWSER = "Waiting for the browser… Finish signing in there; this waits up to 5 minutes."
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
LABEL_WIDTH = 110


class ServerFormError(ValueError):
    """A value in the Add server form that cannot be used; the message says why and what to do."""


def tool_count(count: int) -> str:
    return f"{count} tool{'s' if count != 1 else ''}"


def parse_env(text: str) -> dict[str, str]:
    """`NAME=value` lines (blank lines skipped); ServerFormError for a malformed line."""
    env: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        name, equals, value = line.partition("=")
        name = name.strip()
        if not equals or not _ENV_NAME.match(name):
            raise ServerFormError(f"Environment line {number} is not “NAME=value”.")
        env[name] = value.strip()
    return env


def parse_header_lines(text: str) -> dict[str, str]:
    """`Name: value` lines (blank lines skipped); ServerFormError for a malformed line. Every value goes to the
    keyring, so a header may carry a secret (unlike an endpoint's headers on the Providers page)."""
    headers: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        name, colon, value = line.partition(":")
        name, value = name.strip(), value.strip()
        if not colon or not HEADER_NAME.match(name) or not value:
            raise ServerFormError(f"Header line {number} is not “Name: value”.")
        headers[name] = value
    return headers


class ToolList(QWidget):
    """A server's tools: name, risk label, description (all text from the server, shown as text)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="mcpTools")
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(0, 6, 0, 0)
        self.grid.setHorizontalSpacing(12)
        self.grid.setVerticalSpacing(4)
        self.grid.setColumnStretch(2, 1)
        self.rows: list[tuple[PlainLabel, PlainLabel, PlainLabel]] = []

    def show_tools(self, tools) -> None:
        for widgets in self.rows:
            for widget in widgets:
                widget.deleteLater()
        self.rows = []
        for number, tool in enumerate(tools):
            name = PlainLabel(tool.title or tool.name, objectName="toolName")
            name.setToolTip(f"Called {tool.model_name} by the model")
            risk = PlainLabel(Risk(tool.risk).label, objectName="toolState")
            set_kind(risk, "on" if tool.risk is Risk.READ_ONLY else "needs_key")
            risk.setToolTip("Runs without asking" if tool.risk is Risk.READ_ONLY else "Asks before it runs")
            description = PlainLabel((tool.description or "").strip().split("\n")[0][:300], objectName="toolDescription",
                                     wordWrap=True)
            self.grid.addWidget(name, number, 0, Qt.AlignmentFlag.AlignTop)
            self.grid.addWidget(risk, number, 1, Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
            self.grid.addWidget(description, number, 2, Qt.AlignmentFlag.AlignTop)
            self.rows.append((name, risk, description))
        self.setVisible(bool(self.rows))

    def risks(self) -> dict[str, str]:
        """Tool name shown -> its risk label (what the user reads)."""
        return {name.text(): risk.text() for name, risk, _ in self.rows}


class ServerRow(QFrame):
    """One configured server; the page fills in the live status and does the work of the buttons."""

    def __init__(self, config: McpServerConfig, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="providerCard")
        self.config = config
        self.name = PlainLabel(config.name, objectName="providerName")
        self.kind = PlainLabel(KINDS.get(config.kind, config.kind), objectName="hint")
        self.state = PlainLabel("Not running", objectName="toolState")
        self.count = PlainLabel(objectName="hint")
        self.where = PlainLabel(config.where, objectName="toolDescription", wordWrap=True)
        self.where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error = PlainLabel(objectName="keyMessage", wordWrap=True)
        self.error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        set_kind(self.error, "error")
        self.error.hide()
        self.result = PlainLabel(objectName="keyMessage", wordWrap=True)
        self.result.hide()
        self.tools = ToolList()
        self.tools.hide()
        self.sign_in_button = QPushButton("Sign in…", objectName="signInServer")
        self.sign_in_button.setToolTip("Opens your browser to sign in to this server (OAuth); the sign-in is kept in the system keyring")
        self.sign_in_button.setAccessibleName(f"Sign in to {config.name}")
        self.sign_in_button.hide()
        self._signing_in = False
        self.test_button = QPushButton("Test")
        self.test_button.setToolTip("Connects to the server once, apart from the running one, and lists its tools")
        self.restart_button = QPushButton("Restart")
        self.remove_button = QPushButton("Remove", objectName="removeServer")
        for button, verb in ((self.test_button, "Test"), (self.restart_button, "Restart"), (self.remove_button, "Remove")):
            button.setAccessibleName(f"{verb} {config.name}")
        head = QHBoxLayout()
        head.setSpacing(10)
        for widget in (self.name, self.kind, self.state, self.count):
            head.addWidget(widget)
        head.addStretch(1)
        for button in (self.sign_in_button, self.test_button, self.restart_button, self.remove_button):
            head.addWidget(button)
        column = QVBoxLayout(self)
        column.setContentsMargins(16, 12, 16, 12)
        column.setSpacing(4)
        column.addLayout(head)
        column.addWidget(self.where)
        column.addWidget(self.error)
        column.addWidget(self.result)
        column.addWidget(self.tools)
        self.set_status(None)

    def set_status(self, status) -> None:
        """The manager's ServerStatus for this server (None: no manager, or not known to it yet)."""
        self.sign_in_button.setVisible(self.wants_sign_in(status))
        if status is None:
            self.state.setText("Disabled" if self.config.disabled else "Not running")
            set_kind(self.state, "off")
            self.count.setText("")
            self.restart_button.setEnabled(False)
            return
        text, kind = STATES.get(str(status.state), (str(status.state).title(), "off"))
        if status.restarts:
            text += f" · restarted {status.restarts}×"
        self.state.setText(text)
        set_kind(self.state, kind)
        self.count.setText(tool_count(len(status.tools)) if str(status.state) == "ready" else "")
        self.restart_button.setEnabled(str(status.state) != "disabled")
        self.error.setText(f"Last error: {status.last_error}" if status.last_error else "")
        self.error.setVisible(bool(status.last_error))
        if str(status.state) == "ready" and status.tools and not self.tools.rows:
            self.tools.show_tools(status.tools)

    def wants_sign_in(self, status) -> bool:
        """A remote server marked for OAuth, or one whose last connect was refused for want of a sign-in."""
        if self.config.kind == "stdio":
            return False
        return self.config.oauth or self._signing_in or (status is not None and status.last_error.startswith(SIGN_IN_NEEDED))

    def set_signing_in(self, busy: bool) -> None:
        self._signing_in = busy
        self.sign_in_button.setEnabled(not busy)
        if busy:
            self.sign_in_button.show()
            self.show_result(WAITING_FOR_BROWSER, "busy")

    def show_sign_in(self, status) -> None:
        """How a sign-in ended: connected with its tools, or why not."""
        if str(status.state) == "ready":
            self.show_result(f"✓ Signed in — {tool_count(len(status.tools))}", "ok")
            self.tools.show_tools(status.tools)
        else:
            self.show_result(f"Could not sign in: {status.last_error or str(status.state)}", "error")

    def set_testing(self, busy: bool) -> None:
        self.test_button.setEnabled(not busy)
        if busy:
            self.show_result(f"Connecting to {self.config.name}…", "busy")

    def show_test(self, status) -> None:
        """What a Test found: the tools with their risks, or why it failed."""
        if str(status.state) == "ready":
            self.show_result(f"✓ Works — {tool_count(len(status.tools))}", "ok")
            self.tools.show_tools(status.tools)
        else:
            self.show_result(f"Could not connect: {status.last_error or str(status.state)}", "error")
            self.tools.show_tools(())

    def show_result(self, text: str, kind: str) -> None:
        self.result.setText(text)
        set_kind(self.result, kind)
        self.result.setVisible(bool(text))


class ServerForm(QDialog):
    """Add server: after `accepted`, `server()` is the McpServerConfig with its env or header values in place
    (McpConfigFile.add moves them to the keyring)."""

    def __init__(self, taken: set[str], parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="endpointForm")
        self.taken = taken
        self.setWindowTitle("Add MCP server")
        self.setMinimumWidth(560)
        self.name_edit = QLineEdit(placeholderText="files")
        self.local_radio = QRadioButton("Local command", checked=True)
        self.remote_radio = QRadioButton("Remote URL")
        self.kind_group = QButtonGroup(self)
        self.kind_group.addButton(self.local_radio)
        self.kind_group.addButton(self.remote_radio)
        self.command_edit = QLineEdit(placeholderText="npx -y @modelcontextprotocol/server-filesystem ~/Documents")
        self.command_edit.setAccessibleName("Command and arguments")
        self.env_edit = QPlainTextEdit(objectName="envEdit")
        self.env_edit.setPlaceholderText("API_TOKEN=…")
        self.env_edit.setFixedHeight(64)
        self.url_edit = QLineEdit(placeholderText="https://example.com/mcp")
        self.headers_edit = QPlainTextEdit(objectName="headersEdit")
        self.headers_edit.setPlaceholderText("Authorization: Bearer …")
        self.headers_edit.setFixedHeight(64)
        self.sse_box = QCheckBox("Older SSE transport")
        self.oauth_box = QCheckBox("Sign in with OAuth (opens the browser)")
        self.pages = QStackedWidget()
        self.problem = PlainLabel(objectName="keyMessage", wordWrap=True)
        self.problem.hide()
        self.add_button = QPushButton("Add", objectName="primaryButton", default=True)
        self.cancel_button = QPushButton("Cancel", autoDefault=False)
        self._layout()
        self.local_radio.toggled.connect(lambda local: self.pages.setCurrentIndex(0 if local else 1))
        self.add_button.clicked.connect(self.accept)
        self.cancel_button.clicked.connect(self.reject)
        self._server: McpServerConfig | None = None

    def _layout(self) -> None:
        self.local_page, self.remote_page = QWidget(), QWidget()
        local = QFormLayout(self.local_page)
        local.setContentsMargins(0, 0, 0, 0)
        local.addRow(form_label("Command", LABEL_WIDTH), self.command_edit)
        local.addRow("", hint("The program and its arguments, as in a shell (quote an argument with spaces)."))
        local.addRow(form_label("Environment", LABEL_WIDTH), self.env_edit)
        local.addRow("", hint(f"One “NAME=value” a line. {KEYRING_NOTE}"))
        remote = QFormLayout(self.remote_page)
        remote.setContentsMargins(0, 0, 0, 0)
        remote.addRow(form_label("URL", LABEL_WIDTH), self.url_edit)
        remote.addRow(form_label("Headers", LABEL_WIDTH), self.headers_edit)
        remote.addRow("", hint(f"One “Name: value” a line. {KEYRING_NOTE}"))
        remote.addRow("", self.sse_box)
        remote.addRow("", self.oauth_box)
        self.pages.addWidget(self.local_page)
        self.pages.addWidget(self.remote_page)
        kinds = QHBoxLayout()
        kinds.addWidget(self.local_radio)
        kinds.addWidget(self.remote_radio)
        kinds.addStretch(1)
        form = form_layout()
        form.addRow(form_label("Name", LABEL_WIDTH), self.name_edit)
        form.addRow(form_label("Kind", LABEL_WIDTH), kinds)
        lay_out_dialog(self, [form, self.pages, self.problem], self.cancel_button, self.add_button)

    def server(self) -> McpServerConfig | None:
        return self._server

    def accept(self) -> None:
        try:
            self._server = self._read()
        except ServerFormError as exc:
            self.problem.setText(str(exc))
            set_kind(self.problem, "error")
            self.problem.show()
            self.adjustSize()
            return
        super().accept()

    def _read(self) -> McpServerConfig:
        name = self.name_edit.text().strip()
        if not SERVER_NAME.match(name):
            raise ServerFormError("Give the server a name: letters, digits, “-”, “_” or “.”, starting with a letter or digit.")
        if name in self.taken:
            raise ServerFormError(f"There is a server called “{name}” already: choose another name, or remove it first.")
        if self.local_radio.isChecked():
            try:
                argv = shlex.split(self.command_edit.text())
            except ValueError as exc:
                raise ServerFormError(f"The command cannot be read ({exc}): check its quotes.") from None
            if not argv:
                raise ServerFormError("Give the command that starts the server, e.g. “npx -y some-mcp-server”.")
            return McpServerConfig(name=name, command=argv[0], args=argv[1:], env=parse_env(self.env_edit.toPlainText()))
        url = self.url_edit.text().strip()
        if problem := url_problem(url, required=True):
            raise ServerFormError(f"The URL {problem}.")
        return McpServerConfig(name=name, url=url, headers=parse_header_lines(self.headers_edit.toPlainText()),
                               transport="sse" if self.sse_box.isChecked() else None, oauth=self.oauth_box.isChecked())
