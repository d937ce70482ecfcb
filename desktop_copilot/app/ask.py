"""`desktop-copilot ask`: stream one reply in the terminal with the same core the window uses."""

from __future__ import annotations

import argparse
import asyncio
import codecs
import io
import json
import os
import signal
import sys
from typing import BinaryIO, TextIO

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.config.app_config import MAX_TOKENS_ENV, AppConfig, model_output_cap, parse_max_tokens
from desktop_copilot.app.ask_generation import add_generation_arguments, apply_generation_options
from desktop_copilot.core.context.compaction import compaction_notice
from desktop_copilot.core.conversation.models import Conversation, Message, ToolCallStatus
from desktop_copilot.core.conversation.statuses import Role
from desktop_copilot.core.keys.secrets import EnvironmentKeys
from desktop_copilot.core.provider_table import PROVIDERS, UnknownProviderError, provider_spec

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_PROVIDER = 3
EXIT_STOPPED = 4
MCP_START_TIMEOUT = 30.0
"""Seconds `ask` waits for configured MCP servers to start before the first request (a slow one is left out)."""

_OUTCOME_EXIT = {
    "completed": EXIT_OK,
    "refused": EXIT_PROVIDER,
    "failed": EXIT_PROVIDER,
    "interrupted": EXIT_PROVIDER,
    "round_limit": EXIT_STOPPED,
    "loop": EXIT_STOPPED,
    "stopped": EXIT_STOPPED,
}


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("ask", help="ask a model from the terminal and stream the answer")
    parser.add_argument("prompt", nargs="+", help="what to ask")
    parser.add_argument("--provider", type=_provider, metavar="ID",
                        help=f"provider: {', '.join(PROVIDERS)} (default: DESKTOP_COPILOT_PROVIDER, anthropic; "
                             "with -c, the conversation's)")
    parser.add_argument("--model", help="model id (default: the conversation's, DESKTOP_COPILOT_MODEL for the default "
                                        "provider, else the provider's default)")
    parser.add_argument("--system", help="system prompt")
    parser.add_argument("--attach", action="append", metavar="FILE", default=[],
                        help="attach an image, a PDF or a text file to the prompt (repeat for more)")
    parser.add_argument("--thinking-budget", type=int, metavar="N", help="enable extended thinking with N tokens")
    parser.add_argument("--max-tool-rounds", type=int, metavar="N", help="stop after N tool rounds (default 10)")
    parser.add_argument("--max-tokens", type=_max_tokens, metavar="N",
                        help=f"output limit of the reply in tokens (default: settings, {MAX_TOKENS_ENV}, 32000)")
    add_generation_arguments(parser)
    parser.add_argument("-c", "--continue", dest="continue_", action="store_true",
                        help="continue the most recent conversation")
    parser.add_argument("--no-save", action="store_true", help="do not store this conversation")
    parser.add_argument("--json", action="store_true", help="print one unified event per line as JSON")
    parser.add_argument("--show-thinking", action="store_true", help="print thinking to stderr")
    offered = parser.add_mutually_exclusive_group()
    offered.add_argument("--tools", type=_tool_names, metavar="NAME,…",
                         help="offer only these tools (names as `desktop-copilot tools list` and the MCP servers give them)")
    offered.add_argument("--no-tools", action="store_true", help="offer no tools")
    parser.add_argument("-y", "--yes", action="store_true",
                        help="run tools that change things without asking (otherwise: asked on a terminal, denied without one)")
    parser.set_defaults(run=run)


