"""Builds the core for a process (runtime, store) the same way for the window and the command line."""

from __future__ import annotations

from desktop_copilot.core.config import AppConfig
from desktop_copilot.core.paths import AppPaths
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.storage.store import Store


def build_runtime(**overrides) -> Runtime:
    """Paths and configuration from the environment, with command-line overrides applied."""
    paths = AppPaths.resolve().ensure()
    config = AppConfig.from_environment().with_(**overrides)
    return Runtime(paths, config)


def open_store(paths: AppPaths) -> Store:
    return Store(paths.database)
