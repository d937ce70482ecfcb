"""`ask`'s terminal printer: deltas reach the terminal together within a short delay, in order with stderr."""

from __future__ import annotations

import asyncio
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_copilot.app.ask import FLUSH_DELAY, TerminalPrinter
from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.models import ToolCallStatus

ROOT = Path(__file__).resolve().parents[2]


class Terminal:
    """stdout and stderr sharing one screen: every write and flush is recorded in order."""

    def __init__(self) -> None:
        self.log: list[tuple[str, str]] = []
        self.out, self.err = Stream(self, "out"), Stream(self, "err")

    def screen(self) -> str:
        return "".join(text for kind, text in self.log if kind != "flush")

    def writes(self, name: str) -> list[str]:
        return [text for kind, text in self.log if kind == name]


class Stream(io.StringIO):
    def __init__(self, terminal: Terminal, name: str) -> None:
        super().__init__()
        self.terminal, self.name = terminal, name

    def write(self, text: str) -> int:
        self.terminal.log.append((self.name, text))
        return super().write(text)

    def flush(self) -> None:
        self.terminal.log.append(("flush", self.name))


def test_deltas_are_written_together_within_the_flush_delay():
    terminal = Terminal()
    printer = TerminalPrinter(terminal.out, terminal.err, as_json=False, show_thinking=False)

    async def stream() -> list[str]:
        seen = []
        for burst in range(3):
            for i in range(4):
                printer(ev.TextDelta(text=f"{burst}.{i} "))
                await asyncio.sleep(0)  # deltas from separate network reads
            seen.append(terminal.out.getvalue())  # still held
            await asyncio.sleep(FLUSH_DELAY * 3)  # the delay passed: written
            seen.append(terminal.out.getvalue())
        printer(ev.TextEnd())
        return seen

    seen = asyncio.run(stream())
    assert seen[0] == "" and seen[1] == "0.0 0.1 0.2 0.3 "
    assert seen[-1] == "0.0 0.1 0.2 0.3 1.0 1.1 1.2 1.3 2.0 2.1 2.2 2.3 "
    assert terminal.writes("out") == ["0.0 0.1 0.2 0.3 ", "1.0 1.1 1.2 1.3 ", "2.0 2.1 2.2 2.3 ", "\n"]


def test_stdout_and_stderr_stay_in_order_and_other_events_are_written_at_once():
    terminal = Terminal()
    printer = TerminalPrinter(terminal.out, terminal.err, as_json=False, show_thinking=True)

    async def stream() -> str:
        printer(ev.ThinkingStart())
        printer(ev.ThinkingDelta(text="hmm "))
        printer(ev.ThinkingDelta(text="ok"))
        printer(ev.ThinkingEnd())
        printer(ev.TextDelta(text="Answer"))
        printer(ev.ToolStatus(name="web_fetch", status=ToolCallStatus.RUNNING))
        screen = terminal.screen()  # the tool line is on screen at once, after the text before it
        printer(ev.TextDelta(text=" part two"))
        printer(ev.Error(message="boom"))
        return screen

    screen = asyncio.run(stream())
    assert screen == "[thinking] hmm ok\nAnswer[tool] web_fetch: running\n"
    assert terminal.screen() == "[thinking] hmm ok\nAnswer[tool] web_fetch: running\n part two\nerror: boom\n"


def test_without_an_event_loop_every_write_goes_through():
    terminal = Terminal()
    printer = TerminalPrinter(terminal.out, terminal.err, as_json=False, show_thinking=False)
    printer(ev.TextDelta(text="a"))
    assert terminal.out.getvalue() == "a"
    printer(ev.TextDelta(text="b"))
    assert terminal.out.getvalue() == "ab"


def test_json_lines_of_deltas_are_held_like_text_and_written_with_the_next_other_event():
    terminal = Terminal()
    printer = TerminalPrinter(terminal.out, terminal.err, as_json=True, show_thinking=False)

    async def stream() -> tuple[str, str]:
        printer(ev.TextDelta(text="a"))
        await asyncio.sleep(0)
        printer(ev.TextDelta(text="b"))
        held = terminal.out.getvalue()
        printer(ev.Done())
        return held, terminal.out.getvalue()

    held, written = asyncio.run(stream())
    assert held == ""
    assert [line.split('"type": ')[1].split(",")[0] for line in written.splitlines()] == ['"text_delta"', '"text_delta"', '"done"']
    assert len(terminal.writes("out")) == 1


PRINTING = r"""
import asyncio, sys
from desktop_copilot.app.ask import TerminalPrinter
from desktop_copilot.core.conversation import events as ev

printer = TerminalPrinter(sys.stdout, sys.stderr, as_json=False, show_thinking=True)
print("before ", end="")  # held by the text stream, not yet written

async def stream():
    for text in ("中文的句子，", "emoji 🌍 ", "plain ", "\udc80 "):
        printer(ev.TextDelta(text=text))
        await asyncio.sleep(0)
    printer(ev.ThinkingStart())
    printer(ev.ThinkingDelta(text="思考 🌍"))
    printer(ev.ThinkingEnd())
    printer(ev.TextDelta(text="after ✓"))
    printer(ev.TextEnd())

asyncio.run(stream())
print("end", end="")
"""


@pytest.mark.parametrize("encoding", ["utf-8:surrogateescape", "UTF8:backslashreplace", "latin-1:backslashreplace"])
def test_the_process_streams_get_the_bytes_their_text_layer_would_write(encoding):
    """stdout and stderr in UTF-8 are written as bytes by the printer itself: the same bytes, in the same order with
    what else was printed; in any other encoding the text layer writes them."""
    environ = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING=encoding)
    environ.pop("PYTHONUNBUFFERED", None)  # buffered, as in a user's shell: "before" waits in the text layer
    done = subprocess.run([sys.executable, "-c", PRINTING], capture_output=True, timeout=60, env=environ, check=False)
    assert done.returncode == 0, done.stderr
    codec, errors = encoding.split(":")
    expected = "before 中文的句子，emoji 🌍 plain \udc80 after ✓\nend"
    assert done.stdout == expected.encode(codec, errors)
    assert done.stderr == "[thinking] 思考 🌍\n".encode(codec, errors)
