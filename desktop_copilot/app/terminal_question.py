"""A yes/no question on the terminal for the commands that remove things (history delete, undo, permissions reset)."""

from __future__ import annotations

import sys


def confirmed(question: str) -> bool:
    """Ask `question` on stderr and read the answer from stdin: True only for y or yes (end of input, Ctrl+C: no)."""
    sys.stderr.write(question)
    sys.stderr.flush()
    try:
        answer = sys.stdin.readline()
    except KeyboardInterrupt:
        answer = ""
    if not answer.endswith("\n"):
        sys.stderr.write("\n")
    return answer.strip().lower() in ("y", "yes")
