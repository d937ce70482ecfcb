"""The Tools page: every registered tool with its switch, its risk (read-only, or asks first) and its source, and for a
tool whose key is missing, what it needs and a button that jumps to that key (such a tool is never offered to the
model); above them, the workspace folder the file tools may reach and how much of a tool result the model gets."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QFileDialog, QFormLayout, QFrame, QGridLayout, QHBoxLayout, QPushButton, QSpinBox, QVBoxLayout, QWidget

from desktop_copilot.core.keys.known_keys import KNOWN_KEYS
from desktop_copilot.core.config.settings import Settings
from desktop_copilot.core.tools.base import Risk, Tool
from desktop_copilot.qt.common.core_words import core_text
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.settings.models_page import beside, group, hint, label
from desktop_copilot.qt.settings.styles import set_kind
from desktop_copilot.qt.settings.toggle_switch import ToggleSwitch

NO_WORKSPACE = QT_TRANSLATE_NOOP("ToolsPage", "None — the file tools are off")
MAX_RESULT_LIMIT = 10_000_000
MIN_RESULT_LIMIT = 1_000


def needs_text(names: list[str]) -> str:
    labels = [KNOWN_KEYS[n].label.replace(" API key", "") if n in KNOWN_KEYS else n for n in names]  # product names
    return QCoreApplication.translate("ToolsPage", "Needs a {names} key").format(names=QCoreApplication.translate("ToolsPage", " and a ").join(labels))


def risk_text(risk: Risk, grantable: bool = True) -> str:
    if risk is Risk.READ_ONLY:
        return QCoreApplication.translate("ToolsPage", "Read-only")
    return QCoreApplication.translate("ToolsPage", "Asks first") if grantable else QCoreApplication.translate("ToolsPage", "Asks every time")


class ToolRow(QFrame):
    sig_add_key = Signal(str)

    def __init__(self, tool: Tool, switched_on: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="toolCard")
        self.tool = tool
        self.missing: list[str] = list(tool.required_keys)
        self.has_workspace = True
        self.has_knowledge = True
        self.name = PlainLabel(tool.shown_name, objectName="toolName")
        self.name.setToolTip(self.tr("Called {name} by the model").format(name=tool.name))
        self.risk = PlainLabel(risk_text(tool.risk, tool.grantable), objectName="toolState")
        if tool.risk is Risk.READ_ONLY:
            tip = self.tr("{risk}: runs without asking")
        elif tool.grantable:
            tip = self.tr("{risk}: runs only after you allow it (Settings ▸ Permissions lists what you allowed)")
        else:
            tip = self.tr("{risk}: asks before every call; it cannot be allowed for good")
        self.risk.setToolTip(tip.format(risk=core_text(tool.risk.label)))
        set_kind(self.risk, "on" if tool.risk is Risk.READ_ONLY else "needs_key")
        self.source = PlainLabel(self.tr("from {server}").format(server=tool.source.name) if tool.source.kind == "mcp" else "", objectName="hint")
        self.source.setVisible(bool(self.source.text()))
        self.description = PlainLabel(tool.description, objectName="toolDescription", wordWrap=True)
        self.state = PlainLabel(objectName="toolState")
        self.note = PlainLabel(objectName="toolNote", wordWrap=True)
        self.switch = ToggleSwitch()
        self.switch.setChecked(switched_on)
        self.switch.setAccessibleName(self.tr("Use {name}").format(name=tool.name))
        self.add_key_button = QPushButton(self.tr("Add key…"), objectName="addKeyButton")
        heading = QHBoxLayout()
        heading.setSpacing(10)
        for widget in (self.name, self.source, self.risk, self.state):
            heading.addWidget(widget)
        heading.addStretch(1)
        grid = QGridLayout(self)
        grid.setContentsMargins(16, 14, 16, 14)
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(6)
        grid.addLayout(heading, 0, 0, 1, 3)
        grid.addWidget(self.switch, 0, 3, Qt.AlignmentFlag.AlignRight)
        grid.addWidget(self.description, 1, 0, 1, 4)
        grid.addWidget(self.note, 2, 0, 1, 3)
        grid.addWidget(self.add_key_button, 2, 3, Qt.AlignmentFlag.AlignRight)
        grid.setColumnStretch(2, 1)
        self.switch.toggled.connect(lambda _on: self._update())
        self.add_key_button.clicked.connect(lambda: self.missing and self.sig_add_key.emit(self.missing[0]))
        self._update()

    def set_keys(self, present: dict[str, bool]) -> None:
        self.missing = [name for name in self.tool.required_keys if not present.get(name, False)]
        self._update()

    def set_workspace(self, chosen: bool) -> None:
        self.has_workspace = chosen
        self._update()

    def set_knowledge(self, present: bool) -> None:
        self.has_knowledge = present
        self._update()

    def _lacks_knowledge(self) -> bool:
        return self.tool.needs_knowledge and not self.has_knowledge

    def _update(self) -> None:
        if self.missing:
            text, kind = needs_text(self.missing), "needs_key"
        elif self.tool.needs_workspace and not self.has_workspace:
            text, kind = self.tr("Needs a workspace folder"), "needs_key"
        elif self._lacks_knowledge():
            text, kind = self.tr("Needs a knowledge source"), "needs_key"
        elif self.switch.isChecked():
            text, kind = self.tr("Offered to Claude"), "on"
        else:
            text, kind = self.tr("Switched off"), "off"
        self.state.setText(text)
        set_kind(self.state, kind)
        if self.missing:
            label = KNOWN_KEYS[self.missing[0]].label if self.missing[0] in KNOWN_KEYS else self.missing[0]
            self.note.setText(self.tr("Not offered to Claude until you add a {key}.").format(key=core_text(label)))
            self.add_key_button.setText(self.tr("Add {name} key…").format(name=label.removesuffix(' API key')))
        elif self.tool.needs_workspace and not self.has_workspace:
            self.note.setText(self.tr("Not offered to Claude until you choose a workspace folder below."))
        elif self._lacks_knowledge():
            self.note.setText(self.tr("Not offered to Claude until you add a folder or file in Settings ▸ Knowledge."))
        self.note.setVisible(bool(self.missing) or (self.tool.needs_workspace and not self.has_workspace) or self._lacks_knowledge())
        self.add_key_button.setVisible(bool(self.missing))


class WorkspaceGroup(QFrame):
    """The workspace folder (chosen with a folder dialog, or cleared) and the tool result limit, as edited."""

    sig_folder_changed = Signal(str)
    """The folder as edited ("" when cleared)."""

    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.folder = settings.workspace_folder or ""
        self.folder_dialog: QFileDialog | None = None
        self.folder_label = PlainLabel(objectName="workspaceFolder", wordWrap=True)
        self.folder_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.folder_note = hint()
        self.choose_button = QPushButton(self.tr("Choose…"), objectName="chooseWorkspace")
        self.clear_button = QPushButton(self.tr("Clear"), objectName="clearWorkspace")
        self.result_limit = QSpinBox(minimum=MIN_RESULT_LIMIT, maximum=max(MAX_RESULT_LIMIT, settings.tool_result_limit),
                                     singleStep=10_000, suffix=self.tr(" characters"), objectName="toolResultLimit")
        self.result_limit.setGroupSeparatorShown(True)
        self.result_limit.setFixedWidth(190)
        self.result_limit.setAccessibleName(self.tr("Tool result limit"))
        self.result_limit.lineEdit().setTextMargins(6, 0, 0, 0)
        self.result_limit.setValue(settings.tool_result_limit)
        buttons = QHBoxLayout()
        buttons.setSpacing(8)
        buttons.addWidget(self.folder_label, 1)
        buttons.addWidget(self.choose_button)
        buttons.addWidget(self.clear_button)
        folder_form = QFormLayout()
        folder_form.addRow(label(self.tr("Folder")), buttons)
        folder_form.addRow("", self.folder_note)
        limit_form = QFormLayout()
        limit_form.addRow(label(self.tr("Tool result limit")), beside(
            self.result_limit, self.tr("Characters of a result sent to the model; the card keeps the whole.")))
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(12)
        column.addWidget(group(self.tr("Workspace folder"), folder_form))
        column.addWidget(group(self.tr("Tool results"), limit_form))
        self.choose_button.clicked.connect(self.choose)
        self.clear_button.clicked.connect(lambda: self.set_folder(""))
        self._show()

    def choose(self) -> QFileDialog:
        """Opens a folder dialog (window-modal, no nested event loop); the folder picked is set on accept."""
        start = self.folder if self.folder and Path(self.folder).is_dir() else str(Path.home())
        dialog = QFileDialog(self, self.tr("Choose the workspace folder"), start)
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
        dialog.fileSelected.connect(self.set_folder)
        self.folder_dialog = dialog
        dialog.open()
        return dialog

    def set_folder(self, folder: str) -> None:
        self.folder = str(Path(folder).resolve()) if folder else ""
        self._show()
        self.sig_folder_changed.emit(self.folder)

    def _show(self) -> None:
        self.folder_label.setText(self.folder or QCoreApplication.translate("ToolsPage", NO_WORKSPACE))
        self.clear_button.setEnabled(bool(self.folder))
        if self.folder and not Path(self.folder).is_dir():
            note, kind = self.tr("This folder does not exist (any more): the file tools stay off until you choose another."), "error"
        elif self.folder:
            note, kind = self.tr("The file tools may list, read and search in it without asking; writing asks first. Nothing outside it."), "info"
        else:
            note, kind = self.tr("Choose a folder to let Claude read and (with your approval) edit the files in it."), "info"
        self.folder_note.setText(note)
        set_kind(self.folder_note, kind)


class ToolsPage(QWidget):
    sig_add_key = Signal(str)

    def __init__(self, tools: list[Tool], switched_off: set[str], settings: Settings | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        settings = settings or Settings()
        self.enabled_before = set(settings.enabled_tools)
        """Tools off by default the user had switched on (those not registered now are kept as they are)."""
        self.rows = {tool.name: ToolRow(tool, tool.name not in switched_off
                                        and (tool.enabled_by_default or tool.name in settings.enabled_tools))
                     for tool in tools}
        self.workspace = WorkspaceGroup(settings)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(12)
        column.addWidget(self.workspace)  # first: a long list of MCP tools would hide it
        for row in self.rows.values():
            row.sig_add_key.connect(self.sig_add_key)
            column.addWidget(row)
        if not self.rows:
            column.addWidget(PlainLabel(self.tr("No tools are registered."), objectName="hint"))
        column.addStretch(1)
        self.workspace.sig_folder_changed.connect(self._folder_changed)
        self._folder_changed(self.workspace.folder)

    def set_keys(self, present: dict[str, bool]) -> None:
        for row in self.rows.values():
            row.set_keys(present)

    def set_knowledge(self, present: bool) -> None:
        """Whether a knowledge source is switched on (search_knowledge is offered only then)."""
        for row in self.rows.values():
            row.set_knowledge(present)

    def switched_off(self) -> set[str]:
        """The tools switched off (`Settings.disabled_tools`), but for those off by default: they are off unless
        `enabled_tools` names them."""
        return {name for name, row in self.rows.items() if not row.switch.isChecked() and row.tool.enabled_by_default}

    def edits(self) -> dict:
        """The workspace folder, the result limit and the tools off by default switched on, as Settings values
        (validated by the caller)."""
        off_by_default = {name for name, row in self.rows.items() if not row.tool.enabled_by_default}
        switched_on = {name for name in off_by_default if self.rows[name].switch.isChecked()}
        return {"workspace_folder": self.workspace.folder or None, "tool_result_limit": self.workspace.result_limit.value(),
                "enabled_tools": (self.enabled_before - off_by_default) | switched_on}

    def _folder_changed(self, folder: str) -> None:
        usable = bool(folder) and Path(folder).is_dir()
        for row in self.rows.values():
            row.set_workspace(usable)
