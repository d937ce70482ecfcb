"""`desktop-copilot knowledge add|list|remove|reindex|search|on|off`: the knowledge sources the window's Settings ▸
Knowledge shows, from the terminal, on the same database. `add` and `reindex` index in the foreground with a progress
bar on a terminal. Works without Qt."""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop_copilot.core.runtime import Runtime
    from desktop_copilot.core.knowledge.indexer import Progress
    from desktop_copilot.core.knowledge.library import KnowledgeLibrary, SourceRow

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
BAR_CELLS = 24


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("knowledge", help="folders and files of yours that search_knowledge searches")
    parser.set_defaults(run=lambda _args: _usage(parser))
    actions = parser.add_subparsers(dest="knowledge_command", metavar="ACTION")
    add = actions.add_parser("add", help="add a folder or a file as a knowledge source and index it")
    add.add_argument("path", help="the folder or file")
    add.add_argument("--name", help="what to call it (default: the folder's or file's name)")
    add.add_argument("--max-size", type=int, default=None, metavar="MB", help="leave out files larger than this (default 20)")
    add.add_argument("--no-index", action="store_true", help="only add it (the window indexes it when it runs)")
    add.set_defaults(run=run_add)
    lister = actions.add_parser("list", help="every source: path, files, passages, files left out and why")
    lister.add_argument("--json", action="store_true", help="as JSON, with every file left out and its reason")
    lister.set_defaults(run=run_list)
    remove = actions.add_parser("remove", help="remove a source from the index (its files are not touched)")
    remove.add_argument("name")
    remove.set_defaults(run=run_remove)
    reindex = actions.add_parser("reindex", help="bring a source's index up to date (every source without NAME)")
    reindex.add_argument("name", nargs="?")
    reindex.add_argument("--full", action="store_true", help="read every file again, changed or not")
    reindex.set_defaults(run=run_reindex)
    search = actions.add_parser("search", help="the passages that best match a question, with file, location and score")
    search.add_argument("query")
    search.add_argument("--source", action="append", metavar="NAME", help="search only this source (repeatable)")
    search.add_argument("--top", type=int, default=5, metavar="N", help="how many passages (1–20, default 5)")
    search.add_argument("--json", action="store_true", help="as JSON")
    search.set_defaults(run=run_search)
    for action in ("on", "off"):
        switch = actions.add_parser(action, help=f"switch a source {action} for search_knowledge")
        switch.add_argument("name")
        switch.set_defaults(run=run_switch, on=action == "on")


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_USAGE


def _runtime() -> Runtime:
    """The settings (the embedding model) and the keys, as `ask` has them; the keyring is read only if a key is needed."""
    from desktop_copilot.core.bootstrap import build_runtime

    runtime = build_runtime(check_keyring=False)
    for problem in runtime.warnings:
        print(f"warning: {problem}", file=sys.stderr)
    return runtime


def _library() -> KnowledgeLibrary:
    return _runtime().knowledge_library()


def _guarded(action):
    def run(args: argparse.Namespace) -> int:
        from desktop_copilot.core.knowledge.library import KnowledgeError

        try:
            return action(args)
        except KnowledgeError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_USAGE
        except KeyboardInterrupt:
            print("\nStopped; what was indexed so far is kept, and `knowledge reindex` goes on from there.", file=sys.stderr)
            return EXIT_FAILED
    return run


class ProgressBar:
    """A one-line bar on a terminal ("notes  ██████░░░░  1,204 / 3,000 files  docs/guide.md"); nothing otherwise."""

    def __init__(self, stream=sys.stderr) -> None:
        self.stream = stream
        self.live = bool(getattr(stream, "isatty", lambda: False)())
        self._shown = 0.0

    def __call__(self, progress: Progress) -> None:
        if not self.live or (not progress.finished and time.monotonic() - self._shown < 0.1):
            return
        self._shown = time.monotonic()
        width = shutil.get_terminal_size((80, 20)).columns
        share = progress.done / progress.total if progress.total else 1.0
        filled = int(share * BAR_CELLS)
        bar = "█" * filled + "░" * (BAR_CELLS - filled)
        line = f"{progress.source}  {bar}  {progress.done:,} / {progress.total:,} files  {progress.path}"
        self.stream.write("\r" + line[: width - 1].ljust(width - 1))
        if progress.finished:
            self.stream.write("\n")
        self.stream.flush()


def _summary(progress: Progress) -> str:
    parts = [f"{progress.added:,} new", f"{progress.updated:,} changed", f"{progress.removed:,} removed",
             f"{progress.unchanged:,} unchanged"]
    text = f"{progress.source}: " + ", ".join(parts)
    if progress.problems:
        text += f"; {len(progress.problems):,} left out (`knowledge list --json` gives each reason)"
    return text


