"""The widgets of Settings ▸ MCP servers: a server's row (name, kind, command line or URL, live state, tools, last
error, Sign in… for remote servers that want an OAuth sign-in, Test / Restart / Remove) and the Add server form (a local
command or a remote URL), with its checks."""

from __future__ import annotations

import re
import shlex

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
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

from desktop_copilot.core.mcp.server_config import SERVER_NAME, McpServerConfig
from desktop_copilot.core.tools.base import Risk
from desktop_copilot.qt.common.core_words import core_text
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.settings.form_parts import parse_header_lines as form_header_lines, form_label, form_layout, lay_out_dialog
from desktop_copilot.qt.settings.models_page import hint
from desktop_copilot.qt.settings.providers_parts import url_problem
from desktop_copilot.qt.settings.styles import set_kind

KINDS = {"stdio": QT_TRANSLATE_NOOP("ServerRow", "Local command"), "http": QT_TRANSLATE_NOOP("ServerRow", "Remote (Streamable HTTP)"),
    "sse": QT_TRANSLATE_NOOP("ServerRow", "Remote (SSE)")}
STATES = {"disabled": (QT_TRANSLATE_NOOP("ServerRow", "Disabled"), "off"), "starting": (QT_TRANSLATE_NOOP("ServerRow", "Starting…"), "off"),
    "ready": (QT_TRANSLATE_NOOP("ServerRow", "Ready"), "on"),
          "failed": (QT_TRANSLATE_NOOP("ServerRow", "Failed"), "needs_key"), "stopped": (QT_TRANSLATE_NOOP("ServerRow", "Stopped"), "off")}
"""ServerState value -> (the pill's text, its style kind)."""
KEYRING_NOTE = QT_TRANSLATE_NOOP("ServerForm", "Values are stored in the system keyring, not in mcp.json.")
SIGN_IN_NEEDED = "needs sign-in"
"""How a ServerStatus.last_error starts when the server wants an OAuth sign-in (core/mcp/connection.describe_error)."""
WAITING_FOR_BROWSER = QT_TRANSLATE_NOOP("ServerRow", "Waiting for the browser… Finish signing in there; this waits up to 5 minutes.")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
LABEL_WIDTH = 110


class ServerFormError(ValueError):
    """A value in the Add server form that cannot be used; the message says why and what to do."""


def tool_count(count: int) -> str:
    return QCoreApplication.translate("ServerRow", "1 tool") if count == 1 else QCoreApplication.translate("ServerRow", "%n tools", "", count)


def parse_env(text: str) -> dict[str, str]:
    """`NAME=value` lines (blank lines skipped); ServerFormError for a malformed line."""
    env: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        name, equals, value = line.partition("=")
        name = name.strip()
        if not equals or not _ENV_NAME.match(name):
            raise ServerFormError(QCoreApplication.translate("ServerForm", "Environment line {number} is not “NAME=value”.").format(number=number))
        env[name] = value.strip()
    return env


