"""Shared fixtures: a loopback HTTP server and an isolated environment for every test."""

from __future__ import annotations

import os

import pytest

from tests.support.loopback import LoopbackServer

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

_ISOLATED_VARS = ("ANTHROPIC_API_KEY", "TAVILY_API_KEY", "ANTHROPIC_BASE_URL", "TAVILY_BASE_URL", "DESKTOP_COPILOT_MODEL",
                  "DESKTOP_COPILOT_MAX_TOKENS", "DESKTOP_COPILOT_LOG")


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory, monkeypatch):
    """No real keys or endpoints leak in, and app data goes to a fresh directory."""
    monkeypatch.setenv("DESKTOP_COPILOT_HOME", str(tmp_path_factory.mktemp("home")))
    for name in _ISOLATED_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def loopback():
    with LoopbackServer() as server:
        yield server
