"""mcp.json in the config folder ({"mcpServers": {NAME: {...}}}, Claude Desktop's shape): loading that never fails,
atomic saving, adding, removing and importing servers, with every `env` and `headers` value kept in the keyring."""

from __future__ import annotations

import json
import logging
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import ValidationError

from desktop_copilot.core.config.atomic_file import write_atomically
from desktop_copilot.core.keys.key_values import HTTP_HEADER_NAME
from desktop_copilot.core.mcp.secret_store import KeyringSecrets, McpConfigError, McpNameError, McpSecrets, SecretStoreError
from desktop_copilot.core.mcp.server_config import SECRET_REF, SERVER_NAME, McpServerConfig, secret_entry, secret_ref
from desktop_copilot.core.keys.secrets import Secret
from desktop_copilot.core.words import tr

if TYPE_CHECKING:

    from desktop_copilot.core.config.paths import AppPaths

log = logging.getLogger(__name__)

SERVERS_KEYS = ("mcpServers", "servers")
"""Claude Desktop, Cursor, Windsurf and this app write "mcpServers"; VS Code writes "servers"."""
SECRET_PLACES: tuple[Literal["env", "headers"], ...] = ("env", "headers")
NAME_RULE = "1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit (e.g. github or my-server.2)"
VARIABLE = re.compile(r"\$\{(?!keyring:)[^}]*\}")
"""A variable other apps expand (VS Code's ${input:…}, ${env:…}); this app does not."""
TRANSPORT_SPELLINGS = {"streamable-http": "http", "streamableHttp": "http", "streamable_http": "http", "streamable": "http"}
MAX_SECRET_BYTES = 2560
"""Windows Credential Manager holds at most 2,560 bytes per entry (UTF-16 there); no secret may be longer anywhere."""


def mcp_json_path(paths: AppPaths) -> Path:
    return paths.mcp_file


def check_server_name(name: str) -> str:
    if not SERVER_NAME.match(name):
        raise McpNameError(tr("{name!r} cannot be a server name: use {name_rule}.").format(name=name, name_rule=NAME_RULE))
    return name


def check_secret(where: str, key: str, value: str) -> None:
    """Refuses a key or value the keyring or the server could not take; the message names the key, never the value."""
    label = "environment variable" if where == "env" else "header"
    if where == "env" and (not key or "=" in key or "\0" in key):
        raise McpConfigError((tr("{key!r} cannot be an environment variable name: it must be non-empty, without '=' (e.g. API_TOKEN).")
                              .format(key=key)))
    if where == "headers" and not HTTP_HEADER_NAME.match(key):
        raise McpConfigError((tr("{key!r} cannot be a header name: use letters, digits and '-' (e.g. Authorization or X-Api-Key).")
                              .format(key=key)))
    if "\0" in value or (where == "headers" and ("\r" in value or "\n" in value)):
        raise McpConfigError((tr("the value of the {label} {key} contains a line break or a NUL character; give it on one line.")
                              .format(label=label, key=key)))
    encoding = "utf-16-le" if sys.platform == "win32" else "utf-8"
    try:
        size = len(value.encode(encoding))
    except UnicodeEncodeError:  # a lone surrogate: from a "\ud800" escape, or a command line's undecodable bytes
        raise McpConfigError(tr("the value of the {label} {key} holds a character that is not Unicode text.").format(label=label, key=key)) from None
    if size > MAX_SECRET_BYTES:
        raise McpConfigError((tr("the value of the {label} {key} is {size:,} bytes long; a keyring entry holds at most "
                                 "{max_secret_bytes:,}.")
                              .format(label=label, key=key, size=size, max_secret_bytes=MAX_SECRET_BYTES)))


