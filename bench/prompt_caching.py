"""The input cost of a 10-round tool conversation on Claude, with and without the prompt-caching breakpoints.

One user question, then ten tool rounds: each reply calls a tool whose result is a few thousand tokens, and each
request resends the growing history (11 requests; the last one gets the answer). Each request is built by the real
request builder (`anthropic_wire.build_params`, which places the `cache_control` breakpoints, from the history the
agent loop sends: `sent_messages`) and billed as Anthropic bills it:

- without caching (no breakpoints, as before): every prompt token at the input price;
- with caching: the longest prefix a previous request wrote, found at a breakpoint or within the 20 blocks before one,
  is a cache read (0.1x); from there to the last breakpoint is a cache write (1.25x, the 5-minute cache), written only
  where the prefix reaches the model's minimum (1,024 tokens); what follows the last breakpoint is fresh input.

Tokens are the app's estimates (core/context/tokens.py); both sides count the same blocks, so the ratio does not
depend on them. Prices come from core/usage/pricing.py (`cost_of` on a reply carrying that usage), for
claude-sonnet-4-6 by default. Run: `python bench/prompt_caching.py [--model claude-opus-4-6] [--rounds 10]
[--result-tokens 3000] [--json PATH]`; the rows follow bench/suite.py's format.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from desktop_copilot.core.context.tokens import estimate_tokens
from desktop_copilot.core.context.trimming import sent_messages
from desktop_copilot.core.conversation.models import Message, MessageStatus, Role, TextBlock, ToolCallBlock, ToolCallStatus, Usage
from desktop_copilot.core.providers.anthropic_cache import MIN_CACHEABLE_TOKENS, breakpoints
from desktop_copilot.core.providers.anthropic_wire import build_params
from desktop_copilot.core.providers.base import ProviderRequest, ToolSpec
from desktop_copilot.core.usage.pricing import cost_of

LOOKBACK_BLOCKS = 20
TARGET = 1.0
"""The issue's target: the input cost falls (the ratio is below 1)."""

SYSTEM = ("You are a careful engineering assistant working in the user's repository. Read before you change anything, "
          "explain what you found in plain words, quote file paths and line numbers, and prefer small, reviewable steps. "
          "When a tool fails, say so and try another way; never invent file contents or command output. ") * 8
