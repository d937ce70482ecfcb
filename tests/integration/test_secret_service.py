"""Keys in a real Secret Service (gnome-keyring under dbus-run-session; run through tests/run.sh)."""

from __future__ import annotations

import base64
import os
import secrets
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from desktop_copilot.core.keys.keyring_store import KeyringKeys

pytestmark = [
    pytest.mark.secret_service,
    pytest.mark.skipif(
        os.environ.get("DESKTOP_COPILOT_SECRET_SERVICE") != "1",
        reason="needs a real Secret Service: run through tests/run.sh (sets DESKTOP_COPILOT_SECRET_SERVICE=1)",
    ),
]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def secret_service():
    from keyring.backends.SecretService import Keyring

    return Keyring()


@pytest.fixture
def store(secret_service):
    keys = KeyringKeys(secret_service, service=f"desktop-copilot-test-{uuid.uuid4().hex[:8]}")
    yield keys
    for name in ("anthropic", "tavily"):
        keys.delete(name)


def new_value() -> str:
    return f"sk-ant-test-{secrets.token_hex(20)}"


def cli(*args: str, stdin: str = "", home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "TAVILY_API_KEY")}
    env.update(DESKTOP_COPILOT_HOME=str(home), PYTHONPATH=str(ROOT))
    env.pop("PYTHON_KEYRING_BACKEND", None)
    return subprocess.run(
        [sys.executable, "-m", "desktop_copilot", *args],
        input=stdin, capture_output=True, text=True, env=env, cwd=ROOT, timeout=60,
    )


def test_status_names_gnome_keyring(store):
    status = store.status()
    assert status.usable, status.problem
    assert status.backend == "Secret Service (gnome-keyring)"


def test_set_get_replace_delete(store, secret_service):
    first, second = new_value(), new_value()
    assert store.get("anthropic") is None
    assert store.set("anthropic", f"{first}\n").persisted
    assert store.get("anthropic").secret.reveal() == first
    assert store.get("anthropic").source == "keyring"

    assert store.set("anthropic", second).persisted
    assert store.get("anthropic").secret.reveal() == second
    fresh = KeyringKeys(secret_service, service=store.service)  # a new store reads it back from the daemon
    assert fresh.get("anthropic").secret.reveal() == second

    assert store.delete("anthropic") is True
    assert store.get("anthropic") is None
    assert store.delete("anthropic") is False


def test_entries_are_separate_per_name(store):
    a, t = new_value(), new_value()
    store.set("anthropic", a)
    store.set("tavily", t)
    assert store.get("anthropic").secret.reveal() == a
    assert store.get("tavily").secret.reveal() == t
    store.delete("anthropic")
    assert store.get("tavily").secret.reveal() == t


def test_command_line_round_trip_leaves_no_value_in_files(tmp_path):
    home = tmp_path / "home"
    value = new_value()
    try:
        result = cli("keys", "set", "anthropic", stdin=value + "\n", home=home)
        assert result.returncode == 0, result.stderr
        assert "Secret Service (gnome-keyring)" in result.stdout and value[-4:] in result.stdout

        listed = cli("keys", "list", home=home)
        assert listed.returncode == 0, listed.stderr
        assert "Keyring: Secret Service (gnome-keyring)" in listed.stdout
        assert f"from keyring …{value[-4:]}" in listed.stdout

        check = (
            "from desktop_copilot.core.bootstrap import apply_settings, build_runtime\n"
            "runtime = build_runtime()\n"
            "apply_settings(runtime, runtime.settings.model_copy(update={'default_model': 'claude-test'}))\n"
            "found = runtime.keys.get('anthropic')\n"
            "print(found.source, found.secret.hint, runtime.warnings)\n"
        )
        env = {**os.environ, "DESKTOP_COPILOT_HOME": str(home), "PYTHONPATH": str(ROOT)}
        env.pop("ANTHROPIC_API_KEY", None)
        runtime = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, env=env,
                                 cwd=ROOT, timeout=60)
        assert runtime.stdout.split() == ["keyring", f"…{value[-4:]}", "[]"], runtime.stderr

        for output in (result, listed, runtime):
            assert value not in output.stdout + output.stderr
        files = [p for p in home.rglob("*") if p.is_file()]
        assert any(p.name == "settings.json" for p in files)
        needles = (value.encode(), value.encode("utf-16-le"), base64.b64encode(value.encode()))
        for path in files:
            data = path.read_bytes()
            assert not any(needle in data for needle in needles), path

        deleted = cli("keys", "delete", "anthropic", home=home)
        assert deleted.returncode == 0, deleted.stderr
        assert "not set" in cli("keys", "list", home=home).stdout.splitlines()[1]
        assert cli("keys", "delete", "anthropic", home=home).returncode == 1
    finally:
        cli("keys", "delete", "anthropic", home=home)
