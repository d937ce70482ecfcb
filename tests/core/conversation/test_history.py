"""What of a conversation is sent to a provider: refused exchanges are left out, nothing else."""

from __future__ import annotations

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.accumulate import accumulate
from desktop_copilot.core.conversation.history import sendable_history
from desktop_copilot.core.conversation.models import Compaction, Message, MessageStatus, Role, TextBlock


def reply(text: str, stop_reason: str = "end_turn") -> Message:
    return Message(role=Role.ASSISTANT, blocks=[TextBlock(text=text)], status=MessageStatus.COMPLETED, stop_reason=stop_reason)


def test_history_without_refusals_is_sent_whole():
    history = [Message.user("a"), reply("b"), Message.user("c")]
    assert sendable_history(history) == history


def test_a_refused_reply_and_the_user_turns_that_led_to_it_are_left_out():
    first, answer = Message.user("fine question"), reply("fine answer")
    refused_prompt, retry_prompt = Message.user("bad question"), Message.user("bad question, again")
    later = Message.user("another question")
    history = [first, answer, refused_prompt, retry_prompt, reply("", "refusal"), later]
    assert sendable_history(history) == [first, answer, later]
    assert len(history) == 6  # the conversation itself keeps everything


def test_a_refusal_at_the_start_leaves_nothing_before_the_next_prompt():
    later = Message.user("next")
    assert sendable_history([Message.user("bad"), reply("", "refusal"), later]) == [later]


def test_a_reply_refused_after_it_was_first_sent_is_left_out_from_then_on():
    first, prompt = Message.user("fine"), Message.user("bad question")
    answer = Message.assistant()
    history = [first, reply("fine answer"), prompt, answer]
    assert sendable_history(history) == history[:3]  # the empty reply in the making is not sent
    accumulate(answer, ev.Done(reason="refusal"))
    history.append(Message.user("next"))
    assert sendable_history(history) == [first, history[1], history[-1]]
    history[3] = reply("answered after all")
    assert sendable_history(history) == history


def test_a_compaction_is_sent_as_the_same_stand_in_until_its_summary_changes():
    history = [Message.user("a"), reply("b"), Message.user("c"), reply("d"), Message.user("e")]
    compaction = Compaction(first_message_id=history[0].id, last_message_id=history[1].id, summary="A and B.", messages=2)
    sent = sendable_history(history, [compaction])
    assert sent[1:] == history[2:] and "A and B." in sent[0].text
    assert sendable_history(history, [compaction])[0] is sent[0]
    changed = compaction.model_copy(update={"summary": "A, then B."})
    assert "A, then B." in sendable_history(history, [changed])[0].text
