"""Permission rules: allow, ask or deny a tool, optionally only for calls whose main argument matches a pattern (a path
glob for the file tools, a host glob for web_fetch, a command pattern for shell). The most specific matching rule
decides (a named tool over a glob, a rule with an argument pattern over one without, then the longer literal text); at
equal specificity deny beats ask beats allow. Grants are allow rules of one tool, bound to the tool source's identity
and maybe to one conversation."""

from __future__ import annotations

import fnmatch
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from desktop_copilot.core.words import tr

GLOB_CHARS = "*?["
FILE_TOOLS = frozenset({"read_file", "write_file", "edit_file", "list_files", "search_files"})
"""Built-in tools whose main argument is a workspace path (`path`)."""
COMMAND_TOOLS = frozenset({"shell"})
"""Built-in tools whose main argument is a command line (`command`)."""
HOST_TOOLS = frozenset({"web_fetch"})
"""Built-in tools whose main argument is a URL (`url`), matched by its host."""


class Action(StrEnum):
    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"


ACTION_RANK = {Action.ALLOW: 0, Action.ASK: 1, Action.DENY: 2}
"""At equal specificity the higher wins."""


class RuleError(ValueError):
    """A rule that cannot be made (the message says why and what to write instead)."""


@dataclass(frozen=True, slots=True)
class Rule:
    tool: str
    """A built-in tool's name (`shell`), an MCP tool as `mcp:SERVER/TOOL`, or a glob of those (`mcp:notes/*`, `*`)."""
    action: Action
    pattern: str = ""
    """A glob over the call's main argument ("" matches every call): `git status*`, `src/*.py`, `*.python.org`."""
    identity: str = ""
    """For a grant: the tool source's identity when it was given (a changed MCP server asks again); "" for any."""
    conversation_id: str = ""
    """For a grant "in this conversation": only there; "" everywhere."""
    created_at: float = field(default_factory=time.time)

    @property
    def named(self) -> bool:
        return not any(char in self.tool for char in GLOB_CHARS)

    @property
    def specificity(self) -> tuple[int, int, int, int, int]:
        """Larger is more specific: a named tool, an argument pattern, one conversation, then the literal text."""
        return (int(self.named), int(bool(self.pattern)), int(bool(self.conversation_id)), _literal(self.tool),
                _literal(self.pattern))

    def matches(self, call: CallSubject) -> bool:
        if self.identity and self.identity != call.identity:
            return False
        if self.conversation_id and self.conversation_id != call.conversation_id:
            return False
        if not fnmatch.fnmatchcase(call.tool, self.tool):
            return False
        if not self.pattern:
            return True
        return call.argument is not None and fnmatch.fnmatchcase(call.argument, self.pattern)

    def describe(self) -> str:
        """The rule as a line people read: "deny shell `rm *`", "allow mcp:notes/*"."""
        where = f" `{self.pattern}`" if self.pattern else ""
        scope = " (in one conversation)" if self.conversation_id else ""
        return f"{self.action.value} {self.tool}{where}{scope}"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"tool": self.tool, "action": self.action.value}
        for name in ("pattern", "identity", "conversation_id"):
            if value := getattr(self, name):
                data[name] = value
        data["created_at"] = self.created_at
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Rule:
        if not isinstance(data, Mapping):
            raise RuleError(tr("a rule must be an object, not {kind}").format(kind=type(data).__name__))
        return make_rule(str(data.get("action", "")), str(data.get("tool", "")), str(data.get("pattern") or ""),
                         identity=str(data.get("identity") or ""), conversation_id=str(data.get("conversation_id") or ""),
                         created_at=float(data.get("created_at") or time.time()))


@dataclass(frozen=True, slots=True)
class CallSubject:
    """What the rules see of a call: its tool's rule name, its main argument, its source's identity, its conversation."""

    tool: str
    argument: str | None = None
    identity: str = ""
    conversation_id: str = ""


