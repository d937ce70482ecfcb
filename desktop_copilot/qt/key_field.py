"""One API key in the settings dialog: where it comes from (never its value), a masked field with
show/hide, and Save, Test and Remove buttons that report back in words."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QGridLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton, QToolButton, QWidget

from desktop_copilot.core.secrets import FoundKey, KeySpec

PLACEHOLDERS = {"anthropic": "sk-ant-…", "tavily": "tvly-…"}


def describe_source(spec: KeySpec, found: list[FoundKey], backend: str) -> tuple[str, str]:
    """(text, kind) for the key in use: kind is keyring, environment, session or missing (a style)."""
    if not found:
        return "Not set", "missing"
    used = found[0]
    if used.source == "keyring":
        text = f"Stored in {backend or 'the keyring'} · {used.secret.hint}"
    elif used.source == "session":
        text = f"This session only · {used.secret.hint}"
    else:
        text = f"From environment ({spec.env_var}) · {used.secret.hint}, read-only"
    return text, used.source


class KeyField(QFrame):
    """Emits requests; the keys page does the keyring and network work and calls `show_*` back."""

    sig_save_requested = Signal(str)
    sig_test_requested = Signal(str)
    sig_remove_requested = Signal(str)

    def __init__(self, spec: KeySpec, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="keyCard")
        self.spec = spec
        self.found: list[FoundKey] = []
        self.title = QLabel(spec.label, objectName="keyTitle")
        self.state = QLabel("Checking…", objectName="keyState")
        self.link = QLabel(objectName="keyLink", openExternalLinks=True)
        self.link.setText(f'<a href="{spec.url}">Get a key at {_host(spec.url)} ↗</a>')
        self.edit = QLineEdit(objectName="keyEdit", placeholderText=PLACEHOLDERS.get(spec.name, "Paste the key"))
        self.edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.edit.setClearButtonEnabled(True)
        self.edit.setAccessibleName(spec.label)
        self.show_button = QToolButton(objectName="showKey", text="Show", checkable=True)
        self.show_button.setToolTip("Show the text typed in this field (a stored key is never shown)")
        self.save_button = QPushButton("Save", objectName="primaryButton")
        self.test_button = QPushButton("Test")
        self.remove_button = QPushButton("Remove")
        self.message = QLabel(objectName="keyMessage", wordWrap=True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.hide()
        self._busy = False
        self._layout()
        self.edit.textChanged.connect(self._on_text_changed)
        self.edit.returnPressed.connect(lambda: self.save_button.isEnabled() and self.save_button.click())
        self.show_button.toggled.connect(self._on_show_toggled)
        self.save_button.clicked.connect(lambda: self.sig_save_requested.emit(spec.name))
        self.test_button.clicked.connect(lambda: self.sig_test_requested.emit(spec.name))
        self.remove_button.clicked.connect(lambda: self.sig_remove_requested.emit(spec.name))
        self._update_buttons()

    def _layout(self) -> None:
        grid = QGridLayout(self)
        grid.setContentsMargins(16, 14, 16, 14)
        grid.setHorizontalSpacing(8)
        grid.setVerticalSpacing(8)
        header = QHBoxLayout()
        header.addWidget(self.title)
        header.addStretch(1)
        header.addWidget(self.state)
        grid.addLayout(header, 0, 0, 1, 5)
        grid.addWidget(self.edit, 1, 0)
        grid.addWidget(self.show_button, 1, 1)
        grid.addWidget(self.save_button, 1, 2)
        grid.addWidget(self.test_button, 1, 3)
        grid.addWidget(self.remove_button, 1, 4)
        grid.addWidget(self.link, 2, 0, 1, 5)
        grid.addWidget(self.message, 3, 0, 1, 5)
        grid.setColumnStretch(0, 1)

    # --- what the page tells the field -------------------------------------------------

    def show_found(self, found: list[FoundKey], backend: str) -> None:
        self.found = found
        text, kind = describe_source(self.spec, found, backend)
        self.state.setText(text)
        self.state.setProperty("kind", kind)
        self.state.style().unpolish(self.state)
        self.state.style().polish(self.state)
        self.link.setVisible(not found)
        self.edit.setPlaceholderText(f"Paste a new key to replace {found[0].secret.hint}" if found else
                                     PLACEHOLDERS.get(self.spec.name, "Paste the key"))
        self.remove_button.setToolTip(
            f"Unset {self.spec.env_var} to remove a key that comes from the environment"
            if found and found[0].source == "environment" else "Remove the stored key"
        )
        self._update_buttons()

    def show_message(self, text: str, kind: str = "info") -> None:
        """kind: ok, error, info or busy."""
        self.message.setText(text)
        self.message.setProperty("kind", kind)
        self.message.style().unpolish(self.message)
        self.message.style().polish(self.message)
        self.message.setVisible(bool(text))

    def set_busy(self, busy: bool) -> None:
        self._busy = busy
        self._update_buttons()

    def clear_input(self) -> None:
        self.edit.clear()
        self.show_button.setChecked(False)

    # --- state ---------------------------------------------------------------------------

    def typed(self) -> str:
        return self.edit.text()

    @property
    def removable(self) -> bool:
        return any(f.source in ("keyring", "session") for f in self.found)

    def _on_text_changed(self, text: str) -> None:
        if not text:
            self.show_button.setChecked(False)
        self._update_buttons()

    def _on_show_toggled(self, shown: bool) -> None:
        self.edit.setEchoMode(QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password)
        self.show_button.setText("Hide" if shown else "Show")

    def _update_buttons(self) -> None:
        typed = bool(self.edit.text().strip())
        self.save_button.setEnabled(typed and not self._busy)
        self.test_button.setEnabled((typed or bool(self.found)) and not self._busy)
        self.test_button.setToolTip("Test the key typed here" if typed else "Test the key in use")
        self.remove_button.setEnabled(self.removable and not self._busy)
        self.show_button.setEnabled(bool(self.edit.text()))


def _host(url: str) -> str:
    return url.split("//", 1)[-1].split("/", 1)[0]
