"""The unified event stream that flows from providers through the loop to the store and the view.

Provider events describe one assistant message as it streams (`start`, `text_*`,
`thinking_*`, `toolcall_*`, `raw_block`, `usage`, `done`, `error`). Loop events describe what
the agent loop does around them (`message_created`, `tool_status`, `tool_output`, `loop_detected`,
`run_finished`), and the session says when it replaces part of the history (`history_changed`). Every event names the message it belongs to once the loop has routed it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from desktop_copilot.core.conversation.models import Compaction, Message, ToolApproval, ToolCallStatus, Usage

ErrorReason = Literal["error", "interrupted", "aborted"]
"""`error`: the provider reported a failure; `interrupted`: the stream ended without its
terminator (connection dropped); `aborted`: the user stopped it."""


@dataclass(slots=True)
class Event:
    kind: ClassVar[str] = "event"
    message_id: str = field(default="", kw_only=True)
    snapshot: Message | None = field(default=None, kw_only=True, repr=False, compare=False)
    """The message the agent loop folded the event into, as it is after it (set by the loop with `message_id`): the
    recorder and the view take it from the event instead of looking it up by id. Not part of the event's JSON."""

    def to_json(self) -> dict[str, Any]:
        """A plain dict for `ask --json` (one event per line)."""
        out: dict[str, Any] = {"type": self.kind}
        for f in dataclasses.fields(self):
            if f.name == "snapshot":
                continue
            value = getattr(self, f.name)
            if isinstance(value, Message | Usage | ToolApproval | Compaction):  # every pydantic value an event carries
                value = value.model_dump(mode="json")
            elif isinstance(value, list) and value and isinstance(value[0], Message):
                value = [message.model_dump(mode="json") for message in value]
            out[f.name] = value
        return out


# --- provider events ---------------------------------------------------------------------


@dataclass(slots=True)
class Start(Event):
    kind: ClassVar[str] = "start"
    model: str = ""
    provider_message_id: str = ""


@dataclass(slots=True)
class TextStart(Event):
    kind: ClassVar[str] = "text_start"
    index: int = 0


@dataclass(slots=True)
class TextDelta(Event):
    kind: ClassVar[str] = "text_delta"
    index: int = 0
    text: str = ""


@dataclass(slots=True)
class TextCitation(Event):
    """A source the provider cites for the text block at `index`, exactly as the wire gave it."""

    kind: ClassVar[str] = "text_citation"
    index: int = 0
    citation: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class TextEnd(Event):
    kind: ClassVar[str] = "text_end"
    index: int = 0


@dataclass(slots=True)
class ThinkingStart(Event):
    kind: ClassVar[str] = "thinking_start"
    index: int = 0
    redacted_data: str | None = None
    """Set for a `redacted_thinking` block, whose opaque data arrives whole."""


@dataclass(slots=True)
class ThinkingDelta(Event):
    kind: ClassVar[str] = "thinking_delta"
    index: int = 0
    text: str = ""


@dataclass(slots=True)
class ThinkingEnd(Event):
    kind: ClassVar[str] = "thinking_end"
    index: int = 0
    signature: str = ""


@dataclass(slots=True)
class ToolCallStart(Event):
    kind: ClassVar[str] = "toolcall_start"
    index: int = 0
    tool_call_id: str = ""
    name: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)
    """Arguments given whole at the start (most calls stream theirs in deltas instead)."""
    provider_fields: dict[str, Any] = field(default_factory=dict)
    """Fields of the call this app does not model (Anthropic's `caller`), kept for replay."""


@dataclass(slots=True)
class ToolCallDelta(Event):
    kind: ClassVar[str] = "toolcall_delta"
    index: int = 0
    partial_json: str = ""


@dataclass(slots=True)
class ToolCallEnd(Event):
    kind: ClassVar[str] = "toolcall_end"
    index: int = 0
    arguments: dict[str, Any] = field(default_factory=dict)
    """The parsed arguments; `{}` when they were not valid JSON (the raw text stays in the block's
    `partial_arguments`, which the tool executor reports to the model)."""


@dataclass(slots=True)
class RawBlockEvent(Event):
    kind: ClassVar[str] = "raw_block"
    index: int = 0
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class UsageUpdate(Event):
    kind: ClassVar[str] = "usage"
    usage: Usage = field(default_factory=Usage)


