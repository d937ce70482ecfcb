"""The model-list parsers on bodies shaped as each server sends them, and on fields sent with the wrong type."""

from __future__ import annotations

import pytest

from desktop_copilot.core.profiles.profile import ModelFacts
from desktop_copilot.core.profiles.reported import (
    anthropic_facts,
    gemini_facts,
    groq_facts,
    llamacpp_facts,
    lmstudio_facts,
    models_entry_facts,
    moonshot_facts,
    ollama_show_facts,
    openrouter_facts,
    vllm_facts,
)

ANTHROPIC = {
    "type": "model", "id": "claude-opus-4-8", "display_name": "Claude Opus 4.8", "created_at": "2026-05-28T00:00:00Z",
    "lifecycle": "active", "max_input_tokens": 1_000_000, "max_tokens": 128_000,
    "capabilities": {"image_input": {"supported": True}, "pdf_input": {"supported": True},
                     "thinking": {"supported": True, "types": {"adaptive": {"supported": True},
                                                               "enabled": {"supported": False}}}},
}
OPENROUTER = {
    "id": "qwen/qwen3-235b-a22b-2507", "name": "Qwen: Qwen3 235B A22B Instruct 2507", "context_length": 262_144,
    "architecture": {"modality": "text->text", "input_modalities": ["text"], "output_modalities": ["text"]},
    "pricing": {"prompt": "0.00000008", "completion": "0.00000055"},
    "top_provider": {"context_length": 262_144, "max_completion_tokens": 262_144, "is_moderated": False},
    "supported_parameters": ["max_tokens", "temperature", "top_p", "tools", "tool_choice", "stop"],
}
GEMINI = {
    "name": "models/gemini-2.5-flash", "baseModelId": "gemini-2.5-flash", "version": "001",
    "displayName": "Gemini 2.5 Flash", "inputTokenLimit": 1_048_576, "outputTokenLimit": 65_536,
    "supportedGenerationMethods": ["generateContent", "countTokens"], "temperature": 1, "topP": 0.95, "topK": 64,
    "maxTemperature": 2, "thinking": True,
}
OLLAMA_SHOW = {
    "modelfile": "FROM /root/.ollama/models/blobs/sha256-…", "template": "{{ .Prompt }}",
    "parameters": "repeat_penalty                 1\nstop                           \"<|im_start|>\"\ntemperature                    0.6",
    "details": {"parent_model": "", "format": "gguf", "family": "qwen3", "families": ["qwen3"],
                "parameter_size": "8.2B", "quantization_level": "Q4_K_M"},
    "model_info": {"general.architecture": "qwen3", "general.parameter_count": 8_190_735_360,
                   "qwen3.context_length": 40_960, "qwen3.embedding_length": 4096},
    "capabilities": ["completion", "tools", "thinking"],
    "modified_at": "2025-08-20T13:48:24.316155Z",
}


def test_anthropic_reports_limits_and_capabilities():
    assert anthropic_facts(ANTHROPIC) == ModelFacts("claude-opus-4-8", context_window=1_000_000, output_limit=128_000,
                                                    thinking="anthropic", images=True, pdfs=True, reported_by="Anthropic")


def test_an_older_anthropic_list_without_limits_gives_just_the_id():
    facts = anthropic_facts({"type": "model", "id": "claude-3-haiku-20240307", "display_name": "Claude Haiku 3"})
    assert facts == ModelFacts("claude-3-haiku-20240307", reported_by="Anthropic")


def test_openrouter_reports_context_output_tools_and_sampling():
    facts = openrouter_facts(OPENROUTER)
    assert facts == ModelFacts("qwen/qwen3-235b-a22b-2507", context_window=262_144, output_limit=262_144,
                               thinking="none", tools="native", images=False, sampling=True, reported_by="OpenRouter")


def test_openrouter_reasoning_images_files_and_no_sampling():
    entry = {**OPENROUTER, "id": "openai/o4-mini", "context_length": 200_000,
             "architecture": {"input_modalities": ["image", "text", "file"]},
             "top_provider": {"context_length": 200_000, "max_completion_tokens": None},
             "supported_parameters": ["reasoning", "include_reasoning", "tools", "max_tokens"]}
    facts = openrouter_facts(entry)
    assert (facts.thinking, facts.images, facts.pdfs, facts.sampling) == ("reasoning_field", True, True, False)
    assert facts.output_limit is None  # null: OpenRouter does not know