def referenced_entries(server: str, entry: dict[str, Any] | McpServerConfig) -> set[str]:
    """The keyring entries a server's env and headers point to that belong to it ("mcp/<server>/…")."""
    found = set()
    for where in SECRET_PLACES:
        values = getattr(entry, where) if isinstance(entry, McpServerConfig) else entry.get(where)
        for value in values.values() if isinstance(values, dict) else ():
            match = SECRET_REF.match(value) if isinstance(value, str) else None
            if match and match["name"].startswith(f"mcp/{server}/"):
                found.add(match["name"])
    return found


def has_plain_values(config: McpServerConfig) -> bool:
    return any(value and not SECRET_REF.match(value) for where in SECRET_PLACES for value in getattr(config, where).values())


class _SecretWrites:
    """Secrets stored for one change, with what each entry held before, so a failed save can put them back."""

    def __init__(self, secrets: McpSecrets) -> None:
        self.secrets = secrets
        self._before: list[tuple[str, str | None]] = []

    def protect(self, config: McpServerConfig) -> McpServerConfig:
        """`config` with every plain env and header value moved into the keyring and replaced by its reference."""
        update = {}
        for where in SECRET_PLACES:
            values = dict(getattr(config, where))
            for key, value in values.items():
                check_secret(where, key, value)
                if not value or SECRET_REF.match(value):
                    continue
                entry = secret_entry(config.name, where, key)
                try:
                    before = self.secrets.get(entry)
                except SecretStoreError:  # set() below says why, in the words for storing
                    before = None
                self.secrets.set(entry, value)
                Secret(value)  # registered for redaction
                self._before.append((entry, before))
                values[key] = secret_ref(entry)
            update[where] = values
        return config.model_copy(update=update)

    def undo(self) -> None:
        for entry, before in reversed(self._before):
            try:
                self.secrets.set(entry, before) if before is not None else self.secrets.delete(entry)
            except McpConfigError as exc:
                log.warning("could not restore the MCP secret %s: %s", entry, exc)
        self._before.clear()


# --- the file ------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class ImportReport:
    """What `McpConfigFile.import_file` did with each server of the other app's file."""

    source: Path
    added: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """Names that exist already (import again with replace=True to overwrite them)."""
    invalid: list[tuple[str, str]] = field(default_factory=list)
    """(name, reason) for servers that could not be taken."""


@dataclass(frozen=True, slots=True)
class RemovedServer:
    name: str
    deleted_secrets: int
    left_in_keyring: str | None = None
    """Why some of its secrets could not be deleted (None when all are gone)."""


