"""Property tests of the SSE and NDJSON readers: any bytes cut anywhere never raise and read as the whole body reads;
valid streams (any line ends, any Unicode, cut inside a UTF-8 character) give exactly their events."""

from __future__ import annotations

import json

from anthropic._streaming import SSEDecoder
from hypothesis import example, given
from hypothesis import strategies as st

from desktop_copilot.core.providers.stream_reader import LineReader, SSEReader
from tests.fuzz.support import cuts, fuzz_settings, pieces, ran
from tests.support.loopback import CORPUS_DIR, corpus_chunks

SSE_FILES = sorted(p.name for p in CORPUS_DIR.iterdir() if p.suffix in (".sse", ".jsonl"))
NDJSON_FILES = sorted(p.name for p in CORPUS_DIR.iterdir() if p.suffix == ".ndjson")

bodies = st.binary(max_size=300) | st.lists(st.sampled_from(
    [b"data:", b"data: ", b"event:", b"event: x", b"id: 1", b": c", b"\n", b"\r", b"\r\n", b"\n\n", b"{}", b"\xe4\xbd",
     b"\xa0", b"\xff", b"retry: 5", b"data", b" ", "你好🌍".encode()]), max_size=40).map(b"".join)


def read_sse(chunks: list[bytes]) -> list[tuple[str, bytes]]:
    reader = SSEReader()
    events = [event for chunk in chunks for event in reader.feed(chunk)]
    return events + reader.close()


def read_lines(chunks: list[bytes]) -> list[bytes]:
    reader = LineReader()
    lines = [line for chunk in chunks for line in reader.feed(chunk)]
    return lines + reader.close()


@st.composite
def body_and_cuts(draw: st.DrawFn, body_strategy: st.SearchStrategy[bytes]) -> tuple[bytes, list[int]]:
    body = draw(body_strategy)
    return body, draw(cuts(len(body), max_cuts=30))


@fuzz_settings("sse_reader", 300)
@given(body_and_cuts(bodies))
@example((b"data: a\r", [8]))  # a CR that may be half of a CRLF, at the end of a chunk
@example((b"data: a\r\r\ndata: b\n\n", [8, 9]))
def test_sse_reader_never_raises_and_reads_any_bytes_as_the_whole_body(case):
    ran("sse_reader")
    body, offsets = case
    whole = read_sse([body])
    assert read_sse(pieces(body, offsets)) == whole
    assert all(isinstance(name, str) and isinstance(data, bytes) for name, data in whole)


line_end = st.sampled_from(["\n", "\r\n", "\r"])
field_value = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\r\n"), max_size=20)


@st.composite
def sse_streams(draw: st.DrawFn) -> tuple[bytes, list[tuple[str, bytes]]]:
    """A valid event stream with random line ends, comments and ignored fields, and the events it holds."""
    out, expected = [], []
    for _ in range(draw(st.integers(0, 6))):
        end = draw(line_end)
        name = draw(st.none() | field_value.filter(lambda v: not v.startswith(" ")))
        data = draw(st.lists(field_value, max_size=3))
        lines = [f": {draw(field_value)}"] if draw(st.booleans()) else []
        if name is not None:
            lines.append(f"event: {name}")
        lines += [f"data: {value}" for value in data]
        if draw(st.booleans()):
            lines.append(f"id: {draw(field_value)}")
        out.append(end.join(lines) + end + end)
        joined = "\n".join(data)
        if name or joined:
            expected.append((name or "", joined.encode()))
    return "".join(out).encode(), expected


@fuzz_settings("sse_reader", 150)
@given(sse_streams(), st.data())
def test_a_valid_sse_stream_cut_anywhere_gives_its_events(stream, data):
    ran("sse_reader")
    body, expected = stream
    offsets = data.draw(cuts(len(body), max_cuts=40))
    got = read_sse(pieces(body, offsets))
    assert got == expected
    sdk = [(e.event or "", e.data.encode()) for e in SSEDecoder().iter_bytes(iter([body])) if e.event or e.data]
    assert got == sdk  # the Anthropic SDK's own reader agrees
    for _, value in got:
        value.decode("utf-8")  # a cut inside a character never reaches an event


@fuzz_settings("sse_reader", 60)
@given(st.sampled_from(SSE_FILES), st.data())
def test_recorded_streams_cut_anywhere_give_the_same_events(name, data):
    ran("sse_reader")
    body = b"".join(corpus_chunks(name))
    offsets = data.draw(cuts(len(body), max_cuts=60))
    got = read_sse(pieces(body, offsets))
    assert got == read_sse([body])
    for event_name, value in got:
        if event_name != "ping" and value != b"[DONE]":
            json.loads(value)


@fuzz_settings("line_reader", 250)
@given(body_and_cuts(bodies))
def test_line_reader_never_raises_and_reads_any_bytes_as_the_whole_body(case):
    ran("line_reader")
    body, offsets = case
    got = read_lines(pieces(body, offsets))
    assert got == read_lines([body]) == [line for line in body.split(b"\n") if line.strip()]


@fuzz_settings("line_reader", 100)
@given(st.lists(st.dictionaries(st.text(max_size=5), st.text(max_size=20), max_size=3), max_size=8),
       st.sampled_from([b"\n", b"\r\n"]), st.data())
def test_ndjson_lines_cut_anywhere_decode_to_their_objects(objects, end, data):
    ran("line_reader")
    body = end.join(json.dumps(o, ensure_ascii=False).encode() for o in objects) + end
    got = read_lines(pieces(body, data.draw(cuts(len(body), max_cuts=30))))
    assert [json.loads(line) for line in got] == objects


@fuzz_settings("line_reader", 30)
@given(st.sampled_from(NDJSON_FILES), st.data())
def test_recorded_ndjson_cut_anywhere_gives_the_same_lines(name, data):
    ran("line_reader")
    body = b"".join(corpus_chunks(name))
    got = read_lines(pieces(body, data.draw(cuts(len(body), max_cuts=60))))
    assert got == read_lines([body]) and all(isinstance(json.loads(line), dict) for line in got)
