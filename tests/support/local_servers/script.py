"""What a test scripts on a local-server emulator: the models it serves, the native tool calls a reply carries, and
the replies themselves (content and reasoning as lists of pieces, so a test decides where every delta ends)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

ModelKind = Literal["llm", "vlm", "embeddings"]


@dataclass(frozen=True)
class LocalModel:
    """One model as the servers describe it; each server's list shows only the fields it has."""

    id: str
    context_length: int = 32768
    """LM Studio `max_context_length`, vLLM `max_model_len`, llama-server `n_ctx` (and `n_ctx_train`)."""
    kind: ModelKind = "llm"
    """LM Studio `type`."""
    loaded: bool = True
    """LM Studio `state`: loaded | not-loaded."""
    tool_use: bool = True
    """LM Studio lists `capabilities: ["tool_use"]` for models with native tool support."""
    arch: str = "qwen3"
    publisher: str = "lmstudio-community"
    quantization: str = "Q4_K_M"
    compatibility_type: str = "gguf"
    path: str = ""
    """llama-server `model_path` and vLLM `root` (the weights the id was served from); the id when empty."""
    n_params: int = 8_190_735_360
    size: int = 5_027_783_488

    @property
    def source(self) -> str:
        return self.path or self.id


@dataclass(frozen=True)
class ToolCall:
    """A tool call the model writes natively. `arguments`: a dict (sent as its JSON text in two fragments), a string
    (the arguments exactly as the model wrote them, JSON or not, in one fragment), or a sequence of strings (the
    fragments themselves). `id`: the server makes one in its own style when None."""

    name: str
    arguments: dict[str, Any] | str | Sequence[str] = field(default_factory=dict)
    id: str | None = None

    def fragments(self) -> list[str]:
        if isinstance(self.arguments, dict):
            text = json.dumps(self.arguments, ensure_ascii=False)
            half = len(text) // 2
            return [text[:half], text[half:]]
        if isinstance(self.arguments, str):
            return [self.arguments]
        return list(self.arguments)


@dataclass(frozen=True)
class Reply:
    """One scripted reply: reasoning pieces, then content pieces, then native tool calls, then the finish reason
    ("tool_calls" when there are calls, else "stop") and the usage the server reports when asked for it."""

    content: Sequence[str] = ()
    reasoning: Sequence[str] = ()
    calls: Sequence[ToolCall] = ()
    finish_reason: str | None = None
    prompt_tokens: int = 12
    completion_tokens: int | None = None
    """The number of deltas when None."""
    delay: float = 0.0
    """Seconds before each frame, for tests that need pacing."""

    def __post_init__(self) -> None:
        for name in ("content", "reasoning"):
            if isinstance(getattr(self, name), str):
                raise TypeError(f"Reply.{name} takes a list of pieces, not a string")

    @property
    def finish(self) -> str:
        return self.finish_reason or ("tool_calls" if self.calls else "stop")

    @property
    def output_tokens(self) -> int:
        if self.completion_tokens is not None:
            return self.completion_tokens
        return len(self.content) + len(self.reasoning) + sum(len(call.fragments()) + 1 for call in self.calls)

    def usage(self) -> dict[str, int]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.output_tokens,
                "total_tokens": self.prompt_tokens + self.output_tokens}
