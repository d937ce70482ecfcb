"""`desktop-copilot keys set|list|delete`: manage API keys in the system keyring; values are never printed."""

from __future__ import annotations

import argparse
import json
import sys

from desktop_copilot.core.keys.known_keys import KNOWN_KEYS, KeySpec

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("keys", help="store, list or delete API keys in the system keyring")
    parser.set_defaults(run=lambda _args: _usage(parser))
    actions = parser.add_subparsers(dest="keys_command", metavar="ACTION")
    names = ", ".join(KNOWN_KEYS)

    setter = actions.add_parser("set", help="store a key (typed hidden, or read from standard input)")
    setter.add_argument("name", help=f"which key: {names}")
    setter.set_defaults(run=run_set)

    lister = actions.add_parser("list", help="show which keys are set and where from (never the values)")
    lister.add_argument("--json", action="store_true", help="as JSON: the keyring's state and, per key, whether it is "
                                                            "set and where from (never a value)")
    lister.add_argument("--names", help=argparse.SUPPRESS)  # with --json: more key names (custom providers' ids)
    lister.set_defaults(run=run_list)

    deleter = actions.add_parser("delete", help="remove a key from the keyring")
    deleter.add_argument("name", help=f"which key: {names}")
    deleter.set_defaults(run=run_delete)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_USAGE


def _error(message: str) -> None:
    print(f"error: {message}", file=sys.stderr)


def _custom_names() -> list[str]:
    """Ids of the endpoints added in Settings that take a key (stored under their id)."""
    from desktop_copilot.core.config.paths import AppPaths
    from desktop_copilot.core.config.settings import SettingsFile

    settings = SettingsFile(AppPaths.resolve().settings_file).load()
    return [c.id for c in settings.custom_providers if c.needs_key and c.id not in KNOWN_KEYS]


def _known_name(raw: str) -> str | None:
    name = raw.strip().lower()
    custom = _custom_names()
    if name in KNOWN_KEYS or name in custom:
        return name
    _error(f"unknown key name {raw!r}; known names: {', '.join([*KNOWN_KEYS, *custom])}")
    return None


def _store():
    from desktop_copilot.core.config.paths import AppPaths
    from desktop_copilot.core.keys.keyring_store import KeyringKeys
    from desktop_copilot.core.keys.saved_names import SavedNames

    return KeyringKeys(names=SavedNames(AppPaths.resolve().key_names_file))


def _read_value(label: str) -> str:
    if sys.stdin is not None and sys.stdin.isatty():
        import getpass

        return getpass.getpass(f"{label} (input hidden): ")
    return sys.stdin.read() if sys.stdin is not None else ""


def _usable_keyring(raw_name: str, consequence: str):
    """(name, spec, store, status) for a known key name and a usable keyring; None after saying
    what is wrong (`consequence` may name the key's environment variable as {env})."""
    name = _known_name(raw_name)
    if name is None:
        return None
    spec = KNOWN_KEYS.get(name) or KeySpec(name, "no environment variable", f"key for {name!r}", "")
    store = _store()
    status = store.status()
    if not status.usable:
        _error(f"no usable keyring: {status.problem}.\n" + consequence.format(env=spec.env_var))
        return None
    return name, spec, store, status


def run_set(args: argparse.Namespace) -> int:
    from desktop_copilot.core.keys.key_values import KeyValueError
    from desktop_copilot.core.keys.keyring_store import KeyStoreError

    target = _usable_keyring(args.name, "Nothing was stored. Set the {env} environment variable instead, "
                                         "e.g. `export {env}=...` in your shell profile.")
    if target is None:
        return EXIT_USAGE
    name, spec, store, status = target
    try:
        value = _read_value(spec.label)
    except (EOFError, KeyboardInterrupt):
        print(file=sys.stderr)
        _error("no key was entered; nothing was stored.")
        return EXIT_USAGE
    try:
        saved = store.set(name, value)
    except KeyValueError as exc:
        _error(f"{exc} Nothing was stored.")
        return EXIT_USAGE
    except KeyStoreError as exc:
        _error(str(exc))
        return EXIT_FAILED
    if not saved.persisted:  # the keyring failed between the check and the write
        _error(f"{saved.message} Nothing was stored; set {spec.env_var} instead.")
        return EXIT_USAGE
    found = store.get(name)  # read back: some keyrings accept a write and keep nothing
    if found is None:
        _error(f"{status.backend} accepted the {spec.label} but does not return it; it may not be stored.")
        return EXIT_FAILED
    print(f"Stored the {spec.label} ({found.secret.hint}) in {status.backend}.")
    if spec.env_var in _environ():
        print(f"Note: {spec.env_var} is also set; the key in the keyring is used first.")
    return EXIT_OK


def run_list(args: argparse.Namespace) -> int:
    from desktop_copilot.core.keys.keyring_store import standard_lookup

    store = _store()
    status = store.status()
    lookup = standard_lookup(store)
    if getattr(args, "json", False):
        keys = {}
        extra = [n for n in (getattr(args, "names", None) or "").split(",") if n.strip()]
        for name in dict.fromkeys([*KNOWN_KEYS, *(n.strip() for n in extra)]):
            found = lookup.all_found(name)
            keys[name] = {"set": bool(found), "from": found[0].source if found else None}
        print(json.dumps({"keyring": {"usable": status.usable, "backend": status.backend, "problem": status.problem},
                          "keys": keys}, ensure_ascii=False))
        return EXIT_OK
    print(f"Keyring: {status.describe()}")
    width = max(len(name) for name in KNOWN_KEYS)
    for name, spec in KNOWN_KEYS.items():
        found = lookup.all_found(name)
        if not found:
            print(f"{name:<{width}}  not set  (run `desktop-copilot keys set {name}` or set {spec.env_var})")
            continue
        used = found[0]
        line = f"{name:<{width}}  set      from {used.source} {used.secret.hint}"
        others = [f.source for f in found[1:]]
        if others:
            line += f"  (also in {', '.join(others)}, not used)"
        print(line)
    return EXIT_OK


def run_delete(args: argparse.Namespace) -> int:
    from desktop_copilot.core.keys.keyring_store import KeyStoreError

    target = _usable_keyring(args.name, "Nothing was deleted.")
    if target is None:
        return EXIT_USAGE
    name, spec, store, status = target
    try:
        removed = store.delete(name)
    except KeyStoreError as exc:
        _error(str(exc))
        return EXIT_FAILED
    still = f" {spec.env_var} is still set in the environment." if spec.env_var in _environ() else ""
    if not removed:
        _error(f"there is no {spec.label} in {status.backend}.{still}")
        return EXIT_FAILED
    print(f"Deleted the {spec.label} from {status.backend}.{still}")
    return EXIT_OK


def _environ() -> set[str]:
    import os

    return {name for name, value in os.environ.items() if value.strip()}
