"""A cheaper PySide6 import hook. After PySide6 loads, it checks every module imported later for the `__feature__`
switches by reading that module's whole source with `inspect.getsource` (PYSIDE-2029): at start-up that was ~0.1–0.3 s
of CPU and ~11 MB of source lines left in `linecache`. The app never uses `from __feature__ import …`, so the same
question ("does this module use PySide6?") is answered from the module's namespace instead, reading no file."""

from __future__ import annotations

import logging
import sys
from types import ModuleType

log = logging.getLogger(__name__)

FEATURE_MODULE = "PySide6.support.feature"


def uses_pyside(module: ModuleType) -> bool:
    """Whether `module` holds PySide6 modules, classes or functions in its namespace."""
    for value in list(vars(module).values()):
        if isinstance(value, ModuleType):
            if value.__name__.startswith("PySide6"):
                return True
        elif str(getattr(value, "__module__", None) or "").startswith("PySide6"):
            return True
    return False


def install() -> bool:
    """Swaps PySide6's source-reading check for `uses_pyside`; False (and nothing changed) where this PySide6 has none."""
    feature = sys.modules.get(FEATURE_MODULE)
    if feature is None or not callable(getattr(feature, "_mod_uses_pyside", None)):
        log.debug("PySide6 has no %s._mod_uses_pyside; its import check is left as it is", FEATURE_MODULE)
        return False
    feature._mod_uses_pyside = uses_pyside
    forget_sources_read()
    return True


def forget_sources_read() -> None:
    """Drops from `linecache` the source files read before the swap (PySide6's check of the modules imported with and
    after it: enum, argparse, logging, pathlib, …, ~9,000 lines, ~0.8 MB kept for the process's life). Entries of code
    made from a string (`lazycache`) stay; a traceback that needs a file's lines reads them again."""
    import linecache

    for name, entry in list(linecache.cache.items()):
        if len(entry) == 4:  # (size, mtime, lines, fullname): a file read in full
            linecache.cache.pop(name, None)