class McpConfigFile:
    """mcp.json. `load()` never fails: `problem` says what is wrong (at which server, what to do), the good servers load,
    and unknown keys are kept on save. Each change re-reads the file first, so edits made meanwhile are not lost."""

    def __init__(self, path: Path | str, secrets: McpSecrets | None = None) -> None:
        self.path = Path(path)
        self.secrets: McpSecrets = secrets if secrets is not None else KeyringSecrets()
        self.problem: str | None = None
        self.invalid: dict[str, str] = {}
        """Servers that could not be used, with the reason."""
        self._document: dict[str, Any] = {}
        self._servers_key = SERVERS_KEYS[0]
        self._entries: dict[str, dict[str, Any] | McpServerConfig] = {}
        """Every server in file order: a config, or the raw entry of an invalid one (kept as it is)."""
        self._unusable = False

    @classmethod
    def for_app(cls, paths: AppPaths | None = None, secrets: McpSecrets | None = None) -> McpConfigFile:
        from desktop_copilot.core.config.paths import AppPaths

        return cls(mcp_json_path(paths or AppPaths.resolve()), secrets)

    def load(self) -> list[McpServerConfig]:
        """Reads the file; the valid servers (disabled ones too), in file order."""
        self.problem, self.invalid, self._entries, self._unusable = None, {}, {}, False
        self._document, self._servers_key = {}, SERVERS_KEYS[0]
        try:
            document, self._servers_key, servers = read_servers(self.path)
        except FileNotFoundError:
            return []
        except McpConfigError as exc:
            self._unusable = True
            self.problem = (tr("{exc} No MCP servers are used, and the app does not change the file until it is fixed or removed.")
                            .format(exc=exc))
            log.warning("%s", self.problem)
            return []
        self._document = document
        for name, raw in servers.items():
            try:
                self._entries[name] = parse_entry(name, raw)
            except McpConfigError as exc:
                self._entries[name] = raw
                self.invalid[name] = str(exc)
        if self.invalid:
            listed = "; ".join(f"{name!r}: {reason}" for name, reason in self.invalid.items())
            self.problem = (
                (tr("{path}: {invalid} MCP server(s) cannot be used: {listed}. Fix them in the file or remove them with "
                    "`desktop-copilot mcp remove NAME`; the other servers work.")
                 .format(path=self.path, invalid=len(self.invalid), listed=listed))
            )
            log.warning("%s", self.problem)
        return self._configs()

    def configs(self) -> list[McpServerConfig]:
        """The valid servers as the file says now (re-read each time; a manager's `load_configs`)."""
        return self.load()

    def resolve_secret(self, entry: str) -> str | None:
        """The value behind a "${keyring:…}" reference; None when the keyring has no such entry (SecretStoreError
        when there is no usable keyring)."""
        value = self.secrets.get(entry)
        if value:
            Secret(value)  # registered, so that no log line or shown error can carry it
        return value

    def save(self) -> None:
        """Writes the servers as they are held now, atomically; refuses to overwrite a file that could not be read."""
        if self._unusable:
            raise McpConfigError(tr("{problem} Nothing was changed.").format(problem=self.problem))
        servers = {
            name: entry.model_dump(mode="json", by_alias=True, exclude_defaults=True) if isinstance(entry, McpServerConfig) else entry
            for name, entry in self._entries.items()
        }
        document = dict(self._document)
        document[self._servers_key] = servers
        try:
            write_atomically(self.path, json.dumps(document, indent=2, ensure_ascii=False) + "\n", private=True)
        except OSError as exc:
            raise McpConfigError((tr("{path} could not be written ({strerror}); nothing was changed.")
                                  .format(path=self.path, strerror=exc.strerror or exc))) from None

    def add(self, config: McpServerConfig, *, replace: bool = False) -> McpServerConfig:
        """Adds (or with `replace`, replaces) `config` under `config.name`; plain env and header values go to the keyring
        first and the file holds only references. Nothing is written when the keyring refuses. Returns what was saved."""
        check_server_name(config.name)
        self._load_for_change()
        old = self._entries.get(config.name)
        if old is not None and not replace:
            raise McpNameError(
                (tr("there is already an MCP server named {name!r}; remove it first (`desktop-copilot mcp remove {name}`) "
                    "or pick another name.")
                 .format(name=config.name))
            )
        writes = _SecretWrites(self.secrets)
        try:
            saved = writes.protect(config)
            self._entries[config.name] = saved
            self.save()
        except BaseException:
            writes.undo()
            raise
        if old is not None:
            self._forget(config.name, referenced_entries(config.name, old) - referenced_entries(config.name, saved))
        return saved

    def remove(self, name: str) -> RemovedServer:
        """Removes the server from the file, then deletes its keyring entries (its secrets and its OAuth sign-in)."""
        self._load_for_change()
        entry = self._find(name)
        del self._entries[name]
        self.invalid.pop(name, None)
        self.save()
        entries = referenced_entries(name, entry) | self._stored_sign_in(name, entry)
        try:
            deleted = self._forget(name, entries, strict=True)
        except SecretStoreError as exc:
            return RemovedServer(name, 0, str(exc))
        return RemovedServer(name, deleted)

    def set_disabled(self, name: str, disabled: bool) -> McpServerConfig:
        self._load_for_change()
        entry = self._find(name)
        if not isinstance(entry, McpServerConfig):
            raise McpConfigError((tr("the MCP server {name!r} cannot be used ({invalid}); fix it in {path} first.")
                                  .format(name=name, invalid=self.invalid[name], path=self.path)))
        changed = entry.model_copy(update={"disabled": disabled})
        self._entries[name] = changed
        self.save()
        return changed

    def protect_plain_values(self) -> list[str]:
        """Moves env and header values written into the file by hand (a pasted configuration) into the keyring and saves;
        the names of the servers changed. SecretStoreError without a usable keyring (the file is then left as it is)."""
        self._load_for_change()
        writes = _SecretWrites(self.secrets)
        moved = []
        try:
            for name, entry in self._entries.items():
                if isinstance(entry, McpServerConfig) and has_plain_values(entry):
                    self._entries[name] = writes.protect(entry)
                    moved.append(name)
            if moved:
                self.save()
        except BaseException:
            writes.undo()
            raise
        return moved

    def import_file(self, path: Path | str, *, replace: bool = False) -> ImportReport:
        """Takes the servers of another app's file (claude_desktop_config.json, Cursor's or VS Code's mcp.json)."""
        source = Path(path)
        self._load_for_change()
        try:
            _, _, servers = read_servers(source, other_app=True)
        except FileNotFoundError:
            raise McpConfigError((tr("there is no file {source}; give the path of a claude_desktop_config.json or an mcp.json.")
                                  .format(source=source))) from None
        report = ImportReport(source)
        writes = _SecretWrites(self.secrets)
        replaced: dict[str, dict[str, Any] | McpServerConfig] = {}
        try:
            for name, raw in servers.items():
                if name in self._entries and not replace:
                    report.skipped.append(name)
                    continue
                try:
                    config = writes.protect(parse_entry(name, raw, other_app=True))
                except McpConfigError as exc:
                    report.invalid.append((name, str(exc)))
                    continue
                if name in self._entries:
                    replaced[name] = self._entries[name]
                    report.replaced.append(name)
                else:
                    report.added.append(name)
                self._entries[name] = config
                self.invalid.pop(name, None)
            if report.added or report.replaced:
                self.save()
        except BaseException:
            writes.undo()
            raise
        for name, old in replaced.items():
            self._forget(name, referenced_entries(name, old) - referenced_entries(name, self._entries[name]))
        return report

    def _configs(self) -> list[McpServerConfig]:
        return [entry for entry in self._entries.values() if isinstance(entry, McpServerConfig)]

    def _load_for_change(self) -> None:
        self.load()
        if self._unusable:
            raise McpConfigError(tr("{problem} Nothing was changed.").format(problem=self.problem))

    def _find(self, name: str) -> dict[str, Any] | McpServerConfig:
        entry = self._entries.get(name)
        if entry is None:
            known = ", ".join(self._entries) or "none"
            raise McpNameError((tr("there is no MCP server named {name!r} in {path} (servers: {known}); `desktop-copilot mcp list` shows "
                                   "them.")
                                .format(name=name, path=self.path, known=known)))
        return entry

    def _stored_sign_in(self, name: str, entry: dict[str, Any] | McpServerConfig) -> set[str]:
        """The keyring entries of a remote server's OAuth sign-in (tokens, registered client) that exist."""
        from desktop_copilot.core.mcp.oauth import client_entry, tokens_entry

        remote = entry.url if isinstance(entry, McpServerConfig) else any(key in entry for key in ("url", "serverUrl"))
        if not remote:
            return set()
        try:
            return {found for found in (tokens_entry(name), client_entry(name)) if self.secrets.get(found) is not None}
        except SecretStoreError:  # no usable keyring: no sign-in can be kept in it either
            return set()

    def _forget(self, name: str, entries: set[str], *, strict: bool = False) -> int:
        """Deletes keyring entries no longer referenced; failures are logged (or raised when `strict`)."""
        deleted, failures = 0, []
        for entry in sorted(entries):
            try:
                deleted += self.secrets.delete(entry)
            except SecretStoreError as exc:
                failures.append(str(exc))
        if failures:
            message = (tr("the MCP server {name!r} is gone from {file}, but some of its secrets stay in the keyring: "
                          "{failures}")
                       .format(name=name, file=self.path.name, failures=failures[0]))
            log.warning("%s", message)
            if strict:
                raise SecretStoreError(message)
        return deleted


