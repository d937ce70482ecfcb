"""ChatSession keeping a conversation within its model's window, against a loopback Anthropic server (the real SDK) that
counts each request and answers one larger than its window with the API's real overflow error, and a real SQLite file:
automatic compaction, a summary request that fails or stalls, Compact now and Undo, an overflow recovered by one retry
or told in words, and a new chat from a summary."""

from __future__ import annotations

import json

import pytest

from desktop_copilot.core.chat import ChatSession, NothingToDoError
from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.config.settings import Settings
from desktop_copilot.core.context.summary import SUMMARY_SYSTEM
from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.models import Conversation, MessageStatus
from desktop_copilot.core.keys.secrets import EnvironmentKeys, KeyLookup
from desktop_copilot.core.profiles.stored import ModelOverride, facts_key
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.storage.store import Store
from tests.core.context.turns import conversation
from tests.support.anthropic_rules import history_problems
from tests.support.loopback import RecordedRequest, anthropic_error, anthropic_text_reply, sse_response

MODEL = "claude-test"
NOTE = "The note reads: " + "remember the milk and the eggs. " * 60  # about 480 tokens a tool result


class AnthropicWithAWindow:
    """/v1/messages as the API answers it for a model of `window` tokens: a summary request (its system prompt) gets
    SUMMARY (or `summary`, a ScriptedResponse), any other a reply, or the real 400 when it does not fit."""

    def __init__(self, loopback, window: int, summary=None) -> None:
        self.window, self.summary, self.requests = window, summary, []
        loopback.set_handler("/v1/messages", self)

    def __call__(self, request: RecordedRequest):
        body = request.json()
        self.requests.append(body)
        if system_text(body) == SUMMARY_SYSTEM:
            return self.summary or sse_response(anthropic_text_reply("SUMMARY: milk, eggs, four questions answered."))
        tokens = len(json.dumps(body["messages"]) + json.dumps(body.get("tools", []))) // 4
        if tokens > self.window:
            return anthropic_error(400, "invalid_request_error", f"prompt is too long: {tokens} tokens > {self.window} maximum")
        return sse_response(anthropic_text_reply(f"answer {len(self.requests)}"))

    def summaries(self) -> list[dict]:
        return [body for body in self.requests if system_text(body) == SUMMARY_SYSTEM]

    def replies(self) -> list[dict]:
        return [body for body in self.requests if system_text(body) != SUMMARY_SYSTEM]


def system_text(body: dict) -> str:
    system = body.get("system") or ""
    return system if isinstance(system, str) else "".join(block.get("text", "") for block in system)


def first_text(body: dict) -> str:
    content = body["messages"][0]["content"]
    return content if isinstance(content, str) else content[0]["text"]


@pytest.fixture
def make_session(loopback, tmp_path):
    """make_session(window=…, keep_turns=2, turns=6, **settings): a stored conversation of `turns` turns with a tool
    round each, for a model the user said has `window` tokens."""
    made: list[ChatSession] = []

    def make(*, window: int, keep_turns: int = 2, turns: int = 6, **settings) -> ChatSession:
        keys = KeyLookup([EnvironmentKeys({"ANTHROPIC_API_KEY": "sk-ant-compaction-7"})])
        runtime = Runtime(AppPaths.resolve().ensure(), AppConfig(anthropic_base_url=loopback.url, model=MODEL), keys)
        runtime.settings = Settings(keep_turns=keep_turns, **settings, model_overrides={
            facts_key("anthropic", MODEL): ModelOverride(context_window=window, output_limit=400)})
        store = Store(tmp_path / f"conversations-{len(made)}.sqlite3")
        chat = Conversation(title="Shopping", provider="anthropic", model=MODEL, messages=conversation(turns, result=NOTE))
        store.save_conversation(chat)
        for seq, message in enumerate(chat.messages):
            store.save_message(chat.id, seq, message)
        made.append(ChatSession(runtime, chat, store))
        return made[-1]

    yield make
    for session in made:
        session.store.close()


async def send(session: ChatSession, text: str = "and the bread?") -> tuple[ev.RunFinished, list[ev.Event]]:
    """Send `text`; how the run finished and every event it emitted (the provider's connections closed after)."""
    events: list[ev.Event] = []
    finished = await session.send(text, events.append)
    await session.runtime.aclose()
    return finished, events


def compacted(events: list[ev.Event]) -> list:
    return [e.compaction for e in events if isinstance(e, ev.ContextCompacted)]


@pytest.mark.asyncio
async def test_older_turns_are_summarised_before_a_request_that_would_pass_the_threshold(loopback, make_session):
    server = AnthropicWithAWindow(loopback, window=4000)
    session = make_session(window=4000)
    finished, events = await send(session)
    assert finished.outcome == "completed"
    [compaction] = compacted(events)
    assert (compaction.kind, compaction.messages, compaction.model, compaction.provider) == ("summary", 15, MODEL, "anthropic")
    assert compaction.summary == "SUMMARY: milk, eggs, four questions answered."
    assert compaction.tokens_before > 4 * compaction.tokens_after > 0
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("ContextCompacted") < kinds.index("MessageCreated", 1)  # before the reply's request

    [summary_request] = server.summaries()
    prompt = first_text(summary_request)
    assert "question 0" in prompt and "question 4" in prompt and "question 5" not in prompt and "tools" not in summary_request
    [reply_request] = server.replies()
    assert first_text(reply_request).startswith("Summary of the earlier conversation (15 messages were compacted):")
    texts = json.dumps(reply_request["messages"])
    assert "question 4" not in texts and "question 5" in texts and "and the bread?" in texts  # the last two turns whole
    assert history_problems(reply_request["messages"]) == []

    stored = session.store.load_conversation(session.conversation.id)
    assert stored.compactions == [compaction] and len(stored.messages) == 20  # every message kept
    assert session.store.search("question 0")  # and found


