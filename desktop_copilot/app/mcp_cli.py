"""`desktop-copilot mcp add|list|login|remove|import|enable|disable`: the MCP servers in mcp.json; secrets are never printed."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from desktop_copilot.core.mcp.config_file import McpConfigFile
    from desktop_copilot.core.mcp.server_config import McpServerConfig

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2

ADD_USAGE = (
    "desktop-copilot mcp add NAME [--env KEY=VALUE ...] [--cwd DIR] -- COMMAND [ARGS ...]\n"
    "       desktop-copilot mcp add NAME --url URL [--header 'KEY: VALUE' ...] [--sse] [--oauth]"
)
ADD_EPILOG = (
    "Values of --env and --header are stored in the system keyring; mcp.json only refers to them. "
    "--env KEY without '=' takes the value from your current environment, which keeps it out of your shell history. "
    "Put -- before the server's command when its arguments start with '-'."
)
TOOL_NAMES_SHOWN = 8
LOGIN_TIMEOUT = 300.0
SIGN_IN_NEEDED = "needs sign-in"
"""How a ServerStatus.last_error starts when the server wants an OAuth sign-in (connection.describe_error)."""


class UsageError(Exception):
    """The command line cannot be followed; the message says how to write it."""


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("mcp", help="add, list, test, sign in to, remove or import MCP servers (tool sources)")
    parser.set_defaults(run=lambda _args: _usage(parser))
    actions = parser.add_subparsers(dest="mcp_command", metavar="ACTION")

    adder = actions.add_parser("add", help="add a local (command) or remote (--url) MCP server", usage=ADD_USAGE, epilog=ADD_EPILOG)
    adder.add_argument("name", help="a short name for the server (letters, digits, '_', '.', '-')")
    _add_server_options(adder)
    adder.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    adder.set_defaults(run=run_add)

    lister = actions.add_parser("list", help="show each server, connect to it, and report its state and tools")
    lister.add_argument("--json", action="store_true", help="print JSON instead of text")
    lister.add_argument("--no-connect", action="store_true", help="only read mcp.json; do not start or connect to the servers")
    lister.add_argument("--timeout", type=float, default=20.0, metavar="SECONDS", help="how long to wait for each server (default 20)")
    lister.set_defaults(run=run_list)

    login = actions.add_parser("login", help="sign in to a remote server through the browser (OAuth); the sign-in is kept in the keyring")
    login.add_argument("name")
    login.add_argument("--timeout", type=float, default=LOGIN_TIMEOUT, metavar="SECONDS",
                       help=f"how long to wait for the sign-in in the browser (default {LOGIN_TIMEOUT:g})")
    login.set_defaults(run=run_login)

    remover = actions.add_parser("remove", help="remove a server and delete its secrets from the keyring")
    remover.add_argument("name")
    remover.set_defaults(run=run_remove)

    importer = actions.add_parser("import", help="take the servers of a claude_desktop_config.json, Cursor or VS Code mcp.json")
    importer.add_argument("file")
    importer.add_argument("--replace", action="store_true", help="replace servers that have the same name (default: skip them)")
    importer.set_defaults(run=run_import)

    for action, disabled in (("enable", False), ("disable", True)):
        toggler = actions.add_parser(action, help=f"{action} a server (a disabled server is kept but not started)")
        toggler.add_argument("name")
        toggler.set_defaults(run=lambda args, disabled=disabled: run_toggle(args, disabled))


def _add_server_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--env", action="append", default=[], metavar="KEY=VALUE", help="an environment variable for a local server")
    parser.add_argument("--cwd", metavar="DIR", help="the folder a local server runs in")
    parser.add_argument("--url", help="the URL of a remote server (Streamable HTTP, or SSE with --sse)")
    parser.add_argument("--header", action="append", default=[], metavar="'KEY: VALUE'", help="an HTTP header for a remote server")
    parser.add_argument("--sse", action="store_true", help="use the older SSE transport instead of Streamable HTTP")
    parser.add_argument("--oauth", action="store_true", help="sign in through the browser (OAuth) before connecting")
    parser.add_argument("--replace", action="store_true", help="replace a server of the same name")
    parser.add_argument("--disabled", action="store_true", help="add the server switched off")


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_USAGE


def _error(message: str) -> None:
    print(f"error: {message}", file=sys.stderr)


def _failure(exc: Exception) -> int:
    """Says what went wrong; a bad, unknown or taken name is a usage error, anything else a failure."""
    from desktop_copilot.core.mcp.config_file import McpNameError

    _error(str(exc))
    return EXIT_USAGE if isinstance(exc, McpNameError) else EXIT_FAILED


def _config_file() -> McpConfigFile:
    from desktop_copilot.core.mcp.config_file import McpConfigFile

    return McpConfigFile.for_app()


# --- add ---------------------------------------------------------------------------------------------------------


class _AddOptionsParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message}.\nUsage: {ADD_USAGE}\nPut -- before the server's command when its arguments start with '-'.")


def _add_options(args: argparse.Namespace) -> argparse.Namespace:
    """The options given before NAME (parsed by argparse) merged with those after it (and the command after --)."""
    inner = _AddOptionsParser(prog="desktop-copilot mcp add", add_help=False)
    _add_server_options(inner)
    inner.add_argument("--debug", action="store_true")
    inner.add_argument("command", nargs=argparse.REMAINDER)
    after = inner.parse_args(args.rest)
    command = after.command[1:] if after.command[:1] == ["--"] else after.command
    return argparse.Namespace(
        name=args.name,
        env=[*args.env, *after.env],
        header=[*args.header, *after.header],
        cwd=after.cwd or args.cwd,
        url=after.url or args.url,
        sse=args.sse or after.sse,
        oauth=args.oauth or after.oauth,
        replace=args.replace or after.replace,
        disabled=args.disabled or after.disabled,
        command=command,
    )


def parse_env(items: list[str]) -> dict[str, str]:
    env = {}
    for item in items:
        key, equals, value = item.partition("=")
        if not equals:
            if not key or key not in os.environ:
                raise UsageError(
                    f"--env {key!r}: write KEY=VALUE (e.g. --env API_TOKEN=abc123), or give only KEY to take its value "
                    "from your current environment, where it is not set now."
                )
            value = os.environ[key]
        if not key:
            raise UsageError("--env needs a name before '=': write KEY=VALUE, e.g. --env API_TOKEN=abc123.")
        env[key] = value
    return env


def parse_headers(items: list[str]) -> dict[str, str]:
    headers = {}
    for item in items:
        key, colon, value = item.partition(":")
        if not colon or not key.strip():
            name = key.strip() if not colon else ""
            raise UsageError(
                f"--header {name!r}: write 'KEY: VALUE' in quotes, e.g. --header 'Authorization: Bearer abc123'."
                if name else "--header needs a name before ':': write 'KEY: VALUE', e.g. --header 'X-Api-Key: abc123'."
            )
        headers[key.strip()] = value.strip()
    return headers


def server_from_options(options: argparse.Namespace) -> McpServerConfig:
    """The config the command line asks for; UsageError when it mixes the two kinds or lacks both."""
    from pydantic import ValidationError

    from desktop_copilot.core.mcp.config_file import McpConfigError, check_secret, check_server_name, describe_validation_error
    from desktop_copilot.core.mcp.server_config import McpServerConfig

    try:
        check_server_name(options.name)
    except McpConfigError as exc:
        raise UsageError(str(exc)) from None
    if options.url and options.command:
        raise UsageError("give either --url URL (a remote server) or -- COMMAND (a local server), not both.")
    if not options.url and not options.command:
        raise UsageError(f"give the server's command after -- or its --url.\nUsage: {ADD_USAGE}")
    if options.url:
        wrong = [flag for flag, given in (("--env", options.env), ("--cwd", options.cwd)) if given]
        data: dict[str, Any] = {"url": options.url, "headers": parse_headers(options.header)}
        if options.sse:
            data["type"] = "sse"
        if options.oauth:
            data["oauth"] = True
    else:
        wrong = [flag for flag, given in (("--header", options.header), ("--sse", options.sse), ("--oauth", options.oauth)) if given]
        data = {"command": options.command[0], "args": options.command[1:], "env": parse_env(options.env)}
        if options.cwd:
            data["cwd"] = _folder(options.cwd)
        elif _names_relative_files(options.command):  # `-- python ./server.py`: run it from here, as the user meant
            data["cwd"] = _folder(".")
    if wrong:
        kind = "a remote server (--url)" if options.url else "a local server (a command)"
        raise UsageError(f"{' and '.join(wrong)} cannot be used with {kind}.")
    if options.disabled:
        data["disabled"] = True
    try:
        for where in ("env", "headers"):
            for key, value in data.get(where, {}).items():
                check_secret(where, key, value)
    except McpConfigError as exc:
        raise UsageError(str(exc)) from None
    try:
        config = McpServerConfig.model_validate(data)
    except ValidationError as exc:
        raise UsageError(describe_validation_error(exc) + ".") from None
    config.name = options.name
    return config


def _names_relative_files(command: list[str]) -> bool:
    """True when the command or an argument is a relative path to a file here (the app starts servers elsewhere)."""
    from pathlib import Path

    return any(not Path(part).is_absolute() and ("/" in part or "\\" in part or "." in part) and Path(part).is_file()
               for part in command)


def _folder(raw: str) -> str:
    """--cwd as an absolute path (the app starts servers from wherever it runs); UsageError when it is no folder."""
    from pathlib import Path

    folder = Path(raw).expanduser().resolve()
    if not folder.is_dir():
        raise UsageError(f"--cwd {raw}: there is no folder {folder}; give the folder the server should run in.")
    return str(folder)


def run_add(args: argparse.Namespace) -> int:
    from desktop_copilot.core.mcp.config_file import McpConfigError

    try:
        options = _add_options(args)
        config = server_from_options(options)
    except UsageError as exc:
        _error(str(exc))
        return EXIT_USAGE
    store = _config_file()
    try:
        saved = store.add(config, replace=options.replace)
    except McpConfigError as exc:
        return _failure(exc)
    print(f"Added the MCP server {saved.name!r} ({saved.kind}: {_shown(saved.where)}) to {store.path}.")
    if saved.cwd and not options.cwd:
        print(f"  It runs in {saved.cwd}, so its relative paths mean what they mean here.")
    for line in _secret_lines(saved):
        print(f"  {line}")
    print("Run `desktop-copilot mcp list` to start it and see its tools.")
    return EXIT_OK


# --- list --------------------------------------------------------------------------------------------------------


def run_list(args: argparse.Namespace) -> int:
    from desktop_copilot.core.mcp.config_file import has_plain_values

    store = _config_file()
    configs = store.load()
    notes = []
    if any(has_plain_values(config) for config in configs):
        notes = _protect_pasted_values(store)
        configs = store.load()
    statuses = {} if args.no_connect else _test_all(store, [c for c in configs if not c.disabled], args.timeout)
    if args.json:
        print(json.dumps(_as_json(store, configs, statuses, notes), indent=2, ensure_ascii=False))
    else:
        _print_list(store, configs, statuses, notes)
    return EXIT_FAILED if store.problem else EXIT_OK


def _protect_pasted_values(store: McpConfigFile) -> list[str]:
    """Moves values pasted into mcp.json by hand into the keyring; notes for the user."""
    from desktop_copilot.core.mcp.config_file import McpConfigError, has_plain_values

    try:
        moved = store.protect_plain_values()
    except McpConfigError as exc:
        plain = [c.name for c in store.load() if has_plain_values(c)]
        return [f"The env/header values of {', '.join(plain)} are in plain text in {store.path.name} and were not moved: {exc}"]
    return [f"Moved the env/header values of {name!r} from {store.path.name} into the keyring." for name in moved]


def _test_all(store: McpConfigFile, configs: list[McpServerConfig], timeout: float) -> dict[str, Any]:
    """Each enabled server's ServerStatus (or the exception that kept it from being tested), connected side by side."""
    import asyncio

    if not configs:
        return {}
    from desktop_copilot.core.mcp.manager import McpManager

    manager = McpManager(store.configs, store.resolve_secret)

    async def test_all() -> list[Any]:
        return await asyncio.gather(*(manager.test(config, timeout) for config in configs), return_exceptions=True)

    try:
        results = asyncio.run(test_all())
    finally:
        manager.stop()
    return {config.name: result for config, result in zip(configs, results, strict=True)}


