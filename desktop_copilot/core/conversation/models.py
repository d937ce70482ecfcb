"""Domain models: conversations, messages and the ordered blocks of an assistant reply."""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_serializer

from desktop_copilot.core.conversation.changes import LOG
from desktop_copilot.core.conversation.generation import Temperature, TopP
from desktop_copilot.core.conversation.statuses import MessageStatus, Role, ToolCallStatus  # defined without pydantic; imported from here too
from desktop_copilot.core.empty_lists import new_list



def new_id(prefix: str) -> str:
    """A fresh opaque id such as `msg_3f2a…`."""
    return f"{prefix}_{uuid.uuid4().hex}"


def now() -> float:
    """Wall-clock seconds since the epoch (what we store and show)."""
    return time.time()


class _Assigned(BaseModel):
    """A model whose fields are set by plain assignment: the value goes into the instance's dict, as pydantic's own
    `__setattr__` puts it there without validate_assignment, but the field's name is not also added to
    `__pydantic_fields_set__`, a set that outgrows its inline table (~0.5 KB more) on most streamed replies and tool
    calls: a day-long conversation holds thousands, and nothing here reads that set (no `exclude_unset`).

    Since nothing adds to that set after construction, the instances made with the same fields given share one
    (`_shared_fields_set`): a set is 216 bytes, and a tool turn makes ten of these models (messages, blocks, usage,
    approval) that live as long as the conversation. What it holds stays what pydantic recorded; a copy
    (`model_copy`, `update=` included) gets a set of its own, as pydantic makes it."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in type(self).__pydantic_fields__:
            self.__dict__[name] = value
        else:
            super().__setattr__(name, value)

    def model_post_init(self, context: Any, /) -> None:
        object.__setattr__(self, "__pydantic_fields_set__", _shared_fields_set(self.__pydantic_fields_set__))


_FIELDS_SETS: dict[frozenset[str], set[str]] = {}
"""The one `__pydantic_fields_set__` per distinct set of names given at construction (a few dozen in practice)."""
FIELDS_SETS_LIMIT = 512
"""Past this many distinct sets, an instance keeps its own (the table never grows without bound)."""


def _shared_fields_set(given: set[str]) -> set[str]:
    """The shared set equal to `given` (`given` itself the first time such a set is seen)."""
    key = frozenset(given)
    shared = _FIELDS_SETS.get(key)
    if shared is None:
        if len(_FIELDS_SETS) >= FIELDS_SETS_LIMIT:
            return given
        shared = _FIELDS_SETS[key] = given
    return shared


class _Block(_Assigned):
    model_config = ConfigDict(validate_assignment=False, extra="forbid")


class TextBlock(_Block):
    type: Literal["text"] = "text"
    text: str = ""
    citations: list[dict[str, Any]] = Field(default_factory=new_list)
    """The sources the provider cited for this text, each exactly as the wire gave it (Anthropic:
    `web_search_result_location` with url/title/cited_text, `char_location`, `page_location`, …)."""


class ThinkingBlock(_Block):
    type: Literal["thinking"] = "thinking"
    thinking: str = ""
    signature: str = ""
    started_at: float | None = None
    ended_at: float | None = None


class RedactedThinkingBlock(_Block):
    type: Literal["redacted_thinking"] = "redacted_thinking"
    data: str


class ToolApproval(_Assigned):
    """How a call was cleared to run, or why not: what the approval card shows and the history keeps."""

    risk: str = ""
    """The tool's Risk value (core.tools.base.Risk)."""
    asked: bool = False
    """True when the user was (or is being) asked."""
    preview: str = ""
    """What the user saw beside the arguments (a diff for a file edit)."""
    arguments: dict[str, Any] | None = None
    """The arguments that run, when a hook changed the model's."""
    decision: str = ""
    """"" while waiting; then one of core.approval.Decision's values."""
    reason: str = ""
    """The user's reason for a denial, the hook's for a block, or the rule that decided."""
    proposed_pattern: str = ""
    """While asking: what "always allow calls like this" would allow (`git status*`; core/approval/rules.py)."""


TOOL_OUTPUT_LIMIT = 200_000
"""A running call's live output (`ToolCallBlock.output`) keeps at most about this many of its last characters."""


