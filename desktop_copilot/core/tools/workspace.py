"""Workspace file tools (list, read, search, write, edit) confined to the folder the user picked in Settings."""

from __future__ import annotations

import asyncio
import fnmatch
import os
import re
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from pydantic import BaseModel, Field

from desktop_copilot.core.config.atomic_file import fsync_dir
from desktop_copilot.core.tools.base import PydanticTool, Risk, ToolContext, ToolError

MAX_LIST_ENTRIES = 500
MAX_READ_BYTES = 1024 * 1024
MAX_READ_CHARS = 100_000
MAX_SEARCH_MATCHES = 200
MAX_SEARCH_FILE_BYTES = 2 * 1024 * 1024
MAX_MATCH_LINE_CHARS = 300
MAX_DIFF_CHARS = 40_000
MAX_CHANGED_FILE_BYTES = 10 * 1024 * 1024
SNIFF_BYTES = 8192
NOT_DESCENDED = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv"})
"""Folders a recursive listing or search does not go into (name them as `path` to look inside)."""


# --- confinement -----------------------------------------------------------------------------


def workspace_root(ctx: ToolContext) -> Path:
    """The workspace folder, resolved; a ToolError when none is chosen or it is gone."""
    if ctx.workspace is None:
        raise ToolError("No workspace folder is chosen. The user can pick one in Settings; until then files cannot be read or changed.")
    root = Path(ctx.workspace).expanduser().resolve()
    if not root.is_dir():
        raise ToolError(f"The workspace folder {root} does not exist any more. The user can pick another one in Settings.")
    return root


def inside(root: Path, raw: str) -> Path:
    """`raw` (relative to the workspace, absolute, or starting with ~) resolved with its symlinks; a ToolError if that is outside `root`."""
    if "\x00" in raw:
        raise ToolError("A path cannot contain a NUL character.")
    given = Path(raw.strip() or ".").expanduser()
    resolved = resolved_or_none(given if given.is_absolute() else root / given)
    if resolved is None:
        raise ToolError(f"{raw} cannot be resolved (a symbolic link loop or an unreadable folder).")
    if not resolved.is_relative_to(root):
        raise ToolError(f"{raw} is outside the workspace folder {root.name}; only files inside it can be read or changed.")
    return resolved


def resolved_or_none(path: Path) -> Path | None:
    """`path` with its symlinks and `..` resolved, or None for a symlink loop or a folder that cannot be read."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # Python 3.11 raises RuntimeError for a loop
        return None


def shown(root: Path, path: Path) -> str:
    """A path as the model sees it: relative to the workspace, with forward slashes."""
    relative = path.relative_to(root).as_posix()
    return relative if relative != "." else "."


def is_binary(sample: bytes) -> bool:
    return b"\x00" in sample[:SNIFF_BYTES]


def read_text(root: Path, path: Path, *, limit: int | None = None) -> tuple[str, bool]:
    """(text, cut) of a workspace text file; a ToolError for folders, special files, binary and non-UTF-8 files."""
    if not path.exists():
        raise ToolError(f"{shown(root, path)} does not exist in the workspace. Use list_files to see what is there.")
    if not path.is_file():
        raise ToolError(f"{shown(root, path)} is not a regular file" + (" (it is a folder; use list_files)." if path.is_dir() else "."))
    with path.open("rb") as handle:
        data = handle.read(limit + 1 if limit is not None else -1)
    cut = limit is not None and len(data) > limit
    data = data[:limit] if cut else data
    if is_binary(data):
        raise ToolError(f"{shown(root, path)} is a binary file; only text files can be read or edited.")
    try:
        return data.decode("utf-8"), cut
    except UnicodeDecodeError as exc:
        if cut and exc.start >= len(data) - 3:  # a character split by the size cap
            return data[: exc.start].decode("utf-8"), cut
        raise ToolError(f"{shown(root, path)} is not UTF-8 text; only UTF-8 text files can be read or edited.") from None


def read_whole(root: Path, path: Path) -> str:
    """The whole text of a file about to be changed; a ToolError past MAX_CHANGED_FILE_BYTES."""
    text, cut = read_text(root, path, limit=MAX_CHANGED_FILE_BYTES)
    if cut:
        raise ToolError(f"{shown(root, path)} is larger than {MAX_CHANGED_FILE_BYTES // (1024 * 1024)} MB; it is too large to change with these tools.")
    return text


def walk(root: Path, top: Path, *, recursive: bool) -> Iterator[tuple[Path, bool, bool]]:
    """(path, is_folder, links_outside) below `top` in sorted order, never going into symlinked folders."""
    try:
        entries = sorted(os.scandir(top), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        path = Path(entry.path)
        is_link = entry.is_symlink()
        target = resolved_or_none(path) if is_link else None
        if is_link and target is None:
            continue  # a symlink loop leads nowhere
        links_outside = target is not None and not target.is_relative_to(root)
        is_folder = target.is_dir() if target is not None else entry.is_dir(follow_symlinks=False)
        yield path, is_folder, links_outside
        if recursive and is_folder and not is_link and entry.name not in NOT_DESCENDED:
            yield from walk(root, path, recursive=True)


def matches_glob(root: Path, path: Path, glob: str | None) -> bool:
    if not glob:
        return True
    return fnmatch.fnmatch(shown(root, path) if "/" in glob else path.name, glob)


# --- writing ---------------------------------------------------------------------------------


def write_text(path: Path, text: str) -> None:
    """Writes `text` to a temporary file beside `path` and renames it over, keeping an existing file's mode."""
    write_bytes(path, text.encode("utf-8"))


