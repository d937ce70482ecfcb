"""resolve_profile: the user's override, then what the provider reported, then the table (as the wire carries it),
then a default that says it is a guess, figure by figure."""

from __future__ import annotations

import json

from desktop_copilot.core.profiles.known_models import TAKEN
from desktop_copilot.core.profiles.profile import FACT_FIELDS, ModelFacts
from desktop_copilot.core.profiles.resolve import carried_thinking, resolve_profile


def values(profile) -> dict:
    return {name: figure.value for name, figure in profile.figures().items()}


def sources(profile) -> dict:
    return {name: figure.source for name, figure in profile.figures().items()}


def test_a_known_claude_comes_from_the_table_with_when_it_was_taken():
    profile = resolve_profile("anthropic", "anthropic", "claude-sonnet-4-5-20250929")
    assert values(profile) == {"context_window": 200_000, "output_limit": 64_000, "thinking": "anthropic",
                               "echo_thinking": True, "tools": "native", "images": True, "pdfs": True, "sampling": True}
    assert set(sources(profile).values()) == {"table"}
    assert profile.context_window.note == f"taken {TAKEN} from Anthropic's model pages"


def test_an_openai_reasoning_model_refuses_sampling_and_shows_no_thinking():
    profile = resolve_profile("openai", "chat_completions", "o4-mini", reads_pdfs=True)
    assert (profile.sampling.value, profile.thinking.value, profile.output_limit.value) == (False, "none", 100_000)
    assert (profile.pdfs.value, profile.pdfs.note) == (True, "the provider reads PDFs")


def test_an_unknown_cloud_model_gets_defaults_each_marked_a_guess():
    profile = resolve_profile("groq", "chat_completions", "my-finetune-v7")
    assert set(sources(profile).values()) == {"default"}
    assert values(profile) == {"context_window": 128_000, "output_limit": 8192, "thinking": "none",
                               "echo_thinking": False, "tools": "native", "images": True, "pdfs": False, "sampling": False}
    guesses = [name for name, figure in profile.figures().items() if figure.note.startswith("a guess")]
    assert set(guesses) == set(FACT_FIELDS) - {"pdfs"}  # whether a provider reads PDFs is known, not guessed
    assert profile.pdfs.note == "the provider reads no PDFs"


def test_an_unknown_local_model_gets_a_small_window_not_a_cloud_one():
    profile = resolve_profile("ollama", "ollama", "my-finetune-v7", local=True)
    assert profile.context_window.value == 4096 and profile.context_window.note.startswith("a guess")
    assert (profile.output_limit.value, profile.images.value, profile.sampling.value) == (4096, False, True)


def test_the_thinking_default_follows_the_wire():
    assert resolve_profile("anthropic", "anthropic", "claude-next").thinking.value == "anthropic"
    assert resolve_profile("anthropic", "anthropic", "claude-next").echo_thinking.value is True  # replayed signed
    assert resolve_profile("anthropic", "anthropic", "claude-next").output_limit.value == 32_000
    assert resolve_profile("gemini", "gemini", "gemini-next").thinking.value == "gemini"
    assert resolve_profile("ollama", "ollama", "mystery", local=True).thinking.value == "none"


def test_think_tags_families_as_each_wire_carries_them():
    on_ollama = resolve_profile("ollama", "ollama", "deepseek-r1:8b", local=True)
    on_lmstudio = resolve_profile("lmstudio", "chat_completions", "deepseek-r1-distill-qwen-7b", local=True)
    on_openrouter = resolve_profile("openrouter", "chat_completions", "deepseek/deepseek-r1", reads_pdfs=True)
    assert on_ollama.thinking.value == "reasoning_field"  # Ollama takes <think> out into `thinking`
    assert on_lmstudio.thinking.value == "think_tags" and "reasoning parser" in on_lmstudio.thinking.note
    assert on_openrouter.thinking.value == "reasoning_field"
    assert carried_thinking("none", "anthropic", local=False) == "none"
    assert carried_thinking("reasoning_field", "gemini", local=False) == "gemini"


def test_thinking_goes_back_only_on_the_models_own_wire():
    assert resolve_profile("deepseek", "chat_completions", "deepseek-reasoner").echo_thinking.value is True
    assert resolve_profile("moonshot", "chat_completions", "kimi-k2.6").echo_thinking.value is True
    via_gateway = resolve_profile("openrouter", "chat_completions", "anthropic/claude-opus-4.5", reads_pdfs=True)
    assert (via_gateway.thinking.value, via_gateway.echo_thinking.value) == ("reasoning_field", False)


def test_a_local_windows_note_says_the_server_may_run_less():
    profile = resolve_profile("ollama", "ollama", "llama3.1:8b", local=True)
    assert profile.context_window.value == 131_072 and "may run it with less" in profile.context_window.note


def test_pdfs_need_a_provider_that_carries_them():
    assert resolve_profile("openrouter", "chat_completions", "anthropic/claude-opus-4.5", reads_pdfs=True).pdfs.value is True
    through_ollama = resolve_profile("ollama", "ollama", "claude-opus-4.5", local=True)
    assert (through_ollama.pdfs.value, through_ollama.pdfs.source) == (False, "default")
    assert resolve_profile("gemini", "gemini", "gemini-2.5-pro").pdfs.value is True


def test_reported_facts_beat_the_table_and_say_who_reported_them():
    reported = ModelFacts("qwen3:8b", context_window=8192, tools="text", reported_by="Ollama")
    profile = resolve_profile("ollama", "ollama", "qwen3:8b", reported=reported, local=True)
    assert (profile.context_window.value, profile.context_window.source) == (8192, "provider")
    assert profile.context_window.note == "reported by Ollama"
    assert (profile.tools.value, profile.tools.source) == ("text", "provider")
    assert (profile.thinking.value, profile.thinking.source) == ("reasoning_field", "table")  # not reported


def test_reported_by_falls_back_to_the_provider_id():
    profile = resolve_profile("vllm", "chat_completions", "x", reported=ModelFacts("x", context_window=2048), local=True)
    assert profile.context_window.note == "reported by vllm"


def test_an_override_wins_field_by_field():
    reported = ModelFacts("gpt-5.5", context_window=400_000, output_limit=64_000, reported_by="OpenRouter")
    override = ModelFacts("gpt-5.5", context_window=200_000, sampling=True)
    profile = resolve_profile("openrouter", "chat_completions", "openai/gpt-5.5", override=override, reported=reported)
    assert (profile.context_window.value, profile.context_window.source) == (200_000, "user")
    assert (profile.sampling.value, profile.sampling.source) == (True, "user")
    assert (profile.output_limit.value, profile.output_limit.source) == (64_000, "provider")
    assert (profile.images.value, profile.images.source) == (True, "table")
    assert profile.context_window.note == "set in Settings"


def test_to_json_is_one_object_per_profile():
    document = resolve_profile("gemini", "gemini", "gemini-2.5-flash").to_json()
    assert json.loads(json.dumps(document)) == document
    assert list(document) == ["provider", "model", *FACT_FIELDS]
    assert document["provider"] == "gemini" and document["model"] == "gemini-2.5-flash"
    assert document["context_window"] == {"value": 1_048_576, "source": "table",
                                          "note": f"taken {TAKEN} from Google's Gemini API model pages"}
