"""The provider catalog and the runtime's view of it: built-in and user-added providers, endpoints."""

from __future__ import annotations

import pytest

from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.provider_table import PROVIDERS, UnknownProviderError, base_url, provider_spec
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.config.settings import CustomProvider, Settings


def test_every_provider_the_issue_names_is_there_with_its_key_and_endpoint_variable():
    assert set(PROVIDERS) >= {"anthropic", "openai", "deepseek", "moonshot", "zhipu", "openrouter", "groq", "xai", "gemini", "ollama"}
    assert provider_spec("DeepSeek").base_url_env == "DEEPSEEK_BASE_URL" and provider_spec("deepseek").key_name == "deepseek"
    assert not provider_spec("ollama").needs_key and provider_spec("ollama").base_url_env == "OLLAMA_HOST"  # an optional key
    with pytest.raises(UnknownProviderError, match="known providers: anthropic"):
        provider_spec("nope")


@pytest.mark.parametrize(("host", "url"), [
    ("", "http://127.0.0.1:11434"),
    ("0.0.0.0", "http://127.0.0.1:11434"),
    ("example.lan:8080", "http://example.lan:8080"),
    ("https://ollama.example.com", "https://ollama.example.com"),
    ("http://127.0.0.1:11434/", "http://127.0.0.1:11434"),
])
def test_ollama_host_is_read_as_ollama_reads_it(host, url):
    assert base_url(provider_spec("ollama"), {"OLLAMA_HOST": host} if host else {}) == url


def test_endpoints_come_from_the_environment_then_settings_then_the_public_one(monkeypatch):
    runtime = Runtime(AppPaths.resolve(), AppConfig())
    runtime.settings = Settings(base_urls={"deepseek": "https://proxy.example/v1"})
    assert runtime.base_url(runtime.spec("deepseek")) == "https://proxy.example/v1"
    monkeypatch.setenv("DEEPSEEK_BASE_URL", "http://127.0.0.1:9/")
    assert runtime.base_url(runtime.spec("deepseek")) == "http://127.0.0.1:9"
    assert runtime.base_url(runtime.spec("openai")) == "https://api.openai.com/v1"


def test_an_endpoint_added_in_settings_is_a_provider_with_its_headers():
    runtime = Runtime(AppPaths.resolve(), AppConfig())
    runtime.settings = Settings(custom_providers=[CustomProvider(
        id="lmstudio", label="LM Studio", base_url="http://127.0.0.1:1234/v1/", default_model="qwen3", headers={"X-Team": "a"})])
    spec = runtime.spec("lmstudio")
    assert (spec.wire, spec.custom, spec.key_name, spec.default_model) == ("chat_completions", True, None, "qwen3")
    assert dict(spec.headers) == {"X-Team": "a"} and runtime.base_url(spec) == "http://127.0.0.1:1234/v1"
    assert "lmstudio" in runtime.providers() and "anthropic" in runtime.providers()
