"""Each local server's model lists, its probe endpoint and its answer to a path it does not know, built from the
scripted models (sources in docs/local_servers.md)."""

from __future__ import annotations

from collections.abc import Callable

from tests.support.local_servers.dialects import CREATED, Dialect, Json, LlamaCpp, json_body
from tests.support.local_servers.script import LocalModel
from tests.support.loopback import RecordedRequest, ScriptedResponse

Route = Callable[[RecordedRequest], ScriptedResponse]


# --- LM Studio ------------------------------------------------------------------------


def lmstudio_openai_models(models: list[LocalModel], jit: bool) -> Json:
    """GET /v1/models: every downloaded model with JIT loading on, only the loaded ones with it off."""
    listed = [m for m in models if jit or m.loaded]
    return {"data": [{"id": m.id, "object": "model", "owned_by": "organization_owner"} for m in listed], "object": "list"}


def lmstudio_rest_model(model: LocalModel) -> Json:
    """One entry of GET /api/v0/models; `capabilities` since LM Studio 0.3.16."""
    entry: Json = {"id": model.id, "object": "model", "type": model.kind, "publisher": model.publisher, "arch": model.arch,
                   "compatibility_type": model.compatibility_type, "quantization": model.quantization,
                   "state": "loaded" if model.loaded else "not-loaded", "max_context_length": model.context_length}
    if model.kind != "embeddings":
        entry["capabilities"] = ["tool_use"] if model.tool_use else []
    return entry


def lmstudio_routes(models: list[LocalModel], jit: bool) -> dict[tuple[str, str], Route]:
    return {
        ("GET", "/v1/models"): lambda _r: json_body(lmstudio_openai_models(models, jit), content_type="application/json; charset=utf-8"),
        ("GET", "/api/v0/models"): lambda _r: json_body({"object": "list", "data": [lmstudio_rest_model(m) for m in models]},
                                                         content_type="application/json; charset=utf-8"),
    }


def lmstudio_unknown(request: RecordedRequest) -> ScriptedResponse:
    """LM Studio answers a path it does not serve with 200 and a plain-string error (lmstudio-bug-tracker #618)."""
    return json_body({"error": f"Unexpected endpoint or method. ({request.method} {request.path})"}, 200, "application/json; charset=utf-8")


# --- llama-server -----------------------------------------------------------------------


def llamacpp_models(model: LocalModel) -> Json:
    """GET /v1/models (and /models): an Ollama-style `models` array and the OpenAI `data` array, one model each."""
    capabilities = ["completion", "multimodal"] if model.kind == "vlm" else ["completion"]
    return {
        "models": [{"name": model.id, "model": model.id, "modified_at": "", "size": "", "digest": "", "type": "model", "description": "",
                    "tags": [""], "capabilities": capabilities, "parameters": "",
                    "details": {"parent_model": "", "format": "gguf", "family": "", "families": [""], "parameter_size": "", "quantization_level": ""}}],
        "object": "list",
        "data": [{"id": model.id, "aliases": [], "tags": [], "object": "model", "created": CREATED, "owned_by": "llamacpp",
                  "meta": {"vocab_type": 2, "n_vocab": 151936, "n_ctx": model.context_length, "n_ctx_train": model.context_length,
                           "n_embd": 4096, "n_params": model.n_params, "size": model.size}}],
    }


def llamacpp_props(model: LocalModel) -> Json:
    """GET /props: the slot context in `default_generation_settings.n_ctx`, the template, the model file."""
    return {
        "default_generation_settings": {"params": {"temperature": 0.8, "top_k": 40, "top_p": 0.95, "min_p": 0.05, "n_predict": -1},
                                        "n_ctx": model.context_length},
        "total_slots": 4, "model_alias": model.id, "model_path": model.source,
        "modalities": {"vision": model.kind == "vlm", "video": False, "audio": False},
        "chat_template": "{%- for message in messages %}{{ '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}{%- endfor %}",
        "bos_token": "<|endoftext|>", "eos_token": "<|im_end|>", "build_info": LlamaCpp.BUILD, "is_sleeping": False,
    }


def llamacpp_routes(model: LocalModel) -> dict[tuple[str, str], Route]:
    """/health (and /v1/health) answers {"status": "ok"} once the model is loaded."""
    models: Route = lambda _r: json_body(llamacpp_models(model))
    health: Route = lambda _r: json_body({"status": "ok"})
    return {("GET", "/health"): health, ("GET", "/v1/health"): health, ("GET", "/models"): models, ("GET", "/v1/models"): models,
            ("GET", "/props"): lambda _r: json_body(llamacpp_props(model))}


def llamacpp_unknown(dialect: Dialect) -> Route:
    return lambda _r: dialect.error(404, "File Not Found", "not_found_error")


# --- vLLM -------------------------------------------------------------------------------


def vllm_models(models: list[LocalModel]) -> Json:
    """GET /v1/models: ModelCard per served name, `owned_by: "vllm"`, `root` = the weights, `max_model_len`."""
    permission = {"id": "modelperm-0123456789abcdef0123456789abcdef", "object": "model_permission", "created": CREATED,
                  "allow_create_engine": False, "allow_sampling": True, "allow_logprobs": True, "allow_search_indices": False,
                  "allow_view": True, "allow_fine_tuning": False, "organization": "*", "group": None, "is_blocking": False}
    return {"object": "list", "data": [{"id": m.id, "object": "model", "created": CREATED, "owned_by": "vllm", "root": m.source, "parent": None,
                                        "max_model_len": m.context_length, "permission": [permission]} for m in models]}


def vllm_routes(models: list[LocalModel]) -> dict[tuple[str, str], Route]:
    """/health answers 200 with an empty body while the engine is alive."""
    return {("GET", "/health"): lambda _r: ScriptedResponse(status=200, headers={"content-length": "0"}),
            ("GET", "/v1/models"): lambda _r: json_body(vllm_models(models))}


def vllm_unknown(_request: RecordedRequest) -> ScriptedResponse:
    return json_body({"detail": "Not Found"}, 404)
