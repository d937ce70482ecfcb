"""Text files: telling text from binary, decoding, and plain text cut into paragraphs."""

from __future__ import annotations

import codecs

from desktop_copilot.core.knowledge.extract_units import CONTINUE, Block, Passage, UnreadableFile, line_units, pack

SNIFF_BYTES = 8192
_CONTROL = bytes(b for b in range(32) if b not in b"\t\n\r\f\v\x1b")
_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_UTF32_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)


def looks_binary(sample: bytes) -> bool:
    """Whether the first bytes of a file (8 KB) look like a binary file: a NUL byte (UTF-16/32 text with a BOM
    aside) or more than one byte in ten a control character that text does not use."""
    sample = sample[:SNIFF_BYTES]
    if sample.startswith(_UTF32_BOMS + _UTF16_BOMS):
        return False
    if b"\x00" in sample:
        return True
    if not sample:
        return False
    controls = len(sample) - len(sample.translate(None, _CONTROL))
    return controls * 10 > len(sample)


def decode_text(data: bytes) -> str:
    """A text file's bytes as text: UTF-8 (with or without BOM), UTF-16/32 with a BOM, else the encoding
    charset_normalizer guesses (with replacement characters where it is wrong). Raises UnreadableFile for binary."""
    if data.startswith(codecs.BOM_UTF8):
        return data[3:].decode("utf-8", "replace")
    if data.startswith(_UTF32_BOMS):
        return data.decode("utf-32", "replace")
    if data.startswith(_UTF16_BOMS):
        return data.decode("utf-16", "replace")
    if looks_binary(data[:SNIFF_BYTES]):
        raise UnreadableFile("binary file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode(_guess_encoding(data), "replace")


def _guess_encoding(data: bytes) -> str:
    try:
        from charset_normalizer import from_bytes
    except ImportError:
        return "utf-8"
    best = from_bytes(data[:65536]).best()
    return best.encoding if best is not None else "utf-8"


def read_text(path) -> str:
    with open(path, "rb") as handle:
        return decode_text(handle.read())


def split_lines(text: str) -> list[str]:
    """The lines of a text as an editor numbers them (\\r\\n, \\n or \\r ends a line; a final newline adds none)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def paragraph_blocks(texts: list[str]) -> list[Block]:
    """Runs of non-blank lines, each a block."""
    blocks = []
    start = -1
    for k, line in enumerate(texts):
        if not line or line.isspace():
            if start >= 0:
                blocks.append(Block(start, k, CONTINUE))
                start = -1
        elif start < 0:
            start = k
    if start >= 0:
        blocks.append(Block(start, len(texts), CONTINUE))
    return blocks


def text_passages(text: str, max_chars: int) -> list[Passage]:
    units = line_units(split_lines(text), max_chars)
    return pack(units, paragraph_blocks(units.text), max_chars)
