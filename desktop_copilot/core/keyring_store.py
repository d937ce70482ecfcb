"""API keys in the operating system's keyring (one entry per key), with an in-memory fallback for the session."""

from __future__ import annotations

import logging
import os
import sys
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from desktop_copilot.core.secrets import KNOWN_KEYS, EnvironmentKeys, FoundKey, KeyLookup, Secret

if TYPE_CHECKING:
    from keyring.backend import KeyringBackend

SERVICE = "desktop-copilot"
MAX_KEY_BYTES = 2560
"""Windows Credential Manager holds at most 2,560 bytes per secret; no key may be longer anywhere."""

_PROBE_ENTRY = "desktop-copilot-probe"
_WINDOWS_BACKEND = "keyring.backends.Windows.WinVaultKeyring"
_BACKEND_NAMES = {
    "keyring.backends.SecretService.Keyring": "Secret Service",
    "keyring.backends.libsecret.Keyring": "Secret Service (libsecret)",
    "keyring.backends.kwallet.DBusKeyring": "KWallet",
    "keyring.backends.kwallet.DBusKeyringKWallet4": "KWallet 4",
    "keyring.backends.macOS.Keyring": "macOS Keychain",
    _WINDOWS_BACKEND: "Windows Credential Manager",
}
NO_KEYRING = "no system keyring was found; on Linux, install and unlock a Secret Service such as GNOME Keyring or KWallet"

log = logging.getLogger(__name__)


class KeyValueError(ValueError):
    """The text cannot be a key (empty, too long, spaces inside); the message never contains it."""


class KeyStoreError(Exception):
    """The keyring failed or refused; the message says why in words and never contains the key."""


@dataclass(frozen=True, slots=True)
class KeyringStatus:
    """Whether keys can be kept in a system keyring, which one, and what is wrong when they cannot."""

    usable: bool
    backend: str
    """Human name such as "Secret Service (gnome-keyring)"; "" when there is no backend at all."""
    problem: str | None = None

    def describe(self) -> str:
        if self.usable:
            return self.backend
        return f"not usable: {self.problem}" if not self.backend else f"{self.backend}, not usable: {self.problem}"


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


def clean_key_value(value: str | Secret, *, max_bytes: int = MAX_KEY_BYTES, encoding: str = "utf-8") -> Secret:
    """The key without surrounding whitespace; KeyValueError when empty, too long or broken by spaces."""
    text = (value.reveal() if isinstance(value, Secret) else value).strip()
    if not text:
        raise KeyValueError("The key is empty.")
    if any(ch.isspace() or not ch.isprintable() for ch in text):
        raise KeyValueError("The key contains spaces, line breaks or control characters; paste only the key.")
    size = len(text.encode(encoding))
    if size > max_bytes:
        raise KeyValueError(f"The key is {size:,} bytes long; a keyring entry holds at most {max_bytes:,} bytes.")
    return Secret(text)


def key_label(name: str) -> str:
    spec = KNOWN_KEYS.get(name)
    return spec.label if spec else f"{name!r} key"


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


def default_backend() -> KeyringBackend:
    """keyring's choice for this machine (PYTHON_KEYRING_BACKEND, keyringrc.cfg, else the best available)."""
    import keyring

    return keyring.get_keyring()


class KeyringKeys:
    """A KeySource over one keyring service with one entry per key name; resolves the backend on first use."""

    def __init__(
        self,
        backend: KeyringBackend | None = None,
        *,
        service: str = SERVICE,
        session: SessionKeys | None = None,
    ) -> None:
        self.service = service
        self.session = session if session is not None else SessionKeys()
        self._given = backend
        self._backend: KeyringBackend | None = None
        self._status: KeyringStatus | None = None
        self._lock = threading.RLock()

    def status(self, *, refresh: bool = False) -> KeyringStatus:
        """Resolves and probes the backend once (refresh=True checks again, e.g. after an unlock)."""
        with self._lock:
            if self._status is None or refresh:
                self._backend, self._status = _open(self._given, self.service)
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
                name, "session", f"No usable keyring: {status.problem}. The {label} is kept for this session only."
            )
        if _class_path(backend) == _WINDOWS_BACKEND:  # stored as UTF-16: two bytes a character
            clean_key_value(secret, encoding="utf-16-le")
        failure = None
        try:
            backend.set_password(self.service, name, secret.reveal())
        except Exception as exc:  # noqa: BLE001 - reported in words, without the value
            failure = secret.redact(describe_error(exc), mask="…")
        if failure is not None:  # raised outside the handler so no traceback carries the original
            raise KeyStoreError(f"{status.backend} did not store the {label}: {failure}")
        self.session.delete(name)
        log.info("stored the %s key in %s", name, status.backend)
        return SavedKey(name, "keyring", f"The {label} is stored in {status.backend}.")

    def delete(self, name: str) -> bool:
        """Removes the key from the session and the keyring; False when there was none."""
        removed = self.session.delete(name)
        backend = self._usable_backend()
        if backend is None:
            return removed
        failure = None
        try:
            if backend.get_password(self.service, name) is None:
                return removed
            backend.delete_password(self.service, name)
        except Exception as exc:  # noqa: BLE001
            failure = describe_error(exc)
        if failure is not None:
            raise KeyStoreError(f"{self.status().backend} did not delete the {key_label(name)}: {failure}")
        log.info("deleted the %s key from the keyring", name)
        return True

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


