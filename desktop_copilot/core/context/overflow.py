"""Whether an error answer says the request is larger than the model's context window, recognised by each vendor's
real error body, and the words the app says then.

The bodies, as the vendors write them (sources: the issue threads and source files named):
- Anthropic, 400 `invalid_request_error`: "prompt is too long: 219898 tokens > 200000 maximum" (earendil-works/pi #102,
  boldsoftware/exe.dev #62); "input length and `max_tokens` exceed context limit: 178959 + 64000 > 200000, decrease
  input length or `max_tokens` and try again" (docker/docker-agent #569, anthropics/claude-code #228).
- OpenAI, 400 `invalid_request_error`, `code: "context_length_exceeded"`: "This model's maximum context length is
  128000 tokens. However, your messages resulted in 202868 tokens …" (bytedance/deer-flow #310); the Responses-era
  wording "Your input exceeds the context window of this model" (pi-mono packages/ai/src/utils/overflow.ts).
- vLLM, 400 `BadRequestError` (nested under `error` since v0.10.1, flat with `object: "error"` before): "This model's
  maximum context length is 4096 tokens. However, you requested 4222 tokens (1222 in the messages, 3000 in the
  completion). Please reduce …" (vllm/entrypoints/openai/serving_engine.py), "… However, your request has 9000 input
  tokens. Please reduce the length of the input messages." (vllm renderer), "'max_tokens' or 'max_completion_tokens'
  is too large: 8000. This model's maximum context length is 4096 tokens and your request has 2778 input tokens …",
  and the V1 engine's "The decoder prompt (length 8825) is longer than the maximum model length of 8192."
  (xorbitsai/inference #3785).
- llama.cpp's llama-server, 400 `type: "exceed_context_size_error"` with `n_prompt_tokens` and `n_ctx`: "request (4476
  tokens) exceeds the available context size (4096 tokens), try increasing it" (tools/server/server-context.cpp;
  older builds: "the request exceeds the available context size, try increasing it").
- LM Studio, 400 `{"error": "<text>"}`: "The number of tokens to keep from the initial prompt is greater than the
  context length (n_keep: 13055>= n_ctx: 4096). Try to load the model with a larger context length, or provide a
  shorter input." (Gitlawb/openclaude #353); "Trying to keep the first 15857 tokens when context the overflows.
  However, the model is loaded with context length of only 4096 tokens, which is not enough. …"
  (lmstudio-bug-tracker #237, #546).
- DeepSeek, 400 `code: "invalid_request_error"`: the older OpenAI wording "This model's maximum context length is
  131072 tokens. However, you requested 131134 tokens (122942 in the messages, 8192 in the completion) …"
  (evalstate/fast-agent #621). Groq, 400 `code: "context_length_exceeded"`: "Please reduce the length of the messages
  or completion." (OpenHands #1902). OpenRouter, 400: "This endpoint's maximum context length is 131072 tokens.
  However, you requested about 141607 tokens …" (Aider-AI/aider #3721). xAI: "This model's maximum prompt length is
  131072 but the request contains 136973 tokens." (cline #3120). Moonshot: "Invalid request: Your request exceeded
  model token limit: 262144 (requested: 269030)" (MoonshotAI/kimi-cli #2011). Zhipu, code "1261": "Prompt exceeds max
  length" (zeroclaw-labs/zeroclaw #4124).
- Gemini, 400 `INVALID_ARGUMENT`: "The input token count (1200293) exceeds the maximum number of tokens allowed
  (1048576)." (google-gemini/gemini-cli #6678, googleapis/python-genai #2466).
- Ollama: no error at all; it cuts the start of the prompt to its `num_ctx` (hence `options.num_ctx`,
  core/providers/ollama_wire.py). An OpenAI-style proxy in front of it is read as the Chat Completions servers are.
"""

from __future__ import annotations

import json
import re
from typing import Any

from desktop_copilot.core.words import N_, tr

