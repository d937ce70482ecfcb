"""ChatSession against the loopback server and a real SQLite store: send, regenerate, edit, continue, versions."""

from __future__ import annotations

import pytest

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.chat import ChatSession, NothingToDoError
from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.conversation.history import CONTINUE_INSTRUCTION
from desktop_copilot.core.conversation.models import Conversation, MessageStatus
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.runtime import MissingKeyError, Runtime
from desktop_copilot.core.keys.secrets import EnvironmentKeys, KeyLookup
from desktop_copilot.core.storage.store import Store
from tests.support.anthropic_rules import history_problems
from tests.support.loopback import anthropic_sse, anthropic_text_reply, anthropic_tool_reply, sse_response


@pytest.fixture
def session(loopback, tmp_path):
    keys = KeyLookup([EnvironmentKeys({"ANTHROPIC_API_KEY": "sk-ant-session-4242"})])
    runtime = Runtime(AppPaths.resolve().ensure(), AppConfig(anthropic_base_url=loopback.url, thinking_budget=2048), keys)
    store = Store(tmp_path / "db.sqlite3")
    yield ChatSession(runtime, Conversation(), store)
    store.close()


async def close(session):
    await session.runtime.aclose()


def texts(session):
    return [(m.role.value, m.text) for m in session.conversation.messages]


def sent_messages(loopback, index=-1):
    return loopback.requests_to("/v1/messages")[index].json()


@pytest.mark.asyncio
async def test_send_titles_and_stores_the_conversation(session, loopback):
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("Hi there")))
    events = []
    finished = await session.send("Hello   world\nsecond line", events.append)
    await close(session)
    assert finished.outcome == "completed"
    assert session.conversation.title == "Hello world second line"
    stored = session.store.load_conversation(session.conversation.id)
    assert [(m.role.value, m.text) for m in stored.messages] == [("user", "Hello   world\nsecond line"), ("assistant", "Hi there")]


@pytest.mark.asyncio
async def test_regenerate_keeps_the_old_reply_as_an_earlier_version(session, loopback):
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("first")), sse_response(anthropic_text_reply("second")))
    await session.send("q", lambda e: None)
    first_reply = session.conversation.messages[1]
    events: list[ev.Event] = []
    await session.regenerate(events.append)
    await close(session)
    assert texts(session) == [("user", "q"), ("assistant", "second")]
    assert events[0] == ev.HistoryChanged(anchor=1, archived_ids=[first_reply.id])  # said before the new reply
    assert isinstance(events[1], ev.MessageCreated) and events[1].message is session.conversation.messages[1]
    assert [m["role"] for m in sent_messages(loopback)["messages"]] == ["user"]
    versions = session.versions(1)
    assert [[m.text for m in v.messages] for v in versions] == [["first"]]
    assert session.version_anchors() == {1: 1}
    reloaded = session.store.load_conversation(session.conversation.id)
    assert [m.text for m in reloaded.messages] == ["q", "second"]

    second_reply = session.conversation.messages[1]
    switched: list[ev.Event] = []
    session.switch_version(versions[0].id, switched.append)
    assert texts(session) == [("user", "q"), ("assistant", "first")]
    assert switched == [ev.HistoryChanged(anchor=1, archived_ids=[second_reply.id], current=[session.conversation.messages[1]])]
    assert [m.text for m in session.store.load_conversation(session.conversation.id).messages] == ["q", "first"]
    assert [[m.text for m in v.messages] for v in session.versions(1)] == [["second"]]


@pytest.mark.asyncio
async def test_edit_replaces_the_message_and_what_followed(session, loopback):
    loopback.enqueue("/v1/messages", *(sse_response(anthropic_text_reply(t)) for t in ("a1", "a2", "b2")))
    await session.send("first question", lambda e: None)
    await session.send("second question", lambda e: None)
    edited_id = session.conversation.messages[2].id
    await session.edit(edited_id, "second question, better", lambda e: None)
    await close(session)
    assert texts(session) == [("user", "first question"), ("assistant", "a1"),
                              ("user", "second question, better"), ("assistant", "b2")]
    old = session.versions(2)[0].messages
    assert [(m.role.value, m.text) for m in old] == [("user", "second question"), ("assistant", "a2")]
    assert history_problems(sent_messages(loopback)["messages"]) == []
    with pytest.raises(NothingToDoError):
        await session.edit(session.conversation.messages[1].id, "x", lambda e: None)


