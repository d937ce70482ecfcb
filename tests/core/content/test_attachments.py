"""Reading files into attachment blocks (kind from the bytes, sizes, pages, text), the limits per provider and model,
the check before sending, the blocks stored in and reloaded from a real SQLite file, and the Markdown export."""

from __future__ import annotations

import base64
import json
import os

import pytest

from desktop_copilot.core.content.attachments import (
    MAX_FILE_BYTES,
    MAX_TEXT_BYTES,
    AttachmentError,
    attachment_from_bytes,
    check_sendable,
    pdf_pages,
    read_attachment,
)
from desktop_copilot.core.storage.export import to_json, to_markdown
from desktop_copilot.core.conversation.models import Conversation, DocumentBlock, ImageBlock, Message, TextBlock, TextFileBlock
from desktop_copilot.core.providers.attachment_limits import human_size, limits_for, problem, takes_images, user_parts
from desktop_copilot.core.storage.store import Store
from tests.support.attachment_files import GIF_1x1, JPEG_40x30, WEBP_40x30, pdf, png


def write(tmp_path, name: str, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path


# --- reading ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("data", "media_type", "size"), [
    (png(300, 200), "image/png", (300, 200)),
    (JPEG_40x30, "image/jpeg", (40, 30)),
    (WEBP_40x30, "image/webp", (40, 30)),
    (GIF_1x1, "image/gif", (1, 1)),
])
def test_images_are_told_by_their_bytes_not_their_names(tmp_path, data, media_type, size):
    block = read_attachment(write(tmp_path, "looks-like.txt", data))
    assert isinstance(block, ImageBlock)
    assert (block.media_type, (block.width, block.height), block.size) == (media_type, size, len(data))
    assert base64.b64decode(block.data) == data and block.name == "looks-like.txt"


def test_a_pdf_counts_its_pages_and_a_png_named_pdf_is_an_image(tmp_path):
    document = read_attachment(write(tmp_path, "report.pdf", pdf(7)))
    assert isinstance(document, DocumentBlock)
    assert (document.media_type, document.pages, document.name) == ("application/pdf", 7, "report.pdf")
    assert isinstance(read_attachment(write(tmp_path, "fake.pdf", png(2, 2))), ImageBlock)


def test_pdf_pages_from_the_page_tree_when_page_objects_are_compressed():
    assert pdf_pages(b"%PDF-1.7\n1 0 obj << /Type /Pages /Kids [] /Count 42 >> endobj") == 42
    assert pdf_pages(b"%PDF-1.7\n garbage") == 0


def test_text_and_code_files_are_read_as_utf8(tmp_path):
    code = "def hello():\n    return '你好'\n"
    block = read_attachment(write(tmp_path, "hello.py", "\ufeff".encode() + code.encode()))
    assert block == TextFileBlock(name="hello.py", text=code, size=len(code.encode()) + 3)
    utf16 = read_attachment(write(tmp_path, "notes.txt", "héllo".encode("utf-16")))
    assert utf16.text == "héllo"


@pytest.mark.parametrize(("data", "words"), [
    (b"", "is empty"),
    (b"BM" + b"\x00" * 60, "BMP image"),
    (b"PK\x03\x04" + b"\x00" * 60, "Office document"),
    (b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 64, "not a text file"),
    ("naïve".encode("latin-1"), "not UTF-8"),
    (b"x" * (MAX_TEXT_BYTES + 1), "a text file can be at most"),
    (b"\x89PNG\r\n\x1a\n" + b"\x00" * 4, "may be damaged"),
])
def test_files_that_cannot_be_attached_say_what_to_do(tmp_path, data, words):
    with pytest.raises(AttachmentError, match=words):
        read_attachment(write(tmp_path, "file.bin", data))


def test_only_regular_files_are_read_and_never_more_than_the_cap(tmp_path):
    with pytest.raises(AttachmentError, match="is not a file"):
        read_attachment(tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(AttachmentError, match="is not a file"):  # opening a FIFO would block
        read_attachment(fifo)
    with pytest.raises(AttachmentError, match="cannot be read"):
        read_attachment(tmp_path / "missing.png")
    big = tmp_path / "big.png"
    with big.open("wb") as file:
        file.truncate(MAX_FILE_BYTES + 1)  # sparse: no disk used
    with pytest.raises(AttachmentError, match="at most 24 MB"):
        read_attachment(big)


# --- limits ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("model", "sees"), [
    ("deepseek-chat", False), ("deepseek-reasoner", False), ("kimi-k2-0905-preview", False), ("glm-4.6", False),
    ("llama3.2", False), ("llama-3.3-70b-versatile", False), ("gpt-3.5-turbo", False),
    ("glm-4.5v", True), ("llama3.2-vision", True), ("qwen2.5vl:7b", True), ("kimi-k2.5", True),
    ("claude-sonnet-4-6", True), ("gpt-4.1-mini", True), ("gemini-2.5-flash", True), ("gemma3:4b", True),
])
def test_known_text_only_models(model, sees):
    assert takes_images(model) is sees


