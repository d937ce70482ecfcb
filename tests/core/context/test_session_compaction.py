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
from desktop_copilot.core.context.budget import measure
from desktop_copilot.core.context.summary import SUMMARY_SYSTEM
from desktop_copilot.core.context.tokens import factor
from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.models import (
    Conversation,
    Message,
    MessageStatus,
    TextBlock,
    ThinkingBlock,
    Usage,
)
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

    def __init__(self, loopback, window: int, summary=None, *, reports_usage: bool = False) -> None:
        """`reports_usage`: each reply reports the input it counted (else the loopback's 10 tokens)."""
        self.window, self.summary, self.requests, self.reports_usage = window, summary, [], reports_usage
        loopback.set_handler("/v1/messages", self)

    def __call__(self, request: RecordedRequest):
        body = request.json()
        self.requests.append(body)
        if system_text(body) == SUMMARY_SYSTEM:
            return self.summary or sse_response(anthropic_text_reply("SUMMARY: milk, eggs, four questions answered."))
        tokens = len(json.dumps(body["messages"]) + json.dumps(body.get("tools", []))) // 4
        if tokens > self.window:
            return anthropic_error(400, "invalid_request_error", f"prompt is too long: {tokens} tokens > {self.window} maximum")
        usage = {"input_tokens": tokens} if self.reports_usage else {}
        return sse_response(anthropic_text_reply(f"answer {len(self.requests)}", **usage))

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
    """make_session(window=…, keep_turns=2, turns=6, messages=None, overrides=None, **settings): a stored conversation
    of `turns` turns with a tool round each (or of `messages`), for a model the user said has `window` tokens (and the
    models of `overrides` what they say)."""
    made: list[ChatSession] = []

    def make(*, window: int, keep_turns: int = 2, turns: int = 6, messages: list[Message] | None = None,
             overrides: dict[str, ModelOverride] | None = None, **settings) -> ChatSession:
        keys = KeyLookup([EnvironmentKeys({"ANTHROPIC_API_KEY": "sk-ant-compaction-7"})])
        runtime = Runtime(AppPaths.resolve().ensure(), AppConfig(anthropic_base_url=loopback.url, model=MODEL), keys)
        runtime.settings = Settings(keep_turns=keep_turns, **settings, model_overrides={
            facts_key("anthropic", MODEL): ModelOverride(context_window=window, output_limit=400), **(overrides or {})})
        store = Store(tmp_path / f"conversations-{len(made)}.sqlite3")
        chat = Conversation(title="Shopping", provider="anthropic", model=MODEL,
                            messages=conversation(turns, result=NOTE) if messages is None else messages)
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


def thinking_turns(count: int = 10) -> list[Message]:
    """/tmp/rev/meter.py's conversation: every reply thought about 12k tokens (which Anthropic does not keep in the
    context after its turn) and reported the input its request counted."""
    thought = "Let me reason about this carefully, step by step. " * 1200
    messages: list[Message] = []
    reported = 0
    for n in range(count):
        messages.append(Message.user(f"question {n} " * 50))
        reply = Message.assistant(MODEL, "anthropic")
        reply.blocks = [ThinkingBlock(thinking=thought, signature="s"), TextBlock(text="answer " * 300)]
        reported += 700 + 400
        reply.usage = Usage(input_tokens=reported, output_tokens=12_500)
        reply.status = MessageStatus.COMPLETED
        messages.append(reply)
    return messages


@pytest.mark.asyncio
async def test_the_threshold_is_judged_on_what_the_provider_reported_as_the_meter_judges_it(loopback, make_session):
    """The meter puts this conversation at 16 % of the window; compaction must not see 89 % in it."""
    server = AnthropicWithAWindow(loopback, window=200_000)
    session = make_session(window=200_000, messages=thinking_turns())
    assert measure(session.conversation, window=200_000, output_reserve=400, provider="anthropic").fraction < 0.3
    finished, events = await send(session)
    assert finished.outcome == "completed"
    assert compacted(events) == [] and server.summaries() == []


@pytest.mark.asyncio
async def test_a_run_learns_the_calibration_from_the_usage_its_replies_reported(loopback, make_session):
    """As the window's meter does, so `ask` (which has no meter) learns how far the estimate is from the reports."""
    AnthropicWithAWindow(loopback, window=200_000)
    session = make_session(window=200_000, messages=thinking_turns())
    assert factor("anthropic") == 1.0
    await send(session)
    assert factor("anthropic") > 1.0  # the replies reported more than the estimate of their requests


@pytest.mark.asyncio
async def test_a_compaction_covers_only_the_turns_its_summariser_reads_whole(loopback, make_session):
    """A summariser with a small window gets the oldest turns that fit it, every word of them; the rest waits for the
    next compaction, which takes this one over."""
    server = AnthropicWithAWindow(loopback, window=200_000)
    small = {facts_key("anthropic", "claude-summariser"): ModelOverride(context_window=2_000, output_limit=400)}
    session = make_session(window=200_000, summariser_model="claude-summariser", overrides=small)
    messages = session.conversation.messages
    first = await session.compact_now([].append)
    end = [m.id for m in messages].index(first.last_message_id)
    assert first.first_message_id == messages[0].id and 0 < first.messages == end + 1 < 12  # not all four older turns
    assert messages[end + 1].text.startswith("question ")  # it ends where a turn begins
    prompt = first_text(server.summaries()[0])
    assert "left out here" not in prompt and all(m.text in prompt for m in messages[: end + 1])
    second = await session.compact_now([].append)
    await session.runtime.aclose()
    assert second.replaces == [first.id] and second.first_message_id == messages[0].id
    assert "left out here" not in first_text(server.summaries()[1])


@pytest.mark.asyncio
async def test_compact_now_after_an_overflow_compacts_all_but_the_current_turn(loopback, make_session):
    """As the automatic retry after an overflow does: with nothing before the turns always sent whole, all but the last."""
    AnthropicWithAWindow(loopback, window=200_000)
    session = make_session(window=200_000, keep_turns=4, turns=3)
    assert await session.compact_now([].append) is None  # the header's Compact now keeps the last four turns whole
    events: list[ev.Event] = []
    compaction = await session.compact_now(events.append, after_overflow=True)
    await session.runtime.aclose()
    assert events == [ev.ContextCompacted(compaction=compaction)]
    messages = session.conversation.messages
    assert (compaction.first_message_id, compaction.last_message_id) == (messages[0].id, messages[5].id)
    assert messages[6].text == "question 2"


@pytest.mark.asyncio
async def test_the_usage_of_a_reply_sent_again_after_a_compaction_counts_as_reported(loopback, make_session):
    """The reply was created before the overflow and the compaction, but its request was sent after them."""
    AnthropicWithAWindow(loopback, window=3000, reports_usage=True)
    session = make_session(window=200_000)
    finished, events = await send(session)
    assert finished.outcome == "completed" and [c.kind for c in compacted(events)] == ["summary"]
    reply = session.conversation.messages[-1]
    assert reply.usage.input_tokens > 100
    breakdown = measure(session.conversation, window=200_000, provider="anthropic")
    assert breakdown.exact_tokens == reply.usage.input_tokens + reply.usage.output_tokens
