"""Which providers can answer now: a cloud provider whose key is there, a local model server that lists its models
(the servers asked together, briefly), an endpoint the user added. The window's first-start welcome reads it."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop_copilot.core.runtime import Runtime

QUICK_PROBE = 1.5
"""Seconds a local server has to list its models before it counts as not running (a running one answers in ms)."""


@dataclass(frozen=True, slots=True)
class Readiness:
    keyed: frozenset[str] = frozenset()
    """Providers whose key is stored or in the environment."""
    running: dict[str, list[str]] = field(default_factory=dict)
    """Local servers that listed their models: id -> the models."""
    added: frozenset[str] = frozenset()
    """Endpoints the user added that can be asked (no key needed, or theirs is there)."""

    @property
    def usable(self) -> bool:
        """Whether any provider can answer without the user setting something up first."""
        return bool(self.keyed or self.running or self.added)


async def local_servers_running(runtime: Runtime, timeout: float = QUICK_PROBE) -> dict[str, list[str]]:
    """The local servers of the table that list their models within `timeout` seconds (all asked at once)."""
    local = [spec.id for spec in runtime.providers().values() if spec.local and not spec.custom]
    listed = await asyncio.gather(*(runtime.running_models(provider_id, timeout) for provider_id in local))
    return {provider_id: models for provider_id, models in zip(local, listed) if models is not None}


async def provider_readiness(runtime: Runtime, timeout: float = QUICK_PROBE) -> Readiness:
    """Which providers can answer: keys read in one hop to the keyring thread, the local servers probed together."""
    specs = list(runtime.providers().values())
    names = [spec.key_name for spec in specs if spec.key_name and (spec.needs_key or spec.custom)]
    keyed = {name for name, present in (await runtime.keys_present(names)).items() if present}
    running = await local_servers_running(runtime, timeout)
    added = {spec.id for spec in specs if spec.custom and (not spec.needs_key or spec.key_name in keyed)}
    cloud = {spec.id for spec in specs if spec.needs_key and not spec.custom and spec.key_name in keyed}
    return Readiness(frozenset(cloud), running, frozenset(added))
