"""What a reply cost: the price table shipped with the app (USD per million tokens), the user's overrides, the
billed token counts of a message per wire (which counts already include which), and `cost_of(message)`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from desktop_copilot.core.conversation.models import Message, Usage
from desktop_copilot.core.provider_table import PROVIDERS, spec_of
from desktop_copilot.core.usage.rates import ModelPrice, Rates

PRICES_TAKEN = "2026-02"
"""When the shipped prices were taken from the vendors' price pages (standard tier, pay as you go)."""
LOCAL_PROVIDERS = frozenset(spec.id for spec in PROVIDERS.values() if spec.local)
"""Providers that run on the user's machine (the provider table): their replies cost nothing."""
PER_TOKENS = 1_000_000


def _p(input_: float, output: float, cache_read: float | None = None, cache_write: float | None = None,
       long: tuple[float, ...] | None = None, long_from: int = 200_000) -> ModelPrice:
    tier = Rates(**dict(zip(("input", "output", "cache_read", "cache_write"), long))) if long else None
    return ModelPrice(input=input_, output=output, cache_read=cache_read, cache_write=cache_write, long_prompt=tier,
                      long_prompt_from=long_from)


_CLAUDE_OPUS_4 = _p(15, 75, 1.50, 18.75)
_CLAUDE_OPUS_45 = _p(5, 25, 0.50, 6.25)
_CLAUDE_SONNET_4 = _p(3, 15, 0.30, 3.75, long=(6, 22.50, 0.60, 7.50))  # over 200k: the 1M-context tier
_GPT_5 = _p(1.25, 10, 0.125)
_GEMINI_3_PRO = _p(2, 12, 0.20, long=(4, 18, 0.40))
_KIMI_K2 = _p(0.60, 2.50, 0.15)
_GROK_4_FAST = _p(0.20, 0.50, 0.05, long=(0.40, 1.00, 0.05), long_from=128_000)

SHIPPED_PRICES: dict[str, ModelPrice] = {
    # Anthropic: cache writes at the 5-minute rate (1.25 × input), reads at 0.1 × input.
    "claude-opus-4-6": _p(5, 25, 0.50, 6.25, long=(10, 37.50, 1.00, 12.50)),
    "claude-opus-4-5": _CLAUDE_OPUS_45,
    "claude-opus-4-1": _CLAUDE_OPUS_4,
    "claude-opus-4": _CLAUDE_OPUS_4,
    "claude-sonnet-4-6": _CLAUDE_SONNET_4,
    "claude-sonnet-4-5": _CLAUDE_SONNET_4,
    "claude-sonnet-4": _CLAUDE_SONNET_4,
    "claude-haiku-4-5": _p(1, 5, 0.10, 1.25),
    "claude-3-7-sonnet": _p(3, 15, 0.30, 3.75),
    "claude-3-5-sonnet": _p(3, 15, 0.30, 3.75),
    "claude-3-5-haiku": _p(0.80, 4, 0.08, 1.00),
    "claude-3-opus": _CLAUDE_OPUS_4,
    "claude-3-haiku": _p(0.25, 1.25, 0.03, 0.30),
    # OpenAI: cached input is a discount on input; there is no charge for writing the cache.
    "gpt-5.2": _p(1.75, 14, 0.175),
    "gpt-5.1": _GPT_5,
    "gpt-5.1-chat": _GPT_5,
    "gpt-5.1-codex": _GPT_5,
    "gpt-5.1-codex-mini": _p(0.25, 2, 0.025),
    "gpt-5": _GPT_5,
    "gpt-5-chat": _GPT_5,
    "gpt-5-codex": _GPT_5,
    "gpt-5-mini": _p(0.25, 2, 0.025),
    "gpt-5-nano": _p(0.05, 0.40, 0.005),
    "gpt-5-pro": _p(15, 120),
    "gpt-4.1": _p(2, 8, 0.50),
    "gpt-4.1-mini": _p(0.40, 1.60, 0.10),
    "gpt-4.1-nano": _p(0.10, 0.40, 0.025),
    "gpt-4o": _p(2.50, 10, 1.25),
    "gpt-4o-mini": _p(0.15, 0.60, 0.075),
    "o3": _p(2, 8, 0.50),
    "o3-pro": _p(20, 80),
    "o3-mini": _p(1.10, 4.40, 0.55),
    "o4-mini": _p(1.10, 4.40, 0.275),
    "o1": _p(15, 60, 7.50),
    "o1-mini": _p(1.10, 4.40, 0.55),
    # Google Gemini (text input; thinking is billed as output): the long tier is for prompts over 200k tokens.
    "gemini-3.1-pro": _GEMINI_3_PRO,
    "gemini-3-pro": _GEMINI_3_PRO,
    "gemini-3-flash": _p(0.50, 3, 0.05),
    "gemini-2.5-pro": _p(1.25, 10, 0.125, long=(2.50, 15, 0.25)),
    "gemini-2.5-flash": _p(0.30, 2.50, 0.03),
    "gemini-2.5-flash-lite": _p(0.10, 0.40, 0.01),
    "gemini-2.0-flash": _p(0.10, 0.40, 0.025),
    "gemini-2.0-flash-lite": _p(0.075, 0.30),
    # DeepSeek (V3.2 behind both names): cache hits are the cache-read price.
    "deepseek-chat": _p(0.28, 0.42, 0.028),
    "deepseek-reasoner": _p(0.28, 0.42, 0.028),
    # Moonshot (api.moonshot.ai, USD).
    "kimi-k2": _KIMI_K2,
    "kimi-k2-thinking": _KIMI_K2,
    # xAI.
    "grok-4": _p(3, 15, 0.75, long=(6, 30, 0.75), long_from=128_000),
    "grok-4-fast": _GROK_4_FAST,
    "grok-4.1-fast": _GROK_4_FAST,
    "grok-code-fast-1": _p(0.20, 1.50, 0.02),
    "grok-3": _p(3, 15, 0.75),
    "grok-3-mini": _p(0.30, 0.50, 0.075),
    # Groq.
    "llama-3.3-70b-versatile": _p(0.59, 0.79),
    "llama-3.1-8b-instant": _p(0.05, 0.08),
}
"""Model family -> price, as published on `PRICES_TAKEN`. Dated and versioned ids find their family
(`family_of`); a model not here has an unknown price until the user enters one in Settings ▸ Prices."""

