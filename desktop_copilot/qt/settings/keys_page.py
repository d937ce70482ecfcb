"""The Tool keys page (the keys the built-in tools need, Tavily's; every provider's key is on the Providers page):
a notice about the keyring, a KeyField per key, and `KeyActions`, the keyring work behind Save and Remove
that both pages use (keyring calls run off the GUI thread)."""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from desktop_copilot.core.keys.key_check import KeyCheck
from desktop_copilot.core.tools.tavily import check_tavily_key
from desktop_copilot.core.keys.key_values import KeyValueError, clean_key_value
from desktop_copilot.core.keys.keyring_backends import KeyringStatus
from desktop_copilot.core.keys.keyring_store import KeyringKeys, KeyStoreError
from desktop_copilot.core.provider_table import TOOL_KEYS
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.keys.known_keys import KNOWN_KEYS
from desktop_copilot.qt.bridge.background import BackgroundTasks, off_gui_thread
from desktop_copilot.qt.common.core_words import core_text
from desktop_copilot.qt.settings.key_field import KeyField
from desktop_copilot.qt.settings.styles import set_kind

PAGE_KEYS = [name for name in KNOWN_KEYS if name in TOOL_KEYS]
"""The keys this page shows: the tools' (Tavily)."""
KEY_CHECKS = {"tavily": check_tavily_key}
"""How each tool's key is tested: (secret, base URL or None) -> KeyCheck."""


def keyring_notice(status: KeyringStatus, env_vars: str = "") -> str:
    """Rich text: the backend's name and problem come from outside and are escaped. `env_vars`: the variables a
    key can come from instead (default: this page's)."""
    if status.usable:
        return QCoreApplication.translate("KeysPage", "Keys are kept in {place}, never in a file.").format(place=html.escape(status.backend))
    env_vars = env_vars or " or ".join(KNOWN_KEYS[name].env_var for name in PAGE_KEYS)
    where = f" ({html.escape(status.backend)})" if status.backend else ""
    return QCoreApplication.translate(
        "KeysPage",
        "<b>No usable keyring</b>{where}: {problem}.<br>Keys you save now are kept <b>for this session "
        "only</b> and forgotten when Desktop Copilot quits; nothing is written to a file. To keep a key, "
        "unlock or install a keyring, or set {variables} in the environment."
    ).format(where=where, problem=html.escape(str(status.problem)), variables=env_vars)


def cancel_when_destroyed(widget: QWidget, tasks: BackgroundTasks) -> None:
    """Cancels `tasks` when `widget` goes (a dialog deleted without closing, or at exit), so that no task
    resumes to touch a deleted label. A loop already closed has nothing left to cancel."""

    def cancel(*_args) -> None:
        try:
            tasks.cancel_all()
        except RuntimeError:  # the event loop is closed
            pass

    widget.destroyed.connect(cancel)


class KeyActions:
    """Save, Remove and re-reading where a key comes from, for any KeyField: the keyring calls run off the GUI
    thread; `on_status` hears of a changed keyring status, `on_changed(name)` of a saved or removed key."""

    def __init__(self, runtime: Runtime, key_store: KeyringKeys, on_status: Callable[[KeyringStatus], None],
                 on_changed: Callable[[str], None]) -> None:
        self.runtime = runtime
        self.key_store = key_store
        self.on_status = on_status
        self.on_changed = on_changed
        self.status: KeyringStatus | None = None

    async def save(self, field: KeyField) -> bool:
        field.set_busy(True)
        field.show_message(QCoreApplication.translate("KeysPage", "Saving…"), "busy")
        try:
            saved = await off_gui_thread(self.key_store.set, field.spec.name, field.typed())
        except (KeyValueError, KeyStoreError) as exc:
            field.show_message(str(exc), "error")
            return False
        finally:
            field.set_busy(False)
        field.clear_input()
        if saved.persisted:
            field.show_message(saved.message, "ok")
        else:
            field.show_message(QCoreApplication.translate("KeysPage",
                "Kept for this session only (no usable keyring); forgotten when the app quits."), "warning")
        await self.refresh(field)
        self.on_changed(field.spec.name)
        return True

    async def remove(self, field: KeyField) -> None:
        field.set_busy(True)
        try:
            removed = await off_gui_thread(self.key_store.delete, field.spec.name)
        except KeyStoreError as exc:
            field.show_message(str(exc), "error")
            return
        finally:
            field.set_busy(False)
        await self.refresh(field)
        still = field.found[0].source == "environment" if field.found else False
        text = (QCoreApplication.translate("KeysPage", "Removed the {key}.") if removed else QCoreApplication.translate("KeysPage",
            "There was no stored {key}.")).format(key=core_text(field.spec.label))
        if still:
            text += " " + QCoreApplication.translate("KeysPage", "{variable} is still set in the environment and is used.").format(variable=field.spec.env_var)
        field.show_message(text, "info")
        self.on_changed(field.spec.name)

    async def refresh(self, field: KeyField) -> None:
        """Re-reads where the key comes from, and the keyring status (a read can find the keyring locked)."""
        found = await off_gui_thread(self.runtime.keys.all_found, field.spec.name)
        status = await off_gui_thread(self.key_store.status)
        if status != self.status:
            self.status = status
            self.on_status(status)
        field.show_found(found, status.backend)
        field.set_busy(False)


class KeysPage(QWidget):
    sig_keys_changed = Signal(dict)
    """{key name: whether a key is available}, after loading and after every change."""
    sig_key_changed = Signal(str)
    """A key was saved or removed here."""

    def __init__(self, runtime: Runtime, key_store: KeyringKeys, tool_url, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.runtime = runtime
        self.key_store = key_store
        self.tool_url = tool_url
        """(key name) -> the tool's base URL as it would be after Apply (None: its public one)."""
        self.actions = KeyActions(runtime, key_store, self._show_status, self.sig_key_changed.emit)
        self.tasks = BackgroundTasks(self._show_failure)
        cancel_when_destroyed(self, self.tasks)
        self.notice = QLabel(self.tr("Checking the keyring…"), objectName="keyringNotice", wordWrap=True, textFormat=Qt.TextFormat.RichText)
        self.fields = {name: KeyField(KNOWN_KEYS[name]) for name in PAGE_KEYS}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(12)
        layout.addWidget(self.notice)
        for field in self.fields.values():
            field.set_busy(True)
            field.sig_save_requested.connect(lambda name: self.tasks.start(self.save(name)))
            field.sig_test_requested.connect(lambda name: self.tasks.start(self.test(name)))
            field.sig_remove_requested.connect(lambda name: self.tasks.start(self.remove(name)))
            layout.addWidget(field)
        layout.addStretch(1)

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
        if not await self.actions.save(self.fields[name]):
            return False
        self._announce()
        return True

    async def remove(self, name: str) -> None:
        await self.actions.remove(self.fields[name])
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
        field.set_busy(True)
        field.show_message(self.tr("Testing the typed key…") if typed.strip() else self.tr("Testing the key in use…"), "busy")
        try:
            result = await KEY_CHECKS[name](secret, self.tool_url(name))
        finally:
            field.set_busy(False)
        field.show_message(("✓ " if result.ok else "") + result.message, "ok" if result.ok else "error")
        return result

    async def _refresh(self, name: str) -> None:
        await self.actions.refresh(self.fields[name])

    @property
    def status(self) -> KeyringStatus | None:
        return self.actions.status

    def _show_status(self, status: KeyringStatus) -> None:
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
