"""Property tests through the real providers: a recorded stream served by a loopback server in pieces cut anywhere
(inside an event, a line end or a UTF-8 character) gives the same reply as served whole, and that reply is a valid
history for every provider."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable

from hypothesis import given
from hypothesis import strategies as st

from desktop_copilot.core.conversation.models import Message
from desktop_copilot.core.providers.anthropic_provider import AnthropicProvider
from desktop_copilot.core.providers.base import ProviderRequest
from desktop_copilot.core.providers.chat_completions_provider import ChatCompletionsProvider
from desktop_copilot.core.providers.gemini_provider import GeminiProvider
from desktop_copilot.core.providers.ollama_provider import OllamaProvider
from desktop_copilot.core.keys.secrets import Secret
from tests.fuzz.support import cuts, fuzz_settings, pieces, ran
from tests.fuzz.wires import fold, reply_problems, summary
from tests.support.loopback import CORPUS_DIR, LoopbackServer, ScriptedResponse, corpus_chunks

SSE = {"content-type": "text/event-stream"}
NDJSON = {"content-type": "application/x-ndjson"}
PROVIDERS: dict[str, tuple[str, str, dict[str, str], Callable[[str], object]]] = {
    # provider id: (corpus prefix, path the stream is served on, headers, the provider for a base URL)
    "anthropic": ("anthropic_", "/v1/messages", SSE,
                  lambda url: AnthropicProvider(Secret("sk-ant-fuzz-0123456789"), url, max_retries=0, timeout=10.0)),
    "openai": ("openai_", "/v1/chat/completions", SSE,
               lambda url: ChatCompletionsProvider(Secret("sk-fuzz-0123456789"), url + "/v1", vendor="openai",
                                                   max_retries=0, timeout=10.0)),
    "gemini": ("gemini_", "/v1beta/models/", SSE,
               lambda url: GeminiProvider(Secret("AIzaFuzz0123456789"), url, max_retries=0, timeout=10.0)),
    "ollama": ("ollama_", "/api/chat", NDJSON, lambda url: OllamaProvider(url, max_retries=0, timeout=10.0)),
}
CASES = [(provider, path.name) for provider, (prefix, *_rest) in PROVIDERS.items()
         for path in sorted(CORPUS_DIR.iterdir()) if path.name.startswith(prefix) and path.suffix != ".md"
         and "error" not in path.name]


def served(provider_id: str, chunks: list[bytes]) -> Message:
    """The reply `provider_id`'s provider reads when a loopback server sends `chunks` (each written and flushed on its
    own, a moment apart, so the client reads them apart)."""
    _prefix, path, headers, make = PROVIDERS[provider_id]

    async def stream(url: str) -> list:
        provider = make(url)
        try:
            request = ProviderRequest(model="fuzz-model", messages=[Message.user("hi")], provider=provider_id)
            return [event async for event in provider.stream(request)]
        finally:
            await provider.aclose()

    with LoopbackServer() as server:
        server.enqueue(path, ScriptedResponse(headers=headers, chunks=chunks, delay=0.002))
        return fold(asyncio.run(stream(server.url)), provider_id)


@functools.cache
def served_whole(provider_id: str, name: str) -> tuple[str, list]:
    return repr(summary(served(provider_id, [b"".join(corpus_chunks(name))])))


@fuzz_settings("provider_replay", 12)
@given(st.sampled_from(CASES), st.data())
def test_a_recorded_stream_cut_anywhere_reads_as_served_whole(case, data):
    ran("provider_replay")
    provider_id, name = case
    body = b"".join(corpus_chunks(name))
    message = served(provider_id, pieces(body, data.draw(cuts(len(body), max_cuts=10))))
    assert repr(summary(message)) == served_whole(provider_id, name)
    assert not reply_problems(message)
