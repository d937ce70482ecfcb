"""Every wire format under the faults a network does, through the real session, provider and SQLite store: each
fault ends in a clear state in memory and on disk, nothing received is lost, and the history stays valid for
every provider (what follows a stalled reply: Continue, and a turn sent to another provider; what follows a tool
round the provider refused: the next question)."""

from __future__ import annotations

import pytest

from desktop_copilot.core.chat import ChatSession
from desktop_copilot.core.conversation.history import CONTINUE_INSTRUCTION
from desktop_copilot.core.conversation.models import Conversation, MessageStatus, ToolCallStatus
from desktop_copilot.core.storage.store import Store
from tests.faults.sessions import wire_runtime
from tests.support import faults
from tests.support.faults import PIECES, WIDE, WIRE_IDS, WIRES, WireScript
from tests.support.history_rules import NEXT_TURN, assert_valid_for_every_provider, sent_request_problems
from tests.support.mcp_servers.http_fixture import stdio_config

DEADLINE = 1.0
"""Seconds of silence the tests allow before the first byte and between frames."""


@pytest.fixture
def make_session(loopback, tmp_path):
    """A session on a fresh store talking to `wire` on the loopback server, with short deadlines."""
    made: list[ChatSession] = []

    def make(wire: WireScript) -> ChatSession:
        session = ChatSession(wire_runtime(loopback, wire, DEADLINE), Conversation(provider=wire.provider, model=wire.model), Store(tmp_path / "faults.sqlite3"))
        made.append(session)
        return session

    yield make
    for session in made:
        session.store.close()


async def finish(session: ChatSession) -> None:
    await session.runtime.aclose()


def stored_messages(session: ChatSession, tmp_path):
    """The conversation as a second connection reads it from the file (after the session's writes are in)."""
    session.store.close()
    other = Store(tmp_path / "faults.sqlite3")
    try:
        return other.load_conversation(session.conversation.id).messages
    finally:
        other.close()


def reply_state(session: ChatSession):
    reply = session.conversation.messages[-1]
    return reply.status, reply.text, reply.error or ""


pytestmark = [pytest.mark.asyncio, pytest.mark.parametrize("wire", WIRES, ids=WIRE_IDS)]


async def test_no_first_byte_fails_in_words_and_offers_retry(wire, make_session, loopback, tmp_path):
    session = make_session(wire)
    loopback.enqueue(wire.path, faults.silent(wire))
    finished = await session.send("Hello?", lambda e: None)
    await finish(session)
    status, text, error = reply_state(session)
    assert finished.outcome == "failed" and status is MessageStatus.FAILED and text == ""
    assert f"did not answer within {DEADLINE:g} s" in error and "Retry" in error
    stored = stored_messages(session, tmp_path)
    assert [(m.role.value, m.text) for m in stored] == [("user", "Hello?"), ("assistant", "")]
    assert stored[-1].status is MessageStatus.FAILED
    assert_valid_for_every_provider(stored)


async def test_a_stall_keeps_the_partial_reply_and_continue_goes_on(wire, make_session, loopback, tmp_path):
    session = make_session(wire)
    loopback.enqueue(wire.path, faults.stall_after(wire, 2), wire.text_reply("and the rest."))
    finished = await session.send("Tell me", lambda e: None)
    status, text, error = reply_state(session)
    assert finished.outcome == "interrupted" and status is MessageStatus.INTERRUPTED
    assert text == PIECES[0] + PIECES[1]
    assert f"nothing arrived for {DEADLINE:g} s" in error and "Continue" in error
    assert_valid_for_every_provider(session.conversation.messages)

    resumed = await session.continue_reply(lambda e: None)
    await finish(session)
    assert resumed.outcome == "completed"
    sent = str(loopback.requests_to(wire.path)[-1].json())
    assert PIECES[0] + PIECES[1] in sent and CONTINUE_INSTRUCTION[:40] in sent  # the partial reply, then the ask to go on
    stored = stored_messages(session, tmp_path)
    assert stored[1].text == PIECES[0] + PIECES[1] and stored[1].status is MessageStatus.INTERRUPTED
    assert stored[-1].text == "and the rest." and stored[-1].status is MessageStatus.COMPLETED
    assert_valid_for_every_provider(stored)


@pytest.mark.parametrize("status", [429, 503, 529])
async def test_a_busy_answer_with_retry_after_is_retried(wire, status, make_session, loopback, tmp_path):
    session = make_session(wire)
    loopback.enqueue(wire.path, faults.busy(wire, status, "0"), wire.text_reply(*PIECES))
    finished = await session.send("Hi", lambda e: None)
    await finish(session)
    assert finished.outcome == "completed", session.conversation.messages[-1].error
    assert len(loopback.requests_to(wire.path)) == 2
    assert stored_messages(session, tmp_path)[-1].text == "".join(PIECES)


