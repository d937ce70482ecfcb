"""A whole-app run for the secret tests: the keyring (the real Secret Service under tests/run.sh, else an in-memory
one), the log at DEBUG, keys typed into the settings dialog, and `ask` run as its own process (Secret Service) or in
this one (in-memory keyring, which only this process sees)."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.log_support import logging_to_profile
from tests.support.memory_keyring import use_memory_keyring

ROOT = Path(__file__).resolve().parents[2]
SECRET_SERVICE = os.environ.get("DESKTOP_COPILOT_SECRET_SERVICE") == "1"
"""tests/run.sh started gnome-keyring: keys go to the real Secret Service."""


def child_environment() -> dict[str, str]:
    """This process's environment for an app process: no key from the environment, the repository importable."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["PYTHONPATH"] = str(ROOT)
    return env


def run_cli(*args: str, stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "desktop_copilot", *args], check=False, input=stdin, capture_output=True, text=True,
                          env=child_environment(), cwd=ROOT, timeout=timeout)


@pytest.fixture
def keyring_entries(monkeypatch) -> Iterator[set[str]]:
    """The keyring of the run: the Secret Service, or an in-memory one. The test adds the names of the entries it
    writes (keys, MCP secrets, OAuth sign-ins) to the set; in the Secret Service they are deleted afterwards."""
    if not SECRET_SERVICE:
        use_memory_keyring(monkeypatch)
    written: set[str] = set()
    yield written
    if SECRET_SERVICE:
        from keyring.errors import PasswordDeleteError

        from desktop_copilot.core.keys.keyring_store import SERVICE, default_backend

        backend = default_backend()
        for entry in written:
            try:
                backend.delete_password(SERVICE, entry)
            except PasswordDeleteError:
                pass


@pytest.fixture
def app_log() -> Iterator[Path]:
    """The log file, configured at DEBUG as `desktop-copilot --debug` does before the window or `ask` starts."""
    with logging_to_profile(logging.DEBUG) as path:
        yield path


def save_in_dialog(qtbot, dialog, name: str, value: str) -> None:
    """Types `value` into the key field for `name` (a tool's on Tool keys, a provider's on Providers) and saves it."""
    row = dialog.providers_page.rows.get(name)
    field = row.key_field if row is not None else dialog.keys_page.fields[name]
    field.edit.setText(value)
    field.save_button.click()
    qtbot.waitUntil(lambda: bool(field.found) and field.found[0].source == "keyring", timeout=10000)


def run_ask(qtbot, capsys, *args: str, timeout: float = 20) -> str:
    """`desktop-copilot ask ARGS…` (as a process with the Secret Service, else in this process on the test's loop);
    asserts it succeeded and returns what it printed."""
    if SECRET_SERVICE:
        result = run_cli("--debug", "ask", *args, timeout=timeout * 4)
        assert result.returncode == 0, result.stderr
        return result.stdout + result.stderr
    from desktop_copilot.app import ask
    from desktop_copilot.app.cli import build_parser
    from tests.qt.conftest import run_async

    try:
        code = run_async(qtbot, ask._ask(build_parser().parse_args(["ask", *args])), timeout=int(timeout * 1000))
    finally:  # `ask` lets Ctrl+C cancel its run; this loop outlives it
        asyncio.get_event_loop().remove_signal_handler(signal.SIGINT)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out + captured.err
