"""desktop_copilot.resources finds the icon in a checkout/wheel layout and in a frozen bundle, and the
generated icon files are complete and in step with each other."""

from __future__ import annotations

import ast
import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_copilot import resources

ROOT = Path(__file__).resolve().parents[2]
ICONS = ROOT / "resources" / "icons"
ASSETS = ROOT / "desktop_copilot" / "assets"


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    return struct.unpack(">II", data[16:24])


def test_importing_resources_loads_no_qt():
    code = "import sys, desktop_copilot.resources; print([m for m in sys.modules if m.startswith(('PySide6', 'shiboken6'))])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert out.strip() == "[]"


def test_icon_path_picks_the_svg_or_the_nearest_png_not_smaller():
    assert resources.icon_path().name == "desktop-copilot.svg"
    assert resources.icon_path(16).name == "desktop-copilot-16.png"
    assert resources.icon_path(20).name == "desktop-copilot-24.png"
    assert resources.icon_path(256).name == "desktop-copilot-256.png"
    assert resources.icon_path(4096).name == "desktop-copilot-512.png"
    with pytest.raises(ValueError):
        resources.icon_path(0)


def test_app_icon_lists_every_png_smallest_first():
    paths = resources.app_icon()
    assert [png_size(p)[0] for p in paths] == list(resources.ICON_SIZES)
    assert all(p.parent == resources.assets_dir() for p in paths)


def test_missing_resource_is_a_clear_error():
    with pytest.raises(FileNotFoundError, match="nope.png"):
        resources.resource_path("nope.png")


def test_frozen_bundle_layout_uses_meipass(tmp_path, monkeypatch):
    bundled = tmp_path / "desktop_copilot" / "assets"
    bundled.mkdir(parents=True)
    (bundled / "desktop-copilot.svg").write_text("<svg/>")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    assert resources.assets_dir() == bundled
    assert resources.icon_path() == bundled / "desktop-copilot.svg"


def test_runtime_assets_are_copies_of_the_generated_icons():
    for size in resources.ICON_SIZES:
        source = ICONS / f"desktop-copilot-{size}.png"
        assert png_size(source) == (size, size)
        assert (ASSETS / source.name).read_bytes() == source.read_bytes(), f"run packaging/make_icons.py ({source.name})"
    assert (ASSETS / "desktop-copilot.svg").read_bytes() == (ICONS / "desktop-copilot.svg").read_bytes()


def test_windows_ico_and_macos_icns_hold_every_size():
    ico = (ICONS / "desktop-copilot.ico").read_bytes()
    reserved, kind, count = struct.unpack("<HHH", ico[:6])
    assert (reserved, kind) == (0, 1)
    sizes = sorted((ico[6 + 16 * i] or 256) for i in range(count))
    assert sizes == [16, 24, 32, 48, 64, 128, 256]
    icns = (ICONS / "desktop-copilot.icns").read_bytes()
    assert icns[:4] == b"icns" and struct.unpack(">I", icns[4:8])[0] == len(icns)
    for kind in (b"ic07", b"ic08", b"ic09", b"ic10", b"ic11", b"ic12", b"ic13", b"ic14"):
        assert kind in icns, kind


def test_wheel_ships_the_assets():
    text = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^"desktop_copilot\.assets" = \["\*\.svg", "\*\.png"\]$', text, re.M)
    assert (ASSETS / "__init__.py").is_file()


def test_qt_loads_the_icon_files(qapp):
    """QIcon from the paths (what the window does), and the SVG through Qt's svg image-format plugin."""
    pytest.importorskip("PySide6.QtSvg", reason="the icon set is rendered with QtSvg, which this PySide6 build lacks")
    from PySide6.QtGui import QIcon, QImage

    icon = QIcon()
    for path in resources.app_icon():
        icon.addFile(str(path))
    assert not icon.isNull()
    assert {s.width() for s in icon.availableSizes()} >= set(resources.ICON_SIZES)
    svg = QImage(str(resources.icon_path()))
    assert not svg.isNull() and svg.width() > 0


