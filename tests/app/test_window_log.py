"""The window started as a user starts it (`desktop-copilot --debug`, offscreen): its start and stop lines."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_window_logs_versions_at_start_and_its_exit_at_shutdown():
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", DESKTOP_COPILOT_EXIT_AFTER_SHOW="1", PYTHONPATH=str(ROOT),
               PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring", ANTHROPIC_API_KEY="sk-ant-window-log-test-0042")
    done = subprocess.run([sys.executable, "-m", "desktop_copilot", "--debug"], env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    text = (Path(os.environ["DESKTOP_COPILOT_HOME"]) / "logs" / "desktop-copilot.log").read_text(encoding="utf-8")
    start = next(line for line in text.splitlines() if "starting (window)" in line)
    assert f"Python {sys.version.split()[0]}" in start and "PySide6 6." in start and ", Qt 6." in start
    assert "platform offscreen" in start and start.endswith("log level DEBUG")
    assert "stopping (window), exit code 0" in text
    assert "sk-ant-window-log-test-0042" not in text and "Traceback" not in text
