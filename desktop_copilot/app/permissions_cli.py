"""`desktop-copilot permissions list|allow|ask|deny|remove|reset`: the permission rules and grants in permissions.json,
the same ones Settings ▸ Permissions edits and the window and `ask` obey. Works without Qt."""

from __future__ import annotations

import argparse
import json
import sys

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2

TOOL_HELP = ("a built-in tool (shell, write_file, edit_file, read_file, web_fetch, …), an MCP tool as mcp:SERVER/TOOL, "
             "or a glob (mcp:notes/*, *)")
PATTERN_HELP = ("only calls whose main argument matches: a command for shell ('git status*'), a path in the workspace "
                "for the file tools ('src/*'), a host for web_fetch ('*.python.org'); * matches anything")


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("permissions", help="list and change the rules that allow, ask or deny tool calls")
    parser.set_defaults(run=lambda _args: _usage(parser))
    actions = parser.add_subparsers(dest="permissions_command", metavar="ACTION")
    lister = actions.add_parser("list", help="every rule and grant, most specific first, numbered")
    lister.add_argument("--json", action="store_true", help="as JSON")
    lister.set_defaults(run=run_list)
    for action, words in (("allow", "run without asking"), ("ask", "ask every time"), ("deny", "never run")):
        adder = actions.add_parser(action, help=f"add a rule: calls of TOOL (matching PATTERN) {words}")
        adder.add_argument("tool", help=TOOL_HELP)
        adder.add_argument("pattern", nargs="?", default="", help=PATTERN_HELP)
        adder.set_defaults(run=run_add, action=action)
    remover = actions.add_parser("remove", help="remove rule or grant N (as `permissions list` numbers them)")
    remover.add_argument("number", type=int)
    remover.set_defaults(run=run_remove)
    resetter = actions.add_parser("reset", help="remove every rule and grant")
    resetter.add_argument("-y", "--yes", action="store_true", help="do not ask")
    resetter.set_defaults(run=run_reset)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_USAGE


def _store():
    """The profile's permissions.json (its problem, if damaged, said on stderr: it was moved aside)."""
    from desktop_copilot.core.approval.grants import GrantStore
    from desktop_copilot.core.bootstrap import PERMISSIONS_FILE
    from desktop_copilot.core.config.paths import AppPaths

    store = GrantStore(AppPaths.resolve().ensure().config_dir / PERMISSIONS_FILE)
    if store.problem:
        print(f"warning: {store.problem}", file=sys.stderr)
    return store


def _entry_fields(entry) -> dict:
    from desktop_copilot.core.approval.grants import CONVERSATION, Grant

    rule = entry.as_rule() if isinstance(entry, Grant) else entry
    fields = {"action": rule.action.value, "tool": rule.tool, "pattern": rule.pattern or None,
              "kind": "grant" if isinstance(entry, Grant) else "rule"}
    if isinstance(entry, Grant):
        fields["scope"] = "conversation" if entry.scope == CONVERSATION else "always"
        if entry.scope == CONVERSATION:
            fields["conversation"] = entry.conversation_title or entry.conversation_id
        if entry.source_label:
            fields["source"] = entry.source_label
    return fields


def run_list(args: argparse.Namespace) -> int:
    entries = _store().listed()
    rows = [{"number": number, **_entry_fields(entry)} for number, entry in enumerate(entries, start=1)]
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=1))
        return EXIT_OK
    if not rows:
        print("No rules. Read-only tools run without asking; the others ask each time "
              "(add one with `desktop-copilot permissions allow|ask|deny TOOL [PATTERN]`).")
        return EXIT_OK
    for row in rows:
        pattern = f" `{row['pattern']}`" if row["pattern"] else ""
        extra = ""
        if row["kind"] == "grant":
            extra = " (granted on a card" + (f", in “{row['conversation']}”" if row.get("conversation") else "") + ")"
        print(f"{row['number']:>3}. {row['action']:<5} {row['tool']}{pattern}{extra}")
    return EXIT_OK


def run_add(args: argparse.Namespace) -> int:
    from desktop_copilot.core.approval.rules import RuleError, make_rule

    try:
        rule = make_rule(args.action, args.tool, args.pattern)
    except RuleError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    store = _store()
    store.add_rule(rule)
    number = next(i for i, entry in enumerate(store.listed(), start=1) if entry == rule)
    print(f"Added rule {number}: {rule.describe()}.")
    return EXIT_OK


def run_remove(args: argparse.Namespace) -> int:
    store = _store()
    entries = store.listed()
    if not 1 <= args.number <= len(entries):
        print(f"error: there is no rule {args.number}; `desktop-copilot permissions list` shows "
              f"{len(entries)} rule{'s' * (len(entries) != 1)}.", file=sys.stderr)
        return EXIT_USAGE
    entry = entries[args.number - 1]
    fields = _entry_fields(entry)
    store.remove(entry)
    pattern = f" `{fields['pattern']}`" if fields["pattern"] else ""
    print(f"Removed {args.number}: {fields['action']} {fields['tool']}{pattern}.")
    return EXIT_OK


def run_reset(args: argparse.Namespace) -> int:
    store = _store()
    count = len(store.listed())
    if not count:
        print("There are no rules or grants to remove.")
        return EXIT_OK
    if not args.yes:
        if sys.stdin is None or not sys.stdin.isatty():
            print(f"error: this removes {count} rules and grants; run it on a terminal to be asked, or add --yes.",
                  file=sys.stderr)
            return EXIT_USAGE
        from desktop_copilot.app.terminal_question import confirmed

        if not confirmed(f"Remove all {count} rules and grants? Tools that change things will ask again. [y/N] "):
            print("Nothing was removed.")
            return EXIT_FAILED
    store.reset()
    print(f"Removed {count} rules and grants.")
    return EXIT_OK
