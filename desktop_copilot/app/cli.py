"""Command-line entry point: `desktop-copilot` opens the window; `ask` and `keys` work without Qt."""

from __future__ import annotations

import argparse
import sys

from desktop_copilot import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="desktop-copilot", description="A native desktop chat client for Claude.")
    parser.add_argument("--version", action="version", version=f"desktop-copilot {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    from desktop_copilot.app import ask

    ask.add_parser(commands)
    try:
        from desktop_copilot.app import keys_cli
    except ImportError:  # pragma: no cover - the keys command arrives with the key store
        keys_cli = None
    if keys_cli is not None:
        keys_cli.add_parser(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        from desktop_copilot.app.gui import main as gui_main

        return gui_main(argv)
    return args.run(args)
