"""Ollama's `options.num_ctx`: large enough for what is sent plus the output reserve, at least 8,192, at most the
model's known window, in steps (each change reloads the model); the window reaching the wire from the agent loop's
options, against a loopback server speaking Ollama's NDJSON."""

from __future__ import annotations

import httpx
import pytest

from desktop_copilot.core.agent.loop import AgentLoop, RunOptions
from desktop_copilot.core.context.tokens import calibrate, estimate_tokens, factor, forget_calibration, message_tokens
from desktop_copilot.core.conversation.models import Message, MessageStatus, Role, TextBlock, ToolCallBlock, ToolCallStatus
from desktop_copilot.core.providers.base import ProviderRequest, ToolSpec
from desktop_copilot.core.providers.ollama_provider import OllamaProvider
from desktop_copilot.core.providers.ollama_wire import MIN_NUM_CTX, build_body
from desktop_copilot.core.tools.base import ToolContext
from tests.support.ollama_support import CHAT, text_reply

STEPS = [8_192, 12_288, 16_384, 24_576, 32_768, 49_152, 65_536, 98_304, 131_072, 196_608, 262_144]
PAGE = "The quick brown fox jumps over the lazy dog and keeps running through the field. " * 50  # ~1,000 tokens


def request(messages: list[Message], **kw) -> ProviderRequest:
    kw.setdefault("max_tokens", 2_048)
    return ProviderRequest(model="llama3.2", messages=messages, provider="ollama", **kw)


def long_history(pages: int) -> list[Message]:
    """A conversation of `pages` turns of about 1,000 tokens each, ending with the user's question."""
    history: list[Message] = []
    for n in range(pages):
        history.append(Message.user(f"page {n}: {PAGE}"))
        history.append(Message(role=Role.ASSISTANT, blocks=[TextBlock(text="Noted.")], status=MessageStatus.COMPLETED, provider="ollama"))
    history.append(Message.user("Summarise every page."))
    return history


def needed(history: list[Message], reserve: int) -> int:
    """What the request needs by the estimate the wire uses (core/context/tokens.py), without its margin."""
    return sum(message_tokens(message, "ollama") for message in history) + reserve


def num_ctx(body: dict) -> int:
    return body["options"]["num_ctx"]


def test_a_small_request_asks_for_the_smallest_window():
    body = build_body(request([Message.user("hi")]))
    assert body["options"] == {"num_predict": 2_048, "num_ctx": MIN_NUM_CTX}


def test_a_large_history_gets_the_smallest_step_that_holds_it_and_the_reply():
    history = long_history(40)  # ~41,000 tokens
    size = num_ctx(build_body(request(history, max_tokens=4_096)))
    assert size in STEPS and size >= needed(history, 4_096) > 32_768
    assert STEPS[STEPS.index(size) - 1] < needed(history, 4_096) * 1.1 + 4_096  # not a step more than the margin asks


def test_tools_and_the_system_prompt_count():
    tools = [ToolSpec(f"tool_{n}", "Looks things up in the library catalogue. " * 300, {"type": "object"}) for n in range(4)]
    history = long_history(4)
    without = num_ctx(build_body(request(history)))
    with_tools = num_ctx(build_body(request(history, tools=tools, system=PAGE)))
    as_text = num_ctx(build_body(request(history, tools=tools, system=PAGE), prompt_tools=True))
    assert without == 8_192 and with_tools > without and as_text > without


def test_the_output_reserve_counts():
    assert num_ctx(build_body(request([Message.user("hi")], max_tokens=32_000))) == 32_768


def test_a_known_window_caps_it_even_below_the_minimum():
    history = long_history(40)
    uncapped = num_ctx(build_body(request(history)))
    assert num_ctx(build_body(request(history, context_window=32_768))) == 32_768 < uncapped
    assert num_ctx(build_body(request([Message.user("hi")], context_window=4_096))) == 4_096
    assert num_ctx(build_body(request(history, context_window=262_144))) == uncapped  # a large window is not all taken


