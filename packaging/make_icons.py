#!/usr/bin/env python3
"""Regenerates every icon file from resources/icons/desktop-copilot.svg.

    python packaging/make_icons.py          # rewrite the icons
    python packaging/make_icons.py --check  # exit 1 when a generated file is missing or stale

Writes
  resources/icons/desktop-copilot-<N>.png  N = 16 24 32 48 64 128 256 512 (rendered by Qt's QtSvg)
  resources/icons/desktop-copilot.ico      Windows, 16..256 px, each size rendered, not scaled
  resources/icons/desktop-copilot.icns     macOS, 16..1024 px (PNG entries)
  desktop_copilot/assets/                  the runtime copies the app loads (SVG + PNGs),
                                           shipped as package data in the wheel and the bundle

Build-time needs: PySide6 (already a runtime dependency; QtSvg is part of PySide6-Essentials)
and Pillow for .ico/.icns (`pip install pillow`; not a runtime dependency).
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ICONS = ROOT / "resources" / "icons"
SOURCE = ICONS / "desktop-copilot.svg"
ASSETS = ROOT / "desktop_copilot" / "assets"
NAME = "desktop-copilot"
PNG_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
ICNS_SIZES = (16, 32, 64, 128, 256, 512, 1024)


def render(svg: Path, size: int) -> bytes:
    """The SVG rendered to a size x size RGBA PNG by QtSvg (no Qt window is created)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg}: Qt cannot parse this SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.convertToFormat(QImage.Format.Format_ARGB32).save(buffer, "PNG")
    buffer.close()
    return bytes(data.data())


def build(svg: Path = SOURCE) -> dict[Path, bytes]:
    """Every generated file and its content, keyed by path."""
    from PIL import Image

    renders = {size: render(svg, size) for size in sorted(set(PNG_SIZES) | set(ICNS_SIZES))}
    images = {size: Image.open(io.BytesIO(png)).convert("RGBA") for size, png in renders.items()}
    out: dict[Path, bytes] = {}
    for size in PNG_SIZES:
        out[ICONS / f"{NAME}-{size}.png"] = renders[size]

    ico = io.BytesIO()
    largest = images[max(ICO_SIZES)]
    largest.save(ico, "ICO", sizes=[(s, s) for s in ICO_SIZES], append_images=[images[s] for s in ICO_SIZES])
    out[ICONS / f"{NAME}.ico"] = ico.getvalue()

    icns = io.BytesIO()
    images[1024].save(icns, "ICNS", append_images=[images[s] for s in ICNS_SIZES])
    out[ICONS / f"{NAME}.icns"] = icns.getvalue()

    out[ASSETS / f"{NAME}.svg"] = svg.read_bytes()
    for size in PNG_SIZES:
        out[ASSETS / f"{NAME}-{size}.png"] = renders[size]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report missing or stale files")
    args = parser.parse_args(argv)
    files = build()
    stale = [p for p, data in files.items() if not p.is_file() or p.read_bytes() != data]
    if args.check:
        for path in stale:
            print(f"stale: {path.relative_to(ROOT)}")
        return 1 if stale else 0
    ASSETS.mkdir(parents=True, exist_ok=True)
    for path, data in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        print(f"{len(data):>8,}  {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
