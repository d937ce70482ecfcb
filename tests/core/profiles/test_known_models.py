"""The shipped table: ids as each kind of server spells them find their family, the figures are the makers', every
family is reachable, and the image rules attachment_limits.py guessed with are in it."""

from __future__ import annotations

import re

import pytest

from desktop_copilot.core.profiles.known_models import FAMILIES, TAKEN, known_family, model_name


@pytest.mark.parametrize(("model", "family"), [
    ("claude-sonnet-4-5-20250929", "Claude 4.5"),
    ("anthropic/claude-sonnet-4.5", "Claude 4.5"),  # OpenRouter spells the version with a dot
    ("claude-opus-4-1-20250805", "Claude Opus 4 / 4.1"),
    ("claude-opus-4-7", "Claude Opus 4.7–4.8"),
    ("claude-3-5-haiku-latest", "Claude 3.5"),
    ("gpt-5-2025-08-07", "GPT-5 to 5.3"),  # a date is not a version
    ("gpt-5.5-pro", "GPT-5.4 and later"),
    ("gpt-5.4-mini", "GPT-5 mini / nano"),
    ("gpt-5.1-chat-latest", "GPT-5 chat"),
    ("models/gemini-2.5-flash", "Gemini 2.5 / 3"),
    ("qwen3:8b", "Qwen3"),  # Ollama
    ("Qwen/Qwen3-8B", "Qwen3"),  # vLLM
    ("Qwen3-8B-Q4_K_M.gguf", "Qwen3"),  # llama.cpp
    ("qwen3:30b-a3b-thinking-2507-q4_K_M", "Qwen3 thinking 2507"),
    ("qwen2.5vl:7b", "Qwen vision / omni"),
    ("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "DeepSeek R1 and its distills"),
    ("meta-llama-3.1-8b-instruct", "Llama 3.1–3.3"),  # LM Studio
    ("llama-3.3-70b-versatile", "Llama 3.1–3.3"),  # Groq
    ("llama3:8b", "Llama 3"),
    ("llama3.2-vision:11b", "Llama 3.2 Vision"),
    ("openai/gpt-oss-20b", "gpt-oss"),
    ("gemma3:1b", "Gemma 3 1B / 270M"),
    ("gemma3:12b", "Gemma 3"),
    ("glm-4.5v", "GLM-4.5V"),
    ("glm-4.5-air", "GLM-4.5"),
    ("kimi-k2-0905-preview", "Kimi K2"),
    ("moonshotai/kimi-k2-instruct-0905", "Kimi K2"),
    ("moonshot-v1-128k", "Moonshot v1 128k"),
    ("moonshot-v1-8k-vision-preview", "Moonshot v1 8k vision"),
    ("grok-4-1-fast-reasoning", "Grok 4 Fast"),
    ("mistral-small3.2:24b", "Mistral Small 3.1 / 3.2"),
    ("phi4-mini-reasoning", "Phi-4 mini reasoning"),
    ("minimax-m2", "MiniMax M2"),
    ("granite3.2-vision", "named for images"),
])
def test_ids_as_each_server_spells_them_find_their_family(model, family):
    assert known_family(model).name == family


def test_an_unknown_model_has_no_family():
    assert known_family("my-finetune-v7") is None
    assert known_family("") is None


def test_the_name_read_drops_prefixes_and_file_suffixes():
    assert model_name("hf.co/unsloth/Qwen3-8B-GGUF:Q4_K_M") == "qwen3-8b-gguf:q4_k_m"
    assert model_name(" openrouter/anthropic/claude-opus-4.5 ") == "claude-opus-4.5"
    assert model_name("Llama-3.2-3B-Instruct-Q8_0.gguf") == "llama-3.2-3b-instruct-q8_0"


@pytest.mark.parametrize(("model", "context", "output"), [
    ("claude-sonnet-4-6", 1_000_000, 128_000),
    ("claude-haiku-4-5", 200_000, 64_000),
    ("claude-3-5-haiku-20241022", 200_000, 8192),
    ("gpt-4.1-mini", 1_047_576, 32_768),
    ("gpt-5.5", 1_050_000, 128_000),
    ("o3-mini", 200_000, 100_000),
    ("gemini-2.0-flash", 1_048_576, 8192),
    ("deepseek-v4-flash", 1_048_576, 384_000),
    ("glm-4.6", 204_800, 131_072),
])
def test_cloud_figures_are_the_makers(model, context, output):
    facts = known_family(model).facts
    assert (facts.context_window, facts.output_limit) == (context, output)


def test_reasoning_and_thinking_facts():
    assert known_family("claude-opus-4-8").facts.sampling is False  # Claude from 4.7 on refuses temperature
    assert known_family("claude-sonnet-4-5").facts.sampling is True
    assert known_family("o4-mini").facts.sampling is False and known_family("gpt-4o").facts.sampling is True
    assert known_family("deepseek-reasoner").facts.echo_thinking is True  # reasoning_content back on tool turns
    assert known_family("kimi-k2-thinking").facts.echo_thinking is True
    assert known_family("deepseek-chat").facts.thinking == "none"
    assert known_family("qwq:32b").facts.thinking == "think_tags"
    assert known_family("gpt-oss:20b").facts.thinking == "reasoning_field"


@pytest.mark.parametrize("model", [
    "deepseek-chat", "deepseek-reasoner", "deepseek-r1:14b", "deepseek-v3", "kimi-k2-0905-preview", "moonshot-v1-32k",
    "glm-4.6", "glm4:9b", "gpt-3.5-turbo", "o1-mini", "o3-mini", "llama3.1:8b", "llama-3.3-70b-versatile", "llama2",
    "mistral:7b", "qwen2.5:7b", "qwen2.5-coder:14b", "codellama:7b", "phi4:14b", "phi3:mini",
])
def test_text_only_families_take_no_images(model):
    """attachment_limits.TEXT_ONLY_MODELS, as table facts."""
    assert known_family(model).facts.images is False


@pytest.mark.parametrize("model", [
    "llama3.2-vision", "qwen2.5vl:7b", "glm-4.5v", "glm-4v-plus", "llava:13b", "minicpm-v", "moondream",
    "moonshot-v1-8k-vision-preview", "qwen2.5-omni", "gemma3:4b", "claude-sonnet-4-5", "gpt-4o-mini",
])
def test_families_and_names_that_see_images(model):
    """attachment_limits.SEES_IMAGES (a name that says so), and families known to see images."""
    assert known_family(model).facts.images is True


ONE_ID_OF_EACH = {
    "Claude Fable / Mythos": "claude-fable-5-1", "Claude 5.x": "claude-opus-5-5", "Claude Opus 4.7–4.8": "claude-opus-4-8",
    "Claude 4.6": "claude-sonnet-4-6", "Claude 4.5": "claude-opus-4-5-20251101", "Claude Opus 4 / 4.1": "claude-opus-4-0",
    "Claude Sonnet 4": "claude-sonnet-4-20250514", "Claude Sonnet 3.7": "claude-3-7-sonnet-latest",
    "Claude 3.5": "claude-3-5-sonnet-20241022", "Claude 3": "claude-3-haiku-20240307", "GPT-5 chat": "gpt-5-chat-latest",
    "GPT-5 mini / nano": "gpt-5-nano", "GPT-5.4 and later": "gpt-5.4", "GPT-5 to 5.3": "gpt-5.2", "o1-mini": "o1-mini",
    "o3-mini": "o3-mini", "o-series": "o4-mini", "GPT-4.1": "gpt-4.1", "GPT-4o": "chatgpt-4o-latest",
    "GPT-3.5": "gpt-3.5-turbo", "gpt-oss": "gpt-oss:120b", "Gemini 2.5 / 3": "gemini-3-pro-preview",
    "Gemini 2.0 Flash": "gemini-2.0-flash-lite", "Gemma 4 small": "gemma4:e4b", "Gemma 4": "gemma-4-26b-a4b",
    "Gemma 3n": "gemma3n:e4b", "Gemma 3 1B / 270M": "gemma-3-270m", "Gemma 3": "gemma-3-27b-it", "Gemma 2": "gemma2:9b",
    "DeepSeek V4": "deepseek-v4-pro", "deepseek-reasoner": "deepseek-reasoner", "deepseek-chat": "deepseek-chat",
    "DeepSeek R1 and its distills": "deepseek-r1:8b", "DeepSeek V3.1 / V3.2": "deepseek-v3.1:671b",
    "DeepSeek V3": "deepseek-v3-0324", "DeepSeek Coder": "deepseek-coder-v2", "Kimi K3": "kimi-k3",
    "Kimi K2.5 / K2.6": "kimi-k2.6", "Kimi K2.x": "kimi-k2.7-code", "Kimi K2 Thinking": "kimi-k2-thinking-turbo",
    "Kimi K2 0711": "kimi-k2-0711-preview", "Kimi K2": "kimi-k2-turbo-preview",
    "Moonshot v1 8k vision": "moonshot-v1-8k-vision-preview", "Moonshot v1 32k vision": "moonshot-v1-32k-vision-preview",
    "Moonshot v1 128k vision": "moonshot-v1-128k-vision-preview", "Moonshot v1 8k": "moonshot-v1-8k",
    "Moonshot v1 32k": "moonshot-v1-32k", "Moonshot v1 128k": "moonshot-v1-128k", "GLM-4.6V": "glm-4.6v",
    "GLM-4.5V": "glm-4.5v", "GLM vision": "glm-4.1v-thinking", "GLM-5.2 and later": "glm-5.2", "GLM-5 / 5.1": "glm-5.1",
    "GLM-4.6 / 4.7": "glm-4.7-flash", "GLM-4.5": "glm-4.5-air", "GLM-4": "glm4:9b", "Grok Code Fast": "grok-code-fast-1",
    "Grok 4.5": "grok-4.5", "Grok 4 Fast": "grok-4-fast-non-reasoning", "Grok 4": "grok-4-0709",
    "Grok 3 mini": "grok-3-mini", "Grok 3": "grok-3", "Llama 4 Scout": "meta-llama/llama-4-scout-17b-16e-instruct",
    "Llama 4 Maverick": "llama4:maverick", "Llama 3.2 Vision": "llama3.2-vision:90b", "Llama 3.1–3.3": "llama3.1:8b",
    "Llama 3": "llama3", "Llama 2 / Code Llama": "codellama:13b", "QwQ": "qwq:32b", "Qwen3-VL": "qwen3-vl:8b",
    "Qwen vision / omni": "qwen3-omni-30b-a3b", "Qwen3.5 and later": "qwen3.5:9b", "Qwen3 Coder": "qwen3-coder:30b",
    "Qwen3 thinking 2507": "qwen3-235b-a22b-thinking-2507", "Qwen3 2507 / Next": "qwen3-next:80b", "Qwen3": "qwen3:32b",
    "Qwen2 / 2.5": "qwen2.5-coder:7b", "Magistral": "magistral:24b", "Devstral": "devstral:24b",
    "Pixtral": "pixtral-12b-2409", "Codestral": "codestral-latest", "Mistral Small 3.1 / 3.2": "mistral-small-3.1-24b",
    "Mistral Small / Medium / Large / Nemo": "mistral-nemo:12b", "Mixtral 8x22B": "mixtral:8x22b",
    "Mixtral": "mixtral-8x7b-32768", "Mistral 7B": "mistralai/Mistral-7B-Instruct-v0.3",
    "Phi-4 mini reasoning": "phi4-mini-reasoning:3.8b", "Phi-4 reasoning": "phi4-reasoning:14b",
    "Phi-4 multimodal": "phi-4-multimodal-instruct", "Phi-4 mini": "phi4-mini", "Phi-4": "phi4", "Phi-3": "phi3:medium",
    "MiniMax M2": "minimax-m2:230b", "named for images": "bakllava",
}


@pytest.mark.parametrize("family", FAMILIES, ids=lambda family: family.name)
def test_every_family_is_reached_by_an_id_of_its_own(family):
    """No family hides behind an earlier, broader one (the table is read first match wins)."""
    assert known_family(ONE_ID_OF_EACH[family.name]) is family


def test_every_family_knows_something_and_says_when_it_was_taken():
    assert re.fullmatch(r"\d{4}-\d{2}", TAKEN)
    assert len({family.name for family in FAMILIES}) == len(FAMILIES)
    for family in FAMILIES:
        assert family.note.startswith(f"taken {TAKEN} from "), family.name
        assert family.facts.known(), f"{family.name} knows nothing"
