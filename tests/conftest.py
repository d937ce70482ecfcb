"""Shared fixtures: a loopback HTTP server, an isolated environment for every test, and providers closed after it."""

from __future__ import annotations

import os

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
