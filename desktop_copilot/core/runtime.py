"""The composition of the core for one process: paths, configuration, keys, provider and tools."""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path
from dataclasses import dataclass
from typing import TYPE_CHECKING

from desktop_copilot.core.keys.blocking import in_keyring_thread
from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.config.settings_events import SettingsEvents
from desktop_copilot.core.providers.base import Provider
from desktop_copilot.core.profiles.profile import ModelFacts, ModelProfile, ToolProtocol
from desktop_copilot.core.profiles.stored import facts_key, stored_profile
from desktop_copilot.core.provider_table import PROVIDERS, ProviderSpec, base_url, custom_spec, provider_spec
from desktop_copilot.core.providers.factory import create_provider, default_deadlines
from desktop_copilot.core.keys.secrets import EnvironmentKeys, FoundKey, KeyLookup, Secret
from desktop_copilot.core.keys.known_keys import KNOWN_KEYS
from desktop_copilot.core.approval.decisions import Approver, deny_without_terminal
from desktop_copilot.core.approval.grants import GrantStore
from desktop_copilot.core.approval.hook import ApprovalHook
from desktop_copilot.core.config.app_config import DEFAULT_TOOL_RESULT_LIMIT
from desktop_copilot.core.storage.file_snapshots import SnapshotRecorder
from desktop_copilot.core.tools.base import Tool, ToolContext, ToolRegistry, not_switched_on
from desktop_copilot.core.tools.hooks import LoggingHook, ResultCapHook, ToolHook, plugin_hooks
from desktop_copilot.core.words import label_text, tr

if TYPE_CHECKING:
    import httpx

    from desktop_copilot.core.keys.keyring_store import KeyringKeys
    from desktop_copilot.core.keys.presence import KeyPresence
    from desktop_copilot.core.knowledge.access import KnowledgeAccess
    from desktop_copilot.core.knowledge.embedding_pass import EmbeddingNearest
    from desktop_copilot.core.knowledge.embeddings import Embedder
    from desktop_copilot.core.knowledge.library import KnowledgeLibrary
    from desktop_copilot.core.knowledge.search import NearestPassages
    from desktop_copilot.core.mcp.config_file import McpConfigFile
    from desktop_copilot.core.mcp.manager import McpManager
    from desktop_copilot.core.config.settings import Settings, SettingsFile


log = logging.getLogger(__name__)

PROBE_TIMEOUT = 3.0
"""Seconds a local server has to list its models when asked whether it runs."""


class MissingKeyError(Exception):
    """A required API key is not configured; the message says how to set one."""


class MissingModelError(MissingKeyError):
    """Like a missing key, something only the user can supply: no model is named and the local server lists none."""


def missing_key_message(name: str) -> str:
    spec = KNOWN_KEYS.get(name)
    if spec is None:  # an endpoint the user added
        return tr("No key is stored for {name!r}. Run `desktop-copilot keys set {name}` or add it in Settings.").format(name=name)
    label = label_text(spec.label)
    return tr("No {label} is configured. Get one at {url}, then run `desktop-copilot keys set {name}` or set the {env_var} "
              "environment variable.").format(label=label, url=spec.url, name=name, env_var=spec.env_var)


@dataclass(frozen=True, slots=True)
class RunResources:
    """What one run of the agent loop needs: the provider, the enabled tools, and the keys and HTTP client they use."""

    provider: Provider
    tools: list[Tool]
    tool_context: ToolContext
    provider_id: str


def _look_up(runtime: Runtime, names: list[str]) -> dict[str, FoundKey]:
    """Runs on the keyring thread: where to read them (`Runtime.lookup_for`, which may ask D-Bus), then each key asked
    for once."""
    keys = runtime.lookup_for(names)
    return {name: found for name in names if (found := keys.get(name)) is not None}


class ToolsHttpClient:
    """The tools' shared httpx client, made at its first request: httpx (which also loads its command-line tool's
    imports) and a certificate store cost 0.3–0.6 s of CPU that a run calling no web tool never needs."""

    def __init__(self) -> None:
        self._client: httpx.AsyncClient | None = None

    def __getattr__(self, name: str):  # post, get, stream, …: the client's
        if self._client is None:
            import httpx

            self._client = httpx.AsyncClient(timeout=httpx.Timeout(30.0, connect=10.0))
        return getattr(self._client, name)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None


