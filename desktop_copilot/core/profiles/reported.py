"""What each kind of server reports of its models, read into `ModelFacts`: one pure parser per model-list shape
(Anthropic, OpenRouter, Gemini, Groq, Moonshot, vLLM, llama.cpp, LM Studio) and Ollama's `/api/show`. A field a
server leaves out, or sends with the wrong type, is None (unknown), never a guess."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from desktop_copilot.core.profiles.profile import ModelFacts, ThinkingStyle, ToolProtocol

MAX_TOKENS_FIGURE = 100_000_000
"""A token count above this is not a real model's: it is read as unknown."""


def _count(value: Any) -> int | None:
    """A positive whole number of tokens, else None (booleans, strings, fractions and absurd sizes are unknown)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value != int(value):
        return None
    return int(value) if 0 < value <= MAX_TOKENS_FIGURE else None


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _get(mapping: Any, *path: str) -> Any:
    """`mapping[path[0]][path[1]]…`, or None where a step is missing or not a mapping."""
    for key in path:
        if not isinstance(mapping, Mapping):
            return None
        mapping = mapping.get(key)
    return mapping


def _words(value: Any) -> set[str] | None:
    """A list of strings as a set, or None when the server sent no list (it said nothing)."""
    return {item for item in value if isinstance(item, str)} if isinstance(value, list) else None


def _model_id(entry: Any, *keys: str) -> str:
    if not isinstance(entry, Mapping):
        return ""
    for key in keys:
        if isinstance(value := entry.get(key), str) and value.strip():
            return value.strip()
    return ""


def _thinking_if(said: bool | None, style: ThinkingStyle) -> ThinkingStyle | None:
    return None if said is None else (style if said else "none")


def _tools_if(said: bool | None) -> ToolProtocol | None:
    return None if said is None else ("native" if said else "text")


def anthropic_facts(entry: Any) -> ModelFacts | None:
    """An entry of Anthropic's `GET /v1/models` (`max_input_tokens`, `max_tokens`, `capabilities.image_input`,
    `pdf_input`, `thinking`); None without an id."""
    if not (model := _model_id(entry, "id")):
        return None
    capabilities = entry.get("capabilities")
    return ModelFacts(
        model,
        context_window=_count(entry.get("max_input_tokens")),
        output_limit=_count(entry.get("max_tokens")),
        thinking=_thinking_if(_flag(_get(capabilities, "thinking", "supported")), "anthropic"),
        images=_flag(_get(capabilities, "image_input", "supported")),
        pdfs=_flag(_get(capabilities, "pdf_input", "supported")),
        reported_by="Anthropic",
    )


def openrouter_facts(entry: Any) -> ModelFacts | None:
    """An entry of OpenRouter's `GET /models`: `context_length`, `top_provider.max_completion_tokens`,
    `architecture.input_modalities` ("image", "file") and `supported_parameters` ("tools", "reasoning",
    "temperature"); None without an id."""
    if not (model := _model_id(entry, "id")):
        return None
    modalities = _words(_get(entry, "architecture", "input_modalities"))
    parameters = _words(entry.get("supported_parameters"))
    return ModelFacts(
        model,
        context_window=_count(entry.get("context_length")) or _count(_get(entry, "top_provider", "context_length")),
        output_limit=_count(_get(entry, "top_provider", "max_completion_tokens")),
        thinking=_thinking_if(None if parameters is None else bool(parameters & {"reasoning", "include_reasoning"}),
                              "reasoning_field"),
        tools=_tools_if(None if parameters is None else "tools" in parameters),
        images=None if modalities is None else "image" in modalities,
        pdfs=True if modalities is not None and "file" in modalities else None,  # OpenRouter parses PDFs for any model
        sampling=None if parameters is None else "temperature" in parameters,
        reported_by="OpenRouter",
    )


def gemini_facts(entry: Any) -> ModelFacts | None:
    """An entry of Gemini's `GET /v1beta/models`: `name` ("models/…"), `inputTokenLimit`, `outputTokenLimit` and
    `thinking`; None without a name."""
    if not (model := _model_id(entry, "name", "baseModelId").removeprefix("models/")):
        return None
    return ModelFacts(
        model,
        context_window=_count(entry.get("inputTokenLimit")),
        output_limit=_count(entry.get("outputTokenLimit")),
        thinking=_thinking_if(_flag(entry.get("thinking")), "gemini"),
        reported_by="Gemini",
    )


def groq_facts(entry: Any) -> ModelFacts | None:
    """An entry of Groq's `GET /models` (`context_window`, `max_completion_tokens`); None without an id."""
    if not (model := _model_id(entry, "id")):
        return None
    return ModelFacts(model, context_window=_count(entry.get("context_window")),
                      output_limit=_count(entry.get("max_completion_tokens")), reported_by="Groq")


def moonshot_facts(entry: Any) -> ModelFacts | None:
    """An entry of Moonshot's `GET /v1/models` (`context_length`, `supports_image_in`, `supports_reasoning`)."""
    if not (model := _model_id(entry, "id")):
        return None
    return ModelFacts(
        model,
        context_window=_count(entry.get("context_length")),
        thinking=_thinking_if(_flag(entry.get("supports_reasoning")), "reasoning_field"),
        images=_flag(entry.get("supports_image_in")),
        reported_by="Moonshot",
    )