class ToolCallBlock(_Block):
    type: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    partial_arguments: str = ""
    status: ToolCallStatus = ToolCallStatus.PENDING
    result: str | None = None
    is_error: bool = False
    started_at: float | None = None
    ended_at: float | None = None
    provider_fields: dict[str, Any] = Field(default_factory=dict)
    """Fields of the call the provider sent that this app does not model (Anthropic's `caller`),
    sent back verbatim to that provider."""
    source: str = ""
    """The MCP server that offers the tool ("" for a built-in)."""
    title: str = ""
    """The tool's own name, as the user knows it ("" when it is `name`): an MCP tool's name without its
    `mcp__server__` prefix, which may have been cut or hashed to fit the provider's rules."""
    approval: ToolApproval | None = None
    result_parts: list[dict[str, Any]] = Field(default_factory=new_list)
    """Images, resource links and structured content beside the text result (core.tools.base.ToolResult.parts)."""
    model_result: str | None = None
    """The result as sent to the model when it differs from `result` (cut to the size cap); `result` keeps the whole."""
    output: str = ""
    """What the call printed while it ran (the shell's stdout and stderr, core.conversation.events.ToolOutput): its
    last TOOL_OUTPUT_LIMIT characters at most, shown on the card while it runs. Dropped when the call ends with a
    result (which holds the output); kept when it was cancelled (stopped, timed out by the app), the only record."""

    def finish(self, status: ToolCallStatus, result: str, *, is_error: bool) -> None:
        self.status = status
        self.result = result
        self.is_error = is_error
        self.ended_at = now()


WIRE_ONLY_RAW_TYPES = frozenset({"gemini_thought_signature"})


class RawBlock(_Block):
    """A block type this app does not model (e.g. `server_tool_use`), kept verbatim for replay."""

    type: Literal["raw"] = "raw"
    data: dict[str, Any]

    @property
    def shown(self) -> bool:
        """False for a block that only carries what its provider needs back (a Gemini text part's signature)."""
        return self.data.get("type") not in WIRE_ONLY_RAW_TYPES


class ImageBlock(_Block):
    """An image the user attached: its bytes (base64) as read, sent as an image to models that take them."""

    type: Literal["image"] = "image"
    media_type: str
    """image/png, image/jpeg, image/gif or image/webp (from the bytes, not the file name)."""
    data: str
    """The file's bytes, base64."""
    name: str = ""
    size: int = 0
    """Bytes of the file (decoded)."""
    width: int = 0
    height: int = 0


class DocumentBlock(_Block):
    """A PDF the user attached (base64), sent as a document to providers that read PDFs."""

    type: Literal["document"] = "document"
    media_type: str = "application/pdf"
    data: str
    name: str = ""
    size: int = 0
    pages: int = 0
    """Pages counted in the file (0: not known)."""


class TextFileBlock(_Block):
    """A text or code file the user attached, inlined with its name."""

    type: Literal["text_file"] = "text_file"
    name: str
    text: str
    size: int = 0


ATTACHMENT_TYPES = (ImageBlock, DocumentBlock, TextFileBlock)


Block = Annotated[
    Union[TextBlock, ThinkingBlock, RedactedThinkingBlock, ToolCallBlock, RawBlock, ImageBlock, DocumentBlock, TextFileBlock],
    Field(discriminator="type"),
]


class Usage(_Assigned):
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    """Output tokens spent on thinking, where the provider counts them apart (included in output_tokens)."""


