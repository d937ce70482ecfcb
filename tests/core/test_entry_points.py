"""core/entry_points.scan: importlib.metadata's entry points of one group, found without reading every
distribution's metadata; compared with importlib.metadata (and keyring's backport of it) on this machine's sys.path and
on one made for the test."""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

import pytest

from desktop_copilot.core.entry_points import entry_points, scan


def _entries(found) -> list[tuple[str, str, str]]:
    return [(entry.name, entry.value, entry.group) for entry in found]


def _dist(folder: Path, name: str, entry_points: str | None, metadata: bool = True) -> None:
    info = folder / name
    info.mkdir(parents=True)
    if metadata:
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name.split('-')[0]}\nVersion: 1\n", encoding="utf-8")
    if entry_points is not None:
        (info / "entry_points.txt").write_text(entry_points, encoding="utf-8")


@pytest.mark.parametrize("group", ["keyring.backends", "console_scripts"])
def test_the_scan_finds_what_importlib_metadata_finds_here(group):
    import importlib.metadata

    from keyring.compat.py312 import metadata as keyrings

    for library in (keyrings, importlib.metadata):
        scanned = scan(group, library)
        assert scanned is not None and _entries(scanned) == _entries(library.entry_points(group=group))
    assert _entries(scan(group)) == _entries(importlib.metadata.entry_points(group=group))
    if group == "keyring.backends":
        assert "keyring.backends.SecretService" in [value for _, value, _ in _entries(scan(group))]


def test_the_scan_keeps_importlib_metadatas_order_and_shadowing(tmp_path, monkeypatch):
    from keyring.compat.py312 import metadata

    first, second = tmp_path / "first", tmp_path / "second"
    group = "[keyring.backends]\n"
    _dist(first, "Fake.Shadowed-2.0.dist-info", "[console_scripts]\nx = y\n")  # hides the one below: same name
    _dist(second, "fake_shadowed-1.0.dist-info", group + "hidden = fake_hidden\n")
    _dist(first, "no_metadata-2.0.dist-info", group + "unused = fake_unused\n", metadata=False)  # one with metadata wins
    _dist(second, "No_Metadata-1.0.dist-info", group + "chosen = fake_chosen\n")
    _dist(second, "legacy.egg-info", group + "legacy = fake_legacy:init\n")
    _dist(second, "other-1.0.dist-info", "[keyring.backends]\nb = fake_b\na = fake_a\n")
    monkeypatch.setattr(sys, "path", [str(first), str(tmp_path / "missing"), str(second)])
    scanned = scan("keyring.backends", metadata)
    expected = _entries(metadata.entry_points(group="keyring.backends"))
    assert scanned is not None and _entries(scanned) == expected
    assert {value for _, value, _ in expected} == {"fake_chosen", "fake_legacy:init", "fake_b", "fake_a"}


def test_a_zip_on_sys_path_is_left_to_importlib_metadata(tmp_path, monkeypatch):
    archive = tmp_path / "plugins.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("zipped_plugin-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: zipped-plugin\nVersion: 1\n")
        zipped.writestr("zipped_plugin-1.0.dist-info/entry_points.txt", "[keyring.backends]\nzipped = zipped_backend\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path), str(archive)])
    assert scan("keyring.backends") is None
    assert [entry.value for entry in entry_points("keyring.backends")] == ["zipped_backend"]  # importlib.metadata's


def test_the_groups_looked_up_for_one_sys_path_share_one_reading(tmp_path, monkeypatch):
    import importlib.metadata

    import desktop_copilot.core.entry_points as module

    _dist(tmp_path, "both-1.0.dist-info", "[keyring.backends]\nk = fake_k\n\n[desktop_copilot.tool_hooks]\nh = fake_h\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    opened: list[str] = []
    real_open = open

    def counting_open(file, *args, **kwargs):
        opened.append(str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(module, "open", counting_open, raising=False)  # the scan's own reads of entry_points.txt
    for group in ("keyring.backends", "desktop_copilot.tool_hooks"):
        assert _entries(scan(group)) == _entries(importlib.metadata.entry_points(group=group))
    assert len(opened) == 1
    _dist(tmp_path / "more", "later-1.0.dist-info", "[keyring.backends]\nl = fake_l\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path), str(tmp_path / "more")])  # another sys.path is read afresh
    assert [entry.value for entry in scan("keyring.backends")] == ["fake_k", "fake_l"]
    assert len(opened) == 3
