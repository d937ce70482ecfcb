"""Server-sent events and NDJSON lines cut out of a streamed HTTP body, on bytes: one split per network chunk
rather than an object per line, so reading a 10,000-delta reply costs less than the SDKs' own readers."""

from __future__ import annotations

SSEvent = tuple[str, bytes]
"""(the `event:` name, "" when none came; the `data:` lines joined by a newline, as UTF-8 bytes)."""


class SSEReader:
    """Feed it the body's chunks; it returns each event once its blank line has arrived. Lines may end with LF,
    CRLF or CR, split anywhere across chunks; comments and the `id:` and `retry:` fields are ignored, and one
    space after a field's colon is dropped (the SSE rules). A block with no name and no data is not an event.
    `keep_other_lines`: lines that are no SSE field are kept as the data of an event named "" (how Google writes an
    error object into a stream, outside `data:` lines)."""

    __slots__ = ("_tail", "_other")

    def __init__(self, *, keep_other_lines: bool = False) -> None:
        self._tail = b""
        self._other = keep_other_lines

    def feed(self, chunk: bytes) -> list[SSEvent]:
        data = self._tail + chunk if self._tail else chunk
        held_cr = b""
        if b"\r" in data:
            if data.endswith(b"\r"):  # maybe the first half of a CRLF: decided by the next chunk
                data, held_cr = data[:-1], b"\r"
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        if b"\n\n" not in data:
            self._tail = data + held_cr
            return []
        blocks = data.split(b"\n\n")
        self._tail = blocks.pop() + held_cr
        return [event for block in blocks if block and (event := _event(block, self._other)) is not None]

    def close(self) -> list[SSEvent]:
        """The last event when the body ended without its blank line (what is left, read as a whole event)."""
        tail, self._tail = self._tail.replace(b"\r\n", b"\n").replace(b"\r", b"\n").strip(b"\n"), b""
        event = _event(tail, self._other) if tail else None
        return [event] if event is not None else []


def _event(block: bytes, keep_other_lines: bool = False) -> SSEvent | None:
    if block.startswith(b"data:") and b"\n" not in block:  # the usual event: one data line, no name
        value = block[5:]
        value = value[1:] if value[:1] == b" " else value
        return ("", value) if value else None  # `data:` alone is no event, as below
    name, data, other = "", [], []
    for line in block.split(b"\n"):
        if line.startswith(b"data:"):
            value = line[5:]
            data.append(value[1:] if value[:1] == b" " else value)
        elif line == b"data":  # a field without a colon has an empty value
            data.append(b"")
        elif line.startswith(b"event:"):
            value = line[6:]
            name = (value[1:] if value[:1] == b" " else value).decode("utf-8", "replace")
        elif keep_other_lines and line and not line.startswith((b":", b"id:", b"retry:")):
            other.append(line)
    if other and not data:
        return "", b"\n".join(other)
    joined = b"\n".join(data)
    return (name, joined) if name or joined else None


class LineReader:
    """Feed it the body's chunks; it returns the complete non-blank lines (NDJSON), without their line ends."""

    __slots__ = ("_tail",)

    def __init__(self) -> None:
        self._tail = b""

    def feed(self, chunk: bytes) -> list[bytes]:
        if not self._tail and chunk.find(b"\n") == len(chunk) - 1:  # most chunks: one whole line
            line = chunk[:-1]
            return [line] if line and not line.isspace() else []
        data = self._tail + chunk if self._tail else chunk
        if b"\n" not in data:
            self._tail = data
            return []
        lines = data.split(b"\n")
        self._tail = lines.pop()
        return [line for line in lines if line.strip()]

    def close(self) -> list[bytes]:
        """The last line when the body did not end with a line end."""
        tail, self._tail = self._tail, b""
        return [tail] if tail.strip() else []
