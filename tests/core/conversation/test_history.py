"""What of a conversation is sent to a provider: refused exchanges are left out, nothing else."""

from __future__ import annotations

from desktop_copilot.core.conversation.history import sendable_history
from desktop_copilot.core.conversation.models import Message, MessageStatus, Role, TextBlock


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