@pytest.mark.asyncio
async def test_continue_an_interrupted_reply_sends_it_and_asks_to_go_on(session, loopback):
    """Current models answer a request that ends with an assistant turn (prefill) with a 400: the partial
    reply is sent as it is, followed by a user turn asking to go on, and thinking stays on."""
    cut = anthropic_text_reply("The answer is  ", pieces=1)[:4]
    loopback.enqueue("/v1/messages", sse_response(anthropic_sse(cut), drop=True),
                     sse_response(anthropic_text_reply(" forty-two.")))
    first = await session.send("what is it?", lambda e: None)
    assert first.outcome == "interrupted"
    finished = await session.continue_reply(lambda e: None)
    await close(session)
    assert finished.outcome == "completed"
    request = sent_messages(loopback)
    assert request["messages"][-2:] == [
        {"role": "assistant", "content": [{"type": "text", "text": "The answer is  "}]},
        {"role": "user", "content": [{"type": "text", "text": CONTINUE_INSTRUCTION}]},
    ]
    assert request["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert history_problems(request["messages"]) == []
    assert [m.status for m in session.conversation.messages[1:]] == [MessageStatus.INTERRUPTED, MessageStatus.COMPLETED]


@pytest.mark.asyncio
async def test_continue_after_a_cut_tool_call_closes_it_first(session, loopback):
    cut = anthropic_tool_reply([("toolu_x", "nothing", {"a": 1})], text="Checking.")[:9]
    loopback.enqueue("/v1/messages", sse_response(anthropic_sse(cut), drop=True), sse_response(anthropic_text_reply("done")))
    await session.send("go", lambda e: None)
    await session.continue_reply(lambda e: None)
    await close(session)
    messages = sent_messages(loopback)["messages"]
    assert history_problems(messages) == []
    assert messages[-1]["role"] == "user" and messages[-1]["content"][0]["is_error"] is True


@pytest.mark.asyncio
async def test_nothing_to_continue_or_regenerate(session, loopback):
    with pytest.raises(NothingToDoError):
        await session.continue_reply(lambda e: None)
    with pytest.raises(NothingToDoError):
        await session.regenerate(lambda e: None)
    await close(session)


@pytest.mark.asyncio
async def test_missing_key_refuses_before_anything_is_stored(loopback, tmp_path):
    runtime = Runtime(AppPaths.resolve().ensure(), AppConfig(anthropic_base_url=loopback.url), KeyLookup([]))
    store = Store(tmp_path / "db.sqlite3")
    session = ChatSession(runtime, Conversation(), store)
    with pytest.raises(MissingKeyError, match="keys set anthropic"):
        await session.send("hello", lambda e: None)
    assert session.conversation.messages == [] and store.list_conversations() == []
    assert loopback.requests_to("/v1/messages") == []
    store.close()


@pytest.mark.asyncio
async def test_allowing_repeats_is_remembered_for_the_conversation_and_continue_once_is_not():
    from desktop_copilot.core.agent.loop import LoopChoice

    detected = ev.LoopDetected(name="web_fetch", arguments={"url": "https://example.org"}, repeats=3)
    for answer, asked_twice in ((LoopChoice.CONTINUE_ONCE, True), (LoopChoice.ALLOW_REPEATS, False), (LoopChoice.STOP, True)):
        session, asked = ChatSession(None, Conversation()), []  # type: ignore[arg-type]

        async def confirm(event, answer=answer, asked=asked):
            asked.append(event)
            return answer

        question = session._loop_question(confirm)
        assert await question(detected) == answer
        assert await question(detected) == (LoopChoice.ALLOW_REPEATS if not asked_twice else answer)
        assert len(asked) == (2 if asked_twice else 1)
    assert ChatSession(None, Conversation())._loop_question(None) is None  # type: ignore[arg-type]
