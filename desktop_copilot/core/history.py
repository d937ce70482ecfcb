"""Which part of a conversation is sent to a provider: everything but the exchanges a model refused."""

from __future__ import annotations

from desktop_copilot.core.models import Message, Role

REFUSAL = "refusal"


def is_refused(message: Message) -> bool:
    return message.role is Role.ASSISTANT and message.stop_reason == REFUSAL


def sendable_history(history: list[Message]) -> list[Message]:
    """`history` without each refused reply and the user turn(s) that led to it, as Anthropic asks
    after a refusal (the same prompt sent again would be refused again, or merged into the next
    user turn). The messages stay in the conversation and on screen; only the request leaves them out."""
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
