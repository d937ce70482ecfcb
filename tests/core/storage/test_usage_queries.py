"""The usage query on a real SQLite file: sums per local day, provider, model and prompt band across conversations,
earlier versions included, old rows without every field, filters, and the same totals as the replies themselves."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop_copilot.core.conversation.models import Conversation, Message, MessageStatus, Usage
from desktop_copilot.core.usage.pricing import DEFAULT_TABLE
from desktop_copilot.core.storage.store import Store
from desktop_copilot.core.storage.usage_queries import UsageRow, usage_rows
from desktop_copilot.core.storage.versions import TailArchive
from desktop_copilot.core.usage.totals import conversation_totals, rows_totals

BANDS = DEFAULT_TABLE.prompt_bands
NOON = datetime(2026, 3, 10, 12, 0)


def at(days_ago: int, hour: int = 12) -> float:
    return (NOON - timedelta(days=days_ago)).replace(hour=hour).timestamp()


def reply(provider: str | None, model: str, created_at: float, **usage: int) -> Message:
    message = Message.assistant(model, provider)
    message.usage = Usage(**usage)
    message.status = MessageStatus.COMPLETED
    message.created_at = created_at
    return message


@pytest.fixture
def store(tmp_path):
    store = Store(tmp_path / "conversations.db")
    yield store
    store.close()


def save(store: Store, *messages: Message) -> Conversation:
    conversation = Conversation()
    store.save_conversation(conversation)
    for seq, message in enumerate(messages):
        store.save_message(conversation.id, seq, message)
    conversation.messages = list(messages)
    return conversation


def test_rows_per_day_provider_and_model_across_conversations(store):
    save(store, Message.user("hi"), reply("anthropic", "claude-haiku-4-5", at(0), input_tokens=100, output_tokens=10, cache_read_tokens=5),
         reply("anthropic", "claude-haiku-4-5", at(0, 18), input_tokens=200, output_tokens=20, cache_write_tokens=7))
    save(store, reply("openai", "gpt-4o", at(0), input_tokens=1000, output_tokens=50, reasoning_tokens=30),
         reply("anthropic", "claude-haiku-4-5", at(2), input_tokens=1, output_tokens=1))
    rows = usage_rows(store.connection, prompt_bands=BANDS)
    today, two_days_ago = NOON.date(), NOON.date() - timedelta(days=2)
    assert rows == [
        UsageRow(two_days_ago, "anthropic", "claude-haiku-4-5", 0, Usage(input_tokens=1, output_tokens=1), 1),
        UsageRow(today, "anthropic", "claude-haiku-4-5", 0,
                 Usage(input_tokens=300, output_tokens=30, cache_read_tokens=5, cache_write_tokens=7), 2),
        UsageRow(today, "openai", "gpt-4o", 0, Usage(input_tokens=1000, output_tokens=50, reasoning_tokens=30), 1),
    ]


def test_days_are_local_calendar_days(store):
    late, early = NOON.replace(hour=23, minute=59).timestamp(), (NOON + timedelta(days=1)).replace(hour=0, minute=1).timestamp()
    save(store, reply("openai", "gpt-4o", late, input_tokens=1, output_tokens=1), reply("openai", "gpt-4o", early, input_tokens=1, output_tokens=1))
    assert [r.day for r in usage_rows(store.connection)] == [date.fromtimestamp(late), date.fromtimestamp(early)]
    assert date.fromtimestamp(late) != date.fromtimestamp(early)


def test_prompt_bands_count_anthropic_cache_in_the_prompt_and_others_not_twice(store):
    save(store,
         reply("anthropic", "claude-sonnet-4-5", at(0), input_tokens=60_000, output_tokens=1, cache_read_tokens=150_000),  # 210k prompt
         reply(None, "claude-sonnet-4-5", at(0), input_tokens=100_000, output_tokens=1, cache_read_tokens=50_000),  # 150k prompt
         reply("gemini", "gemini-2.5-pro", at(0), input_tokens=190_000, output_tokens=1, cache_read_tokens=150_000))  # 190k prompt
    bands = {(r.provider, r.usage.input_tokens): r.prompt_band for r in usage_rows(store.connection, prompt_bands=BANDS)}
    assert bands == {("anthropic", 60_000): 2, (None, 100_000): 1, ("gemini", 190_000): 1}
    assert {r.prompt_band for r in usage_rows(store.connection)} == {0}  # no bands asked: one band


def test_earlier_versions_count_and_can_be_left_out(store):
    kept = reply("deepseek", "deepseek-chat", at(1), input_tokens=500, output_tokens=50)
    replaced = reply("deepseek", "deepseek-chat", at(1), input_tokens=400, output_tokens=40, cache_read_tokens=300)
    conversation = save(store, Message.user("question"), replaced)
    TailArchive(store).archive(conversation.id, 1, [replaced])  # regenerated: the first answer is an earlier version now
    store.save_message(conversation.id, 1, kept)
    [both] = usage_rows(store.connection)
    assert both.replies == 2 and both.usage == Usage(input_tokens=900, output_tokens=90, cache_read_tokens=300)
    [current] = usage_rows(store.connection, earlier_versions=False)
    assert current.replies == 1 and current.usage == kept.usage


def test_filters_by_time_and_conversation(store):
    first = save(store, reply("openai", "gpt-4o", at(10), input_tokens=1, output_tokens=1), reply("openai", "gpt-4o", at(1), input_tokens=2, output_tokens=2))
    save(store, reply("openai", "gpt-4o", at(1), input_tokens=4, output_tokens=4))
    assert sum(r.usage.input_tokens for r in usage_rows(store.connection, since=at(3))) == 6
    assert sum(r.usage.input_tokens for r in usage_rows(store.connection, conversation_id=first.id)) == 3
    assert usage_rows(store.connection, conversation_id="conv_nope") == []


def test_old_rows_and_unreadable_blocks(store):
    """Rows of older versions: no provider, usage without reasoning (or empty); the query never reads the blocks."""
    conversation = save(store)
    db = store.connection
    for number, usage in enumerate(['{"input_tokens": 5, "output_tokens": 2}', "{}"]):
        db.execute("INSERT INTO messages (id, conversation_id, seq, role, status, model, usage, blocks, created_at, updated_at) "
                   "VALUES (?, ?, ?, 'assistant', 'completed', 'claude-3-5-haiku-20241022', ?, 'not json at all', ?, ?)",
                   (f"msg_old{number}", conversation.id, number, usage, at(0), at(0)))
    [row] = usage_rows(db, prompt_bands=BANDS)
    assert row.provider is None and row.replies == 1 and row.usage == Usage(input_tokens=5, output_tokens=2)  # "{}" used nothing
    assert rows_totals([row]).cost == pytest.approx((5 * 0.80 + 2 * 4) / 1e6)


def test_an_empty_database_and_replies_without_tokens_have_no_rows(store):
    assert usage_rows(store.connection, prompt_bands=BANDS) == []
    save(store, reply("openai", "gpt-4o", at(0)), reply("anthropic", "claude-haiku-4-5", at(0), input_tokens=0, output_tokens=0))
    assert usage_rows(store.connection, prompt_bands=BANDS) == []


PROVIDERS = ["anthropic", None, "openai", "gemini", "ollama", "my-endpoint"]
MODELS = ["claude-sonnet-4-5", "gpt-4.1", "gemini-2.5-pro", "grok-4", "llama3.2", "mystery"]


@st.composite
def stored_replies(draw) -> Message:
    provider, model = draw(st.sampled_from(PROVIDERS)), draw(st.sampled_from(MODELS))
    tokens = st.one_of(st.just(0), st.integers(min_value=0, max_value=300_000))  # replies without tokens too
    read, write, fresh, output = draw(tokens), draw(tokens), draw(tokens), draw(tokens)
    apart = provider in (None, "anthropic")
    return reply(provider, model, at(draw(st.integers(min_value=0, max_value=5)), draw(st.integers(min_value=0, max_value=23))),
                 input_tokens=fresh if apart else fresh + read + write, output_tokens=output, cache_read_tokens=read,
                 cache_write_tokens=write, reasoning_tokens=draw(st.integers(min_value=0, max_value=output)))


@given(st.lists(stored_replies(), max_size=12))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_the_query_totals_equal_the_replies_totals(tmp_path_factory, messages):
    store = Store(tmp_path_factory.mktemp("usage") / "conversations.db")
    try:
        save(store, Message.user("hi"), *messages)
        rows = usage_rows(store.connection, prompt_bands=BANDS)
        direct, queried = conversation_totals(messages), rows_totals(rows)
        assert queried.counts == direct.counts
        assert (queried.replies, queried.unpriced, queried.free) == (direct.replies, direct.unpriced, direct.free)
        assert queried.cost == pytest.approx(direct.cost, rel=1e-9, abs=1e-12)
        used = [m for m in messages if m.usage.input_tokens + m.usage.output_tokens + m.usage.cache_read_tokens + m.usage.cache_write_tokens]
        assert sum(r.replies for r in rows) == len(used)
    finally:
        store.close()
