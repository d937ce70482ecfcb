"""What a request sends of a compacted conversation: one user message per live compaction in place of its messages (its
summary, or a note that they are left out), everything else as before (refusals, Continue), and a history every
provider's wire accepts (tests/support/history_rules.py builds each wire's real request)."""

from __future__ import annotations

import pytest

from desktop_copilot.core.content.attachments import read_attachment
from desktop_copilot.core.context.compaction import dropped_compaction, plan_compaction, summary_compaction
from desktop_copilot.core.conversation.history import CONTINUE_INSTRUCTION, compacted_ranges, sendable_history
from desktop_copilot.core.conversation.models import Message, MessageStatus, Role, TextBlock
from tests.core.context.turns import conversation, reply, tool_round, turn
from tests.support.attachment_files import pdf, png
from tests.support.history_rules import assert_valid_for_every_provider


def asking(history: list[Message]) -> list[Message]:
    """`history` with the user's next message, as a request for the next reply has it."""
    return [*history, Message.user("And now?")]


def summarised(history, keep_turns=2, summary="They read notes and agreed on a plan."):
    return summary_compaction(plan_compaction(history, [], keep_turns), summary, provider="anthropic", model="claude-test")


def test_a_summary_takes_the_place_of_its_messages():
    history = conversation(5, rounds=2)
    compaction = summarised(history)
    sent = sendable_history(asking(history), [compaction])
    assert sent[0].role is Role.USER and sent[0].text == (
        "Summary of the earlier conversation (12 messages were compacted):\n\nThey read notes and agreed on a plan.")
    assert sent[1:-1] == history[12:]  # the last two turns, whole
    assert len(history) == 20 and history[0].text == "question 0"  # the conversation keeps every message
    assert_valid_for_every_provider(sent)


def test_a_dropped_stretch_becomes_a_one_line_note():
    history = conversation(4)
    dropped = dropped_compaction(plan_compaction(history, [], keep_turns=1), "the summary request failed")
    sent = sendable_history(asking(history), [dropped])
    assert sent[0].text == ("(9 earlier messages are not shown to the model: the context window was full and no summary "
                            "could be made.)")
    assert "failed" not in sent[0].text and sent[1:-1] == history[9:]
    assert_valid_for_every_provider(sent)


def test_summaries_and_notes_side_by_side_and_an_undone_stretch_sent_whole():
    history = conversation(8, rounds=1)
    older = summarised(history[:9], keep_turns=1)  # turns 0-1
    undone = summary_compaction(plan_compaction(history[:15], [older], 1), "undone", provider=None, model=None)
    undone.undone = True
    assert (undone.replaces, undone.messages) == ([older.id], 12)  # turns 0-3, older's summary taken over
    dropped = dropped_compaction(plan_compaction(history, [older, undone], keep_turns=2), "stalled")  # turns 4-5 only
    sent = sendable_history(asking(history), [older, undone, dropped])
    assert sent[0].text.startswith("Summary of the earlier conversation (6 messages")  # older applies again
    assert sent[1:7] == history[6:12]  # what the user undid goes whole
    assert sent[7].text.startswith("(6 earlier messages are not shown")
    assert sent[8:-1] == history[18:]
    assert_valid_for_every_provider(sent)


def test_refusals_and_continue_work_as_before_around_a_summary():
    history = [*conversation(3), Message.user("a bad question"), reply("", "refusal"), *turn("fine", "fine too")]
    compaction = summarised(history, keep_turns=2)
    sent = sendable_history(asking(history), [compaction])
    assert sent[0].id == compaction.id  # the summary is never taken for the refused turn's user message
    assert [m.text for m in sent[1:]] == ["fine", "fine too", "And now?"]
    partial = Message(role=Role.ASSISTANT, blocks=[TextBlock(text="half an ans")], status=MessageStatus.INTERRUPTED)
    continued = sendable_history([*history, Message.user("go on"), partial], [compaction])
    assert continued[-1].text == CONTINUE_INSTRUCTION and continued[0].id == compaction.id
    assert_valid_for_every_provider(sent)


def test_attachments_in_compacted_turns_are_not_sent(tmp_path):
    picture, document = tmp_path / "chart.png", tmp_path / "report.pdf"
    picture.write_bytes(png(64, 48))
    document.write_bytes(pdf(3))
    history = [*turn("look at these", "seen", rounds=1, attachments=[read_attachment(picture), read_attachment(document)]),
               *conversation(2)]
    sent = sendable_history(history, [summarised(history)])
    assert not any(m.attachments for m in sent)
    assert_valid_for_every_provider(sent)


def test_a_compaction_whose_messages_were_edited_away_no_longer_applies():
    history = conversation(4)
    compaction = summarised(history, keep_turns=1)
    edited = history[:4]  # the user edited question 1 and what followed went to an earlier version
    assert compacted_ranges(edited, [compaction]) == []
    assert sendable_history(edited, [compaction]) == edited


@pytest.mark.parametrize("keep", [1, 2, 3])
def test_every_stretch_of_a_tool_heavy_conversation_stays_valid(keep):
    history = [*conversation(3, rounds=3), Message.user("one more"), tool_round(), tool_round(), reply("done"),
               *turn("and a last one", "ok", rounds=2)]
    compaction = summarised(history, keep_turns=keep)
    sent = sendable_history(history, [compaction])
    assert sent[0].id == compaction.id and sent[1].role is Role.USER
    assert_valid_for_every_provider(sent)
    assert_valid_for_every_provider(sendable_history(history[:-1], [compaction]))  # mid-turn, after a tool round


def test_a_compaction_that_no_longer_applies_hides_nothing_it_took_over():
    """/tmp/rev/undo.py: the second compaction took the first over, then its last message was edited away (it became
    an earlier version): the second applies no more, so the first, whose messages are all still there, applies again."""
    history = [m for n in range(12) for m in (Message.user(f"q{n}"), reply(f"a{n}"))]
    first = summary_compaction(plan_compaction(history, [], 4), "S1", provider="anthropic", model="m")
    history += [Message.user("q12"), reply("a12")]
    second = summary_compaction(plan_compaction(history, [first], 4), "S2", provider="anthropic", model="m")
    assert second.replaces == [first.id]
    assert sendable_history(asking(history), [first, second])[0].text.endswith("S2")
    edited = history[: [m.id for m in history].index(second.last_message_id)] + [Message.user("q8, edited")]
    sent = sendable_history(edited, [first, second])
    assert sent[0].text.endswith("S1") and [m.text for m in sent[1:]] == ["q8", "q8, edited"]
    assert [c for *_, c in compacted_ranges(edited, [first, second])] == [first]
