"""The Tools page: every registered tool with its switch, and for a tool whose key is missing, what it
needs and a button that jumps to that key (such a tool is never offered to the model)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QGridLayout, QPushButton, QVBoxLayout, QWidget

from desktop_copilot.core.secrets import KNOWN_KEYS
from desktop_copilot.core.tools.base import Tool
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.settings.styles import set_kind
from desktop_copilot.qt.settings.toggle_switch import ToggleSwitch


def needs_text(names: list[str]) -> str:
    labels = [KNOWN_KEYS[n].label.replace(" API key", "") if n in KNOWN_KEYS else n for n in names]
    return f"Needs a {' and a '.join(labels)} key"


class ToolRow(QFrame):
    sig_add_key = Signal(str)

    def __init__(self, tool: Tool, switched_on: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="toolCard")
        self.tool = tool
        self.missing: list[str] = list(tool.required_keys)
        self.name = PlainLabel(tool.name, objectName="toolName")
        self.description = PlainLabel(tool.description, objectName="toolDescription", wordWrap=True)
        self.state = PlainLabel(objectName="toolState")
        self.note = PlainLabel(objectName="toolNote", wordWrap=True)
        self.switch = ToggleSwitch()
        self.switch.setChecked(switched_on)
        self.switch.setAccessibleName(f"Use {tool.name}")
        self.add_key_button = QPushButton("Add key…", objectName="addKeyButton")
        grid = QGridLayout(self)
        grid.setContentsMargins(16, 14, 16, 14)
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(6)
        grid.addWidget(self.name, 0, 0)
        grid.addWidget(self.state, 0, 1, Qt.AlignmentFlag.AlignLeft)
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

    def _update(self) -> None:
        if self.missing:
            text, kind = needs_text(self.missing), "needs_key"
        elif self.switch.isChecked():
            text, kind = "Offered to Claude", "on"
        else:
            text, kind = "Switched off", "off"
        self.state.setText(text)
        set_kind(self.state, kind)
        if self.missing:
            label = KNOWN_KEYS[self.missing[0]].label if self.missing[0] in KNOWN_KEYS else self.missing[0]
            self.note.setText(f"Not offered to Claude until you add a {label}.")
            self.add_key_button.setText(f"Add {label.removesuffix(' API key')} key…")
        self.note.setVisible(bool(self.missing))
        self.add_key_button.setVisible(bool(self.missing))


class ToolsPage(QWidget):
    sig_add_key = Signal(str)

    def __init__(self, tools: list[Tool], switched_off: set[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows = {tool.name: ToolRow(tool, tool.name not in switched_off) for tool in tools}
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(12)
        for row in self.rows.values():
            row.sig_add_key.connect(self.sig_add_key)
            column.addWidget(row)
        if not self.rows:
            column.addWidget(PlainLabel("No tools are registered.", objectName="hint"))
        column.addStretch(1)

    def set_keys(self, present: dict[str, bool]) -> None:
        for row in self.rows.values():
            row.set_keys(present)

    def switched_off(self) -> set[str]:
        return {name for name, row in self.rows.items() if not row.switch.isChecked()}
