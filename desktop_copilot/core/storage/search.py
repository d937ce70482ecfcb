"""Search text preparation: CJK split into one-character tokens, FTS5 queries and readable snippets."""

from __future__ import annotations

import functools
import re

from desktop_copilot.core.conversation.models import DocumentBlock, ImageBlock, Message, TextBlock, TextFileBlock, ThinkingBlock, ToolCallBlock

_CJK = (
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # Han
    "\uac00-\ud7af"  # Hangul syllables
)
MARK_START, MARK_END = "\u0002", "\u0003"
"""Snippet highlight markers (control characters that never occur in stored text)."""
_CJK_PUNCTUATION = "\u3000-\u303f\uff00-\uffef"


@functools.cache
def cjk_char() -> re.Pattern[str]:
    """One CJK character, as a group. Compiled at first use, as is `_spaces_between_cjk`: their character classes take
    ~2 ms each to compile, and a process that neither indexes nor searches (`ask`) never needs them."""
    return re.compile(f"([{_CJK}])")


@functools.cache
def _spaces_between_cjk() -> re.Pattern[str]:
    marks = f"{_CJK}{_CJK_PUNCTUATION}{MARK_START}{MARK_END}"
    return re.compile(f"(?<=[{marks}]) +(?=[{marks}])")


def segment(text: str) -> str:
    """Surround every CJK character with spaces so FTS5's unicode61 tokenizer indexes it alone."""
    if text.isascii():  # no CJK in it (a title such as `ask`'s first prompt needs no pattern)
        return text
    return " ".join(cjk_char().split(text))  # text, CJK, text, CJK, …: ~4x faster than sub(r" \1 ") (no template per match)


def unsegment(text: str) -> str:
    """Undo `segment` for display (snippets)."""
    return re.sub(" {2,}", " ", _spaces_between_cjk().sub("", text)).strip()


def searchable_text(message: Message) -> str:
    """What of a message is searchable: its text, thinking, tool arguments and results, attached files' names
    and the text of attached text files."""
    parts: list[str] = []
    for block in message.blocks:
        if isinstance(block, TextBlock):
            parts.append(block.text)
        elif isinstance(block, ThinkingBlock):
            parts.append(block.thinking)
        elif isinstance(block, ToolCallBlock):
            parts.append(f"{block.name} {block.partial_arguments or block.arguments}")
            parts.append(block.result or "")
        elif isinstance(block, (ImageBlock, DocumentBlock)):
            parts.append(block.name)
        elif isinstance(block, TextFileBlock):
            parts += [block.name, block.text]
    return "\n".join(p for p in parts if p)


def fts_query(user_query: str) -> str | None:
    """An FTS5 MATCH expression: every word must occur; CJK runs match as phrases; the last
    latin word matches as a prefix. None when there is nothing to search for."""
    terms = []
    words = user_query.split()
    for position, word in enumerate(words):
        tokens = re.findall(r"\w+", segment(word))
        if not tokens:
            continue
        phrase = '"' + " ".join(tokens) + '"'
        is_last = position == len(words) - 1
        if is_last and not cjk_char().search(tokens[-1]):
            phrase += "*"
        terms.append(phrase)
    return " AND ".join(terms) or None