def _tool_names(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError("name at least one tool, or use --no-tools")
    return names


def _provider(text: str) -> str:
    try:
        return provider_spec(text).id
    except UnknownProviderError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _max_tokens(text: str) -> int:
    try:
        return parse_max_tokens(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def cut_off_warning(config: AppConfig, reply: Message, *, saved: bool) -> str:
    """What to tell the user about a reply that stopped at the output limit, and how to go on."""
    model = reply.model or config.model
    limit = config.limit_reached(model, reply.usage.output_tokens)
    cap = model_output_cap(model)
    at_cap = cap is not None and limit >= cap
    text = f"warning: the reply was cut off at the output limit ({limit} tokens"
    text += f", the most {model} can write)." if at_cap else ")."
    higher = "" if at_cap else f"--max-tokens {min(2 * limit, cap) if cap else 2 * limit}"
    if saved:
        return text + f' Run `desktop-copilot ask -c {higher + " " if higher else ""}"continue"` to continue it.'
    return text + (f" Ask again with a higher limit ({higher})." if higher else " Ask for a shorter answer.")


def report_end(finished: ev.RunFinished, session, err: TextIO) -> int:
    """Tell stderr how the run ended when it needs saying (cut off, refused); the exit code."""
    if finished.outcome == "refused":
        err.write(f"error: {finished.detail or 'Claude declined to answer this request.'}\n")
    elif finished.outcome == "completed" and finished.detail == "max_tokens":
        reply = session.conversation.messages[-1]
        err.write(cut_off_warning(session.runtime.config, reply, saved=session.store is not None) + "\n")
        err.flush()
        return EXIT_STOPPED
    err.flush()
    return _OUTCOME_EXIT.get(finished.outcome, EXIT_PROVIDER)


FLUSH_DELAY = 0.02
"""Seconds a streamed delta may wait before it is written to the terminal (about a frame: the text still flows,
with one write per interval instead of one per delta); any other event is written at once."""


class TerminalPrinter:
    """Text to stdout as it streams; thinking and tool activity to stderr. Deltas are written at most
    FLUSH_DELAY after they arrive, together, rather than one write and flush each; any other event is written
    at once, and what one stream holds is written before the other is written to."""

    def __init__(self, out: TextIO, err: TextIO, *, as_json: bool, show_thinking: bool) -> None:
        self.out, self.err = out, err
        self.as_json = as_json
        self.show_thinking = show_thinking
        self._wrote_text = False
        self._unflushed: TextIO | None = None
        self._held: list[str] = []
        self._flush_soon = False
        self._binary = {id(stream): _utf8_binary(stream) for stream in (out, err)}

    def __call__(self, event: ev.Event) -> None:
        kind = type(event)
        if kind is ev.TextDelta and self._flush_soon and self._unflushed is self.out and not self.as_json:  # most deltas
            self._held.append(event.text)
            return
        if self.as_json:
            self._write(self.out, json.dumps(event.to_json(), ensure_ascii=False) + "\n")
            if kind not in ev.DELTA_EVENTS:
                self.flush()
            return
        if kind is ev.TextDelta:
            self._write(self.out, event.text)
            self._wrote_text = True
            return
        if kind is ev.ThinkingDelta:
            if self.show_thinking:
                self._write(self.err, event.text)
            return
        match event:
            case ev.TextEnd() if self._wrote_text:
                self._write(self.out, "\n")
                self._wrote_text = False
            case ev.ThinkingStart(redacted_data=data) if self.show_thinking:
                self._write(self.err, "[thinking (redacted)]\n" if data is not None else "[thinking] ")
            case ev.ThinkingEnd() if self.show_thinking:
                self._write(self.err, "\n")
            case ev.ToolStatus(status=ToolCallStatus.AWAITING_APPROVAL):
                pass
            case ev.ToolStatus(name=name, status=status, result=result, is_error=is_error):
                line = f"[tool] {name}: {status.value}"
                if result and is_error:
                    line += f": {result.splitlines()[0] if result.strip() else ''}"
                self._write(self.err, line + "\n")
            case ev.Done(reason=reason, detail=detail) if detail and reason != "refusal":  # a refusal ends in an error line
                if self._wrote_text:
                    self._write(self.out, "\n")
                    self._wrote_text = False
                self._write(self.err, f"note: {detail}\n")
            case ev.ContextCompacted(compaction=compaction):
                self._write(self.err, f"note: {compaction_notice(compaction)}\n")
            case ev.LoopDetected(name=name, repeats=repeats):
                self._write(self.err, f"[loop] {name} was called {repeats} times in a row with the same arguments.\n")
            case ev.Error(message=message):
                if self._wrote_text:
                    self._write(self.out, "\n")
                    self._wrote_text = False
                self._write(self.err, f"error: {message}\n")
            case ev.RunFinished(outcome=outcome, detail=detail) if outcome in ("round_limit", "stopped"):
                self._write(self.err, f"{detail}\n")
        self.flush()

    def flush(self) -> None:
        """Write out what is held (FLUSH_DELAY after the first held delta, at once for other events)."""
        self._flush_soon = False
        stream = self._unflushed
        if stream is not None:
            binary = self._binary.get(id(stream))
            if binary is None:
                stream.write("".join(self._held))
                stream.flush()
            else:  # the pieces encoded one by one: most are narrower than the whole (its widest character sets its width)
                buffer, errors = binary
                stream.flush()  # what was printed to the stream otherwise comes first
                buffer.write(b"".join([piece.encode("utf-8", errors) for piece in self._held]))
                buffer.flush()
            self._unflushed = None
            self._held.clear()

    def _write(self, stream: TextIO, text: str) -> None:
        """Hold `text` for `stream` until the flush: one write and one flush per FLUSH_DELAY, however the stream
        is buffered (PYTHONUNBUFFERED makes every write a system call)."""
        if self._unflushed is not stream:
            self.flush()  # keep stdout and stderr in order on one terminal
            self._unflushed = stream
        self._held.append(text)
        if not self._flush_soon:
            try:
                asyncio.get_running_loop().call_later(FLUSH_DELAY, self.flush)
            except RuntimeError:  # no event loop: write through
                self.flush()
                return
            self._flush_soon = True


def _utf8_binary(stream: TextIO) -> tuple[BinaryIO, str] | None:
    """(the bytes buffer under `stream`, its encoding errors) when text written to it reaches that buffer as UTF-8
    without newline translation: the process's own stdout and stderr in UTF-8 (Python makes them with newline="\n").
    The printer then writes the encoded text there itself, the same bytes (UTF-8 has no state to carry between
    pieces)."""
    if stream is not sys.__stdout__ and stream is not sys.__stderr__:
        return None
    try:
        if codecs.lookup(stream.encoding).name != "utf-8" or not isinstance(stream, io.TextIOWrapper):
            return None
        return stream.buffer, stream.errors or "strict"
    except (AttributeError, LookupError, ValueError):
        return None


def run(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_ask(args))
    except KeyboardInterrupt:  # Ctrl+C before the run started
        return EXIT_STOPPED


async def _ask(args: argparse.Namespace) -> int:
    from desktop_copilot.app.ask_approval import choose_approver, choose_loop_question
    from desktop_copilot.core.content.attachments import AttachmentError, read_attachment
    from desktop_copilot.core.bootstrap import build_runtime, open_store, start_mcp, unsaved_warning
    from desktop_copilot.core.chat import ChatSession
    from desktop_copilot.core.runtime import MissingKeyError

    if args.max_tool_rounds is not None and args.max_tool_rounds < 0:
        print("error: --max-tool-rounds must be 0 or more", file=sys.stderr)
        return EXIT_USAGE
    if args.thinking_budget is not None and args.thinking_budget < 1024:
        print("error: --thinking-budget must be at least 1024 tokens", file=sys.stderr)
        return EXIT_USAGE
    if args.max_tokens is None and (problem := _environment_max_tokens_problem()):
        print(f"error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    try:
        attachments = [read_attachment(path) for path in getattr(args, "attach", None) or []]
    except AttachmentError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    runtime = build_runtime(
        check_keyring=False,  # opened below only when the environment lacks the provider's key
        provider=args.provider, model=args.model, thinking_budget=args.thinking_budget,
        max_tool_rounds=args.max_tool_rounds, system=args.system, max_tokens=args.max_tokens,
    )
    # The reply's search row is written by the next store that indexes (the window, `history search`), not at exit.
    store = None if args.no_save and not args.continue_ else open_store(runtime.paths, runtime.warnings, defer_indexing=True)
    if store is not None and (problem := unsaved_warning(store)):  # the reply is given all the same
        runtime.warnings.append(problem)
    for problem in runtime.warnings:
        print(f"warning: {problem}", file=sys.stderr)
    try:
        conversation = Conversation(provider=args.provider, model=args.model, system=args.system)
        if args.continue_:
            store.mark_unfinished_interrupted()
            latest = store.latest_conversation_id()
            loaded = store.load_conversation(latest) if latest else None
            if loaded is None:
                print("error: there is no saved conversation to continue; ask without -c first.", file=sys.stderr)
                return EXIT_USAGE
            conversation = loaded
            if args.provider and args.provider != (conversation.provider or "anthropic"):
                conversation.provider = args.provider  # the history is converted for it request by request
                conversation.model = args.model  # None: the new provider's default
            elif args.model:
                conversation.model = args.model
            if args.system:
                conversation.system = args.system
            if args.no_save:
                store.close()
                store = None
        apply_generation_options(conversation, args)
        session = ChatSession(runtime, conversation, store, approver=choose_approver(yes=args.yes))
        _choose_key_sources(runtime, session.provider_id())
        if runtime.paths.mcp_file.exists():  # no file, no servers: the MCP modules are not loaded
            start_mcp(runtime)
        if runtime.mcp is not None:
            await runtime.mcp.wait_ready(MCP_START_TIMEOUT)
            for problem in mcp_problems(runtime):
                print(f"warning: {problem}", file=sys.stderr)
        if args.no_tools or args.tools:
            if (problem := _choose_tools(runtime, conversation, [] if args.no_tools else args.tools)) is not None:
                print(f"error: {problem}", file=sys.stderr)
                return EXIT_USAGE
        _clamp_output_limit(runtime, session.model_for(session.provider_id()), asked=args.max_tokens)
        printer = TerminalPrinter(sys.stdout, sys.stderr, as_json=args.json, show_thinking=args.show_thinking)
        task = asyncio.create_task(session.send(" ".join(args.prompt), printer, choose_loop_question(),
                                                attachments=attachments))
        loop = asyncio.get_running_loop()
        try:
            loop.add_signal_handler(signal.SIGINT, task.cancel)
        except (NotImplementedError, RuntimeError):  # Windows: Ctrl+C arrives as KeyboardInterrupt
            pass
        try:
            finished = await task
        except (MissingKeyError, AttachmentError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_USAGE
        except asyncio.CancelledError:
            return EXIT_STOPPED
        finally:
            printer.flush()
        note_file_changes(session, sys.stderr)
        if not args.json:
            note_knowledge_sources(session, sys.stderr)
        return report_end(finished, session, sys.stderr)
    finally:
        await runtime.aclose()
        runtime.stop_mcp()
        if store is not None:
            store.close()


def _choose_key_sources(runtime, provider_id: str) -> None:
    """Keys the environment holds for every name a lookup asks (the provider's and the offered tools') are read there
    without the keyring's libraries and backend discovery (50-100 ms); a lookup it cannot fully answer opens the keyring
    first, as in the window. stderr says when no keyring is usable and the provider's key is not in the environment."""
    from desktop_copilot.core.bootstrap import keyring_warning

    runtime.environment_first = True
    spec = runtime.spec(provider_id)
    served = not (spec.needs_key and spec.key_name) or EnvironmentKeys().get(spec.key_name) is not None
    if not served and runtime.key_store is not None and (problem := keyring_warning(runtime.key_store)):
        print(f"warning: {problem}", file=sys.stderr)


def _choose_tools(runtime, conversation: Conversation, names: list[str]) -> str | None:
    """Offer only `names` in this conversation (kept with it, as the window's Tools button does); the problem in words
    when a name is no tool that can be offered."""
    off = runtime.switched_off()
    known = {tool.name for tool in runtime.registry.all() if tool.name not in off}
    unknown = [name for name in names if name not in known]
    if unknown:
        return (f"no tool named {', '.join(unknown)} can be offered; the tools switched on are {', '.join(sorted(known)) or 'none'}"
                " (`desktop-copilot tools list`, `desktop-copilot tools enable NAME`)")
    conversation.tools = sorted(names)
    return None


def note_knowledge_sources(session, err: TextIO) -> None:
    """After a reply that searched the knowledge sources: the passages it cites (all it found when it cites none), each
    with its file and location, as the window shows them under the reply."""
    reply = last_reply(session)
    if not any(message.tool_calls for message in reply):  # passages come only from a search the reply called
        return
    from desktop_copilot.core.knowledge.citing import reply_sources

    sources = reply_sources(reply)
    if sources is None:
        return
    err.write("sources:\n" if sources.cited else "passages found:\n")
    for passage in sources.passages:
        err.write(f"  [{passage.number}] {passage.path} — {passage.location} · {passage.source}  ({passage.file})\n")
    err.flush()


def note_file_changes(session, err: TextIO) -> None:
    """After a reply that changed workspace files (and kept them for undo): how to undo it."""
    reply = last_reply(session)
    if session.store is None or not any(message.tool_calls for message in reply):  # only a tool call changes files
        return
    import sqlite3

    from desktop_copilot.core.file_undo import reply_files

    try:
        count = len(reply_files(session.store.connection, session.conversation.id, [m.id for m in reply]))
    except sqlite3.Error:  # a note only: the reply itself is in
        return
    if count:
        err.write(f"note: this reply changed {count} file{'s' * (count != 1)}; undo with `desktop-copilot undo --last`\n")
        err.flush()


def last_reply(session) -> list[Message]:
    """The messages after the conversation's last user message: the reply this run gave."""
    messages = session.conversation.messages
    last_user = max((i for i, m in enumerate(messages) if m.role is Role.USER), default=-1)
    return messages[last_user + 1:]


def mcp_problems(runtime) -> list[str]:
    """What to tell the user about configured MCP servers whose tools this run goes without."""
    problems = [runtime.mcp_config.problem] if runtime.mcp_config is not None and runtime.mcp_config.problem else []
    from desktop_copilot.core.mcp.manager import ServerState

    for status in runtime.mcp.statuses():
        if status.state is ServerState.FAILED:
            problems.append(f"the MCP server {status.name!r} is not available, so its tools are not offered: {status.last_error}")
        elif status.state is ServerState.STARTING:
            problems.append(f"the MCP server {status.name!r} did not start within {MCP_START_TIMEOUT:g} s; its tools are not offered")
    return problems


def _environment_max_tokens_problem() -> str | None:
    """Words for an unusable DESKTOP_COPILOT_MAX_TOKENS (the window ignores it; `ask` says so and stops)."""
    raw = os.environ.get(MAX_TOKENS_ENV, "").strip()
    if raw:
        try:
            parse_max_tokens(raw)
        except ValueError as exc:
            return f"{MAX_TOKENS_ENV}: {exc}"
    return None


def _clamp_output_limit(runtime, model: str, *, asked: int | None) -> None:
    """Ask `model` for no more output than it accepts (an older model answers a larger max_tokens with a 400)."""
    limit = runtime.config.output_limit(model)
    if limit < runtime.config.max_tokens:
        if asked is not None:
            print(f"note: {model} writes at most {limit} tokens per reply; --max-tokens {asked} is lowered to that.",
                  file=sys.stderr)
        runtime.config = runtime.config.with_(max_tokens=limit)
