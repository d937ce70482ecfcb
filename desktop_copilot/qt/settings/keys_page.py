"""The Keys page: a notice about the keyring, one KeyField per known key, and the keyring and network
work behind Save, Test and Remove (keyring calls run off the GUI thread)."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from desktop_copilot.core.key_check import KeyCheck, check_key
from desktop_copilot.core.key_values import KeyValueError, clean_key_value
from desktop_copilot.core.keyring_backends import KeyringStatus
from desktop_copilot.core.keyring_store import KeyringKeys, KeyStoreError
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.secrets import KNOWN_KEYS
from desktop_copilot.qt.bridge.background import BackgroundTasks, off_gui_thread
from desktop_copilot.qt.settings.key_field import KeyField
from desktop_copilot.qt.settings.styles import set_kind


def keyring_notice(status: KeyringStatus) -> str:
    """Rich text: the backend's name and problem come from outside and are escaped."""
    if status.usable:
        return f"Keys are kept in {html.escape(status.backend)}, never in a file."
    env_vars = " or ".join(spec.env_var for spec in KNOWN_KEYS.values())
    where = f" ({html.escape(status.backend)})" if status.backend else ""
    return (
        f"<b>No usable keyring</b>{where}: {html.escape(str(status.problem))}.<br>Keys you save now are kept <b>for this session "
        f"only</b> and forgotten when Desktop Copilot quits; nothing is written to a file. To keep a key, "
        f"unlock or install a keyring, or set {env_vars} in the environment."
    )


class KeysPage(QWidget):
    sig_keys_changed = Signal(dict)
    """{key name: whether a key is available}, after loading and after every change."""
    sig_models_listed = Signal(list)
    """Model ids a successful Anthropic test listed on the way."""

    def __init__(self, runtime: Runtime, key_store: KeyringKeys, base_urls, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runtime = runtime
        self.key_store = key_store
        self.base_urls = base_urls
        """() -> (anthropic base URL, tavily base URL) as they would be after Apply."""
        self.status: KeyringStatus | None = None
        self.tasks = BackgroundTasks(self._show_failure)
        self.intro = QLabel(objectName="pageIntro", wordWrap=True, openExternalLinks=True)
        self.intro.hide()
        self.notice = QLabel("Checking the keyring…", objectName="keyringNotice", wordWrap=True, textFormat=Qt.TextFormat.RichText)
        self.fields = {name: KeyField(spec) for name, spec in KNOWN_KEYS.items()}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(12)
        layout.addWidget(self.intro)
        layout.addWidget(self.notice)
        for field in self.fields.values():
            field.set_busy(True)
            field.sig_save_requested.connect(lambda name: self.tasks.start(self.save(name)))
            field.sig_test_requested.connect(lambda name: self.tasks.start(self.test(name)))
            field.sig_remove_requested.connect(lambda name: self.tasks.start(self.remove(name)))
            layout.addWidget(field)
        layout.addStretch(1)

    def set_intro(self, html: str) -> None:
        self.intro.setText(html)
        self.intro.setVisible(bool(html))

    def focus_key(self, name: str) -> None:
        self.fields[name].edit.setFocus(Qt.FocusReason.OtherFocusReason)

    def pending_names(self) -> list[str]:
        """Keys typed but not saved yet."""
        return [name for name, field in self.fields.items() if field.typed().strip()]

    # --- work ------------------------------------------------------------------------------

    async def load(self) -> None:
        for name in self.fields:
            await self._refresh(name)
        self._announce()

    async def save(self, name: str) -> bool:
        field = self.fields[name]
        field.set_busy(True)
        field.show_message("Saving…", "busy")
        try:
            saved = await off_gui_thread(self.key_store.set, name, field.typed())
        except (KeyValueError, KeyStoreError) as exc:
            field.show_message(str(exc), "error")
            return False
        finally:
            field.set_busy(False)
        field.clear_input()
        if saved.persisted:
            field.show_message(saved.message, "ok")
        else:
            field.show_message("Kept for this session only (no usable keyring); forgotten when the app quits.", "warning")
        await self._refresh(name)
        self._announce()
        return True

    async def remove(self, name: str) -> None:
        field = self.fields[name]
        field.set_busy(True)
        try:
            removed = await off_gui_thread(self.key_store.delete, name)
        except KeyStoreError as exc:
            field.show_message(str(exc), "error")
            return
        finally:
            field.set_busy(False)
        await self._refresh(name)
        still = field.found[0].source == "environment" if field.found else False
        text = f"Removed the {field.spec.label}." if removed else f"There was no stored {field.spec.label}."
        if still:
            text += f" {field.spec.env_var} is still set in the environment and is used."
        field.show_message(text, "info")
        self._announce()

    async def test(self, name: str) -> KeyCheck | None:
        field = self.fields[name]
        typed = field.typed()
        try:
            secret = clean_key_value(typed) if typed.strip() else (field.found[0].secret if field.found else None)
        except KeyValueError as exc:
            field.show_message(str(exc), "error")
            return None
        if secret is None:
            return None
        anthropic_url, tavily_url = self.base_urls()
        field.set_busy(True)
        field.show_message("Testing the typed key…" if typed.strip() else "Testing the key in use…", "busy")
        try:
            result = await check_key(name, secret, anthropic_base_url=anthropic_url, tavily_base_url=tavily_url)
        finally:
            field.set_busy(False)
        field.show_message(("✓ " if result.ok else "") + result.message, "ok" if result.ok else "error")
        if result.ok and result.model_ids:
            self.sig_models_listed.emit(result.model_ids)
        return result

    async def _refresh(self, name: str) -> None:
        """Re-reads where the key comes from, and the keyring status (a read can find the keyring locked)."""
        found = await off_gui_thread(self.runtime.keys.all_found, name)
        self._show_status(await off_gui_thread(self.key_store.status))
        field = self.fields[name]
        field.show_found(found, self.status.backend)
        field.set_busy(False)

    def _show_status(self, status: KeyringStatus) -> None:
        if status == self.status:
            return
        self.status = status
        self._set_notice(keyring_notice(status), "ok" if status.usable else "warning")

    def _set_notice(self, text: str, kind: str) -> None:
        set_kind(self.notice, kind)
        self.notice.setText(text)

    def _announce(self) -> None:
        self.sig_keys_changed.emit({name: bool(field.found) for name, field in self.fields.items()})

    def _show_failure(self, text: str) -> None:
        self._set_notice(html.escape(text), "warning")
        for field in self.fields.values():
            field.set_busy(False)