@dataclass(slots=True)
class Done(Event):
    kind: ClassVar[str] = "done"
    reason: str = "end_turn"
    """The provider's stop reason: `end_turn`, `tool_use`, `max_tokens`, `stop_sequence`, `refusal`, …"""
    detail: str = ""
    """Words for the user about how the reply ended, when it needs saying (a refusal and its explanation)."""


@dataclass(slots=True)
class Error(Event):
    kind: ClassVar[str] = "error"
    reason: ErrorReason = "error"
    message: str = ""
    status_code: int | None = None
    overflow: bool = False
    """The provider said the request is larger than the model's context window (compaction and one retry follow)."""


# --- loop events -------------------------------------------------------------------------


@dataclass(slots=True)
class MessageCreated(Event):
    """The loop appended a message (the user's, or a new assistant reply for this round)."""

    kind: ClassVar[str] = "message_created"
    message: Message = field(default_factory=lambda: Message.user(""))
    round: int = 0


@dataclass(slots=True)
class ToolStatus(Event):
    kind: ClassVar[str] = "tool_status"
    tool_call_id: str = ""
    name: str = ""
    status: ToolCallStatus = ToolCallStatus.PENDING
    result: str | None = None
    is_error: bool = False
    parts: list[dict[str, Any]] | None = None
    """Images, resource links and structured content beside `result` (a finished call only)."""
    model_result: str | None = None
    """What the model gets instead of `result`, when a hook cut or changed it."""
    source: str = ""
    """The MCP server that offers the tool ("" for a built-in)."""
    title: str = ""
    """The tool's own name when it differs from the one the model calls (an MCP tool's)."""


@dataclass(slots=True)
class ToolApprovalChanged(Event):
    """A call's approval state: asked (decision ""), then decided; the card shows it, the store keeps it."""

    kind: ClassVar[str] = "tool_approval"
    tool_call_id: str = ""
    approval: ToolApproval = field(default_factory=ToolApproval)


@dataclass(slots=True)
class ToolOutput(Event):
    """More output of a running call (the shell's stdout and stderr as they come), shown on its card while it runs;
    what the model gets is the call's result."""

    kind: ClassVar[str] = "tool_output"
    tool_call_id: str = ""
    text: str = ""


@dataclass(slots=True)
class LoopDetected(Event):
    kind: ClassVar[str] = "loop_detected"
    name: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)
    repeats: int = 3


@dataclass(slots=True)
class HistoryChanged(Event):
    """The conversation changed from position `anchor` on outside a reply: the messages there were kept as
    an earlier version (regenerate, edit, switching versions), and `current` took their place (a version
    switched back to; empty when a new reply is about to follow)."""

    kind: ClassVar[str] = "history_changed"
    anchor: int = 0
    archived_ids: list[str] = field(default_factory=list)
    current: list[Message] = field(default_factory=list)


@dataclass(slots=True)
class ContextCompacted(Event):
    """Older messages are sent as a summary (or left out) from now on; the messages themselves stay."""

    kind: ClassVar[str] = "context_compacted"
    compaction: Compaction = field(default_factory=lambda: Compaction(first_message_id="", last_message_id=""))


@dataclass(slots=True)
class CompactionUndone(Event):
    """The user undid a compaction: its messages are sent whole again."""

    kind: ClassVar[str] = "compaction_undone"
    compaction_id: str = ""


RunOutcome = Literal["completed", "refused", "round_limit", "loop", "stopped", "failed", "interrupted"]


@dataclass(slots=True)
class RunFinished(Event):
    kind: ClassVar[str] = "run_finished"
    outcome: RunOutcome = "completed"
    detail: str = ""


DELTA_EVENTS = (TextDelta, ThinkingDelta, ToolCallDelta, UsageUpdate, ToolOutput)
"""Events that only grow what is already there: written and repainted at most once per interval."""

PROVIDER_EVENT_TYPES = (
    Start,
    TextStart,
    TextDelta,
    TextCitation,
    TextEnd,
    ThinkingStart,
    ThinkingDelta,
    ThinkingEnd,
    ToolCallStart,
    ToolCallDelta,
    ToolCallEnd,
    RawBlockEvent,
    UsageUpdate,
    Done,
    Error,
)
