"""Tests that read the log file: configure it under DESKTOP_COPILOT_HOME and take it out again afterwards."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from desktop_copilot.core.logs import logging_setup as logs
from desktop_copilot.core.config.paths import AppPaths


def remove_log_handler() -> None:
    root = logging.getLogger()
    for handler in [h for h in root.handlers if isinstance(h, logs._LogFile)]:
        root.removeHandler(handler)
        handler.close()


@contextmanager
def logging_to_profile(level: int | None = None) -> Iterator[Path]:
    """The app's log file for this test's profile; the root and app loggers' levels restored after."""
    root, app = logging.getLogger(), logging.getLogger(logs.APP_LOGGER)
    saved_root, saved_app = root.level, app.level
    remove_log_handler()
    path = logs.configure_logging(AppPaths.resolve(), level)
    assert path is not None
    try:
        yield path
    finally:
        remove_log_handler()
        root.setLevel(saved_root)
        app.setLevel(saved_app)


def read_log(path: Path) -> str:
    for handler in logging.getLogger().handlers:
        handler.flush()
    return path.read_text(encoding="utf-8") if path.exists() else ""
