"""The keys the app knows, from the provider table: each provider's and each built-in tool's, with the variable it is
read from, what it is called and where to get one."""

from __future__ import annotations

from dataclasses import dataclass

from desktop_copilot.core.provider_table import DEFAULT_PROVIDER, PROVIDERS, TOOL_KEYS


@dataclass(frozen=True, slots=True)
class KeySpec:
    """A key the app knows: its short name, the environment variable and what it is for."""

    name: str
    env_var: str
    label: str
    url: str


_PROVIDER_KEYS = {spec.key_name: KeySpec(spec.key_name, spec.key_env, spec.key_label, spec.key_url) for spec in PROVIDERS.values()}
KNOWN_KEYS: dict[str, KeySpec] = {
    DEFAULT_PROVIDER: _PROVIDER_KEYS.pop(DEFAULT_PROVIDER),
    **{key.name: KeySpec(key.name, key.key_env, key.label, key.url) for key in TOOL_KEYS.values()},
    **_PROVIDER_KEYS,
}
"""Every key the app knows by name, from the provider table, in the order `keys list` shows them: the default
provider's, the built-in tools', then the other providers'. An endpoint the user adds has its key under its own id."""


def key_label(name: str) -> str:
    """A key's name for people ("Anthropic API key"); an added endpoint's is its id quoted."""
    spec = KNOWN_KEYS.get(name)
    return spec.label if spec else f"{name!r} key"
