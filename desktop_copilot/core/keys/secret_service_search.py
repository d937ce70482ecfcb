"""Which key names the keyring holds, told without keyring, secretstorage or cryptography (~15 ms and an encrypted
session) where keyring's choice can only be the Secret Service or no keyring: the default collection keyring's backend
reads, searched over D-Bus (jeepney) by the attributes it stores (service, username). Names only, never a value."""

from __future__ import annotations

import functools
import logging
import os
import sys

log = logging.getLogger(__name__)

SECRETS = "org.freedesktop.secrets"
DEFAULT_COLLECTION = "/org/freedesktop/secrets/aliases/default"
"""The collection keyring's Secret Service backend reads and writes (secretstorage's default one)."""
CALL_TIMEOUT_S = 10.0
"""Seconds one D-Bus call may take (the first may start the service); longer, and the keyring is opened as before."""
SEARCHED_SERVICES = ("gnome-keyring",)
"""The services searched without keyring. gnome-keyring matches a locked collection's items by their attributes as an
unlocked one's, so its collection's lock need not be read; another service's locked collection may hide its items, and
reading whether it is locked is a property read, which this module never sends (see `_search`)."""
KEYRINGS_OWN_BACKENDS = frozenset({"keyring.backends.SecretService", "keyring.backends.kwallet", "keyring.backends.libsecret",
                                   "keyring.backends.chainer", "keyring.backends.macOS", "keyring.backends.Windows"})
"""The modules of keyring's own `keyring.backends` entry points (its fail and null backends are no entry points)."""


def secret_service_or_none() -> bool:
    """Whether keyring's choice on this machine can only be its Secret Service backend or no keyring at all, told
    without importing keyring: Linux; nothing chosen in this process yet; no backend configured (PYTHON_KEYRING_BACKEND,
    keyringrc.cfg) nor a backend property set (KEYRING_PROPERTY_*); and of the `keyring.backends` entry points only
    keyring's own, with neither the dbus module KWallet's backend needs nor the gi module libsecret's needs. Then a key
    the Secret Service does not hold is not in the keyring (`names_held`)."""
    if not sys.platform.startswith("linux") or "PYTHON_KEYRING_BACKEND" in os.environ:
        return False
    if any(name.startswith("KEYRING_PROPERTY_") for name in os.environ):
        return False
    core = sys.modules.get("keyring.core")
    if core is not None and getattr(core, "_keyring_backend", None) is not None:
        return False
    config_root = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    if os.path.exists(os.path.join(config_root, "python_keyring", "keyringrc.cfg")):
        return False
    return _only_keyrings_own_linux_backends()


@functools.cache
def _only_keyrings_own_linux_backends() -> bool:
    """Every `keyring.backends` entry point is keyring's own, and KWallet's and libsecret's backends cannot load
    (asked once a process, as keyring loads its backends once)."""
    from importlib.util import find_spec

    from desktop_copilot.core.entry_points import entry_points

    if any(entry.module not in KEYRINGS_OWN_BACKENDS for entry in entry_points("keyring.backends")):
        return False
    return find_spec("dbus") is None and find_spec("gi") is None


def session_bus_known() -> bool:
    """Whether a session bus can be reached: jeepney (keyring's Secret Service backend's, and ours) finds it only by
    DBUS_SESSION_BUS_ADDRESS."""
    return bool(os.environ.get("DBUS_SESSION_BUS_ADDRESS"))


def names_held(service: str, names: list[str]) -> frozenset[str] | None:
    """Of `names`, those keyring's choice here holds under `service`; None when only opening the keyring can tell
    (another backend may be chosen, a service other than gnome-keyring, no default collection, any D-Bus failure).
    None held without a session bus: jeepney finds the bus only by DBUS_SESSION_BUS_ADDRESS, so keyring finds no
    keyring. Blocking: on the keyring thread."""
    if not secret_service_or_none():
        return None
    if not names or not session_bus_known():
        return frozenset()
    try:
        return _search(service, names)
    except Exception as exc:  # noqa: BLE001 - the keyring is opened instead, as before
        log.debug("the Secret Service could not be searched without keyring (%s)", type(exc).__name__)
        return None


def _search(service: str, names: list[str]) -> frozenset[str] | None:
    """Method calls only, never a property read: gnome-keyring (42 to 50 at least) aborts when a client leaves with a
    property read still unanswered (its client record is gone, the getter returns nothing, GDBus asserts), which a
    process quitting while this runs on its keyring thread would do; a method call in that state gets an error."""
    from jeepney import DBusAddress, new_method_call
    from jeepney.io.blocking import open_dbus_connection

    collection = DBusAddress(DEFAULT_COLLECTION, bus_name=SECRETS, interface="org.freedesktop.Secret.Collection")
    with open_dbus_connection(bus="SESSION") as connection:
        if service_program(connection) not in SEARCHED_SERVICES:
            return None
        held = set()
        for name in names:
            items, = _call(connection, new_method_call(collection, "SearchItems", "a{ss}",
                                                       ({"username": name, "service": service},)))
            if items:
                held.add(name)
    return frozenset(held)


def service_program(connection) -> str | None:
    """Which program answers org.freedesktop.secrets on `connection` ("gnome-keyring", "KWallet", "KeePassXC", another
    program's file name; None when it cannot be told)."""
    from jeepney.bus_messages import message_bus

    try:
        pid, = _call(connection, message_bus.GetConnectionUnixProcessID(SECRETS))
        program = os.path.basename(os.readlink(f"/proc/{int(pid)}/exe"))
    except Exception:  # noqa: BLE001 - not Linux's /proc, or the service went away
        return None
    for part, known in (("gnome-keyring", "gnome-keyring"), ("kwallet", "KWallet"), ("keepassxc", "KeePassXC")):
        if part in program.lower():
            return known
    return program or None


def _call(connection, message) -> tuple:
    """The reply's body; an error reply raises (jeepney's DBusErrorResponse)."""
    from jeepney.wrappers import unwrap_msg

    return unwrap_msg(connection.send_and_get_reply(message, timeout=CALL_TIMEOUT_S))
