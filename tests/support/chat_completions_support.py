"""Builders for Chat Completions streams and errors served by the loopback server, and the SDK's own reading of
a stream (the oracle the provider's output is compared with)."""

from __future__ import annotations

import json
from typing import Any

import openai

from tests.support.loopback import ScriptedResponse, json_response, sse_response

CHAT = "/v1/chat/completions"
MODELS = "/v1/models"


def chat_chunk(delta: dict[str, Any] | None = None, *, finish_reason: str | None = None, usage: dict | None = None,
               chunk_id: str = "chatcmpl-loopback", model: str = "gpt-test") -> dict[str, Any]:
    """One `chat.completion.chunk`; with `delta` None and `usage` given, the usage-only chunk (`choices: []`)."""
    choices = [] if delta is None else [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}]
    return {"id": chunk_id, "object": "chat.completion.chunk", "created": 1782321910, "model": model,
            "choices": choices, "usage": usage}


def chat_sse(chunks: list[dict[str, Any]], *, done: bool = True) -> list[bytes]:
    """One `data:` event per chunk, then `data: [DONE]`."""
    return [f"data: {json.dumps(c)}\n\n".encode() for c in chunks] + ([b"data: [DONE]\n\n"] if done else [])


def _pieces(text: str, count: int) -> list[str]:
    size = max(1, -(-len(text) // max(1, count)))
    return [text[i : i + size] for i in range(0, len(text), size)]


USAGE = {"prompt_tokens": 20, "completion_tokens": 7, "total_tokens": 27,
         "prompt_tokens_details": {"cached_tokens": 4}, "completion_tokens_details": {"reasoning_tokens": 3}}


def chat_reply(text: str | None = None, *, calls: list[tuple[str | None, str, dict]] = (), reasoning: str | None = None,
               reasoning_key: str = "reasoning_content", pieces: int = 2, finish_reason: str | None = None,
               usage: dict | None = USAGE, **chunk_kw: Any) -> list[dict[str, Any]]:
    """A whole reply: optional thinking (under `reasoning_key`), optional text, then tool calls (id, name,
    arguments) with their arguments in `pieces` fragments, the finish reason and the usage chunk."""
    chunks = [chat_chunk({"role": "assistant", "content": ""}, **chunk_kw)]
    for piece in _pieces(reasoning or "", pieces):
        chunks.append(chat_chunk({reasoning_key: piece}, **chunk_kw))
    for piece in _pieces(text or "", pieces):
        chunks.append(chat_chunk({"content": piece}, **chunk_kw))
    for index, (call_id, name, arguments) in enumerate(calls):
        first = {"index": index, "type": "function", "function": {"name": name, "arguments": ""}}
        if call_id is not None:
            first["id"] = call_id
        chunks.append(chat_chunk({"tool_calls": [first]}, **chunk_kw))
        for piece in _pieces(json.dumps(arguments), pieces) if arguments else []:
            chunks.append(chat_chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}, **chunk_kw))
    reason = finish_reason or ("tool_calls" if calls else "stop")
    chunks.append(chat_chunk({}, finish_reason=reason, **chunk_kw))
    if usage is not None:
        chunks.append(chat_chunk(None, usage=usage, **chunk_kw))
    return chunks


def chat_response(chunks: list[dict[str, Any]], *, done: bool = True, **kw: Any) -> ScriptedResponse:
    return sse_response(chat_sse(chunks, done=done), **kw)


def openai_error(status: int, message: str, type_: str = "invalid_request_error", code: str | None = None,
                 headers: dict[str, str] | None = None) -> ScriptedResponse:
    """An OpenAI error body: {"error": {"message", "type", "param", "code"}}."""
    return json_response({"error": {"message": message, "type": type_, "param": None, "code": code}}, status, headers)


async def sdk_snapshot(url: str, key: str) -> tuple[Any, Exception | None]:
    """What the SDK's stream helper (`chat.completions.stream`) accumulates from the next scripted reply: the
    final completion, or the snapshot so far and the exception when the stream failed."""
    client = openai.AsyncOpenAI(api_key=key, base_url=url + "/v1", max_retries=0)
    async with client, client.chat.completions.stream(model="gpt-test", messages=[{"role": "user", "content": "hi"}]) as stream:
        try:
            return await stream.get_final_completion(), None
        except (openai.LengthFinishReasonError, openai.ContentFilterFinishReasonError):
            return stream.current_completion_snapshot, None  # raised by the parsing step only: the stream ended well
        except openai.APIError as exc:
            return stream.current_completion_snapshot, exc
