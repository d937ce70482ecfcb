"""A dismissible red banner above the composer that shows the last error in words a user can act on (keys masked),
and under it a standing condition (the disk refusing writes, the database file that cannot be opened) until that
ends."""

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


def unopened_text(kind: str, where: Path, history_shown: bool | None = None) -> str:
    """What the user reads while the database file cannot be opened and the conversations are kept in memory (kinds of
    core.storage.in_memory.Unopened), and what to do. `history_shown` (Store.history_shown): the conversations the file
    holds were read and are shown (True), or there is a file that could not be read (False)."""
    translate = QCoreApplication.translate
    kept = translate("ErrorBanner", "What you write now is kept in memory; File ▸ Export saves it.")
    if history_shown:
        kept = " ".join((translate("ErrorBanner", "The conversations saved there are shown and can be continued."), kept))
    elif history_shown is False and kind != "damaged":
        kept = " ".join((translate("ErrorBanner", "The conversations saved there cannot be read now; the file is left "
                                                  "as it is."), kept))
    if kind == "read_only":
        cause = translate("ErrorBanner", "Your conversations cannot be saved: the data folder {folder} is read-only.")
        remedy = translate("ErrorBanner", "Make the folder writable and they are written there at once.")
    elif kind == "full":
        cause = translate("ErrorBanner", "Your conversations cannot be saved: the disk that holds {folder} is full.")
        remedy = translate("ErrorBanner", "Free some disk space and they are written there at once.")
    elif kind == "not_a_folder":
        cause = translate("ErrorBanner", "Your conversations cannot be saved: {folder} is a file where the data folder "
                                         "should be.")
        remedy = translate("ErrorBanner", "Move that file away and they are written to a new folder there at once.")
    elif kind == "damaged":
        cause = translate("ErrorBanner", "Your conversations cannot be saved: the conversation database in {folder} is "
                                         "damaged and could not be moved aside.")
        remedy = translate("ErrorBanner", "Make the folder writable (or move the damaged file away) and a new database "
                                          "is started there at once.")
    else:
        cause = translate("ErrorBanner", "Your conversations cannot be saved: the conversation database in {folder} "
                                         "cannot be opened.")
        remedy = translate("ErrorBanner", "Check the disk that holds it; they are written there as soon as it opens.")
    return " ".join((cause.format(folder=where), kept, remedy))


class ErrorBanner(QFrame):
    sig_dismissed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("errorBanner")
        self._error = ""
        self.standing = ""
        """A condition that lasts (the disk): shown under any error until `set_standing("")`, even after an error
        is dismissed; the ✕ hides it until it changes, unless it is `lasting`."""
        self.lasting = False
        """The standing condition cannot be dismissed (the conversations are kept in memory): the ✕ is there only
        while an error shows above it, and takes only the error away."""
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

    def set_standing(self, text: str, *, lasting: bool = False) -> None:
        """Show `text` as the standing condition ("" ends it); `lasting`: it cannot be dismissed."""
        if text == self.standing and lasting == self.lasting:
            return
        self.standing, self.lasting = text, lasting and bool(text)
        self._show() if text or self._error else self._hide()

    def text(self) -> str:
        return "" if self.isHidden() else self.label.text()

    def dismiss(self) -> None:
        """The error goes (a new attempt starts); a standing condition stays."""
        self._error = ""
        self._show() if self.standing else self._hide()
        self.sig_dismissed.emit()

    def _closed(self) -> None:
        if self.lasting:
            self.dismiss()
            return
        self._error = ""
        self._hide()
        self.sig_dismissed.emit()

    def _show(self) -> None:
        self.label.setText("\n\n".join(part for part in (self._error, self.standing) if part))
        self.close_button.setVisible(bool(self._error) or not self.lasting)
        self.show()

    def _hide(self) -> None:
        self.hide()
        self.label.clear()
