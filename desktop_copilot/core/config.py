"""Run-time configuration without secrets: model, endpoints and limits (defaults, settings, environment)."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

DEFAULT_MODEL = "claude-sonnet-4-6"
"""Current and not deprecated (the SDK warns that claude-sonnet-4-5 reaches end-of-life on 2026-11-30)."""
DEFAULT_MAX_TOOL_ROUNDS = 10
DEFAULT_THINKING_BUDGET = 4096


@dataclass(frozen=True, slots=True)
class AppConfig:
    model: str = DEFAULT_MODEL
    anthropic_base_url: str | None = None
    tavily_base_url: str | None = None
    thinking_budget: int | None = None
    max_tool_rounds: int = DEFAULT_MAX_TOOL_ROUNDS
    max_tokens: int = 8192
    system: str | None = None

    @classmethod
    def from_environment(cls, environ: dict[str, str] | None = None) -> AppConfig:
        return cls().with_(**environment_overrides(environ))

    def with_(self, **changes) -> AppConfig:
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


def environment_overrides(environ: dict[str, str] | None = None) -> dict[str, str]:
    """Only the values the environment sets (DESKTOP_COPILOT_MODEL, ANTHROPIC_BASE_URL, TAVILY_BASE_URL)."""
    env = os.environ if environ is None else environ
    values = {
        "model": env.get("DESKTOP_COPILOT_MODEL", "").strip(),
        "anthropic_base_url": env.get("ANTHROPIC_BASE_URL", "").strip(),
        "tavily_base_url": env.get("TAVILY_BASE_URL", "").strip(),
    }
    return {key: value for key, value in values.items() if value}
