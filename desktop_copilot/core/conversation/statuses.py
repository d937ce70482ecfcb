"""The plain enums of the conversation model (a tool call's and a message's status, a message's role), kept apart
from the pydantic models so the window's first frame and theme can use them before the models load."""

from __future__ import annotations

from enum import StrEnum


class ToolCallStatus(StrEnum):
    PENDING = "pending"
    AWAITING_APPROVAL = "awaiting_approval"
    RUNNING = "running"
    DONE = "done"
    ERROR = "error"
    CANCELLED = "cancelled"

    @property
    def finished(self) -> bool:
        return self in (ToolCallStatus.DONE, ToolCallStatus.ERROR, ToolCallStatus.CANCELLED)


class MessageStatus(StrEnum):
    CREATED = "created"
    STREAMING = "streaming"
    COMPLETED = "completed"
    STOPPED = "stopped"
    FAILED = "failed"
    INTERRUPTED = "interrupted"

    @property
    def finished(self) -> bool:
        return self not in (MessageStatus.CREATED, MessageStatus.STREAMING)


class Role(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"
