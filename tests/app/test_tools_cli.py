"""`desktop-copilot tools` as a user runs it (subprocesses on the profile's settings.json): list, enable and disable a
built-in tool (the shell is off until enabled), and choose the workspace folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def tools(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "desktop_copilot", "tools", *args], capture_output=True, text=True,
                          encoding="utf-8", stdin=subprocess.DEVNULL, cwd=ROOT, timeout=60,
                          env=dict(os.environ, PYTHONIOENCODING="utf-8"))


def states() -> dict[str, bool]:
    listed = tools("list", "--json")
    assert listed.returncode == 0, listed.stderr
    return {row["name"]: row["on"] for row in json.loads(listed.stdout)["tools"]}


def settings() -> dict:
    return json.loads((Path(os.environ["DESKTOP_COPILOT_HOME"]) / "config" / "settings.json").read_text(encoding="utf-8"))


def test_the_shell_is_off_until_enabled_and_any_built_in_can_be_switched(tmp_path):
    before = states()
    assert before["shell"] is False and before["write_file"] is True and before["web_fetch"] is True
    on = tools("enable", "shell")
    assert on.returncode == 0 and on.stdout.startswith("shell is on.") and "asks before every call" in on.stdout
    assert states()["shell"] is True and "shell" in settings()["enabled_tools"]
    assert tools("disable", "web_fetch").returncode == 0
    assert states()["web_fetch"] is False and "web_fetch" in settings()["disabled_tools"]
    assert tools("disable", "shell").returncode == 0 and states()["shell"] is False
    unknown = tools("enable", "rm_rf")
    assert unknown.returncode == 2 and "there is no built-in tool 'rm_rf'" in unknown.stderr


def test_the_workspace_folder_is_chosen_checked_and_cleared(tmp_path):
    assert "No workspace folder is chosen" in tools("workspace").stdout
    missing = tools("workspace", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "is not a folder" in missing.stderr
    chosen = tools("workspace", str(tmp_path))
    assert chosen.returncode == 0 and settings()["workspace_folder"] == str(tmp_path.resolve())
    assert tools("workspace").stdout.strip() == str(tmp_path.resolve())
    listed = tools("list")
    assert f"workspace: {tmp_path.resolve()}" in listed.stdout and "needs a workspace" not in listed.stdout
    assert tools("workspace", "--clear").returncode == 0 and settings()["workspace_folder"] is None