@pytest.mark.asyncio
@pytest.mark.parametrize("failure", ["error", "stall"])
async def test_a_summary_that_fails_or_stalls_leaves_the_oldest_turns_out_and_the_conversation_goes_on(
        loopback, make_session, failure):
    summary = (anthropic_error(400, "invalid_request_error", "summaries are switched off") if failure == "error"
               else sse_response(anthropic_text_reply("never"), hold=5))
    server = AnthropicWithAWindow(loopback, window=4000, summary=summary)
    session = make_session(window=4000, first_byte_timeout=0.5)
    finished, events = await send(session)
    assert finished.outcome == "completed" and session.conversation.messages[-1].text == "answer 2"
    [dropped] = compacted(events)
    assert dropped.kind == "dropped" and dropped.messages == 15
    assert ("switched off" if failure == "error" else "did not answer within 0.5 s") in dropped.summary
    assert first_text(server.replies()[0]) == ("(15 earlier messages are not shown to the model: the context window was "
                                               "full and no summary could be made.)")
    assert session.store.load_conversation(session.conversation.id).compactions == [dropped]


@pytest.mark.asyncio
async def test_compact_now_then_undo_sends_the_whole_messages_again(loopback, make_session):
    server = AnthropicWithAWindow(loopback, window=200_000)
    session = make_session(window=200_000, summariser_model="claude-summariser")
    events: list[ev.Event] = []
    compaction = await session.compact_now(events.append)
    assert events == [ev.ContextCompacted(compaction=compaction)] and compaction.model == "claude-summariser"
    assert server.summaries()[0]["model"] == "claude-summariser"
    await send(session)
    assert first_text(server.replies()[-1]).startswith("Summary of the earlier conversation (12 messages")

    undone: list[ev.Event] = []
    session.undo_compaction(compaction.id, undone.append)
    assert undone == [ev.CompactionUndone(compaction_id=compaction.id)]
    assert session.store.load_conversation(session.conversation.id).compactions[0].undone
    await send(session, "and the butter?")
    sent = server.replies()[-1]["messages"]
    assert first_text(server.replies()[-1]) == "question 0" and len(server.summaries()) == 1  # whole, not compacted again
    assert history_problems(sent) == []
    with pytest.raises(NothingToDoError):
        session.undo_compaction(compaction.id, undone.append)


@pytest.mark.asyncio
async def test_an_overflow_is_compacted_and_the_request_sent_once_more(loopback, make_session):
    """The profile says the window is large, the server says otherwise: its 400 leads to a compaction and one retry."""
    server = AnthropicWithAWindow(loopback, window=3000)
    session = make_session(window=200_000)
    finished, events = await send(session)
    assert finished.outcome == "completed"
    assert [system_text(body) == SUMMARY_SYSTEM for body in server.requests] == [False, True, False]
    assert not [e for e in events if isinstance(e, ev.Error)]  # the overflow was never shown
    assert [c.kind for c in compacted(events)] == ["summary"]
    reply = session.conversation.messages[-1]
    assert (reply.status, reply.text, len(session.conversation.messages)) == (MessageStatus.COMPLETED, "answer 3", 20)
    stored = session.store.load_conversation(session.conversation.id)
    assert [m.id for m in stored.messages] == [m.id for m in session.conversation.messages]


@pytest.mark.asyncio
async def test_an_overflow_that_compaction_cannot_cure_says_so_in_words(loopback, make_session):
    server = AnthropicWithAWindow(loopback, window=150)
    session = make_session(window=200_000)
    finished, events = await send(session)
    assert finished.outcome == "failed"
    [error] = [e for e in events if isinstance(e, ev.Error)]
    assert error.overflow and error.message.startswith("The conversation is still longer than the model's context window")
    assert "prompt is too long" in error.message and "Compact now" in error.message and "New chat from a summary" in error.message
    assert finished.detail == error.message == session.conversation.messages[-1].error
    assert len(server.replies()) == 2 and len(server.summaries()) == 1  # one retry, no more


@pytest.mark.asyncio
async def test_an_overflow_with_nothing_older_to_compact(loopback, make_session):
    AnthropicWithAWindow(loopback, window=10)
    session = make_session(window=200_000, turns=0)
    finished, events = await send(session, "a question far too long for this window")
    assert finished.outcome == "failed" and "no older turns could be compacted" in finished.detail
    assert compacted(events) == []


@pytest.mark.asyncio
async def test_a_new_chat_from_a_summary_starts_with_it_and_links_back(loopback, make_session):
    server = AnthropicWithAWindow(loopback, window=200_000)
    session = make_session(window=200_000)
    events: list[ev.Event] = []
    new = await session.new_chat_from_summary(events.append)
    await session.runtime.aclose()
    assert events == [] and "question 5" in first_text(server.summaries()[0])  # all of it, the last turns too
    assert new.summarised_from == session.conversation.id and new.id != session.conversation.id
    assert (new.title, new.provider, new.model) == ("Shopping (continued)", "anthropic", MODEL)
    assert [m.text for m in new.messages] == [
        "Summary of the conversation “Shopping”, which this one continues:\n\nSUMMARY: milk, eggs, four questions answered."]
    stored = session.store.load_conversation(new.id)
    assert stored.summarised_from == session.conversation.id and [m.text for m in stored.messages] == [m.text for m in new.messages]
    assert len(session.conversation.messages) == 18 and session.conversation.compactions == []  # the old one is unchanged
