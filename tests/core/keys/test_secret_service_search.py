"""Which key names the keyring holds, told without keyring where its choice can only be the Secret Service or no keyring
(core/keys/secret_service_search.py): each answer compared with what keyring itself chooses and reads, in fresh
processes (where keyring has chosen nothing yet) and against a real gnome-keyring."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from desktop_copilot.core.keys.secret_service_search import names_held, secret_service_or_none
from tests.support.fresh_process import json_from_child

ROOT = Path(__file__).resolve().parents[3]
SECRET_SERVICE = os.environ.get("DESKTOP_COPILOT_SECRET_SERVICE") == "1"

CHILD = """
import json, sys
from desktop_copilot.core.keys.secret_service_search import names_held, secret_service_or_none

held = names_held("desktop-copilot-search-test", ["tavily", "anthropic"])
answer = {"only": secret_service_or_none(), "held": None if held is None else sorted(held),
          "keyring_imported": "keyring" in sys.modules, "secretstorage_imported": "secretstorage" in sys.modules}
import keyring.core
from desktop_copilot.core.keys import keyring_backends as kb
answer["keyrings_choice"] = kb.class_path(keyring.core._detect_backend())
print(json.dumps(answer))
"""


def in_fresh_process(tmp_path: Path, **env: str | None) -> dict:
    """names_held and secret_service_or_none in a new process (environment changed by `env`, None removing; `tmp_path`
    first on sys.path), then keyring's own choice there."""
    return json_from_child(CHILD, tmp_path, dropped=("PYTHON_KEYRING_BACKEND", "KEYRING_PROPERTY_"), **env)


def test_without_a_session_bus_none_is_held_as_keyring_finds_no_keyring(tmp_path):
    answer = in_fresh_process(tmp_path, DBUS_SESSION_BUS_ADDRESS=None)
    assert answer["only"] is True and answer["held"] == []
    assert not answer["keyring_imported"] and not answer["secretstorage_imported"]
    assert answer["keyrings_choice"] == "keyring.backends.fail.Keyring"  # which holds nothing


def _plugin(tmp_path: Path) -> None:
    (tmp_path / "fake_backend.py").write_text("")
    info = tmp_path / "fake_backend-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-backend\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[keyring.backends]\nfake = fake_backend\n")


def _keyringrc(tmp_path: Path) -> None:
    (tmp_path / "config" / "python_keyring").mkdir(parents=True)
    (tmp_path / "config" / "python_keyring" / "keyringrc.cfg").write_text("[backend]\ndefault-keyring=keyring.backends.null.Keyring\n")


def _module(name: str):
    def make(tmp_path: Path) -> None:
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("")
    return make


