"""Builds the provider for a catalog entry; its module, and so its SDK, is imported only then."""

from __future__ import annotations

from desktop_copilot.core.providers.base import Provider
from desktop_copilot.core.providers.catalog import ProviderSpec
from desktop_copilot.core.secrets import Secret


def create_provider(spec: ProviderSpec, key: Secret | None, url: str) -> Provider:
    """A provider for `spec` at `url` (its module, and so its SDK, imported now)."""
    if spec.wire == "anthropic":
        from desktop_copilot.core.providers.anthropic_provider import AnthropicProvider

        return AnthropicProvider(key, url)
    if spec.wire == "chat_completions":
        from desktop_copilot.core.providers.chat_completions_provider import ChatCompletionsProvider

        return ChatCompletionsProvider(key, url, vendor=spec.id, extra_headers=dict(spec.headers) or None)
    if spec.wire == "gemini":
        from desktop_copilot.core.providers.gemini_provider import GeminiProvider

        return GeminiProvider(key, url)
    from desktop_copilot.core.providers.ollama_provider import OllamaProvider

    return OllamaProvider(url, api_key=key)
