"""The SSE and NDJSON readers against independent readings of the same bytes, cut at every kind of place."""

from __future__ import annotations

import json
import random

import pytest
from anthropic._streaming import SSEDecoder

from desktop_copilot.core.providers.stream_reader import LineReader, SSEReader
from tests.support.loopback import corpus_chunks

BODY = (
    b": a comment\n"
    b"event: message_start\ndata: {\"type\": \"message_start\"}\n\n"
    b"data: {\"n\": 1}\r\n\r\n"
    b"event: ping\r\ndata: {}\r\r"
    b"data: first line\ndata:second line\nid: 7\nretry: 100\n\n"
    b"data\n\n"
    b"event: error\n\n"
    b"id: only an id\n\n"
    + "data: {\"text\": \"你好 🌍 Grüße\"}\n\n".encode()
    + b"\n\n\n"
    b"data: [DONE]\n\n"
    b"data: never ended"
)


def sdk_reading(body: bytes) -> list[tuple[str, bytes]]:
    """The Anthropic SDK's own decoder: the events with a name or data (what a reader acts on)."""
    events = SSEDecoder().iter_bytes(iter([body]))
    return [(e.event or "", e.data.encode()) for e in events if e.event or e.data]


def read_in_pieces(reader, body: bytes, cuts: list[int]) -> list:
    out, start = [], 0
    for cut in [*cuts, len(body)]:
        out += reader.feed(body[start:cut])
        start = cut
    return out


def random_cuts(body: bytes, rng: random.Random, count: int) -> list[int]:
    return sorted(rng.sample(range(1, len(body)), min(count, len(body) - 1)))


def test_sse_reader_reads_what_the_sdk_reads_whole_and_in_any_pieces():
    expected = sdk_reading(BODY)
    assert ("", b"first line\nsecond line") in expected and ("error", b"") in expected  # the oracle sees the cases
    assert SSEReader().feed(BODY) == expected
    rng = random.Random(13)
    for _ in range(300):
        assert read_in_pieces(SSEReader(), BODY, random_cuts(BODY, rng, rng.randint(1, 40))) == expected


def test_sse_reader_byte_by_byte_including_a_crlf_cut_in_half():
    body = b"data: a\r\n\r\ndata: b\r\r\n\ndata: c\n\r\n"
    assert read_in_pieces(SSEReader(), body, list(range(1, len(body)))) == sdk_reading(body)


@pytest.mark.parametrize("name", ["anthropic_text_01.sse", "anthropic_web_search_01.sse",
                                  "gemini_stream_parallel_function_calls_01.sse"])
def test_sse_reader_on_recorded_streams(name):
    body = b"".join(corpus_chunks(name))
    expected = sdk_reading(body)
    assert expected
    assert read_in_pieces(SSEReader(), body, random_cuts(body, random.Random(name), 50)) == expected
    for _, data in expected:
        json.loads(data)


def test_sse_reader_close_gives_the_event_left_without_its_blank_line():
    reader = SSEReader()
    assert reader.feed(b"data: {\"a\": 1}\r\n\r\ndata: {\"b\": 2}\r\n") == [("", b'{"a": 1}')]
    assert reader.close() == [("", b'{"b": 2}')]
    assert reader.close() == []


def test_line_reader_gives_the_non_blank_lines_however_cut():
    lines = [json.dumps({"message": {"content": f"{i} 你好 🌍"}, "done": False}).encode() for i in range(40)]
    body = b"\n".join(lines[:20]) + b"\n\n\r\n" + b"\r\n".join(lines[20:]) + b"\n"
    expected = [line for line in body.split(b"\n") if line.strip()]
    rng = random.Random(7)
    for _ in range(200):
        reader = LineReader()
        got = read_in_pieces(reader, body, random_cuts(body, rng, rng.randint(1, 60)))
        assert got == expected and reader.close() == []
    assert [json.loads(line)["message"]["content"] for line in expected] == [f"{i} 你好 🌍" for i in range(40)]


def test_line_reader_close_gives_a_last_line_without_its_end():
    reader = LineReader()
    assert reader.feed(b'{"a": 1}\n{"b"') == [b'{"a": 1}']
    assert reader.feed(b": 2}") == []
    assert reader.close() == [b'{"b": 2}']
