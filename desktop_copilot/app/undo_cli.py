"""`desktop-copilot undo --last | CONVERSATION_ID [--reply MESSAGE_ID]`: put back the workspace files a reply changed
(core/file_undo.py), from the terminal. Asks first on a terminal (`--yes` does not ask; without a terminal it is
needed). A file changed since the reply wrote it stops the undo before anything changes, and the diff is printed."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from desktop_copilot.app.terminal_question import confirmed
from desktop_copilot.app.history_access import (
    EXIT_FAILED,
    EXIT_OK,
    Refusal,
    find_conversation,
    note,
    snapshot,
    with_store,
)

if TYPE_CHECKING:
    from desktop_copilot.core.file_undo import ChangedFile
    from desktop_copilot.core.storage.store import Store

UNFINISHED = ("created", "streaming")


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("undo", help="put back the files a reply changed with its tools (asks first on a terminal)")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("id", nargs="?", metavar="CONVERSATION_ID",
                       help="the conversation's id, or enough of its start to be the only one")
    group.add_argument("--last", action="store_true",
                       help="the last reply that changed files in the conversation changed most recently")
    parser.add_argument("--reply", metavar="MESSAGE_ID",
                        help="the reply to undo: the id of one of its messages (default: the conversation's last reply "
                             "that changed files)")
    parser.add_argument("-y", "--yes", action="store_true", help="do not ask (needed without a terminal)")
    parser.set_defaults(run=with_store(run_undo))


def run_undo(args: argparse.Namespace, store: Store | None) -> int:
    from desktop_copilot.core.file_undo import (
        ChangedSinceError,
        NothingToUndoError,
        check_undoable,
        last_changing_reply,
        reply_message_ids,
        undo_reply,
    )

    if args.last and args.reply:
        raise Refusal("--reply names a reply of a conversation: give the conversation's id instead of --last.")
    try:
        with snapshot(store):
            conversation_id = find_conversation(store, args.id, last=args.last)
            messages = store.message_index(conversation_id)
            if args.reply:
                reply = reply_message_ids(messages, _message_id(messages, args.reply))
            else:
                reply = last_changing_reply(store.connection, conversation_id, messages)
        if any(m.status in UNFINISHED for m in messages if m.id in reply):
            raise Refusal("this reply is still being written (by the window or `ask`); stop it or let it finish, then undo.")
        files = check_undoable(store.connection, conversation_id, reply)
        if not args.yes:
            print(f"This reply ({reply[0]}) changed {_count(len(files))}:")
            for file in files:
                print(f"  {_plan(file)}")
            if sys.stdin is None or not sys.stdin.isatty():
                raise Refusal("nothing was undone: there is no terminal to confirm on. Pass --yes to undo.")
            if not confirmed(f"Put {'this file' if len(files) == 1 else 'these files'} back as they were before the "
                              "reply? [y/N] "):
                print("Nothing was undone.")
                return EXIT_OK
        result = undo_reply(store.connection, conversation_id, reply)
    except NothingToUndoError as exc:
        raise note(f"nothing to undo: {_lower(str(exc))}") from None
    except ChangedSinceError as exc:
        sys.stdout.write(exc.diff)
        sys.stdout.flush()
        print(f"error: {_lower(str(exc))} The diff above shows what changed since.", file=sys.stderr)
        return EXIT_FAILED
    except OSError as exc:
        print(f"error: could not put back {getattr(exc, 'filename', None) or 'a file'}: {exc.strerror or exc}. "
              "The files put back before it stay so; run the same undo again to go on.", file=sys.stderr)
        return EXIT_FAILED
    for file in result.restored:
        print(f"{'Removed' if file.created else 'Restored'} {file.path}")
    for file in result.not_restored:
        print(f"Left {file.path} as it is: it was larger than {_limit()} when the reply changed it, so its content "
              "before was not kept.", file=sys.stderr)
    print(f"Undid the reply's changes to {_count(len(result.restored))}.")
    return EXIT_OK


def _message_id(messages, wanted: str) -> str:
    """The id of the conversation's message `wanted` names (its id or the only one starting so)."""
    ids = [m.id for m in messages]
    if wanted in ids:
        return wanted
    matches = [i for i in ids if i.startswith(wanted)] or [i for i in ids if i.startswith("msg_" + wanted)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise Refusal(f"the conversation has no message {wanted!r}; `desktop-copilot history show --json` lists their ids.")
    raise Refusal(f"{wanted!r} starts the ids of {len(matches)} messages; give more of the id.")


def _plan(file: ChangedFile) -> str:
    if file.created:
        return f"{file.path}  (created by the reply: removed)"
    if not file.restorable:
        return f"{file.path}  (larger than {_limit()} when changed: cannot be put back)"
    return f"{file.path}  (changed{f' {file.changes} times' if file.changes > 1 else ''}: put back as it was)"


def _limit() -> str:
    from desktop_copilot.core.storage.file_snapshots import MAX_SNAPSHOT_BYTES

    return f"{MAX_SNAPSHOT_BYTES // (1024 * 1024)} MB"


def _count(n: int) -> str:
    return f"{n} file{'s' * (n != 1)}"


def _lower(text: str) -> str:
    return text[:1].lower() + text[1:]
