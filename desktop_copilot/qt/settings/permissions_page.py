"""Settings ▸ Permissions: the permission rules the user wrote and the grants given on approval cards, together and
numbered most specific first (as `desktop-copilot permissions list` numbers them); Add rule…, Edit… a rule, Remove one
and Remove all. The list follows the GrantStore live, also when it changes on the asyncio loop's thread (a card's
"Always allow") while the dialog is open."""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QMessageBox, QPushButton, QVBoxLayout, QWidget

from desktop_copilot.core.approval.grants import ALWAYS, Grant, GrantStore
from desktop_copilot.core.approval.rules import Rule
from desktop_copilot.qt.common.change_relay import ChangeRelay
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.common.theme import Theme
from desktop_copilot.qt.common.theme_switch import current_theme, themed_style_sheet
from desktop_copilot.qt.settings.models_page import hint
from desktop_copilot.qt.settings.rule_dialog import RuleForm
from desktop_copilot.qt.settings.styles import set_kind

RULE = QT_TRANSLATE_NOOP("PermissionsPage", "Rules decide first: the most specific matching rule wins, and at equal "
                         "specificity deny beats ask beats allow. Without a rule, read-only tools run and the others ask. "
                         "“Always allow” on an approval card adds a permission here too.")
EMPTY = QT_TRANSLATE_NOOP("PermissionsPage", "No rules or standing permissions. Read-only tools run without asking; the "
                          "others ask each time.")
MAX_TITLE = 60
ACTION_WORDS = {
    "allow": QT_TRANSLATE_NOOP("PermissionsPage", "allow"),
    "ask": QT_TRANSLATE_NOOP("PermissionsPage", "ask"),
    "deny": QT_TRANSLATE_NOOP("PermissionsPage", "deny"),
}


@themed_style_sheet
def permissions_style_sheet(theme: Theme) -> str:
    """The action pills: allow green, ask amber, deny red."""
    return f"""
        QLabel#ruleAction {{
            border-radius: 9px; padding: 2px 10px; font-size: 9pt; font-weight: 600; border: 1px solid {theme.border};
        }}
        QLabel#ruleAction[kind="allow"] {{ color: {theme.ok_text}; background: {theme.ok_background}; border-color: {theme.ok_border}; }}
        QLabel#ruleAction[kind="ask"] {{ color: {theme.warn_text}; background: {theme.warn_background}; border-color: {theme.warn_border}; }}
        QLabel#ruleAction[kind="deny"] {{ color: {theme.error_text}; background: {theme.error_background}; border-color: {theme.error_border}; }}
        QLabel#rulePattern {{ font-family: monospace; font-size: 10pt; }}
        QLabel#ruleNumber {{ color: {theme.muted}; font-size: 10pt; }}
    """


def scope_text(grant: Grant) -> str:
    if grant.scope == ALWAYS:
        return QCoreApplication.translate("PermissionsPage", "Always")
    title = grant.conversation_title or QCoreApplication.translate("PermissionsPage", "one conversation")
    return QCoreApplication.translate("PermissionsPage", "In: {title}").format(title=title if len(title) <= MAX_TITLE else title[:MAX_TITLE - 1] + '…')


class EntryRow(QFrame):
    """One rule or grant: its number, action, tool and pattern; for a grant where it comes from and its scope; Edit…
    (rules only) and Remove."""

    def __init__(self, number: int, entry: Rule | Grant, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="toolCard")
        self.entry = entry
        rule = entry.as_rule() if isinstance(entry, Grant) else entry
        self.number = PlainLabel(f"{number}.", objectName="ruleNumber")
        self.action = PlainLabel(QCoreApplication.translate("PermissionsPage", ACTION_WORDS[rule.action.value]), objectName="ruleAction")
        set_kind(self.action, rule.action.value)
        shown = (entry.shown_name or entry.tool) if isinstance(entry, Grant) else entry.tool
        self.name = PlainLabel(shown, objectName="toolName")
        self.name.setToolTip(rule.tool)
        self.pattern = PlainLabel(rule.pattern, objectName="rulePattern")
        self.pattern.setVisible(bool(rule.pattern))
        self.pattern.setToolTip(QCoreApplication.translate("PermissionsPage", "Only calls whose main argument matches this pattern"))
        self.source = PlainLabel("", objectName="hint")
        self.scope = PlainLabel("", objectName="toolState")
        self.edit_button: QPushButton | None = None
        if isinstance(entry, Grant):
            if entry.source_label:
                self.source.setText(QCoreApplication.translate("PermissionsPage", "from {server}").format(server=entry.source_label))
            self.scope.setText(scope_text(entry))
            self.scope.setToolTip(QCoreApplication.translate("PermissionsPage", "Everywhere") if entry.scope == ALWAYS
                else QCoreApplication.translate("PermissionsPage", "Only in “{title}”").format(title=entry.conversation_title or entry.conversation_id))
            set_kind(self.scope, "on" if entry.scope == ALWAYS else "off")
            when = QCoreApplication.translate("PermissionsPage", "Given {when}")
        else:
            self.scope.hide()
            when = QCoreApplication.translate("PermissionsPage", "Rule added {when}")
            self.edit_button = QPushButton(QCoreApplication.translate("PermissionsPage", "Edit…"), objectName="editRuleButton")
            self.edit_button.setAccessibleName(QCoreApplication.translate("PermissionsPage", "Edit rule {number}").format(number=number))
        self.source.setVisible(bool(self.source.text()))
        self.date = PlainLabel(when.format(when=datetime.fromtimestamp(entry.created_at).strftime('%Y-%m-%d %H:%M')),
                               objectName="hint")
        self.remove_button = QPushButton(QCoreApplication.translate("PermissionsPage", "Remove"), objectName="removeButton")
        self.remove_button.setAccessibleName(QCoreApplication.translate("PermissionsPage", "Remove {number}: {action} {tool}").format(
            number=number, action=self.action.text(), tool=shown))
        lines = QVBoxLayout()
        lines.setSpacing(4)
        for widgets in ((self.action, self.name, self.pattern, self.source), (self.scope, self.date)):
            line = QHBoxLayout()
            line.setSpacing(10)
            for widget in widgets:
                line.addWidget(widget)
            line.addStretch(1)
            lines.addLayout(line)
        row = QHBoxLayout(self)
        row.setContentsMargins(12, 10, 16, 10)
        row.setSpacing(10)
        row.addWidget(self.number, 0, Qt.AlignmentFlag.AlignTop)
        row.addLayout(lines, 1)
        if self.edit_button is not None:
            row.addWidget(self.edit_button, 0, Qt.AlignmentFlag.AlignVCenter)
        row.addWidget(self.remove_button, 0, Qt.AlignmentFlag.AlignVCenter)


