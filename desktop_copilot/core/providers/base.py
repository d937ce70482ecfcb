"""What every provider offers: a request in domain terms, and a stream of unified events back."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from desktop_copilot.core.conversation.events import Event
from desktop_copilot.core.conversation.models import Message

DEFAULT_MAX_TOKENS = 32_000
"""The output limit (`max_tokens`) of a request: every Claude 4 model accepts at least this much, and a
long code answer fits. Older models get their own, lower maximum (config.app_config.MODEL_OUTPUT_CAPS)."""


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool as the model sees it: name, description and JSON Schema of its arguments."""

    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(slots=True)
class ProviderRequest:
    model: str
    messages: list[Message]
    provider: str = "anthropic"
    """The provider id the request goes to: history written by another provider is converted for it
    (its thinking signatures, raw blocks and provider_fields are left out)."""
    system: str | None = None
    tools: list[ToolSpec] = field(default_factory=list)
    max_tokens: int = DEFAULT_MAX_TOKENS
    thinking_budget: int | None = None
    """Extended thinking budget in tokens; None switches thinking off."""
    thinks_in_tags: bool = False
    """The model's profile says it writes its thinking in `<think>` tags, maybe only the closing one (its chat template
    opens the tag): a lone `</think>` early in the reply ends thinking (text_protocol/think_tags.py)."""
    text_tools: bool = False
    """The model's profile says it takes no native tools: they are described in the system prompt, and calls and
    results travel as text (core/providers/text_protocol/)."""
    temperature: float | None = None
    top_p: float | None = None
    sampling: bool = True
    """Whether the model accepts `temperature` and `top_p` (its profile); None values are never sent."""
    context_window: int | None = None
    """The model's context window in tokens, when a source knows it (its profile's figure, not a guess): Ollama's
    `num_ctx` stays within it."""

    def sampling_options(self) -> dict[str, float]:
        """`temperature` and `top_p` as set, where the model accepts them (every wire spells them so but Gemini)."""
        if not self.sampling:
            return {}
        return {name: value for name, value in (("temperature", self.temperature), ("top_p", self.top_p)) if value is not None}


class Provider(Protocol):
    """Turns a request into unified events. Never raises once streaming has begun:
    failures arrive as an `Error` event (cancellation still propagates)."""

    def stream(self, request: ProviderRequest) -> AsyncIterator[Event]: ...

    async def list_models(self) -> list[str]:
        """Model ids the provider offers (raises the client's errors)."""
        ...

    async def aclose(self) -> None:
        """Close the HTTP connections (before the event loop closes)."""
        ...