TOOLS = [
    ToolSpec("read_file", "Read a text file of the repository, whole or a range of lines. Returns the lines with their "
             "numbers. Use it before editing a file, and to follow a function to its definition.",
             {"type": "object", "properties": {"path": {"type": "string", "description": "Path from the repository root."},
                                               "start": {"type": "integer"}, "end": {"type": "integer"}}, "required": ["path"]}),
    ToolSpec("grep", "Search the repository for a regular expression; returns matching lines with paths and line numbers.",
             {"type": "object", "properties": {"pattern": {"type": "string"}, "glob": {"type": "string"}}, "required": ["pattern"]}),
    ToolSpec("list_dir", "List a directory of the repository (names, sizes, whether each is a folder).",
             {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
    ToolSpec("run_tests", "Run the test suite or a part of it and return the summary and the failures' tracebacks.",
             {"type": "object", "properties": {"selector": {"type": "string"}, "timeout": {"type": "integer"}}}),
    ToolSpec("web_search", "Search the web; returns titles, links and a short extract of each result.",
             {"type": "object", "properties": {"query": {"type": "string"}, "max_results": {"type": "integer"}}, "required": ["query"]}),
    ToolSpec("edit_file", "Replace one exact passage of a file with new text. The passage must occur exactly once.",
             {"type": "object", "properties": {"path": {"type": "string"}, "old": {"type": "string"}, "new": {"type": "string"}},
              "required": ["path", "old", "new"]}),
]


def file_listing(round_: int, tokens: int) -> str:
    """A tool result of about `tokens` tokens: numbered lines of a Python module."""
    lines, n = [], 0
    while estimate_tokens("\n".join(lines), "anthropic") < tokens:
        n += 1
        lines.append(f"{n:4d}  def handler_{round_}_{n}(request, *, timeout: float = 30.0) -> dict[str, object]:  "
                     f"# returns the parsed body of response {n} for round {round_}")
    return "\n".join(lines)


def conversation(rounds: int, result_tokens: int) -> list[list[Message]]:
    """The history before each request: the question, then one more tool round each time."""
    history = [Message.user("The request handlers time out under load. Find why, and propose a fix with the tests to run.")]
    states = [list(history)]
    for round_ in range(1, rounds + 1):
        call = ToolCallBlock(id=f"toolu_{round_:02d}", name="read_file", arguments={"path": f"app/handlers_{round_}.py"},
                             status=ToolCallStatus.DONE, result=file_listing(round_, result_tokens))
        reply = Message(role=Role.ASSISTANT, blocks=[TextBlock(text=f"Round {round_}: reading the next module."), call],
                        status=MessageStatus.COMPLETED, stop_reason="tool_use", provider="anthropic")
        history.append(reply)
        states.append(list(history))
    return states


@dataclass
class Bill:
    prompt: int = 0
    read: int = 0
    write: int = 0
    fresh: int = 0
    marks: int = 0


def blocks_of(params: dict[str, Any]) -> list[tuple[str, int, bool]]:
    """The request in the order the API reads it (tools, system, messages): each block's identity (its JSON without
    `cache_control`, with its role), its estimated tokens, and whether it carries a breakpoint."""
    system = params.get("system")
    entries: list[tuple[str, dict[str, Any]]] = [("tool", tool) for tool in params.get("tools", [])]
    entries += [("system", block) for block in (system if isinstance(system, list) else [{"type": "text", "text": system}] if system else [])]
    entries += [(turn["role"], block) for turn in params["messages"] for block in turn["content"]]
    out = []
    for role, block in entries:
        bare = {k: v for k, v in block.items() if k != "cache_control"}
        text = json.dumps(bare, ensure_ascii=False, sort_keys=True)
        words = bare.get("text") or bare.get("content") or bare.get("description", "") + json.dumps(bare.get("input_schema", bare.get("input", {})))
        out.append((f"{role}:{text}", estimate_tokens(str(words), "anthropic") + 4, "cache_control" in block))
    return out


def bill(params: dict[str, Any], cache: dict[str, int]) -> Bill:
    """How Anthropic bills the prompt of one request, given the prefixes earlier requests wrote to `cache` (updated)."""
    blocks = blocks_of(params)
    digest, prefixes, cumulative, total = hashlib.sha256(), [], [], 0
    for key, tokens, _ in blocks:
        digest.update(key.encode())
        prefixes.append(digest.copy().hexdigest())
        total += tokens
        cumulative.append(total)
    marks = [i for i, (_, _, marked) in enumerate(blocks) if marked]
    read = 0
    for mark in marks:
        for i in range(mark, max(-1, mark - LOOKBACK_BLOCKS - 1), -1):
            if prefixes[i] in cache:
                read = max(read, cumulative[i])
                break
    written = [m for m in marks if cumulative[m] >= MIN_CACHEABLE_TOKENS]
    write = max(0, cumulative[written[-1]] - read) if written else 0
    for mark in written:
        cache[prefixes[mark]] = cumulative[mark]
    return Bill(prompt=total, read=read, write=write, fresh=total - read - write, marks=len(marks))


def strip_breakpoints(params: dict[str, Any]) -> dict[str, Any]:
    """The same request without `cache_control` (the app before prompt caching)."""
    plain = json.loads(json.dumps(params))
    for block in [*plain.get("tools", []), *(plain["system"] if isinstance(plain.get("system"), list) else []),
                  *(b for turn in plain["messages"] for b in turn["content"])]:
        block.pop("cache_control", None)
    return plain


def input_cost(model: str, counts: Bill) -> float:
    """The request's input cost by the app's own pricing (a reply carrying that usage, as Anthropic reports it)."""
    reply = Message(role=Role.ASSISTANT, provider="anthropic", model=model,
                    usage=Usage(input_tokens=counts.fresh, cache_read_tokens=counts.read, cache_write_tokens=counts.write))
    cost = cost_of(reply)
    if cost is None:
        raise SystemExit(f"no price for {model} in core/usage/pricing.py")
    return cost.total


def run(model: str, rounds: int, result_tokens: int) -> tuple[list[tuple[Bill, Bill, float, float]], int]:
    cached_store: dict[str, int] = {}
    plain_store: dict[str, int] = {}
    rows, most = [], 0
    for history in conversation(rounds, result_tokens):
        request = ProviderRequest(model=model, messages=sent_messages(history), system=SYSTEM,
                                  tools=TOOLS, max_tokens=8_000)
        params = build_params(request)
        most = max(most, breakpoints(params))
        with_cache = bill(params, cached_store)
        without = bill(strip_breakpoints(params), plain_store)
        rows.append((with_cache, without, input_cost(model, with_cache), input_cost(model, without)))
    return rows, most


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="claude-sonnet-4-6")
    parser.add_argument("--rounds", type=int, default=10, help="tool rounds (requests: one more)")
    parser.add_argument("--result-tokens", type=int, default=3_000, help="the size of each tool result")
    parser.add_argument("--quick", action="store_true", help="the same (it takes well under a second)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="write the rows there (bench/suite.py's format)")
    args = parser.parse_args()
    rows, most = run(args.model, args.rounds, args.result_tokens)

    print(f"{args.model}: {args.rounds} tool rounds ({len(rows)} requests), tool results of ~{args.result_tokens:,} tokens\n")
    print("request  prompt   read    write   fresh  marks   cached $   uncached $")
    for n, (cached, plain, cost, plain_cost) in enumerate(rows, 1):
        print(f"{n:7d} {cached.prompt:7,} {cached.read:7,} {cached.write:7,} {cached.fresh:6,} {cached.marks:6d} {cost:10.4f} {plain_cost:12.4f}")
    cached_total, plain_total = sum(r[2] for r in rows), sum(r[3] for r in rows)
    ratio = cached_total / plain_total
    tokens = sum(r[0].prompt for r in rows)
    read, write = sum(r[0].read for r in rows), sum(r[0].write for r in rows)
    print(f"\ninput tokens sent: {tokens:,} ({read:,} read from cache, {write:,} written)")
    print(f"input cost without caching: ${plain_total:.4f}")
    print(f"input cost with caching:    ${cached_total:.4f}")
    print(f"ratio: {ratio:.3f}x ({1 - ratio:.0%} less); at most {most} breakpoints in a request")

    if args.json:
        label = f"input cost, {args.rounds}-round tool conversation ({args.model})"
        report = {"target": "report only", "met": True, "reference": None, "reference_value": None, "ratio": None}
        args.json.write_text(json.dumps([
            {"measure": f"{label}, no caching", "value": round(plain_total, 6), "unit": "USD", **report},
            {"measure": f"{label}, cache breakpoints", "value": round(cached_total, 6), "unit": "USD", "reference": "no caching",
             "reference_value": round(plain_total, 6), "ratio": round(ratio, 4), "target": f"< {TARGET}x", "met": ratio < TARGET},
            {"measure": "prompt tokens read from cache", "value": read, "unit": "tokens", **report},
            {"measure": "breakpoints in a request, at most", "value": most, "unit": "", "reference": None, "reference_value": None,
             "ratio": None, "target": "<= 4", "met": most <= 4},
        ], indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
