"""Settings ▸ Permissions: the standing permissions (grants) the user gave, each revocable, and Revoke all; the list
follows the GrantStore live, also when a grant is added on the asyncio loop's thread while the dialog is open."""

from __future__ import annotations

from datetime import datetime

import shiboken6
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QMessageBox, QPushButton, QVBoxLayout, QWidget

from desktop_copilot.core.approval.grants import ALWAYS, Grant, GrantStore
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.settings.models_page import hint
from desktop_copilot.qt.settings.styles import set_kind

RULE = QT_TRANSLATE_NOOP("PermissionsPage", "Read-only tools run without asking; the others ask each time, unless you gave a standing permission below.")
EMPTY = QT_TRANSLATE_NOOP("PermissionsPage", "No standing permissions. Tools that change things ask each time.")
MAX_TITLE = 60


def scope_text(grant: Grant) -> str:
    if grant.scope == ALWAYS:
        return QCoreApplication.translate("PermissionsPage", "Always")
    title = grant.conversation_title or QCoreApplication.translate("PermissionsPage", "one conversation")
    return QCoreApplication.translate("PermissionsPage", "In: {title}").format(title=title if len(title) <= MAX_TITLE else title[:MAX_TITLE - 1] + '…')


class ChangeRelay(QObject):
    """Carries "it changed" from whichever thread a store or manager calls its listeners on to `slot`, later, on the
    GUI thread (a queued signal). `listener()` is what to subscribe; it does nothing once the relay's owner is gone."""

    sig_changed = Signal()

    def __init__(self, owner: QObject, slot) -> None:
        super().__init__(owner)
        self.sig_changed.connect(slot, Qt.ConnectionType.QueuedConnection)

    def listener(self):
        relay = self
        return lambda *_args: _notify(relay)


class GrantRow(QFrame):
    """One grant: the tool, where it comes from, its scope and date, and Revoke."""

    def __init__(self, grant: Grant, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="toolCard")
        self.grant = grant
        self.name = PlainLabel(grant.shown_name or grant.tool, objectName="toolName")
        self.name.setToolTip(grant.tool)
        self.source = PlainLabel(QCoreApplication.translate("PermissionsPage", "from {server}")
            .format(server=grant.source_label) if grant.source_label else "", objectName="hint")
        self.scope = PlainLabel(scope_text(grant), objectName="toolState")
        self.scope.setToolTip(QCoreApplication.translate("PermissionsPage", "Everywhere") if grant.scope == ALWAYS
            else QCoreApplication.translate("PermissionsPage", "Only in “{title}”").format(
            title=grant.conversation_title or grant.conversation_id))
        set_kind(self.scope, "on" if grant.scope == ALWAYS else "off")
        self.date = PlainLabel(QCoreApplication.translate("PermissionsPage", "Given {when}")
            .format(when=datetime.fromtimestamp(grant.created_at).strftime('%Y-%m-%d %H:%M')),
                               objectName="hint")
        self.revoke_button = QPushButton(QCoreApplication.translate("PermissionsPage", "Revoke"), objectName="revokeButton")
        self.revoke_button.setAccessibleName(QCoreApplication.translate("PermissionsPage", "Revoke the permission for {tool}").format(tool=self.name.text()))
        lines = QVBoxLayout()
        lines.setSpacing(4)
        for widgets in ((self.name, self.source), (self.scope, self.date)):
            line = QHBoxLayout()
            line.setSpacing(10)
            for widget in widgets:
                line.addWidget(widget)
            line.addStretch(1)
            lines.addLayout(line)
        row = QHBoxLayout(self)
        row.setContentsMargins(16, 12, 16, 12)
        row.addLayout(lines, 1)
        row.addWidget(self.revoke_button, 0, Qt.AlignmentFlag.AlignVCenter)


class PermissionsPage(QWidget):
    def __init__(self, grants: GrantStore | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.grants = grants
        self.rows: list[GrantRow] = []
        self.confirm_box: QMessageBox | None = None
        self.problem = PlainLabel(grants.problem if grants is not None and grants.problem else "", objectName="keyMessage",
                                  wordWrap=True)
        set_kind(self.problem, "error")
        self.problem.setVisible(bool(self.problem.text()))
        self.empty = PlainLabel(self.tr(EMPTY), objectName="hint", wordWrap=True)
        self.revoke_all_button = QPushButton(self.tr("Revoke all"), objectName="revokeAllButton")
        self.list = QVBoxLayout()
        self.list.setSpacing(8)
        top = QHBoxLayout()
        top.addWidget(hint(self.tr(RULE)), 1)
        top.addWidget(self.revoke_all_button, 0, Qt.AlignmentFlag.AlignTop)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(12)
        column.addLayout(top)
        column.addWidget(self.problem)
        column.addWidget(self.empty)
        column.addLayout(self.list)
        column.addStretch(1)
        self.revoke_all_button.clicked.connect(self.ask_revoke_all)
        self._relay = ChangeRelay(self, self.reload)
        if grants is not None:
            grants.subscribe(self._relay.listener())
        self.reload()

    def reload(self) -> None:
        """Rebuilds the list from the store (newest first)."""
        for row in self.rows:
            row.hide()
            row.deleteLater()
        grants = sorted(self.grants.all(), key=lambda g: g.created_at, reverse=True) if self.grants is not None else []
        self.rows = [GrantRow(grant) for grant in grants]
        for row in self.rows:
            row.revoke_button.clicked.connect(lambda _checked=False, grant=row.grant: self.revoke(grant))
            self.list.addWidget(row)
        self.empty.setVisible(not self.rows)
        self.revoke_all_button.setEnabled(bool(self.rows))

    def revoke(self, grant: Grant) -> None:
        if self.grants is not None:
            self.grants.revoke(grant)  # the store tells the page, which reloads

    def ask_revoke_all(self) -> QMessageBox:
        count = len(self.rows)
        question = self.tr("Revoke the standing permission?") if count == 1 else self.tr("Revoke all %n standing permissions?", "", count)
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("Revoke all permissions"),
                          question + " " + self.tr("Every tool that changes things will ask again."),
                          QMessageBox.StandardButton.Cancel, self)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.addButton(self.tr("Revoke all"), QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        destructive = QMessageBox.ButtonRole.DestructiveRole
        box.buttonClicked.connect(lambda button: box.buttonRole(button) == destructive and self.revoke_all())
        self.confirm_box = box
        box.open()
        return box

    def revoke_all(self) -> int:
        return self.grants.revoke_all() if self.grants is not None else 0


def _notify(relay: ChangeRelay) -> None:
    """A listener's call (any thread): a queued signal, unless the relay was deleted with its page."""
    if shiboken6.isValid(relay):
        try:
            relay.sig_changed.emit()
        except RuntimeError:  # deleted between the check and the emit
            pass
