"""Source code cut by definitions: a line-based reading of functions, classes and methods in most languages."""

from __future__ import annotations

import re

from desktop_copilot.core.knowledge.extract_text import split_lines
from desktop_copilot.core.knowledge.extract_units import CONTINUE, SOFT, Block, Passage, line_units, pack

_NOT_NAMES = r"(?!(?:if|else|elif|for|foreach|while|switch|case|catch|with|return|do|new|throw|delete|goto|sizeof|typedef|using|import|from|" \
             r"package|include|assert|await|yield|raise|not|and|or|in|is|lambda|print|echo|puts|local|let|var|const|try|except|finally)\b)"
_MODIFIERS = r"(?:(?:export|default|public|private|protected|internal|static|final|abstract|async|unsafe|extern|override|virtual|open|" \
             r"inline|suspend|sealed|data|partial|readonly|local|case|pub(?:\([\w:]+\))?|const(?=\s+fn))\s+)*"
_KEYWORD = r"(?P<kw>def|class|function\*?|func|fun|fn|struct|impl|interface|trait|enum|union|type|module|object|namespace|protocol|" \
           r"extension|record|defmodule|defp|defmacro|sub|proc|macro_rules!)"
_ALTERNATIVES = [
    _MODIFIERS + _KEYWORD + r"(?:<[^>]*>)?\s+(?:\([^)]*\)\s*)?(?P<n1>[A-Za-z_$][\w$.:]*)",  # def f, func (r T) F, impl<T> X
    (r"(?:export\s+)?(?:const|let|var)\s+(?P<n2>[A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(?:async\s+)?"  # const f = (a) => / function
     r"(?:function\b|\([^)]*\)\s*(?::[^=]+)?=>|[A-Za-z_$][\w$]*\s*=>)"),
    r"(?P<n3>[A-Za-z_][\w.]*)\s*(?:<-|=)\s*function\b",  # R: f <- function(x)
    (r"(?i:create\s+(?:or\s+replace\s+)?(?:temp(?:orary)?\s+)?(?:table|view|function|procedure|unique\s+index|index|trigger|type|schema)"
     r"\s+(?:if\s+not\s+exists\s+)?)(?P<n4>[\w.\"`\[\]]+)"),  # SQL
    r"\[{1,2}(?P<n5>[^\[\]\n]+)\]{1,2}\s*$",  # TOML / INI sections
    (_NOT_NAMES + r"(?:(?:static|async|get|set|public|private|protected|readonly|override)\s+)*(?P<n6>[A-Za-z_$#][\w$-]*)"
     r"\s*\([^)]*\)\s*(?::\s*[^{]+)?\{\s*$"),  # JS/TS methods and shell functions: name(args) {
]
_C_SIGNATURE = _NOT_NAMES + r"(?:[\w:<>\[\],*&~]+\s+)+[*&]*(?P<n7>[A-Za-z_~][\w:~]*)\s*\((?![^)]*\)\s*;)"
_INDENT = r"^(?P<ind>[ \t]{0,4}+)(?:"
_DEF = re.compile(_INDENT + "|".join(_ALTERNATIVES) + ")")
_DEF_C = re.compile(_INDENT + "|".join([*_ALTERNATIVES, _C_SIGNATURE]) + ")")
_CONTAINERS = frozenset(("class", "struct", "impl", "interface", "trait", "enum", "object", "module", "namespace", "protocol",
                         "extension", "record", "defmodule"))
_ATTACHED = ("#", "//", "/*", "*", "@", "--", '"""', "'''", "%", ";", "<!--")
"""Lines that belong to the definition below them: comments, doc comments, decorators and annotations."""
_CLOSERS = ("}", ")", "]", "end", "fi", "done", "esac")
_DEEP = ("     ", "\t\t", "\t ", " \t")
"""Lines indented deeper than a method: never a definition worth a passage of its own."""
C_LIKE = frozenset((".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".m", ".mm", ".java", ".cs", ".ino", ".cu"))


def _name(match: re.Match) -> str:
    return match[match.lastgroup].rstrip(":.")


def code_blocks(texts: list[str], c_like: bool = False) -> list[Block]:
    """A block for each definition at the top level or in a class-like body (with the comments and decorators right
    above it), and for each stretch of top-level code after a blank line."""
    regex = _DEF_C if c_like else _DEF
    starts: list[tuple[int, str, bool]] = []
    container = ""
    prev_blank = True
    for k, line in enumerate(texts):
        if not line or line.isspace():
            prev_blank = True
            continue
        indented = line[0] in " \t"
        if indented:
            if container and not line.startswith(_DEEP) and (match := regex.match(line)) is not None and match["ind"]:
                starts.append((_attached_start(texts, k, starts), f"{container}.{_name(match)}", False))
            prev_blank = False
            continue
        if line.startswith(_ATTACHED):
            continue
        if (match := regex.match(line)) is not None:
            name = _name(match)
            container = name if match["kw"] in _CONTAINERS else ""
            starts.append((_attached_start(texts, k, starts), name, bool(container)))
        else:
            container = ""
            if prev_blank and not line.startswith(_CLOSERS):
                starts.append((_attached_start(texts, k, starts), "", False))
        prev_blank = False
    blocks = [Block(0, starts[0][0], CONTINUE)] if starts and starts[0][0] > 0 else []
    for n, (start, heading, container) in enumerate(starts):
        end = starts[n + 1][0] if n + 1 < len(starts) else len(texts)
        blocks.append(Block(start, end, SOFT, heading, lead=container))  # a class's head goes with its first member
    return blocks or [Block(0, len(texts), CONTINUE)]


def _attached_start(texts: list[str], k: int, starts: list[tuple[int, str, bool]]) -> int:
    floor = starts[-1][0] + 1 if starts else 0
    start = k
    while start > floor and (above := texts[start - 1].lstrip()) and above.startswith(_ATTACHED):
        start -= 1
    return start


def code_passages(text: str, max_chars: int, suffix: str = "") -> list[Passage]:
    units = line_units(split_lines(text), max_chars)
    return pack(units, code_blocks(units.text, suffix in C_LIKE), max_chars)
