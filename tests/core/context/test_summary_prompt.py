"""The summary request's input: the compacted messages as a transcript (an attachment as a one-line note, a long tool
result as its head and tail, thinking and refusals left out), the summaries it takes over first, cut to fit."""

from __future__ import annotations

import pytest

from desktop_copilot.core.content.attachments import read_attachment
from desktop_copilot.core.context.compaction import CompactionPlan, plan_compaction, summary_compaction
from desktop_copilot.core.context.summary import SummaryFailedError, collect_summary, render_messages, summary_prompt
from desktop_copilot.core.context.tokens import estimate_tokens
from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.models import Message, ThinkingBlock, Usage
from tests.core.context.turns import conversation, reply, turn
from tests.support.attachment_files import pdf, png


def test_attachments_become_one_line_notes_and_tool_results_are_excerpted(tmp_path):
    (tmp_path / "chart.png").write_bytes(png(64, 48))
    (tmp_path / "report.pdf").write_bytes(pdf(3))
    (tmp_path / "notes.md").write_text("# Notes\n" + "line of notes\n" * 500)
    attached = [read_attachment(tmp_path / name) for name in ("chart.png", "report.pdf", "notes.md")]
    long_result = "HEAD " + "x" * 20_000 + " TAIL"
    messages = turn("what do these say?", "They agree.", rounds=1, result=long_result, attachments=attached)
    messages[-1].blocks.insert(0, ThinkingBlock(thinking="private musing", signature="sig"))
    text = render_messages(messages)
    assert "(attached image: chart.png, 64×48; not shown here)" in text
    assert "(attached PDF: report.pdf, 3 pages; not shown here)" in text
    assert "(attached text file: notes.md, 7008 characters; not shown here)" in text and "line of notes" not in text
    assert '[Tool call mcp__demo__read_note] {"name": "todo"}' in text
    assert "HEAD" in text and "TAIL" in text and "characters of this result were left out" in text and len(text) < 6000
    assert "private musing" not in text and text.startswith("[User]\n(attached image") and "They agree." in text
    assert "what do these say?" in text


def test_refused_exchanges_are_left_out():
    messages = [Message.user("bad"), reply("", "refusal"), *turn("good", "fine")]
    assert render_messages(messages).startswith("[User]\nbad\n\n[User]\ngood")  # the question stays, the refusal not


def test_the_summaries_taken_over_come_first_and_a_long_transcript_is_cut_in_the_middle():
    history = conversation(6, result="r" * 3000)
    older = summary_compaction(plan_compaction(history, [], 4), "EARLIER SUMMARY", provider=None, model=None)
    plan = plan_compaction(history, [older], 2)
    prompt = summary_prompt(plan)
    assert prompt.index("EARLIER SUMMARY") < prompt.index("question 2") and "question 1" not in prompt
    assert prompt.endswith("Write the summary of all of the above now.")
    fitted = summary_prompt(CompactionPlan(history, history), max_tokens=1500)
    assert estimate_tokens(fitted) < 1700 and "question 0" in fitted and "answer 5" in fitted
    assert "tokens of the conversation are left out here" in fitted


async def events(*items: ev.Event):
    for item in items:
        yield item


@pytest.mark.asyncio
async def test_the_reply_text_is_collected_and_a_failure_says_why():
    assert await collect_summary(events(ev.TextDelta(text="Dense "), ev.TextDelta(text="summary."),
                                        ev.UsageUpdate(usage=Usage(output_tokens=4)), ev.Done())) == ("Dense summary.", 4)
    with pytest.raises(SummaryFailedError, match="overloaded"):
        await collect_summary(events(ev.TextDelta(text="Half"), ev.Error(message="overloaded")))
    with pytest.raises(SummaryFailedError, match="empty"):
        await collect_summary(events(ev.TextDelta(text="  "), ev.Done()))
    with pytest.raises(SummaryFailedError, match="declined"):
        await collect_summary(events(ev.Done(reason="refusal")))
