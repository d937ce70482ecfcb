"""The size of the next request: exact up to the last reply whose usage was reported (input, cache where counted
apart, output), estimated after it; the system prompt and tools, the draft and its attachments; compactions and
trimming honoured; the calibration fed from the reports; each message weighed once."""

from __future__ import annotations

import pytest

from desktop_copilot.core.context import budget
from desktop_copilot.core.context.budget import ContextBreakdown, measure
from desktop_copilot.core.context.tokens import (
    MESSAGE_OVERHEAD,
    estimate_tokens,
    factor,
    image_tokens,
    message_tokens,
)
from desktop_copilot.core.conversation.models import (
    Compaction,
    Conversation,
    ImageBlock,
    Message,
    Role,
    TextBlock,
    TextFileBlock,
    ToolCallBlock,
    ToolCallStatus,
    Usage,
)
from desktop_copilot.core.providers.base import ToolSpec

PROSE = "The meter counts what the next request sends against the model's window. "  # about 14 tokens
TOOL = ToolSpec("web_search", "Search the web for pages about a query.",
                {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]})


pytestmark = pytest.mark.usefixtures("fresh_budget")


def user(text: str, created_at: float = 0.0) -> Message:
    message = Message.user(text)
    message.created_at = created_at or message.created_at
    return message


def reply(text: str, provider: str = "anthropic", created_at: float = 0.0, calls: tuple[ToolCallBlock, ...] = (),
          **usage: int) -> Message:
    message = Message(role=Role.ASSISTANT, blocks=[TextBlock(text=text), *calls], provider=provider, usage=Usage(**usage))
    message.created_at = created_at or message.created_at
    return message


def conversation_of(*messages: Message, compactions: list[Compaction] | None = None) -> Conversation:
    return Conversation(messages=list(messages), compactions=compactions or [])


def long_exchange(provider: str = "anthropic", **usage: int) -> Conversation:
    """A question of about 4,000 tokens and its reply, which reported `usage`."""
    return conversation_of(user(PROSE * 300, 1.0), reply("Here is what I found.", provider, 2.0, **usage))


def test_the_history_is_what_the_last_reply_reported_less_the_system_prompt_and_tools():
    conversation = long_exchange(input_tokens=4600, output_tokens=400)
    system = "You are terse."
    breakdown = measure(conversation, window=200_000, output_reserve=8_000, system=system, tools=[TOOL], provider="anthropic")
    assert 30 < breakdown.system_and_tools < 100
    assert breakdown.history == 4600 + 400 - breakdown.system_and_tools
    assert breakdown.exact_tokens == 5000
    assert (breakdown.draft, breakdown.attachments, breakdown.output_reserve) == (0, 0, 8000)
    assert breakdown.total == 5000 + 8000
    assert breakdown.fraction == pytest.approx(13_000 / 200_000)
    assert breakdown.estimated_tokens == 0  # all of the input reported


def test_anthropic_cache_reads_and_writes_are_added_where_others_count_them_inside_the_input():
    anthropic = long_exchange("anthropic", input_tokens=100, cache_read_tokens=4000, cache_write_tokens=500, output_tokens=400)
    assert measure(anthropic, window=200_000, provider="anthropic").exact_tokens == 5000
    openai = long_exchange("openai", input_tokens=4600, cache_read_tokens=4000, output_tokens=400)
    assert measure(openai, window=128_000, provider="openai").exact_tokens == 5000


def test_what_came_after_the_reported_reply_is_estimated_on_top():
    result = "search result line\n" * 40
    call = ToolCallBlock(id="t1", name="web_search", arguments={"query": "meters"}, status=ToolCallStatus.DONE, result=result)
    conversation = conversation_of(user(PROSE * 300, 1.0), reply("Let me look.", "anthropic", 2.0, (call,), input_tokens=4600, output_tokens=60),
                                   reply("Found it.", "anthropic", 3.0), user("And what about caching?", 4.0))
    breakdown = measure(conversation, window=200_000, provider="anthropic")
    after = estimate_tokens(result) + message_tokens(conversation.messages[2]) + message_tokens(conversation.messages[3])
    assert breakdown.exact_tokens == 4660
    assert breakdown.history == pytest.approx(4660 + after, abs=25)  # a tool result's wrapping is estimated too
    assert breakdown.history > 4660 + after - 1


def test_the_draft_and_its_attachments_are_counted_apart():
    conversation = long_exchange(input_tokens=4600, output_tokens=400)
    empty = measure(conversation, window=200_000, provider="anthropic")
    draft = "Please compare the two approaches in a table."
    image = ImageBlock(media_type="image/png", data="", width=1092, height=1092)
    notes = TextFileBlock(name="notes.md", text=PROSE * 20)
    typed = measure(conversation, window=200_000, provider="anthropic", draft=draft, attachments=[image, notes])
    assert typed.draft == estimate_tokens(draft, "anthropic") + MESSAGE_OVERHEAD  # as calibrated by the reply's report
    notes_tokens = estimate_tokens(PROSE * 20, "anthropic")
    assert image_tokens(1092, 1092) + notes_tokens <= typed.attachments < image_tokens(1092, 1092) + notes_tokens + 30
    assert typed.history == empty.history
    assert typed.total == empty.total + typed.draft + typed.attachments


def test_without_any_report_everything_is_estimated():
    conversation = conversation_of(user(PROSE * 100), reply("Sure."))
    breakdown = measure(conversation, window=8_192, output_reserve=1_000, provider="ollama")
    assert breakdown.exact_tokens == 0
    assert breakdown.history == sum(message_tokens(m) for m in conversation.messages)
    empty = measure(Conversation(), window=0, provider="anthropic")
    assert (empty.total, empty.fraction) == (0, 0.0)  # an unknown window: no fraction


