"""Add rule / Edit rule (Settings ▸ Permissions): the action, the tool pattern and the argument pattern of one permission
rule, checked by core's make_rule before the dialog closes (its RuleError shown in the dialog)."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtWidgets import QComboBox, QCompleter, QDialog, QLineEdit, QPushButton, QWidget

from desktop_copilot.core.approval.rules import COMMAND_TOOLS, FILE_TOOLS, GLOB_CHARS, HOST_TOOLS, Action, Rule, RuleError, make_rule
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.settings.form_parts import LABEL_WIDTH, form_label, form_layout, lay_out_dialog
from desktop_copilot.qt.settings.models_page import hint
from desktop_copilot.qt.settings.styles import set_kind

ACTIONS = (
    (Action.ALLOW, QT_TRANSLATE_NOOP("RuleForm", "Allow: run without asking")),
    (Action.ASK, QT_TRANSLATE_NOOP("RuleForm", "Ask: ask every time")),
    (Action.DENY, QT_TRANSLATE_NOOP("RuleForm", "Deny: never run")),
)
TOOL_HINT = "shell, write_file, mcp:SERVER/TOOL, mcp:notes/*, *"
"""The tool field's placeholder: names and globs as rules write them (not translated)."""
KNOWN_TOOLS = sorted(COMMAND_TOOLS | FILE_TOOLS | HOST_TOOLS)
PATTERN_HINTS = {
    "command": QT_TRANSLATE_NOOP("RuleForm", "A command line: “git status*” matches git status with any arguments. "
                                 "Empty: every command."),
    "path": QT_TRANSLATE_NOOP("RuleForm", "A path in the workspace: “src/*” matches everything under src. Empty: every path."),
    "host": QT_TRANSLATE_NOOP("RuleForm", "A host: “*.python.org” matches its subdomains. Empty: every host."),
    "none": QT_TRANSLATE_NOOP("RuleForm", "This tool has no argument rules can match: leave it empty."),
    "unset": QT_TRANSLATE_NOOP("RuleForm", "A command for shell, a path for the file tools, a host for web_fetch. Empty: "
                               "every call."),
    "glob": QT_TRANSLATE_NOOP("RuleForm", "Matched against the main argument of each tool the glob names (a command, a "
                              "path, a host); usually left empty."),
}
PATTERN_PLACEHOLDERS = {"command": "git status*", "path": "src/*", "host": "*.python.org", "none": "", "glob": "", "unset": ""}


def pattern_kind(tool: str) -> str:
    """What a rule's pattern is matched against for `tool`: "command", "path", "host", "none", "glob", or "unset"
    (no tool written yet)."""
    tool = tool.strip()
    if not tool:
        return "unset"
    if tool in COMMAND_TOOLS:
        return "command"
    if tool in FILE_TOOLS:
        return "path"
    if tool in HOST_TOOLS:
        return "host"
    if any(char in tool for char in GLOB_CHARS) and not tool.startswith("mcp:"):
        return "glob"
    return "none"


class RuleForm(QDialog):
    """After `accepted`, `rule()` is the checked Rule; `editing` prefills the fields (Edit rule)."""

    def __init__(self, editing: Rule | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="endpointForm")
        self.editing = editing
        self._rule: Rule | None = None
        self.setWindowTitle(self.tr("Edit rule") if editing is not None else self.tr("Add rule"))
        self.setMinimumWidth(520)
        self.action_combo = QComboBox(objectName="ruleActionCombo")
        for action, label in ACTIONS:
            self.action_combo.addItem(QCoreApplication.translate("RuleForm", label), action.value)
        self.action_combo.setAccessibleName(self.tr("Action"))
        self.tool_edit = QLineEdit(placeholderText=TOOL_HINT, objectName="ruleToolEdit")
        self.tool_edit.setAccessibleName(self.tr("Tool"))
        completer = QCompleter(KNOWN_TOOLS, self.tool_edit)
        self.tool_edit.setCompleter(completer)
        self.tool_hint = hint(self.tr("A built-in tool’s name, an MCP tool as mcp:SERVER/TOOL, or a glob (* matches anything)."))
        self.pattern_edit = QLineEdit(objectName="rulePatternEdit")
        self.pattern_edit.setAccessibleName(self.tr("Pattern"))
        self.pattern_hint = hint()
        self.problem = PlainLabel(objectName="keyMessage", wordWrap=True)
        set_kind(self.problem, "error")
        self.problem.hide()
        self.save_button = QPushButton(self.tr("Save") if editing is not None else self.tr("Add"), objectName="primaryButton",
                                       default=True)
        self.cancel_button = QPushButton(self.tr("Cancel"), autoDefault=False)
        form = form_layout()
        form.addRow(form_label(self.tr("Action"), LABEL_WIDTH), self.action_combo)
        form.addRow(form_label(self.tr("Tool"), LABEL_WIDTH), self.tool_edit)
        form.addRow("", self.tool_hint)
        form.addRow(form_label(self.tr("Pattern"), LABEL_WIDTH), self.pattern_edit)
        form.addRow("", self.pattern_hint)
        lay_out_dialog(self, [form, self.problem], self.cancel_button, self.save_button)
        if editing is not None:
            self.action_combo.setCurrentIndex(self.action_combo.findData(editing.action.value))
            self.tool_edit.setText(editing.tool)
            self.pattern_edit.setText(editing.pattern)
        self.tool_edit.textChanged.connect(self._tool_changed)
        self._tool_changed(self.tool_edit.text())
        self.save_button.clicked.connect(self.accept)
        self.cancel_button.clicked.connect(self.reject)

    def _tool_changed(self, tool: str) -> None:
        kind = pattern_kind(tool)
        self.pattern_hint.setText(QCoreApplication.translate("RuleForm", PATTERN_HINTS[kind]))
        self.pattern_edit.setPlaceholderText(PATTERN_PLACEHOLDERS[kind])
        self._fit()

    def _fit(self) -> None:
        """Taller when a longer hint or the problem needs it (wrapped labels do not grow a window by themselves)."""
        layout = self.layout()
        layout.activate()
        needed = layout.totalHeightForWidth(self.width()) if layout.hasHeightForWidth() else layout.totalSizeHint().height()
        if needed > self.height():
            self.resize(self.width(), needed)

    def rule(self) -> Rule | None:
        return self._rule

    def accept(self) -> None:
        action = self.action_combo.currentData()
        try:
            self._rule = make_rule(action if isinstance(action, str) else "", self.tool_edit.text(), self.pattern_edit.text())
        except RuleError as exc:
            self.problem.setText(str(exc))
            self.problem.show()
            self._fit()
            return
        super().accept()
