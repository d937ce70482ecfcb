"""The keyring that holds MCP servers' secrets (env and header values, OAuth sign-ins) by entry name, and the errors
of MCP configuration; never in memory or on disk instead."""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Protocol

from desktop_copilot.core.words import tr

if TYPE_CHECKING:
    from keyring.backend import KeyringBackend

    from desktop_copilot.core.keys.keyring_backends import KeyringStatus

log = logging.getLogger(__name__)


class McpConfigError(Exception):
    """mcp.json or a server in it cannot be used or changed; the message says what to do and never holds a secret."""


class McpNameError(McpConfigError):
    """A server name that is not allowed, not there, or taken (on the command line: a usage error)."""


class SecretStoreError(McpConfigError):
    """The keyring cannot keep, give or delete a server's secret."""


class McpSecrets(Protocol):
    """Where the values of `env` and `headers` live, by keyring entry name (see server_config.secret_entry)."""

    def get(self, entry: str) -> str | None: ...

    def set(self, entry: str, value: str) -> None: ...

    def delete(self, entry: str) -> bool: ...


class KeyringSecrets:
    """McpSecrets in the system keyring, under the service that holds the API keys; never in memory or on disk instead.

    Values are taken as they are (a header such as "Bearer abc" has spaces; an API key may not)."""

    def __init__(self, backend: KeyringBackend | None = None) -> None:
        from desktop_copilot.core.keys.keyring_store import SERVICE

        self.service = SERVICE
        self._given = backend
        self._opened: tuple[KeyringBackend | None, KeyringStatus] | None = None
        self._lock = threading.Lock()

    def status(self) -> KeyringStatus:
        return self._open()[1]

    def get(self, entry: str) -> str | None:
        backend = self._backend("read")
        try:
            return backend.get_password(self.service, entry)
        except Exception as exc:  # noqa: BLE001 - any backend failure becomes a reported problem
            failure = describe_keyring_error(exc)
        raise SecretStoreError(tr("the keyring did not give the MCP secret {entry}: {failure}").format(entry=repr(entry), failure=failure))

    def set(self, entry: str, value: str) -> None:
        backend = self._backend("stored")
        try:
            backend.set_password(self.service, entry, value)
        except Exception as exc:  # noqa: BLE001 - reported in words, without the value
            failure = describe_keyring_error(exc).replace(value, "…") if value else describe_keyring_error(exc)
        else:
            log.info("stored the MCP secret %s in the keyring", entry)
            return
        raise SecretStoreError(tr("the keyring did not store the MCP secret {entry}: {failure}").format(entry=repr(entry), failure=failure))

    def delete(self, entry: str) -> bool:
        backend = self._backend("deleted")
        try:
            if backend.get_password(self.service, entry) is None:
                return False
            backend.delete_password(self.service, entry)
        except Exception as exc:  # noqa: BLE001
            failure = describe_keyring_error(exc)
        else:
            log.info("deleted the MCP secret %s from the keyring", entry)
            return True
        raise SecretStoreError(tr("the keyring did not delete the MCP secret {entry}: {failure}").format(entry=repr(entry), failure=failure))

    def _open(self) -> tuple[KeyringBackend | None, KeyringStatus]:
        from desktop_copilot.core.keys import keyring_store
        from desktop_copilot.core.keys.keyring_backends import KeyringStatus, open_backend

        with self._lock:
            if self._opened is None:
                try:
                    backend = self._given if self._given is not None else keyring_store.default_backend()
                except Exception as exc:  # noqa: BLE001 - e.g. a bad PYTHON_KEYRING_BACKEND
                    self._opened = None, KeyringStatus(False, "", tr("the keyring could not be loaded: {error}").format(
                        error=describe_keyring_error(exc)))
                else:
                    self._opened = open_backend(backend, self.service)
            return self._opened

    def _backend(self, doing: str) -> KeyringBackend:
        backend, status = self._open()
        if backend is None:
            nothing = {"read": tr("Nothing was read."), "stored": tr("Nothing was stored."),
                       "deleted": tr("Nothing was deleted.")}.get(doing, "")
            raise SecretStoreError(" ".join([
                tr("no keyring: secrets for MCP servers cannot be stored, read or deleted ({problem}).").format(problem=status.problem),
                nothing, tr("Install and unlock a system keyring (GNOME Keyring, KWallet, macOS Keychain or Windows Credential "
                            "Manager) and try again.")]))
        return backend

    def __repr__(self) -> str:
        return f"KeyringSecrets(service={self.service!r})"


def describe_keyring_error(exc: BaseException) -> str:
    from desktop_copilot.core.keys.keyring_backends import describe_error

    return describe_error(exc)