async def test_a_busy_answer_asking_for_too_long_fails_in_words(wire, make_session, loopback, tmp_path):
    session = make_session(wire)
    for _ in range(5):  # an SDK that retries on its own backoff meets the same answer each time
        loopback.enqueue(wire.path, faults.busy(wire, 429, "120"))
    finished = await session.send("Hi", lambda e: None)
    await finish(session)
    status, _text, error = reply_state(session)
    assert finished.outcome == "failed" and status is MessageStatus.FAILED
    assert "429" in error and ("retry" in error.lower() or "wait" in error.lower())
    assert_valid_for_every_provider(stored_messages(session, tmp_path))


async def test_a_malformed_frame_ends_the_reply_in_words_and_keeps_what_came(wire, make_session, loopback, tmp_path):
    session = make_session(wire)
    loopback.enqueue(wire.path, faults.malformed_after(wire, 2))
    finished = await session.send("Hi", lambda e: None)
    await finish(session)
    status, text, error = reply_state(session)
    assert finished.outcome in ("failed", "interrupted") and status in (MessageStatus.FAILED, MessageStatus.INTERRUPTED)
    assert text == PIECES[0] + PIECES[1]
    assert "JSON" in error and "kept" in error
    stored = stored_messages(session, tmp_path)
    assert stored[-1].text == text and stored[-1].status is status
    assert_valid_for_every_provider(stored)


@pytest.mark.parametrize("drop", [False, True], ids=["body-ends", "socket-closed"])
async def test_a_frame_cut_in_half_keeps_the_whole_frames_before_it(wire, drop, make_session, loopback, tmp_path):
    session = make_session(wire)
    loopback.enqueue(wire.path, faults.cut_inside_frame(wire, 3, drop=drop))
    finished = await session.send("Hi", lambda e: None)
    await finish(session)
    status, text, error = reply_state(session)
    assert finished.outcome == "interrupted" and status is MessageStatus.INTERRUPTED
    assert text == "".join(PIECES[:3]) and "kept" in error
    stored = stored_messages(session, tmp_path)
    assert stored[-1].text == text and stored[-1].status is MessageStatus.INTERRUPTED
    assert_valid_for_every_provider(stored)


async def test_network_chunks_cut_inside_characters_lose_nothing(wire, make_session, loopback, tmp_path):
    session = make_session(wire)
    loopback.enqueue(wire.path, faults.bytes_cut_inside_characters(wire))
    finished = await session.send("Weather?", lambda e: None)
    await finish(session)
    assert finished.outcome == "completed"
    assert session.conversation.messages[-1].text == WIDE
    assert stored_messages(session, tmp_path)[-1].text == WIDE


async def test_a_refused_tool_round_leaves_a_history_every_provider_takes(wire, mcp_session, loopback, tmp_path):
    """The tool ran, then the provider refused the request carrying its result: the failed reply is empty and the
    next question follows the result. Every wire must still send a history its API takes (Gemini refuses two user
    turns in a row), and the conversation goes on."""
    session = await mcp_session(stdio_config("demo"), wire)
    loopback.enqueue(wire.path, wire.reply(wire.tool_call("call_fault_7", "mcp__demo__read_note", '{"name": "todo"}')),
                     wire.error(400, "the request carrying the tool result was refused", {}))
    failed = await session.send("Read my todo note", lambda e: None)
    assert failed.outcome == "failed"
    stored = session.store.load_conversation(session.conversation.id).messages
    assert [m.role.value for m in stored] == ["user", "assistant", "assistant"] and stored[-1].status is MessageStatus.FAILED
    assert [(c.name, c.status) for c in stored[1].tool_calls] == [("mcp__demo__read_note", ToolCallStatus.DONE)]
    assert_valid_for_every_provider(stored)

    loopback.enqueue(wire.path, wire.text_reply("It says: buy milk."))
    again = await session.send(NEXT_TURN, lambda e: None)
    await finish(session)
    assert again.outcome == "completed", session.conversation.messages[-1].error
    sent = loopback.requests_to(wire.path)[-1].json()
    assert sent_request_problems(wire.provider, sent) == []
    assert NEXT_TURN in str(sent) and stored[1].tool_calls[0].result[:20] in str(sent)  # the question and the result
    assert_valid_for_every_provider(session.store.load_conversation(session.conversation.id).messages)
