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