def test_gemini_reports_limits_and_thinking():
    assert gemini_facts(GEMINI) == ModelFacts("gemini-2.5-flash", context_window=1_048_576, output_limit=65_536,
                                              thinking="gemini", reported_by="Gemini")
    older = gemini_facts({**GEMINI, "name": "models/gemini-2.0-flash", "outputTokenLimit": 8192, "thinking": False})
    assert (older.id, older.output_limit, older.thinking) == ("gemini-2.0-flash", 8192, "none")
    assert gemini_facts({**GEMINI, "thinking": None}).thinking is None


def test_ollama_show_reads_the_architectures_window_and_capabilities():
    assert ollama_show_facts("qwen3:8b", OLLAMA_SHOW) == ModelFacts(
        "qwen3:8b", context_window=40_960, thinking="reasoning_field", tools="native", images=False, reported_by="Ollama")


def test_ollama_show_prefers_the_modelfiles_num_ctx_and_sees_vision():
    body = {**OLLAMA_SHOW, "parameters": "num_ctx                        8192\nstop \"<end_of_turn>\"",
            "model_info": {"general.architecture": "gemma3", "gemma3.context_length": 131_072},
            "capabilities": ["completion", "vision"]}
    facts = ollama_show_facts("gemma3:4b", body)
    assert (facts.context_window, facts.tools, facts.thinking, facts.images) == (8192, "text", "none", True)


def test_an_older_ollama_without_capabilities_says_nothing_of_them():
    facts = ollama_show_facts("llama3.2", {"model_info": {"general.architecture": "llama", "llama.context_length": 131_072}})
    assert facts == ModelFacts("llama3.2", context_window=131_072, reported_by="Ollama")
    assert ollama_show_facts("x", {"error": "model 'x' not found"}) == ModelFacts("x", reported_by="Ollama")


def test_lmstudio_v0_entries():
    vlm = {"id": "qwen2-vl-7b-instruct", "object": "model", "type": "vlm", "publisher": "mlx-community",
           "arch": "qwen2_vl", "compatibility_type": "mlx", "quantization": "4bit", "state": "not-loaded",
           "max_context_length": 32_768}
    llm = {"id": "qwen/qwen3-8b", "object": "model", "type": "llm", "arch": "qwen3", "state": "loaded",
           "max_context_length": 40_960, "loaded_context_length": 8192, "capabilities": ["tool_use"]}
    assert lmstudio_facts(vlm) == ModelFacts("qwen2-vl-7b-instruct", context_window=32_768, images=True,
                                             reported_by="LM Studio")
    assert lmstudio_facts(llm) == ModelFacts("qwen/qwen3-8b", context_window=8192, tools="native", images=False,
                                             reported_by="LM Studio")
    assert lmstudio_facts({**llm, "capabilities": []}).tools == "text"


def test_lmstudio_v1_entries():
    entry = {"type": "llm", "publisher": "google", "key": "google/gemma-3-4b", "display_name": "Gemma 3 4B",
             "architecture": "gemma3", "max_context_length": 131_072, "format": "mlx",
             "capabilities": {"vision": True, "trained_for_tool_use": False},
             "loaded_instances": [{"id": "google/gemma-3-4b", "config": {"context_length": 4096}}]}
    assert lmstudio_facts(entry) == ModelFacts("google/gemma-3-4b", context_window=4096, tools="text", images=True,
                                               reported_by="LM Studio")


def test_vllm_reports_the_window_it_serves():
    entry = {"id": "Qwen/Qwen3-8B", "object": "model", "created": 1_755_000_000, "owned_by": "vllm",
             "root": "/models/Qwen3-8B", "parent": None, "max_model_len": 32_768, "permission": [{"id": "modelperm-1"}]}
    assert vllm_facts(entry) == ModelFacts("Qwen/Qwen3-8B", context_window=32_768, reported_by="vLLM")


