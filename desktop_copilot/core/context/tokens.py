"""Token estimates without a tokenizer: text weighed by what tokenizers make of it (ASCII letters, digit runs,
punctuation, indentation; CJK at about one token a character, emoji at two), corrected per provider by what its replies
report (`calibrate`); attachments and tool results as the providers bill them."""

from __future__ import annotations

import json
import math
import threading
from dataclasses import dataclass

from desktop_copilot.core.conversation.models import (
    DocumentBlock,
    ImageBlock,
    Message,
    RawBlock,
    RedactedThinkingBlock,
    TextBlock,
    TextFileBlock,
    ThinkingBlock,
    ToolCallBlock,
)

IMAGE_TOKENS = 1_600
"""An image as the providers bill it, at most (Anthropic: width × height / 750, about 1,600 for a 1,092 px square)."""
IMAGE_MIN_TOKENS = 85
"""The least an image costs (OpenAI's base tile)."""
PDF_PAGE_TOKENS = 1_500
PDF_PAGE_BYTES = 60_000
"""A page of a PDF whose pages were not counted, by its size."""
MESSAGE_OVERHEAD = 4
"""Role markers and separators around each message."""
TOOL_OVERHEAD = 12
"""The wrapping of a tool call, a tool result or a tool's description."""

# Weights fitted against the cl100k and o200k tokenizers (prose, Markdown, Python, JSON, SSE, logs, base64, Chinese,
# Japanese, Korean, Russian, German, emoji): about 10 % off for each kind of text, where four characters a token is
# 40-60 % off for logs, base64, emoji and CJK.
LETTER, DIGIT_RUN, PUNCT, INDENT = 0.28, 2.4, 0.23, 0.3
"""An ASCII letter; a run of digits (split into groups of three); ASCII punctuation; an indented line."""
TWO_BYTE, THREE_BYTE, FOUR_BYTE = 0.5, 1.0, 2.4
"""Characters by their UTF-8 length: Cyrillic, Greek, accented letters; CJK, kana, Hangul and other BMP symbols;
emoji and the rest beyond the BMP."""


def _classes() -> bytes:
    """Each byte of UTF-8 text as its class: "a" letter, "0" digit, " " blank or control, "p" punctuation, "c" a
    continuation byte, "2", "3", "4" the first byte of a character of that many bytes."""
    table = bytearray(b" " * 32 + b"p" * 95 + b" " + b"c" * 64 + b"2" * 32 + b"3" * 16 + b"4" * 16)
    for byte in b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz":
        table[byte] = ord("a")
    for byte in b"0123456789":
        table[byte] = ord("0")
    table[ord(" ")] = ord(" ")
    return bytes(table)


_CLASSES = _classes()
_DIGITS_ONLY = bytes(ord("0") if chr(byte).isdigit() and byte < 128 else ord(" ") for byte in range(256))

_factors: dict[str, float] = {}
_lock = threading.Lock()
CALIBRATION_RANGE = (0.5, 2.0)
"""A provider's factor stays within these."""
COMPARABLE = (1 / 3, 3.0)
"""A report this far from the estimate is not about the same text (a cache a local server did not count, trimming):
ignored."""


def text_weight(text: str) -> float:
    """Tokens of `text` before any provider's calibration (counted on its UTF-8 bytes, some 50 MB a second)."""
    if not text:
        return 0.0
    data = text.encode("utf-8", "surrogatepass")
    classes = data.translate(_CLASSES)
    weight = LETTER * classes.count(b"a") + PUNCT * classes.count(b"p") + INDENT * (data.count(b"\n  ") + data.count(b"\n\t"))
    if classes.count(b"0"):
        weight += DIGIT_RUN * (data.translate(_DIGITS_ONLY).count(b" 0") + (classes[:1] == b"0"))
    if len(data) != len(text):
        weight += TWO_BYTE * classes.count(b"2") + THREE_BYTE * classes.count(b"3") + FOUR_BYTE * classes.count(b"4")
    return weight


def estimate_tokens(text: str, provider: str | None = None) -> int:
    """About how many tokens `text` is for `provider`'s models."""
    return max(1, round(text_weight(text) * factor(provider))) if text else 0


def image_tokens(width: int = 0, height: int = 0) -> int:
    """An image of `width` × `height` pixels (0: not known, counted at the most)."""
    if width <= 0 or height <= 0:
        return IMAGE_TOKENS
    return max(IMAGE_MIN_TOKENS, min(IMAGE_TOKENS, math.ceil(width * height / 750)))


