"""httpx's command-line tool left unloaded until it is used: httpx 0.28's package imports it (`httpx._main`: click, rich
and pygments, ~35 ms of CPU and a few MB) only to offer `httpx.main`, which the app never calls (httpx2, its successor,
loads it when asked for). In a command's process (app/cli.py) a stand-in takes its place before httpx is first imported;
the stand-in's `main`, or any other name read from it, loads the real tool."""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

TOOL = "httpx._main"


class _StandIn(types.ModuleType):
    """Where httpx's package looks for its tool; a name read from it other than `main` comes from the real tool (but for
    the module attributes the import system looks for, such as `__path__`)."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(_real_tool(), name)


def leave_httpx_cli_unloaded() -> None:
    """Put the stand-in in place, unless httpx (or its tool) is imported already."""
    if "httpx" in sys.modules or TOOL in sys.modules:
        return
    stand_in = _StandIn(TOOL, __doc__)
    stand_in.main = _main
    sys.modules[TOOL] = stand_in


def _main(*args: Any, **kwargs: Any) -> Any:
    """`httpx.main`: the real tool's, loaded now."""
    return _real_tool().main(*args, **kwargs)


def _real_tool() -> types.ModuleType:
    """The real `httpx._main`, imported in the stand-in's place at first use."""
    module = sys.modules.get(TOOL)
    if isinstance(module, _StandIn):
        del sys.modules[TOOL]
        module = importlib.import_module(TOOL)
    return module
