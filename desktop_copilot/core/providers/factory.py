"""Builds the provider for an entry of the provider table; its module, and so its SDK, is imported only then."""

from __future__ import annotations

from collections.abc import Callable

from desktop_copilot.core.keys.secrets import Secret
from desktop_copilot.core.provider_table import ProviderSpec
from desktop_copilot.core.providers.base import Provider
from desktop_copilot.core.providers.deadlines import DEFAULT_DEADLINES, LOCAL_DEADLINES, StreamDeadlines

SDK_MODULES = {"anthropic": "anthropic", "chat_completions": "openai", "gemini": "httpx", "ollama": "httpx"}
"""What a wire's first request imports (an SDK takes about a second): callers may import it off the GUI thread first."""

Learned = Callable[[str, str], None]
"""Told (model, tool protocol) when a model turned native tools down."""


def default_deadlines(spec: ProviderSpec) -> StreamDeadlines:
    """How long `spec`'s replies may be silent unless Settings say otherwise (a local model loads first)."""
    return LOCAL_DEADLINES if spec.local else DEFAULT_DEADLINES


def create_provider(spec: ProviderSpec, key: Secret | None, url: str, deadlines: StreamDeadlines | None = None,
                    learned: Learned | None = None) -> Provider:
    """A provider for `spec` at `url` (its module, and so its SDK, imported now)."""
    deadlines = deadlines or default_deadlines(spec)
    if spec.wire == "anthropic":
        from desktop_copilot.core.providers.anthropic_provider import AnthropicProvider

        provider = AnthropicProvider(key, url, deadlines=deadlines)
    elif spec.wire == "chat_completions":
        from desktop_copilot.core.providers.chat_completions_provider import ChatCompletionsProvider

        provider = ChatCompletionsProvider(key, url, vendor=spec.id, extra_headers=dict(spec.headers) or None, deadlines=deadlines,
                                           learned=learned)
    elif spec.wire == "gemini":
        from desktop_copilot.core.providers.gemini_provider import GeminiProvider

        provider = GeminiProvider(key, url, deadlines=deadlines)
    else:
        from desktop_copilot.core.providers.ollama_provider import OllamaProvider

        provider = OllamaProvider(url, api_key=key, deadlines=deadlines, learned=learned)
    provider.retries_unreachable = not spec.local  # a local server that does not answer is not running
    return provider
