"""The price table: families of dated ids, overrides, local models, the long-prompt tier, and the billed counts per
wire (which provider's input already holds the cached tokens)."""

from __future__ import annotations

import pytest

from desktop_copilot.core.conversation.models import Message, Usage
from desktop_copilot.core.usage.pricing import (
    DEFAULT_TABLE,
    PRICES_TAKEN,
    SHIPPED_PRICES,
    ModelPrice,
    PriceSource,
    PriceTable,
    TokenCounts,
    band_prompt,
    billed_counts,
    cost_of,
    family_of,
    input_includes_cache,
    price_table,
)
from desktop_copilot.core.provider_table import PROVIDERS
from desktop_copilot.core.config.settings import Settings, SettingsFile


def reply(provider: str | None, model: str | None, **usage: int) -> Message:
    message = Message.assistant(model, provider)
    message.usage = Usage(**usage)
    return message


@pytest.mark.parametrize(("model_id", "family"), [
    ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
    ("claude-haiku-4-5-20251001", "claude-haiku-4-5"),
    ("claude-opus-4-1-20250805", "claude-opus-4-1"),
    ("claude-sonnet-4-20250514", "claude-sonnet-4"),
    ("claude-sonnet-4-0", "claude-sonnet-4"),
    ("claude-3-5-haiku-20241022", "claude-3-5-haiku"),
    ("claude-3-opus-latest", "claude-3-opus"),
    ("anthropic/claude-sonnet-4.5", "claude-sonnet-4-5"),  # OpenRouter's way
    ("gpt-4o-2024-08-06", "gpt-4o"),
    ("gpt-4o-mini-2024-07-18", "gpt-4o-mini"),
    ("gpt-4.1-mini-2025-04-14", "gpt-4.1-mini"),
    ("gpt-5-2025-08-07", "gpt-5"),
    ("gpt-5-chat-latest", "gpt-5-chat"),
    ("openai/gpt-4o", "gpt-4o"),
    ("o3-2025-04-16", "o3"),
    ("gemini-3-pro-preview", "gemini-3-pro"),
    ("gemini-3.1-pro-preview", "gemini-3.1-pro"),
    ("gemini-3-flash-preview", "gemini-3-flash"),
    ("gemini-2.5-flash-preview-09-2025", "gemini-2.5-flash"),
    ("gemini-2.5-pro-preview-06-05", "gemini-2.5-pro"),
    ("models/gemini-2.5-flash", "gemini-2.5-flash"),
    ("gemini-2.0-flash-001", "gemini-2.0-flash"),
    ("kimi-k2-0905-preview", "kimi-k2"),
    ("grok-4-fast-reasoning", "grok-4-fast"),
    ("Deepseek-Chat", "deepseek-chat"),
])
def test_dated_and_routed_ids_find_their_family(model_id: str, family: str):
    assert family_of(model_id) == family
    assert family in SHIPPED_PRICES


@pytest.mark.parametrize("model_id", ["gemini-2.5-flash-lite", "gpt-4o-mini", "gpt-5-mini", "o3-mini", "claude-opus-4-5"])
def test_a_longer_family_is_not_priced_as_its_prefix(model_id: str):
    assert DEFAULT_TABLE.lookup(None, model_id).key == model_id


@pytest.mark.parametrize("model_id", ["claude-opus-4-7", "gpt-oss-120b", "kimi-k2-turbo-preview", "openrouter/auto", "my-local-model", ""])
def test_models_not_in_the_table_have_no_price(model_id: str):
    assert DEFAULT_TABLE.lookup("openrouter", model_id) is None
    assert cost_of(reply("openrouter", model_id, input_tokens=1000, output_tokens=10)) is None


def test_the_default_model_of_every_priced_preset_is_in_the_table():
    unpriced = {spec.id for spec in PROVIDERS.values() if DEFAULT_TABLE.lookup(spec.id, spec.default_model) is None}
    assert unpriced == {"zhipu", "openrouter"}  # Zhipu's endpoint bills in CNY; OpenRouter's "auto" picks a model per request
    assert DEFAULT_TABLE.lookup("ollama", PROVIDERS["ollama"].default_model).source is PriceSource.LOCAL


def test_shipped_prices_are_sane_and_dated():
    assert PRICES_TAKEN.count("-") == 1
    for model, price in SHIPPED_PRICES.items():
        assert price.output >= price.input > 0, model
        assert price.read_rate <= price.input, model  # reading the cache never costs more than fresh input
        if price.long_prompt is not None:
            assert price.long_prompt.input > price.input, model


