"""The Anthropic request body made again only where the conversation changed (core/providers/anthropic_body.py): after
any sequence of appends, edits, regenerations, trimmed copies and model changes it is the JSON of `build_params` with
`"stream": true`, breakpoints and call ids included; it keeps no message alive; and it is what reaches the server."""

from __future__ import annotations

import gc
import json
import weakref

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_copilot.core.conversation.models import (
    Message,
    MessageStatus,
    Role,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolCallStatus,
)
from desktop_copilot.core.providers import anthropic_body
from desktop_copilot.core.providers.anthropic_body import CHECKPOINT_EVERY, request_body
from desktop_copilot.core.providers.anthropic_cache import breakpoints
from desktop_copilot.core.providers.anthropic_wire import build_params
from desktop_copilot.core.providers.base import ProviderRequest, ToolSpec

TOOLS = [ToolSpec("search", "Searches the web. " * 300, {"type": "object", "properties": {"q": {"type": "string"}}})]


def request(messages: list[Message], model: str = "claude-sonnet-4-6", **kw) -> ProviderRequest:
    return ProviderRequest(model=model, messages=messages, system=kw.pop("system", "Be brief. " * 300), tools=TOOLS, **kw)


def expected(req: ProviderRequest) -> dict:
    return {**(params := build_params(req)), **params.pop("extra_body", {}), "stream": True}


def assert_same(req: ProviderRequest) -> dict:
    sent = json.loads(request_body(req))
    assert sent == expected(req)
    return sent


def tool_reply(n: int, call_id: str | None = None, result: str = "found it", provider: str = "anthropic") -> Message:
    return Message(role=Role.ASSISTANT, provider=provider, blocks=[
        ThinkingBlock(thinking=f"thinking {n}", signature=f"sig{n}"),
        TextBlock(text=f"Looking {n}."),
        ToolCallBlock(id=call_id or f"toolu_{n}", name="search", arguments={"q": str(n)}, status=ToolCallStatus.DONE,
                      result=result)])


def text_reply(n: int, text: str | None = None) -> Message:
    return Message(role=Role.ASSISTANT, provider="anthropic", blocks=[TextBlock(text=f"Answer {n}. " * 40 if text is None else text)])


def tool_turn(n: int, **kw) -> list[Message]:
    return [Message.user(f"Question {n}: " + "words " * 50), tool_reply(n, **kw), text_reply(n)]


def test_a_growing_conversation_sends_what_build_params_makes_at_every_request():
    anthropic_body.forget()
    messages: list[Message] = []
    for n in range(3 * CHECKPOINT_EVERY):
        messages.append(Message.user(f"Question {n}"))
        assert_same(request(messages))
        messages.append(tool_reply(n))  # the tool round's request
        assert_same(request(messages))
        messages.append(text_reply(n))
    sent = assert_same(request([*messages, Message.user("last")]))
    assert breakpoints(sent) == 4  # the tool, the system prompt and the two latest user turns, counted in kept turns


def test_edits_regenerations_trimmed_copies_and_model_changes_are_sent_as_they_now_are():
    anthropic_body.forget()
    messages = [message for n in range(80) for message in tool_turn(n)]
    assert_same(request(messages))
    messages[100] = messages[100].model_copy(update={"blocks": [TextBlock(text="edited")]})  # a copy, as trimming makes
    assert_same(request(messages))
    messages[40].blocks[0] = TextBlock(text="changed in place")
    messages[40].touch()
    assert_same(request(messages))
    del messages[150:]  # regenerated from there
    assert_same(request(messages))
    assert_same(request(messages, model="claude-opus-4-1"))
    assert_same(request(messages[:30]))
    assert_same(request(messages, temperature=0.5))
    assert_same(request(messages, thinking_budget=2048))


def test_call_ids_reused_by_each_reply_stay_unique_across_kept_turns():
    anthropic_body.forget()
    messages = [message for n in range(3 * CHECKPOINT_EVERY) for message in tool_turn(n, call_id="call_0")]
    assert_same(request(messages))
    messages += tool_turn(999, call_id="call_0")
    sent = assert_same(request(messages))
    ids = [block["id"] for turn in sent["messages"] for block in turn["content"] if block["type"] == "tool_use"]
    assert len(ids) == len(set(ids)) == 3 * CHECKPOINT_EVERY + 1
    messages[5] = messages[5].model_copy()  # a change before the kept turns: the ids are taken again from there
    assert_same(request(messages))


def test_no_message_is_kept_alive():
    anthropic_body.forget()
    messages = [message for n in range(50) for message in tool_turn(n)]
    request_body(request(messages))
    watched = weakref.ref(messages[75])
    del messages
    gc.collect()
    assert watched() is None


EDITS = st.lists(st.tuples(st.sampled_from(["user", "tool", "text", "empty", "other", "copy", "bump", "cut", "model"]),
                           st.integers(0, 10_000)), min_size=1, max_size=60)


@settings(max_examples=60, deadline=None)
@given(EDITS)
def test_any_sequence_of_changes_sends_what_build_params_makes(edits):
    anthropic_body.forget()
    messages: list[Message] = [Message.user("start")]
    for kind, n in edits:
        if kind == "user":
            messages.append(Message.user(f"q{n}"))
        elif kind == "tool":
            messages.append(tool_reply(n, call_id=f"call_{n % 3}"))
        elif kind == "text":
            messages.append(text_reply(n, "" if n % 5 == 0 else None))
        elif kind == "empty":
            messages.append(Message(role=Role.ASSISTANT, provider="anthropic", status=MessageStatus.INTERRUPTED))
        elif kind == "other":
            messages.append(tool_reply(n, provider="openai"))
        elif kind == "copy" and messages:
            index = n % len(messages)
            messages[index] = messages[index].model_copy()
        elif kind == "bump" and messages:
            target = messages[n % len(messages)]
            target.blocks.append(TextBlock(text=f"more {n}"))
            target.touch()
        elif kind == "cut" and len(messages) > 1:
            del messages[1 + n % (len(messages) - 1):]
        model = "claude-opus-4-1" if kind == "model" and n % 2 else "claude-sonnet-4-6"
        assert_same(request(messages, model=model, system="short" if n % 7 == 0 else "Be brief. " * 300))
