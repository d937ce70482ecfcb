"""Model facts as settings.json keeps them, keyed "provider/model": the user's overrides (Settings ▸ Model profiles) and
what providers reported, with when; loaded forgivingly (a bad entry is dropped, not the file)."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_serializer

from desktop_copilot.core.profiles.profile import FACT_FIELDS, TOOL_PROTOCOLS, ModelFacts, ModelProfile, ThinkingStyle, ToolProtocol
from desktop_copilot.core.profiles.resolve import resolve_profile

if TYPE_CHECKING:
    from desktop_copilot.core.provider_table import ProviderSpec

log = logging.getLogger(__name__)


class ModelOverride(BaseModel):
    """The figures the user set for one model; None leaves a figure to the provider, the table or the default."""

    model_config = ConfigDict(extra="ignore")

    context_window: int | None = Field(default=None, ge=1)
    output_limit: int | None = Field(default=None, ge=1)
    thinking: ThinkingStyle | None = None
    echo_thinking: bool | None = None
    tools: ToolProtocol | None = None
    images: bool | None = None
    pdfs: bool | None = None
    sampling: bool | None = None

    @model_serializer(mode="wrap")
    def _known_only(self, handler: Any) -> dict[str, Any]:
        """settings.json keeps what is known: a figure left unset is not written."""
        return {name: value for name, value in handler(self).items() if value is not None}

    def facts(self, model: str) -> ModelFacts:
        return ModelFacts(model, **{name: getattr(self, name) for name in FACT_FIELDS})

    @classmethod
    def of(cls, facts: ModelFacts) -> ModelOverride:
        return cls(**facts.known())


class ReportedFacts(ModelOverride):
    """What a provider's model list said of one model, who said it and when."""

    reported_by: str = ""
    fetched_at: datetime

    def facts(self, model: str) -> ModelFacts:
        return ModelFacts(model, **{name: getattr(self, name) for name in FACT_FIELDS}, reported_by=self.reported_by)

    @classmethod
    def of(cls, facts: ModelFacts, fetched_at: datetime) -> ReportedFacts:  # type: ignore[override]
        return cls(**facts.known(), reported_by=facts.reported_by, fetched_at=fetched_at)


def facts_key(provider: str, model: str) -> str:
    """ "ollama/qwen3:8b", "openrouter/anthropic/claude-sonnet-4.5": the provider id, a slash, the model id."""
    return f"{provider}/{model}"


def split_facts_key(key: str) -> tuple[str, str] | None:
    """(provider, model) of a key, or None when it names no provider or no model."""
    provider, _, model = key.partition("/")
    return (provider, model) if provider.strip() and model.strip() else None


def valid_entries(value: Any, kind: type[ModelOverride], what: str) -> dict[str, Any]:
    """The entries of `value` (settings.json's `what`) that are "provider/model" keys with valid facts; each other
    entry is dropped with a warning, the rest kept."""
    if not isinstance(value, Mapping):
        if value is not None:
            log.warning("settings.json: %s is not an object and is ignored", what)
        return {}
    kept = {}
    for key, facts in value.items():
        if not isinstance(key, str) or split_facts_key(key) is None:
            log.warning("settings.json: %s has a key that is not provider/model (%r); it is ignored", what, str(key)[:80])
            continue
        try:
            kept[key] = kind.model_validate(facts)
        except ValidationError:
            log.warning("settings.json: %s of %r is not valid and is ignored", what, key[:80])
    return kept


def with_reported(cache: Mapping[str, ReportedFacts], provider: str, listed: Iterable[ModelFacts],
                  fetched_at: datetime) -> dict[str, ReportedFacts]:
    """`cache` with `provider`'s entries replaced by what it listed just now (a model it no longer lists is
    forgotten; other providers' entries are kept)."""
    kept = {key: facts for key, facts in cache.items() if key.partition("/")[0] != provider}
    return kept | {facts_key(provider, facts.id): ReportedFacts.of(facts, fetched_at) for facts in listed if facts.id}


def reported_for(cache: Mapping[str, ReportedFacts], provider: str) -> list[ModelFacts]:
    """What `provider` reported when it was last asked, model by model, in the order it listed them."""
    found = []
    for key, facts in cache.items():
        parts = split_facts_key(key)
        if parts is not None and parts[0] == provider:
            found.append(facts.facts(parts[1]))
    return found


def override_for(overrides: Mapping[str, ModelOverride], provider: str, model: str) -> ModelFacts | None:
    """The user's figures for `model` at `provider`, or None."""
    found = overrides.get(facts_key(provider, model))
    return found.facts(model) if found is not None else None


def valid_learned(value: Any) -> dict[str, ToolProtocol]:
    """The entries of settings.json's `learned_tools` that are "provider/model" keys with a tool protocol; each other
    entry is dropped with a warning."""
    if not isinstance(value, Mapping):
        if value is not None:
            log.warning("settings.json: learned_tools is not an object and is ignored")
        return {}
    kept = {key: protocol for key, protocol in value.items()
            if isinstance(key, str) and split_facts_key(key) is not None and protocol in TOOL_PROTOCOLS}
    if len(kept) != len(value):
        log.warning("settings.json: %d entries of learned_tools are not provider/model and a tool protocol; they are "
                    "ignored", len(value) - len(kept))
    return kept


def stored_profile(spec: ProviderSpec, model: str, overrides: Mapping[str, ModelOverride],
                   reported: Mapping[str, ReportedFacts], learned: Mapping[str, ToolProtocol] | None = None) -> ModelProfile:
    """The profile of `model` at `spec` from what settings.json keeps (the user's `overrides`, the tool protocol
    `learned` from its server, what providers `reported`), then the shipped table, then a guess."""
    key = facts_key(spec.id, model)
    cached = reported.get(key)
    return resolve_profile(spec.id, spec.wire, model, override=override_for(overrides, spec.id, model),
                           reported=cached.facts(model) if cached is not None else None,
                           learned_tools=(learned or {}).get(key), local=spec.local, reads_pdfs=spec.pdfs)
