"""The embedding wires through the real httpx client against the loopback embedding server: order, batching, the
concurrency bound, rate limits waited out, and errors in words that never hold the key."""

from __future__ import annotations

import asyncio
import email.utils
import socket
import time

import httpx
import pytest

from desktop_copilot.core.keys.secrets import Secret
from desktop_copilot.core.knowledge.embeddings import Embedder, EmbeddingError, EmbeddingModel
from tests.support.embedding_server import EmbeddingServer
from tests.support.loopback import json_response

WIRES = ("openai", "gemini", "ollama")
KEY = "sk-test-right-key-0123456789"
WRONG = "sk-test-wrong-key-9876543210"
KEY_NAMES = {"openai": "openai", "gemini": "gemini", "ollama": ""}


def assert_vectors(got: list[list[float]], expected: list[list[float]]) -> None:
    assert len(got) == len(expected)
    assert all(g == pytest.approx(e, abs=1e-6) for g, e in zip(got, expected))


class Waits(list):
    """An injected `sleep` that records each wait instead of sleeping."""

    async def __call__(self, seconds: float) -> None:
        self.append(seconds)
        await asyncio.sleep(0)


@pytest.fixture(scope="module")
def running_server():
    with EmbeddingServer() as running:
        yield running


@pytest.fixture
def server(running_server):
    running_server.reset()
    yield running_server


def texts(n: int) -> list[str]:
    return [f"passage {i} about topic{i % 7} and word{i}" for i in range(n)]


async def embed(server_or_model, texts_, *, key=None, wire="openai", for_query=False, **kw):
    model = server_or_model.model(wire) if isinstance(server_or_model, EmbeddingServer) else server_or_model
    async with httpx.AsyncClient() as http:
        return await Embedder(model, key, http, **kw).embed(texts_, for_query=for_query)


@pytest.mark.asyncio
@pytest.mark.parametrize("wire", WIRES)
async def test_each_wire_gives_one_vector_per_text_in_order_in_batches(server, wire):
    given = texts(150)
    vectors = await embed(server, given, wire=wire, batch_size=64)
    assert_vectors(vectors, [server.vector(t) for t in given])
    assert sorted(server.batch_sizes) == [22, 64, 64]
    assert {call.model for call in server.calls} == {server.model(wire).model}


@pytest.mark.asyncio
async def test_openai_items_are_put_back_in_order_by_their_index(server):
    server.shuffle = True
    given = texts(20)
    assert_vectors(await embed(server, given), [server.vector(t) for t in given])


@pytest.mark.asyncio
async def test_gemini_batches_stop_at_100(server):
    await embed(server, texts(150), wire="gemini", batch_size=500)
    assert sorted(server.batch_sizes) == [50, 100]


@pytest.mark.asyncio
async def test_no_texts_no_request(server):
    assert await embed(server, []) == []
    assert server.requests == []


@pytest.mark.asyncio
@pytest.mark.parametrize("limit", [1, 2, 3])
async def test_at_most_max_concurrency_requests_at_once(server, limit):
    server.delay = 0.03
    await embed(server, texts(7), batch_size=1, max_concurrency=limit)
    assert server.max_in_flight == limit
    assert len(server.calls) == 7


@pytest.mark.asyncio
async def test_the_bound_holds_across_calls_of_one_embedder(server):
    server.delay = 0.03
    async with httpx.AsyncClient() as http:
        embedder = Embedder(server.model("ollama"), None, http, batch_size=1, max_concurrency=2)
        await asyncio.gather(embedder.embed(texts(4)), embedder.embed(texts(4)), embedder.embed(["question"], for_query=True))
    assert server.max_in_flight == 2


@pytest.mark.asyncio
@pytest.mark.parametrize("wire", WIRES)
async def test_429_with_retry_after_seconds_is_waited_out(server, wire):
    server.fail_next(429, times=2, retry_after="3")
    waits = Waits()
    vectors = await embed(server, ["one text"], wire=wire, sleep=waits)
    assert_vectors(vectors, [server.vector("one text")])
    assert waits == [3.0, 3.0]
    assert [call.status for call in server.calls] == [429, 429, 200]


@pytest.mark.asyncio
async def test_retry_after_as_an_http_date(server):
    server.fail_next(429, retry_after=email.utils.formatdate(time.time() + 10, usegmt=True))
    waits = Waits()
    await embed(server, ["x"], sleep=waits)
    assert len(waits) == 1 and 8.0 <= waits[0] <= 10.5


@pytest.mark.asyncio
async def test_gemini_retry_info_when_no_header(server):
    server.fail_next(429, retry_delay="7s")
    waits = Waits()
    await embed(server, ["x"], wire="gemini", sleep=waits)
    assert waits == [7.0]