@pytest.mark.parametrize(("setup", "env"), [
    (None, {"PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}),
    (None, {"KEYRING_PROPERTY_SCHEME": "KeePassXC"}),
    (_keyringrc, {}),
    (_plugin, {}),
    (_module("dbus"), {}),  # KWallet's backend could load
    (_module("gi"), {}),  # libsecret's
], ids=["PYTHON_KEYRING_BACKEND", "KEYRING_PROPERTY_", "keyringrc.cfg", "a third-party backend", "dbus", "gi"])
def test_where_keyring_could_choose_another_backend_only_keyring_can_tell(tmp_path, setup, env):
    if setup is not None:
        setup(tmp_path)
    answer = in_fresh_process(tmp_path, DBUS_SESSION_BUS_ADDRESS=None, **env)
    assert answer["only"] is False and answer["held"] is None


def test_a_backend_chosen_in_this_process_is_left_to_keyring(monkeypatch, tmp_path):
    import keyring.core

    from tests.support.memory_keyring import MemoryKeyring

    for name in ("DBUS_SESSION_BUS_ADDRESS", "PYTHON_KEYRING_BACKEND"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))  # no keyringrc.cfg
    monkeypatch.setattr(keyring.core, "_keyring_backend", None)
    assert secret_service_or_none() and names_held("desktop-copilot", ["tavily"]) == frozenset()
    monkeypatch.setattr(keyring.core, "_keyring_backend", MemoryKeyring())  # keyring.set_keyring, as a test or a plugin does
    assert not secret_service_or_none() and names_held("desktop-copilot", ["tavily"]) is None


@pytest.mark.skipif(not SECRET_SERVICE, reason="needs a real Secret Service: run through tests/run.sh")
def test_the_names_found_are_those_keyrings_secret_service_backend_reads(tmp_path, monkeypatch):
    import keyring.core
    from keyring.backends.SecretService import Keyring

    monkeypatch.setattr(keyring.core, "_keyring_backend", None)  # as in a process where keyring has chosen nothing yet

    service = f"desktop-copilot-test-{uuid.uuid4().hex[:8]}"
    backend = Keyring()
    backend.set_password(service, "tavily", "tvly-searched-for-by-name")
    try:
        assert names_held(service, ["tavily", "anthropic"]) == {"tavily"}
        assert [backend.get_password(service, name) is not None for name in ("tavily", "anthropic")] == [True, False]
        assert names_held(service + "-other", ["tavily"]) == frozenset()
    finally:
        backend.delete_password(service, "tavily")
    assert names_held(service, ["tavily"]) == frozenset()
    answer = in_fresh_process(tmp_path)
    assert answer["only"] is True and answer["held"] == [] and not answer["secretstorage_imported"]
    assert answer["keyrings_choice"] == "keyring.backends.SecretService.Keyring"


LOCKED_CHILD = """
import json
from keyring.backends.SecretService import Keyring  # the backend itself: keyring chooses nothing in this process
from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import open_dbus_connection
from desktop_copilot.core.keys import secret_service_search

Keyring().set_password("desktop-copilot-locked-test", "tavily", "tvly-in-a-locked-collection")
service = DBusAddress("/org/freedesktop/secrets", bus_name="org.freedesktop.secrets", interface="org.freedesktop.Secret.Service")
with open_dbus_connection(bus="SESSION") as connection:
    connection.send_and_get_reply(new_method_call(service, "Lock", "ao", (["/org/freedesktop/secrets/aliases/default"],)))
    program = secret_service_search.service_program(connection)
locked = {"program": program, "held": sorted(secret_service_search.names_held("desktop-copilot-locked-test", ["tavily", "anthropic"]))}
secret_service_search.service_program = lambda connection: "KeePassXC"  # a service that may hide a locked collection's items
locked["elsewhere"] = secret_service_search.names_held("desktop-copilot-locked-test", ["anthropic"])
print(json.dumps(locked))
"""


OWN_SESSION = pytest.mark.skipif(not (shutil.which("dbus-run-session") and shutil.which("gnome-keyring-daemon")),
                                 reason="needs dbus-run-session and gnome-keyring-daemon")
DAEMON_GONE = 3
"""The exit status of `in_own_keyring_session` when the gnome-keyring it started did not outlive the script."""


def in_own_keyring_session(tmp_path: Path, script: str) -> subprocess.CompletedProcess:
    """`script` run by Python in a D-Bus session of its own with a gnome-keyring of its own in a fresh HOME (locking or
    crashing the suite's would spoil the tests after), then the daemon checked: still the one started (D-Bus would start
    another on the next call if it went), else DAEMON_GONE."""
    (tmp_path / "script.py").write_text(textwrap.dedent(script))
    home = tmp_path / "home"
    home.mkdir()
    shell = textwrap.dedent(f"""
        echo -n pw | gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null 2>&1 &
        daemon=$!
        for _ in $(seq 50); do  # until it owns the name: a call before would start a second, locked one
            dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \\
                org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q "boolean true" && break
            sleep 0.1
        done
        "{sys.executable}" script.py
        status=$?
        sleep 0.5  # what the script left unanswered is handled
        kill -0 $daemon 2>/dev/null || exit {DAEMON_GONE}
        kill $daemon
        exit $status
    """)
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON_KEYRING_BACKEND", "KEYRING_PROPERTY_"))}
    env.update(PYTHONPATH=str(ROOT), HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
               XDG_DATA_HOME=str(home / ".local" / "share"))
    return subprocess.run(["dbus-run-session", "--", "bash", "-c", shell], check=False, capture_output=True, text=True,
                          timeout=120, env=env, cwd=tmp_path)


@OWN_SESSION
def test_a_locked_collection_is_searched_only_where_gnome_keyring_keeps_its_items_searchable(tmp_path):
    done = in_own_keyring_session(tmp_path, LOCKED_CHILD)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout.splitlines()[-1])
    assert answer == {"program": "gnome-keyring", "held": ["tavily"], "elsewhere": None}


LEAVER = """
import sys
from jeepney.io.blocking import DBusConnection
from desktop_copilot.core.keys.secret_service_search import names_held

calls, leave_at = 0, 0


def send_then_leave(self, message, timeout=None, **kwargs):
    # the k-th call of a search sent, then the connection closed unanswered: as when the process quits meanwhile
    global calls
    calls += 1
    if calls == leave_at:
        self.send(message)
        self.close()
        raise ConnectionResetError("left")
    return answer(self, message, timeout=timeout, **kwargs)


answer, DBusConnection.send_and_get_reply = DBusConnection.send_and_get_reply, send_then_leave
for search in range(int(sys.argv[1])):
    calls, leave_at = 0, search % 3 + 1
    names_held("desktop-copilot-leaving-test", ["tavily", "anthropic"])
"""
LEAVING_CHILDREN = f"""
import subprocess, sys

leavers = [subprocess.Popen([sys.executable, "-c", {LEAVER!r}, "2000"]) for _ in range(6)]
sys.exit(max(leaver.wait() for leaver in leavers))
"""


@OWN_SESSION
def test_clients_leaving_in_the_middle_of_a_search_never_bring_gnome_keyring_down(tmp_path):
    """gnome-keyring aborts when a client leaves with a property read unanswered (an upstream race): the search, whose
    process may quit while it runs on the keyring thread, sends none. Six processes each leave 2,000 searches at each of
    its calls in turn."""
    done = in_own_keyring_session(tmp_path, LEAVING_CHILDREN)
    assert done.returncode != DAEMON_GONE, "gnome-keyring went down while clients left searches unanswered"
    assert done.returncode == 0, done.stderr