def test_anthropic_reports_cache_apart_from_input():
    usage = Usage(input_tokens=100, output_tokens=50, cache_read_tokens=4000, cache_write_tokens=1000)
    assert billed_counts(usage, "anthropic") == TokenCounts(100, 4000, 1000, 50, 0)
    assert billed_counts(usage, None) == TokenCounts(100, 4000, 1000, 50, 0)  # stored before providers were chosen


@pytest.mark.parametrize("provider", ["openai", "deepseek", "moonshot", "openrouter", "gemini", "ollama", "my-endpoint"])
def test_other_wires_count_the_cache_inside_input(provider: str):
    usage = Usage(input_tokens=5000, output_tokens=300, cache_read_tokens=4000, cache_write_tokens=200, reasoning_tokens=120)
    counts = billed_counts(usage, provider)
    assert counts == TokenCounts(800, 4000, 200, 300, 120)
    assert counts.input == 5000  # the whole prompt, not 9,200
    assert input_includes_cache(provider)


def test_reasoning_is_part_of_output_and_never_billed_again():
    openai = reply("openai", "o4-mini", input_tokens=1_000_000, output_tokens=1_000_000, reasoning_tokens=800_000)
    assert cost_of(openai).total == pytest.approx(1.10 + 4.40)
    gemini = reply("gemini", "gemini-2.5-flash", input_tokens=0, output_tokens=1_000_000, reasoning_tokens=600_000)
    assert cost_of(gemini).output == pytest.approx(2.50)
    assert billed_counts(Usage(output_tokens=10, reasoning_tokens=50), "openai").reasoning == 10  # never more than the output


def test_anthropic_cost_adds_cache_reads_and_writes_at_their_prices():
    message = reply("anthropic", "claude-sonnet-4-5-20250929", input_tokens=1_000, output_tokens=2_000,
                    cache_read_tokens=100_000, cache_write_tokens=10_000)
    cost = cost_of(message)
    assert cost.input == pytest.approx(1_000 * 3 / 1e6)
    assert cost.cache_read == pytest.approx(100_000 * 0.30 / 1e6)
    assert cost.cache_write == pytest.approx(10_000 * 3.75 / 1e6)
    assert cost.output == pytest.approx(2_000 * 15 / 1e6)
    assert cost.total == pytest.approx(0.003 + 0.03 + 0.0375 + 0.03)
    assert cost.source is PriceSource.TABLE


def test_openai_cost_takes_the_cached_part_out_of_input():
    message = reply("openai", "gpt-4.1", input_tokens=10_000, output_tokens=1_000, cache_read_tokens=8_000)
    cost = cost_of(message)
    assert cost.input == pytest.approx(2_000 * 2 / 1e6)
    assert cost.cache_read == pytest.approx(8_000 * 0.50 / 1e6)
    assert cost.total == pytest.approx(0.004 + 0.004 + 0.008)
    uncached = cost_of(reply("openai", "gpt-4.1", input_tokens=10_000, output_tokens=1_000))
    assert uncached.total == pytest.approx(0.02 + 0.008) and uncached.total > cost.total


def test_deepseek_cache_hits_and_gemini_cached_content():
    deepseek = cost_of(reply("deepseek", "deepseek-chat", input_tokens=1_000_000, output_tokens=0, cache_read_tokens=900_000))
    assert deepseek.total == pytest.approx(0.1 * 0.28 + 0.9 * 0.028)
    gemini = cost_of(reply("gemini", "gemini-2.5-pro", input_tokens=100_000, output_tokens=10_000, cache_read_tokens=50_000))
    assert gemini.total == pytest.approx(50_000 * 1.25 / 1e6 + 50_000 * 0.125 / 1e6 + 10_000 * 10 / 1e6)


def test_an_openrouter_cache_write_is_inside_input_and_charged_at_the_write_price():
    message = reply("openrouter", "anthropic/claude-sonnet-4.5", input_tokens=12_000, output_tokens=0, cache_write_tokens=10_000)
    cost = cost_of(message)
    assert cost.input == pytest.approx(2_000 * 3 / 1e6) and cost.cache_write == pytest.approx(10_000 * 3.75 / 1e6)


def test_a_missing_cache_price_charges_cached_tokens_as_input():
    table = price_table({"gpt-4o": ModelPrice(input=2, output=8)})
    message = reply("openai", "gpt-4o", input_tokens=1_000_000, output_tokens=0, cache_read_tokens=500_000)
    assert cost_of(message, table).total == pytest.approx(2.0)


