"""Which system keyring this machine has, whether it may hold keys, and its failures in plain words."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from desktop_copilot.core.words import N_, tr

if TYPE_CHECKING:
    from keyring.backend import KeyringBackend

PROBE_ENTRY = "desktop-copilot-probe"
WINDOWS_BACKEND = "keyring.backends.Windows.WinVaultKeyring"
_BACKEND_NAMES = {
    "keyring.backends.SecretService.Keyring": "Secret Service",
    "keyring.backends.libsecret.Keyring": "Secret Service (libsecret)",
    "keyring.backends.kwallet.DBusKeyring": "KWallet",
    "keyring.backends.kwallet.DBusKeyringKWallet4": "KWallet 4",
    "keyring.backends.macOS.Keyring": "macOS Keychain",
    WINDOWS_BACKEND: "Windows Credential Manager",
}
NO_KEYRING = N_("no system keyring was found; on Linux, install and unlock a Secret Service such as GNOME Keyring or KWallet")


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
        if not self.backend:
            return tr("not usable: {problem}").format(problem=self.problem)
        return tr("{backend}, not usable: {problem}").format(backend=self.backend, problem=self.problem)


def default_backend() -> KeyringBackend:
    """keyring's choice for this machine (PYTHON_KEYRING_BACKEND, keyringrc.cfg, else the best available)."""
    import keyring

    return keyring.get_keyring()


def describe_error(exc: BaseException) -> str:
    """A keyring or D-Bus failure in plain words."""
    kind = type(exc).__name__
    kinds = {cls.__name__ for cls in type(exc).__mro__}  # by name: keyring itself may be what failed to load
    if "NoKeyringError" in kinds:
        return tr(NO_KEYRING)
    if kinds & {"KeyringLocked", "LockedException", "PromptDismissedException"}:
        return tr("the keyring is locked and was not unlocked (was the unlock prompt dismissed?)")
    text = " ".join(str(exc).split())
    if kind.startswith("DBus") or "dbus" in type(exc).__module__.lower() or "jeepney" in type(exc).__module__:
        return tr("the keyring service did not answer over D-Bus ({detail})").format(detail=text or kind)
    return f"{text} ({kind})" if text else kind


def class_path(backend: object) -> str:
    return f"{type(backend).__module__}.{type(backend).__qualname__}"


def open_backend(backend: KeyringBackend, service: str) -> tuple[KeyringBackend | None, KeyringStatus]:
    """The usable backend within `backend` (a chainer is unwrapped) after a probe read, and its status."""
    chosen, problem = _choose(backend)
    if chosen is None:
        return None, KeyringStatus(False, "" if problem == tr(NO_KEYRING) else backend_name(backend), problem)
    name = backend_name(chosen)
    try:
        chosen.get_password(service, PROBE_ENTRY)
    except Exception as exc:  # noqa: BLE001
        return None, KeyringStatus(False, name, describe_error(exc))
    return chosen, KeyringStatus(True, name)


def _choose(backend: KeyringBackend) -> tuple[KeyringBackend | None, str | None]:
    """The backend to use, unwrapping keyring's chainer; refuses fail/null and plain-file backends."""
    from keyring.backends import chainer

    if isinstance(backend, chainer.ChainerBackend):
        allowed = [b for b in backend.backends if _refusal(b) is None]
        return (allowed[0], None) if allowed else (None, tr(NO_KEYRING))
    refusal = _refusal(backend)
    return (None, refusal) if refusal else (backend, None)


def _refusal(backend: KeyringBackend) -> str | None:
    from keyring.backends import fail, null

    if isinstance(backend, fail.Keyring):
        return tr(NO_KEYRING)
    if isinstance(backend, null.Keyring):
        return tr("the keyring is switched off (keyring's null backend is configured)")
    module, cls = type(backend).__module__, type(backend).__name__
    if module.startswith("keyrings.alt") or "plaintext" in cls.lower():
        return tr("the configured backend {backend} keeps keys in a file, not in a system keyring").format(backend=f"{module}.{cls}")
    return None


def backend_name(backend: KeyringBackend) -> str:
    """A name people know: "Secret Service (gnome-keyring)", "macOS Keychain", "Windows Credential Manager"."""
    path = class_path(backend)
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