_ANTHROPIC = (
    r"prompt is too long",
    r"input length and `?max_tokens`? exceed context limit",
)
_CHAT_COMPLETIONS = (
    r"maximum context length is \d+",  # OpenAI, DeepSeek, vLLM, OpenRouter ("This endpoint's …")
    r"exceeds the context window",  # OpenAI
    r"is longer than the maximum model length",  # vLLM V1
    r"exceeds? the available context size|exceeds context size \(\d+ tokens\)",  # llama.cpp
    r"greater than the context length",  # LM Studio
    r"keep the first \d+ tokens when context the overflows",  # LM Studio
    r"reduce the length of the messages",  # Groq, Cerebras
    r"maximum prompt length is \d+",  # xAI
    r"exceeded model token limit",  # Moonshot
    r"prompt exceeds max length",  # Zhipu
    r"too large for model with \d+ maximum context length",  # Mistral
)
_GEMINI = (r"input token count.{0,40}exceeds the maximum number of tokens",)
PATTERNS: dict[str, re.Pattern[str]] = {
    wire: re.compile("|".join(patterns), re.IGNORECASE)
    for wire, patterns in (
        ("anthropic", _ANTHROPIC),
        ("chat_completions", _CHAT_COMPLETIONS),
        ("gemini", _GEMINI),
        ("ollama", (r"exceeds the context length", *_CHAT_COMPLETIONS)),
    )
}
"""What each wire's overflow error says, by the wire the request went over."""
CODES = frozenset({"context_length_exceeded", "exceed_context_size_error", "1261"})
"""Error codes and types that say so without reading the words (OpenAI and Groq, llama.cpp, Zhipu)."""
STATUSES = frozenset({400, 413, 422})
"""The statuses an overflow comes with; None and 200 are an error written into a stream after its 200."""
MESSAGE_CHARS = 2_000

OVERFLOW_WORDS = N_("The conversation is longer than the model's context window ({said}). Older turns are compacted into "
                  "a summary and the request is sent again; if it still does not fit, use Compact now or start a new chat "
                  "from a summary.")
"""The sentence for an overflow ({said}: who answered what, "the Anthropic API answered 400: prompt is too long …")."""


def is_context_overflow(provider_wire: str, status: int | None, body: Any) -> bool:
    """Whether an error answer (`status`, None or 200 for an error inside a stream) with `body` (bytes, text, or the
    JSON an SDK read: the whole body or its `error` object) says the request does not fit the model's context window.
    A rate limit or a server failure never does, whatever its words."""
    if status is not None and status != 200 and status not in STATUSES:
        return False
    message, markers = _read(body)
    if markers & CODES:
        return True
    pattern = PATTERNS.get(provider_wire)
    return bool(message) and pattern is not None and pattern.search(message) is not None


def overflow_words(said: str) -> str:
    """The error's words for an overflow: what happened, what the app does next and what the user can do."""
    return tr(OVERFLOW_WORDS).format(said=said)


def _read(body: Any) -> tuple[str, set[str]]:
    """(the error's message, its code, type and status as strings) of an error body in any shape the wires use: only
    the message is read for words, never the rest (a server may echo the request, which may quote such words)."""
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    if isinstance(body, str) and body.strip()[:1] in ("{", "["):
        try:
            body = json.loads(body)
        except (ValueError, RecursionError):
            pass
    if isinstance(body, list) and body and isinstance(body[0], dict):  # Google's error wrapped in an array by some proxies
        body = body[0]
    if isinstance(body, str):
        return body[:MESSAGE_CHARS], set()
    if not isinstance(body, dict):
        return "", set()
    error = body.get("error")
    if isinstance(error, str):  # LM Studio, Ollama: {"error": "<text>"}
        return error[:MESSAGE_CHARS], set()
    inner = error if isinstance(error, dict) else body
    message = inner.get("message") or inner.get("detail") or ""
    markers = {str(inner.get(key)) for key in ("code", "type", "status") if inner.get(key) is not None}
    return str(message)[:MESSAGE_CHARS], markers
