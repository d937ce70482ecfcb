"""The providers the app can talk to: id, wire format, key, base URL and default model (data only; factory.py
builds them)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Wire = Literal["anthropic", "chat_completions", "gemini", "ollama"]


@dataclass(frozen=True, slots=True)
class ProviderSpec:
    id: str
    label: str
    wire: Wire
    base_url: str
    """The public endpoint (for Chat Completions, the URL the `/chat/completions` path is added to)."""
    default_model: str
    key_name: str | None
    """The key in the key store (`keys set ID`); None for a provider that needs none (Ollama)."""
    base_url_env: str

    @property
    def needs_key(self) -> bool:
        return self.key_name is not None


def _compatible(id_: str, label: str, base_url: str, model: str) -> ProviderSpec:
    return ProviderSpec(id_, label, "chat_completions", base_url, model, id_, f"{id_.upper()}_BASE_URL")


PROVIDERS: dict[str, ProviderSpec] = {
    spec.id: spec
    for spec in (
        ProviderSpec("anthropic", "Anthropic", "anthropic", "https://api.anthropic.com", "claude-sonnet-4-6",
                     "anthropic", "ANTHROPIC_BASE_URL"),
        _compatible("openai", "OpenAI", "https://api.openai.com/v1", "gpt-4.1-mini"),
        _compatible("deepseek", "DeepSeek", "https://api.deepseek.com", "deepseek-chat"),
        _compatible("moonshot", "Moonshot (Kimi)", "https://api.moonshot.ai/v1", "kimi-k2-0905-preview"),
        _compatible("zhipu", "Zhipu (GLM)", "https://open.bigmodel.cn/api/paas/v4", "glm-4.6"),
        _compatible("openrouter", "OpenRouter", "https://openrouter.ai/api/v1", "openrouter/auto"),
        _compatible("groq", "Groq", "https://api.groq.com/openai/v1", "llama-3.3-70b-versatile"),
        _compatible("xai", "xAI (Grok)", "https://api.x.ai/v1", "grok-4"),
        ProviderSpec("gemini", "Google Gemini", "gemini", "https://generativelanguage.googleapis.com",
                     "gemini-2.5-flash", "gemini", "GEMINI_BASE_URL"),
        ProviderSpec("ollama", "Ollama", "ollama", "http://127.0.0.1:11434", "llama3.2", None, "OLLAMA_HOST"),
    )
}
DEFAULT_PROVIDER = "anthropic"


class UnknownProviderError(ValueError):
    """No provider has that id; the message lists the known ones."""


def provider_spec(provider_id: str) -> ProviderSpec:
    spec = PROVIDERS.get(provider_id.strip().lower())
    if spec is None:
        raise UnknownProviderError(f"unknown provider {provider_id!r}; known providers: {', '.join(PROVIDERS)}")
    return spec


def base_url(spec: ProviderSpec, environ: Mapping[str, str], configured: str | None = None) -> str:
    """The endpoint: the environment (`<ID>_BASE_URL`, `OLLAMA_HOST`), then the settings, then the public one."""
    url = (environ.get(spec.base_url_env, "") or configured or spec.base_url).strip().rstrip("/")
    if spec.wire == "ollama" and "://" not in url:  # OLLAMA_HOST may be "host:port"
        url = f"http://{url}"
    return url
