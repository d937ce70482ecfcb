"""`desktop-copilot models` as a user runs it, against loopback servers shaped as Ollama (`/api/tags`, `/api/show`),
OpenRouter (`/models` with `context_length`) and Gemini (`/v1beta/models`): the table with its source marks, the JSON
document, the cache `--offline` reads, the user's overrides, and the errors and their exit codes."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.loopback import json_response

QWEN_SHOW = {
    "parameters": "num_ctx                        8192\ntemperature                    0.6",
    "details": {"family": "qwen3", "parameter_size": "8.2B", "quantization_level": "Q4_K_M"},
    "model_info": {"general.architecture": "qwen3", "qwen3.context_length": 40_960},
    "capabilities": ["completion", "tools", "thinking"],
}
GEMMA_SHOW = {
    "parameters": "stop \"<end_of_turn>\"",
    "details": {"family": "gemma3", "parameter_size": "4.3B"},
    "model_info": {"general.architecture": "gemma3", "gemma3.context_length": 131_072},
    "capabilities": ["completion", "vision"],
}
OPENROUTER_MODELS = {"data": [
    {"id": "qwen/qwen3-235b-a22b-2507", "name": "Qwen: Qwen3 235B A22B Instruct 2507", "context_length": 262_144,
     "architecture": {"modality": "text->text", "input_modalities": ["text"], "output_modalities": ["text"]},
     "pricing": {"prompt": "0.00000008", "completion": "0.00000055"},
     "top_provider": {"context_length": 262_144, "max_completion_tokens": 131_072, "is_moderated": False},
     "supported_parameters": ["max_tokens", "temperature", "tools", "tool_choice"]},
    {"id": "openai/o4-mini", "name": "OpenAI: o4 Mini", "context_length": 200_000,
     "architecture": {"input_modalities": ["image", "text", "file"], "output_modalities": ["text"]},
     "pricing": {"prompt": "0.0000011", "completion": "0.0000044"},
     "top_provider": {"context_length": 200_000, "max_completion_tokens": 100_000, "is_moderated": True},
     "supported_parameters": ["max_tokens", "reasoning", "include_reasoning", "tools"]},
]}
GEMINI_MODELS = {"models": [
    {"name": "models/gemini-2.5-flash", "version": "001", "displayName": "Gemini 2.5 Flash",
     "inputTokenLimit": 1_048_576, "outputTokenLimit": 65_536,
     "supportedGenerationMethods": ["generateContent", "countTokens"], "thinking": True},
    {"name": "models/gemini-future-pro", "version": "001", "displayName": "Gemini Future Pro",
     "inputTokenLimit": 2_097_152, "outputTokenLimit": 131_072,
     "supportedGenerationMethods": ["generateContent"], "thinking": True},
]}
LOCALS = ("LMSTUDIO_BASE_URL", "LLAMACPP_BASE_URL", "VLLM_BASE_URL")


def closed_url() -> str:
    """A loopback address nothing listens on (connections are refused at once)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def run_models(*args: str, **env: str) -> subprocess.CompletedProcess:
    quiet_locals = {name: closed_url() for name in LOCALS}
    return subprocess.run([sys.executable, "-m", "desktop_copilot", "models", *args], check=False,
                          env={**os.environ, **quiet_locals, "PYTHONIOENCODING": "utf-8", **env},
                          capture_output=True, text=True, encoding="utf-8", timeout=90)


def serve_ollama(loopback) -> None:
    shows = {"qwen3:8b": QWEN_SHOW, "gemma3:4b": GEMMA_SHOW}
    loopback.set_handler("/api/tags", lambda _: json_response({"models": [
        {"name": "qwen3:8b", "model": "qwen3:8b", "size": 5_225_388_164, "details": {"family": "qwen3"}},
        {"name": "gemma3:4b", "model": "gemma3:4b", "size": 3_338_801_804, "details": {"family": "gemma3"}}]}))

    def show(request):
        body = request.json()
        name = body.get("model") or body.get("name")
        return json_response(shows[name]) if name in shows else json_response({"error": f"model '{name}' not found"}, 404)

    loopback.set_handler("/api/show", show)


def row(stdout: str, model: str) -> list[str]:
    """The cells of `model`'s row, each value followed by its source mark."""
    line = next(line for line in stdout.splitlines() if line.split() and line.split()[0] == model)
    return line.split()[1:]


def settings_path() -> Path:
    return Path(os.environ["DESKTOP_COPILOT_HOME"]) / "config" / "settings.json"


def test_ollama_models_with_what_show_reports(loopback):
    serve_ollama(loopback)
    result = run_models("--provider", "ollama", OLLAMA_HOST=loopback.url)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Ollama (ollama)\n")
    # context, output, thinking, tools, images, each with its source: the Modelfile's num_ctx beats the table
    assert row(result.stdout, "qwen3:8b") == ["8,192", "p", "4,096", "?", "reasoning_field", "p", "native", "p", "no", "p"]
    assert row(result.stdout, "gemma3:4b") == ["131,072", "p", "8,192", "t", "none", "p", "text", "p", "yes", "p"]
    assert "p = reported by the provider" in result.stdout and "? = a guess" in result.stdout
    assert {r.json().get("model") or r.json().get("name") for r in loopback.requests_to("/api/show")} == {"qwen3:8b",
                                                                                                          "gemma3:4b"}


