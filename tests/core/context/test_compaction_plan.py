"""What gets compacted: the oldest whole turns before the last few, never a call without its result, never twice what a
live compaction covers (a newer one takes its summary over), and what the user undid only when asked."""

from __future__ import annotations

from desktop_copilot.core.context.compaction import (
    CompactionPlan,
    compaction_notice,
    dropped_compaction,
    overflow_words,
    plan_compaction,
    summary_compaction,
    turn_starts,
)
from desktop_copilot.core.context.overflow import overflow_words as wire_overflow_words
from desktop_copilot.core.conversation.history import live_compactions
from desktop_copilot.core.conversation.models import Message, Role
from tests.core.context.turns import conversation, reply, tool_round, turn


def ids(messages: list[Message]) -> list[str]:
    return [m.id for m in messages]


def test_everything_before_the_last_turns_is_planned_and_they_stay_whole():
    history = conversation(6, rounds=2)  # 6 turns of 4 messages: question, two tool rounds, answer
    plan = plan_compaction(history, [], keep_turns=4)
    assert ids(plan.messages) == ids(history[:8]) and plan.fresh == plan.messages and plan.replaces == []
    assert history[8].role is Role.USER and history[8].text == "question 2"  # the last four turns begin here
    assert plan_compaction(history, [], keep_turns=6) is None  # nothing before the turns kept whole
    assert ids(plan_compaction(history, [], keep_turns=0).messages) == ids(history[:20])  # at least the last turn stays


def test_a_range_never_ends_between_a_call_and_its_result():
    """Each range ends right before a turn's user message; a turn whose call has no result yet cannot end one."""
    history = conversation(5, rounds=3)
    for keep in (1, 2, 3, 4):
        plan = plan_compaction(history, [], keep_turns=keep)
        following = history[len(plan.messages)]
        assert following.role is Role.USER and not plan.messages[-1].tool_calls  # the turn ended with its answer
        assert all(call.status.finished for m in plan.messages for call in m.tool_calls)
    unfinished = [*turn("q0", "a0"), Message.user("q1"), tool_round(finished=False), *turn("q2", "a2"), *turn("q3", "a3")]
    plan = plan_compaction(unfinished, [], keep_turns=1)
    assert ids(plan.messages) == ids(unfinished[:2])  # not into the turn whose call is still running


def test_user_messages_in_a_row_are_one_turn():
    history = [Message.user("a"), Message.user("a, again"), reply("b"), *turn("c", "d"), *turn("e", "f")]
    assert turn_starts(history) == [0, 3, 5]
    assert ids(plan_compaction(history, [], keep_turns=2).messages) == ids(history[:3])


def test_a_new_compaction_takes_the_older_summary_over_and_never_compacts_it_again():
    history = conversation(6)
    first = summary_compaction(plan_compaction(history[:9], [], keep_turns=1), "turns 0 and 1", provider="anthropic", model="m")
    assert (first.first_message_id, first.last_message_id, first.messages) == (history[0].id, history[5].id, 6)
    plan = plan_compaction(history, [first], keep_turns=2)
    assert ids(plan.messages) == ids(history[:12]) and ids(plan.fresh) == ids(history[6:12])
    assert plan.replaces == [first]
    second = summary_compaction(plan, "turns 0 to 3", provider="anthropic", model="m")
    assert second.replaces == [first.id] and second.messages == 12
    assert live_compactions([first, second]) == [second]  # the older one is kept, taken over
    assert plan_compaction(history, [first, second], keep_turns=2) is None  # nothing new before the last two turns
    second.undone = True
    assert live_compactions([first, second]) == [first]  # undoing the newer one brings the older one back


def test_what_the_user_undid_is_compacted_again_only_when_asked():
    history = conversation(6)
    undone = summary_compaction(plan_compaction(history, [], keep_turns=3), "s", provider=None, model=None)
    undone.undone = True
    automatic = plan_compaction(history, [undone], keep_turns=2)
    assert ids(automatic.messages) == ids(history[9:12])  # only after what the user wanted sent whole
    forced = plan_compaction(history, [undone], keep_turns=2, respect_undone=False)
    assert ids(forced.messages) == ids(history[:12]) and forced.replaces == []


def test_a_dropped_stretch_is_not_taken_over():
    history = conversation(5)
    dropped = dropped_compaction(plan_compaction(history, [], keep_turns=3), "the provider failed")
    plan = plan_compaction(history, [dropped], keep_turns=1)
    assert ids(plan.messages) == ids(history[6:12]) and plan.replaces == []


def test_a_dropped_compaction_covers_only_the_fresh_messages_and_says_why():
    history = conversation(6)
    older = summary_compaction(plan_compaction(history, [], keep_turns=4), "old", provider=None, model=None)
    plan = plan_compaction(history, [older], keep_turns=2)
    dropped = dropped_compaction(plan.alone(), "Anthropic answered 529: overloaded")
    assert (dropped.kind, dropped.first_message_id, dropped.last_message_id) == ("dropped", history[6].id, history[11].id)
    assert dropped.replaces == [] and dropped.messages == 6 and dropped.tokens_before > dropped.tokens_after > 0
    assert live_compactions([older, dropped]) == [older, dropped]
    notice = compaction_notice(dropped)
    assert notice.startswith(f"compacted 6 messages ({dropped.tokens_before} → {dropped.tokens_after} tokens)")
    assert "leaving them out" in notice and "overloaded" in notice
    summary = summary_compaction(plan, "short", provider="anthropic", model="m", summary_tokens=3)
    assert compaction_notice(summary) == f"compacted 12 messages ({summary.tokens_before} → 3 tokens)"


def test_too_short_a_conversation_plans_nothing():
    assert plan_compaction([], [], keep_turns=4) is None
    assert plan_compaction(turn("q", "a"), [], keep_turns=1) is None
    assert isinstance(plan_compaction(conversation(2), [], keep_turns=1), CompactionPlan)


def test_overflow_words_keep_what_the_provider_answered():
    wire = wire_overflow_words("the Anthropic API answered 400: prompt is too long: 9000 tokens > 4000 maximum")
    words = overflow_words(wire, compacted=True)
    assert words.startswith("The conversation is still longer than the model's context window after its older turns")
    assert "(the Anthropic API answered 400: prompt is too long: 9000 tokens > 4000 maximum)" in words
    assert "Compact now" in words and "New chat from a summary" in words and words.count("Older turns") == 0
    assert "no older turns could be compacted" in overflow_words("prompt is too long.", compacted=False)