class PermissionsPage(QWidget):
    def __init__(self, grants: GrantStore | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setStyleSheet(permissions_style_sheet(current_theme()))
        self.grants = grants
        self.rows: list[EntryRow] = []
        self.confirm_box: QMessageBox | None = None
        self.form: RuleForm | None = None
        self.problem = PlainLabel(grants.problem if grants is not None and grants.problem else "", objectName="keyMessage",
                                  wordWrap=True)
        set_kind(self.problem, "error")
        self.problem.setVisible(bool(self.problem.text()))
        self.empty = PlainLabel(self.tr(EMPTY), objectName="hint", wordWrap=True)
        self.add_button = QPushButton(self.tr("Add rule…"), objectName="addRuleButton")
        self.add_button.setEnabled(grants is not None)
        self.remove_all_button = QPushButton(self.tr("Remove all"), objectName="removeAllButton")
        self.list = QVBoxLayout()
        self.list.setSpacing(8)
        buttons = QVBoxLayout()
        buttons.setSpacing(6)
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_all_button)
        buttons.addStretch(1)
        top = QHBoxLayout()
        top.addWidget(hint(self.tr(RULE)), 1)
        top.addLayout(buttons, 0)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(12)
        column.addLayout(top)
        column.addWidget(self.problem)
        column.addWidget(self.empty)
        column.addLayout(self.list)
        column.addStretch(1)
        self.add_button.clicked.connect(lambda: self.open_form())
        self.remove_all_button.clicked.connect(self.ask_remove_all)
        self._relay = ChangeRelay(self, self.reload)
        if grants is not None:
            grants.subscribe(self._relay.listener())
        self.reload()

    def reload(self) -> None:
        """Rebuilds the list from the store, in `listed()` order (most specific first), numbered from 1."""
        for row in self.rows:
            row.hide()
            row.deleteLater()
        entries = self.grants.listed() if self.grants is not None else []
        self.rows = [EntryRow(number, entry) for number, entry in enumerate(entries, start=1)]
        for row in self.rows:
            row.remove_button.clicked.connect(lambda _checked=False, entry=row.entry: self.remove(entry))
            if row.edit_button is not None:
                row.edit_button.clicked.connect(lambda _checked=False, entry=row.entry: self.open_form(entry))
            self.list.addWidget(row)
        self.empty.setVisible(not self.rows)
        self.remove_all_button.setEnabled(bool(self.rows))

    def remove(self, entry: Rule | Grant) -> None:
        if self.grants is not None:
            self.grants.remove(entry)  # the store tells the page, which reloads

    def open_form(self, editing: Rule | None = None) -> RuleForm:
        """Add rule… (or Edit… of `editing`): the checked rule is added (replacing the edited one) when accepted."""
        form = RuleForm(editing, self)
        form.accepted.connect(lambda: self.save_rule(form.rule(), editing))
        self.form = form
        form.open()
        return form

    def save_rule(self, rule: Rule | None, replacing: Rule | None = None) -> None:
        if rule is None or self.grants is None:
            return
        if replacing is not None:
            self.grants.remove_rule(replacing)
        self.grants.add_rule(rule)

    def ask_remove_all(self) -> QMessageBox:
        count = len(self.rows)
        question = (self.tr("Remove the rule or standing permission?") if count == 1
                    else self.tr("Remove all %n rules and standing permissions?", "", count))
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("Remove all rules and permissions"),
                          question + " " + self.tr("Read-only tools will run and every tool that changes things will ask again."),
                          QMessageBox.StandardButton.Cancel, self)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.addButton(self.tr("Remove all"), QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        destructive = QMessageBox.ButtonRole.DestructiveRole
        box.buttonClicked.connect(lambda button: box.buttonRole(button) == destructive and self.remove_all())
        self.confirm_box = box
        box.open()
        return box

    def remove_all(self) -> int:
        return self.grants.reset() if self.grants is not None else 0

