"""The real Chat Completions provider against the LM Studio, llama.cpp and vLLM emulators: thinking written in tags
and tool calls written as text in every form, each reply cut into two network chunks at every character offset,
read the same; a malformed and an unfinished call stay text with a notice; several calls in one reply."""

from __future__ import annotations

import pytest
import pytest_asyncio

from desktop_copilot.core.conversation.accumulate import accumulate
from desktop_copilot.core.conversation.models import Message, MessageStatus, TextBlock, ThinkingBlock
from desktop_copilot.core.providers.base import ProviderRequest, ToolSpec
from desktop_copilot.core.providers.chat_completions_provider import ChatCompletionsProvider
from tests.support.local_servers import LocalServer

KINDS = ("lmstudio", "llamacpp", "vllm")
MODELS = {"lmstudio": "qwen/qwen3-8b", "llamacpp": "Qwen3-8B-Q4_K_M.gguf", "vllm": "Qwen/Qwen3-8B"}
"""What each emulator serves (vLLM answers 404 for a model it does not serve)."""
SEARCH = ToolSpec("search", "Search the web.", {"type": "object", "properties": {"query": {"type": "string"}}})
QUERY = {"query": "HK weather"}
CALLS = {
    "hermes": '<tool_call>\n{"name": "search", "arguments": {"query": "HK weather"}}\n</tool_call>',
    "minimax": '<minimax:tool_call>\n<invoke name="search">\n<parameter name="query">HK weather</parameter>\n</invoke>\n</minimax:tool_call>',
    "invoke": '<invoke name="search"><parameter name="query">HK weather</parameter></invoke>',
    "json": '```json\n{"name": "search", "arguments": {"query": "HK weather"}}\n```',
}


@pytest_asyncio.fixture
async def streams():
    """(kind) -> a function streaming one request through a real provider at that emulator; servers closed after."""
    opened: list[tuple[LocalServer, ChatCompletionsProvider]] = []

    def start(kind: str) -> tuple[LocalServer, ChatCompletionsProvider]:
        server = LocalServer(kind, reasoning="none").start()
        provider = ChatCompletionsProvider(None, server.base_url, vendor=kind, max_retries=0, timeout=10.0)
        opened.append((server, provider))
        return server, provider

    yield start
    for server, provider in opened:
        await provider.aclose()
        server.stop()


async def reply_of(provider: ChatCompletionsProvider, *, tools: bool = True, thinks_in_tags: bool = False,
                   text_tools: bool = False) -> Message:
    request = ProviderRequest(model=MODELS[provider.vendor], messages=[Message.user("Weather in HK?")], provider=provider.vendor,
                              tools=[SEARCH] if tools else [], thinks_in_tags=thinks_in_tags, text_tools=text_tools)
    message = Message.assistant(provider=provider.vendor)
    async for event in provider.stream(request):
        accumulate(message, event)
    return message


def cuts(text: str) -> list[list[str]]:
    return [[text[:at], text[at:]] for at in range(len(text) + 1)]


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", KINDS)
async def test_think_tags_split_at_every_offset_are_thinking(kind, streams):
    server, provider = streams(kind)
    text = "<think>Two plus two.</think>\n\nIt is 4."
    for pieces in cuts(text):
        server.reply(pieces)
        reply = await reply_of(provider, tools=False)
        assert [type(b) for b in reply.blocks] == [ThinkingBlock, TextBlock], pieces
        assert (reply.blocks[0].thinking, reply.text) == ("Two plus two.", "It is 4."), pieces


@pytest.mark.asyncio
async def test_a_missing_opening_tag_still_splits_for_a_model_that_thinks_in_tags(streams):
    server, provider = streams("llamacpp")
    text = "Two plus two.</think>\n\nIt is 4."
    for pieces in cuts(text):
        server.reply(pieces)
        reply = await reply_of(provider, tools=False, thinks_in_tags=True)
        assert (reply.blocks[0].thinking, reply.text) == ("Two plus two.", "It is 4."), pieces


@pytest.mark.asyncio
async def test_tags_later_in_the_text_or_in_code_are_text(streams):
    server, provider = streams("vllm")
    text = "Use `<think>` like this:\n\n```\n<think>x</think>\n```\nDone."
    server.reply([text])
    reply = await reply_of(provider, tools=False, thinks_in_tags=True)
    assert [type(b) for b in reply.blocks] == [TextBlock] and reply.text == text


@pytest.mark.asyncio
@pytest.mark.parametrize("form", sorted(CALLS))
async def test_calls_written_as_text_split_at_every_offset_become_calls(form, streams):
    server, provider = streams("lmstudio")
    text = "Let me check.\n" + CALLS[form]
    for pieces in cuts(text):
        server.reply(pieces)
        reply = await reply_of(provider, text_tools=form == "json")  # the lax json form: for tools described as text
        assert [(c.name, c.arguments) for c in reply.tool_calls] == [("search", QUERY)], pieces
        assert reply.text.strip() == "Let me check." and reply.stop_reason == "tool_use", pieces
        assert reply.tool_calls[0].provider_fields == {"text_form": form}


@pytest.mark.asyncio
async def test_a_final_json_block_is_text_for_a_model_given_native_tools(streams):
    server, provider = streams("vllm")
    server.reply(["Like this:\n" + CALLS["json"]])
    reply = await reply_of(provider)
    assert not reply.tool_calls and reply.text == "Like this:\n" + CALLS["json"]


@pytest.mark.asyncio
async def test_several_calls_in_one_reply(streams):
    server, provider = streams("vllm")
    server.reply(["<tool_call>\n", '{"name": "search", "arguments": {"query": "a"}}\n</tool_call>\n<tool_call>\n',
                  '{"name": "search", "arguments": {"query": "b"}}\n</tool_call>'])
    reply = await reply_of(provider)
    assert [c.arguments for c in reply.tool_calls] == [{"query": "a"}, {"query": "b"}]
    assert len({c.id for c in reply.tool_calls}) == 2


@pytest.mark.asyncio
@pytest.mark.parametrize("text, why", [
    ('<tool_call>{"name": "search", "arguments": {"query": </tool_call>', "could not be read"),
    ('Checking <tool_call>{"name": "search", "arguments": {"query": "HK', "never closed"),
])
async def test_a_malformed_or_unfinished_call_stays_text_with_a_notice(text, why, streams):
    server, provider = streams("llamacpp")
    server.reply([text])
    reply = await reply_of(provider)
    assert not reply.tool_calls and reply.text == text and reply.status is MessageStatus.COMPLETED
    assert why in (reply.error or "") and "did not run" in reply.error


@pytest.mark.asyncio
async def test_without_tools_offered_a_call_in_the_text_is_only_text(streams):
    server, provider = streams("lmstudio")
    server.reply([CALLS["hermes"]])
    reply = await reply_of(provider, tools=False)
    assert not reply.tool_calls and reply.text == CALLS["hermes"]
