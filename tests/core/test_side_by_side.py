"""Ask several models: one prompt answered by Anthropic, a Chat Completions server and Ollama at once (loopback servers
speaking each wire), kept in a real SQLite store; one fails mid-stream while the others finish; picking one goes on
from it alone."""

from __future__ import annotations

import asyncio

import pytest

from desktop_copilot.core.chat import ChatSession, NothingToDoError
from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.models import Conversation, MessageStatus
from desktop_copilot.core.keys.secrets import EnvironmentKeys, KeyLookup
from desktop_copilot.core.runtime import MissingKeyError, Runtime
from desktop_copilot.core.side_by_side import ModelChoice, SideBySide
from desktop_copilot.core.storage.export import to_json, to_markdown
from desktop_copilot.core.storage.store import Store
from desktop_copilot.core.storage.versions import TailArchive
from tests.support import ollama_support
from tests.support.anthropic_rules import history_problems
from tests.support.chat_completions_support import CHAT, chat_reply, chat_response
from tests.support.loopback import anthropic_text_reply, sse_response

CLAUDE = ModelChoice("anthropic", "claude-sonnet-4-6")
LOCAL = ModelChoice("lmstudio", "mistral-7b-instruct")
OLLAMA = ModelChoice("ollama", "llama3.2")


@pytest.fixture
def session(loopback, tmp_path, monkeypatch):
    monkeypatch.setenv("LMSTUDIO_BASE_URL", f"{loopback.url}/v1")
    monkeypatch.setenv("OLLAMA_HOST", loopback.url)
    keys = KeyLookup([EnvironmentKeys({"ANTHROPIC_API_KEY": "sk-ant-side-4242"})])
    runtime = Runtime(AppPaths.resolve().ensure(), AppConfig(anthropic_base_url=loopback.url), keys)
    store = Store(tmp_path / "db.sqlite3")
    yield ChatSession(runtime, Conversation(provider="anthropic", model="claude-sonnet-4-6"), store)
    store.close()


def script_three(loopback, *, local_fails: bool = False) -> None:
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("Claude says the sky is blue.", pieces=4), delay=0.02))
    local = chat_reply("Qwen says the sky scatters light", pieces=4)
    if local_fails:  # half the reply, then the connection drops
        loopback.enqueue(CHAT, chat_response(local[:3], done=False, drop=True, delay=0.02))
    else:
        loopback.enqueue(CHAT, chat_response(local, delay=0.02))
    loopback.enqueue(ollama_support.CHAT, ollama_support.text_reply("Llama says ", "Rayleigh scattering.", delay=0.02))


async def ask(session, choices, text="Why is the sky blue?"):
    compare = SideBySide(session, choices)
    main, columns = [], {i: [] for i in range(len(choices))}
    finished = await compare.send(text, main.append, lambda i: columns[i].append)
    return compare, finished, main, columns


@pytest.mark.asyncio
async def test_three_providers_answer_at_once_and_one_failing_leaves_the_others_whole(session, loopback):
    script_three(loopback, local_fails=True)
    compare, finished, main, columns = await ask(session, [CLAUDE, LOCAL, OLLAMA])
    await session.runtime.aclose()

    assert [f.outcome for f in finished] == ["completed", "interrupted", "completed"]
    assert [m.text for m in compare.answer(0)] == ["Claude says the sky is blue."]
    assert compare.answer(1)[0].status is MessageStatus.INTERRUPTED and compare.answer(1)[0].text.startswith("Qwen says")
    assert [m.text for m in compare.answer(2)] == ["Llama says Rayleigh scattering."]
    assert [m.provider for i in range(3) for m in compare.answer(i)] == ["anthropic", "lmstudio", "ollama"]
    assert isinstance(main[0], ev.MessageCreated) and main[0].message.text == "Why is the sky blue?"
    assert all(isinstance(events[-1], ev.RunFinished) for events in columns.values())  # each column told on its own

    # the conversation holds the first answer; the others are versions of that reply, whole in the database
    stored = session.store.load_conversation(session.conversation.id)
    assert [m.text for m in stored.messages] == ["Why is the sky blue?", "Claude says the sky is blue."]
    versions = {tuple(m.text for m in tail.messages) for tail in TailArchive(session.store).tails(session.conversation.id, 1)}
    assert versions == {(compare.answer(1)[0].text,), ("Llama says Rayleigh scattering.",)}
    assert session.version_anchors() == {1: 2}

    # every model got the same history: the user's question alone
    for path in ("/v1/messages", CHAT, ollama_support.CHAT):
        (request,) = loopback.requests_to(path)
        assert request.json()["messages"][-1]["content"] in ("Why is the sky blue?", [{"type": "text", "text": "Why is the sky blue?"}])


