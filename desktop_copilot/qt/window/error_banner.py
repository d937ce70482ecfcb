"""A dismissible red banner above the composer that shows the last error in words a user can act on (keys masked),
and under it a standing condition (the disk refusing writes) until that ends."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QToolButton, QWidget

from desktop_copilot.core.keys.redaction import redact
from desktop_copilot.qt.common.plain_label import PlainLabel


def storage_problem_text(kind: str, folder: Path) -> str:
    """What the user reads while the database refuses writes (kinds of core.storage.health), and what to do."""
    translate = QCoreApplication.translate
    if kind == "full":
        return translate("ErrorBanner", "The disk is full, so conversations cannot be saved. Your replies stay in this "
                                        "window and are saved as soon as there is room: free some disk space.")
    if kind == "read_only":
        return translate("ErrorBanner", "The conversation database is read-only, so conversations cannot be saved. Your "
                                        "replies stay in this window and are saved once it can be written: check the "
                                        "permissions of {folder}.").format(folder=folder)
    if kind == "busy":
        return translate("ErrorBanner", "Another program is holding the conversation database, so conversations cannot "
                                        "be saved yet. Your replies stay in this window and saving is tried again.")
    return translate("ErrorBanner", "The conversation database cannot be written (a disk error). Your replies stay in "
                                    "this window and saving is tried again: check the disk that holds {folder}.").format(folder=folder)


class ErrorBanner(QFrame):
    sig_dismissed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("errorBanner")
        self._error = ""
        self.standing = ""
        """A condition that lasts (the disk): shown under any error until `set_standing("")`, even after an error
        is dismissed; the ✕ hides it until it changes."""
        self.icon = PlainLabel("!", self)
        self.icon.setObjectName("errorIcon")
        self.icon.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.icon.setFixedSize(20, 20)
        self.label = PlainLabel(self)
        self.label.setObjectName("errorText")
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.close_button = QToolButton(self)
        self.close_button.setObjectName("errorClose")
        self.close_button.setText("✕")
        self.close_button.setToolTip(self.tr("Dismiss"))
        self.close_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.close_button.clicked.connect(self._closed)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 8, 8, 8)
        layout.setSpacing(10)
        layout.addWidget(self.icon, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    def show_error(self, message: str) -> None:
        """Shows `message` with every key in it masked (an error's words may quote a server's, which may echo one)."""
        self._error = redact(message)
        self._show()

    def set_standing(self, text: str) -> None:
        """Show `text` as the standing condition ("" ends it)."""
        if text == self.standing:
            return
        self.standing = text
        self._show() if text or self._error else self._hide()

    def text(self) -> str:
        return "" if self.isHidden() else self.label.text()

    def dismiss(self) -> None:
        """The error goes (a new attempt starts); a standing condition stays."""
        self._error = ""
        self._show() if self.standing else self._hide()
        self.sig_dismissed.emit()

    def _closed(self) -> None:
        self._error = ""
        self._hide()
        self.sig_dismissed.emit()

    def _show(self) -> None:
        self.label.setText("\n\n".join(part for part in (self._error, self.standing) if part))
        self.show()

    def _hide(self) -> None:
        self.hide()
        self.label.clear()