@pytest.mark.asyncio
async def test_503_without_a_wait_backs_off_and_500_is_not_retried(server):
    server.fail_next(503, times=2)
    waits = Waits()
    await embed(server, ["x"], sleep=waits)
    assert waits == [0.5, 1.0]
    server.fail_next(500, message="model does not support embeddings")
    with pytest.raises(EmbeddingError, match="answered 500: model does not support embeddings"):
        await embed(server, ["x"], wire="ollama", sleep=waits)
    assert len(waits) == 2


@pytest.mark.asyncio
async def test_out_of_retries_says_to_try_later(server):
    server.fail_next(429, times=10, retry_after="1")
    waits = Waits()
    with pytest.raises(EmbeddingError, match=r"kept limiting the rate of requests \(429\) after 3 tries. Try again later"):
        await embed(server, ["x"], sleep=waits, max_retries=2)
    assert waits == [1.0, 1.0]


@pytest.mark.asyncio
async def test_a_wait_longer_than_the_app_takes_is_not_waited(server):
    server.fail_next(429, retry_after="120")
    waits = Waits()
    with pytest.raises(EmbeddingError, match="asks to wait 120 s"):
        await embed(server, ["x"], sleep=waits)
    assert waits == []


@pytest.mark.asyncio
async def test_a_question_retries_once_and_briefly(server):
    server.fail_next(429, times=3, retry_after="1")
    waits = Waits()
    with pytest.raises(EmbeddingError, match="429"):
        await embed(server, ["question"], sleep=waits, for_query=True)
    assert waits == [1.0]
    server.fail_next(429, retry_after="5")
    with pytest.raises(EmbeddingError, match="asks to wait 5 s"):
        await embed(server, ["question"], sleep=waits, for_query=True)


@pytest.mark.asyncio
async def test_no_request_goes_out_while_a_rate_limit_is_waited_out(server):
    server.fail_next(429, retry_after="1")
    pause: list[float] = []

    async def sleep(seconds: float) -> None:
        pause.append(time.monotonic())
        await asyncio.sleep(0.2)
        pause.append(time.monotonic())

    await embed(server, texts(8), batch_size=1, max_concurrency=2, sleep=sleep)
    assert len(pause) == 2 and len(server.batch_sizes) == 8
    during = [c for c in server.calls if pause[0] + 0.02 < c.at < pause[1]]
    assert during == []


@pytest.mark.asyncio
@pytest.mark.parametrize("wire", WIRES)
async def test_a_refused_key_is_named_and_never_shown(wire):
    with EmbeddingServer(key=KEY) as server:
        with pytest.raises(EmbeddingError) as caught:
            await embed(server.model(wire, key_name=KEY_NAMES[wire]), ["x"], key=Secret(WRONG))
    message = str(caught.value)
    assert WRONG not in message and WRONG not in repr(caught.value)
    assert "refused the key" in message
    expected = {"openai": "Check the OpenAI API key in Settings (or OPENAI_API_KEY)",
                "gemini": "Check the Google Gemini API key in Settings (or GEMINI_API_KEY)",
                "ollama": "Give this embedding server its key"}[wire]
    assert expected in message
    assert caught.value.__cause__ is None


@pytest.mark.asyncio
async def test_a_missing_key_says_to_add_it():
    with EmbeddingServer(key=KEY) as server:
        with pytest.raises(EmbeddingError, match=r"Gemini refused the key \(403.*Add the Google Gemini API key in Settings"):
            await embed(server.model("gemini", key_name="gemini"), ["x"], key=None)


@pytest.mark.asyncio
async def test_the_key_goes_in_the_right_header_and_never_in_the_url():
    with EmbeddingServer(key=KEY) as server:
        for wire in WIRES:
            await embed(server.model(wire, key_name=KEY_NAMES[wire]), ["x"], key=Secret(KEY))
        openai, gemini, ollama = server.requests
    assert openai.headers["authorization"] == f"Bearer {KEY}"
    assert ollama.headers["authorization"] == f"Bearer {KEY}"
    assert gemini.headers["x-goog-api-key"] == KEY and "authorization" not in gemini.headers
    assert all(KEY not in r.path + r.query for r in (openai, gemini, ollama))


@pytest.mark.asyncio
async def test_no_key_no_authorization_header(server):
    await embed(server, ["x"], wire="openai")
    assert "authorization" not in server.requests[0].headers


@pytest.mark.asyncio
@pytest.mark.parametrize("wire", WIRES)
async def test_an_unknown_model_is_named(wire):
    with EmbeddingServer(models={"known-model"}) as server:
        with pytest.raises(EmbeddingError) as caught:
            await embed(server.model(wire, "no-such-embedder"), ["x"])
    message = str(caught.value)
    assert "has no embedding model 'no-such-embedder' (404" in message
    assert server.base_url(wire) in message
    if wire == "ollama":
        assert "ollama pull no-such-embedder" in message