def image(size: int = 1000, width: int = 100, height: int = 100, media_type: str = "image/png", name: str = "p.png") -> ImageBlock:
    return ImageBlock(media_type=media_type, data="", name=name, size=size, width=width, height=height)


def test_per_provider_limits_name_the_file_and_what_to_do():
    anthropic = limits_for("anthropic", "anthropic", "claude-sonnet-4-6")
    assert problem(image(), anthropic) == ""
    assert "p.png is 4 MB; Anthropic takes images up to 3.8 MB" in problem(image(size=4 * 1024 * 1024), anthropic)
    assert "8000 pixels a side" in problem(image(width=9000), anthropic)
    assert "101 pages" in problem(DocumentBlock(data="", name="r.pdf", size=10, pages=101), anthropic)
    deepseek = limits_for("deepseek", "chat_completions", "deepseek-chat")
    assert problem(image(), deepseek).startswith("p.png: deepseek-chat (DeepSeek) takes no images")
    assert "DeepSeek cannot read PDFs" in problem(DocumentBlock(data="", name="r.pdf", size=10), deepseek)
    gemini = limits_for("gemini", "gemini", "gemini-2.5-flash")
    assert "not GIF" in problem(image(media_type="image/gif", name="a.gif"), gemini)
    assert problem(DocumentBlock(data="", name="r.pdf", size=10, pages=500), gemini) == ""
    ollama = limits_for("ollama", "ollama", "llava")
    assert problem(image(), ollama) == "" and "Ollama cannot read PDFs" in problem(DocumentBlock(data="", name="r.pdf", size=1), ollama)
    openai = limits_for("openai", "chat_completions", "gpt-4.1-mini")
    assert problem(image(size=19 * 1024 * 1024), openai) == "" and problem(DocumentBlock(data="", name="r.pdf", size=1), openai) == ""
    assert human_size(512) == "512 bytes" and human_size(2048) == "2 KB"


def test_check_sendable_refuses_new_attachments_and_totals_over_the_request_limit():
    gemini = limits_for("gemini", "gemini", "gemini-2.5-flash")
    history = [Message.user("earlier", [image(size=9 * 1024 * 1024)])]
    check_sendable(history, [image(size=5 * 1024 * 1024)], gemini)  # 14 MB of 15: fits
    with pytest.raises(AttachmentError, match="come to 17 MB; Google Gemini takes 15 MB in one request"):
        check_sendable(history, [image(size=8 * 1024 * 1024)], gemini)
    deepseek = limits_for("deepseek", "chat_completions", "deepseek-chat")
    with pytest.raises(AttachmentError) as refused:
        check_sendable([], [image(name="a.png"), DocumentBlock(data="", name="b.pdf", size=5)], deepseek)
    assert str(refused.value).splitlines() == [problem(image(name="a.png"), deepseek), problem(DocumentBlock(data="", name="b.pdf", size=5), deepseek)]
    check_sendable(history, [], deepseek)  # earlier images it cannot take go as a note: nothing to refuse


def test_user_parts_keep_the_order_and_leave_out_what_the_model_cannot_take():
    message = Message.user("look", [image(name="a.png"), TextFileBlock(name='x"y.py', text="print(1)")])
    assert [b.type for b in message.blocks] == ["image", "text_file", "text"]
    deepseek = limits_for("deepseek", "chat_completions", "deepseek-chat")
    parts = user_parts(message, deepseek)
    assert parts[0].startswith("[The user attached an image here (a.png); it is left out because deepseek-chat at DeepSeek")
    assert parts[1] == "<attached_file name=\"x'y.py\">\nprint(1)\n</attached_file>" and parts[2] == "look"
    assert user_parts(message, limits_for("anthropic", "anthropic", "claude-x"))[0] is message.blocks[0]


# --- stored and exported -----------------------------------------------------------------------


def test_attachments_are_stored_whole_and_exported(tmp_path):
    blocks = [attachment_from_bytes(png(8, 6), "shot.png"), attachment_from_bytes(pdf(2), "spec.pdf"),
              attachment_from_bytes(b"a = 1\n", "a.py")]
    conversation = Conversation(title="files", messages=[Message.user("see these", blocks)])
    store = Store(tmp_path / "db.sqlite3")
    store.save_conversation(conversation)
    store.save_message(conversation.id, 0, conversation.messages[0])
    store.close()
    reopened = Store(tmp_path / "db.sqlite3")
    loaded = reopened.load_conversation(conversation.id)
    reopened.close()
    assert loaded.messages[0].blocks == [*blocks, TextBlock(text="see these")]
    markdown = to_markdown(loaded)
    assert f"📎 shot.png ({blocks[0].size} bytes)" in markdown
    assert f"📎 spec.pdf ({human_size(blocks[1].size)})" in markdown and "📎 a.py (6 bytes)" in markdown
    assert "a = 1" in markdown and blocks[0].data not in markdown
    exported = json.loads(to_json([loaded]))["conversations"][0]["messages"][0]["blocks"]
    assert exported[0] == blocks[0].model_dump(mode="json") and exported[1]["data"] == blocks[1].data
