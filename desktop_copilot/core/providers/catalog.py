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
    headers: tuple[tuple[str, str], ...] = ()
    """Extra request headers (a custom endpoint's; never a secret)."""
    custom: bool = False

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
CACHE_APART_PROVIDERS = frozenset(spec.id for spec in PROVIDERS.values() if spec.wire == "anthropic")
"""Providers whose input count leaves cache reads and writes out (a reply without a provider is Anthropic's)."""


class UnknownProviderError(ValueError):
    """No provider has that id; the message lists the known ones."""


def provider_spec(provider_id: str) -> ProviderSpec:
    spec = PROVIDERS.get(provider_id.strip().lower())
    if spec is None:
        raise UnknownProviderError(f"unknown provider {provider_id!r}; known providers: {', '.join(PROVIDERS)}")
    return spec


def base_url(spec: ProviderSpec, environ: Mapping[str, str], configured: str | None = None) -> str:
    """The endpoint: the environment (`<ID>_BASE_URL`, `OLLAMA_HOST`), then the settings, then the public one."""
    url = ((environ.get(spec.base_url_env, "") if spec.base_url_env else "") or configured or spec.base_url).strip().rstrip("/")
    if spec.wire == "ollama":
        url = _ollama_host(url)
    return url


def _ollama_host(value: str) -> str:
    """OLLAMA_HOST as Ollama reads it: "host", "host:port" or a URL; a bare host's port is 11434, and the
    listen-everywhere address 0.0.0.0 is reached at 127.0.0.1."""
    from urllib.parse import urlsplit

    parts = urlsplit(value if "://" in value else f"http://{value}")
    host = parts.hostname or "127.0.0.1"
    host = "127.0.0.1" if host == "0.0.0.0" else host
    host = f"[{host}]" if ":" in host else host
    port = parts.port or (11434 if "://" not in value else None)  # a URL without a port means its scheme's
    netloc = f"{host}:{port}" if port else host
    return f"{parts.scheme}://{netloc}{parts.path.rstrip('/')}"


def custom_spec(provider_id: str, label: str, url: str, default_model: str, *, needs_key: bool,
                headers: Mapping[str, str] | None = None) -> ProviderSpec:
    """A user-added Chat Completions endpoint; its key (if it needs one) is stored under its id."""
    return ProviderSpec(provider_id, label, "chat_completions", url, default_model, provider_id if needs_key else None,
                        "", tuple((headers or {}).items()), custom=True)
