"""API keys in the operating system's keyring (one entry per key), with an in-memory fallback for the session.
Value checks live in key_values.py, backend detection in keyring_backends.py."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from desktop_copilot.core.keys.key_values import clean_key_value
from desktop_copilot.core.keys.keyring_backends import (
    WINDOWS_BACKEND,
    KeyringStatus,
    class_path,
    default_backend,
    describe_error,
    open_backend,
)
from desktop_copilot.core.keys.saved_names import SavedNames
from desktop_copilot.core.keys.secret_service_search import names_held
from desktop_copilot.core.keys.secrets import EnvironmentKeys, FoundKey, KeyLookup, Secret
from desktop_copilot.core.keys.known_keys import key_label
from desktop_copilot.core.words import label_text, tr

if TYPE_CHECKING:
    from keyring.backend import KeyringBackend

SERVICE = "desktop-copilot"

log = logging.getLogger(__name__)


class KeyStoreError(Exception):
    """The keyring failed or refused; the message says why in words and never contains the key."""


@dataclass(frozen=True, slots=True)
class SavedKey:
    """What `KeyringKeys.set` did, in words the window can show."""

    name: str
    where: str
    """"keyring" (kept across runs) or "session" (in memory until the app quits)."""
    message: str

    @property
    def persisted(self) -> bool:
        return self.where == "keyring"


class SessionKeys:
    """Keys kept in memory until the process ends (source "session"); used when no keyring is usable."""

    def __init__(self) -> None:
        self._keys: dict[str, Secret] = {}

    def get(self, name: str) -> FoundKey | None:
        secret = self._keys.get(name)
        return FoundKey(secret, "session") if secret is not None else None

    def set(self, name: str, value: str | Secret) -> None:
        self._keys[name] = clean_key_value(value)

    def delete(self, name: str) -> bool:
        return self._keys.pop(name, None) is not None

    def __repr__(self) -> str:
        return f"SessionKeys(names={sorted(self._keys)})"


class KeyringKeys:
    """A KeySource over one keyring service with one entry per key name; resolves the backend on first use."""

    def __init__(
        self,
        backend: KeyringBackend | None = None,
        *,
        service: str = SERVICE,
        session: SessionKeys | None = None,
        names: SavedNames | None = None,
    ) -> None:
        self.service = service
        self.names = names
        """The record of which keys the keyring holds, kept true by each read and write here (None: none kept)."""
        self.session = session if session is not None else SessionKeys()
        self._given = backend
        self._backend: KeyringBackend | None = None
        self._status: KeyringStatus | None = None
        self._lock = threading.RLock()

    @property
    def loaded(self) -> bool:
        """Whether the keyring was opened in this process (a key read, set or the status asked)."""
        return self._status is not None

    @property
    def system_default(self) -> bool:
        """The machine's keyring, which another process of the app sees too (not a backend given to this object, nor
        one put in place of keyring's choice, as tests do)."""
        from desktop_copilot.core.keys import keyring_backends

        return self._given is None and default_backend is keyring_backends.default_backend

    def holds_none(self, names: list[str]) -> bool:
        """Whether the keyring is known to hold none of `names` without opening it: by the record of its names, or, for
        the machine's keyring where keyring's choice can only be the Secret Service or no keyring, by searching the
        Secret Service for them (core/keys/secret_service_search.py). Blocking (D-Bus): on the keyring thread."""
        if self.names is not None and self.names.none_held(names):
            return True
        return self.system_default and names_held(self.service, names) == frozenset()

    def status(self, *, refresh: bool = False) -> KeyringStatus:
        """Resolves and probes the backend once (refresh=True checks again, e.g. after an unlock)."""
        with self._lock:
            if self._status is None or refresh:
                self._backend, self._status = self._open()
            return self._status

    def get(self, name: str) -> FoundKey | None:
        backend = self._usable_backend()
        if backend is None:
            return None
        try:
            value = backend.get_password(self.service, name)
        except Exception as exc:  # noqa: BLE001 - any backend failure becomes a reported problem
            self._mark_unusable(describe_error(exc))
            return None
        value = (value or "").strip()
        self._note(name, bool(value))
        return FoundKey(Secret(value), "keyring") if value else None

    def set(self, name: str, value: str | Secret) -> SavedKey:
        """Stores the key; without a usable keyring it is kept in memory (see SavedKey.where and .message)."""
        secret = clean_key_value(value)
        status = self.status()
        label = key_label(name)
        backend = self._backend
        if not status.usable or backend is None:
            self.session.set(name, secret)
            return SavedKey(
                name, "session", tr("No usable keyring: {problem}. The {key} is kept for this session only.").format(
                    problem=status.problem, key=label_text(label))
            )
        if class_path(backend) == WINDOWS_BACKEND:  # stored as UTF-16: two bytes a character
            clean_key_value(secret, encoding="utf-16-le")
        failure = None
        try:
            backend.set_password(self.service, name, secret.reveal())
        except Exception as exc:  # noqa: BLE001 - reported in words, without the value
            failure = secret.redact(describe_error(exc), mask="…")
        if failure is not None:  # raised outside the handler so no traceback carries the original
            raise KeyStoreError(tr("{backend} did not store the {key}: {failure}").format(backend=status.backend, key=label_text(label),
                                                                                     failure=failure))
        self.session.delete(name)
        self._note(name, True)
        log.info("stored the %s key in %s", name, status.backend)
        return SavedKey(name, "keyring", tr("The {key} is stored in {backend}.").format(key=label_text(label), backend=status.backend))

    def delete(self, name: str) -> bool:
        """Removes the key from the session and the keyring; False when there was none."""
        removed = self.session.delete(name)
        backend = self._usable_backend()
        if backend is None:
            return removed
        failure = None
        try:
            if backend.get_password(self.service, name) is None:
                self._note(name, False)
                return removed
            backend.delete_password(self.service, name)
        except Exception as exc:  # noqa: BLE001
            failure = describe_error(exc)
        if failure is not None:
            raise KeyStoreError(tr("{backend} did not delete the {key}: {failure}").format(backend=self.status().backend,
                                                                                  key=label_text(key_label(name)), failure=failure))
        self._note(name, False)
        log.info("deleted the %s key from the keyring", name)
        return True

    def _note(self, name: str, in_keyring: bool) -> None:
        if self.names is not None:
            self.names.note(name, in_keyring)

    def _open(self) -> tuple[KeyringBackend | None, KeyringStatus]:
        try:
            backend = self._given if self._given is not None else default_backend()
        except Exception as exc:  # noqa: BLE001 - e.g. a bad PYTHON_KEYRING_BACKEND
            return None, KeyringStatus(False, "", tr("the keyring could not be loaded: {error}").format(error=describe_error(exc)))
        return open_backend(backend, self.service)

    def _usable_backend(self) -> KeyringBackend | None:
        return self._backend if self.status().usable else None

    def _mark_unusable(self, problem: str) -> None:
        with self._lock:
            name = self._status.backend if self._status else ""
            self._status = KeyringStatus(False, name, problem)
            self._backend = None
        log.warning("keyring not usable: %s", problem)

    def __repr__(self) -> str:
        return f"KeyringKeys(service={self.service!r}, status={self._status!r})"


def standard_lookup(store: KeyringKeys, environ: dict[str, str] | None = None) -> KeyLookup:
    """The app's lookup order: keys set this session, then the keyring, then environment variables."""
    return KeyLookup([store.session, store, EnvironmentKeys(environ)])


