"""Each vendor's real context-length error body recognised (core/context/overflow.py), alone and through the real
provider (its SDK or httpx) against a loopback server answering with that body: the reply's error carries
`overflow=True` and says what happens next."""

from __future__ import annotations

import json

import pytest

from desktop_copilot.core.context.overflow import is_context_overflow
from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.models import Message
from desktop_copilot.core.keys.secrets import Secret
from desktop_copilot.core.providers.anthropic_provider import AnthropicProvider
from desktop_copilot.core.providers.base import ProviderRequest, ToolSpec
from desktop_copilot.core.providers.chat_completions_provider import ChatCompletionsProvider
from desktop_copilot.core.providers.gemini_provider import GeminiProvider
from tests.support.chat_completions_support import CHAT, chat_chunk
from tests.support.gemini_support import STREAM, gemini_error
from tests.support.loopback import anthropic_error, json_response, sse_response

KEY = "sk-test-overflow-0123456789abcdef"
WORDS = "The conversation is longer than the model's context window"

# --- the bodies, as each vendor writes them (sources in overflow.py's docstring) --------------------------------

ANTHROPIC_TOO_LONG = {"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long: 215000 tokens > 200000 maximum"},
                      "request_id": "req_011CVjxiYzEFcAQC4Fk87zw2"}
ANTHROPIC_WITH_MAX_TOKENS = {"type": "error", "error": {"type": "invalid_request_error", "message": (
    "input length and `max_tokens` exceed context limit: 178959 + 64000 > 200000, decrease input length or `max_tokens` and try again")}}
