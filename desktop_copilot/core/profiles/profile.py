"""The data of a model profile: what one source knows of a model (`ModelFacts`), a figure with where it came from
(`Figure`), and the resolved profile (`ModelProfile`)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Generic, Literal, TypeVar

T = TypeVar("T")

ThinkingStyle = Literal["none", "anthropic", "reasoning_field", "think_tags", "gemini"]
"""How a model's thinking arrives: not at all, as Anthropic thinking blocks, in a separate field of the message
(`reasoning_content`, `reasoning`, Ollama's `thinking`), as `<think>…</think>` inside the text, or as Gemini thought
parts."""
ToolProtocol = Literal["native", "text"]
"""Tools as the API's own tool calls, or described in the prompt and read back from the text (core/providers/text_protocol/)."""
Source = Literal["user", "provider", "table", "default"]
"""Where a figure came from, first that knows wins: the user's override, the provider's model list, the shipped
table (known_models.py), a cautious default."""

THINKING_STYLES: tuple[ThinkingStyle, ...] = ("none", "anthropic", "reasoning_field", "think_tags", "gemini")
TOOL_PROTOCOLS: tuple[ToolProtocol, ...] = ("native", "text")
SOURCES: tuple[Source, ...] = ("user", "provider", "table", "default")


@dataclass(frozen=True, slots=True)
class Figure(Generic[T]):
    """One figure of a profile, with its source and a few words on it ("taken 2026-11", "a guess", "reported by
    LM Studio")."""

    value: T
    source: Source
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "source": self.source, "note": self.note}


@dataclass(frozen=True, slots=True)
class ModelFacts:
    """What one source knows of a model; None where it does not know."""

    id: str
    context_window: int | None = None
    """Tokens of input and output together the model (as served) takes."""
    output_limit: int | None = None
    """The most tokens one reply may have (`max_tokens`)."""
    thinking: ThinkingStyle | None = None
    echo_thinking: bool | None = None
    """Whether the API requires earlier thinking sent back (DeepSeek's thinking mode and Kimi's thinking models
    on tool-call turns; Anthropic's signed thinking blocks)."""
    tools: ToolProtocol | None = None
    images: bool | None = None
    pdfs: bool | None = None
    sampling: bool | None = None
    """Whether it accepts temperature and top-p (reasoning models such as OpenAI's o-series and gpt-5, and Claude
    from 4.7 on, refuse them)."""
    reported_by: str = ""
    """Who said so, for the figure's note ("Ollama", "OpenRouter"); empty for the user and the table."""

    def known(self) -> dict[str, Any]:
        """The fields this source knows, by name (the id and `reported_by` left out)."""
        return {name: value for name in FACT_FIELDS if (value := getattr(self, name)) is not None}


FACT_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(ModelFacts) if f.name not in ("id", "reported_by"))
"""The figures of a profile, in the order a profile lists them."""


@dataclass(frozen=True, slots=True)
class ModelProfile:
    """Everything the app knows of one model at one provider, each figure saying where it came from."""

    provider: str
    model: str
    context_window: Figure[int]
    output_limit: Figure[int]
    thinking: Figure[ThinkingStyle]
    echo_thinking: Figure[bool]
    tools: Figure[ToolProtocol]
    images: Figure[bool]
    pdfs: Figure[bool]
    sampling: Figure[bool]

    def figures(self) -> dict[str, Figure[Any]]:
        return {name: getattr(self, name) for name in FACT_FIELDS}

    def to_json(self) -> dict[str, Any]:
        """`{"provider", "model", "context_window": {"value", "source", "note"}, …}`."""
        return {"provider": self.provider, "model": self.model, **{name: f.to_json() for name, f in self.figures().items()}}