KNOWLEDGE_RECHECK_S = 2.0
GEMINI_DIMENSIONS = 768
"""Gemini's recommended shorter embedding length (its own is 3,072)."""


class Runtime:
    def __init__(
        self,
        paths: AppPaths,
        config: AppConfig,
        keys: KeyLookup | None = None,
        registry: ToolRegistry | None = None,
    ) -> None:
        self.paths = paths
        self.config = config
        self.keys = keys or KeyLookup([EnvironmentKeys()])
        self._registry = registry
        self.switched_off_tools: set[str] = set()
        """The tools switched off in Settings (`Settings.disabled_tools`); `switched_off()` adds those off by default."""
        self.warnings: list[str] = []
        """Problems to tell the user about (e.g. no usable keyring), without secrets."""
        self.settings_events = SettingsEvents()
        """Who hears which settings changed (the window: its header and usage), after each replacement of `settings`."""
        self._settings: Settings | None = None
        self.settings_file: SettingsFile | None = None
        self.key_store: KeyringKeys | None = None
        """Set by bootstrap.build_runtime: what the settings dialog edits and where keys are stored."""
        self.key_presence: KeyPresence | None = None
        """Which keys are set, as a child process found at start (`learn_key_presence`): used until the keyring is
        opened in this process."""
        self.environment_first = False
        """A lookup whose every key the environment holds reads them there without opening the keyring (`ask`: the
        command's environment is what the user set for it; a key the environment lacks is read keyring-first)."""
        self.grants = GrantStore(None)
        """Standing tool permissions; bootstrap points it at permissions.json."""
        self.mcp_config: McpConfigFile | None = None
        self.mcp: McpManager | None = None
        """The MCP servers (set by bootstrap.start_mcp; their tools join the registry while they are ready)."""
        self._plugin_hooks: list[ToolHook] | None = None
        self._http: ToolsHttpClient | None = None
        self._knowledge: KnowledgeLibrary | None = None
        self._knowledge_seen: tuple[float, bool] = (-1e9, False)
        self._nearest: tuple[tuple, EmbeddingNearest] | None = None
        """(what it was made for: the embedding model and its key, the nearest-passage side), made again when either changes."""
        self._providers: dict[str, tuple[tuple, Provider]] = {}
        """Provider id -> (what it was built for: key and URL, the provider), rebuilt when either changes."""
        self._retired_providers: list[Provider] = []

    @property
    def registry(self) -> ToolRegistry:
        """Every tool: the built-ins (their modules imported at first use, after the window shows) and the MCP servers'."""
        if self._registry is None:
            from desktop_copilot.core.tools.builtin import builtin_registry

            self._registry = builtin_registry()
        return self._registry

    def providers(self) -> dict[str, ProviderSpec]:
        """Every provider by id: the built-in ones, then the endpoints the user added in Settings."""
        custom = self.settings.custom_providers if self.settings is not None else []
        added = {c.id: custom_spec(c.id, c.label, c.base_url, c.default_model, needs_key=c.needs_key, headers=c.headers,
                                   local=PROVIDERS[c.id].local if c.id in PROVIDERS else False)
                 for c in custom}  # an endpoint the user added under a built-in id (LM Studio before it was one) stays theirs
        return {**PROVIDERS, **added}

    def spec(self, provider_id: str) -> ProviderSpec:
        """The provider `provider_id` (UnknownProviderError, naming the known ones, when there is none)."""
        found = self.providers().get(provider_id.strip().lower())
        return found if found is not None else provider_spec(provider_id)

    def provider_id(self, conversation_provider: str | None = None) -> str:
        """The provider a conversation talks to: its own, else the configured default."""
        return self.spec(conversation_provider or self.config.provider).id

    def base_url(self, spec: ProviderSpec) -> str:
        """The environment's <ID>_BASE_URL, else the one set in Settings, else the public endpoint."""
        configured = self.settings.base_urls.get(spec.id) if self.settings is not None else None
        if spec.id == "anthropic":
            configured = self.config.anthropic_base_url or configured
        return base_url(spec, os.environ, configured)

    async def list_models(self, provider_id: str) -> list[str]:
        """The model ids `provider_id` offers (its key read on the keyring thread; raises the client's errors)."""
        spec = self.spec(provider_id)
        found = await self.find_keys([spec.key_name] if spec.key_name else [])
        key = found.get(spec.key_name) if spec.key_name else None
        if spec.needs_key and key is None:
            raise MissingKeyError(missing_key_message(spec.key_name))
        return await self._provider_with(spec, key.secret if key else None).list_models()

    def profile(self, provider_id: str, model: str) -> ModelProfile:
        """What `model` at `provider_id` can do, each figure with its source: the user's override in Settings ▸ Model profiles,
        the tool protocol its server showed, what the provider reported (both kept in settings.json), the shipped table,
        else a guess."""
        settings = self.settings
        if settings is None:
            return stored_profile(self.spec(provider_id), model, {}, {})
        return stored_profile(self.spec(provider_id), model, settings.model_overrides, settings.model_facts,
                              settings.learned_tools)

    def remember_tool_protocol(self, provider_id: str, model: str, protocol: ToolProtocol) -> None:
        """A model showed which tool protocol it takes (a server refused native tools): kept in settings.json under its
        own key (a refresh of the model list replaces what the provider reported, not this), written over the file as
        it is now (another process may have saved since this one read it), so the next run (another `ask` too) sends
        its tools that way at once."""
        if self.settings is None:
            return
        key = facts_key(provider_id, model)
        self.settings = self.settings.model_copy(update={"learned_tools": {**self.settings.learned_tools, key: protocol}})
        file = self.settings_file
        if file is None:
            return
        try:
            saved = file.load()
            if file.problem:  # build_runtime warned about the file; it is not overwritten
                return
            saved.learned_tools = {**saved.learned_tools, key: protocol}
            file.save(saved)
        except Exception:  # noqa: BLE001 - kept for this process; the next one learns it again
            log.warning("could not keep what %s/%s showed about its tools", provider_id, model, exc_info=True)

    async def running_models(self, provider_id: str, timeout: float = PROBE_TIMEOUT) -> list[str] | None:
        """The models a (local) provider lists within `timeout` seconds, None when it does not: one quiet probe,
        never an error, nothing logged above INFO (Settings ▸ Providers and the welcome show local servers running)."""
        try:
            return await asyncio.wait_for(self.list_models(provider_id), timeout)
        except Exception:  # noqa: BLE001 - not running, not reachable, or refusing: all mean "not ready"
            return None

    async def is_running(self, provider_id: str, timeout: float = PROBE_TIMEOUT) -> bool:
        """Whether a (local) provider answers its model list within `timeout` seconds."""
        return await self.running_models(provider_id, timeout) is not None

    async def first_model(self, provider_id: str) -> str | None:
        """The model a local server offers first (the one it has loaded, for LM Studio and llama.cpp), for a
        conversation that names none; None when the server lists none or cannot be asked."""
        models = await self.running_models(provider_id)
        return models[0] if models else None

    async def prepare_run(self, provider_id: str | None = None, offered: set[str] | frozenset[str] | None = None,
                          knowledge_sources: frozenset[str] | None = None) -> RunResources:
        """The provider and the enabled tools for one run, with every key it needs read in one hop to the
        keyring thread (a locked keyring may prompt and block). Keys are read again for every run, so a key
        set or deleted elsewhere counts at the next send. MissingKeyError without the provider's key.
        `offered`: the names of the only tools to offer (a conversation's assistant chose them); None offers
        those switched on in Settings. `knowledge_sources`: the only knowledge sources search_knowledge searches (an
        assistant's own); None: every switched-on source."""
        spec = self.spec(self.provider_id(provider_id))
        switched_off = (self.switched_off() if offered is None  # a conversation's own set, but never a tool still off
                        else {t.name for t in self.registry.all() if t.name not in offered} | self.not_switched_on())
        tool_keys = {name for tool in self._switched_on_tools(switched_off) for name in tool.required_keys}
        names = sorted(tool_keys | ({spec.key_name} if spec.key_name else set()))
        found = await self.find_keys(names)
        key = found.get(spec.key_name) if spec.key_name else None
        if spec.needs_key and key is None:
            raise MissingKeyError(missing_key_message(spec.key_name))
        knowledge = self.has_knowledge()
        tools = self.registry.enabled_for(KeyLookup([found]), switched_off, workspace=self.workspace(),  # a dict is a KeySource
                                          knowledge=knowledge)
        provider = self._provider_with(spec, key.secret if key else None)
        context = self._tool_context(tools, found)
        if any(tool.needs_knowledge for tool in tools):
            context.knowledge = await self.knowledge_access(knowledge_sources)
        return RunResources(provider, tools, context, spec.id)

    def switched_off(self) -> set[str]:
        """The tools not offered: those switched off in Settings (`switched_off_tools`), and those off until switched
        on (`Tool.enabled_by_default` False: the shell) that are not in `Settings.enabled_tools`."""
        return self.switched_off_tools | self.not_switched_on()

    def not_switched_on(self) -> set[str]:
        """The tools off until switched on (`Tool.enabled_by_default` False: the shell) that Settings has not switched on."""
        return not_switched_on(self.registry.all(), self.settings.enabled_tools if self.settings is not None else set())

    def _switched_on_tools(self, switched_off: set[str]) -> list[Tool]:
        return [tool for tool in self.registry.all() if tool.name not in switched_off]

    def _provider_with(self, spec: ProviderSpec, key: Secret | None) -> Provider:
        """The provider for `spec` with `key`, made anew only when the key or the base URL changed."""
        deadlines = default_deadlines(spec)
        if self.settings is not None:
            deadlines = self.settings.stream_deadlines(deadlines)
        wanted = (key, self.base_url(spec), deadlines)
        held = self._providers.get(spec.id)
        if held is not None and held[0] == wanted:
            return held[1]
        if held is not None:
            self._retired_providers.append(held[1])
        provider = create_provider(spec, *wanted, learned=lambda model, protocol: self.remember_tool_protocol(spec.id, model, protocol))
        self._providers[spec.id] = (wanted, provider)
        return provider

    def _tools_http(self) -> ToolsHttpClient:
        if self._http is None:
            self._http = ToolsHttpClient()
        return self._http

    def _tool_context(self, tools: list[Tool], found: dict[str, FoundKey]) -> ToolContext:
        self._tools_http()
        needed = {name for tool in tools for name in tool.required_keys}
        keys = {name: found[name].secret for name in needed if name in found}
        endpoints = {"tavily": self.config.tavily_base_url} if self.config.tavily_base_url else {}
        return ToolContext(keys=keys, http=self._http, endpoints=endpoints, workspace=self.workspace(),
                           snapshots=SnapshotRecorder(self.paths.database))

    def workspace(self) -> Path | None:
        """The folder the workspace file tools may reach, when one is chosen in Settings and still exists."""
        folder = self.settings.workspace_folder if self.settings is not None else None
        if not folder:
            return None
        path = Path(folder).expanduser()
        return path if path.is_dir() else None

    async def learn_key_presence(self) -> KeyPresence | None:
        """Which keys are set and whether the keyring is usable, asked of a short-lived child process so this one does
        not load the keyring libraries (~12 MB) before a key is needed. None when the keyring is already open here,
        is not the machine's own (tests give one), or the child could not say."""
        store = self.key_store
        if store is None or store.loaded or not store.system_default:
            return None
        from desktop_copilot.core.keys.presence import presence_in_child

        names = sorted({spec.key_name for spec in self.providers().values() if spec.key_name})
        self.key_presence = await in_keyring_thread(presence_in_child, names)  # a daemon thread: quitting never waits
        if self.key_presence is not None and self.key_presence.status.usable and store.names is not None:
            store.names.learn(self.key_presence.in_keyring, self.key_presence.asked)  # keys another program put there too
        return self.key_presence

    @property
    def settings(self) -> Settings | None:
        """The settings in effect; replaced as a whole (never changed in place), and each replacement tells
        `settings_events` which fields differ."""
        return self._settings

    @settings.setter
    def settings(self, settings: Settings | None) -> None:
        before, self._settings = self._settings, settings
        if settings is not None:
            self.settings_events.emit(before, settings)

    def lookup_for(self, names: list[str]) -> KeyLookup:
        """Where to read the keys `names`: while the keyring is not open in this process and the child process found
        none of them in it (each only in the environment, or nowhere), they are read without opening it (keyring,
        secretstorage and cryptography cost ~10 MB), as keys_present trusts the child; otherwise in the usual order.
        With `environment_first`, a lookup the environment fully answers goes without the keyring too, and so does one
        whose names the keyring is known not to hold without opening it (`KeyringKeys.holds_none`: the record of its
        names, or the Secret Service searched directly). Blocking (D-Bus, and the reads): on the keyring thread."""
        store, presence = self.key_store, self.key_presence
        if store is not None and not store.loaded and (
                (self.environment_first and all(EnvironmentKeys().get(name) is not None for name in names)) or (
                presence is not None and set(names) <= presence.asked and not set(names) & presence.in_keyring) or
                store.holds_none(names)):
            return KeyLookup([source for source in self.keys.sources if source is not store])
        return self.keys

    async def find_keys(self, names: list[str]) -> dict[str, FoundKey]:
        """The keys found for `names`, read on the keyring thread (see lookup_for)."""
        return await in_keyring_thread(_look_up, self, names)

    async def keys_present(self, names: list[str]) -> dict[str, bool]:
        """Whether each key is set: from what the child process found while the keyring is not open in this process
        (keys set this session counted), else read on the keyring thread."""
        store, presence = self.key_store, self.key_presence
        if store is not None and not store.loaded and presence is not None and set(names) <= presence.asked:
            return {name: name in presence.present or store.session.get(name) is not None for name in names}
        found = await self.find_keys(names)
        return {name: name in found for name in names}

    def knowledge_library(self) -> KnowledgeLibrary:
        """The knowledge database (opened, and made if need be, at first use)."""
        if self._knowledge is None:
            from desktop_copilot.core.knowledge.library import KnowledgeLibrary

            self._knowledge = KnowledgeLibrary.in_folder(self.paths.data_dir)
        return self._knowledge

    def has_knowledge(self, *, fresh: bool = False) -> bool:
        """Whether a knowledge source is switched on (search_knowledge is offered then). Read at most every few
        seconds, and never makes the database: no file, no source."""
        import time

        checked, answer = self._knowledge_seen
        if not fresh and time.monotonic() - checked < KNOWLEDGE_RECHECK_S:
            return answer
        answer = self.paths.knowledge_database.exists() and self.knowledge_library().has_enabled_sources()
        self._knowledge_seen = (time.monotonic(), answer)
        return answer

    async def knowledge_access(self, own_sources: frozenset[str] | None = None) -> KnowledgeAccess:
        """What search_knowledge reaches in a run: the library, and the embedding side when a model is configured."""
        from desktop_copilot.core.knowledge.access import KnowledgeAccess

        return KnowledgeAccess(self.knowledge_library(), await self.knowledge_embeddings(), own_sources)

    async def knowledge_embeddings(self) -> NearestPassages | None:
        """The nearest-passage side of a knowledge search (None: no embedding model configured, or its key is not
        set). Made again when Settings ▸ Knowledge changes the model or the key changes."""
        made = await self._knowledge_embedder(self._tools_http())
        if made is None:
            return None
        embedder, key = made
        from desktop_copilot.core.knowledge.embedding_pass import EmbeddingNearest, vectors_folder

        wanted = (embedder.model, key)
        if self._nearest is None or self._nearest[0] != wanted:
            if self._nearest is not None:
                self._nearest[1].close()
            self._nearest = (wanted, EmbeddingNearest(embedder, vectors_folder(self.paths.data_dir)))
        return self._nearest[1]

    async def _knowledge_embedder(self, http) -> tuple[Embedder, Secret | None] | None:
        """The configured embedding model's client over `http`, with its key (None: no model, or its key is not set)."""
        config = self.settings.knowledge_embedding if self.settings is not None else None
        if config is None:
            return None
        from desktop_copilot.core.knowledge.embeddings import Embedder, EmbeddingModel

        dimensions = GEMINI_DIMENSIONS if config.wire == "gemini" else None  # 3,072 by default: 1.2 GB per 100k passages
        model = EmbeddingModel(config.wire, config.model, config.base_url, config.key_name, dimensions)
        key = None
        if config.key_name:
            found = await self.find_keys([config.key_name])
            if config.key_name not in found:
                log.info("knowledge: no %s key, so searches use words only", config.key_name)
                return None
            key = found[config.key_name].secret
        return Embedder(model, key, http), key

    def embed_knowledge(self, source: str = "") -> str:
        """The embedding pass after indexing (run on the indexing thread; `source` is only for the log): what is not yet
        embedded by the configured model is embedded and the matrix rebuilt. Returns what to tell the user ("" when no
        model is configured); never raises."""
        if self.settings is None or self.settings.knowledge_embedding is None:
            return ""  # no model configured: nothing to import or run
        import asyncio

        from desktop_copilot.core.knowledge.embedding_pass import embed_pending, vectors_folder

        async def run() -> str:
            import httpx

            async with httpx.AsyncClient() as http:
                made = await self._knowledge_embedder(http)
                if made is None:
                    return ""
                embedder = made[0]
                report = await embed_pending(self.knowledge_library(), embedder, vectors_folder(self.paths.data_dir))
                return tr("Embedded {count} passages with {model} ({cached} already embedded).").format(
                    count=f"{report.embedded:,}", model=embedder.model.model, cached=f"{report.cached:,}") if report.embedded else ""

        try:
            return asyncio.run(run())
        except Exception as exc:  # EmbeddingError in words; anything else is logged
            log.warning("knowledge: the embedding pass after %s failed: %s", source or "indexing", exc)
            return tr("Passages were not embedded: {error}. Searches use words only until they are.").format(error=exc)

    def tool_hooks(self, approver: Approver | None, conversation_title: str = "") -> list[ToolHook]:
        """The hooks around every tool call, in order: plugins' (they may change arguments or block), the
        user's approval (last before running, so the user approves what runs), the size cap, the log line."""
        if self._plugin_hooks is None:
            self._plugin_hooks = plugin_hooks()
        limit = self.settings.tool_result_limit if self.settings is not None else DEFAULT_TOOL_RESULT_LIMIT
        return [
            *self._plugin_hooks,
            ApprovalHook(approver or deny_without_terminal(), self.grants, conversation_title),
            ResultCapHook(limit),
            LoggingHook(),
        ]

    async def aclose(self) -> None:
        for provider in [*self._retired_providers, *(held[1] for held in self._providers.values())]:
            await provider.aclose()
        self._providers, self._retired_providers = {}, []
        if self._http is not None:
            await self._http.aclose()
            self._http = None
        if self._nearest is not None:
            self._nearest[1].close()
            self._nearest = None

    def stop_mcp(self) -> None:
        """Stops every MCP server (blocking, a few seconds at most); at exit."""
        if self.mcp is not None:
            self.mcp.stop()

    async def list_model_facts(self, provider_id: str) -> list[ModelFacts]:
        """What `provider_id` reports of each model it offers (context window, limits, capabilities where its list
        says them; just the id where it does not). Its key is read as for `list_models`; raises the client's errors."""
        spec = self.spec(provider_id)
        found = await self.find_keys([spec.key_name] if spec.key_name else [])
        key = found.get(spec.key_name) if spec.key_name else None
        if spec.needs_key and key is None:
            raise MissingKeyError(missing_key_message(spec.key_name))
        provider = self._provider_with(spec, key.secret if key else None)
        if hasattr(provider, "list_model_facts"):
            return await provider.list_model_facts()
        return [ModelFacts(id=model) for model in await provider.list_models()]
