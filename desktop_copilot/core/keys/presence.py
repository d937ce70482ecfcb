"""Which keys are set and whether the keyring is usable, learned in a short-lived child process
(`desktop-copilot keys list --json`), so the window knows it without loading keyring, secretstorage and cryptography
(~12 MB) until a key is first read."""

from __future__ import annotations

import atexit
import json
import logging
import subprocess
import sys
import time
from dataclasses import dataclass

from desktop_copilot.core.keys.blocking import EXIT_GRACE_S
from desktop_copilot.core.keys.keyring_backends import KeyringStatus

log = logging.getLogger(__name__)

CHILD_TIMEOUT_S = 60.0
"""A locked keyring may ask the user to unlock it: the child waits as the window would have."""


@dataclass(frozen=True, slots=True)
class KeyPresence:
    status: KeyringStatus
    present: frozenset[str]
    """The key names set in the keyring or the environment (never a value)."""
    asked: frozenset[str]
    """The names the child was asked about (the known keys and the custom providers' ids)."""
    from_environment: frozenset[str] = frozenset()
    """The key names the keyring did not have and the environment did: reading them needs no keyring."""

    @property
    def in_keyring(self) -> frozenset[str]:
        return self.present - self.from_environment


def child_command(names: list[str]) -> list[str]:
    """The app itself, asked for `keys list --json` (the frozen app takes the command as its arguments)."""
    command = ["keys", "list", "--json", "--names", ",".join(names)]
    if getattr(sys, "frozen", False):
        return [sys.executable, *command]
    return [sys.executable, "-m", "desktop_copilot", *command]


def parse_presence(text: str) -> KeyPresence | None:
    try:
        data = json.loads(text)
        keyring = data["keyring"]
        status = KeyringStatus(bool(keyring["usable"]), str(keyring.get("backend") or ""), keyring.get("problem"))
        present = frozenset(name for name, key in data["keys"].items() if key.get("set"))
        asked = frozenset(data["keys"])
        from_environment = frozenset(name for name in present if data["keys"][name].get("from") == "environment")
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    return KeyPresence(status, present, asked, from_environment)


def presence_in_child(names: list[str], timeout: float = CHILD_TIMEOUT_S) -> KeyPresence | None:
    """Blocking (run it on the keyring thread, a daemon: a child waiting for the keyring to be unlocked never keeps the
    app from quitting, and is killed when it quits); None when the child cannot say (the caller reads the keyring)."""
    try:
        child = subprocess.Popen(child_command(names), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, text=True, encoding="utf-8")
    except OSError as exc:
        log.info("the key check in a child process could not start: %s", type(exc).__name__)
        return None
    _running.add(child)
    try:
        out, _ = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        log.info("the key check in a child process took over %s s", timeout)
        return None
    finally:
        _running.discard(child)
    presence = parse_presence(out) if child.returncode == 0 else None
    if presence is None:
        log.info("the key check in a child process said nothing usable (exit %s)", child.returncode)
    return presence


_running: set[subprocess.Popen] = set()


@atexit.register
def _stop_children() -> None:
    """At exit, a check still running gets EXIT_GRACE_S to finish (killed in the middle of a keyring read, it could
    bring gnome-keyring down: see blocking.EXIT_GRACE_S); one still waiting then (a keyring asking to be unlocked) goes
    with the app."""
    deadline = time.monotonic() + EXIT_GRACE_S
    for child in list(_running):
        try:
            child.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.kill()
