"""`desktop-copilot history list|show|search|export|import|delete`: the stored conversations from the terminal, on the
database the window and `ask` write to while they run (WAL: reads see one moment, writes are short transactions)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from desktop_copilot.app.terminal_question import confirmed
from desktop_copilot.app.history_access import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    NOTHING_STORED,
    Refusal,
    find_conversation,
    load,
    message_counts,
    note,
    print_json,
    snapshot,
    unfinished_check,
    with_store,
)

if TYPE_CHECKING:
    from desktop_copilot.core.storage.store import Store


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("history", help="list, show, search, export, import or delete stored conversations")
    parser.set_defaults(run=lambda _args: _usage(parser))
    actions = parser.add_subparsers(dest="history_command", metavar="ACTION")

    lister = actions.add_parser("list", help="every conversation, newest first")
    _json_flag(lister, "a list of objects (id, title, provider, model, messages, last_status, created_at, updated_at)")
    lister.set_defaults(run=with_store(run_list))

    shower = actions.add_parser("show", help="a conversation's messages with their thinking, tool calls and attachments")
    _which(shower)
    _json_flag(shower, "the whole conversation, as the JSON export holds it")
    shower.set_defaults(run=with_store(run_show))

    searcher = actions.add_parser("search", help="conversations and messages containing every word (Chinese too)")
    searcher.add_argument("text", nargs="+", help="what to find")
    searcher.add_argument("--limit", type=int, default=50, metavar="N", help="at most N matches (default 50)")
    _json_flag(searcher, "a list of matches (conversation_id, message_id, role, title, snippet, matches)")
    searcher.set_defaults(run=with_store(run_search))

    exporter = actions.add_parser("export", help="a conversation as Markdown or as JSON that `history import` reads")
    _which(exporter)
    exporter.add_argument("--format", choices=("md", "json"),
                          help="md (default) or json (the default when FILE ends in .json)")
    exporter.add_argument("-o", "--output", metavar="FILE", help="write FILE (atomically) instead of standard output")
    exporter.set_defaults(run=with_store(run_export))

    importer = actions.add_parser("import", help="conversations from a JSON export (ones already here are kept as they are)")
    importer.add_argument("file", metavar="FILE", help="the export (- reads standard input)")
    importer.set_defaults(run=with_store(run_import, create=True))

    deleter = actions.add_parser("delete", help="delete a conversation (asks first on a terminal)")
    deleter.add_argument("id", metavar="ID", help="the conversation's id, or the start of it")
    deleter.add_argument("-y", "--yes", action="store_true", help="do not ask (needed without a terminal)")
    deleter.set_defaults(run=with_store(run_delete))


def _which(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("id", nargs="?", metavar="ID", help="the conversation's id, or enough of its start to be the only one")
    group.add_argument("--last", action="store_true", help="the conversation changed most recently")


def _json_flag(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--json", action="store_true", help=f"print JSON: {what}")


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_USAGE


# --- the actions -----------------------------------------------------------------------------------------------------


def run_list(args: argparse.Namespace, store: Store | None) -> int:
    from desktop_copilot.app.history_render import Row, conversation_table, short_ids

    rows: list[Row] = []
    if store is not None:
        with snapshot(store):
            counts = message_counts(store)
            rows = [Row(c, *counts.get(c.id, (0, None))) for c in store.list_conversations()]
    if args.json:
        print_json([row.to_json() for row in rows])
    elif rows:
        print(conversation_table(rows, short_ids([row.conversation.id for row in rows])))
    if not rows:
        raise note(NOTHING_STORED)
    return EXIT_OK


def run_show(args: argparse.Namespace, store: Store | None) -> int:
    from desktop_copilot.app.history_render import conversation_text

    conversation = load(store, args)
    if args.json:
        print_json(conversation.model_dump(mode="json"))
    else:
        sys.stdout.write(conversation_text(conversation))
    return EXIT_OK


def run_search(args: argparse.Namespace, store: Store | None) -> int:
    from desktop_copilot.app.history_render import plain_snippet, search_results, short_ids
    from desktop_copilot.core.storage.search import fts_query

    query = " ".join(args.text)
    if fts_query(query) is None:
        raise Refusal(f"{query!r} holds no word to search for.")
    if args.limit < 1:
        raise Refusal("--limit must be 1 or more.")
    hits = store.search(query, args.limit) if store is not None else []
    roles = {summary.id: summary.role for conversation_id in {hit.conversation_id for hit in hits}
             for summary in store.message_index(conversation_id)}
    if args.json:
        found = []
        for hit in hits:
            snippet, matches = plain_snippet(hit.snippet)
            found.append({"conversation_id": hit.conversation_id, "message_id": hit.message_id or None,
                          "role": roles.get(hit.message_id), "title": hit.title, "snippet": snippet, "matches": matches})
        print_json(found)
    elif hits:
        ids = short_ids([c.id for c in store.list_conversations()])
        ansi = sys.stdout.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"
        print(search_results(hits, roles, ids, ansi=ansi))
    if store is None:
        raise note(NOTHING_STORED)
    if not hits:
        raise note(f"nothing stored matches {query!r}.")
    return EXIT_OK


def run_export(args: argparse.Namespace, store: Store | None) -> int:
    from desktop_copilot.app.history_render import title_of
    from desktop_copilot.core.config.atomic_file import write_atomically
    from desktop_copilot.core.storage.export import stored_versions, to_json, to_markdown

    to_file = args.output not in (None, "-")
    kind = args.format or ("json" if to_file and args.output.lower().endswith(".json") else "md")
    conversation = load(store, args)
    versions = stored_versions(store, conversation.id) if store is not None else []  # other answers, earlier replies
    text = to_markdown(conversation, versions) if kind == "md" else to_json([conversation], {conversation.id: versions}) + "\n"
    if not to_file:
        sys.stdout.write(text)
        return EXIT_OK
    path = Path(args.output).expanduser()
    if not path.parent.is_dir():
        raise Refusal(f"there is no folder {path.parent} to write {path.name} in; nothing was written.")
    try:
        write_atomically(path, text)
    except OSError as exc:
        print(f"error: could not write {path}: {exc.strerror or exc}. Nothing was written.", file=sys.stderr)
        return EXIT_FAILED
    count = len(conversation.messages)
    print(f"Exported “{title_of(conversation)}” ({count} message{'s' * (count != 1)}) as "
          f"{'Markdown' if kind == 'md' else 'JSON'} to {path}.")
    return EXIT_OK


def run_import(args: argparse.Namespace, store: Store | None) -> int:
    from desktop_copilot.app.history_render import title_of
    from desktop_copilot.core.storage.export import ExportFormatError, import_json, parse_json

    assert store is not None  # opened with create=True
    name = "standard input" if args.file == "-" else args.file
    text = _read_export(args.file)
    try:
        listed = parse_json(text)
        already = {c.id for c in listed if store.load_conversation_header(c.id) is not None}
        imported, skipped = import_json(store, text)
    except ExportFormatError as exc:
        raise Refusal(f"could not import {name}: {exc}") from None
    new, kept = [], []
    for c in listed:  # as import_json decides: the first of an id not stored yet is imported
        (kept if c.id in already or any(n.id == c.id for n in new) else new).append(c)
    if not listed:
        print(f"{name} holds no conversations; nothing was imported.")
    elif imported:
        print(f"Imported {imported} conversation{'s' * (imported != 1)} from {name}:")
        for c in new:
            print(f"  {c.id}  {title_of(c)}  ({len(c.messages)} message{'s' * (len(c.messages) != 1)})")
    if skipped:
        were = "s were" if skipped != 1 else " was"
        print(f"{'' if imported else 'Nothing was imported: '}{skipped} conversation{were} already here and "
              f"kept as {'they were' if skipped != 1 else 'it was'}: {', '.join(dict.fromkeys(c.id for c in kept))}")
    return EXIT_OK


def _read_export(file: str) -> str:
    try:
        if file == "-":
            return sys.stdin.buffer.read().decode("utf-8")
        return Path(file).expanduser().read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise Refusal(f"{file} is not a text file. Choose a file made by `desktop-copilot history export "
                      "--format json` or File ▸ Export → JSON.") from None
    except OSError as exc:
        raise Refusal(f"could not read {file}: {exc.strerror or exc}.") from None


def run_delete(args: argparse.Namespace, store: Store | None) -> int:
    from desktop_copilot.app.history_render import title_of, when

    with snapshot(store):
        conversation_id = find_conversation(store, args.id)
        header = store.load_conversation_header(conversation_id)
        count = len(unfinished_check(store, conversation_id))
    what = f"“{title_of(header)}” ({conversation_id}, {count} message{'s' * (count != 1)}, updated {when(header.updated_at)})"
    if not args.yes:
        if sys.stdin is None or not sys.stdin.isatty():
            raise Refusal(f"not deleting {what}: there is no terminal to confirm on. Pass --yes to delete it.")
        if not confirmed(f"Delete {what}? This cannot be undone. [y/N] "):
            print("Nothing was deleted.")
            return EXIT_OK
    with store.transaction():  # checked again and deleted in one short write: no reply can start on it in between
        if store.load_conversation_header(conversation_id) is None:
            raise Refusal(f"{conversation_id} was deleted meanwhile.")
        unfinished_check(store, conversation_id)
        store.delete_conversation(conversation_id)
    print(f"Deleted {what}.")
    return EXIT_OK