def make_rule(action: str, tool: str, pattern: str = "", **extra: Any) -> Rule:
    """A checked rule; RuleError in words for an unknown action or an empty tool pattern."""
    try:
        chosen = Action(action.strip().lower())
    except ValueError:
        raise RuleError(tr("{action} is not an action: use allow, ask or deny.").format(action=repr(action))) from None
    tool = tool.strip()
    if not tool:
        raise RuleError(tr("A rule needs a tool: a name (shell, write_file), mcp:SERVER/TOOL, or a glob (mcp:notes/*, *)."))
    if "\x00" in tool or "\x00" in pattern:
        raise RuleError(tr("A rule cannot contain a NUL character."))
    return Rule(tool=tool, action=chosen, pattern=pattern.strip(), **extra)


def deciding_rule(rules: Iterable[Rule], call: CallSubject) -> Rule | None:
    """The rule that decides `call`: the most specific that matches, deny before ask before allow; None when none
    matches (the tool's risk decides)."""
    best: Rule | None = None
    for rule in rules:
        if rule.matches(call) and (best is None or _rank(rule) > _rank(best)):
            best = rule
    return best


def by_specificity(rules: Iterable[Rule]) -> list[Rule]:
    """Most specific first, the order in which they are listed and numbered (`permissions list`, Settings)."""
    return sorted(rules, key=lambda rule: (*_rank(rule), -rule.created_at), reverse=True)


def rule_name(kind: str, server: str, tool_name: str, original_name: str = "") -> str:
    """How rules name a tool: `mcp:SERVER/TOOL` (the server's own tool name) for an MCP tool, else its name."""
    return f"mcp:{server}/{original_name or tool_name}" if kind == "mcp" else tool_name


def call_argument(tool_name: str, arguments: Mapping[str, Any], workspace: Path | None) -> str | None:
    """The main argument rules match for a built-in tool: the workspace-relative path (resolved as the file tools
    resolve it), the URL's host, or the command line; None for tools without one."""
    if tool_name in COMMAND_TOOLS:
        command = arguments.get("command")
        return command.strip() if isinstance(command, str) else None
    if tool_name in HOST_TOOLS:
        url = arguments.get("url")
        return (urlsplit(url.strip()).hostname or "") if isinstance(url, str) else None
    if tool_name in FILE_TOOLS:
        raw = arguments.get("path", ".")
        return workspace_path(raw, workspace) if isinstance(raw, str) else None
    return None


def workspace_path(raw: str, workspace: Path | None) -> str:
    """`raw` relative to the workspace with forward slashes, after `~`, `..` and symlinks are resolved as the file tools
    do; a path that leads outside (or with no workspace) stays as resolved, absolute."""
    given = Path(raw.strip() or ".").expanduser()
    if workspace is None:
        return given.as_posix()
    try:
        root = Path(workspace).expanduser().resolve()
        resolved = (given if given.is_absolute() else root / given).resolve()
    except (OSError, RuntimeError):
        return given.as_posix()
    if resolved.is_relative_to(root):
        relative = resolved.relative_to(root).as_posix()
        return relative or "."
    return resolved.as_posix()


def proposed_pattern(tool_name: str, argument: str | None) -> str:
    """The pattern an approval card offers for "always allow calls like this one": the command's first two words
    (`git status*`), the file's folder (`src/*`), or the host (`docs.python.org`)."""
    if not argument:
        return ""
    if tool_name in COMMAND_TOOLS:
        import shlex  # only when a card asks

        try:
            words = shlex.split(argument)
        except ValueError:
            words = argument.split()
        head = [w for w in words[:2] if not any(char in w for char in GLOB_CHARS + "|;&<>$`")]
        return (" ".join(head) + "*") if head else ""
    if tool_name in FILE_TOOLS:
        folder = argument.rpartition("/")[0]
        return f"{folder}/*" if folder else "*"
    return argument


def _rank(rule: Rule) -> tuple[tuple[int, int, int, int, int], int]:
    return rule.specificity, ACTION_RANK[rule.action]


def _literal(text: str) -> int:
    return sum(char not in GLOB_CHARS for char in text)
