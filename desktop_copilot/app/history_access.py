"""How `desktop-copilot history` reaches the store: opened as `ask` opens it (nothing is created to be read), reads
that see one moment, a conversation found by its id or the start of it, and refusals told in words with their exit code."""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop_copilot.core.conversation.models import Conversation
    from desktop_copilot.core.storage.store import MessageSummary, Store

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
NOTHING_STORED = "no conversations are stored yet."
LIST_HINT = "`desktop-copilot history list` shows them"
AMBIGUOUS_SHOWN = 10


class Refusal(Exception):
    """Ends the command saying why on stderr: `error: …` and exit 2, or a `note: …` and exit 0 (nothing to show)."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.code = code


def note(message: str) -> Refusal:
    return Refusal(message, EXIT_OK)


def with_store(action: Callable[[argparse.Namespace, Store | None], int], *, create: bool = False):
    """`action(args, store)` on the profile's database, opened as `ask` opens it (None when there is none yet and
    `create` is False: nothing is created to be read); refusals and database failures are told in words."""

    def run(args: argparse.Namespace) -> int:
        from desktop_copilot.core.storage.schema import NewerSchemaError

        readable_output()
        store = None
        try:
            store = open_history(create)
            return action(args, store)
        except Refusal as refusal:
            print(f"{'note' if refusal.code == EXIT_OK else 'error'}: {refusal}", file=sys.stderr)
            return refusal.code
        except BrokenPipeError:  # `history show … | head`: the reader has what it wanted
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return EXIT_OK
        except (NewerSchemaError, sqlite3.Error, OSError) as exc:  # StorageUnavailableError too: the disk refuses a write
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_FAILED
        finally:
            if store is not None:
                store.close()

    return run


def open_history(create: bool) -> Store | None:
    """The profile's store after its integrity check, warnings on stderr; None when there is no database and not `create`."""
    from desktop_copilot.core.bootstrap import open_store, unsaved_warning
    from desktop_copilot.core.config.paths import AppPaths

    paths = AppPaths.resolve()
    if not create and not paths.database.exists():
        return None
    warnings: list[str] = []
    store = open_store(paths, warnings)
    if problem := unsaved_warning(store):
        warnings.append(problem)
    for problem in warnings:
        print(f"warning: {problem}", file=sys.stderr)
    return store


@contextmanager
def snapshot(store: Store | None) -> Iterator[None]:
    """Reads that all see the database at one moment: a read transaction, which in WAL mode holds up no writer."""
    if store is None:
        yield
        return
    db = store.connection
    db.execute("BEGIN")
    try:
        yield
    finally:
        db.execute("COMMIT")


def readable_output() -> None:
    """A terminal that cannot show every character gets "?" for it instead of a UnicodeEncodeError."""
    if not utf8(sys.stdout) and hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")


def utf8(stream) -> bool:
    return (getattr(stream, "encoding", None) or "").lower().replace("-", "").replace("_", "").startswith("utf")


def print_json(document) -> None:
    print(json.dumps(document, ensure_ascii=not utf8(sys.stdout), indent=2))


def find_conversation(store: Store | None, wanted: str | None, *, last: bool = False) -> str:
    """The id of the conversation asked for: the latest, the one with this id, or the only one whose id starts with
    `wanted` (with or without its `conv_`)."""
    if store is None or (last and (found := store.latest_conversation_id()) is None):
        raise note(NOTHING_STORED) if last else Refusal(f"there is no conversation {wanted!r}: {NOTHING_STORED}")
    if last:
        return found
    wanted = (wanted or "").strip()
    if not wanted:
        raise Refusal(f"give a conversation's id (or --last); {LIST_HINT}.")
    conversations = store.list_conversations()
    if any(c.id == wanted for c in conversations):
        return wanted
    matches = [c for c in conversations if c.id.startswith(wanted)] or \
              [c for c in conversations if c.id.startswith("conv_" + wanted)]
    if len(matches) == 1:
        return matches[0].id
    if not matches:
        raise Refusal(f"no conversation's id starts with {wanted!r}; {LIST_HINT}.")
    from desktop_copilot.app.history_render import title_of

    shown = "\n".join(f"  {c.id}  {title_of(c)}" for c in matches[:AMBIGUOUS_SHOWN])
    more = f"\n  … and {len(matches) - AMBIGUOUS_SHOWN} more" if len(matches) > AMBIGUOUS_SHOWN else ""
    raise Refusal(f"{wanted!r} starts the ids of {len(matches)} conversations; give more of the id:\n{shown}{more}")


def load(store: Store | None, args: argparse.Namespace) -> Conversation:
    """The whole conversation `args` names (`id` or `last`), as one moment of the database holds it."""
    with snapshot(store):
        conversation_id = find_conversation(store, args.id, last=args.last)
        conversation = store.load_conversation(conversation_id)
    if conversation is None:  # deleted between the two reads cannot happen in one snapshot; kept for safety
        raise Refusal(f"the conversation {conversation_id} is no longer stored.")
    return conversation


def message_counts(store: Store) -> dict[str, tuple[int, str]]:
    """Each conversation's number of messages and the status of its newest one, in one query (no blocks read)."""
    rows = store.connection.execute(
        """SELECT conversation_id, COUNT(*), (SELECT status FROM messages AS newest
                                             WHERE newest.conversation_id = m.conversation_id ORDER BY seq DESC LIMIT 1)
           FROM messages AS m GROUP BY conversation_id"""
    ).fetchall()
    return {row[0]: (row[1], row[2]) for row in rows}


def unfinished_check(store: Store, conversation_id: str) -> list[MessageSummary]:
    """The conversation's messages (id, role, status, size); Refusal when a reply is still being written to it."""
    summaries = store.message_index(conversation_id)
    if any(s.status in ("created", "streaming") for s in summaries):
        raise Refusal("a reply is still being written to this conversation (by the window or `ask`); stop it or let it "
                      "finish, then delete. A reply left unfinished by a crash is marked interrupted when the window "
                      "next starts.")
    return summaries