def _index(runtime: Runtime, source: SourceRow, *, full: bool = False) -> Progress:
    from desktop_copilot.core.knowledge.indexer import index_source

    library = runtime.knowledge_library()
    progress = index_source(library, source, full=full, on_progress=ProgressBar())
    print(_summary(progress))
    for path, reason in progress.problems[:10]:
        print(f"  left out {path or source.path}: {reason}")
    if len(progress.problems) > 10:
        print(f"  … and {len(progress.problems) - 10:,} more")
    message = runtime.embed_knowledge(source.name)  # when an embedding model is configured (Settings ▸ Knowledge)
    if message:
        print(message)
    return progress


def run_add(args: argparse.Namespace) -> int:
    return _guarded(_add)(args)


def _add(args: argparse.Namespace) -> int:
    from desktop_copilot.core.knowledge.library import DEFAULT_MAX_FILE_MB

    runtime = _runtime()
    source = runtime.knowledge_library().add_source(args.path, args.name, max_file_mb=args.max_size or DEFAULT_MAX_FILE_MB)
    print(f"Added “{source.name}”: {source.path}")
    if not args.no_index:
        _index(runtime, source)
    return EXIT_OK


def _source_json(library: KnowledgeLibrary, source: SourceRow) -> dict:
    return {"name": source.name, "path": source.path, "on": source.enabled, "files": source.files,
            "passages": source.passages, "left_out": source.skipped, "max_file_mb": source.max_file_mb,
            "indexed_at": source.indexed_at,
            "problems": [{"path": f.path, "status": f.status, "reason": f.reason} for f in library.problems(source.id)]}


def run_list(args: argparse.Namespace) -> int:
    library = _library()
    sources = library.sources()
    if args.json:
        print(json.dumps({"sources": [_source_json(library, s) for s in sources]}, ensure_ascii=False, indent=1))
        return EXIT_OK
    if not sources:
        print("No knowledge sources yet. Add one: desktop-copilot knowledge add PATH")
        return EXIT_OK
    for source in sources:
        state = "on " if source.enabled else "off"
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(source.indexed_at)) if source.indexed_at else "not indexed yet"
        left = f", {source.skipped:,} left out" if source.skipped else ""
        print(f"{state} {source.name}  {source.path}\n    {source.files:,} files, {source.passages:,} passages{left}; indexed {when}")
    return EXIT_OK


def run_remove(args: argparse.Namespace) -> int:
    def remove(args: argparse.Namespace) -> int:
        source = _library().remove_source(args.name)
        print(f"Removed “{source.name}” from the index; the files in {source.path} are untouched.")
        return EXIT_OK
    return _guarded(remove)(args)


def run_reindex(args: argparse.Namespace) -> int:
    def reindex(args: argparse.Namespace) -> int:
        runtime = _runtime()
        library = runtime.knowledge_library()
        sources = [library.source(args.name)] if args.name else library.sources()
        if not sources:
            print("No knowledge sources yet. Add one: desktop-copilot knowledge add PATH")
        for source in sources:
            _index(runtime, source, full=args.full)
        return EXIT_OK
    return _guarded(reindex)(args)


def run_switch(args: argparse.Namespace) -> int:
    def switch(args: argparse.Namespace) -> int:
        library = _library()
        library.set_enabled(args.name, args.on)
        print(f"“{library.source(args.name).name}” is {'on' if args.on else 'off'} for search_knowledge.")
        return EXIT_OK
    return _guarded(switch)(args)


def run_search(args: argparse.Namespace) -> int:
    def search(args: argparse.Namespace) -> int:
        from desktop_copilot.core.knowledge.search import search_knowledge

        if not (1 <= args.top <= 20):
            print("error: --top takes 1 to 20.", file=sys.stderr)
            return EXIT_USAGE
        runtime = _runtime()
        library = runtime.knowledge_library()

        async def go():
            try:
                nearest = await runtime.knowledge_embeddings()
                return await search_knowledge(library, args.query, sources=args.source, top_k=args.top, nearest=nearest)
            finally:
                await runtime.aclose()

        found = asyncio.run(go())
        rows = [{"rank": n, "score": round(hit.score, 4), "source": hit.passage.source, "path": hit.passage.path,
                 "file": str(hit.passage.file), "location": hit.passage.location,
                 "start_line": hit.passage.start_line, "end_line": hit.passage.end_line, "page": hit.passage.page,
                 "heading": hit.passage.heading, "text": hit.passage.text}
                for n, hit in enumerate(found.hits, start=1)]
        if args.json:
            print(json.dumps({"query": args.query, "hybrid": found.hybrid, "note": found.note, "results": rows},
                             ensure_ascii=False, indent=1))
            return EXIT_OK
        if found.note:
            print(f"note: {found.note}", file=sys.stderr)
        if not rows:
            print(f"No passage matches “{args.query}”.")
        for row in rows:
            excerpt = " ".join(row["text"].split())
            excerpt = excerpt if len(excerpt) <= 240 else excerpt[:239] + "…"
            print(f"{row['rank']}. {row['path']}  {row['location']}  [{row['source']}]  score {row['score']:g}\n   {excerpt}")
        return EXIT_OK
    return _guarded(search)(args)
