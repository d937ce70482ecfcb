"""Command-line entry point: `desktop-copilot` opens the window; `ask`, `history`, `keys`, `mcp`, `models` and `undo` work
without Qt.
Each command logs to the profile's log file (`--debug` or DESKTOP_COPILOT_LOG=debug for more)."""

from __future__ import annotations

import argparse
import gc
import logging
import sys

from desktop_copilot import __version__
from desktop_copilot.app.httpx_cli import leave_httpx_cli_unloaded

log = logging.getLogger(__name__)

DEBUG_FLAG = "--debug"
DEBUG_HELP = "write DEBUG lines to the log file (also DESKTOP_COPILOT_LOG=debug)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="desktop-copilot", description="A native desktop chat client for Claude.")
    parser.add_argument("--version", action="version", version=f"desktop-copilot {__version__}")
    parser.add_argument(DEBUG_FLAG, action="store_true", help=DEBUG_HELP)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    from desktop_copilot.app import ask, history_cli, keys_cli, knowledge_cli, mcp_cli, models_cli, permissions_cli, tools_cli, undo_cli

    ask.add_parser(commands)
    history_cli.add_parser(commands)
    keys_cli.add_parser(commands)
    knowledge_cli.add_parser(commands)
    mcp_cli.add_parser(commands)
    models_cli.add_parser(commands)
    permissions_cli.add_parser(commands)
    tools_cli.add_parser(commands)
    undo_cli.add_parser(commands)
    _accept_debug_anywhere(commands)
    return parser


def _accept_debug_anywhere(commands: argparse._SubParsersAction) -> None:
    """`desktop-copilot ask --debug …` works as well as `desktop-copilot --debug ask …`."""
    for sub in set(commands.choices.values()):
        sub.add_argument(DEBUG_FLAG, action="store_true", default=argparse.SUPPRESS, help=DEBUG_HELP)
        for action in sub._actions:
            if isinstance(action, argparse._SubParsersAction):
                _accept_debug_anywhere(action)


def main(argv: list[str] | None = None) -> int:
    """Run the command `argv` names (None: the program's own arguments, and the process ends when this returns)."""
    program = argv is None
    argv = sys.argv[1:] if argv is None else argv
    if all(arg == DEBUG_FLAG for arg in argv):  # the window: no command parser to build (it imports every command)
        return _open_window(argv)
    leave_httpx_cli_unloaded()  # a command's process ends when it is done: the tool would load for nothing
    if program:
        gc.disable()  # until the commands' modules are in: see _settle_imports
    parser = build_parser()
    args = parser.parse_args(argv)
    if program:
        _settle_imports()
    from desktop_copilot.core.logs.logging_setup import configure_logging, level_from, log_shutdown, log_startup
    from desktop_copilot.core.config.paths import AppPaths

    configure_logging(AppPaths.resolve(), level_from(args.debug))
    if args.command is None:  # options alone (`--`): the window, as with no arguments
        return _open_window(argv)
    log_startup(args.command)
    code = None
    try:
        code = args.run(args)
        return code
    except Exception:
        log.exception("%s failed", args.command)
        raise  # and Python prints it, as before
    finally:
        log_shutdown(args.command, code)
        if program:
            _freeze_for_exit()


def _settle_imports() -> None:
    """The commands' modules are imported, with the collector paused: what importing makes (classes, functions,
    schemas, and the cycles among them) lives as long as the process, so collections while it grows would find
    nothing to free. It goes to the collector's permanent generation, and no later collection walks it again."""
    gc.freeze()
    gc.enable()


def _freeze_for_exit() -> None:
    """The command has run and the process exits next: what is still alive goes to the collector's permanent
    generation, so the exit does not walk every module's objects and their cycles only to free memory the system
    takes back whole (40-70 ms of CPU, a tenth of a short `ask`). Nothing is lost: files, connections and clients
    are closed by their owners before this, the log by logging's own exit handler."""
    gc.freeze()


def _open_window(argv: list[str]) -> int:
    from desktop_copilot.app.gui import main as gui_main
    from desktop_copilot.core.logs.logging_setup import configure_logging, level_from
    from desktop_copilot.core.config.paths import AppPaths

    configure_logging(AppPaths.resolve(), level_from(DEBUG_FLAG in argv))
    return gui_main([arg for arg in argv if arg != DEBUG_FLAG])
