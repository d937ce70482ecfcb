"""The zh_CN translation is complete and current: every tr()/translate() string of the sources has a finished
translation in the committed .ts, the committed .qm matches the .ts, the real window shows Chinese under it, and no
user-visible literal in the common widget calls is left unwrapped."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from xml.etree import ElementTree

from PySide6.QtCore import QCoreApplication, QLocale

from desktop_copilot.qt.i18n import install_translator, qm_path, remove_translators, resolve_language
from desktop_copilot.qt.i18n.update import core_messages, lrelease, lupdate, marked_strings, source_files, ts_path
from tests.qt.conftest import make_window, qasync_loop  # noqa: F401 - fixtures the window test uses

ROOT = Path(__file__).resolve().parents[3]
QT_SOURCES = ROOT / "desktop_copilot" / "qt"
COMMITTED_TS = ts_path("zh_CN")
NOT_TRANSLATED_MARK = "i18n: not translated"
"""A comment on a line that shows a literal on purpose untranslated (a language's own name, a product name)."""
HAN = re.compile(r"[\u4e00-\u9fff]")


def messages(ts: Path) -> dict[tuple[str, str], ElementTree.Element]:
    """(context, source) -> the <translation> element, for every message of a .ts file."""
    found = {}
    for context in ElementTree.parse(ts).getroot().iter("context"):
        name = context.findtext("name")
        for message in context.iter("message"):
            found[(name, message.findtext("source"))] = message.find("translation")
    return found


def is_finished(translation: ElementTree.Element | None) -> bool:
    if translation is None or translation.get("type") in ("unfinished", "obsolete", "vanished"):
        return False
    forms = translation.findall("numerusform")
    texts = [form.text for form in forms] if forms else [translation.text]
    return all(text and text.strip() for text in texts)


def test_every_source_string_has_a_finished_chinese_translation(tmp_path):
    fresh = tmp_path / "fresh.ts"
    lupdate(fresh)
    wanted = messages(fresh)
    assert len(wanted) > 300, "lupdate found suspiciously few strings; is the source scan broken?"
    committed = messages(COMMITTED_TS)
    missing = sorted(f"{context}: {source!r}" for (context, source) in wanted if not is_finished(committed.get((context, source))))
    assert not missing, (f"{len(missing)} visible strings have no finished zh_CN translation; run "
                         "`python -m desktop_copilot.qt.i18n.update`, translate them in the .ts, run it again:\n" + "\n".join(missing))


def test_translations_keep_placeholders_and_plural_markers():
    problems = []
    for (context, source), translation in messages(COMMITTED_TS).items():
        if not is_finished(translation):
            continue
        forms = [form.text for form in translation.findall("numerusform")] or [translation.text]
        for text in forms:
            for pattern in (r"\{[^{}]*\}", r"%n", r"%\d"):
                if sorted(re.findall(pattern, source)) != sorted(re.findall(pattern, text)) and not (pattern == "%n" and forms != [translation.text]):
                    problems.append(f"{context}: {source!r} -> {text!r} ({pattern})")
    assert not problems, "\n".join(problems)


def test_the_committed_qm_is_built_from_the_committed_ts(tmp_path):
    rebuilt = tmp_path / "rebuilt.qm"
    lrelease(COMMITTED_TS, rebuilt)
    assert qm_path("zh_CN").read_bytes() == rebuilt.read_bytes(), \
        "desktop_copilot_zh_CN.qm is older than the .ts; run `python -m desktop_copilot.qt.i18n.update --release`"


def test_the_language_follows_the_setting_then_the_system_locale():
    chinese = QLocale(QLocale.Language.Chinese, QLocale.Country.China)
    assert resolve_language("auto", chinese) == "zh_CN"
    assert resolve_language("auto", QLocale(QLocale.Language.Chinese, QLocale.Script.SimplifiedChineseScript, QLocale.Country.Singapore)) == "zh_CN"
    assert resolve_language("auto", QLocale(QLocale.Language.Chinese, QLocale.Country.Taiwan)) == "en"
    assert resolve_language("auto", QLocale(QLocale.Language.English, QLocale.Country.UnitedStates)) == "en"
    assert resolve_language("en", chinese) == "en"
    assert resolve_language("zh_CN", QLocale(QLocale.Language.German, QLocale.Country.Germany)) == "zh_CN"
    assert resolve_language("klingon", chinese) == "zh_CN"  # an unknown value in settings.json counts as "auto"


def test_installing_and_removing_the_translator(qapp):
    try:
        assert install_translator(qapp, "zh_CN") == "zh_CN"
        assert HAN.search(QCoreApplication.translate("Composer", "Send"))
        assert install_translator(qapp, "en") == "en"
        assert QCoreApplication.translate("Composer", "Send") == "Send"
    finally:
        remove_translators(qapp)


def test_the_real_window_speaks_chinese(qapp, make_window):  # noqa: F811 - the imported fixture
    install_translator(qapp, "zh_CN")
    try:
        window = make_window()
        titles = [action.text() for action in window.menuBar().actions()]
        assert titles and all(HAN.search(title) for title in titles), titles
        assert HAN.search(window.composer.button.text()), window.composer.button.text()
        assert HAN.search(window.composer.edit.placeholderText()), window.composer.edit.placeholderText()
        for menu in (action.menu() for action in window.menuBar().actions()):
            for entry in menu.actions():
                if entry.text() and not entry.isSeparator():
                    assert HAN.search(entry.text()), f"menu entry not in Chinese: {entry.text()!r}"
    finally:
        remove_translators(qapp)


# --- unwrapped literals ------------------------------------------------------------------------

SHOWN_ARGUMENTS = {
    **dict.fromkeys(("setText", "setToolTip", "setPlaceholderText", "setWindowTitle", "addMenu", "addAction", "setStatusTip",
                     "setAccessibleName", "setWhatsThis", "showMessage", "addTab", "setTitle", "addButton", "setLabelText",
                     "show_error", "show_message", "show_result", "say", "label", "group", "hint", "form_label"), (0,)),
    **dict.fromkeys(("QPushButton", "QAction", "PlainLabel", "QLabel", "QCheckBox", "QRadioButton", "QToolButton", "QGroupBox",
                     "QMenu"), (0,)),
    "beside": (1,), "QMessageBox": (1, 2), "QFileDialog": (1, 3), "getText": (1, 2), "getSaveFileName": (1, 3),
    "getOpenFileName": (1, 3),
}
"""Calls whose string argument at these positions is shown to the user: Qt's, and the settings pages' helpers."""
TEXT_KEYWORDS = {"text", "toolTip", "placeholderText", "windowTitle", "statusTip", "title"}


def _has_words(text: str) -> bool:
    """Words a person reads: letters, and not a URL or a colour."""
    return bool(re.search(r"[A-Za-z]{2}", text)) and "://" not in text and not re.fullmatch(r"#[0-9a-fA-F]{3,8}", text.strip())


def _shown_literal(node: ast.AST) -> bool:
    """A string literal (or an f-string with literal words) that has words in it."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return _has_words(node.value)
    if isinstance(node, ast.JoinedStr):
        return any(isinstance(part, ast.Constant) and _has_words(part.value) for part in node.values)
    if isinstance(node, ast.BinOp):
        return _shown_literal(node.left) or _shown_literal(node.right)
    if isinstance(node, ast.IfExp):
        return _shown_literal(node.body) or _shown_literal(node.orelse)
    return False


def _shown_path(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name


def unwrapped_literals(path: Path) -> list[str]:
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id if isinstance(node.func, ast.Name) else ""
        shown = [node.args[at] for at in SHOWN_ARGUMENTS.get(name, ()) if at < len(node.args)]
        if name in SHOWN_ARGUMENTS or name.startswith("Q"):
            shown += [keyword.value for keyword in node.keywords if keyword.arg in TEXT_KEYWORDS]
        for value in shown:
            if _shown_literal(value) and NOT_TRANSLATED_MARK not in lines[value.lineno - 1]:
                found.append(f"{_shown_path(path)}:{value.lineno}: {name}({ast.get_source_segment(source, value)})")
    return found


def test_the_scan_finds_an_unwrapped_literal(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text('b = QPushButton("Send")\nb.setToolTip(f"{n} files")\nb.setText(self.tr("Fine"))\n'
                      'QLabel("简体中文", text="English")  # i18n: not translated\nmenu.addMenu(title="&Help")\n', encoding="utf-8")
    assert [entry.split(":")[1] for entry in unwrapped_literals(sample)] == ["1", "2", "5"]


def test_no_user_visible_literal_is_left_unwrapped():
    found = [entry for path in sorted(QT_SOURCES.rglob("*.py")) for entry in unwrapped_literals(path)]
    assert not found, (f"{len(found)} user-visible literals are not wrapped in self.tr()/QCoreApplication.translate() "
                       f"(mark a deliberate one with '# {NOT_TRANSLATED_MARK}'):\n" + "\n".join(found))


def test_the_sources_lupdate_reads_are_the_qt_and_app_layers():
    files = source_files()
    assert any(name.endswith("qt/window/composer.py") for name in files)
    assert any(name.endswith("app/gui.py") for name in files)
    assert not any("/core/" in name for name in files)  # the core's messages come from core_messages()


# --- the Qt-free core's messages (core/words.py) ---------------------------------------------------

CORE_SOURCES = ROOT / "desktop_copilot" / "core"


def test_every_core_message_has_a_finished_chinese_translation():
    wanted = core_messages()
    assert len(wanted) > 100, "the core scan found suspiciously few marked messages"
    committed = messages(COMMITTED_TS)
    missing = [text for text in wanted if not is_finished(committed.get(("CoreMessages", text)))]
    assert not missing, f"{len(missing)} core messages have no finished zh_CN translation:\n" + "\n".join(missing)


def test_core_messages_are_said_in_chinese_under_the_chinese_translation(qapp):
    from desktop_copilot.core.content.link_safety import needs_confirmation
    from desktop_copilot.core.knowledge.reasons import reason_text
    from desktop_copilot.core.providers.status_words import status_sentence

    english = status_sentence("the Anthropic API", 401, "invalid x-api-key", key_hint="ANTHROPIC_API_KEY")
    assert english == ("The Anthropic API rejected the key (401: invalid x-api-key). Check the key in Settings or "
                       "ANTHROPIC_API_KEY.")
    try:
        install_translator(qapp, "zh_CN")
        chinese = status_sentence("the Anthropic API", 401, "invalid x-api-key", key_hint="ANTHROPIC_API_KEY")
        assert HAN.search(chinese) and "invalid x-api-key" in chinese and "ANTHROPIC_API_KEY" in chinese, chinese
        assert HAN.search(needs_confirmation("https://bank.com", "https://evil.example/"))
        assert reason_text("larger than the 20 MB size cap (31 MB)") == "超过 20 MB 的大小上限（31 MB）"
        assert reason_text("damaged PDF: not a readable PDF file") == "PDF 已损坏：不是可读取的 PDF 文件"
    finally:
        remove_translators(qapp)
    assert status_sentence("the Anthropic API", 401, "invalid x-api-key", key_hint="ANTHROPIC_API_KEY") == english


def test_the_core_scan_reads_the_markers(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text('A = N_("Marked")\nraise E(tr("{n} files").format(n=2))\ntr(name)\nprint("not marked")\n', encoding="utf-8")
    assert marked_strings(sample) == [(1, "Marked"), (2, "{n} files")]


USER_FACING_ERRORS = ("AttachmentError", "McpConfigError", "McpNameError", "KnowledgeError", "MissingKeyError", "ProviderError",
                      "EmbeddingError", "SummaryFailedError", "RuleError", "KeyValueError", "KeyStoreError", "SecretStoreError",
                      "NothingToDoError", "NothingToUndoError", "MissingModelError", "AssistantError", "SettingsError",
                      "ExportFormatError", "GenerationOptionError", "UnknownProviderError")
"""Exceptions of the core whose message the window shows as it is: a literal in one must be marked."""


def unmarked_core_messages(path: Path) -> list[str]:
    """`raise SomeUserFacingError("English…")` (or an f-string) in `path` without tr()/N_()."""
    source = path.read_text(encoding="utf-8")
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and isinstance(node.exc.func, ast.Name) \
                and node.exc.func.id in USER_FACING_ERRORS and node.exc.args and _shown_literal(node.exc.args[0]):
            found.append(f"{_shown_path(path)}:{node.lineno}: {ast.get_source_segment(source, node.exc)[:100]}")
    return found


def test_the_core_raises_no_unmarked_user_facing_message(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text('raise AttachmentError(f"{n} is too big")\nraise AttachmentError(tr("{n} is too big").format(n=n))\n'
                      'raise ValueError("internal")\n', encoding="utf-8")
    assert [entry.split(":")[1] for entry in unmarked_core_messages(sample)] == ["1"]
    found = [entry for path in sorted(CORE_SOURCES.rglob("*.py")) for entry in unmarked_core_messages(path)]
    assert not found, "user-facing core messages not marked with core/words.py's tr():\n" + "\n".join(found)


def test_dates_follow_the_interface_language(qapp):
    from datetime import datetime

    from desktop_copilot.qt.history.conversation_list_model import time_text

    now = datetime(2025, 3, 15, 12).timestamp()
    try:
        install_translator(qapp, "zh_CN")
        assert time_text(datetime(2025, 1, 2, 10).timestamp(), now) == "1月2日"
        assert time_text(datetime(2023, 1, 2, 10).timestamp(), now) == "2023年1月2日"
        assert time_text(datetime(2025, 3, 9, 10).timestamp(), now) == "周日"
        install_translator(qapp, "en", QLocale(QLocale.Language.English, QLocale.Country.UnitedStates))
        assert time_text(datetime(2025, 1, 2, 10).timestamp(), now) == "2 Jan"
    finally:
        remove_translators(qapp)


def test_the_language_choice_on_the_models_page_edits_the_setting(qtbot, qasync_loop, tmp_path):  # noqa: F811 - the imported fixture
    from desktop_copilot.core.config.app_config import AppConfig
    from desktop_copilot.core.config.paths import AppPaths
    from desktop_copilot.core.runtime import Runtime
    from desktop_copilot.core.config.settings import Settings, SettingsFile
    from desktop_copilot.qt.settings.models_page import ModelsPage

    runtime = Runtime(AppPaths.resolve().ensure(), AppConfig.from_environment())
    page = ModelsPage(runtime, Settings(language="zh_CN"), lambda: "")
    qtbot.addWidget(page)
    box = page.language_box
    assert [box.itemData(i) for i in range(box.count())] == ["auto", "en", "zh_CN"]
    assert box.currentData() == "zh_CN" and box.itemText(2) == "简体中文"
    box.setCurrentIndex(box.findData("en"))
    edited = Settings.model_validate({**Settings().model_dump(), **page.edits(Settings())})
    assert edited.language == "en"
    settings_file = SettingsFile(tmp_path / "settings.json")
    settings_file.save(edited)
    assert settings_file.load().language == "en"  # what app/gui.py main reads at the next start