def document_tokens(block: DocumentBlock) -> int:
    pages = block.pages or max(1, math.ceil(block.size / PDF_PAGE_BYTES))
    return PDF_PAGE_TOKENS * pages


@dataclass(frozen=True, slots=True)
class Weight:
    """What one message weighs in a request: `text` (calibrated per provider), `fixed` (images and documents, priced
    by the provider's rules) and `thinking` (text too; sent back only within the turn that wrote it)."""

    text: float = 0.0
    fixed: int = 0
    thinking: float = 0.0

    def tokens(self, provider: str | None = None, *, with_thinking: bool = True) -> int:
        text = self.text + (self.thinking if with_thinking else 0.0)
        return round(text * factor(provider)) + self.fixed


def message_weight(message: Message) -> Weight:
    """`message` as a request sends it: its text, thinking, tool calls with their results (the text the model gets)
    and images, attachments, and blocks kept for replay."""
    text, fixed, thinking = float(MESSAGE_OVERHEAD), 0, 0.0
    for block in message.blocks:
        if isinstance(block, TextBlock):
            text += text_weight(block.text)
        elif isinstance(block, ThinkingBlock):
            thinking += text_weight(block.thinking)
        elif isinstance(block, RedactedThinkingBlock):
            thinking += len(block.data) / 6
        elif isinstance(block, ToolCallBlock):
            text += tool_call_weight(block)
            fixed += sum(image_tokens() for part in block.result_parts if part.get("type") == "image") if not block.is_error else 0
        elif isinstance(block, ImageBlock):
            fixed += image_tokens(block.width, block.height)
        elif isinstance(block, DocumentBlock):
            fixed += document_tokens(block)
        elif isinstance(block, TextFileBlock):
            text += TOOL_OVERHEAD + text_weight(block.name) + text_weight(block.text)
        elif isinstance(block, RawBlock) and block.shown:
            text += text_weight(json.dumps(block.data, ensure_ascii=False))
    return Weight(text, fixed, thinking)


def tool_call_weight(block: ToolCallBlock) -> float:
    """A call and its result (`model_result`, the text the model gets, where it was cut) before calibration."""
    return tool_arguments_weight(block) + tool_result_weight(block)


def tool_arguments_weight(block: ToolCallBlock) -> float:
    return TOOL_OVERHEAD + text_weight(block.name) + text_weight(json.dumps(block.arguments, ensure_ascii=False))


def tool_result_weight(block: ToolCallBlock) -> float:
    result = block.model_result if block.model_result is not None else block.result
    return TOOL_OVERHEAD + text_weight(result or "")


def message_tokens(message: Message, provider: str | None = None) -> int:
    """About how many tokens `message` takes in a request: its text, thinking, tool calls and results, attachments."""
    return message_weight(message).tokens(provider)


def tool_spec_weight(name: str, description: str, input_schema: dict) -> float:
    """A tool as it is described to the model (name, description, JSON Schema of its arguments), before calibration."""
    return TOOL_OVERHEAD + text_weight(name) + text_weight(description) + text_weight(json.dumps(input_schema, ensure_ascii=False))


def tool_spec_tokens(name: str, description: str, input_schema: dict, provider: str | None = None) -> int:
    return round(tool_spec_weight(name, description, input_schema) * factor(provider))


def calibrate(provider: str, estimated: int, reported: int) -> bool:
    """Learn how far the estimate is from what `provider` reported for the same request (a moving average, kept
    within CALIBRATION_RANGE). `estimated` is the calibrated estimate of the text the report counts. False (nothing
    learned) when either is not positive or they are too far apart to be about the same text."""
    if estimated <= 0 or reported <= 0 or not COMPARABLE[0] <= reported / estimated <= COMPARABLE[1]:
        return False
    low, high = CALIBRATION_RANGE
    with _lock:
        current = _factors.get(provider, 1.0)
        learned = min(high, max(low, reported / estimated * current))
        _factors[provider] = min(high, max(low, 0.7 * current + 0.3 * learned))
    return True


def factor(provider: str | None) -> float:
    """The calibration learned so far for `provider` (1.0: none yet)."""
    return _factors.get(provider or "", 1.0)


def forget_calibration(provider: str | None = None) -> None:
    """Back to no calibration, for `provider` or for every provider (tests, a benchmark's fresh start)."""
    with _lock:
        if provider is None:
            _factors.clear()
        else:
            _factors.pop(provider, None)
