"""Attaching files in the composer: a real QFileDialog driven offscreen, a file URL dropped, an image pasted from the
clipboard; chips shown and removable; the model's limits said under the composer as files are added; the message sent
with its files through the controller to a loopback server; thumbnails and chips painted in the user's bubble."""

from __future__ import annotations

import base64

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QColor, QDragEnterEvent, QDropEvent, QImage
from PySide6.QtWidgets import QApplication, QFileDialog, QLineEdit, QListView

from desktop_copilot.core.content.attachments import attachment_from_bytes
from desktop_copilot.core.chat import ChatSession
from desktop_copilot.core.config.app_config import AppConfig
from desktop_copilot.core.conversation.models import Conversation, DocumentBlock, ImageBlock, Message, TextFileBlock
from desktop_copilot.core.config.paths import AppPaths
from desktop_copilot.core.providers.attachment_limits import limits_for
from desktop_copilot.core.runtime import Runtime
from desktop_copilot.core.keys.secrets import EnvironmentKeys, KeyLookup
from desktop_copilot.core.storage.store import Store
from desktop_copilot.qt.bridge.controller import ChatController
from desktop_copilot.qt.common.theme import DEFAULT_THEME
from desktop_copilot.qt.transcript.model import TranscriptModel
from desktop_copilot.qt.transcript.view import TranscriptView
from desktop_copilot.qt.window.attachment_chips import AttachmentChip
from desktop_copilot.qt.window.composer import Composer
from tests.qt.conftest import run_async
from tests.support.attachment_files import pdf, png
from tests.support.loopback import anthropic_text_reply, sse_response

CHIP_COLOUR = (200, 80, 40)


@pytest.fixture
def composer(qtbot):
    composer = Composer()
    qtbot.addWidget(composer)
    composer.resize(700, 200)
    composer.show()
    qtbot.waitExposed(composer)
    return composer


@pytest.fixture
def files(tmp_path):
    (tmp_path / "chart.png").write_bytes(png(64, 48, rgb=CHIP_COLOUR))
    (tmp_path / "report.pdf").write_bytes(pdf(3))
    (tmp_path / "notes.md").write_text("# Notes\n\n- one\n", encoding="utf-8")
    return tmp_path


def chips(composer: Composer) -> list[tuple[str, str]]:
    return [(chip.name_label.text(), chip.detail_label.text()) for chip in composer.tray.chips.findChildren(AttachmentChip)
            if not chip.isHidden()]


def test_files_picked_in_the_file_dialog_become_chips(qtbot, composer, files):
    qtbot.mouseClick(composer.tray.attach_button, Qt.MouseButton.LeftButton)
    dialog = composer.tray.file_dialog
    assert isinstance(dialog, QFileDialog)
    qtbot.waitUntil(dialog.isVisible)
    dialog.setDirectory(str(files))
    listing = dialog.findChild(QListView, "listView")
    qtbot.waitUntil(lambda: listing.model().rowCount(listing.rootIndex()) == 3)  # the folder is read in the background
    name_box = dialog.findChild(QLineEdit, "fileNameEdit")
    qtbot.keyClicks(name_box, '"chart.png" "report.pdf" "notes.md"')
    qtbot.keyClick(name_box, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: len(composer.attachments()) == 3)
    assert not dialog.isVisible()
    assert [type(b) for b in composer.attachments()] == [ImageBlock, DocumentBlock, TextFileBlock]
    assert chips(composer) == [("chart.png", f"{(files / 'chart.png').stat().st_size} bytes · 64×48"),
                               ("report.pdf", f"{(files / 'report.pdf').stat().st_size // 1024} KB · 3 pages"),
                               ("notes.md", "15 bytes")]
    thumbnail = composer.tray.chips.findChildren(AttachmentChip)[0].thumbnail.pixmap().toImage()
    assert thumbnail.pixelColor(thumbnail.width() // 2, thumbnail.height() // 2).getRgb()[:3] == CHIP_COLOUR
    assert composer.button.isEnabled()  # files alone can be sent


def drop(target, mime: QMimeData) -> bool:
    point = QPointF(target.rect().center())
    enter = QDragEnterEvent(point.toPoint(), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(target, enter)
    if not enter.isAccepted():
        return False
    event = QDropEvent(point, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(target, event)
    return event.isAccepted()


def test_a_dropped_file_is_attached_not_typed(qtbot, composer, files):
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(files / "report.pdf"))])
    assert drop(composer, mime)
    assert [b.name for b in composer.attachments()] == ["report.pdf"]
    composer.edit.insertFromMimeData(mime)  # dropped (or pasted) on the text box itself: attached too, never typed
    assert composer.text() == "" and [b.name for b in composer.attachments()] == ["report.pdf"]  # the same file once
    text = QMimeData()
    text.setText("plain words")
    composer.edit.insertFromMimeData(text)
    assert composer.text() == "plain words"


def test_a_pasted_image_becomes_a_png_chip_and_can_be_removed(qtbot, composer):
    image = QImage(30, 20, QImage.Format.Format_RGB32)
    image.fill(QColor(*CHIP_COLOUR))
    QApplication.clipboard().setImage(image)
    composer.edit.setFocus()
    qtbot.keyClick(composer.edit, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: len(composer.attachments()) == 1)
    (pasted,) = composer.attachments()
    assert (pasted.name, pasted.media_type, pasted.width, pasted.height) == ("Pasted image.png", "image/png", 30, 20)
    assert QImage.fromData(base64.b64decode(pasted.data)).pixelColor(5, 5).getRgb()[:3] == CHIP_COLOUR
    chip = composer.tray.chips.findChild(AttachmentChip)
    qtbot.mouseClick(chip.remove_button, Qt.MouseButton.LeftButton)
    assert composer.attachments() == [] and composer.tray.chips.isHidden() and not composer.button.isEnabled()