def write_bytes(path: Path, data: bytes) -> None:
    """Writes `data` to a temporary file beside `path` and renames it over, keeping an existing file's mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    kept_mode = path.stat().st_mode & 0o7777 if path.exists() else None
    temp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # a new file gets 0666 minus the umask
    try:
        with os.fdopen(fd, "wb") as handle:
            if kept_mode is not None:
                os.fchmod(handle.fileno(), kept_mode)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def unified_diff(name: str, before: str | None, after: str) -> str:
    """A unified diff from `before` (None: a new file) to `after`, cut with a note past MAX_DIFF_CHARS."""
    import difflib  # ~1 ms: loaded when a file change is shown, not with the tools

    lines = difflib.unified_diff(
        (before or "").splitlines(keepends=True), after.splitlines(keepends=True),
        fromfile="/dev/null" if before is None else f"a/{name}", tofile=f"b/{name}",
    )
    diff = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
    if not diff:
        return f"(No change to {name}.)"
    if len(diff) > MAX_DIFF_CHARS:
        cut = diff[:MAX_DIFF_CHARS].rsplit("\n", 1)[0]
        return f"{cut}\n… (diff cut: {len(diff) - len(cut):,} more characters not shown)"
    return diff


@dataclass(slots=True)
class PlannedWrite:
    path: Path
    name: str
    before: str | None
    after: str
    summary: str


def write_kept(plan: PlannedWrite, ctx: ToolContext) -> None:
    """Writes the plan; with a snapshot recorder on the context, the file's state before is kept once it is written,
    under the conversation and the reply whose call wrote it, so the reply can be undone (core/file_undo.py)."""
    recorder = ctx.snapshots
    if recorder is None:
        write_text(plan.path, plan.after)
        return
    from desktop_copilot.core.storage.file_snapshots import FileState

    before = FileState.of(plan.path)
    data = plan.after.encode("utf-8")
    write_bytes(plan.path, data)
    recorder.record(conversation_id=ctx.conversation_id, message_id=ctx.message_id, tool_call_id=ctx.tool_call_id,
                    path=plan.path, name=plan.name, before=before, after=data)


# --- the tools -------------------------------------------------------------------------------


class WorkspaceTool(PydanticTool):
    """A tool offered only when a workspace folder is chosen; reading ones run without asking."""

    risk: ClassVar[Risk] = Risk.READ_ONLY
    needs_workspace: ClassVar[bool] = True


class FileChangeTool(WorkspaceTool):
    """A tool that writes one workspace file: the user approves a diff of `plan` first, then it is written atomically."""

    risk: ClassVar[Risk] = Risk.WRITES

    def plan(self, args: BaseModel, ctx: ToolContext) -> PlannedWrite:
        raise NotImplementedError

    async def preview(self, args: BaseModel, ctx: ToolContext) -> str:
        plan = await asyncio.to_thread(self.plan, args, ctx)
        return unified_diff(plan.name, plan.before, plan.after)

    async def run(self, args: BaseModel, ctx: ToolContext) -> str:
        plan = await asyncio.to_thread(self.plan, args, ctx)
        try:
            await asyncio.to_thread(write_kept, plan, ctx)
        except OSError as exc:
            raise ToolError(f"Could not write {plan.name}: {exc.strerror or type(exc).__name__}.") from None
        return plan.summary


class ListFilesArgs(BaseModel):
    path: str = Field(default=".", description="Folder to list, relative to the workspace.")
    glob: str | None = Field(default=None, description='Only names matching this pattern, e.g. "*.py" (a pattern with "/" matches the relative path).')
    recursive: bool = Field(default=False, description="Also list everything in sub-folders.")


class ListFiles(WorkspaceTool):
    name: ClassVar[str] = "list_files"
    description: ClassVar[str] = f"List files and folders in the user's workspace folder (folders end with /). At most {MAX_LIST_ENTRIES} entries."
    arguments: ClassVar[type[BaseModel]] = ListFilesArgs

    async def run(self, args: ListFilesArgs, ctx: ToolContext) -> str:
        root = workspace_root(ctx)
        top = inside(root, args.path)
        if not top.is_dir():
            raise ToolError(f"{args.path} is not a folder in the workspace. Use list_files on its parent folder.")
        return await asyncio.to_thread(self._list, root, top, args)

    @staticmethod
    def _list(root: Path, top: Path, args: ListFilesArgs) -> str:
        lines, more = [], 0
        for path, is_folder, links_outside in walk(root, top, recursive=args.recursive):
            if not matches_glob(root, path, args.glob):
                continue
            if len(lines) >= MAX_LIST_ENTRIES:
                more += 1
                continue
            lines.append(shown(root, path) + ("/" if is_folder else "") + (" (link to outside the workspace)" if links_outside else ""))
        if not lines:
            return f"No entries in {shown(root, top)}" + (f" matching {args.glob}." if args.glob else ".")
        if more:
            lines.append(f"… and {more:,} more not shown; narrow the listing with path or glob.")
        return "\n".join(lines)


class ReadFileArgs(BaseModel):
    path: str = Field(min_length=1, description="File to read, relative to the workspace.")
    offset: int = Field(default=1, ge=1, description="First line to return (1 is the first line).")
    limit: int | None = Field(default=None, ge=1, description="How many lines to return (all that fit when omitted).")


class ReadFile(WorkspaceTool):
    name: ClassVar[str] = "read_file"
    description: ClassVar[str] = "Read a text file from the user's workspace folder, optionally a range of lines (offset, limit)."
    arguments: ClassVar[type[BaseModel]] = ReadFileArgs

    async def run(self, args: ReadFileArgs, ctx: ToolContext) -> str:
        root = workspace_root(ctx)
        path = inside(root, args.path)
        text, cut = await asyncio.to_thread(read_text, root, path, limit=MAX_READ_BYTES)
        lines = text.splitlines(keepends=True)
        first = args.offset - 1
        if lines and first >= len(lines):
            raise ToolError(f"{shown(root, path)} has {len(lines):,} lines; offset {args.offset} is past its end.")
        chosen = lines[first : first + args.limit if args.limit else None]
        body, notes = "".join(chosen), []
        if len(body) > MAX_READ_CHARS:
            body = body[:MAX_READ_CHARS].rsplit("\n", 1)[0] + "\n"
            chosen = body.splitlines()
        last = first + len(chosen)
        if last < len(lines):
            notes.append(f"[Lines {args.offset}-{last} of {len(lines):,} shown; read on with offset={last + 1}.]")
        if cut:
            notes.append(f"[The file is larger than {MAX_READ_BYTES // 1024} KB; only its first {MAX_READ_BYTES // 1024} KB were read.]")
        return f"{shown(root, path)}:\n{body}" + ("\n" + "\n".join(notes) if notes else "")


class SearchFilesArgs(BaseModel):
    query: str = Field(min_length=1, description="Text to look for (or a Python regular expression when regex is true).")
    regex: bool = Field(default=False, description="Treat query as a regular expression.")
    glob: str | None = Field(default=None, description='Only files whose names match this pattern, e.g. "*.md".')
    path: str = Field(default=".", description="Folder to search in, relative to the workspace.")
    ignore_case: bool = Field(default=False, description="Match regardless of letter case.")


class SearchFiles(WorkspaceTool):
    name: ClassVar[str] = "search_files"
    description: ClassVar[str] = f"Search the text files of the user's workspace folder; returns path:line: text for up to {MAX_SEARCH_MATCHES} matching lines."
    arguments: ClassVar[type[BaseModel]] = SearchFilesArgs

    async def run(self, args: SearchFilesArgs, ctx: ToolContext) -> str:
        root = workspace_root(ctx)
        top = inside(root, args.path)
        try:
            pattern = re.compile(args.query if args.regex else re.escape(args.query), re.IGNORECASE if args.ignore_case else 0)
        except re.error as exc:
            raise ToolError(f"The regular expression is not valid: {exc}. Fix it, or set regex to false to search for the text as it is.") from None
        return await asyncio.to_thread(self._search, root, top, pattern, args)

    @staticmethod
    def _search(root: Path, top: Path, pattern: re.Pattern[str], args: SearchFilesArgs) -> str:
        files = [top] if top.is_file() else [p for p, is_folder, outside in walk(root, top, recursive=True) if not is_folder and not outside]
        found: list[str] = []
        for path in files:
            if not matches_glob(root, path, args.glob) or not path.is_file():
                continue
            try:
                text, _ = read_text(root, path, limit=MAX_SEARCH_FILE_BYTES)
            except (ToolError, OSError):
                continue  # binary, not UTF-8 or unreadable: not searched
            for number, line in enumerate(text.splitlines(), start=1):
                if pattern.search(line):
                    if len(found) == MAX_SEARCH_MATCHES:
                        return "\n".join(found) + f"\n[Stopped after {MAX_SEARCH_MATCHES} matches; narrow the search with path, glob or a longer query.]"
                    line = line.strip()
                    found.append(f"{shown(root, path)}:{number}: {line[:MAX_MATCH_LINE_CHARS]}{'…' if len(line) > MAX_MATCH_LINE_CHARS else ''}")
        return "\n".join(found) if found else f"No matches for {args.query!r} in {shown(root, top)}."


class WriteFileArgs(BaseModel):
    path: str = Field(min_length=1, description="File to create or replace, relative to the workspace (missing folders are created).")
    content: str = Field(description="The whole new content of the file.")


class WriteFile(FileChangeTool):
    name: ClassVar[str] = "write_file"
    description: ClassVar[str] = "Create a file in the user's workspace folder, or replace its whole content. The user sees a diff and approves it first."
    arguments: ClassVar[type[BaseModel]] = WriteFileArgs

    def plan(self, args: WriteFileArgs, ctx: ToolContext) -> PlannedWrite:
        root = workspace_root(ctx)
        path = inside(root, args.path)
        if path == root or path.is_dir():
            raise ToolError(f"{args.path} is a folder; give the path of a file inside it.")
        before = read_whole(root, path) if path.exists() else None
        name = shown(root, path)
        summary = f"{'Created' if before is None else 'Replaced the content of'} {name} ({len(args.content.splitlines()):,} lines)."
        return PlannedWrite(path, name, before, args.content, summary)


class EditFileArgs(BaseModel):
    path: str = Field(min_length=1, description="File to change, relative to the workspace.")
    old_text: str = Field(min_length=1, description="The exact text to replace, including whitespace; it must occur exactly once unless replace_all is true.")
    new_text: str = Field(description="The text that replaces old_text.")
    replace_all: bool = Field(default=False, description="Replace every occurrence of old_text.")


class EditFile(FileChangeTool):
    name: ClassVar[str] = "edit_file"
    description: ClassVar[str] = "Replace exact text in a file of the user's workspace folder. The user sees a diff and approves it first."
    arguments: ClassVar[type[BaseModel]] = EditFileArgs

    def plan(self, args: EditFileArgs, ctx: ToolContext) -> PlannedWrite:
        root = workspace_root(ctx)
        path = inside(root, args.path)
        before = read_whole(root, path)
        old, new = args.old_text, args.new_text
        if "\r\n" in before and "\r\n" not in old:  # the model writes \n; the file keeps its own line endings
            old, new = old.replace("\n", "\r\n"), new.replace("\r\n", "\n").replace("\n", "\r\n")
        count = before.count(old)
        name = shown(root, path)
        if count == 0:
            raise ToolError(f"old_text was not found in {name}. Read the file again and copy the exact text, including spaces, indentation and line breaks.")
        if count > 1 and not args.replace_all:
            raise ToolError(f"old_text occurs {count} times in {name}. Include more of the surrounding lines so it matches exactly once, "
                            "or set replace_all to true to change every occurrence.")
        after = before.replace(old, new) if args.replace_all else before.replace(old, new, 1)
        return PlannedWrite(path, name, before, after, f"Edited {name}: replaced {count} occurrence{'s' if count != 1 else ''}.")