@pytest.mark.asyncio
async def test_picking_an_answer_continues_with_it_alone_and_its_provider(session, loopback):
    script_three(loopback)
    compare, _finished, _main, _columns = await ask(session, [CLAUDE, LOCAL, OLLAMA])
    history: list[ev.Event] = []
    compare.pick(2, history.append)
    assert [m.text for m in session.conversation.messages] == ["Why is the sky blue?", "Llama says Rayleigh scattering."]
    assert (session.conversation.provider, session.conversation.model) == ("ollama", "llama3.2")
    assert isinstance(history[0], ev.HistoryChanged) and history[0].anchor == 1
    header = session.store.load_conversation_header(session.conversation.id)
    assert (header.provider, header.model) == ("ollama", "llama3.2")

    loopback.enqueue(ollama_support.CHAT, ollama_support.text_reply("Because of the atmosphere."))
    await session.send("And at sunset?", lambda e: None)
    sent = loopback.requests_to(ollama_support.CHAT)[-1].json()["messages"]
    assert [(m["role"], m["content"]) for m in sent if m["role"] != "system"] == [
        ("user", "Why is the sky blue?"), ("assistant", "Llama says Rayleigh scattering."), ("user", "And at sunset?")]
    # the other two stay as versions of the reply: Claude's answer among them, and can be picked back
    assert sorted(tuple(m.text for m in t.messages) for t in session.versions(1)) == sorted(
        [("Claude says the sky is blue.",), ("Qwen says the sky scatters light",)])

    # the picked-back Anthropic history is valid for Anthropic
    compare_back = compare.columns[0]
    assert compare_back.tail_id is not None
    await session.runtime.aclose()


@pytest.mark.asyncio
async def test_switching_to_another_answer_and_back_sends_valid_anthropic_history(session, loopback):
    script_three(loopback)
    compare, *_ = await ask(session, [CLAUDE, LOCAL, OLLAMA])
    compare.pick(1, lambda e: None)
    compare.pick(0, lambda e: None)
    assert [m.text for m in session.conversation.messages][-1] == "Claude says the sky is blue."
    assert session.conversation.provider == "anthropic"
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("Sunsets are red.")))
    await session.send("And at sunset?", lambda e: None)
    await session.runtime.aclose()
    body = loopback.requests_to("/v1/messages")[-1].json()
    assert history_problems(body["messages"]) == []
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]


@pytest.mark.asyncio
async def test_one_answer_stopped_on_its_own_is_kept_and_marked_stopped(session, loopback):
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("Claude, quickly.")))
    slow = chat_reply("Slow words " * 40, pieces=40)
    loopback.enqueue(CHAT, chat_response(slow, delay=0.05))
    compare = SideBySide(session, [CLAUDE, LOCAL])
    seen: list[ev.Event] = []

    def to_column(index):
        def emit(event):
            seen.append(event)
            if index == 1 and isinstance(event, ev.TextDelta) and sum(isinstance(e, ev.TextDelta) for e in seen) == 3:
                compare.stop(1)
        return emit

    finished = await compare.send("Go", lambda e: None, to_column)
    await session.runtime.aclose()
    assert finished[0].outcome == "completed"
    assert compare.columns[1].outcome == "stopped"
    stopped = compare.answer(1)[0]
    assert stopped.status is MessageStatus.STOPPED and stopped.text.startswith("Slow words")
    (tail,) = session.versions(1)
    assert tail.messages[0].status is MessageStatus.STOPPED and tail.messages[0].text == stopped.text