@pytest.mark.asyncio
async def test_gemini_task_type_follows_query_or_document(server):
    await embed(server, ["a passage", "another"], wire="gemini")
    await embed(server, ["a question"], wire="gemini", for_query=True)
    assert [c.task_types for c in server.calls] == [["RETRIEVAL_DOCUMENT", "RETRIEVAL_DOCUMENT"], ["RETRIEVAL_QUERY"]]
    body = server.requests[0].json()
    assert body["requests"][0] == {"model": "models/gemini-embedding-001", "content": {"parts": [{"text": "a passage"}]},
                                   "taskType": "RETRIEVAL_DOCUMENT"}
    assert server.requests[0].path == "/v1beta/models/gemini-embedding-001:batchEmbedContents"


@pytest.mark.asyncio
async def test_request_bodies_of_openai_and_ollama(server):
    await embed(server, ["a", "b"], wire="openai")
    await embed(server, ["c"], wire="ollama")
    assert server.requests[0].json() == {"model": "text-embedding-3-small", "input": ["a", "b"]}
    assert server.requests[1].json() == {"model": "nomic-embed-text", "input": ["c"]}
    assert [r.path for r in server.requests] == ["/v1/embeddings", "/api/embed"]


@pytest.mark.asyncio
@pytest.mark.parametrize("wire", WIRES)
async def test_shorter_vectors_when_dimensions_are_set(server, wire):
    vectors = await embed(server.model(wire, dimensions=32), ["some words here"], wire=wire)
    assert len(vectors[0]) == 32


@pytest.mark.asyncio
async def test_a_gemini_base_url_without_its_version_still_works(server):
    model = EmbeddingModel("gemini", "models/gemini-embedding-001", server.url)
    assert_vectors(await embed(model, ["x"]), [server.vector("x")])


@pytest.mark.asyncio
async def test_an_unreachable_server_names_the_url():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    with pytest.raises(EmbeddingError, match=f"Could not reach Ollama at {url} .*Check that it is running"):
        await embed(EmbeddingModel("ollama", "nomic-embed-text", url), ["x"])


@pytest.mark.asyncio
async def test_a_reply_without_one_vector_per_text_is_an_error(loopback):
    loopback.enqueue("/v1/embeddings", json_response({"object": "list", "data": [{"index": 0, "embedding": [0.1, 0.2]}]}))
    with pytest.raises(EmbeddingError, match="1 vectors came back for 2 texts"):
        await embed(EmbeddingModel("openai", "m", f"{loopback.url}/v1"), ["a", "b"])


@pytest.mark.asyncio
async def test_one_failed_batch_stops_the_others(server):
    server.fail_next(404, message="gone")
    server.delay = 0.02
    with pytest.raises(EmbeddingError, match="404"):
        await embed(server, texts(40), batch_size=1, max_concurrency=2)
    await asyncio.sleep(0.1)
    assert len(server.calls) <= 3


def test_identity_is_stable_short_and_a_file_name():
    a = EmbeddingModel("openai", "text-embedding-3-small", "https://api.openai.com/v1", "openai")
    assert a.identity == EmbeddingModel("openai", "text-embedding-3-small", "https://API.openai.com/v1/", "").identity
    assert a.identity.startswith("openai-text-embedding-3-small-") and len(a.identity) <= 60
    others = {
        EmbeddingModel("openai", "text-embedding-3-large", "https://api.openai.com/v1").identity,
        EmbeddingModel("openai", "text-embedding-3-small", "http://localhost:1234/v1").identity,
        EmbeddingModel("ollama", "text-embedding-3-small", "https://api.openai.com/v1").identity,
        EmbeddingModel("openai", "text-embedding-3-small", "https://api.openai.com/v1", dimensions=256).identity,
    }
    assert a.identity not in others and len(others) == 4
    odd = EmbeddingModel("ollama", "hf.co/User/Model:Q4_K_M", "http://127.0.0.1:11434").identity
    assert odd.replace("-", "").isalnum()
    gemini = EmbeddingModel("gemini", "gemini-embedding-001", "https://generativelanguage.googleapis.com/v1beta")
    assert gemini.identity == EmbeddingModel("gemini", "models/gemini-embedding-001", "https://generativelanguage.googleapis.com").identity


def test_an_unknown_wire_is_refused():
    with pytest.raises(ValueError, match="unknown embedding wire"):
        Embedder(EmbeddingModel("cohere", "m", "http://x"), None, None)  # type: ignore[arg-type]


def test_nothing_shows_the_key():
    embedder = Embedder(EmbeddingModel("openai", "m", "http://x/v1", "openai"), Secret(KEY), None)  # type: ignore[arg-type]
    assert KEY not in repr(embedder) and KEY not in repr(embedder.model) and KEY not in repr(vars(embedder))
