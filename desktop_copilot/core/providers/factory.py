"""Builds the provider for a catalog entry; its module, and so its SDK, is imported only then."""

from __future__ import annotations

from desktop_copilot.core.providers.base import Provider
from desktop_copilot.core.providers.catalog import ProviderSpec
from desktop_copilot.core.providers.deadlines import DEFAULT_DEADLINES, LOCAL_DEADLINES, StreamDeadlines
from desktop_copilot.core.keys.secrets import Secret


def default_deadlines(spec: ProviderSpec) -> StreamDeadlines:
    """How long `spec`'s replies may be silent unless Settings say otherwise (a local model loads first)."""
    return LOCAL_DEADLINES if spec.wire == "ollama" else DEFAULT_DEADLINES


def create_provider(spec: ProviderSpec, key: Secret | None, url: str, deadlines: StreamDeadlines | None = None) -> Provider:
    """A provider for `spec` at `url` (its module, and so its SDK, imported now)."""
    deadlines = deadlines or default_deadlines(spec)
    if spec.wire == "anthropic":
        from desktop_copilot.core.providers.anthropic_provider import AnthropicProvider

        return AnthropicProvider(key, url, deadlines=deadlines)
    if spec.wire == "chat_completions":
        from desktop_copilot.core.providers.chat_completions_provider import ChatCompletionsProvider

        return ChatCompletionsProvider(key, url, vendor=spec.id, extra_headers=dict(spec.headers) or None, deadlines=deadlines)
    if spec.wire == "gemini":
        from desktop_copilot.core.providers.gemini_provider import GeminiProvider

        return GeminiProvider(key, url, deadlines=deadlines)
    from desktop_copilot.core.providers.ollama_provider import OllamaProvider

    return OllamaProvider(url, api_key=key, deadlines=deadlines)