OPENAI = {"error": {"message": "This model's maximum context length is 128000 tokens. However, your messages resulted in 202868 tokens "
                               "(202767 in the messages, 101 in the functions). Please reduce the length of the messages or functions.",
                    "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}
OPENAI_NEW = {"error": {"message": "Your input exceeds the context window of this model. Please adjust your input and try again.",
                        "type": "invalid_request_error", "param": "input", "code": "context_length_exceeded"}}
VLLM_REQUESTED = {"error": {"message": "This model's maximum context length is 4096 tokens. However, you requested 4222 tokens (1222 in "
                                       "the messages, 3000 in the completion). Please reduce the length of the messages or completion.",
                            "type": "BadRequestError", "param": None, "code": 400}}
VLLM_INPUT_FLAT = {"object": "error", "message": "This model's maximum context length is 8192 tokens. However, your request has 9000 "
                   "input tokens. Please reduce the length of the input messages.", "type": "BadRequestError", "param": None, "code": 400}
VLLM_MAX_TOKENS = {"error": {"message": "'max_tokens' or 'max_completion_tokens' is too large: 8000. This model's maximum context length "
                                        "is 4096 tokens and your request has 2778 input tokens (8000 > 4096 - 2778).",
                             "type": "BadRequestError", "param": None, "code": 400}}
VLLM_V1 = {"error": {"message": "The decoder prompt (length 8825) is longer than the maximum model length of 8192. Make sure that "
                                "`max_model_len` is no smaller than the number of text tokens.", "type": "BadRequestError", "param": None, "code": 400}}
LLAMACPP = {"error": {"code": 400, "message": "request (4476 tokens) exceeds the available context size (4096 tokens), try increasing it",
                      "type": "exceed_context_size_error", "n_prompt_tokens": 4476, "n_ctx": 4096}}
LLAMACPP_OLD = {"error": {"code": 400, "message": "the request exceeds the available context size, try increasing it",
                          "type": "invalid_request_error"}}
LMSTUDIO_KEEP = {"error": "The number of tokens to keep from the initial prompt is greater than the context length (n_keep: 13055>= "
                          "n_ctx: 4096). Try to load the model with a larger context length, or provide a shorter input."}
LMSTUDIO_FIRST = {"error": "Trying to keep the first 15857 tokens when context the overflows. However, the model is loaded with context "
                           "length of only 4096 tokens, which is not enough. Try to load the model with a larger context length, or "
                           "provide a shorter input"}
DEEPSEEK = {"error": {"message": "This model's maximum context length is 131072 tokens. However, you requested 131134 tokens (122942 in "
                                 "the messages, 8192 in the completion). Please reduce the length of the messages or completion.",
                      "type": "invalid_request_error", "param": None, "code": "invalid_request_error"}}
GROQ = {"error": {"message": "Please reduce the length of the messages or completion.", "type": "invalid_request_error",
                  "param": "messages", "code": "context_length_exceeded"}}
OPENROUTER = {"error": {"message": "This endpoint's maximum context length is 204800 tokens. However, you requested about 212000 tokens "
                                   "(~160000 of text input, ~12000 of tool input, 32000 in the output). Please reduce the length of either "
                                   "one, or use the \"middle-out\" transform to compress your prompt automatically.",
                        "code": 400, "metadata": {"provider_name": "Chutes"}}}
XAI = {"error": "This model's maximum prompt length is 131072 but the request contains 136973 tokens.", "code": "Client specified an invalid argument"}
MOONSHOT = {"error": {"message": "Invalid request: Your request exceeded model token limit: 262144 (requested: 269030)",
                      "type": "invalid_request_error"}}
ZHIPU = {"error": {"code": "1261", "message": "Prompt exceeds max length"}}
GEMINI = {"error": {"code": 400, "message": "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).",
                    "status": "INVALID_ARGUMENT"}}

CHAT_COMPLETIONS_BODIES = {
    "openai": OPENAI, "openai_responses_wording": OPENAI_NEW, "vllm_requested": VLLM_REQUESTED, "vllm_input_flat": VLLM_INPUT_FLAT,
    "vllm_max_tokens": VLLM_MAX_TOKENS, "vllm_v1": VLLM_V1, "llamacpp": LLAMACPP, "llamacpp_old": LLAMACPP_OLD,
    "lmstudio_keep": LMSTUDIO_KEEP, "lmstudio_first": LMSTUDIO_FIRST, "deepseek": DEEPSEEK, "groq": GROQ, "openrouter": OPENROUTER,
    "xai": XAI, "moonshot": MOONSHOT, "zhipu": ZHIPU,
}


# --- recognised alone -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("body", [ANTHROPIC_TOO_LONG, ANTHROPIC_WITH_MAX_TOKENS], ids=["too_long", "with_max_tokens"])
def test_anthropic_bodies(body):
    assert is_context_overflow("anthropic", 400, body)
    assert is_context_overflow("anthropic", 400, json.dumps(body).encode())  # as the bytes of the answer
    assert is_context_overflow("anthropic", 400, body["error"])  # as an SDK hands over its error object


@pytest.mark.parametrize("name", sorted(CHAT_COMPLETIONS_BODIES))
def test_chat_completions_bodies(name):
    body = CHAT_COMPLETIONS_BODIES[name]
    assert is_context_overflow("chat_completions", 400, body)
    assert is_context_overflow("chat_completions", 400, json.dumps(body))
    inner = body.get("error", body)
    assert is_context_overflow("chat_completions", 400, inner)  # the openai SDK's `body` is the `error` object (or its text)


def test_gemini_body_also_wrapped_in_a_list_as_some_proxies_do():
    assert is_context_overflow("gemini", 400, GEMINI)
    assert is_context_overflow("gemini", 400, json.dumps([GEMINI]).encode())


def test_an_error_inside_a_stream_has_no_status():
    assert is_context_overflow("chat_completions", None, VLLM_INPUT_FLAT)
    assert is_context_overflow("anthropic", 200, ANTHROPIC_TOO_LONG)


@pytest.mark.parametrize("wire,status,body", [
    ("chat_completions", 429, {"error": {"message": "Request too large for gpt-4o in organization org-x on tokens per min (TPM): Limit "
                                                    "30000, Requested 50000.", "type": "tokens", "code": "rate_limit_exceeded"}}),
    ("chat_completions", 400, {"error": {"message": "max_tokens is too large: 50000. This model supports at most 16384 completion tokens.",
                                         "type": "invalid_request_error", "code": None}}),
    ("anthropic", 400, {"type": "error", "error": {"type": "invalid_request_error", "message": "messages: text content blocks must be non-empty"}}),
    ("anthropic", 413, {"type": "error", "error": {"type": "request_too_large", "message": "Request exceeds the maximum allowed number of bytes."}}),
    ("anthropic", 529, {"type": "error", "error": {"type": "overloaded_error", "message": "prompt is too long for the queue"}}),
    ("gemini", 400, {"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT"}}),
    ("chat_completions", 500, {"error": {"message": "This model's maximum context length is 4096 tokens.", "code": 500}}),
    ("gemini", 400, ANTHROPIC_TOO_LONG),  # another vendor's words are not Gemini's
    ("chat_completions", 400, {"error": {"message": "Invalid 'messages[3].content': the text says prompt is too long",
                                         "type": "invalid_request_error", "param": "messages"},
                               "echo": "This model's maximum context length is 1 tokens"}),  # only the message is read
], ids=["rate_limit", "output_limit", "empty_block", "bytes", "overloaded", "bad_key", "server_error", "other_vendor", "echo"])
def test_other_errors_are_not_overflow(wire, status, body):
    assert not is_context_overflow(wire, status, body)


# --- through the real providers ---------------------------------------------------------------------------------


SEARCH = ToolSpec("web_search", "Search the web.", {"type": "object", "properties": {"query": {"type": "string"}}})


async def final_error(provider, model: str, *, tools: list[ToolSpec] = ()) -> ev.Error:
    request = ProviderRequest(model=model, provider=provider.log_name, messages=[Message.user("a long conversation")], tools=list(tools))
    events = [event async for event in provider.stream(request)]
    assert isinstance(events[-1], ev.Error), events[-1]
    return events[-1]


@pytest.mark.asyncio
@pytest.mark.parametrize("body", [ANTHROPIC_TOO_LONG, ANTHROPIC_WITH_MAX_TOKENS], ids=["too_long", "with_max_tokens"])
async def test_anthropic_overflow_through_the_sdk(loopback, providers, body):
    loopback.enqueue("/v1/messages", anthropic_error(400, "invalid_request_error", body["error"]["message"]))
    error = await final_error(providers(AnthropicProvider(Secret(KEY), loopback.url, max_retries=3, timeout=10.0)), "claude-sonnet-4-6")
    assert error.overflow and error.status_code == 400 and error.reason == "error"
    assert error.message.startswith(WORDS) and body["error"]["message"][:40] in error.message
    assert "the Anthropic API answered 400" in error.message and "Compact now" in error.message
    assert len(loopback.requests_to("/v1/messages")) == 1  # not retried: the same request would fail the same way


@pytest.mark.asyncio
@pytest.mark.parametrize("name", sorted(CHAT_COMPLETIONS_BODIES))
async def test_chat_completions_overflow_through_the_sdk(loopback, providers, name):
    body = CHAT_COMPLETIONS_BODIES[name]
    loopback.enqueue(CHAT, json_response(body, status=400))
    vendor = {"lmstudio_keep": "lmstudio", "lmstudio_first": "lmstudio", "llamacpp": "llamacpp", "llamacpp_old": "llamacpp"}.get(
        name, "vllm" if name.startswith("vllm") else name.split("_")[0])
    provider = providers(ChatCompletionsProvider(Secret(KEY), loopback.url + "/v1", vendor=vendor, max_retries=3, timeout=10.0))
    error = await final_error(provider, "some-model", tools=[SEARCH])
    assert error.overflow and error.status_code == 400 and error.message.startswith(WORDS)
    assert len(loopback.requests_to(CHAT)) == 1  # neither retried nor sent again with the tools as text
    assert not provider.uses_text_tools("some-model")


@pytest.mark.asyncio
async def test_vllm_overflow_written_into_the_stream(loopback, providers):
    """vLLM's serving_chat writes an error met while streaming as a `data:` event after the 200 (its flat shape before
    v0.10.1)."""
    chunks = [f"data: {json.dumps(chat_chunk({'role': 'assistant', 'content': ''}))}\n\n".encode(),
              f"data: {json.dumps({'error': VLLM_INPUT_FLAT})}\n\n".encode(), b"data: [DONE]\n\n"]
    loopback.enqueue(CHAT, sse_response(chunks))
    provider = providers(ChatCompletionsProvider(None, loopback.url + "/v1", vendor="vllm", max_retries=0, timeout=10.0))
    error = await final_error(provider, "Qwen/Qwen3-8B")
    assert error.overflow and error.message.startswith(WORDS) and "9000 input tokens" in error.message


@pytest.mark.asyncio
async def test_gemini_overflow_over_httpx(loopback, providers):
    loopback.enqueue(STREAM, gemini_error(400, GEMINI["error"]["message"], "INVALID_ARGUMENT"))
    error = await final_error(providers(GeminiProvider(Secret(KEY), loopback.url, max_retries=3, timeout=10.0)), "gemini-test")
    assert error.overflow and error.status_code == 400
    assert error.message.startswith(WORDS) and "Gemini answered 400" in error.message and "(1048576)" in error.message


@pytest.mark.asyncio
async def test_an_error_that_is_not_overflow_keeps_its_words(loopback, providers):
    loopback.enqueue("/v1/messages", anthropic_error(400, "invalid_request_error", "messages: text content blocks must be non-empty"))
    error = await final_error(providers(AnthropicProvider(Secret(KEY), loopback.url, max_retries=0, timeout=10.0)), "claude-sonnet-4-6")
    assert not error.overflow and error.message.startswith("The Anthropic API refused the request (400")


@pytest.mark.asyncio
async def test_an_anthropic_error_event_saying_so_after_the_200(loopback, providers):
    """Built stream: Anthropic measures the prompt before it answers 200, so no recording exists; should the length ever
    be refused in the stream (an SSE `error` event, as an overload is), it is read the same way."""
    events = [f"event: error\ndata: {json.dumps(ANTHROPIC_TOO_LONG)}\n\n".encode()]
    loopback.enqueue("/v1/messages", sse_response(events))
    error = await final_error(providers(AnthropicProvider(Secret(KEY), loopback.url, max_retries=0, timeout=10.0)), "claude-sonnet-4-6")
    assert error.overflow and error.status_code == 200
    assert error.message.startswith(WORDS) and "the Anthropic API said: prompt is too long" in error.message


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", ["llamacpp", "vllm", "lmstudio"])
async def test_a_local_server_with_a_small_window(providers, kind):
    """The local server emulators (tests/support/local_servers) started with a small context answer with their own
    overflow body; the provider says so with `overflow` set."""
    from tests.support.local_servers import LocalServer

    with LocalServer(kind, window=300) as server:
        provider = providers(ChatCompletionsProvider(None, server.base_url, vendor=kind, max_retries=0, timeout=10.0))
        request = ProviderRequest(model=server.models[0].id, provider=kind, messages=[Message.user("a long question " * 400)],
                                  max_tokens=100)
        events = [event async for event in provider.stream(request)]
    assert isinstance(events[-1], ev.Error) and events[-1].overflow and events[-1].status_code == 400
    assert events[-1].message.startswith(WORDS)
