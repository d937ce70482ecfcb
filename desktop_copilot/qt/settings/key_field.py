"""One API key in the settings dialog: where it comes from (never its value), a masked field with
show/hide, and Save, Test and Remove buttons that report back in words."""

from __future__ import annotations

import html

from PySide6.QtCore import QCoreApplication, QEvent, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QLineEdit, QPushButton, QToolButton, QVBoxLayout, QWidget

from desktop_copilot.core.keys.secrets import FoundKey
from desktop_copilot.core.keys.known_keys import KeySpec
from desktop_copilot.qt.common.core_words import core_text
from desktop_copilot.qt.common.plain_label import PlainLabel
from desktop_copilot.qt.common.theme import DEFAULT_THEME
from desktop_copilot.qt.settings.styles import set_kind

LINK_COLOR = DEFAULT_THEME.accent
ENTER_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)
PLACEHOLDERS = {"tavily": "tvly-…"}
"""What a tool's key looks like (a provider's is in its table entry)."""


def describe_source(spec: KeySpec, found: list[FoundKey], backend: str) -> tuple[str, str]:
    """(text, kind) for the key in use: kind is keyring, environment, session or missing (a style)."""
    if not found:
        return QCoreApplication.translate("KeyField", "Not set"), "missing"
    used = found[0]
    if used.source == "keyring":
        text = QCoreApplication.translate("KeyField", "Stored in {place} · {hint}").format(place=backend or QCoreApplication.translate("KeyField",
            "the keyring"), hint=used.secret.hint)
    elif used.source == "session":
        text = QCoreApplication.translate("KeyField", "This session only · {hint}").format(hint=used.secret.hint)
    else:
        text = QCoreApplication.translate("KeyField", "From environment ({variable}) · {hint}, read-only").format(variable=spec.env_var, hint=used.secret.hint)
    return text, used.source


