"""The cheaper PySide6 import check: installed, it answers "uses PySide6?" from a module's namespace, reading no file."""

from __future__ import annotations

import json
import linecache
import sys
import types

from desktop_copilot.qt.common import pyside_import_check
from desktop_copilot.qt.common.pyside_import_check import FEATURE_MODULE, uses_pyside


def test_it_replaces_the_source_reading_check(qapp):
    assert pyside_import_check.install()
    assert sys.modules[FEATURE_MODULE]._mod_uses_pyside is uses_pyside


def test_a_module_holding_pyside6_names_uses_it_and_others_do_not():
    with_class = types.ModuleType("with_class")
    exec("from PySide6.QtCore import QObject", with_class.__dict__)
    with_module = types.ModuleType("with_module")
    exec("import PySide6.QtCore", with_module.__dict__)
    assert uses_pyside(with_class)
    assert uses_pyside(with_module)
    assert not uses_pyside(json)


def test_importing_a_module_afterwards_reads_no_source(qapp, tmp_path, monkeypatch):
    pyside_import_check.install()
    (tmp_path / "fresh_module_for_the_check.py").write_text("from PySide6.QtCore import QTimer\nVALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    linecache.clearcache()
    import fresh_module_for_the_check  # noqa: F401 - imported for the hook's sake

    assert not any(name.endswith("fresh_module_for_the_check.py") for name in linecache.cache)
    assert sys.modules[FEATURE_MODULE].pyside_feature_dict.get("fresh_module_for_the_check") == 0  # seen as a PySide6 user


def test_installing_it_forgets_the_source_files_read_so_far_and_keeps_lazy_entries(qapp, tmp_path):
    read = tmp_path / "read_before_the_swap.py"
    read.write_text("VALUE = 1\n")
    assert linecache.getline(str(read), 1) == "VALUE = 1\n"  # as PySide6's check reads a module's source
    loader = types.SimpleNamespace(get_source=lambda name: "MADE = 2\n")
    assert linecache.lazycache(str(tmp_path / "made_by_a_loader.py"), {"__name__": "made_by_a_loader", "__loader__": loader})
    lazy = {name: entry for name, entry in linecache.cache.items() if len(entry) == 1}
    assert lazy
    assert pyside_import_check.install()
    assert str(read) not in linecache.cache
    assert not any(len(entry) == 4 for entry in linecache.cache.values())
    assert all(linecache.cache.get(name) == entry for name, entry in lazy.items())
    assert linecache.getline(str(read), 1) == "VALUE = 1\n"  # read again when asked