ALIASES: dict[str, str] = {
    "claude-opus-4-0": "claude-opus-4",
    "claude-sonnet-4-0": "claude-sonnet-4",
    "grok-4-fast-reasoning": "grok-4-fast",
    "grok-4-fast-non-reasoning": "grok-4-fast",
    "grok-4-1-fast-reasoning": "grok-4.1-fast",
    "grok-4-1-fast-non-reasoning": "grok-4.1-fast",
    "grok-4.1-fast-reasoning": "grok-4.1-fast",
    "grok-4.1-fast-non-reasoning": "grok-4.1-fast",
}
"""Ids that name a family another way than by a date or version suffix."""

_SUFFIXES = (
    re.compile(r"-\d{8}$"),  # Anthropic: claude-sonnet-4-5-20250929
    re.compile(r"-\d{4}-\d{2}-\d{2}$"),  # OpenAI: gpt-4o-2024-08-06
    re.compile(r"-\d{2}-\d{4}$"),  # Gemini: gemini-2.5-flash-preview-09-2025
    re.compile(r"-\d{2}-\d{2}$"),  # Gemini: gemini-2.5-pro-preview-06-05
    re.compile(r"-\d{3,4}$"),  # gemini-2.0-flash-001, kimi-k2-0905, grok-4-0709
    re.compile(r"-(latest|preview)$"),
)


def family_of(model_id: str) -> str:
    """The price-table key of a model id: lower case, without a router's `vendor/` prefix, date or version
    suffixes, `-latest` or `-preview`, and with Claude's dotted versions written as Anthropic does."""
    name = model_id.strip().lower().rsplit("/", 1)[-1]
    if name.startswith("claude-"):
        name = name.replace(".", "-")
    while True:
        if name in ALIASES:
            return ALIASES[name]
        for suffix in _SUFFIXES:
            shorter = suffix.sub("", name)
            if shorter != name and shorter:
                name = shorter
                break
        else:
            return name


class PriceSource(StrEnum):
    TABLE = "table"
    OVERRIDE = "override"
    LOCAL = "local"


@dataclass(frozen=True, slots=True)
class PriceLookup:
    """A model's price and where it came from (the shipped table, the user's override, or free and local)."""

    price: ModelPrice
    source: PriceSource
    key: str
    """The table or override key that matched."""


FREE = ModelPrice(input=0, output=0, cache_read=0, cache_write=0)


class PriceTable:
    """The shipped prices with the user's overrides on top (`Settings.model_prices`: model id -> price)."""

    def __init__(self, overrides: Mapping[str, ModelPrice] | None = None, shipped: Mapping[str, ModelPrice] | None = None) -> None:
        self.shipped = dict(SHIPPED_PRICES if shipped is None else shipped)
        self.overrides = {key.strip().lower(): price for key, price in (overrides or {}).items() if key.strip()}

    def lookup(self, provider: str | None, model: str | None) -> PriceLookup | None:
        """The price of `model` from `provider` (None: Anthropic), or None when it is not known. An override for
        the exact id wins, then one for its family; a local provider is free; then the shipped table."""
        name = (model or "").strip().lower()
        family = family_of(name) if name else ""
        for key in (name, family):
            if key and key in self.overrides:
                return PriceLookup(self.overrides[key], PriceSource.OVERRIDE, key)
        if (provider or "").lower() in LOCAL_PROVIDERS:
            return PriceLookup(FREE, PriceSource.LOCAL, provider or "")
        if family in self.shipped:
            return PriceLookup(self.shipped[family], PriceSource.TABLE, family)
        return None


    @property
    def prompt_bands(self) -> tuple[int, ...]:
        """The prompt sizes where some price changes tier, ascending: sums grouped by these bands price right."""
        prices = [*self.shipped.values(), *self.overrides.values()]
        return tuple(sorted({price.long_prompt_from for price in prices if price.long_prompt is not None}))


