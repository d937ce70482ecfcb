"""Several conversations against one loopback Anthropic server: replies scripted per conversation (told by its first
message), and a tool with side effects that asks for approval first."""

from __future__ import annotations

from collections import deque
from typing import ClassVar

from pydantic import BaseModel

from desktop_copilot.core.tools.base import PydanticTool, Risk, ToolContext
from tests.support.loopback import RecordedRequest, ScriptedResponse, anthropic_error


class ByConversation:
    """The loopback's handler for /v1/messages: each request is answered from the queue of the conversation it belongs
    to (told by the conversation's first user message), so runs in several conversations at once get their own replies
    whatever order their requests arrive in."""

    def __init__(self) -> None:
        self.queues: dict[str, deque[ScriptedResponse]] = {}

    def add(self, first_message: str, *responses: ScriptedResponse) -> None:
        self.queues.setdefault(first_message, deque()).extend(responses)

    def __call__(self, request: RecordedRequest) -> ScriptedResponse:
        first = request.json()["messages"][0]["content"]
        text = first if isinstance(first, str) else "".join(b.get("text", "") for b in first if b.get("type") == "text")
        queue = self.queues.get(text)
        if not queue:
            return anthropic_error(400, "invalid_request_error", f"loopback: no reply scripted for {text!r}")
        return queue.popleft()


class NoteArgs(BaseModel):
    name: str


class DeleteNote(PydanticTool):
    """A destructive tool (it asks before it runs) that records what it deleted."""

    name: ClassVar[str] = "delete_note"
    description: ClassVar[str] = "Delete one of the user's notes."
    arguments: ClassVar[type[BaseModel]] = NoteArgs
    risk: ClassVar[Risk] = Risk.DESTRUCTIVE

    def __init__(self) -> None:
        self.deleted: list[str] = []

    async def run(self, args: NoteArgs, ctx: ToolContext) -> str:
        self.deleted.append(args.name)
        return f"deleted {args.name}"