@pytest.mark.asyncio
async def test_stopping_the_turn_stops_every_answer_and_keeps_what_arrived(session, loopback):
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("Long " * 50, pieces=50), delay=0.05))
    loopback.enqueue(CHAT, chat_response(chat_reply("Slow " * 50, pieces=50), delay=0.05))
    compare = SideBySide(session, [CLAUDE, LOCAL])
    task = asyncio.ensure_future(compare.send("Go", lambda e: None, lambda i: lambda e: None))
    for _ in range(200):
        await asyncio.sleep(0.02)
        if all(compare.answer(i) and compare.answer(i)[0].text for i in range(2)):
            break
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await session.runtime.aclose()
    assert [c.outcome for c in compare.columns] == ["stopped", "stopped"]
    stored = session.store.load_conversation(session.conversation.id)
    assert stored.messages[-1].status is MessageStatus.STOPPED and stored.messages[-1].text.startswith("Long")
    (tail,) = session.versions(1)
    assert tail.messages[0].status is MessageStatus.STOPPED and tail.messages[0].text.startswith("Slow")


@pytest.mark.asyncio
async def test_a_missing_key_refuses_before_anything_is_stored(session, loopback):
    compare = SideBySide(session, [CLAUDE, ModelChoice("deepseek", "deepseek-chat")])
    with pytest.raises(MissingKeyError):
        await compare.send("Hello", lambda e: None, lambda i: lambda e: None)
    await session.runtime.aclose()
    assert session.conversation.messages == []
    assert session.store.load_conversation(session.conversation.id) is None


def test_two_to_four_different_models():
    session = ChatSession(None, Conversation())  # type: ignore[arg-type]
    for choices in ([CLAUDE], [CLAUDE, CLAUDE], [CLAUDE, LOCAL, OLLAMA, ModelChoice("a", "b"), ModelChoice("c", "d")]):
        with pytest.raises(ValueError, match="2 to 4 different models"):
            SideBySide(session, choices)
    assert ModelChoice.parse("openrouter/meta/llama-3") == ModelChoice("openrouter", "meta/llama-3")


@pytest.mark.asyncio
async def test_picking_waits_until_every_answer_has_ended(session, loopback):
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("Claude.")))
    loopback.enqueue(CHAT, chat_response(chat_reply("Slow " * 30, pieces=30), delay=0.05))
    compare = SideBySide(session, [CLAUDE, LOCAL])
    refused: list[str] = []

    def to_column(index):
        def emit(event):
            if index == 0 and isinstance(event, ev.RunFinished):
                try:
                    compare.pick(1, lambda e: None)
                except NothingToDoError as exc:
                    refused.append(str(exc))
        return emit

    await compare.send("Go", lambda e: None, to_column)
    await session.runtime.aclose()
    assert refused and "Wait until every answer has ended" in refused[0]


@pytest.mark.asyncio
async def test_the_other_answers_are_searchable_and_exported(session, loopback):
    script_three(loopback)
    compare, *_ = await ask(session, [CLAUDE, LOCAL, OLLAMA])
    await session.runtime.aclose()
    hits = session.store.search("Rayleigh")
    assert [hit.conversation_id for hit in hits if hit.message_id] == [session.conversation.id]
    versions = session.versions(1)
    markdown = to_markdown(session.conversation, versions)
    assert "Claude says the sky is blue." in markdown and "Llama says Rayleigh scattering." in markdown
    assert "Qwen says the sky scatters light" in markdown and "Other versions" in markdown
    assert "Rayleigh" in to_json([session.conversation], {session.conversation.id: versions})
