"""The soak's model: a loopback Anthropic Messages server (real SSE wire) that answers a user's message with one call
of the MCP demo server's `no_hints` tool, and the tool's result with a short text; a message carrying NO_TOOL gets
text only. Run as a process of its own (`python -m tests.support.soak_server`): it prints its URL and serves until its
stdin closes, so its threads and sockets are not the app's."""

from __future__ import annotations

import sys
from typing import Any

from tests.support.loopback import LoopbackServer, RecordedRequest, ScriptedResponse, anthropic_text_reply, anthropic_tool_reply, sse_response

TOOL = "mcp__demo__no_hints"
NO_TOOL = "[no tool]"


def turn_of(messages: list[dict[str, Any]]) -> int:
    """How many messages the user typed (not tool results) in `messages`."""
    return sum(1 for m in messages if m["role"] == "user" and not _tool_results(m))


def _tool_results(message: dict[str, Any]) -> list[dict]:
    content = message["content"]
    return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"] if isinstance(content, list) else []


def _text(message: dict[str, Any]) -> str:
    content = message["content"]
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")


def expected_reply(turn: int) -> str:
    return f"Turn {turn} done."


def answer(request: RecordedRequest) -> ScriptedResponse:
    body = request.json()
    messages = body["messages"]
    turn, last = turn_of(messages), messages[-1]
    msg_id = f"msg_soak_{len(messages)}"
    if _tool_results(last) or NO_TOOL in _text(last):
        return sse_response(anthropic_text_reply(expected_reply(turn), pieces=3, msg_id=msg_id))
    if TOOL not in {tool["name"] for tool in body.get("tools", [])}:
        return sse_response(anthropic_text_reply(f"The tool {TOOL} was not offered.", msg_id=msg_id))
    return sse_response(anthropic_tool_reply([(f"toolu_soak_{turn}", TOOL, {"text": f"turn {turn}"})], msg_id=msg_id))


def main() -> None:
    server = LoopbackServer().start()

    def answer_and_forget(request: RecordedRequest) -> ScriptedResponse:
        server.requests.clear()  # the server records every request; 2,000 growing histories would be a GB
        return answer(request)

    server.set_handler("/v1/messages", answer_and_forget)
    print(server.url, flush=True)
    sys.stdin.read()  # until the parent closes our stdin
    server.stop()


if __name__ == "__main__":
    main()