def band_prompt(bands: tuple[int, ...], band: int) -> int:
    """A prompt size inside `band` (0: not over any of `bands`; n: over the n-th smallest), for `charge`."""
    return bands[band - 1] + 1 if 0 < band <= len(bands) else 0


DEFAULT_TABLE = PriceTable()


def price_table(overrides: Mapping[str, ModelPrice] | None = None) -> PriceTable:
    """The table to price with: the shipped one, with `overrides` (Settings.model_prices) when there are any."""
    return PriceTable(overrides) if overrides else DEFAULT_TABLE


# --- billed token counts -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TokenCounts:
    """A reply's tokens by how they are billed, the same for every provider: `fresh_input`, `cache_read` and
    `cache_write` never overlap (their sum is the whole prompt); `reasoning` is a part of `output`."""

    fresh_input: int = 0
    cache_read: int = 0
    cache_write: int = 0
    output: int = 0
    reasoning: int = 0

    @property
    def input(self) -> int:
        """The whole prompt, cached parts included."""
        return self.fresh_input + self.cache_read + self.cache_write

    @property
    def total(self) -> int:
        return self.input + self.output

    def __add__(self, other: TokenCounts) -> TokenCounts:
        return TokenCounts(self.fresh_input + other.fresh_input, self.cache_read + other.cache_read,
                           self.cache_write + other.cache_write, self.output + other.output, self.reasoning + other.reasoning)

    def __bool__(self) -> bool:
        return self.total > 0


def input_includes_cache(provider: str | None) -> bool:
    """Whether the provider's input count already holds the cached tokens. Anthropic reports cache reads and
    writes beside `input_tokens`; Chat Completions (OpenAI, DeepSeek, Moonshot, OpenRouter, a custom
    endpoint), Gemini and Ollama count them inside it."""
    spec = spec_of(provider)  # a reply without a provider is Anthropic's; an added endpoint is Chat Completions
    return not (spec is not None and spec.cache_apart)


def billed_counts(usage: Usage, provider: str | None) -> TokenCounts:
    """`usage` as the provider reported it (`Message.usage`), as counts that can be priced and summed."""
    read, write = max(usage.cache_read_tokens, 0), max(usage.cache_write_tokens, 0)
    fresh = max(usage.input_tokens, 0)
    if input_includes_cache(provider):
        fresh = max(fresh - read - write, 0)
    output = max(usage.output_tokens, 0)
    return TokenCounts(fresh, read, write, output, min(max(usage.reasoning_tokens, 0), output))


# --- cost ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Cost:
    """What a reply (or several) cost in USD, by kind of token."""

    input: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    output: float = 0.0
    source: PriceSource = PriceSource.TABLE

    @property
    def total(self) -> float:
        return self.input + self.cache_read + self.cache_write + self.output

    @property
    def free(self) -> bool:
        return self.source is PriceSource.LOCAL


def charge(counts: TokenCounts, lookup: PriceLookup, prompt_tokens: int | None = None) -> Cost:
    """The cost of `counts` at `lookup`'s price. The long-prompt tier is chosen by `prompt_tokens`, the size of
    one request's prompt: by default `counts.input` (right for one reply; sums of many give their band's size)."""
    rates = lookup.price.rates_for(counts.input if prompt_tokens is None else prompt_tokens)
    return Cost(
        input=counts.fresh_input * rates.input / PER_TOKENS,
        cache_read=counts.cache_read * rates.read_rate / PER_TOKENS,
        cache_write=counts.cache_write * rates.write_rate / PER_TOKENS,
        output=counts.output * rates.output / PER_TOKENS,
        source=lookup.source,
    )


def cost_of(message: Message, table: PriceTable | None = None) -> Cost | None:
    """What `message` cost; None when its model's price is not known (never 0 for an unknown price). A message
    without tokens (the user's) costs nothing."""
    counts = billed_counts(message.usage, message.provider)
    if not counts:
        return Cost()
    lookup = (table or DEFAULT_TABLE).lookup(message.provider, message.model)
    return None if lookup is None else charge(counts, lookup)
