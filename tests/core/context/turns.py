"""Conversations to compact, built turn by turn as the agent loop leaves them: a user message, the tool rounds (each an
assistant message whose calls carry their results) and the final reply."""

from __future__ import annotations

import itertools

from desktop_copilot.core.conversation.models import (
    DocumentBlock,
    ImageBlock,
    Message,
    MessageStatus,
    Role,
    TextBlock,
    TextFileBlock,
    ToolCallBlock,
    ToolCallStatus,
)

_ids = itertools.count(1)
TOOL = "mcp__demo__read_note"
"""The tool history_rules offers, so every wire sees a call it knows."""


def reply(text: str, stop_reason: str = "end_turn") -> Message:
    return Message(role=Role.ASSISTANT, blocks=[TextBlock(text=text)], status=MessageStatus.COMPLETED,
                   stop_reason=stop_reason, provider="anthropic", model="claude-test")


def tool_round(result: str = "the note says hello", *, finished: bool = True) -> Message:
    call = ToolCallBlock(id=f"toolu_{next(_ids):04d}", name=TOOL, arguments={"name": "todo"},
                         status=ToolCallStatus.DONE if finished else ToolCallStatus.RUNNING,
                         result=result if finished else None)
    return Message(role=Role.ASSISTANT, blocks=[TextBlock(text="Let me read it."), call], status=MessageStatus.COMPLETED,
                   stop_reason="tool_use", provider="anthropic", model="claude-test")


def turn(question: str, answer: str, *, rounds: int = 0, result: str = "the note says hello",
         attachments: list[ImageBlock | DocumentBlock | TextFileBlock] | None = None) -> list[Message]:
    return [Message.user(question, attachments or []), *(tool_round(result) for _ in range(rounds)), reply(answer)]


def conversation(turns: int, *, rounds: int = 1, result: str = "the note says hello") -> list[Message]:
    """`turns` turns, each with `rounds` tool rounds before its answer."""
    return [m for i in range(turns) for m in turn(f"question {i}", f"answer {i}", rounds=rounds, result=result)]