def test_llamacpp_prefers_the_served_window_to_the_trained_one():
    entry = {"id": "Qwen3-8B-Q4_K_M.gguf", "object": "model", "created": 1_755_000_000, "owned_by": "llamacpp",
             "meta": {"vocab_type": 2, "n_vocab": 151_936, "n_ctx_train": 40_960, "n_embd": 4096,
                      "n_params": 8_190_735_360, "size": 5_027_783_488}}
    props = {"default_generation_settings": {"id": 0, "n_ctx": 4096, "params": {"temperature": 0.8}},
             "total_slots": 1, "model_path": "/models/Qwen3-8B-Q4_K_M.gguf", "modalities": {"vision": False}}
    assert llamacpp_facts(entry) == ModelFacts("Qwen3-8B-Q4_K_M.gguf", context_window=40_960, reported_by="llama.cpp")
    assert llamacpp_facts(entry, props) == ModelFacts("Qwen3-8B-Q4_K_M.gguf", context_window=4096, images=False,
                                                      reported_by="llama.cpp")


def test_groq_and_moonshot_lists():
    groq = {"id": "llama-3.3-70b-versatile", "object": "model", "owned_by": "Meta", "active": True,
            "context_window": 131_072, "public_apps": None, "max_completion_tokens": 32_768}
    kimi = {"id": "kimi-k2.6", "object": "model", "owned_by": "moonshot", "context_length": 262_144,
            "supports_image_in": True, "supports_video_in": False, "supports_reasoning": True}
    assert groq_facts(groq) == ModelFacts("llama-3.3-70b-versatile", context_window=131_072, output_limit=32_768,
                                          reported_by="Groq")
    assert moonshot_facts(kimi) == ModelFacts("kimi-k2.6", context_window=262_144, thinking="reasoning_field",
                                              images=True, reported_by="Moonshot")


@pytest.mark.parametrize(("entry", "reported_by"), [
    (OPENROUTER, "OpenRouter"),
    ({"id": "m", "max_model_len": 2048, "owned_by": "vllm"}, "vLLM"),
    ({"id": "m.gguf", "owned_by": "llamacpp", "meta": {"n_ctx_train": 2048}}, "llama.cpp"),
    ({"id": "m", "type": "llm", "max_context_length": 2048}, "LM Studio"),
    ({"id": "m", "context_window": 2048, "max_completion_tokens": 1024}, "Groq"),
    ({"id": "m", "context_length": 2048, "supports_reasoning": False}, "Moonshot"),
    ({"id": "gpt-4.1", "object": "model", "created": 1_744_316_542, "owned_by": "system"}, ""),
])
def test_a_models_entry_is_read_by_its_shape(entry, reported_by):
    facts = models_entry_facts(entry)
    assert facts.reported_by == reported_by and facts.id == entry["id"]


@pytest.mark.parametrize("parse", [anthropic_facts, openrouter_facts, gemini_facts, groq_facts, moonshot_facts,
                                   vllm_facts, llamacpp_facts, lmstudio_facts, models_entry_facts])
def test_an_entry_without_an_id_is_none(parse):
    assert parse({"object": "model"}) is None
    assert parse("gpt-4.1") is None
    assert parse({"id": "  ", "name": ""}) is None


@pytest.mark.parametrize("wrong", [True, "131072", -1, 0, 1.5, float("inf"), float("nan"), 10**12, None, [4096]])
def test_a_count_sent_wrong_is_unknown(wrong):
    assert vllm_facts({"id": "m", "max_model_len": wrong}).context_window is None
    assert openrouter_facts({"id": "m", "context_length": wrong, "top_provider": {"max_completion_tokens": wrong}}) == \
        ModelFacts("m", reported_by="OpenRouter")
    assert ollama_show_facts("m", {"model_info": {"general.architecture": "llama", "llama.context_length": wrong}}) \
        .context_window is None


def test_a_whole_float_count_is_read():
    assert vllm_facts({"id": "m", "max_model_len": 32768.0}).context_window == 32_768


def test_capabilities_sent_wrong_are_unknown():
    facts = anthropic_facts({"id": "c", "capabilities": {"image_input": {"supported": "yes"}, "thinking": "on"}})
    assert (facts.images, facts.thinking) == (None, None)
    assert ollama_show_facts("m", {"capabilities": "tools"}).tools is None
    assert openrouter_facts({"id": "m", "supported_parameters": "tools"}).tools is None