def test_ollama_in_json(loopback):
    serve_ollama(loopback)
    result = run_models("--provider", "ollama", "--json", OLLAMA_HOST=loopback.url)
    assert result.returncode == 0, result.stderr
    profiles = json.loads(result.stdout)
    assert [(p["provider"], p["model"]) for p in profiles] == [("ollama", "qwen3:8b"), ("ollama", "gemma3:4b")]
    qwen = profiles[0]
    assert qwen["context_window"] == {"value": 8192, "source": "provider", "note": "reported by Ollama"}
    assert qwen["output_limit"]["source"] == "default" and qwen["output_limit"]["note"].startswith("a guess")
    assert (qwen["pdfs"]["value"], qwen["pdfs"]["source"]) == (False, "table")  # a text-only family
    gemma = profiles[1]
    assert gemma["images"] == {"value": True, "source": "provider", "note": "reported by Ollama"}
    assert gemma["pdfs"] == {"value": False, "source": "default", "note": "the provider reads no PDFs"}


def test_openrouter_context_length_and_max_completion_tokens(loopback):
    loopback.set_handler("/models", lambda _: json_response(OPENROUTER_MODELS))
    result = run_models("--provider", "openrouter", OPENROUTER_BASE_URL=loopback.url, OPENROUTER_API_KEY="sk-or-test-5150")
    assert result.returncode == 0, result.stderr
    assert row(result.stdout, "qwen/qwen3-235b-a22b-2507") == ["262,144", "p", "131,072", "p", "none", "p", "native", "p",
                                                               "no", "p"]
    assert row(result.stdout, "openai/o4-mini")[:6] == ["200,000", "p", "100,000", "p", "reasoning_field", "p"]
    assert loopback.requests_to("/models")[0].headers["authorization"] == "Bearer sk-or-test-5150"
    assert "sk-or-test-5150" not in result.stdout + result.stderr

    as_json = run_models("--provider", "openrouter", "--json", OPENROUTER_BASE_URL=loopback.url,
                         OPENROUTER_API_KEY="sk-or-test-5150")
    o4 = json.loads(as_json.stdout)[1]
    assert o4["sampling"] == {"value": False, "source": "provider", "note": "reported by OpenRouter"}
    assert o4["pdfs"]["value"] is True and o4["images"]["value"] is True


def test_gemini_models_list(loopback):
    loopback.set_handler("/v1beta/models", lambda _: json_response(GEMINI_MODELS))
    result = run_models("--provider", "gemini", "--json", GEMINI_BASE_URL=loopback.url, GEMINI_API_KEY="gemini-test-6161")
    assert result.returncode == 0, result.stderr
    flash, future = json.loads(result.stdout)
    assert (flash["model"], flash["output_limit"]["value"], flash["thinking"]["value"]) == ("gemini-2.5-flash", 65_536, "gemini")
    assert future["context_window"] == {"value": 2_097_152, "source": "provider", "note": "reported by Gemini"}
    assert future["images"]["source"] == "default" and future["pdfs"]["value"] is True

    text = run_models("--provider", "gemini", GEMINI_BASE_URL=loopback.url, GEMINI_API_KEY="gemini-test-6161")
    assert row(text.stdout, "gemini-2.5-flash")[:4] == ["1,048,576", "p", "65,536", "p"]


def test_every_usable_provider_and_a_note_for_each_skipped_one(loopback):
    serve_ollama(loopback)
    loopback.set_handler("/models", lambda _: json_response(OPENROUTER_MODELS))
    result = run_models(OLLAMA_HOST=loopback.url, OPENROUTER_BASE_URL=loopback.url, OPENROUTER_API_KEY="sk-or-test-5150")
    assert result.returncode == 0, result.stderr
    headings = [line for line in result.stdout.splitlines() if line and not line.startswith(" ")][:-1]
    assert headings == ["OpenRouter (openrouter)", "Ollama (ollama)"]  # in the provider table's order
    notes = result.stderr.splitlines()
    assert any(n.startswith("note: Anthropic skipped") and "ANTHROPIC_API_KEY" in n for n in notes)
    assert any(n.startswith("note: LM Studio skipped: nothing answered at http://127.0.0.1:") for n in notes)
    assert not any(n.startswith(("note: OpenRouter", "note: Ollama", "error")) for n in notes), result.stderr