# --- reading and checking entries ---------------------------------------------------------------------------------


def read_servers(path: Path, *, other_app: bool = False) -> tuple[dict[str, Any], str, dict[str, Any]]:
    """(whole document, the servers' key, the servers) of an MCP configuration file; FileNotFoundError when absent,
    McpConfigError saying what is wrong otherwise."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise McpConfigError(tr("{path} cannot be read ({strerror}).").format(path=path, strerror=exc.strerror or exc)) from None
    try:
        document = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise McpConfigError(tr("{path} is not UTF-8 text.").format(path=path)) from None
    except json.JSONDecodeError as exc:
        hint = " Comments and trailing commas are not allowed in JSON." if other_app else ""
        raise McpConfigError((tr("{path} is not valid JSON ({msg} at line {lineno}, column {colno}).{hint}")
                              .format(path=path, msg=exc.msg, lineno=exc.lineno, colno=exc.colno, hint=hint))) from None
    except RecursionError:
        raise McpConfigError(tr("{path} holds JSON nested too deeply to read.").format(path=path)) from None
    try:
        json.dumps(document, ensure_ascii=False).encode("utf-8")  # what save() writes back must be UTF-8
    except UnicodeEncodeError:
        raise McpConfigError((tr("{path} holds an escaped character that is not Unicode text (a lone surrogate such as \\ud800).")
                              .format(path=path))) from None
    if not isinstance(document, dict):
        raise McpConfigError((tr('{path} does not hold a JSON object; it should look like {{"mcpServers": {{"NAME": {{...}}}}}}.')
                              .format(path=path)))
    key = next((key for key in SERVERS_KEYS if key in document), None)
    if key is None:
        if other_app:
            raise McpConfigError(tr('{path} has no "mcpServers" (or "servers") object; is it an MCP configuration file?').format(path=path))
        key = SERVERS_KEYS[0]
    servers = document.get(key, {})
    if not isinstance(servers, dict):
        raise McpConfigError((tr('in {path}, "{key}" is not an object; it should map each server\'s name to its settings.')
                              .format(path=path, key=key)))
    return document, key, servers


def parse_entry(name: str, raw: Any, *, other_app: bool = False) -> McpServerConfig:
    """One server's entry as a config named `name`; McpConfigError with the reasons (never the values)."""
    check_server_name(name)
    if not isinstance(raw, dict):
        raise McpConfigError(tr('its settings are not a JSON object (e.g. {"command": "npx", "args": [...]} or {"url": "https://…"})'))
    data = dict(raw)
    if other_app:
        if "serverUrl" in data and "url" not in data:  # Windsurf
            data["url"] = data.pop("serverUrl")
        if data.get("type") in TRANSPORT_SPELLINGS:
            data["type"] = TRANSPORT_SPELLINGS[data["type"]]
    data.pop("name", None)
    try:
        config = McpServerConfig.model_validate(data)
    except ValidationError as exc:
        raise McpConfigError(describe_validation_error(exc)) from None
    config.name = name
    for where in SECRET_PLACES:
        for key, value in getattr(config, where).items():
            check_secret(where, key, value)
            if VARIABLE.search(value):
                raise McpConfigError(
                    (tr("the {where} value of {key} uses a variable such as ${{input:…}} or ${{env:…}} that this app does not "
                        "expand; add the server with `desktop-copilot mcp add {name} …` giving the real value")
                     .format(where=where, key=key, name=name))
                )
    return config


def describe_validation_error(error: ValidationError) -> str:
    parts = []
    for item in error.errors(include_url=False, include_input=False, include_context=False):
        where = ".".join(str(p) for p in item["loc"])
        message = item["msg"].removeprefix("Value error, ")
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts)