class KeyField(QFrame):
    """Emits requests; the keys page does the keyring and network work and calls `show_*` back."""

    sig_save_requested = Signal(str)
    sig_test_requested = Signal(str)
    sig_remove_requested = Signal(str)
    sig_found_changed = Signal()
    """`show_found` told the field where its key comes from now (`found`, `state`)."""

    def __init__(self, spec: KeySpec, parent: QWidget | None = None, *, embedded: bool = False, placeholder: str = "") -> None:
        """`embedded`: inside a card that already names the key and has its own Test (a provider row): no
        frame, title, state badge or Test button; the edit, Save and Remove on one line. `placeholder`: what the
        empty field says (what a key looks like, or that it is optional)."""
        super().__init__(parent, objectName="keyEmbedded" if embedded else "keyCard")
        self.spec = spec
        self.found: list[FoundKey] = []
        self.backend = ""
        self.title = PlainLabel(core_text(spec.label), objectName="keyTitle")
        self.state = PlainLabel(self.tr("Checking…"), objectName="keyState")
        self.link = QLabel(objectName="keyLink", openExternalLinks=True, wordWrap=True)
        self.link.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.empty_placeholder = placeholder or PLACEHOLDERS.get(spec.name) or self.tr("Paste the key")
        self.edit = QLineEdit(objectName="keyEdit", placeholderText=self.empty_placeholder)
        self.edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.edit.setClearButtonEnabled(True)
        self.edit.setAccessibleName(core_text(spec.label))
        self.show_button = QToolButton(objectName="showKey", text=self.tr("Show"), checkable=True)
        self.show_button.setToolTip(self.tr("Show the text typed in this field (a stored key is never shown)"))
        self.save_button = QPushButton(self.tr("Save"), objectName="primaryButton")
        self.test_button = QPushButton(self.tr("Test"))
        self.remove_button = QPushButton(self.tr("Remove"))
        self.message = PlainLabel(objectName="keyMessage", wordWrap=True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.hide()
        self._busy = False
        self.embedded = embedded
        if embedded:
            self._layout_embedded()
        else:
            self._layout()
        self.edit.textChanged.connect(self._on_text_changed)
        self.edit.installEventFilter(self)
        self.show_button.toggled.connect(self._on_show_toggled)
        self.save_button.clicked.connect(lambda: self.sig_save_requested.emit(spec.name))
        self.test_button.clicked.connect(lambda: self.sig_test_requested.emit(spec.name))
        self.remove_button.clicked.connect(lambda: self.sig_remove_requested.emit(spec.name))
        self._update_buttons()

    def _layout(self) -> None:
        column = QVBoxLayout(self)
        column.setContentsMargins(16, 14, 16, 14)
        column.setSpacing(10)
        header = QHBoxLayout()
        header.addWidget(self.title)
        header.addStretch(1)
        header.addWidget(self.state)
        entry = QHBoxLayout()
        entry.setSpacing(6)
        entry.addWidget(self.edit, 1)
        entry.addWidget(self.show_button)
        actions = QHBoxLayout()
        actions.setSpacing(8)
        for button in (self.save_button, self.test_button, self.remove_button):
            actions.addWidget(button)
        actions.addSpacing(12)
        actions.addWidget(self.link, 1)
        for row in (header, entry, actions):
            column.addLayout(row)
        column.addWidget(self.message)

    def _layout_embedded(self) -> None:
        for widget in (self.title, self.state, self.test_button):
            widget.hide()
        self.link.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        entry = QHBoxLayout()
        entry.setSpacing(6)
        for widget, stretch in ((self.edit, 1), (self.show_button, 0), (self.save_button, 0), (self.remove_button, 0)):
            entry.addWidget(widget, stretch)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        column.addLayout(entry)
        column.addWidget(self.link)
        column.addWidget(self.message)

    # --- what the page tells the field -------------------------------------------------

    def show_found(self, found: list[FoundKey], backend: str) -> None:
        self.found, self.backend = found, backend
        text, kind = describe_source(self.spec, found, backend)
        self.state.setText(text)
        set_kind(self.state, kind)
        self.state.setToolTip(_also_set(found))
        self._show_link_or_note(found)
        replace = self.tr("Paste to replace {hint}") if self.embedded else self.tr("Paste a new key to replace {hint}")
        self.edit.setPlaceholderText(replace.format(hint=found[0].secret.hint) if found else self.empty_placeholder)
        self.remove_button.setToolTip(
            self.tr("Unset {variable} to remove a key that comes from the environment").format(variable=self.spec.env_var)
            if found and found[0].source == "environment" else self.tr("Remove the stored key")
        )
        self._update_buttons()
        self.sig_found_changed.emit()

    def _show_link_or_note(self, found: list[FoundKey]) -> None:
        """Where to get a key when there is none; that a saved key wins over the environment's."""
        if not found:  # an endpoint the user added has no sign-up page
            words = html.escape(self.tr("Get a key at {host} ↗").format(host=_host(self.spec.url)))
            self.link.setText(f'<a href="{self.spec.url}" style="color:{LINK_COLOR}">{words}</a>'  # i18n: not translated (markup)
                              if self.spec.url else "")
        elif found[0].source == "environment":
            self.link.setText(self.tr("A saved key is used before {variable}.").format(variable=self.spec.env_var))
        else:
            self.link.clear()  # stays in the layout, holding the space right of the buttons
        if self.embedded:  # on its own line: no empty line when there is nothing to say
            self.link.setVisible(bool(self.link.text()))

    def show_message(self, text: str, kind: str = "info") -> None:
        """kind: ok, error, info or busy."""
        self.message.setText(text)
        set_kind(self.message, kind)
        self.message.setVisible(bool(text))

    def set_busy(self, busy: bool) -> None:
        self._busy = busy
        self._update_buttons()

    def clear_input(self) -> None:
        self.edit.clear()
        self.show_button.setChecked(False)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt name
        """Enter in the field saves the key, and is kept from the dialog's OK button."""
        if watched is self.edit and event.type() == QEvent.Type.KeyPress and event.key() in ENTER_KEYS:
            if self.save_button.isEnabled():
                self.save_button.click()
            return True
        return super().eventFilter(watched, event)

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
        self.show_button.setText(self.tr("Hide") if shown else self.tr("Show"))

    def _update_buttons(self) -> None:
        typed = bool(self.edit.text().strip())
        self.save_button.setEnabled(typed and not self._busy)
        self.test_button.setEnabled((typed or bool(self.found)) and not self._busy)
        self.test_button.setToolTip(self.tr("Test the key typed here") if typed else self.tr("Test the key in use"))
        self.remove_button.setEnabled(self.removable and not self._busy)
        self.show_button.setEnabled(bool(self.edit.text()))


def _also_set(found: list[FoundKey]) -> str:
    names = {"keyring": QCoreApplication.translate("KeyField", "the keyring"), "environment": QCoreApplication.translate("KeyField",
        "the environment"), "session": QCoreApplication.translate("KeyField", "this session")}
    others = [names.get(f.source, f.source) for f in found[1:]]
    return QCoreApplication.translate("KeyField", "Also set in {places}; not used while this one exists.").format(places=", ".join(others)) if others else ""


def _host(url: str) -> str:
    return url.split("//", 1)[-1].split("/", 1)[0]