def _state(config: McpServerConfig, statuses: dict[str, Any]) -> tuple[str, list[Any], str | None]:
    """(state, tools, last error) of one server, as far as it is known."""
    if config.disabled:
        return "disabled", [], None
    status = statuses.get(config.name)
    if status is None:
        return "not tested", [], None
    if isinstance(status, BaseException):
        return "failed", [], _shown(f"{type(status).__name__}: {status}" if str(status) else type(status).__name__)
    error = _shown(status.last_error) if status.last_error else None
    return str(status.state), list(status.tools), error


def _print_list(store: McpConfigFile, configs: list[McpServerConfig], statuses: dict[str, Any], notes: list[str]) -> None:
    for note in notes:
        print(note, file=sys.stderr)
    if store.problem:
        _error(store.problem)
    if not configs and not store.invalid:
        print(f"No MCP servers in {store.path}. Add one with `desktop-copilot mcp add NAME -- COMMAND [ARGS...]` "
              "or `desktop-copilot mcp add NAME --url URL`, or import Claude Desktop's with `desktop-copilot mcp import FILE`.")
        return
    print(f"MCP servers in {store.path}:")
    for config in configs:
        state, tools, error = _state(config, statuses)
        print()
        print(f"{config.name}  {'disabled' if config.disabled else 'enabled'}  {config.kind}  {_shown(config.where)}")
        if config.cwd:
            print(f"  cwd: {config.cwd}")
        for line in _secret_lines(config):
            print(f"  {line}")
        if config.oauth:
            print("  sign-in: OAuth (browser)")
        line = f"  state: {state}"
        if state not in ("disabled", "not tested", "failed") or tools:
            names = [tool.name for tool in tools]
            shown = ", ".join(names[:TOOL_NAMES_SHOWN]) + (", …" if len(names) > TOOL_NAMES_SHOWN else "")
            line += f", {len(tools)} tool{'s' if len(tools) != 1 else ''}" + (f" ({shown})" if names else "")
        print(line)
        if error:
            print(f"  last error: {error}")
        if needs_sign_in(config, statuses):
            print(f"  sign in: desktop-copilot mcp login {config.name}  (opens the browser)")
    for name, reason in store.invalid.items():
        print()
        print(f"{name}  invalid  {reason}")