def test_another_providers_report_does_not_count_for_this_one():
    conversation = long_exchange("anthropic", input_tokens=4600, output_tokens=400)
    breakdown = measure(conversation, window=128_000, provider="openai")
    assert breakdown.exact_tokens == 0
    assert breakdown.history == pytest.approx(sum(message_tokens(m) for m in conversation.messages), abs=2)


def test_a_report_far_from_what_was_sent_is_not_trusted():
    conversation = long_exchange("ollama", input_tokens=40, output_tokens=10)  # a server that counted only the uncached part
    breakdown = measure(conversation, window=8_192, provider="ollama")
    assert breakdown.exact_tokens == 0
    assert breakdown.history > 3_500
    assert factor("ollama") == 1.0


def test_the_report_teaches_the_calibration_once():
    estimate = estimate_tokens(PROSE * 300)
    conversation = long_exchange(input_tokens=round(estimate * 1.3), output_tokens=10)
    measure(conversation, window=200_000, provider="anthropic")
    learned = factor("anthropic")
    assert 1.05 < learned < 1.3
    conversation.messages.append(user("One more thing."))
    measure(conversation, window=200_000, provider="anthropic", draft="and again")
    assert factor("anthropic") == learned  # the same reply teaches nothing twice
    assert estimate_tokens(PROSE * 300, "anthropic") > estimate


def test_a_compaction_made_after_the_report_makes_the_history_its_summary_and_what_follows():
    first, answer = user(PROSE * 300, 1.0), reply("Long answer. " * 200, "anthropic", 2.0, input_tokens=4600, output_tokens=900)
    recent = [user("Next question?", 3.0), reply("Next answer.", "anthropic", 4.0)]
    compaction = Compaction(first_message_id=first.id, last_message_id=answer.id, summary="We talked about meters.",
                            messages=2, created_at=5.0)
    conversation = conversation_of(first, answer, *recent, compactions=[compaction])
    breakdown = measure(conversation, window=200_000, provider="anthropic")
    assert breakdown.exact_tokens == 0
    assert breakdown.history < 100  # the summary and the two recent messages
    compaction.undone = True
    undone = measure(conversation, window=200_000, provider="anthropic")
    assert undone.exact_tokens == 5500  # the report counted the messages whole, as they are sent again
    assert undone.history > 5500


def test_a_report_made_while_a_compaction_now_undone_applied_is_not_taken():
    first, answer = user(PROSE * 300, 1.0), reply("Long answer. " * 200, "anthropic", 2.0)
    compaction = Compaction(first_message_id=first.id, last_message_id=answer.id, summary="We talked about meters.",
                            messages=2, created_at=3.0, undone=True)
    question = user(PROSE * 300, 4.0)
    sent_then = estimate_tokens(PROSE * 300) + 40  # the question and the summary: the report is near that, not the whole
    later = reply("Short.", "anthropic", 5.0, input_tokens=sent_then, output_tokens=5)
    conversation = conversation_of(first, answer, question, later, compactions=[compaction])
    breakdown = measure(conversation, window=200_000, provider="anthropic")
    assert breakdown.exact_tokens == 0  # estimated: the compacted messages are sent whole again
    assert breakdown.history > 2 * sent_then
    compaction.undone = False  # still live: the report stands
    assert measure(conversation, window=200_000, provider="anthropic").exact_tokens == sent_then + 5


def test_old_long_tool_results_count_as_the_excerpt_a_request_sends():
    huge = "a long line of a tool result that goes on\n" * 2_500  # 105,000 characters
    call = ToolCallBlock(id="t1", name="read_file", arguments={"path": "log.txt"}, status=ToolCallStatus.DONE, result=huge)
    messages = [user("Read the log.", 1.0), reply("Reading.", "ollama", 2.0, (call,)), reply("It is long.", "ollama", 3.0)]
    recent = measure(conversation_of(*messages), window=32_000, provider="ollama")
    assert recent.history > estimate_tokens(huge)  # within the last turns: whole
    for turn in range(5):
        messages += [user(f"Question {turn}?", 10.0 + turn), reply(f"Answer {turn}.", "ollama", 10.5 + turn)]
    old = measure(conversation_of(*messages), window=32_000, provider="ollama")
    assert old.history < 1_000  # five turns later: its head and tail


def test_typing_weighs_no_message_again_and_a_new_message_only_itself(monkeypatch):
    conversation = conversation_of(*[m for i in range(200) for m in (user(f"{PROSE} {i}"), reply(f"Answer {i}."))])
    weighed: list[str] = []
    real = budget.message_weight
    monkeypatch.setattr(budget, "message_weight", lambda message: weighed.append(message.id) or real(message))
    first = measure(conversation, window=200_000, provider="anthropic", draft="h")
    assert len(weighed) == 400
    weighed.clear()
    for draft in ("he", "hel", "hell", "hello"):
        typed = measure(conversation, window=200_000, provider="anthropic", draft=draft)
        assert typed.history == first.history
    assert weighed == []
    conversation.messages.append(user("A new question?"))
    measure(conversation, window=200_000, provider="anthropic", draft="")
    assert weighed == [conversation.messages[-1].id]


def test_the_breakdown_adds_up():
    breakdown = ContextBreakdown(window=1000, system_and_tools=10, history=500, draft=20, attachments=70, output_reserve=300,
                                 total=900, exact_tokens=400)
    assert breakdown.fraction == 0.9 and breakdown.estimated_tokens == 200