def test_a_tool_result_counts_as_the_model_gets_it():
    def history(model_result: str | None) -> list[Message]:
        call = ToolCallBlock(id="call_1", name="read", arguments={}, status=ToolCallStatus.DONE, result=PAGE * 60, model_result=model_result)
        return [Message.user("read it"), Message(role=Role.ASSISTANT, blocks=[call], status=MessageStatus.COMPLETED, provider="ollama"),
                Message.user("and?")]

    assert num_ctx(build_body(request(history(None)))) >= needed(history(None), 2_048) > 40_000  # the whole result
    assert num_ctx(build_body(request(history(PAGE * 2)))) == 8_192  # the capped text the model gets


@pytest.mark.asyncio
async def test_the_window_reaches_the_wire_from_the_loop(loopback):
    """RunOptions.context_window (the profile's figure when a source knows it) goes into the request, and the body the
    server receives asks for a window that holds the conversation, within it."""
    loopback.enqueue(CHAT, text_reply("A summary."), text_reply("Another."))
    provider = OllamaProvider(loopback.url, timeout=10.0)
    try:
        async with httpx.AsyncClient() as http:
            for window in (None, 16_384):
                options = RunOptions(model="llama3.2", provider="ollama", max_tokens=2_048, context_window=window)
                loop = AgentLoop(provider, [], ToolContext(keys={}, http=http, endpoints={}), options, lambda event: None)
                assert (await loop.run(long_history(20))).outcome == "completed"
    finally:
        await provider.aclose()
    first, second = (r.json()["options"] for r in loopback.requests_to(CHAT))
    assert first["num_predict"] == 2_048 and first["num_ctx"] in STEPS and first["num_ctx"] >= needed(long_history(20), 2_048) > 16_384
    assert second == {"num_predict": 2_048, "num_ctx": 16_384}  # capped by the known window


def test_the_session_passes_a_known_window_and_never_a_guess(tmp_path):
    """ChatSession.options: the profile's window when a source knows it (the shipped table for llama3.2); for a model
    nobody describes, the profile's guess (4,096) is not passed, so it cannot cap num_ctx below what is sent."""
    from desktop_copilot.core.chat import ChatSession
    from desktop_copilot.core.config.app_config import AppConfig
    from desktop_copilot.core.config.paths import AppPaths
    from desktop_copilot.core.conversation.models import Conversation
    from desktop_copilot.core.keys.secrets import EnvironmentKeys, KeyLookup
    from desktop_copilot.core.runtime import Runtime

    runtime = Runtime(AppPaths.resolve().ensure(), AppConfig(), KeyLookup([EnvironmentKeys({})]))
    known = ChatSession(runtime, Conversation(provider="ollama", model="llama3.2")).options("ollama")
    unknown = ChatSession(runtime, Conversation(provider="ollama", model="my-finetune:latest")).options("ollama")
    assert known.context_window == runtime.profile("ollama", "llama3.2").context_window.value == 131_072
    assert runtime.profile("ollama", "my-finetune:latest").context_window.source == "default"
    assert unknown.context_window is None
    history = long_history(10)
    assert num_ctx(build_body(request(history, max_tokens=unknown.max_tokens, context_window=unknown.context_window))) >= \
        needed(history, unknown.max_tokens)


def test_a_calibration_learned_below_one_never_shrinks_the_window_below_the_prompt():
    """/tmp/rev/ctx.py: a server that reports only the uncached part of its prompt teaches a factor under 1; the window
    is still sized on at least the uncalibrated estimate, or Ollama would cut the start of the conversation."""
    text = "The quick brown fox jumps over the lazy dog. " * 4000
    history = [Message.user(text)]
    before = num_ctx(build_body(request(history, context_window=131_072)))
    try:
        for _ in range(12):
            calibrate("ollama", 40_000, 16_000)
        assert factor("ollama") < 1.0
        after = num_ctx(build_body(request(history, context_window=131_072)))
    finally:
        forget_calibration()
    assert after == before >= estimate_tokens(text) + 2_048
