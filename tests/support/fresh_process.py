"""A piece of Python run in a fresh interpreter, with the environment changed and `tmp_path` first on sys.path: the JSON
it prints last (keyring's choices are made once a process, so they are compared in processes of their own)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def json_from_child(code: str, tmp_path: Path, *, dropped: tuple[str, ...] = (), **env: str | None) -> dict:
    """Run `code` with the variables starting with one of `dropped` removed and `env` applied (None removing), in
    `tmp_path` with its own XDG_CONFIG_HOME; the JSON of its last line."""
    environ = {key: value for key, value in os.environ.items() if not key.startswith(dropped)}
    environ.update(PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]), XDG_CONFIG_HOME=str(tmp_path / "config"))
    for key, value in env.items():
        if value is None:
            environ.pop(key, None)
        else:
            environ[key] = value
    done = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=120,
                          env=environ, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])
