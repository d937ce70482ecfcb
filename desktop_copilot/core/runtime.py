"""The composition of the core for one process: paths, configuration, keys, provider and tools."""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop_copilot.core.config import AppConfig
from desktop_copilot.core.paths import AppPaths
from desktop_copilot.core.secrets import KNOWN_KEYS, EnvironmentKeys, KeyLookup
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

    def provider(self) -> AnthropicProvider:
        from desktop_copilot.core.providers.anthropic_provider import AnthropicProvider

        found = self.keys.get("anthropic")
        if found is None:
            raise MissingKeyError(missing_key_message("anthropic"))
        wanted = (found.secret, self.config.anthropic_base_url)
        if self._provider is None or self._provider_for != wanted:
            self._retired_providers.extend([self._provider] if self._provider else [])
            self._provider = AnthropicProvider(*wanted)
            self._provider_for = wanted
        return self._provider

    def enabled_tools(self) -> list[Tool]:
        return self.registry.enabled_for(self.keys, self.switched_off_tools)

    def tool_context(self, tools: list[Tool]) -> ToolContext:
        import httpx

        if self._http is None:
            self._http = httpx.AsyncClient(timeout=httpx.Timeout(30.0, connect=10.0))
        needed = {name for tool in tools for name in tool.required_keys}
        keys = {name: found.secret for name in needed if (found := self.keys.get(name)) is not None}
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