def describe_error(exc: BaseException) -> str:
    """A keyring or D-Bus failure in plain words."""
    kind = type(exc).__name__
    kinds = {cls.__name__ for cls in type(exc).__mro__}  # by name: keyring itself may be what failed to load
    if "NoKeyringError" in kinds:
        return NO_KEYRING
    if kinds & {"KeyringLocked", "LockedException", "PromptDismissedException"}:
        return "the keyring is locked and was not unlocked (was the unlock prompt dismissed?)"
    text = " ".join(str(exc).split())
    if kind.startswith("DBus") or "dbus" in type(exc).__module__.lower() or "jeepney" in type(exc).__module__:
        return f"the keyring service did not answer over D-Bus ({text or kind})"
    return f"{text} ({kind})" if text else kind


def _class_path(backend: object) -> str:
    return f"{type(backend).__module__}.{type(backend).__qualname__}"


def _open(given: KeyringBackend | None, service: str) -> tuple[KeyringBackend | None, KeyringStatus]:
    try:
        backend = given if given is not None else default_backend()
    except Exception as exc:  # noqa: BLE001 - e.g. a bad PYTHON_KEYRING_BACKEND
        return None, KeyringStatus(False, "", f"the keyring could not be loaded: {describe_error(exc)}")
    chosen, problem = _choose(backend)
    if chosen is None:
        return None, KeyringStatus(False, "" if problem == NO_KEYRING else backend_name(backend), problem)
    name = backend_name(chosen)
    try:
        chosen.get_password(service, _PROBE_ENTRY)
    except Exception as exc:  # noqa: BLE001
        return None, KeyringStatus(False, name, describe_error(exc))
    return chosen, KeyringStatus(True, name)


def _choose(backend: KeyringBackend) -> tuple[KeyringBackend | None, str | None]:
    """The backend to use, unwrapping keyring's chainer; refuses fail/null and plain-file backends."""
    from keyring.backends import chainer

    if isinstance(backend, chainer.ChainerBackend):
        allowed = [b for b in backend.backends if _refusal(b) is None]
        return (allowed[0], None) if allowed else (None, NO_KEYRING)
    refusal = _refusal(backend)
    return (None, refusal) if refusal else (backend, None)


def _refusal(backend: KeyringBackend) -> str | None:
    from keyring.backends import fail, null

    if isinstance(backend, fail.Keyring):
        return NO_KEYRING
    if isinstance(backend, null.Keyring):
        return "the keyring is switched off (keyring's null backend is configured)"
    module, cls = type(backend).__module__, type(backend).__name__
    if module.startswith("keyrings.alt") or "plaintext" in cls.lower():
        return f"the configured backend {module}.{cls} keeps keys in a file, not in a system keyring"
    return None


def backend_name(backend: KeyringBackend) -> str:
    """A name people know: "Secret Service (gnome-keyring)", "macOS Keychain", "Windows Credential Manager"."""
    path = _class_path(backend)
    name = _BACKEND_NAMES.get(path)
    if name is None:
        try:
            return str(type(backend).name)
        except Exception:  # noqa: BLE001
            return type(backend).__name__
    if path == "keyring.backends.SecretService.Keyring":
        provider = _secret_service_provider()
        return f"{name} ({provider})" if provider else name
    return name


def _secret_service_provider() -> str | None:
    """Which program answers org.freedesktop.secrets (Linux only; None when it cannot be told)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import secretstorage
        from jeepney.bus_messages import message_bus

        with secretstorage.dbus_init() as connection:
            reply = connection.send_and_get_reply(
                message_bus.GetConnectionUnixProcessID("org.freedesktop.secrets"), timeout=2
            )
        pid = int(reply.body[0])
        program = os.path.basename(os.readlink(f"/proc/{pid}/exe"))
    except Exception:  # noqa: BLE001 - only a nicer name is lost
        return None
    for part, known in (("gnome-keyring", "gnome-keyring"), ("kwallet", "KWallet"), ("keepassxc", "KeePassXC")):
        if part in program.lower():
            return known
    return program or None