def test_desktop_entry_is_valid():
    entry = (ROOT / "resources" / "linux" / "desktop-copilot.desktop").read_text()
    assert "Exec=desktop-copilot\n" in entry and "Icon=desktop-copilot\n" in entry
    validate = subprocess.run(["which", "desktop-file-validate"], capture_output=True, text=True).stdout.strip()
    if not validate:
        pytest.skip("desktop-file-validate (desktop-file-utils) is not installed")
    result = subprocess.run([validate, str(ROOT / "resources" / "linux" / "desktop-copilot.desktop")],
                            capture_output=True, text=True)
    assert result.returncode == 0 and not result.stdout.strip(), result.stdout + result.stderr


def spec_excluded_files() -> list[tuple[str, str]]:
    tree = ast.parse((ROOT / "packaging" / "desktop-copilot.spec").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "EXCLUDED_FILES":
            return ast.literal_eval(node.value)
    raise AssertionError("EXCLUDED_FILES not found in the spec")


@pytest.mark.parametrize(
    "path",
    [
        "PySide6/Qt/plugins/platforms/libqxcb.so",
        "PySide6/Qt/plugins/platforms/libqwayland.so",
        "PySide6/Qt/plugins/platforms/libqoffscreen.so",
        "PySide6/Qt/plugins/platforms/qwindows.dll",
        "PySide6/Qt/plugins/platforms/libqcocoa.dylib",
        "PySide6/Qt/plugins/imageformats/libqsvg.so",
        "PySide6/Qt/plugins/imageformats/qsvg.dll",
        "PySide6/Qt/plugins/iconengines/libqsvgicon.so",
        "PySide6/Qt/plugins/platforminputcontexts/libibusplatforminputcontextplugin.so",
        "PySide6/Qt/plugins/wayland-shell-integration/libxdg-shell.so",
        "PySide6/Qt/plugins/xcbglintegrations/libqxcb-glx-integration.so",
        "PySide6/Qt/plugins/styles/qmodernwindowsstyle.dll",
        "PySide6/Qt/lib/libQt6Gui.so.6",
        "PySide6/Qt/lib/libQt6Svg.so.6",
        "PySide6/Qt/lib/libQt6XcbQpa.so.6",
        "PySide6/Qt/lib/libQt6DBus.so.6",
        "PySide6/Qt/lib/libQt6WaylandClient.so.6",
        "PySide6/Qt6Widgets.dll",
        "PySide6/plugins/platforms/qwindows.dll",
        "PySide6/plugins/imageformats/qsvg.dll",
        "PySide6/Qt/lib/QtGui.framework/Versions/A/QtGui",
        "PySide6/Qt/plugins/platforms/libqcocoa.dylib",
        "desktop_copilot/assets/desktop-copilot.svg",
        # the tool stack's data files (web_fetch, MCP argument validation)
        "trafilatura/settings.cfg",
        "justext/stoplists/English.txt",
        "tld/res/effective_tld_names.dat.txt",
        "jsonschema_specifications/schemas/draft202012/metaschema.json",
        "babel/global.dat",
        "babel/locale-data/root.dat",
        "babel/locale-data/en.dat",
    ],
)
def test_spec_keeps_what_the_window_needs(path):
    assert not [why for pattern, why in spec_excluded_files() if re.search(pattern, path)], path


@pytest.mark.parametrize(
    "path",
    [
        "PySide6/Qt/translations/qtbase_de.qm",
        "PySide6/Qt/qml/QtQuick/qmldir",
        "PySide6/Qt/lib/libQt6Quick.so.6",
        "PySide6/Qt/lib/libQt6Qml.so.6",
        "PySide6/Qt/lib/libQt6Pdf.so.6",
        "PySide6/Qt/lib/libQt6Network.so.6",
        "PySide6/Qt/plugins/platformthemes/libqgtk3.so",
        "PySide6/Qt/plugins/platforms/libqvnc.so",
        "PySide6/Qt/plugins/tls/libqopensslbackend.so",
        "PySide6/translations/qtbase_fr.qm",
        "PySide6/plugins/platforms/qdirect2d.dll",
        "PySide6/plugins/imageformats/qtiff.dll",
        "PySide6/opengl32sw.dll",
        "PySide6/Qt/lib/QtQuick.framework/Versions/A/QtQuick",
        "babel/locale-data/de.dat",
        "babel/locale-data/en_US.dat",
    ],
)
def test_spec_leaves_out_what_it_does_not_need(path):
    assert [why for pattern, why in spec_excluded_files() if re.search(pattern, path)], path