def test_a_paste_with_text_and_a_picture_of_it_pastes_the_text(qtbot, composer):
    """A spreadsheet's or a web page's copy holds a picture of the selection too: the text is what is meant."""
    image = QImage(30, 20, QImage.Format.Format_RGB32)
    image.fill(QColor(*CHIP_COLOUR))
    mime = QMimeData()
    mime.setImageData(image)
    mime.setText("Q1\t42")
    composer.edit.insertFromMimeData(mime)
    assert composer.text() == "Q1\t42" and composer.attachments() == []


def test_the_models_limits_are_said_under_the_composer_when_a_file_is_added(qtbot, composer, files):
    composer.limits = lambda: limits_for("deepseek", "chat_completions", "deepseek-chat")
    composer.tray.add_files([str(files / "chart.png"), str(files / "notes.md"), str(files / "missing.gif")])
    assert [b.name for b in composer.attachments()] == ["notes.md"]
    notice = composer.tray.notice
    assert notice.isVisible()
    first, second = notice.text().splitlines()  # one line per file, in the order they were added
    assert first.startswith("chart.png: deepseek-chat (DeepSeek) takes no images. Choose a model that sees images")
    assert second.startswith("missing.gif cannot be read")
    composer.limits = lambda: limits_for("anthropic", "anthropic", "claude-sonnet-4-6")
    composer.tray.add_files([str(files / "chart.png")])
    assert not notice.isVisible() and len(composer.attachments()) == 2


def test_the_message_goes_with_its_files_and_the_chips_clear_once_it_is_sent(qtbot, qasync_loop, loopback, tmp_path, files):
    """The wiring MainWindow.send uses: the composer's text and attachments to ChatController.send."""
    loopback.enqueue("/v1/messages", sse_response(anthropic_text_reply("A chart and a report.")))
    keys = KeyLookup([EnvironmentKeys({"ANTHROPIC_API_KEY": "sk-ant-composer-1234"})])
    runtime = Runtime(AppPaths.resolve().ensure(), AppConfig(anthropic_base_url=loopback.url), keys)
    store = Store(tmp_path / "db.sqlite3")
    model = TranscriptModel()
    controller = ChatController(ChatSession(runtime, Conversation(provider="anthropic", model="claude-sonnet-4-6"), store), model)
    composer = Composer()
    qtbot.addWidget(composer)
    composer.show()
    composer.limits = controller.attachment_limits
    assert composer.limits() == limits_for("anthropic", "anthropic", "claude-sonnet-4-6")
    composer.sig_submitted.connect(lambda text: controller.send(text, composer.attachments()))
    controller.sig_user_message_sent.connect(composer.accept_sent)
    composer.tray.add_files([str(files / "chart.png"), str(files / "report.pdf")])
    qtbot.keyClicks(composer.edit, "What do these show?")
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not controller.busy and bool(loopback.requests), timeout=60000)  # the SDK import alone is slow on a busy box
    (sent,) = loopback.requests_to("/v1/messages")
    content = sent.json()["messages"][0]["content"]
    assert [part["type"] for part in content] == ["image", "document", "text"] and content[2]["text"] == "What do these show?"
    assert composer.text() == "" and composer.attachments() == [] and composer.tray.chips.isHidden()
    stored = store.load_conversation(controller.session.conversation.id).messages[0]
    assert [b.name for b in stored.attachments] == ["chart.png", "report.pdf"]
    run_async(qtbot, controller.aclose())
    store.close()


def test_the_user_bubble_paints_the_thumbnail_and_the_pdf_chip(qtbot):
    message = Message.user("Here they are", [attachment_from_bytes(png(160, 100, rgb=CHIP_COLOUR), "chart.png"),
                                             attachment_from_bytes(pdf(2), "report.pdf")])
    plain = Message.user("Here they are")
    model = TranscriptModel()
    model.set_messages([plain, message])
    view = TranscriptView(model)
    qtbot.addWidget(view)
    view.resize(800, 600)
    view.show()
    qtbot.waitExposed(view)
    rects = lambda: (view.visualRect(model.index(0, 0)), view.visualRect(model.index(1, 0)))  # noqa: E731
    # measured once painted: the thumbnail (100 px) sits above the text of the same length
    qtbot.waitUntil(lambda: rects()[1].height() > rects()[0].height() + 90)
    attached_rect = rects()[1]
    shot = view.viewport().grab().toImage()
    colours = {shot.pixelColor(x, y).getRgb()[:3] for x in range(0, shot.width(), 4)
               for y in range(attached_rect.top(), min(attached_rect.bottom(), shot.height()), 4)}
    assert CHIP_COLOUR in colours  # the image itself, decoded and drawn in the bubble
    assert DEFAULT_THEME.color("accent").getRgb()[:3] in colours  # the PDF chip's badge
    plain_colours = {shot.pixelColor(x, y).getRgb()[:3] for x in range(0, shot.width(), 4) for y in range(0, rects()[0].bottom(), 4)}
    assert CHIP_COLOUR not in plain_colours and DEFAULT_THEME.color("accent").getRgb()[:3] not in plain_colours