def _as_json(store: McpConfigFile, configs: list[McpServerConfig], statuses: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    servers = []
    for config in configs:
        state, tools, error = _state(config, statuses)
        servers.append({
            "name": config.name,
            "enabled": not config.disabled,
            "kind": config.kind,
            "where": _shown(config.where),
            "cwd": config.cwd,
            "env": sorted(config.env),
            "headers": sorted(config.headers),
            "oauth": config.oauth,
            "state": state,
            "tool_count": len(tools),
            "tools": [{"name": tool.name, "title": tool.title, "risk": str(tool.risk)} for tool in tools],
            "last_error": error,
            "needs_sign_in": needs_sign_in(config, statuses),
        })
    return {
        "file": str(store.path),
        "problem": store.problem,
        "notes": notes,
        "servers": servers,
        "invalid": [{"name": name, "reason": reason} for name, reason in store.invalid.items()],
    }


def needs_sign_in(config: McpServerConfig, statuses: dict[str, Any]) -> bool:
    status = statuses.get(config.name)
    return (config.kind != "stdio" and status is not None and not isinstance(status, BaseException)
            and status.last_error.startswith(SIGN_IN_NEEDED))


def _secret_lines(config: McpServerConfig) -> list[str]:
    """The env and header KEYS, and where each value is; never a value."""
    from desktop_copilot.core.mcp.server_config import SECRET_REF

    lines = []
    for label, values in (("env", config.env), ("headers", config.headers)):
        if values:
            where = ["(in keyring)" if SECRET_REF.match(v) else "(empty)" if not v else "(in plain text in mcp.json)" for v in values.values()]
            lines.append(f"{label}: " + ", ".join(f"{key} {place}" for key, place in zip(values, where, strict=True)))
    return lines


def _shown(text: str) -> str:
    """Text bound for the terminal with every known secret and key-shaped token masked."""
    from desktop_copilot.core.keys.redaction import redact

    return redact(text)


# --- login -------------------------------------------------------------------------------------------------------


def run_login(args: argparse.Namespace) -> int:
    """Signs in through the browser: the manager's OAuth client opens it, a one-shot server on 127.0.0.1 takes the
    redirect, the tokens go to the keyring, and the server is connected once to show that it works."""
    import asyncio

    from desktop_copilot.core.mcp.config_file import KeyringSecrets, McpConfigError, McpNameError

    store = _config_file()
    configs = {config.name: config for config in store.load()}
    if args.name in store.invalid:
        _error(f"the MCP server {args.name!r} cannot be used ({store.invalid[args.name]}); fix it in {store.path} first.")
        return EXIT_FAILED
    if store.problem and not configs:
        _error(store.problem)
        return EXIT_FAILED
    config = configs.get(args.name)
    if config is None:
        known = ", ".join(configs) or "none"
        return _failure(McpNameError(f"there is no MCP server named {args.name!r} in {store.path} (servers: {known}); "
                                     "`desktop-copilot mcp list` shows them."))
    if config.kind == "stdio":
        _error(f"{args.name!r} is a local server (a command); only remote servers (added with --url) sign in.")
        return EXIT_FAILED
    if args.timeout <= 0:
        _error("--timeout must be a number of seconds above 0.")
        return EXIT_USAGE
    secrets = store.secrets
    if isinstance(secrets, KeyringSecrets) and not (status := secrets.status()).usable:
        _error(f"no keyring to keep the sign-in in ({status.describe()}). Install and unlock a system keyring "
               "(GNOME Keyring, KWallet, macOS Keychain or Windows Credential Manager) and try again.")
        return EXIT_FAILED
    minutes = f"{args.timeout / 60:g} minute{'s' if args.timeout != 60 else ''}" if args.timeout >= 60 else f"{args.timeout:g} s"
    print(f"Signing in to {config.name} ({_shown(config.where)}): opening your browser; waiting up to {minutes} for the sign-in.",
          flush=True)
    try:
        status, opened = asyncio.run(_login(store, config, args.timeout))
    except (McpConfigError, RuntimeError, ValueError) as exc:
        _error(f"could not sign in to {config.name}: {_shown(str(exc))}")
        return EXIT_FAILED
    if str(status.state) != "ready":
        _error(f"could not sign in to {config.name}: {_shown(status.last_error) or status.state}")
        return EXIT_FAILED
    names = [tool.name for tool in status.tools]
    shown = ", ".join(names[:TOOL_NAMES_SHOWN]) + (", …" if len(names) > TOOL_NAMES_SHOWN else "")
    done = "Signed in to" if opened else "Already signed in to"
    print(f"{done} {config.name}: ready, {len(names)} tool{'s' if len(names) != 1 else ''}" + (f" ({shown})." if names else "."))
    print("The sign-in is kept in the system keyring (never in mcp.json); the app renews it by itself.")
    if config.disabled:
        print(f"{config.name} is disabled: `desktop-copilot mcp enable {config.name}` lets the app use it.")
    return EXIT_OK


async def _login(store: McpConfigFile, config: McpServerConfig, timeout: float) -> tuple[Any, bool]:
    """(the ServerStatus after the sign-in, whether a browser was opened)."""
    import asyncio

    from desktop_copilot.core.mcp.manager import McpManager
    from desktop_copilot.core.mcp.oauth import default_open_browser

    opened: list[str] = []

    def open_browser(url: str) -> None:
        opened.append(url)
        print(f"If no browser opens, open this address yourself:\n  {url}", flush=True)
        default_open_browser(url)

    quiet = config.model_copy(update={"disabled": True})  # loaded but not connected in the background: login connects it
    manager = McpManager(lambda: [quiet], store.resolve_secret, open_browser=open_browser)
    try:
        manager.start()
        return await manager.login(config.name, timeout), bool(opened)
    finally:
        await asyncio.to_thread(manager.stop)


# --- remove, import, enable, disable --------------------------------------------------------------------------------


def run_remove(args: argparse.Namespace) -> int:
    from desktop_copilot.core.mcp.config_file import McpConfigError

    store = _config_file()
    try:
        removed = store.remove(args.name)
    except McpConfigError as exc:
        return _failure(exc)
    secrets = f" and deleted its {removed.deleted_secrets} secret(s) from the keyring" if removed.deleted_secrets else ""
    print(f"Removed the MCP server {removed.name!r} from {store.path}{secrets}.")
    if removed.left_in_keyring:
        _error(removed.left_in_keyring)
        return EXIT_FAILED
    return EXIT_OK


def run_import(args: argparse.Namespace) -> int:
    from desktop_copilot.core.mcp.config_file import McpConfigError

    store = _config_file()
    try:
        report = store.import_file(args.file, replace=args.replace)
    except McpConfigError as exc:
        _error(str(exc))
        return EXIT_FAILED
    for title, names in (("Added", report.added), ("Replaced", report.replaced)):
        if names:
            print(f"{title} {len(names)} MCP server(s) from {report.source}: {', '.join(names)}.")
    if report.skipped:
        print(f"Skipped {', '.join(report.skipped)}: a server of that name exists already (import with --replace to overwrite).")
    for name, reason in report.invalid:
        _error(f"{name!r} was not imported: {reason}.")
    if not (report.added or report.replaced or report.skipped or report.invalid):
        print(f"{report.source} lists no MCP servers; nothing was imported.")
    if report.added or report.replaced:
        print("Run `desktop-copilot mcp list` to start them and see their tools.")
    return EXIT_FAILED if report.invalid else EXIT_OK


def run_toggle(args: argparse.Namespace, disabled: bool) -> int:
    from desktop_copilot.core.mcp.config_file import McpConfigError

    store = _config_file()
    try:
        store.set_disabled(args.name, disabled)
    except McpConfigError as exc:
        return _failure(exc)
    print(f"{'Disabled' if disabled else 'Enabled'} the MCP server {args.name!r}.")
    return EXIT_OK
