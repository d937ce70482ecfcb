"""An in-memory keyring backend for tests, and a fixture-friendly way to make the app use it."""

from __future__ import annotations

from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError


class MemoryKeyring(KeyringBackend):
    """Entries in a dict; kept out of keyring's automatic backend discovery."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service, username):
        return self.entries.get((service, username))

    def set_password(self, service, username, password):
        self.entries[(service, username)] = password

    def delete_password(self, service, username):
        if self.entries.pop((service, username), None) is None:
            raise PasswordDeleteError("No such password!")


KeyringBackend._classes.discard(MemoryKeyring)


def use_memory_keyring(monkeypatch, backend: KeyringBackend | None = None) -> KeyringBackend:
    """Every KeyringKeys() made during the test uses `backend` (a fresh MemoryKeyring by default)."""
    from desktop_copilot.core.keys import keyring_store

    backend = backend if backend is not None else MemoryKeyring()
    monkeypatch.setattr(keyring_store, "default_backend", lambda: backend)
    return backend
