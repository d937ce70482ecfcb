"""The usage ledger: totals kept per message revision equal the conversation summed afresh, through replies added and
streamed usage, branch switches, removals without notice and price changes; a turn prices only the messages it
changed, and the whole conversation is summed again only when it has to be."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.accumulate import accumulate
from desktop_copilot.core.conversation.models import Message, Usage
from desktop_copilot.core.usage import ledger as ledger_module
from desktop_copilot.core.usage.ledger import UsageLedger, same_prices
from desktop_copilot.core.usage.pricing import DEFAULT_TABLE, ModelPrice, price_table
from desktop_copilot.core.usage.totals import conversation_totals
from tests.core.usage.test_usage import assert_same, replies, reply


def test_a_new_reply_and_its_streamed_usage_are_added_without_summing_again():
    messages = [Message.user("hi"), reply("anthropic", "claude-haiku-4-5", input_tokens=1_000, output_tokens=200)]
    ledger = UsageLedger()
    ledger.reset(messages)
    assert_same(ledger.totals(messages, DEFAULT_TABLE), conversation_totals(messages))
    assert ledger.sums == 1

    new = Message.assistant("claude-sonnet-4-5", "anthropic")
    messages.append(new)
    ledger.note(new)
    accumulate(new, ev.UsageUpdate(message_id=new.id, usage=Usage(input_tokens=3_000, output_tokens=10)))
    ledger.changed(new.id)
    accumulate(new, ev.UsageUpdate(message_id=new.id, usage=Usage(input_tokens=3_000, output_tokens=400, cache_read_tokens=9_000)))
    ledger.changed(new.id)
    totals = ledger.totals(messages, DEFAULT_TABLE)
    assert_same(totals, conversation_totals(messages))
    assert totals.counts.output == 600 and totals.replies == 2
    assert ledger.sums == 1  # the turn priced only its own reply


def test_each_message_is_priced_once_per_revision(monkeypatch):
    messages = [reply("openai", "gpt-4.1-mini", input_tokens=500, output_tokens=50) for _ in range(5)]
    ledger = UsageLedger()
    ledger.reset(messages)
    ledger.totals(messages, DEFAULT_TABLE)
    priced: list[str] = []
    original = ledger_module.message_totals
    monkeypatch.setattr(ledger_module, "message_totals", lambda m, t=None: priced.append(m.id) or original(m, t))
    for _ in range(3):
        ledger.changed(messages[2].id)  # the same revision: nothing to price
        ledger.totals(messages, DEFAULT_TABLE)
    assert priced == []
    accumulate(messages[2], ev.UsageUpdate(message_id=messages[2].id, usage=Usage(input_tokens=700, output_tokens=70)))
    ledger.changed(messages[2].id)
    ledger.changed("msg_not_in_this_conversation")
    assert priced == [messages[2].id]
    assert_same(ledger.totals(messages, DEFAULT_TABLE), conversation_totals(messages))


def test_summed_again_when_the_history_prices_or_list_change():
    messages = [reply("anthropic", "claude-haiku-4-5", input_tokens=100 * n, output_tokens=n) for n in range(1, 6)]
    ledger = UsageLedger()
    ledger.reset(messages)
    ledger.totals(messages, DEFAULT_TABLE)

    del messages[1:3]  # a branch switched back, nothing noted: the count no longer matches
    assert_same(ledger.totals(messages, DEFAULT_TABLE), conversation_totals(messages))
    assert ledger.sums == 2

    cheaper = price_table({"claude-haiku-4-5": ModelPrice(input=0.01, output=0.01)})
    assert_same(ledger.totals(messages, cheaper), conversation_totals(messages, cheaper))
    assert ledger.sums == 3
    same = price_table({"claude-haiku-4-5": ModelPrice(input=0.01, output=0.01)})  # a new table with the same prices
    assert same is not cheaper and same_prices(same, cheaper) and not same_prices(same, DEFAULT_TABLE)
    ledger.totals(messages, same)
    assert ledger.sums == 3

    other = [reply("gemini", "gemini-2.5-pro", input_tokens=9_000, output_tokens=9)]  # another conversation's list
    assert_same(ledger.totals(other, DEFAULT_TABLE), conversation_totals(other))
    ledger.reset(messages)  # the history changed in place (HistoryChanged)
    assert_same(ledger.totals(messages, DEFAULT_TABLE), conversation_totals(messages))
    assert ledger.sums == 5


def test_a_message_replaced_by_another_object_with_the_same_id_is_priced_anew():
    first = reply("anthropic", "claude-haiku-4-5", input_tokens=1_000, output_tokens=100)
    messages = [first]
    ledger = UsageLedger()
    ledger.reset(messages)
    ledger.totals(messages, DEFAULT_TABLE)
    picked = first.model_copy(update={"usage": Usage(input_tokens=5_000, output_tokens=500)})  # same id and revision
    messages[0] = picked
    ledger.note(picked)
    assert ledger.totals(messages, DEFAULT_TABLE).counts.output == 500


@given(st.lists(replies(), min_size=1, max_size=20), st.lists(st.tuples(st.integers(0, 19), st.integers(0, 50_000)), max_size=40))
@settings(max_examples=100, deadline=None)
def test_noted_changes_in_any_order_equal_a_fresh_sum(messages: list[Message], changes: list[tuple[int, int]]):
    ledger = UsageLedger()
    ledger.reset(messages)
    ledger.totals(messages, DEFAULT_TABLE)
    for index, output in changes:
        message = messages[index % len(messages)]
        accumulate(message, ev.UsageUpdate(message_id=message.id, usage=message.usage.model_copy(update={"output_tokens": output,
                                                                                                        "reasoning_tokens": 0})))
        ledger.changed(message.id)
    totals = ledger.totals(messages, DEFAULT_TABLE)
    assert ledger.sums == 1
    assert_same(totals, conversation_totals(messages))
    if not changes:
        assert totals == ledger.totals(messages, DEFAULT_TABLE)
