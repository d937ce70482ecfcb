"""Run-time configuration without secrets: model, endpoints and limits (defaults, settings, environment),
and the most output tokens each older model accepts."""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass, replace
from typing import Any

from desktop_copilot.core.providers.base import DEFAULT_MAX_TOKENS

log = logging.getLogger(__name__)

DEFAULT_MODEL = "claude-sonnet-4-6"
"""Current and not deprecated (the SDK warns that claude-sonnet-4-5 reaches end-of-life on 2026-11-30)."""
DEFAULT_MAX_TOOL_ROUNDS = 10
DEFAULT_TOOL_RESULT_LIMIT = 100_000
"""Characters of a tool result the model gets at most (about 100 KB); the card and the database keep the whole."""
DEFAULT_THINKING_BUDGET = 4096
DEFAULT_COMPACT_AT = 0.8
"""Older turns are compacted when the next request, with its output reserve, would pass this share of the window."""
DEFAULT_KEEP_TURNS = 4
"""The last turns always sent whole."""
MAX_TOKENS_ENV = "DESKTOP_COPILOT_MAX_TOKENS"
PROVIDER_ENV = "DESKTOP_COPILOT_PROVIDER"
"""The provider new conversations talk to, over Settings ▸ Providers."""
MIN_THINKING_BUDGET = 1024
"""The smallest extended-thinking budget the API accepts."""
ANSWER_ROOM = 4096
"""Output tokens kept for the answer itself when extended thinking shares the output limit."""

MODEL_OUTPUT_CAPS: dict[str, int] = {
    "claude-3-haiku": 4096,
    "claude-3-sonnet": 4096,
    "claude-3-opus": 4096,
    "claude-3-5-haiku": 8192,
    "claude-3-5-sonnet": 8192,
    "claude-3-7-sonnet": 64_000,  # 128k only with the output-128k beta header, which this app does not send
    "claude-opus-4": 32_000,
    "claude-opus-4-0": 32_000,
    "claude-opus-4-1": 32_000,
    "claude-sonnet-4": 64_000,
    "claude-sonnet-4-0": 64_000,
    "claude-sonnet-4-5": 64_000,
    "claude-haiku-4-5": 64_000,
    "claude-opus-4-5": 64_000,
}
"""The most output tokens a model family accepts, where that is known and may be below a limit someone sets:
a larger `max_tokens` is a 400 from the API, so requests are clamped to it. Families not listed (Opus and
Sonnet 4.6 take 128k, newer models more) are sent the limit as set."""
_VERSION_SUFFIX = re.compile(r"-(\d{8}|latest)$")


def model_output_cap(model: str | None) -> int | None:
    """The known maximum of `model` ("claude-3-5-haiku-20241022", "anthropic/claude-3-opus-latest"), or None."""
    if not model:
        return None
    name = model.strip().lower().rsplit("/", 1)[-1]
    return MODEL_OUTPUT_CAPS.get(_VERSION_SUFFIX.sub("", name))


def parse_max_tokens(text: str | int) -> int:
    """A positive whole number of tokens ("64000" or "64_000"); ValueError in words otherwise."""
    try:
        value = int(str(text).strip())
    except ValueError:
        value = 0
    if value < 1:
        raise ValueError(f"{text!r} is not a positive whole number of tokens (for example 64000)")
    return value


@dataclass(frozen=True, slots=True)
class AppConfig:
    provider: str = "anthropic"
    """The provider new conversations talk to (DESKTOP_COPILOT_PROVIDER, --provider)."""
    model: str = DEFAULT_MODEL
    anthropic_base_url: str | None = None
    tavily_base_url: str | None = None
    thinking_budget: int | None = None
    max_tool_rounds: int = DEFAULT_MAX_TOOL_ROUNDS
    max_tokens: int = DEFAULT_MAX_TOKENS
    """The output limit as set; `output_limit(model)` is what a request for `model` may ask for."""
    system: str | None = None

    @classmethod
    def from_environment(cls, environ: dict[str, str] | None = None) -> AppConfig:
        return cls().with_(**environment_overrides(environ))

    def with_(self, **changes) -> AppConfig:
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    def output_limit(self, model: str | None = None) -> int:
        """`max_tokens` for a request to `model` (default: this config's): the limit as set, or the model's
        known maximum when that is lower."""
        cap = model_output_cap(model or self.model)
        return min(self.max_tokens, cap) if cap else self.max_tokens

    def request_limits(self, model: str | None = None) -> tuple[int, int | None]:
        """(max_tokens, thinking budget) for a request to `model`: with thinking on, the limit leaves room for
        the answer after the budget, and neither goes past the model's known maximum (the budget shrinks
        instead; below the API's minimum, thinking is off for that model)."""
        limit, budget = self.output_limit(model), self.thinking_budget
        if not budget:
            return limit, None
        cap = model_output_cap(model or self.model)
        limit = max(limit, budget + ANSWER_ROOM)
        if cap:
            limit = min(limit, cap)
        budget = min(budget, limit - ANSWER_ROOM)
        return limit, budget if budget >= MIN_THINKING_BUDGET else None

    def limit_reached(self, model: str | None, output_tokens: int = 0) -> int:
        """The output limit a reply of `model` that stopped at `max_tokens` ran into: `output_limit(model)`, or
        the output the reply reports when that is more (extended thinking raises a request's limit)."""
        return max(self.output_limit(model), output_tokens)


def environment_overrides(environ: dict[str, str] | None = None) -> dict[str, Any]:
    """Only the values the environment sets (DESKTOP_COPILOT_MODEL, ANTHROPIC_BASE_URL, TAVILY_BASE_URL,
    DESKTOP_COPILOT_MAX_TOKENS); a max-tokens value that is not a positive number is ignored and logged."""
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {
        "provider": env.get(PROVIDER_ENV, "").strip().lower(),
        "model": env.get("DESKTOP_COPILOT_MODEL", "").strip(),
        "anthropic_base_url": env.get("ANTHROPIC_BASE_URL", "").strip(),
        "tavily_base_url": env.get("TAVILY_BASE_URL", "").strip(),
    }
    if raw := env.get(MAX_TOKENS_ENV, "").strip():
        try:
            values["max_tokens"] = parse_max_tokens(raw)
        except ValueError as exc:
            log.warning("%s is ignored: %s", MAX_TOKENS_ENV, exc)
    return {key: value for key, value in values.items() if value}
