"""`desktop-copilot tools list|enable|disable|workspace`: the built-in tools switched on or off, and the workspace folder
the file tools and the shell work in; the same settings Settings ▸ Tools edits. Works without Qt."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("tools", help="switch the built-in tools on or off, and choose the workspace folder")
    parser.set_defaults(run=lambda _args: _usage(parser))
    actions = parser.add_subparsers(dest="tools_command", metavar="ACTION")
    lister = actions.add_parser("list", help="every built-in tool: on or off, what it needs, whether it asks")
    lister.add_argument("--json", action="store_true", help="as JSON")
    lister.set_defaults(run=run_list)
    for action in ("enable", "disable"):
        switch = actions.add_parser(action, help=f"switch a built-in tool {'on' if action == 'enable' else 'off'}")
        switch.add_argument("name", help="the tool's name, as `tools list` shows it (shell, write_file, web_fetch, …)")
        switch.set_defaults(run=run_switch, on=action == "enable")
    workspace = actions.add_parser("workspace", help="show, set or clear the workspace folder of the file tools and the shell")
    workspace.add_argument("path", nargs="?", help="the folder (none: show the current one)")
    workspace.add_argument("--clear", action="store_true", help="choose no folder (the file tools and the shell are not offered)")
    workspace.set_defaults(run=run_workspace)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_USAGE


def _settings():
    from desktop_copilot.core.config.paths import AppPaths
    from desktop_copilot.core.config.settings import SettingsFile

    settings_file = SettingsFile(AppPaths.resolve().ensure().settings_file)
    settings = settings_file.load()
    if settings_file.problem:
        print(f"warning: {settings_file.problem}", file=sys.stderr)
    return settings_file, settings


def _save(settings_file, settings, **changes) -> bool:
    from desktop_copilot.core.config.settings import Settings, SettingsError

    updated = Settings.model_validate({**settings.model_dump(), **changes})
    try:
        settings_file.save(updated)
    except (SettingsError, OSError) as exc:
        print(f"error: the settings could not be saved: {exc}", file=sys.stderr)
        return False
    return True


def _builtin_tools():
    from desktop_copilot.core.tools.builtin import builtin_registry

    return builtin_registry().all()


def _is_on(tool, settings) -> bool:
    """As `Runtime.switched_off()` has it: not switched off, and switched on when it is off by default."""
    from desktop_copilot.core.tools.base import not_switched_on

    return tool.name not in settings.disabled_tools and not not_switched_on([tool], settings.enabled_tools)


def _needs(tool, settings) -> list[str]:
    needs = [f"the {key} key" for key in tool.required_keys]
    if tool.needs_workspace and not settings.workspace_folder:
        needs.append("a workspace folder (`desktop-copilot tools workspace PATH`)")
    if tool.needs_knowledge and not _has_knowledge():
        needs.append("a knowledge source (`desktop-copilot knowledge add PATH`)")
    return needs


def _has_knowledge() -> bool:
    from desktop_copilot.core.config.paths import AppPaths
    from desktop_copilot.core.knowledge.library import KnowledgeLibrary

    paths = AppPaths.resolve()
    if not paths.knowledge_database.exists():
        return False
    library = KnowledgeLibrary.in_folder(paths.data_dir)
    try:
        return library.has_enabled_sources()
    finally:
        library.close()


def run_list(args: argparse.Namespace) -> int:
    _file, settings = _settings()
    rows = []
    for tool in _builtin_tools():
        asks = "every time" if not tool.grantable else ("no" if not tool.risk.needs_approval else "unless allowed")
        rows.append({"name": tool.name, "on": _is_on(tool, settings), "risk": tool.risk.value, "asks": asks,
                     "needs": _needs(tool, settings), "description": tool.description.split(". ")[0].rstrip(".")})
    if args.json:
        print(json.dumps({"tools": rows, "workspace": settings.workspace_folder}, ensure_ascii=False, indent=1))
        return EXIT_OK
    width = max(len(row["name"]) for row in rows)
    for row in rows:
        state = "on " if row["on"] else "off"
        needs = f"  (needs {', '.join(row['needs'])})" if row["on"] and row["needs"] else ""
        print(f"{state} {row['name']:<{width}}  asks: {row['asks']:<15} {row['description']}{needs}")
    print(f"workspace: {settings.workspace_folder or 'none chosen'}")
    print("MCP servers' tools: `desktop-copilot mcp list`; who may run what: `desktop-copilot permissions list`.")
    return EXIT_OK


def run_switch(args: argparse.Namespace) -> int:
    settings_file, settings = _settings()
    tools = {tool.name: tool for tool in _builtin_tools()}
    tool = tools.get(args.name.strip())
    if tool is None:
        print(f"error: there is no built-in tool {args.name!r}; the built-in tools are {', '.join(tools)}.", file=sys.stderr)
        return EXIT_USAGE
    disabled, enabled = set(settings.disabled_tools), set(settings.enabled_tools)
    if args.on:
        disabled.discard(tool.name)
        if not tool.enabled_by_default:
            enabled.add(tool.name)
    else:
        disabled.add(tool.name)
        enabled.discard(tool.name)
    if not _save(settings_file, settings, disabled_tools=disabled, enabled_tools=enabled):
        return EXIT_FAILED
    state = "on" if args.on else "off"
    note = ""
    if args.on and (needs := _needs(tool, settings)):
        note = f" It is offered once it has {', '.join(needs)}."
    if args.on and not tool.grantable:
        note += " It asks before every call unless a rule allows it (`desktop-copilot permissions allow shell 'git status*'`)."
    print(f"{tool.name} is {state}.{note}")
    return EXIT_OK


def run_workspace(args: argparse.Namespace) -> int:
    settings_file, settings = _settings()
    if args.clear:
        if not _save(settings_file, settings, workspace_folder=None):
            return EXIT_FAILED
        print("No workspace folder is chosen now; the file tools and the shell are not offered.")
        return EXIT_OK
    if args.path is None:
        print(settings.workspace_folder or "No workspace folder is chosen (`desktop-copilot tools workspace PATH`).")
        return EXIT_OK
    folder = Path(args.path).expanduser().resolve()
    if not folder.is_dir():
        print(f"error: {folder} is not a folder; choose an existing folder.", file=sys.stderr)
        return EXIT_USAGE
    if not _save(settings_file, settings, workspace_folder=str(folder)):
        return EXIT_FAILED
    print(f"The workspace folder is {folder}.")
    return EXIT_OK
