"""The composition of the core for one process: paths, configuration, keys, provider and tools."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from desktop_copilot.core.blocking import in_keyring_thread
from desktop_copilot.core.config import AppConfig
from desktop_copilot.core.paths import AppPaths
from desktop_copilot.core.secrets import KNOWN_KEYS, EnvironmentKeys, FoundKey, KeyLookup, Secret
from desktop_copilot.core.tools.base import Tool, ToolContext, ToolRegistry
from desktop_copilot.core.tools.builtin import builtin_registry

if TYPE_CHECKING:
    import httpx

    from desktop_copilot.core.keyring_store import KeyringKeys
    from desktop_copilot.core.providers.anthropic_provider import AnthropicProvider
    from desktop_copilot.core.settings import Settings, SettingsFile


class MissingKeyError(Exception):
    """A required API key is not configured; the message says how to set one."""


def missing_key_message(name: str) -> str:
    spec = KNOWN_KEYS[name]
    return (
        f"No {spec.label} is configured. Get one at {spec.url}, then run "
        f"`desktop-copilot keys set {name}` or set the {spec.env_var} environment variable."
    )


@dataclass(frozen=True, slots=True)
class RunResources:
    """What one run of the agent loop needs: the provider, the enabled tools, and the keys and HTTP client they use."""

    provider: AnthropicProvider
    tools: list[Tool]
    tool_context: ToolContext


def _look_up(keys: KeyLookup, names: list[str]) -> dict[str, FoundKey]:
    """Runs on the keyring thread: each key asked for once."""
    return {name: found for name in names if (found := keys.get(name)) is not None}


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
        self.registry = registry or builtin_registry()
        self.switched_off_tools: set[str] = set()
        self.warnings: list[str] = []
        """Problems to tell the user about (e.g. no usable keyring), without secrets."""
        self.settings: Settings | None = None
        self.settings_file: SettingsFile | None = None
        self.key_store: KeyringKeys | None = None
        """Set by bootstrap.build_runtime: what the settings dialog edits and where keys are stored."""
        self._http: httpx.AsyncClient | None = None
        self._provider: AnthropicProvider | None = None
        self._provider_for: tuple | None = None
        self._retired_providers: list[AnthropicProvider] = []

    async def prepare_run(self) -> RunResources:
        """The provider and the enabled tools for one run, with every key it needs read in one hop to the
        keyring thread (a locked keyring may prompt and block). Keys are read again for every run, so a key
        set or deleted elsewhere counts at the next send. MissingKeyError without an Anthropic key."""
        names = ["anthropic", *sorted({name for tool in self._switched_on_tools() for name in tool.required_keys})]
        found = await in_keyring_thread(_look_up, self.keys, names)
        anthropic = found.get("anthropic")
        if anthropic is None:
            raise MissingKeyError(missing_key_message("anthropic"))
        tools = self.registry.enabled_for(KeyLookup([found]), self.switched_off_tools)  # a dict is a KeySource
        return RunResources(self._provider_with(anthropic.secret), tools, self._tool_context(tools, found))

    def _switched_on_tools(self) -> list[Tool]:
        return [tool for tool in self.registry.all() if tool.name not in self.switched_off_tools]

    def _provider_with(self, key: Secret) -> AnthropicProvider:
        """The provider for `key`, made anew only when the key or the base URL changed."""
        from desktop_copilot.core.providers.anthropic_provider import AnthropicProvider

        wanted = (key, self.config.anthropic_base_url)
        if self._provider is None or self._provider_for != wanted:
            self._retired_providers.extend([self._provider] if self._provider else [])
            self._provider = AnthropicProvider(*wanted)
            self._provider_for = wanted
        return self._provider

    def _tool_context(self, tools: list[Tool], found: dict[str, FoundKey]) -> ToolContext:
        import httpx

        if self._http is None:
            self._http = httpx.AsyncClient(timeout=httpx.Timeout(30.0, connect=10.0))
        needed = {name for tool in tools for name in tool.required_keys}
        keys = {name: found[name].secret for name in needed if name in found}
        endpoints = {"tavily": self.config.tavily_base_url} if self.config.tavily_base_url else {}
        return ToolContext(keys=keys, http=self._http, endpoints=endpoints)

    async def aclose(self) -> None:
        for provider in [*self._retired_providers, self._provider]:
            if provider is not None:
                await provider.aclose()
        self._provider, self._retired_providers = None, []
        if self._http is not None:
            await self._http.aclose()
            self._http = None
