"""default_backend: keyring's own choice for this machine (PYTHON_KEYRING_BACKEND, keyringrc.cfg, else the best viable
backend, its chainer unwrapped), made without loading the backends written for another system. Each case runs in a
fresh process, where keyring has chosen nothing yet, and is compared with keyring's own detection run afterwards."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support.fresh_process import json_from_child

ROOT = Path(__file__).resolve().parents[3]
SECRET_SERVICE = os.environ.get("DESKTOP_COPILOT_SECRET_SERVICE") == "1"
FOREIGN = ("keyring.backends.macOS", "keyring.backends.Windows") if sys.platform.startswith("linux") else ()

CHILD = """
import json, sys
{setup}
import keyring, keyring.core
from desktop_copilot.core.keys import keyring_backends as kb

ours = kb.default_backend()
status = kb.open_backend(ours, "desktop-copilot-test")[1]
loaded = sorted(m for m in sys.modules if m.startswith(("keyring.backends.", "keyrings.", "fake_")))
set_for_keyring = keyring.get_keyring()
again = kb.default_backend()
theirs = keyring.core._detect_backend()  # keyring's own detection (loads every entry point)
their_status = kb.open_backend(theirs, "desktop-copilot-test")[1]
print(json.dumps({{
    "ours": kb.class_path(ours), "status": [status.usable, status.backend, status.problem],
    "theirs": kb.class_path(kb._choose(theirs)[0]) if kb._choose(theirs)[0] is not None else None,
    "their_keyring": kb.class_path(theirs),
    "their_status": [their_status.usable, their_status.backend, their_status.problem],
    "keyring_set": kb.class_path(set_for_keyring), "same_again": again is ours, "loaded": loaded,
}}))
"""


def detect(tmp_path: Path, setup: str = "", **env: str | None) -> dict:
    """default_backend in a fresh process (environment changed by `env`, None removing), beside keyring's choice."""
    return json_from_child(CHILD.format(setup=textwrap.dedent(setup)), tmp_path, dropped=("PYTHON_KEYRING_BACKEND",), **env)


def no_foreign_backend(result: dict) -> bool:
    return not any(module.startswith(FOREIGN) for module in result["loaded"]) if FOREIGN else True


NO_BUS = {"DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/desktop-copilot-test-bus"}
"""No Secret Service (nor KWallet, libsecret) can answer: keyring finds no system keyring."""

PLAINTEXT = """
from keyring.backend import KeyringBackend
class PlaintextKeyring(KeyringBackend):
    priority = 0.5
    def get_password(self, service, username): return None
    def set_password(self, service, username, password): pass
PlaintextKeyring.__module__ = "keyrings.alt.file"
"""


@pytest.mark.skipif(not SECRET_SERVICE, reason="needs a real Secret Service: run through tests/run.sh")
def test_the_secret_service_is_chosen_as_keyring_chooses_it_without_the_other_systems_backends(tmp_path):
    result = detect(tmp_path)
    assert result["ours"] == result["theirs"] == "keyring.backends.SecretService.Keyring"
    assert result["status"] == result["their_status"] and result["status"][0] is True
    assert result["keyring_set"] == result["ours"] and result["same_again"]
    assert "keyring.backends.SecretService" in result["loaded"]
    assert no_foreign_backend(result), result["loaded"]


def test_without_a_keyring_the_refusal_is_keyrings(tmp_path):
    result = detect(tmp_path, **NO_BUS)
    assert result["ours"] == "keyring.backends.fail.Keyring"
    assert result["status"] == result["their_status"]
    assert result["status"][:2] == [False, ""] and "no system keyring was found" in result["status"][2]
    assert no_foreign_backend(result), result["loaded"]


def test_the_environment_variable_is_honoured(tmp_path):
    result = detect(tmp_path, PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring")
    assert result["ours"] == result["their_keyring"] == result["keyring_set"] == "keyring.backends.null.Keyring"
    assert result["status"] == result["their_status"] and "switched off" in result["status"][2]
    assert no_foreign_backend(result), result["loaded"]


def test_a_bad_environment_variable_raises_as_keyring_does(tmp_path):
    environ = dict(os.environ, PYTHONPATH=str(ROOT), PYTHON_KEYRING_BACKEND="keyring.backends.nowhere.Keyring")
    code = "from desktop_copilot.core.keys.keyring_store import KeyringKeys; print(KeyringKeys().status().problem)"
    done = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=60, env=environ)
    assert done.returncode == 0, done.stderr
    assert "could not be loaded" in done.stdout and "nowhere" in done.stdout