class Message(_Assigned):
    id: str = Field(default_factory=lambda: new_id("msg"))
    role: Role
    blocks: list[Block] = Field(default_factory=new_list)
    status: MessageStatus = MessageStatus.COMPLETED
    stop_reason: str | None = None
    error: str | None = None
    model: str | None = None
    provider: str | None = None
    """The provider id that wrote an assistant message ("anthropic", "deepseek", "gemini", …; None for
    replies stored before providers were chosen, which were Anthropic's). Thinking signatures, raw blocks
    and `provider_fields` go back only to that provider."""
    usage: Usage = Field(default_factory=Usage)
    created_at: float = Field(default_factory=now)
    revision: int = 0
    """Bumped on every change (`touch`); views key their layout caches by it."""
    _growing: dict[tuple[int, str], list[str]] = PrivateAttr(default_factory=dict)
    """Texts still streaming in, as pieces: (block index, field) -> the field's text so far and the deltas after it."""

    def touch(self) -> None:
        """Count a change: the revision is bumped and the change logged for the caches derived from messages."""
        self.__dict__["revision"] += 1  # past pydantic's __setattr__ (no validation on assignment: the same)
        LOG.changed(id(self))

    def grow(self, index: int, field: str, piece: str) -> None:
        """Add `piece` to the text `field` of block `index` without copying that text (a 2 MB reply grown in place
        cost 0.25 ms a delta): it is kept as a piece until the text is next read as a whole (`settle`)."""
        growing = self.__pydantic_private__["_growing"]  # a slot: `self._growing` goes through pydantic's __getattr__
        pieces = growing.get((index, field))
        if pieces is None:
            growing[(index, field)] = [getattr(self.blocks[index], field), piece]
        else:
            pieces.append(piece)

    def settle(self) -> Message:
        """Join the pieces of the texts still growing into their blocks; nothing to do when none is. Whoever reads a
        streaming message's texts calls it first: the transcript model when it re-segments the message (once a frame),
        the store when it takes a row, `text`, and `accumulate` before any event that is not a delta."""
        growing = self.__pydantic_private__["_growing"]
        if growing:
            for (index, field), pieces in growing.items():
                setattr(self.blocks[index], field, "".join(pieces))
            growing.clear()
        return self

    @model_serializer(mode="wrap")
    def _serialize_settled(self, handler):
        """A message is dumped with its texts whole, even while they stream in."""
        self.settle()
        return handler(self)

    @classmethod
    def user(cls, text: str, attachments: Sequence[ImageBlock | DocumentBlock | TextFileBlock] = ()) -> Message:
        """The user's message: the attachments first (as providers prefer), then the text."""
        blocks: list[Block] = [*attachments]
        if text or not blocks:
            blocks.append(TextBlock(text=text))
        return cls(role=Role.USER, blocks=blocks)

    @classmethod
    def assistant(cls, model: str | None = None, provider: str | None = None) -> Message:
        return cls(role=Role.ASSISTANT, status=MessageStatus.CREATED, model=model, provider=provider)

    @property
    def text(self) -> str:
        self.settle()
        return "".join(b.text for b in self.blocks if isinstance(b, TextBlock))

    @property
    def attachments(self) -> list[ImageBlock | DocumentBlock | TextFileBlock]:
        return [b for b in self.blocks if isinstance(b, ATTACHMENT_TYPES)]

    @property
    def tool_calls(self) -> list[ToolCallBlock]:
        return [b for b in self.blocks if isinstance(b, ToolCallBlock)]


class Compaction(BaseModel):
    """Older messages of a conversation that requests send as a summary instead (`kind` "summary"), or leave out with a
    notice when the summary could not be made ("dropped"). The messages themselves stay in the conversation, the
    store, search and exports; undoing a compaction sends them whole again."""

    id: str = Field(default_factory=lambda: new_id("cmp"))
    first_message_id: str
    last_message_id: str
    """The compacted messages: from the first to the last, both included, in conversation order."""
    kind: Literal["summary", "dropped"] = "summary"
    summary: str = ""
    """What requests send in their place (kind "summary"); for a dropped one, why no summary could be made (never sent)."""
    messages: int = 0
    """How many messages it stands for."""
    tokens_before: int = 0
    tokens_after: int = 0
    """Their size in requests before and after (estimated where not reported)."""
    model: str | None = None
    provider: str | None = None
    """Who wrote the summary."""
    created_at: float = Field(default_factory=now)
    undone: bool = False
    """The user undid it: requests send the messages whole again."""
    replaces: list[str] = Field(default_factory=new_list)
    """The ids of the compactions this one took over: their summaries went into its own, and its range covers theirs.
    They are kept, and apply again if this one is undone (core.conversation.history.live_compactions)."""


class Conversation(BaseModel):
    id: str = Field(default_factory=lambda: new_id("conv"))
    title: str = ""
    provider: str | None = None
    """The provider id the conversation talks to (None: the configured default)."""
    model: str | None = None
    system: str | None = None
    assistant_id: str | None = None
    """The assistant the conversation started from (core.assistants; None: a plain new chat)."""
    thinking_budget: int | None = None
    """Extended thinking for this conversation: None follows Settings ▸ Models, 0 is off, more is the budget in tokens."""
    tools: list[str] | None = None
    """The names of the tools offered in this conversation (None: the ones switched on in Settings ▸ Tools)."""
    temperature: Temperature = None
    """Sampling temperature, 0 to 2 (None: the model's default; core.conversation.generation)."""
    top_p: TopP = None
    """Nucleus sampling, more than 0 and at most 1 (None: the model's default)."""
    created_at: float = Field(default_factory=now)
    updated_at: float = Field(default_factory=now)
    messages: list[Message] = Field(default_factory=new_list)
    compactions: list[Compaction] = Field(default_factory=new_list)
    """What requests send in place of older messages (oldest first; core/context/)."""
    summarised_from: str | None = None
    """The conversation this one was started from as a summary ("New chat from a summary")."""
