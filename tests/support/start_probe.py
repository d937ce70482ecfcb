"""Starts the real app in a subprocess on a profile (`home`), offscreen, with a probe script that watches the window
and prints what it saw as JSON lines; returns the last one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def run_start_probe(home: Path, probe: str) -> dict:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "DESKTOP_COPILOT_HOME": str(home), "ANTHROPIC_API_KEY": "sk-ant-test"}
    env.pop("DESKTOP_COPILOT_EXIT_AFTER_SHOW", None)
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120, cwd=REPO,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads([line for line in done.stdout.splitlines() if line.startswith("{")][-1])
