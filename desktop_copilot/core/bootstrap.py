"""The one place that builds the core for a process (runtime, store), the same way for the window and the
command line, and applies edited settings to a running one."""

from __future__ import annotations

import logging
import sqlite3
from typing import Any

from desktop_copilot.core.approval.grants import GrantStore
from desktop_copilot.core.config.app_config import AppConfig, environment_overrides
from desktop_copilot.core.keys.keyring_backends import KeyringStatus
from desktop_copilot.core.keys.keyring_store import KeyringKeys, standard_lookup
from desktop_copilot.core.keys.saved_names import SavedNames
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.keys.known_keys import KNOWN_KEYS
from desktop_copilot.core.config.settings import Settings, SettingsFile
from desktop_copilot.core.storage.debug_pragmas import debug_pragmas
from desktop_copilot.core.storage.in_memory import unopened
from desktop_copilot.core.storage.store import Store
from desktop_copilot.core.words import tr

log = logging.getLogger(__name__)


def build_runtime(*, check_keyring: bool = True, **overrides: Any) -> Runtime:
    """Configuration from defaults <- settings.json <- environment <- `overrides`; keys from session, keyring, env.

    With check_keyring=False the keyring is not touched until a key is needed (the window shows itself
    first, then calls `keyring_warning`).
    """
    paths = AppPaths.resolve().ensure()
    settings_file = SettingsFile(paths.settings_file)
    settings = settings_file.load()
    key_store = KeyringKeys(names=SavedNames(paths.key_names_file))
    runtime = Runtime(paths, effective_config(settings, **overrides), standard_lookup(key_store))
    runtime.settings, runtime.settings_file, runtime.key_store = settings, settings_file, key_store
    runtime.switched_off_tools = set(settings.disabled_tools)
    runtime.grants = GrantStore(paths.config_dir / PERMISSIONS_FILE)
    for problem in (settings_file.problem, runtime.grants.problem):
        if problem:
            runtime.warnings.append(problem)
    if check_keyring and (problem := keyring_warning(key_store)):
        runtime.warnings.append(problem)
    return runtime


PERMISSIONS_FILE = "permissions.json"


def start_mcp(runtime: Runtime) -> None:
    """Reads mcp.json and starts its servers on their own thread, returning at once; their tools join the
    registry as each server becomes ready. Nothing starts (and the SDK is not imported) without servers."""
    from desktop_copilot.core.mcp.config_file import McpConfigFile, mcp_json_path
    from desktop_copilot.core.mcp.manager import McpManager

    if runtime.mcp is not None:
        return
    config = McpConfigFile(mcp_json_path(runtime.paths))
    runtime.mcp_config = config
    runtime.mcp = McpManager(config.configs, config.resolve_secret)
    runtime.registry.add_provider(runtime.mcp)
    if any(not server.disabled for server in config.configs()):  # sets config.problem when mcp.json is damaged
        runtime.mcp.start()


def effective_config(settings: Settings, environ: dict[str, str] | None = None, **overrides: Any) -> AppConfig:
    """Defaults, then the settings file, then the environment, then command-line overrides (None is ignored)."""
    return AppConfig().with_(**settings.config_overrides()).with_(**environment_overrides(environ)).with_(**overrides)


def apply_settings(runtime: Runtime, settings: Settings, **overrides: Any) -> None:
    """Saves edited settings and makes them effective in `runtime` (the environment and overrides still win)."""
    if runtime.settings_file is None:
        runtime.settings_file = SettingsFile(runtime.paths.settings_file)
    runtime.settings_file.save(settings)
    runtime.config = effective_config(settings, **overrides)
    runtime.switched_off_tools = set(settings.disabled_tools)
    runtime.settings = settings  # last: its listeners see the new settings in effect


def keyring_warning(key_store: KeyringKeys) -> str | None:
    """Words for the user when no keyring is usable (keys then come from the environment only)."""
    return keyring_status_warning(key_store.status())


def keyring_status_warning(status: KeyringStatus) -> str | None:
    """`keyring_warning` for a status learned elsewhere (core/keys/presence.py: in a child process)."""
    if status.usable:
        return None
    env_vars = " / ".join(spec.env_var for spec in KNOWN_KEYS.values())
    return tr("No usable keyring: {problem}. Keys set now are kept for this session only; set {variables} in the "
              "environment instead.").format(problem=status.problem, variables=env_vars)


def open_store(paths: AppPaths, warnings: list[str] | None = None, *, defer_indexing: bool = False) -> Store:
    """The conversation database after an integrity check; a damaged file is kept aside and reported. A disk that
    takes no write opens it all the same (store.health says so); DESKTOP_COPILOT_SQLITE_PRAGMAS can simulate one.
    A file that cannot be opened or created at all (a read-only or full disk, a file where the data folder should
    be, a damaged file that cannot be moved aside) gives a store kept in memory (`store.unopened` says why;
    `store.save_to_disk()` tries the file again). `defer_indexing`: search rows are left for a later store to write
    (Store's own note)."""
    try:
        store, problem = Store.open_checked(paths.database, debug_pragmas(), defer_indexing=defer_indexing)
    except (sqlite3.Error, OSError) as exc:
        log.warning("the conversation database %s cannot be opened (%s); the conversations are kept in memory",
                    paths.database, exc)
        return Store.in_memory(paths.database, unopened(paths.database, exc))
    if problem is not None and warnings is not None:
        warnings.append(str(problem))
    if store.backup_path is not None and warnings is not None:
        warnings.append(tr("The database was upgraded; the previous version was kept at {path}.").format(path=store.backup_path))
    return store


def unsaved_warning(store: Store) -> str | None:
    """For the command line: the database file could not be opened, so nothing of this run is saved."""
    unopened = store.unopened
    if unopened is None:
        return None
    why = {"not_a_folder": tr("{where} is a file, not a folder"), "read_only": tr("{where} is read-only"),
           "full": tr("the disk that holds {where} is full")}.get(unopened.kind)
    why = why.format(where=unopened.where) if why else unopened.detail
    return tr("The conversation database {path} cannot be opened or created ({why}): this conversation is not "
              "saved.").format(path=store.path, why=why)


def make_editable(runtime: Runtime) -> Runtime:
    """Gives a runtime built without `build_runtime` (tests, benchmarks) the key store and settings file
    the settings dialog edits; a runtime from `build_runtime` is returned as it is."""
    if runtime.key_store is None:
        runtime.key_store = KeyringKeys(names=SavedNames(runtime.paths.key_names_file))
        runtime.keys = standard_lookup(runtime.key_store)
    if runtime.settings is None:
        runtime.settings_file = runtime.settings_file or SettingsFile(runtime.paths.settings_file)
        runtime.settings = runtime.settings_file.load()
    return runtime