def test_offline_reads_what_was_reported_before_without_asking(loopback):
    serve_ollama(loopback)
    assert run_models("--provider", "ollama", OLLAMA_HOST=loopback.url).returncode == 0
    cached = json.loads(settings_path().read_text(encoding="utf-8"))["model_facts"]
    assert cached["ollama/qwen3:8b"]["context_window"] == 8192 and cached["ollama/qwen3:8b"]["reported_by"] == "Ollama"
    asked = len(loopback.requests)

    offline = run_models("--offline", "--json", OLLAMA_HOST=closed_url())
    assert offline.returncode == 0, offline.stderr
    assert len(loopback.requests) == asked
    profiles = json.loads(offline.stdout)
    assert [p["model"] for p in profiles] == ["qwen3:8b", "gemma3:4b"]
    assert profiles[0]["context_window"] == {"value": 8192, "source": "provider", "note": "reported by Ollama"}


def test_offline_with_nothing_cached_shows_the_default_model_from_the_table():
    result = run_models("--offline", "--provider", "anthropic")
    assert result.returncode == 0, result.stderr
    assert "nothing is cached for Anthropic" in result.stderr
    assert row(result.stdout, "claude-sonnet-4-6")[:2] == ["1,000,000", "t"]


def test_the_users_override_wins_and_is_marked(loopback):
    serve_ollama(loopback)
    settings_path().parent.mkdir(parents=True, exist_ok=True)
    settings_path().write_text(json.dumps({"model_overrides": {"ollama/qwen3:8b": {"context_window": 32_768,
                                                                                   "output_limit": 8192}}}))
    result = run_models("--provider", "ollama", OLLAMA_HOST=loopback.url)
    assert result.returncode == 0, result.stderr
    assert row(result.stdout, "qwen3:8b")[:4] == ["32,768", "u", "8,192", "u"]
    assert json.loads(settings_path().read_text())["model_overrides"] == {
        "ollama/qwen3:8b": {"context_window": 32_768, "output_limit": 8192}}  # kept when the cache was written


def test_an_unknown_provider_is_a_usage_error_naming_the_known_ones():
    result = run_models("--provider", "nosuch")
    assert result.returncode == 2 and result.stdout == ""
    assert "unknown provider 'nosuch'" in result.stderr and "openrouter" in result.stderr and "ollama" in result.stderr


def test_a_provider_asked_for_without_its_key_is_a_usage_error():
    result = run_models("--provider", "openrouter")
    assert result.returncode == 2 and result.stdout == ""
    assert "OPENROUTER_API_KEY" in result.stderr and "keys set openrouter" in result.stderr


def test_a_provider_that_fails_exits_3_in_words(loopback):
    loopback.set_handler("/models", lambda _: json_response(
        {"error": {"message": "No auth credentials found", "code": 401}}, status=401))
    result = run_models("--provider", "openrouter", OPENROUTER_BASE_URL=loopback.url, OPENROUTER_API_KEY="sk-or-bad-7171")
    assert result.returncode == 3 and result.stdout == ""
    assert result.stderr.startswith("error: OpenRouter failed:") and "Traceback" not in result.stderr
    assert "sk-or-bad-7171" not in result.stderr


@pytest.mark.parametrize("listing", [(), ("--json",)])
def test_a_local_server_asked_for_that_does_not_answer_exits_3(listing):
    result = run_models("--provider", "ollama", *listing, OLLAMA_HOST=closed_url().removesuffix("/v1"))
    assert result.returncode == 3 and result.stdout == ""
    assert result.stderr.startswith("error: Ollama failed: nothing answered at http://127.0.0.1:")


def test_a_failing_provider_among_others_still_lists_the_rest_and_exits_3(loopback):
    serve_ollama(loopback)
    loopback.set_handler("/models", lambda _: json_response({"error": {"message": "Insufficient credits", "code": 402}}, status=402))
    result = run_models(OLLAMA_HOST=loopback.url, OPENROUTER_BASE_URL=loopback.url, OPENROUTER_API_KEY="sk-or-test-5150")
    assert result.returncode == 3
    assert "Ollama (ollama)" in result.stdout and "OpenRouter" not in result.stdout
    assert "error: OpenRouter failed:" in result.stderr


@pytest.mark.parametrize("kind, model, served", [
    ("lmstudio", "qwen/qwen3-8b", 32_768),       # /api/v0/models max_context_length
    ("llamacpp", "Qwen3-8B-Q4_K_M.gguf", 16_384),  # /props default_generation_settings.n_ctx
    ("vllm", "Qwen/Qwen3-8B", 8_192),            # /v1/models max_model_len
])
def test_local_servers_report_the_window_they_run(kind, model, served):
    from tests.support.local_servers import LocalModel, LocalServer

    with LocalServer(kind, [LocalModel(model, context_length=served)]) as server:
        result = run_models("--provider", kind, "--json", **{f"{kind.upper()}_BASE_URL": server.base_url})
    assert result.returncode == 0, result.stderr
    [profile] = json.loads(result.stdout)
    assert (profile["provider"], profile["model"]) == (kind, model)
    assert profile["context_window"]["value"] == served and profile["context_window"]["source"] == "provider"
    assert profile["thinking"] == {"value": "think_tags", "source": "table", "note": profile["thinking"]["note"]}
    assert {"output_limit", "tools", "images"} <= profile.keys() and profile["tools"]["value"] in ("native", "text")