def vllm_facts(entry: Any) -> ModelFacts | None:
    """An entry of vLLM's `GET /v1/models`: `max_model_len`, the window the server runs the model with."""
    if not (model := _model_id(entry, "id")):
        return None
    return ModelFacts(model, context_window=_count(entry.get("max_model_len")), reported_by="vLLM")


def llamacpp_facts(entry: Any, props: Any = None) -> ModelFacts | None:
    """An entry of llama-server's `GET /v1/models` (`meta.n_ctx_train`, the window the model was trained for) with
    its `GET /props` (`default_generation_settings.n_ctx`, the window the server runs; `modalities.vision`)."""
    if not (model := _model_id(entry, "id", "model", "name")):
        return None
    served = _count(_get(props, "default_generation_settings", "n_ctx")) or _count(_get(props, "n_ctx"))
    return ModelFacts(
        model,
        context_window=served or _count(_get(entry, "meta", "n_ctx_train")),
        images=_flag(_get(props, "modalities", "vision")),
        reported_by="llama.cpp",
    )


def lmstudio_facts(entry: Any) -> ModelFacts | None:
    """An entry of LM Studio's `GET /api/v0/models` (`type` "vlm" sees images, `max_context_length`,
    `loaded_context_length`, `capabilities: ["tool_use"]`) or `GET /api/v1/models` (`key`, `capabilities.vision`,
    `capabilities.trained_for_tool_use`, `loaded_instances[].config.context_length`)."""
    if not (model := _model_id(entry, "id", "key")):
        return None
    capabilities = entry.get("capabilities")
    kind = entry.get("type")
    if isinstance(capabilities, Mapping):  # v1
        tools, images = _flag(capabilities.get("trained_for_tool_use")), _flag(capabilities.get("vision"))
    else:  # v0
        listed = _words(capabilities)
        tools = None if listed is None else "tool_use" in listed
        images = {"vlm": True, "llm": False}.get(kind) if isinstance(kind, str) else None
    instances = entry.get("loaded_instances")
    loaded = _count(_get(instances[0], "config", "context_length")) if isinstance(instances, list) and instances else None
    return ModelFacts(
        model,
        context_window=loaded or _count(entry.get("loaded_context_length")) or _count(entry.get("max_context_length")),
        tools=_tools_if(tools),
        images=images,
        reported_by="LM Studio",
    )


_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.MULTILINE)


def ollama_show_facts(model: str, body: Any) -> ModelFacts:
    """Ollama's `POST /api/show` for `model`: `model_info["<arch>.context_length"]` (or the Modelfile's `num_ctx`,
    which the server runs it with) and `capabilities` ("tools", "thinking", "vision")."""
    info = body.get("model_info") if isinstance(body, Mapping) else None
    context = None
    if isinstance(info, Mapping):
        arch = info.get("general.architecture")
        context = _count(info.get(f"{arch}.context_length")) if isinstance(arch, str) else None
        context = context or next((c for key, value in info.items() if str(key).endswith(".context_length")
                                   and (c := _count(value))), None)
    parameters = body.get("parameters") if isinstance(body, Mapping) else None
    if isinstance(parameters, str) and (set_in_modelfile := _NUM_CTX.search(parameters)):
        context = _count(int(set_in_modelfile.group(1))) or context
    capabilities = _words(body.get("capabilities")) if isinstance(body, Mapping) else None
    return ModelFacts(
        model,
        context_window=context,
        thinking=None if capabilities is None else ("reasoning_field" if "thinking" in capabilities else "none"),
        tools=_tools_if(None if capabilities is None else "tools" in capabilities),
        images=None if capabilities is None else "vision" in capabilities,
        reported_by="Ollama",
    )


def models_entry_facts(entry: Any) -> ModelFacts | None:
    """Any entry of an OpenAI-style `GET /models`, read by the shape of the server that sent it (OpenRouter, Groq,
    Moonshot, vLLM, llama.cpp, LM Studio); a plain entry (OpenAI, DeepSeek, xAI) gives just its id. None without
    an id."""
    if not isinstance(entry, Mapping):
        return None
    if "max_model_len" in entry:
        return vllm_facts(entry)
    if isinstance(entry.get("meta"), Mapping) or entry.get("owned_by") == "llamacpp":
        return llamacpp_facts(entry)
    if "max_context_length" in entry or "loaded_instances" in entry:
        return lmstudio_facts(entry)
    if any(key in entry for key in ("top_provider", "architecture", "supported_parameters")):
        return openrouter_facts(entry)
    if any(key in entry for key in ("supports_image_in", "supports_reasoning")):
        return moonshot_facts(entry)
    if "context_window" in entry:
        return groq_facts(entry)
    if "context_length" in entry:
        return openrouter_facts(entry)
    model = _model_id(entry, "id")
    return ModelFacts(model) if model else None
