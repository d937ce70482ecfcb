"""Approval in `ask`: on a terminal, each call that needs it is shown on stderr and answered on stdin;
without a terminal, calls are denied unless --yes is given or a stored grant covers them."""

from __future__ import annotations

import json
import sys
from typing import TextIO

from desktop_copilot.core.approval.decisions import (
    ApprovalAnswer,
    ApprovalRequest,
    Approver,
    Decision,
    allow_all,
    deny_without_terminal,
)
from desktop_copilot.core.keys.blocking import DaemonWorker

ARGUMENT_CHARS = 4000
PREVIEW_CHARS = 6000
CHOICES = {
    "o": Decision.ALLOW_ONCE, "y": Decision.ALLOW_ONCE, "yes": Decision.ALLOW_ONCE, "once": Decision.ALLOW_ONCE,
    "c": Decision.ALLOW_CONVERSATION, "conversation": Decision.ALLOW_CONVERSATION,
    "a": Decision.ALLOW_ALWAYS, "always": Decision.ALLOW_ALWAYS,
    "n": Decision.DENY, "no": Decision.DENY, "d": Decision.DENY, "deny": Decision.DENY, "": Decision.DENY,
}
PROMPT = "Allow? [o]nce, in this [c]onversation, [a]lways, or [N]o: "


def choose_approver(*, yes: bool, stdin: TextIO | None = None, stderr: TextIO | None = None) -> Approver:
    stdin, stderr = stdin or sys.stdin, stderr or sys.stderr
    if yes:
        return allow_all()
    if stdin is not None and stdin.isatty():
        return TerminalApprover(stdin, stderr)
    return deny_without_terminal()


def describe(request: ApprovalRequest) -> str:
    """The call as the terminal shows it: tool, source, risk, full arguments (long ones cut), preview."""
    source = f" from {request.source.label}" if request.source.kind == "mcp" else ""
    arguments = json.dumps(request.arguments, ensure_ascii=False, indent=2)
    if len(arguments) > ARGUMENT_CHARS:
        arguments = arguments[:ARGUMENT_CHARS] + f"\n… ({len(arguments) - ARGUMENT_CHARS:,} more characters)"
    lines = [f"[approval] {request.shown_name}{source} ({request.risk.label}) wants to run with:", arguments]
    if request.preview:
        preview = request.preview
        if len(preview) > PREVIEW_CHARS:
            preview = preview[:PREVIEW_CHARS] + f"\n… ({len(request.preview) - PREVIEW_CHARS:,} more characters)"
        lines += ["Changes:", preview]
    return "\n".join(lines) + "\n"


class TerminalApprover:
    """Asks one call at a time; answers are read on a daemon thread so Ctrl+C still stops the run."""

    def __init__(self, stdin: TextIO, stderr: TextIO) -> None:
        self.stdin, self.stderr = stdin, stderr
        self._reader = DaemonWorker("ask-approval")

    async def __call__(self, requests: list[ApprovalRequest]) -> list[ApprovalAnswer]:
        answers = []
        for number, request in enumerate(requests, start=1):
            if len(requests) > 1:
                self.stderr.write(f"\n[approval {number} of {len(requests)}]\n")
            self.stderr.write(describe(request))
            answers.append(await self._answer())
        return answers

    async def _answer(self) -> ApprovalAnswer:
        while True:
            self.stderr.write(PROMPT)
            self.stderr.flush()
            line = await self._reader.call(self.stdin.readline)
            if line == "":  # end of input: nobody is there to approve
                self.stderr.write("\n")
                return ApprovalAnswer(Decision.DENY, "the terminal closed before an answer")
            decision = CHOICES.get(line.strip().lower())
            if decision is None:
                self.stderr.write("Please answer o, c, a or n.\n")
                continue
            if decision is not Decision.DENY:
                return ApprovalAnswer(decision)
            self.stderr.write("Reason for the model (optional, Enter to skip): ")
            self.stderr.flush()
            reason = await self._reader.call(self.stdin.readline)
            return ApprovalAnswer(Decision.DENY, reason.strip())


LOOP_PROMPT = "[c]ontinue once, [a]llow repeats in this conversation, or [S]top: "
LOOP_CHOICES = {"c": "once", "continue": "once", "once": "once", "a": "conversation", "allow": "conversation",
                "s": "stop", "stop": "stop", "n": "stop", "": "stop"}


def choose_loop_question(stdin: TextIO | None = None, stderr: TextIO | None = None):
    """The question asked when the same call repeats: on a terminal, read from it; without one, None (the run stops)."""
    stdin, stderr = stdin or sys.stdin, stderr or sys.stderr
    return TerminalLoopQuestion(stdin, stderr) if stdin is not None and stdin.isatty() else None


class TerminalLoopQuestion:
    """Asks on the terminal whether to go on after a repeated call (the core's LoopChoice values)."""

    def __init__(self, stdin: TextIO, stderr: TextIO) -> None:
        self.stdin, self.stderr = stdin, stderr
        self._reader = DaemonWorker("ask-loop-question")

    async def __call__(self, detected):
        from desktop_copilot.core.agent.loop import LoopChoice

        arguments = json.dumps(detected.arguments, ensure_ascii=False)
        if len(arguments) > 300:
            arguments = arguments[:300] + "…"
        self.stderr.write(f"[loop] the arguments each time: {arguments}\n")  # the printer said which tool, how often
        while True:
            self.stderr.write(LOOP_PROMPT)
            self.stderr.flush()
            line = await self._reader.call(self.stdin.readline)
            if line == "":
                self.stderr.write("\n")
                return LoopChoice.STOP
            choice = LOOP_CHOICES.get(line.strip().lower())
            if choice is not None:
                return LoopChoice(choice)
            self.stderr.write("Please answer c, a or s.\n")
