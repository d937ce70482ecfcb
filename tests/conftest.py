"""Shared fixtures: a loopback HTTP server, an isolated environment for every test, and providers closed after it."""

from __future__ import annotations

import os
import sys

import pytest
import pytest_asyncio

from tests.support.loopback import LoopbackServer

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

_PROVIDERS = ("ANTHROPIC", "OPENAI", "DEEPSEEK", "MOONSHOT", "ZHIPU", "OPENROUTER", "GROQ", "XAI", "GEMINI", "OLLAMA", "LMSTUDIO",
              "LLAMACPP", "VLLM")
_ISOLATED_VARS = (
    "TAVILY_API_KEY", "TAVILY_BASE_URL", "OLLAMA_HOST", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID",
    "DESKTOP_COPILOT_PROVIDER", "DESKTOP_COPILOT_MODEL", "DESKTOP_COPILOT_MAX_TOKENS", "DESKTOP_COPILOT_LOG",
    *(f"{name}_{what}" for name in _PROVIDERS for what in ("API_KEY", "BASE_URL")),
)


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path_factory, monkeypatch):
    """No real keys or endpoints leak in, and app data goes to a fresh directory."""
    monkeypatch.setenv("DESKTOP_COPILOT_HOME", str(tmp_path_factory.mktemp("home")))
    for name in _ISOLATED_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def _uncalibrated():
    """Every test starts with no token calibration learned and no weights held (core/context: both are per process,
    and any run of the agent loop learns from the usage its replies report)."""
    yield
    if "desktop_copilot.core.context.budget" in sys.modules:
        sys.modules["desktop_copilot.core.context.budget"].forget()
    if "desktop_copilot.core.context.tokens" in sys.modules:
        sys.modules["desktop_copilot.core.context.tokens"].forget_calibration()


@pytest.fixture
def loopback():
    with LoopbackServer() as server:
        yield server


@pytest_asyncio.fixture
async def providers():
    """Keeps the providers a test makes (`providers(AnthropicProvider(...))`) and closes them afterwards."""
    made = []

    def keep(provider):
        made.append(provider)
        return provider

    yield keep
    for provider in made:
        await provider.aclose()