def test_long_prompts_use_the_long_tier_where_the_model_has_one():
    short = reply("gemini", "gemini-2.5-pro", input_tokens=200_000, output_tokens=1_000)
    long = reply("gemini", "gemini-2.5-pro", input_tokens=200_001, output_tokens=1_000)
    assert cost_of(short).total == pytest.approx(200_000 * 1.25 / 1e6 + 1_000 * 10 / 1e6)
    assert cost_of(long).total == pytest.approx(200_001 * 2.50 / 1e6 + 1_000 * 15 / 1e6)
    # Anthropic's prompt is input + cache reads + cache writes: 150k cached makes a 250k prompt.
    claude = reply("anthropic", "claude-sonnet-4-5", input_tokens=100_000, output_tokens=0, cache_read_tokens=150_000)
    assert cost_of(claude).total == pytest.approx(100_000 * 6 / 1e6 + 150_000 * 0.60 / 1e6)
    assert cost_of(reply("openai", "gpt-4.1", input_tokens=900_000, output_tokens=0)).total == pytest.approx(1.8)  # no tier


def test_prompt_bands_name_every_tier_threshold():
    assert DEFAULT_TABLE.prompt_bands == (128_000, 200_000)
    assert band_prompt(DEFAULT_TABLE.prompt_bands, 0) == 0
    assert band_prompt(DEFAULT_TABLE.prompt_bands, 1) == 128_001
    assert band_prompt(DEFAULT_TABLE.prompt_bands, 2) == 200_001


def test_local_models_are_free_and_say_so():
    cost = cost_of(reply("ollama", "llama3.2", input_tokens=5000, output_tokens=900))
    assert cost is not None and cost.total == 0 and cost.free and cost.source is PriceSource.LOCAL
    assert not cost_of(reply("openai", "gpt-4o", input_tokens=5, output_tokens=1)).free


def test_messages_without_tokens_cost_nothing_even_without_a_price():
    assert cost_of(Message.user("hello")).total == 0
    assert cost_of(reply("my-endpoint", "mystery", input_tokens=0, output_tokens=0)).total == 0


def test_overrides_win_for_the_exact_id_then_the_family():
    table = PriceTable({"Claude-Sonnet-4-5": ModelPrice(input=1, output=2), "mystery-model": ModelPrice(input=10, output=20),
                        "claude-sonnet-4-5-20250929": ModelPrice(input=7, output=7)})
    dated = table.lookup("anthropic", "claude-sonnet-4-5-20250929")
    assert dated.source is PriceSource.OVERRIDE and dated.price.input == 7
    other_date = table.lookup("anthropic", "claude-sonnet-4-5-20991231")
    assert other_date.key == "claude-sonnet-4-5" and other_date.price.input == 1
    assert cost_of(reply("my-endpoint", "mystery-model", input_tokens=1_000_000, output_tokens=1_000_000), table).total == 30
    assert cost_of(reply("my-endpoint", "mystery-model", input_tokens=1, output_tokens=1)) is None  # not in the default table
    assert table.lookup("anthropic", "claude-haiku-4-5").source is PriceSource.TABLE


def test_an_override_prices_a_local_model():
    table = price_table({"gpt-oss:120b-cloud": ModelPrice(input=0.1, output=0.5)})
    cost = cost_of(reply("ollama", "gpt-oss:120b-cloud", input_tokens=1_000_000, output_tokens=0), table)
    assert cost.total == pytest.approx(0.1) and not cost.free


def test_prices_are_validated():
    for bad in ({"input": -1, "output": 1}, {"input": 1}, {"input": float("nan"), "output": 1}, {"input": 1, "output": 1, "cache_read": -0.1}):
        with pytest.raises(ValueError):
            ModelPrice.model_validate(bad)


def test_user_prices_round_trip_through_the_settings_file(tmp_path):
    settings_file = SettingsFile(tmp_path / "settings.json")
    settings_file.save(Settings(model_prices={"my-model": ModelPrice(input=1.5, output=6, cache_read=0.15)}))
    loaded = settings_file.load()
    assert settings_file.problem is None
    assert loaded.model_prices == {"my-model": ModelPrice(input=1.5, output=6, cache_read=0.15)}
    assert cost_of(reply("x", "my-model", input_tokens=2_000_000, output_tokens=0), price_table(loaded.model_prices)).total == 3


def test_a_bad_price_in_the_file_is_dropped_not_the_whole_settings(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text('{"thinking_enabled": true, "model_prices": {"good": {"input": 1, "output": 2}, "bad": {"input": "lots"}}}')
    settings_file = SettingsFile(path)
    loaded = settings_file.load()
    assert settings_file.problem is None and loaded.thinking_enabled
    assert list(loaded.model_prices) == ["good"]