def parse_header_lines(text: str) -> dict[str, str]:
    """`Name: value` lines (blank lines skipped); ServerFormError for a malformed line. Every value goes to the
    keyring, so a header may carry a secret (unlike an endpoint's headers on the Providers page)."""
    return form_header_lines(text, lambda number: ServerFormError(
        QCoreApplication.translate("ServerForm", "Header line {number} is not “Name: value”.").format(number=number)))


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
            name.setToolTip(QCoreApplication.translate("ToolRow", "Called {name} by the model").format(name=tool.model_name))
            risk = PlainLabel(core_text(Risk(tool.risk).label), objectName="toolState")
            set_kind(risk, "on" if tool.risk is Risk.READ_ONLY else "needs_key")
            risk.setToolTip(self.tr("Runs without asking") if tool.risk is Risk.READ_ONLY else self.tr("Asks before it runs"))
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
        self.kind = PlainLabel(self.tr(KINDS[config.kind]) if config.kind in KINDS else config.kind, objectName="hint")
        self.state = PlainLabel(self.tr("Not running"), objectName="toolState")
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
        self.sign_in_button = QPushButton(self.tr("Sign in…"), objectName="signInServer")
        self.sign_in_button.setToolTip(self.tr("Opens your browser to sign in to this server (OAuth); the sign-in is kept in the system keyring"))
        self.sign_in_button.setAccessibleName(self.tr("Sign in to {name}").format(name=config.name))
        self.sign_in_button.hide()
        self._signing_in = False
        self.test_button = QPushButton(self.tr("Test"))
        self.test_button.setToolTip(self.tr("Connects to the server once, apart from the running one, and lists its tools"))
        self.restart_button = QPushButton(self.tr("Restart"))
        self.remove_button = QPushButton(self.tr("Remove"), objectName="removeServer")
        for button, verb in ((self.test_button, self.tr("Test {name}")), (self.restart_button, self.tr("Restart {name}")),
                             (self.remove_button, self.tr("Remove {name}"))):
            button.setAccessibleName(verb.format(name=config.name))
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
            self.state.setText(self.tr("Disabled") if self.config.disabled else self.tr("Not running"))
            set_kind(self.state, "off")
            self.count.setText("")
            self.restart_button.setEnabled(False)
            return
        text, kind = STATES.get(str(status.state), (str(status.state).title(), "off"))
        text = self.tr(text)
        if status.restarts:
            text += self.tr(" · restarted {count}×").format(count=status.restarts)
        self.state.setText(text)
        set_kind(self.state, kind)
        self.count.setText(tool_count(len(status.tools)) if str(status.state) == "ready" else "")
        self.restart_button.setEnabled(str(status.state) != "disabled")
        self.error.setText(self.tr("Last error: {error}").format(error=status.last_error) if status.last_error else "")
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
            self.show_result(self.tr(WAITING_FOR_BROWSER), "busy")

    def show_sign_in(self, status) -> None:
        """How a sign-in ended: connected with its tools, or why not."""
        if str(status.state) == "ready":
            self.show_result(self.tr("✓ Signed in — {tools}").format(tools=tool_count(len(status.tools))), "ok")
            self.tools.show_tools(status.tools)
        else:
            self.show_result(QCoreApplication.translate("McpPage", "Could not sign in: {problem}")
                .format(problem=status.last_error or str(status.state)), "error")

    def set_testing(self, busy: bool) -> None:
        self.test_button.setEnabled(not busy)
        if busy:
            self.show_result(self.tr("Connecting to {name}…").format(name=self.config.name), "busy")

    def show_test(self, status) -> None:
        """What a Test found: the tools with their risks, or why it failed."""
        if str(status.state) == "ready":
            self.show_result(self.tr("✓ Works — {tools}").format(tools=tool_count(len(status.tools))), "ok")
            self.tools.show_tools(status.tools)
        else:
            self.show_result(self.tr("Could not connect: {problem}").format(problem=status.last_error or str(status.state)), "error")
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
        self.setWindowTitle(self.tr("Add MCP server"))
        self.setMinimumWidth(560)
        self.name_edit = QLineEdit(placeholderText="files")  # i18n: not translated
        self.local_radio = QRadioButton(self.tr("Local command"), checked=True)
        self.remote_radio = QRadioButton(self.tr("Remote URL"))
        self.kind_group = QButtonGroup(self)
        self.kind_group.addButton(self.local_radio)
        self.kind_group.addButton(self.remote_radio)
        self.command_edit = QLineEdit(placeholderText="npx -y @modelcontextprotocol/server-filesystem ~/Documents")  # i18n: not translated
        self.command_edit.setAccessibleName(self.tr("Command and arguments"))
        self.env_edit = QPlainTextEdit(objectName="envEdit")
        self.env_edit.setPlaceholderText("API_TOKEN=…")  # i18n: not translated
        self.env_edit.setFixedHeight(64)
        self.url_edit = QLineEdit(placeholderText="https://example.com/mcp")  # i18n: not translated
        self.headers_edit = QPlainTextEdit(objectName="headersEdit")
        self.headers_edit.setPlaceholderText("Authorization: Bearer …")  # i18n: not translated
        self.headers_edit.setFixedHeight(64)
        self.sse_box = QCheckBox(self.tr("Older SSE transport"))
        self.oauth_box = QCheckBox(self.tr("Sign in with OAuth (opens the browser)"))
        self.pages = QStackedWidget()
        self.problem = PlainLabel(objectName="keyMessage", wordWrap=True)
        self.problem.hide()
        self.add_button = QPushButton(self.tr("Add"), objectName="primaryButton", default=True)
        self.cancel_button = QPushButton(self.tr("Cancel"), autoDefault=False)
        self._layout()
        self.local_radio.toggled.connect(lambda local: self.pages.setCurrentIndex(0 if local else 1))
        self.add_button.clicked.connect(self.accept)
        self.cancel_button.clicked.connect(self.reject)
        self._server: McpServerConfig | None = None

    def _layout(self) -> None:
        self.local_page, self.remote_page = QWidget(), QWidget()
        local = QFormLayout(self.local_page)
        local.setContentsMargins(0, 0, 0, 0)
        local.addRow(form_label(self.tr("Command"), LABEL_WIDTH), self.command_edit)
        local.addRow("", hint(self.tr("The program and its arguments, as in a shell (quote an argument with spaces).")))
        local.addRow(form_label(self.tr("Environment"), LABEL_WIDTH), self.env_edit)
        local.addRow("", hint(self.tr("One “NAME=value” a line.") + " " + self.tr(KEYRING_NOTE)))
        remote = QFormLayout(self.remote_page)
        remote.setContentsMargins(0, 0, 0, 0)
        remote.addRow(form_label(self.tr("URL"), LABEL_WIDTH), self.url_edit)
        remote.addRow(form_label(self.tr("Headers"), LABEL_WIDTH), self.headers_edit)
        remote.addRow("", hint(self.tr("One “Name: value” a line.") + " " + self.tr(KEYRING_NOTE)))
        remote.addRow("", self.sse_box)
        remote.addRow("", self.oauth_box)
        self.pages.addWidget(self.local_page)
        self.pages.addWidget(self.remote_page)
        kinds = QHBoxLayout()
        kinds.addWidget(self.local_radio)
        kinds.addWidget(self.remote_radio)
        kinds.addStretch(1)
        form = form_layout()
        form.addRow(form_label(self.tr("Name"), LABEL_WIDTH), self.name_edit)
        form.addRow(form_label(self.tr("Kind"), LABEL_WIDTH), kinds)
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
            raise ServerFormError(self.tr("Give the server a name: letters, digits, “-”, “_” or “.”, starting with a letter or digit."))
        if name in self.taken:
            raise ServerFormError(self.tr("There is a server called “{name}” already: choose another name, or remove it first.").format(name=name))
        if self.local_radio.isChecked():
            try:
                argv = shlex.split(self.command_edit.text())
            except ValueError as exc:
                raise ServerFormError(self.tr("The command cannot be read ({problem}): check its quotes.").format(problem=exc)) from None
            if not argv:
                raise ServerFormError(self.tr("Give the command that starts the server, e.g. “npx -y some-mcp-server”."))
            return McpServerConfig(name=name, command=argv[0], args=argv[1:], env=parse_env(self.env_edit.toPlainText()))
        url = self.url_edit.text().strip()
        if problem := url_problem(url, required=True):
            raise ServerFormError(self.tr("The URL {problem}.").format(problem=problem))
        return McpServerConfig(name=name, url=url, headers=parse_header_lines(self.headers_edit.toPlainText()),
                               transport="sse" if self.sse_box.isChecked() else None, oauth=self.oauth_box.isChecked())
