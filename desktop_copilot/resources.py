"""Where the app's resource files are: one lookup for a wheel install, a source checkout and a frozen app.

The files the app loads at run time live in the package itself, in `desktop_copilot/assets/`
(generated from `resources/` by `packaging/make_icons.py`):

- installed from a wheel, they are package data next to this module (pyproject.toml's
  `[tool.setuptools.package-data]`);
- in a source checkout (`pip install -e .` or `PYTHONPATH=.`), they are the same folder;
- frozen by PyInstaller, `packaging/desktop-copilot.spec` copies that folder to
  `<sys._MEIPASS>/desktop_copilot/assets`, the same place relative to the bundle's root.

So the lookup is "the `assets` folder beside this module", with `sys._MEIPASS` checked first when
frozen (in a macOS .app it points at Contents/Frameworks, where PyInstaller links the data).

Only paths come from here: no Qt import, so the core and the command line can use it. The window
turns them into a QIcon, e.g.::

    icon = QIcon()
    for path in resources.app_icon():
        icon.addFile(str(path))
    app.setWindowIcon(icon)
"""

from __future__ import annotations

import sys
from pathlib import Path

ICON_NAME = "desktop-copilot"
"""The icon's name in icon themes (hicolor) and the desktop entry's Icon= key."""
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
"""The PNG sizes shipped; `icon_path(size)` picks among them."""


def assets_dir() -> Path:
    """The folder with the runtime resource files (it exists in every supported layout)."""
    frozen_root = getattr(sys, "_MEIPASS", None)
    if getattr(sys, "frozen", False) and frozen_root:
        frozen = Path(frozen_root) / "desktop_copilot" / "assets"
        if frozen.is_dir():
            return frozen
    return Path(__file__).resolve().parent / "assets"


def resource_path(name: str) -> Path:
    """The path of resource file `name` (relative to the assets folder); FileNotFoundError when missing."""
    path = assets_dir() / name
    if not path.is_file():
        raise FileNotFoundError(f"resource {name!r} not found in {assets_dir()}")
    return path


def icon_path(size: int | None = None) -> Path:
    """The app icon: the scalable SVG when `size` is None, else the PNG of the smallest shipped
    size >= `size` (the largest, 512, for anything bigger)."""
    if size is None:
        return resource_path(f"{ICON_NAME}.svg")
    if size <= 0:
        raise ValueError(f"icon size must be positive, not {size}")
    chosen = next((s for s in ICON_SIZES if s >= size), ICON_SIZES[-1])
    return resource_path(f"{ICON_NAME}-{chosen}.png")


def app_icon() -> list[Path]:
    """Every file of the app icon, PNGs smallest first: add each to one QIcon (`QIcon.addFile`) so
    the window manager, taskbar and alt-tab switcher each get a crisp size."""
    return [icon_path(size) for size in ICON_SIZES]
