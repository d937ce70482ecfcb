"""Which part of a conversation is sent to a provider: everything but the exchanges a model refused, and
a request to go on when the conversation ends with a partial reply (Continue)."""

from __future__ import annotations

from desktop_copilot.core.conversation.models import Message, Role

REFUSAL = "refusal"
CONTINUE_INSTRUCTION = (
    "Continue your previous reply exactly where it stopped, as if it had never been interrupted: do not repeat "
    "or summarise what you already wrote. If it stopped inside a code block, first reopen that code block with "
    "the same fence and language."
)
"""Sent (not stored) after a partial reply that is to be continued. Current models refuse a request that ends
with an assistant turn (prefill), and most providers other than Anthropic never took one."""


def written_by(message: Message, provider: str) -> bool:
    """Whether `message` came from `provider`: only then do its thinking signatures, raw blocks and
    provider_fields go back (a message stored before providers were chosen is Anthropic's)."""
    return (message.provider or "anthropic") == provider


def is_refused(message: Message) -> bool:
    return message.role is Role.ASSISTANT and message.stop_reason == REFUSAL


def sendable_history(history: list[Message]) -> list[Message]:
    """`history` as a request sends it: without each refused reply and the user turn(s) that led to it,
    as Anthropic asks after a refusal (the same prompt sent again would be refused again, or merged into
    the next user turn), and ending with a user turn. The conversation itself is not changed."""
    kept = _without_refusals(history)
    if kept and kept[-1].role is Role.ASSISTANT and not kept[-1].tool_calls:
        if kept[-1].text.strip():  # a partial reply to continue
            kept.append(Message.user(CONTINUE_INSTRUCTION))
        else:  # nothing of it can be continued: the request asks again
            kept.pop()
    return kept


def _without_refusals(history: list[Message]) -> list[Message]:
    if not any(is_refused(message) for message in history):
        return list(history)
    kept: list[Message] = []
    for message in history:
        if is_refused(message):
            while kept and kept[-1].role is Role.USER:
                kept.pop()
            continue
        kept.append(message)
    return kept
