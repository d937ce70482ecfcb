"""Which system keyring this machine has, whether it may hold keys, and its failures in plain words."""

from __future__ import annotations

import logging
import sys
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from desktop_copilot.core.keys.secret_service_search import session_bus_known
from desktop_copilot.core.words import N_, tr

if TYPE_CHECKING:
    from keyring.backend import KeyringBackend

log = logging.getLogger(__name__)

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


_FOREIGN_BACKENDS = {"keyring.backends.macOS": "darwin", "keyring.backends.Windows": "win32"}
"""keyring's own backend modules made for one system: not loaded elsewhere (on Linux the macOS one's import alone runs
`ctypes.util.find_library` three times, which starts gcc and ld; neither could be viable off its system)."""
_SESSION_BUS_BACKEND = "keyring.backends.SecretService"
"""keyring's Secret Service backend reaches the service through jeepney, which finds the session bus only by
DBUS_SESSION_BUS_ADDRESS: without it the backend is never viable, and it is not loaded (its import brings in
secretstorage and cryptography, ~10-20 ms)."""
_CHAINER_PRIORITY = 10
"""keyring's chainer's priority when it has more than one backend to chain (keyring.backends.chainer)."""
_detect_lock = threading.Lock()
_detected: tuple[KeyringBackend, KeyringBackend] | None = None
"""(what keyring.set_keyring was given, what default_backend returned) by the last detection here."""


def default_backend() -> KeyringBackend:
    """keyring's choice for this machine (PYTHON_KEYRING_BACKEND, keyringrc.cfg, else the best available), made as
    keyring makes it but without loading the backends made for another system; where keyring would choose its
    chainer, the chainer's first allowed backend (as `open_backend` would unwrap it), or keyring's fail backend
    when it chains none allowed. keyring.set_keyring is given the choice, so the other users of keyring agree; a
    backend already set there (keyring.set_keyring, or keyring's own detection done earlier) is kept."""
    global _detected
    import keyring
    from keyring import core

    with _detect_lock:
        current = getattr(core, "_keyring_backend", None)
        if current is not None:
            return _detected[1] if _detected is not None and _detected[0] is current else current
        for_keyring, chosen = _detect()
        keyring.set_keyring(for_keyring)
        _detected = for_keyring, chosen
        return chosen


def _detect() -> tuple[KeyringBackend, KeyringBackend]:
    """(keyring's choice, the backend to use): keyring.core._detect_backend with no limit, and a chainer unwrapped."""
    from keyring import core
    from keyring.backends import chainer, fail

    configured = core.load_env() or core.load_config()
    if configured is not None:
        return configured, configured  # a configured chainer is unwrapped by open_backend, as before
    ranked = _viable_backends()
    chained = [backend for priority, backend in ranked if priority > 0]
    if len(chained) > 1 and ranked[0][0] <= _CHAINER_PRIORITY:  # keyring would choose its chainer
        allowed = [backend for backend in chained if _refusal(backend) is None]
        if allowed:
            return allowed[0], allowed[0]
        return chainer.ChainerBackend(), fail.Keyring()  # "no keyring", as _choose says of that chainer
    best = ranked[0][1] if ranked else fail.Keyring()
    return best, best


def _viable_backends() -> list[tuple[float, KeyringBackend]]:
    """keyring.backend.get_all_keyring's backends but the chainer, with their priorities, highest first: the
    `keyring.backends` entry points loaded as keyring loads them (third-party plugins too) but for the other
    systems' backends; each priority asked once (the Secret Service's opens a D-Bus connection)."""
    from keyring import backend as keyring_backend
    from keyring.backends import chainer

    _load_plugins()
    ranked = []
    for cls in list(keyring_backend.KeyringBackend._classes):
        if issubclass(cls, chainer.ChainerBackend):
            continue
        try:
            priority = cls.priority
        except Exception as exc:  # noqa: BLE001 - not viable here, as keyring's `viable` says
            log.debug("keyring backend %s is not viable: %s", cls.__name__, exc)
            continue
        try:
            ranked.append((priority, cls()))
        except TypeError:  # as get_all_keyring: one that needs arguments is left out
            continue
    ranked.sort(key=lambda pair: pair[0], reverse=True)
    return ranked


def _load_plugins() -> None:
    """keyring.backend._load_plugins without the backends made for another system."""
    for entry in _entry_points("keyring.backends"):
        system = _FOREIGN_BACKENDS.get(entry.module)
        if system is not None and sys.platform != system:
            continue
        if entry.module == _SESSION_BUS_BACKEND and not session_bus_known():
            continue
        try:
            initialize = entry.load()
            if callable(initialize):
                initialize()
        except Exception:  # as keyring: a broken plugin is logged, the others still load
            log.exception("Error initializing plugin %s.", entry)


def _entry_points(group: str) -> list:
    """The entry points of `group`, as keyring finds them (its importlib.metadata: the backport before Python 3.12),
    by a scan of the distribution folders where sys.path holds only folders (core/entry_points.py)."""
    from keyring.compat.py312 import metadata

    from desktop_copilot.core.entry_points import entry_points

    return entry_points(group, metadata)


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
        from jeepney.io.blocking import open_dbus_connection

        from desktop_copilot.core.keys.secret_service_search import service_program

        with open_dbus_connection(bus="SESSION") as connection:
            return service_program(connection)
    except Exception:  # noqa: BLE001 - only a nicer name is lost
        return None