def test_keyringrc_cfg_is_honoured(tmp_path):
    config = tmp_path / "config" / "python_keyring"
    config.mkdir(parents=True)
    (config / "keyringrc.cfg").write_text("[backend]\ndefault-keyring=keyring.backends.fail.Keyring\n", encoding="utf-8")
    result = detect(tmp_path)
    assert result["ours"] == result["their_keyring"] == "keyring.backends.fail.Keyring"
    assert result["status"] == result["their_status"] and "no system keyring was found" in result["status"][2]
    assert no_foreign_backend(result), result["loaded"]


def test_the_environment_variable_wins_over_keyringrc_cfg(tmp_path):
    config = tmp_path / "config" / "python_keyring"
    config.mkdir(parents=True)
    (config / "keyringrc.cfg").write_text("[backend]\ndefault-keyring=keyring.backends.fail.Keyring\n", encoding="utf-8")
    result = detect(tmp_path, PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring")
    assert result["ours"] == result["their_keyring"] == "keyring.backends.null.Keyring"


def test_a_plaintext_only_machine_is_refused_with_keyrings_words(tmp_path):
    result = detect(tmp_path, PLAINTEXT, **NO_BUS)
    assert result["ours"] == result["their_keyring"] == result["keyring_set"] == "keyrings.alt.file.PlaintextKeyring"
    assert result["status"] == result["their_status"]
    assert result["status"][0] is False and "keeps keys in a file, not in a system keyring" in result["status"][2]


def test_two_plaintext_backends_make_keyrings_chainer_which_holds_no_allowed_keyring(tmp_path):
    setup = PLAINTEXT + """
class OtherPlaintextKeyring(PlaintextKeyring):
    priority = 0.6
"""
    result = detect(tmp_path, setup, **NO_BUS)
    assert result["their_keyring"] == result["keyring_set"] == "keyring.backends.chainer.ChainerBackend"
    assert result["ours"] == "keyring.backends.fail.Keyring"
    assert result["status"] == result["their_status"] == [False, "", result["status"][2]]
    assert "no system keyring was found" in result["status"][2]


def test_the_chainers_first_allowed_backend_is_chosen_and_given_to_keyring(tmp_path):
    setup = PLAINTEXT + """
class HigherPlaintextKeyring(PlaintextKeyring):
    priority = 3
class MemoryKeyring(KeyringBackend):
    priority = 1
    def get_password(self, service, username): return None
    def set_password(self, service, username, password): pass
"""
    result = detect(tmp_path, setup, **NO_BUS)
    assert result["their_keyring"] == "keyring.backends.chainer.ChainerBackend"
    assert result["ours"] == result["theirs"] == result["keyring_set"] == "__main__.MemoryKeyring"
    assert result["status"] == result["their_status"] and result["status"][0] is True


def test_a_third_party_plugin_still_loads_through_its_entry_point(tmp_path):
    (tmp_path / "fake_keyring_plugin.py").write_text(textwrap.dedent("""
        from keyring.backend import KeyringBackend
        class Keyring(KeyringBackend):
            priority = 20
            def get_password(self, service, username): return None
            def set_password(self, service, username, password): pass
    """), encoding="utf-8")
    info = tmp_path / "fake_keyring_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-keyring-plugin\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[keyring.backends]\nfake = fake_keyring_plugin\n", encoding="utf-8")
    result = detect(tmp_path)
    assert result["ours"] == result["theirs"] == result["keyring_set"] == "fake_keyring_plugin.Keyring"
    assert result["status"] == result["their_status"] and result["status"][0] is True
    assert no_foreign_backend(result), result["loaded"]


def test_keyrings_entry_points_in_a_zip_on_sys_path_are_found(tmp_path, monkeypatch):
    import zipfile

    import keyring.compat.py312  # noqa: F401  (keyring, its metadata and zipp are loaded before sys.path holds only the zip)
    import zipp  # noqa: F401

    from desktop_copilot.core.keys import keyring_backends

    archive = tmp_path / "plugins.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("zipped_plugin-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: zipped-plugin\nVersion: 1\n")
        zipped.writestr("zipped_plugin-1.0.dist-info/entry_points.txt", "[keyring.backends]\nzipped = zipped_plugin\n")
    monkeypatch.setattr(sys, "path", [str(archive)])
    found = keyring_backends._entry_points("keyring.backends")
    assert [(entry.name, entry.value, entry.group) for entry in found] == [("zipped", "zipped_plugin", "keyring.backends")]


def test_without_a_session_bus_the_secret_service_backend_is_not_loaded_and_the_refusal_is_keyrings(tmp_path):
    result = detect(tmp_path, DBUS_SESSION_BUS_ADDRESS=None)
    assert result["ours"] == "keyring.backends.fail.Keyring"
    assert result["status"] == result["their_status"]  # keyring's own detection, which loads it, finds none either
    assert "no system keyring was found" in result["status"][2]
    assert "keyring.backends.SecretService" not in result["loaded"], result["loaded"]
