"""What a request sends and how large it is, kept between requests (trimmed copies, the budget's weights and running
totals): after any sequence of new messages, edits in place, copies, regenerations and compactions, the same as counted
afresh, and no message kept alive."""

from __future__ import annotations

import gc
import weakref

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_copilot.core.context import budget
from desktop_copilot.core.context.budget import _HistoryCounter, measure
from desktop_copilot.core.context.tokens import forget_calibration
from desktop_copilot.core.context.trimming import RESULT_LIMIT, sent_messages, trim_old_tool_results
from desktop_copilot.core.conversation.models import (
    Compaction,
    Conversation,
    Message,
    Role,
    TextBlock,
    ToolCallBlock,
    ToolCallStatus,
    Usage,
)

OPERATIONS = st.lists(st.tuples(st.sampled_from(["user", "reply", "tool", "reported", "edit", "copy", "cut", "compact",
                                                 "undo"]), st.integers(0, 10_000)), min_size=1, max_size=50)


pytestmark = pytest.mark.usefixtures("fresh_budget")


def tool_reply(n: int) -> Message:
    result = "line of output\n" * (20 + n % 300)  # often longer than RESULT_LIMIT: trimmed once older
    return Message(role=Role.ASSISTANT, provider="anthropic", blocks=[
        TextBlock(text=f"Checking {n}."),
        ToolCallBlock(id=f"toolu_{n}", name="read", arguments={"n": n}, status=ToolCallStatus.DONE, result=result)])


def apply(conversation: Conversation, kind: str, n: int) -> None:
    messages = conversation.messages
    if kind == "user":
        messages.append(Message.user(f"Question {n}. " * (1 + n % 40)))
    elif kind == "reply":
        messages.append(Message(role=Role.ASSISTANT, provider="anthropic", blocks=[TextBlock(text=f"Answer {n}. " * 30)]))
    elif kind == "tool":
        messages.append(tool_reply(n))
    elif kind == "reported":  # a reply whose provider reported about what its request held
        estimate = measure(conversation, window=200_000, next_message=False).history
        messages.append(Message(role=Role.ASSISTANT, provider="anthropic", blocks=[TextBlock(text=f"Reported {n}.")],
                                usage=Usage(input_tokens=max(1, int(estimate * (0.8 + (n % 5) / 10))), output_tokens=9)))
    elif kind == "edit" and messages:
        target = messages[n % len(messages)]
        target.blocks.append(TextBlock(text=f"more {n} " * 50))
        target.touch()
    elif kind == "copy" and messages:
        index = n % len(messages)
        messages[index] = messages[index].model_copy()
    elif kind == "cut" and len(messages) > 1:
        del messages[1 + n % (len(messages) - 1):]
    elif kind == "compact" and len(messages) > 4:
        last = messages[n % (len(messages) - 2)]
        conversation.compactions.append(Compaction(first_message_id=messages[0].id, last_message_id=last.id,
                                                   summary=f"summary {n}", messages=3))
    elif kind == "undo" and conversation.compactions:
        conversation.compactions[-1].undone = True


@settings(max_examples=80, deadline=None)
@given(OPERATIONS)
def test_kept_counts_equal_counting_afresh(operations):
    forget_calibration()
    budget.forget()
    conversation = Conversation(messages=[Message.user("Start.")])
    for kind, n in operations:
        apply(conversation, kind, n)
        for next_message in (True, False):
            counter = budget._counter(conversation.id)
            known = dict(counter.requests)  # (a reply's request is weighed once, as it was sent: both keep those)
            kept = counter.history(conversation, "anthropic", 100.0, next_message)
            fresh = _HistoryCounter()
            fresh.requests = known
            assert kept == fresh.history(conversation, "anthropic", 100.0, next_message)
            assert all(fresh.requests[reply] == weighed for reply, weighed in counter.requests.items())


@settings(max_examples=60, deadline=None)
@given(OPERATIONS)
def test_kept_trimmed_copies_equal_trimming_afresh(operations):
    conversation = Conversation(messages=[Message.user("Start.")])
    for kind, n in operations:
        apply(conversation, kind, n)
        kept = trim_old_tool_results(conversation.messages)
        assert [m.model_dump() for m in kept] == [m.model_dump() for m in _trim_afresh(conversation.messages)]
        assert sent_messages(conversation.messages)  # (through sendable_history: the same copies)


def _trim_afresh(messages: list[Message]) -> list[Message]:
    """Trimming with nothing kept: the messages behind a first message of their own."""
    stand_in = messages[0].model_copy()
    return [messages[0], *trim_old_tool_results([stand_in, *messages[1:]])[1:]]


def test_a_long_result_is_trimmed_once_it_is_old_and_the_same_copy_is_sent_again():
    messages = [Message.user("Start."), tool_reply(299)]
    for n in range(6):
        messages += [Message.user(f"Question {n}"), Message(role=Role.ASSISTANT, provider="anthropic",
                                                              blocks=[TextBlock(text="ok")])]
    first, again = trim_old_tool_results(messages), trim_old_tool_results(messages)
    assert first[1] is again[1] is not messages[1]
    assert len(first[1].tool_calls[0].model_result) < RESULT_LIMIT + 200 < len(messages[1].tool_calls[0].result)


def test_an_old_message_edited_or_replaced_is_trimmed_as_it_now_is():
    messages = [Message.user("Start."), tool_reply(299), tool_reply(298)]
    for n in range(6):
        messages += [Message.user(f"Question {n}"), tool_reply(290 - n)]
    trim_old_tool_results(messages)
    messages[1].tool_calls[0].result = "new output\n" * 400
    messages[1].touch()
    messages[2] = tool_reply(297)
    del messages[9:]
    messages += [Message.user("Again"), tool_reply(296), Message.user("And again")]
    assert [m.model_dump() for m in trim_old_tool_results(messages)] == [m.model_dump() for m in _trim_afresh(messages)]


def test_no_message_is_kept_alive_by_what_is_kept():
    conversation = Conversation(messages=[m for n in range(30) for m in (Message.user(f"q{n}"), tool_reply(n + 200))])
    measure(conversation, window=200_000)
    watched = [weakref.ref(message) for message in conversation.messages]
    del conversation
    gc.collect()
    assert all(ref() is None for ref in watched)
