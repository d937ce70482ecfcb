"""The local-server emulators (tests/support/local_servers) read by the real openai SDK and httpx: each server's model
lists and probe, streamed text, thinking as a field and as tags, native tool calls, and each server's refusal of
`tools` with the status and body researched in docs/local_servers.md."""

from __future__ import annotations

import re
from typing import Any

import httpx
import openai
import pytest
import pytest_asyncio

from tests.support.local_servers import LocalModel, LocalServer, ToolCall
from tests.support.local_servers.dialects import LMSTUDIO_TEMPLATE_ERROR

KINDS = ["lmstudio", "llamacpp", "vllm"]
HI = [{"role": "user", "content": "hi"}]
WEATHER = [{"type": "function", "function": {"name": "get_weather", "description": "Weather in a city",
                                             "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]


@pytest.fixture(params=KINDS)
def server(request):
    with LocalServer(request.param) as emulated:
        yield emulated


@pytest_asyncio.fixture
async def sdk():
    """Builds openai.AsyncOpenAI clients aimed at an emulator and closes them afterwards."""
    made: list[openai.AsyncOpenAI] = []

    def build(emulated: LocalServer, key: str = "x") -> openai.AsyncOpenAI:
        made.append(openai.AsyncOpenAI(base_url=emulated.base_url, api_key=key, max_retries=0, timeout=10.0))
        return made[-1]

    yield build
    for client in made:
        await client.close()


async def stream_chunks(client: openai.AsyncOpenAI, model: str, **kw: Any) -> list[Any]:
    stream = await client.chat.completions.create(model=model, messages=HI, stream=True, **kw)
    return [chunk async for chunk in stream]


def deltas(chunks: list[Any], field: str) -> list[str]:
    """Every non-empty value of `field` on the chunks' deltas, in order (extra fields read from `model_extra`)."""
    found = []
    for chunk in chunks:
        for choice in chunk.choices:
            value = getattr(choice.delta, field, None) or (choice.delta.model_extra or {}).get(field)
            if value:
                found.append(value)
    return found


# --- model lists and probes ------------------------------------------------------------------


@pytest.mark.asyncio
async def test_lmstudio_lists_models_the_openai_way_and_in_its_rest_api(sdk) -> None:
    models = [LocalModel("qwen/qwen3-8b", context_length=40960), LocalModel("google/gemma-3-4b", kind="vlm", loaded=False, tool_use=False),
              LocalModel("text-embedding-nomic-embed-text-v1.5", kind="embeddings", arch="nomic-bert", quantization="Q4_0", context_length=2048)]
    with LocalServer("lmstudio", models) as server:
        listed = [m async for m in sdk(server).models.list()]
        assert [m.id for m in listed] == [m.id for m in models] and {m.owned_by for m in listed} == {"organization_owner"}
        async with httpx.AsyncClient() as http:
            rest = (await http.get(server.url + "/api/v0/models")).json()
    assert rest["object"] == "list"
    assert rest["data"][0] == {"id": "qwen/qwen3-8b", "object": "model", "type": "llm", "publisher": "lmstudio-community", "arch": "qwen3",
                               "compatibility_type": "gguf", "quantization": "Q4_K_M", "state": "loaded", "max_context_length": 40960,
                               "capabilities": ["tool_use"]}
    assert [(m["type"], m["state"], m.get("capabilities")) for m in rest["data"][1:]] == [("vlm", "not-loaded", []), ("embeddings", "loaded", None)]
    with LocalServer("lmstudio", models, jit=False) as server:
        assert [m.id async for m in sdk(server).models.list()] == ["qwen/qwen3-8b", "text-embedding-nomic-embed-text-v1.5"]


@pytest.mark.asyncio
async def test_llamacpp_lists_its_one_model_with_meta_and_props(sdk) -> None:
    with LocalServer("llamacpp", [LocalModel("qwen3-8b", context_length=8192, path="/models/Qwen3-8B-Q4_K_M.gguf")]) as server:
        listed = [m async for m in sdk(server).models.list()]
        async with httpx.AsyncClient() as http:
            raw, props, unversioned = [(await http.get(server.url + path)).json() for path in ("/v1/models", "/props", "/models")]
    assert unversioned == raw
    assert [(m.id, m.owned_by) for m in listed] == [("qwen3-8b", "llamacpp")]
    assert listed[0].model_extra["meta"]["n_ctx_train"] == 8192 and listed[0].model_extra["meta"]["n_params"] > 0
    assert raw["models"][0]["name"] == "qwen3-8b" and raw["models"][0]["capabilities"] == ["completion"] and raw["object"] == "list"
    assert props["default_generation_settings"]["n_ctx"] == 8192 and props["model_path"] == "/models/Qwen3-8B-Q4_K_M.gguf"
    assert "{%" in props["chat_template"]


@pytest.mark.asyncio
async def test_vllm_lists_served_models_with_max_model_len_and_root(sdk) -> None:
    with LocalServer("vllm", [LocalModel("qwen3", context_length=16384, path="Qwen/Qwen3-8B")]) as server:
        (card,) = [m async for m in sdk(server).models.list()]
    assert (card.id, card.owned_by, card.model_extra["root"], card.model_extra["max_model_len"]) == ("qwen3", "vllm", "Qwen/Qwen3-8B", 16384)
    assert card.model_extra["parent"] is None and card.model_extra["permission"][0]["object"] == "model_permission"


def test_each_server_answers_its_own_probe() -> None:
    with LocalServer("llamacpp") as llama, LocalServer("vllm") as vllm, LocalServer("lmstudio") as lmstudio:
        health = httpx.get(llama.url + "/health")
        assert (health.status_code, health.json()) == (200, {"status": "ok"}) and httpx.get(llama.base_url + "/health").status_code == 200
        llama.loading = True
        loading = httpx.get(llama.url + "/health")
        assert (loading.status_code, loading.json()) == (503, {"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}})
        vllm_health = httpx.get(vllm.url + "/health")
        assert (vllm_health.status_code, vllm_health.content) == (200, b"")
        assert httpx.get(lmstudio.base_url + "/models").status_code == 200


def test_unknown_paths_are_answered_as_each_server_does() -> None:
    """LM Studio says 200 with an error string, so a probe of /health there cannot trust the status alone."""
    with LocalServer("llamacpp") as llama, LocalServer("vllm") as vllm, LocalServer("lmstudio") as lmstudio:
        answers = [httpx.get(s.url + "/health" if s is lmstudio else s.url + "/nope") for s in (lmstudio, llama, vllm)]
    assert [(a.status_code, a.json()) for a in answers] == [
        (200, {"error": "Unexpected endpoint or method. (GET /health)"}),
        (404, {"error": {"code": 404, "message": "File Not Found", "type": "not_found_error"}}),
        (404, {"detail": "Not Found"}),
    ]


# --- streamed replies ----------------------------------------------------------------------


@pytest.mark.asyncio
async def test_text_streams_one_delta_per_piece_and_the_sdk_reads_it(server: LocalServer, sdk) -> None:
    pieces = ["Bon", "jour", " 東京", " 🌤️"]
    server.reply(pieces)
    chunks = await stream_chunks(sdk(server, key="sk-local"), server.models[0].id, stream_options={"include_usage": True})
    assert deltas(chunks, "content") == pieces
    assert {c.id for c in chunks} == {chunks[0].id} and chunks[0].id.startswith("chatcmpl-")
    assert {c.object for c in chunks} == {"chat.completion.chunk"} and chunks[0].choices[0].delta.role == "assistant"
    assert [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason] == ["stop"]
    assert chunks[-1].choices == [] and chunks[-1].usage.total_tokens == chunks[-1].usage.prompt_tokens + chunks[-1].usage.completion_tokens
    assert server.chat_requests[0].headers["authorization"] == "Bearer sk-local" and server.chat_requests[0].json()["stream"] is True


def test_frames_are_compact_data_events_ending_in_done(server: LocalServer) -> None:
    server.reply(["a"])
    with httpx.stream("POST", server.base_url + "/chat/completions", json={"model": server.models[0].id, "messages": HI, "stream": True}) as r:
        body = r.read().decode()
        assert r.headers["content-type"].startswith("text/event-stream")
    events = body.split("\n\n")
    assert events[-2:] == ["data: [DONE]", ""] and all(e.startswith("data: {") and ", " not in e for e in events[:-2])
    assert '"usage"' not in body, "without stream_options no usage chunk is sent"


@pytest.mark.asyncio
async def test_usage_without_include_usage_differs_by_server(sdk) -> None:
    """vLLM's StreamOptions.include_usage defaults to true: any `stream_options` object asks for usage there."""
    for kind, sends_usage in (("vllm", True), ("llamacpp", False), ("lmstudio", False)):
        with LocalServer(kind) as server:
            server.reply(["ok"])
            chunks = await stream_chunks(sdk(server), server.models[0].id, stream_options={})
            assert (chunks[-1].usage is not None) is sends_usage, kind


@pytest.mark.asyncio
async def test_each_server_shapes_its_chunks_its_own_way(sdk) -> None:
    shapes = {}
    for kind in KINDS:
        with LocalServer(kind) as server:
            server.reply(["x"])
            chunks = await stream_chunks(sdk(server), "asked-for" if kind != "vllm" else server.models[0].id)
            shapes[kind] = (chunks[0].choices[0].delta.content, chunks[0].system_fingerprint, chunks[0].model, len(chunks[0].id))
    assert shapes["llamacpp"] == (None, "b7000-1a2b3c4d", "Qwen3-8B-Q4_K_M.gguf", 41), "role alone, content null; the loaded model's name"
    assert shapes["lmstudio"] == ("x", "asked-for", "asked-for", 30), "the role rides on the first content delta"
    assert shapes["vllm"] == ("", None, "Qwen/Qwen3-8B", 41)


@pytest.mark.asyncio
@pytest.mark.parametrize(("kind", "fields"), [("lmstudio", ("reasoning_content",)), ("llamacpp", ("reasoning_content",)), ("vllm", ("reasoning",)),
                                              ("vllm", ("reasoning_content",)), ("vllm", ("reasoning", "reasoning_content"))])
async def test_reasoning_as_a_field(kind: str, fields: tuple[str, ...], sdk) -> None:
    with LocalServer(kind, reasoning="field", reasoning_fields=fields if kind == "vllm" else None) as server:
        server.reply(["42"], reasoning=["Let me ", "think."])
        chunks = await stream_chunks(sdk(server), server.models[0].id)
    for field in ("reasoning", "reasoning_content"):
        assert deltas(chunks, field) == (["Let me ", "think."] if field in fields else []), field
    assert deltas(chunks, "content") == ["42"]


@pytest.mark.asyncio
async def test_reasoning_as_tags_streams_think_tags_in_content(server: LocalServer, sdk) -> None:
    server.reasoning = "tags"
    server.reply(["The answer."], reasoning=["Let me ", "think."])
    chunks = await stream_chunks(sdk(server), server.models[0].id)
    assert deltas(chunks, "content") == ["<think>", "Let me ", "think.", "</think>", "The answer."]
    assert deltas(chunks, "reasoning_content") == deltas(chunks, "reasoning") == []


def test_a_server_without_thinking_takes_no_reasoning_pieces() -> None:
    with pytest.raises(ValueError, match="does not think"):
        LocalServer("vllm", reasoning="none").reply(["x"], reasoning=["y"])
    with pytest.raises(TypeError, match="list of pieces"):
        LocalServer("vllm").reply("whole string")  # type: ignore[arg-type]


ID_STYLE = {"lmstudio": r"\d{9}", "llamacpp": r"[A-Za-z0-9]{32}", "vllm": r"chatcmpl-tool-[0-9a-f]{32}"}


@pytest.mark.asyncio
async def test_native_tool_calls_are_reassembled_by_the_sdk(server: LocalServer, sdk) -> None:
    server.reply(["Checking."], calls=[ToolCall("get_weather", {"city": "Paris"}), ToolCall("get_time", ['{"tz": ', '"Europe/', 'Paris"}'])])
    client = sdk(server)
    async with client.chat.completions.stream(model=server.models[0].id, messages=HI, tools=WEATHER) as stream:
        completion = await stream.get_final_completion()
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls" and choice.message.content == "Checking."
    calls = choice.message.tool_calls
    assert [(c.function.name, c.function.arguments) for c in calls] == [("get_weather", '{"city": "Paris"}'), ("get_time", '{"tz": "Europe/Paris"}')]
    assert all(re.fullmatch(ID_STYLE[server.kind], c.id) for c in calls) and calls[0].id != calls[1].id
    assert server.chat_requests[0].json()["tools"] == WEATHER


@pytest.mark.asyncio
async def test_tool_call_arguments_arrive_as_each_server_splits_them(sdk) -> None:
    """llama-server sends the first fragment with the name, LM Studio an empty string, vLLM no `arguments` at all."""
    heads = {}
    for kind in KINDS:
        with LocalServer(kind) as server:
            server.reply(calls=[ToolCall("f", ["{", "}"], id="call-1")])
            chunks = await stream_chunks(sdk(server), server.models[0].id)
        call_deltas = [c.choices[0].delta.tool_calls[0] for c in chunks if c.choices and c.choices[0].delta.tool_calls]
        heads[kind] = [(d.id, d.function.name, d.function.arguments) for d in call_deltas]
    assert heads == {"llamacpp": [("call-1", "f", "{"), (None, None, "}")],
                     "lmstudio": [("call-1", "f", ""), (None, None, "{"), (None, None, "}")],
                     "vllm": [("call-1", "f", None), (None, None, "{"), (None, None, "}")]}


@pytest.mark.asyncio
async def test_a_reply_without_stream_is_one_chat_completion(server: LocalServer, sdk) -> None:
    server.reply(["Hi", " there"], calls=[ToolCall("get_weather", '{"city":"Oslo"}')], finish_reason="length")
    completion = await sdk(server).chat.completions.create(model=server.models[0].id, messages=HI)
    choice = completion.choices[0]
    assert (completion.object, choice.message.content, choice.finish_reason) == ("chat.completion", "Hi there", "length")
    assert [(c.function.name, c.function.arguments) for c in choice.message.tool_calls] == [("get_weather", '{"city":"Oslo"}')]


# --- refusals ----------------------------------------------------------------------------


REFUSALS = {
    "llamacpp": (openai.InternalServerError, 500, {"error": {"code": 500, "message": "tools param requires --jinja flag", "type": "server_error"}}),
    "vllm": (openai.BadRequestError, 400, {"error": {"message": '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
                                                     "type": "BadRequestError", "param": None, "code": 400}}),
    "lmstudio": (openai.BadRequestError, 400, {"error": LMSTUDIO_TEMPLATE_ERROR}),
}


@pytest.mark.asyncio
async def test_a_server_without_tools_refuses_them_and_the_retry_without_tools_gets_the_reply(sdk) -> None:
    for kind, (error_type, status, body) in REFUSALS.items():
        with LocalServer(kind, tools="refuse") as server:
            server.reply(["Plain answer."])
            client = sdk(server)
            with pytest.raises(error_type) as caught:
                await stream_chunks(client, server.models[0].id, tools=WEATHER)
            assert (caught.value.status_code, caught.value.response.json()) == (status, body), kind
            assert server.pending == 1, "a refused request uses up no scripted reply"
            chunks = await stream_chunks(client, server.models[0].id)
            assert deltas(chunks, "content") == ["Plain answer."]
            assert ["tools" in r.json() for r in server.chat_requests] == [True, False], "the refused request was recorded too"


def test_refusal_edge_cases() -> None:
    chat = {"messages": HI, "stream": True}
    with LocalServer("llamacpp", tools="refuse") as llama, LocalServer("vllm", tools="refuse") as vllm, \
            LocalServer("vllm", tools="refuse", flat_errors=True) as old_vllm:
        required = httpx.post(llama.base_url + "/chat/completions", json={**chat, "tool_choice": "required"})
        assert (required.status_code, required.json()["error"]["message"]) == (500, "tool_choice param requires --jinja flag")
        vllm.reply(["ok"])
        none = httpx.post(vllm.base_url + "/chat/completions", json={**chat, "model": vllm.models[0].id, "tools": WEATHER, "tool_choice": "none"})
        assert none.status_code == 200, 'tool_choice "none" drops the tools instead of refusing them'
        forced = httpx.post(vllm.base_url + "/chat/completions", json={**chat, "model": vllm.models[0].id, "tools": WEATHER, "tool_choice": "required"})
        assert forced.json()["error"]["message"] == 'tool_choice="required" requires --tool-call-parser to be set'
        flat = httpx.post(old_vllm.base_url + "/chat/completions", json={**chat, "model": old_vllm.models[0].id, "tools": WEATHER})
        assert (flat.status_code, flat.json()) == (400, {"object": "error", "message": REFUSALS["vllm"][2]["error"]["message"],
                                                         "type": "BadRequestError", "param": None, "code": 400})


@pytest.mark.asyncio
async def test_vllm_refuses_a_model_it_does_not_serve_and_llamacpp_ignores_the_name(sdk) -> None:
    with LocalServer("vllm") as vllm, LocalServer("llamacpp") as llama:
        with pytest.raises(openai.NotFoundError) as caught:
            await stream_chunks(sdk(vllm), "local-model")
        assert caught.value.response.json()["error"] == {"message": "The model `local-model` does not exist.", "type": "NotFoundError",
                                                         "param": "model", "code": 404}
        llama.reply(["any name will do"])
        assert deltas(await stream_chunks(sdk(llama), "local-model"), "content") == ["any name will do"]


def test_a_chat_request_nobody_scripted_is_a_server_error(server: LocalServer) -> None:
    answer = httpx.post(server.base_url + "/chat/completions", json={"model": server.models[0].id, "messages": HI})
    assert answer.status_code == 500 and "no reply was scripted" in answer.text


def test_replies_are_byte_for_byte_reproducible() -> None:
    bodies = []
    for _ in range(2):
        with LocalServer("llamacpp", seed=7) as server:
            server.reply(["a"], calls=[ToolCall("f", {"x": 1})])
            bodies.append(httpx.post(server.base_url + "/chat/completions", json={"messages": HI, "stream": True}).content)
    assert bodies[0] == bodies[1]
