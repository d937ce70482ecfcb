"""The interface language: picks English or Simplified Chinese (the setting, else the system locale) and installs
the app's translation (`desktop_copilot_zh_CN.qm`, package data beside this module) before any widget is built.

The `.ts` source and the `.qm` are made by `python -m desktop_copilot.qt.i18n.update` (see update.py). The language is
read once, at start-up: a change in Settings applies at the next start.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from desktop_copilot.core import words

log = logging.getLogger(__name__)

LANGUAGES = ("auto", "en", "zh_CN")
"""The values of `Settings.language`: the system's choice, English, Simplified Chinese."""
TRANSLATED = ("zh_CN",)
"""The languages with a translation of the app (English is the source language)."""
CATALOGUE = "desktop_copilot"
"""The file name stem of the app's translations: desktop_copilot_<language>.ts / .qm."""


def i18n_dir() -> Path:
    """The folder holding the .qm files: this package's folder, or its copy in a frozen bundle."""
    frozen_root = getattr(sys, "_MEIPASS", None)
    if getattr(sys, "frozen", False) and frozen_root:
        frozen = Path(frozen_root) / "desktop_copilot" / "qt" / "i18n"
        if frozen.is_dir():
            return frozen
    return Path(__file__).resolve().parent


def qm_path(language: str) -> Path:
    return i18n_dir() / f"{CATALOGUE}_{language}.qm"


def resolve_language(setting: str | None, system: QLocale | None = None) -> str:
    """The language to show: "en" or one of TRANSLATED. "auto" (or an unknown value) follows the system locale:
    Chinese in mainland China, Singapore or written in simplified script picks zh_CN; everything else English."""
    if setting in TRANSLATED or setting == "en":
        return setting
    locale = system if system is not None else QLocale.system()
    if locale.language() == QLocale.Language.Chinese and locale.script() != QLocale.Script.TraditionalChineseScript \
            and locale.territory() not in (QLocale.Country.Taiwan, QLocale.Country.HongKong, QLocale.Country.Macau):
        return "zh_CN"
    return "en"


def install_translator(app: QCoreApplication, language: str | None = "auto", system: QLocale | None = None) -> str:
    """Installs the translation for `language` ("auto", "en" or "zh_CN") on `app` and returns the language shown.
    Also installs Qt's own qtbase translation (standard dialog buttons, context menus of text fields) when PySide6
    has it; the bundle leaves Qt's translations out, so there those stay English. A missing or unreadable .qm of ours
    is logged and the interface stays English. The core's messages (core/words.py) are said through the same
    translation, and dates and month names follow the language shown (QLocale's default, see interface_locale)."""
    chosen = resolve_language(language, system)
    remove_translators(app)
    words.install(QCoreApplication.translate)
    if chosen == "en":
        QLocale.setDefault(interface_locale(chosen, system))
        return chosen
    ours = QTranslator(app)
    if not ours.load(str(qm_path(chosen))):
        log.warning("the %s translation could not be loaded from %s; the interface stays English", chosen, qm_path(chosen))
        QLocale.setDefault(interface_locale("en", system))
        return "en"
    QLocale.setDefault(interface_locale(chosen, system))
    installed = [ours]
    qt_own = QTranslator(app)
    if qt_own.load(f"qtbase_{chosen}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        installed.append(qt_own)
    for translator in installed:
        app.installTranslator(translator)
    _INSTALLED[id(app)] = installed  # a translator must stay alive as long as it is installed
    return chosen


_INSTALLED: dict[int, list[QTranslator]] = {}


def interface_locale(language: str, system: QLocale | None = None) -> QLocale:
    """The locale dates, month and day names are written in: the system's when it speaks `language` (its own
    territory's conventions), else `language`'s own (English: en_US, zh_CN: China)."""
    locale = system if system is not None else QLocale.system()
    wanted = QLocale(language)
    if locale.language() == wanted.language() and (language != "zh_CN" or resolve_language("auto", locale) == "zh_CN"):
        return locale
    return wanted


def remove_translators(app: QCoreApplication) -> None:
    """Takes out the translators install_translator put on `app` (the interface reverts to English, dates to the
    system's locale)."""
    QLocale.setDefault(QLocale.system())
    for translator in _INSTALLED.pop(id(app), []):
        app.removeTranslator(translator)
