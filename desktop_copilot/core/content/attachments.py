"""Attachments: a file read into a message block (its kind told by its bytes, not its name: images with their pixel
size, PDFs with their pages, text and code as UTF-8), and the check, before anything is sent, that a message's
attachments fit the model it goes to. Images that do not fit are refused with what to do, not scaled down."""

from __future__ import annotations

import base64
import os
import re
import stat
import struct
from collections.abc import Sequence
from pathlib import Path

from desktop_copilot.core.conversation.models import DocumentBlock, ImageBlock, Message, TextFileBlock
from desktop_copilot.core.conversation.prefix import PerMessage
from desktop_copilot.core.providers.attachment_limits import (
    GIF,
    JPEG,
    MB,
    PDF,
    PNG,
    WEBP,
    Attachment,
    AttachmentLimits,
    attachment_bytes,
    human_size,
    problem,
)
from desktop_copilot.core.words import N_, tr

MAX_IMAGE_BYTES = 20 * MB
"""The largest image any provider takes (OpenAI's); each provider's own limit is checked before sending."""
MAX_PDF_BYTES = 24 * MB
"""The largest PDF any provider takes (32 MB of request, base64)."""
MAX_TEXT_BYTES = 256 * 1024
"""A text or code file is inlined into the message: at most this much of it."""
MAX_FILE_BYTES = max(MAX_IMAGE_BYTES, MAX_PDF_BYTES)
"""Nothing bigger is read at all."""

_OTHER_FORMATS = (
    (b"BM", N_("a BMP image"), N_("Save it as PNG or JPEG and attach it again.")),
    (b"II*\x00", N_("a TIFF image"), N_("Save it as PNG or JPEG and attach it again.")),
    (b"MM\x00*", N_("a TIFF image"), N_("Save it as PNG or JPEG and attach it again.")),
    (b"PK\x03\x04", N_("a ZIP archive (or an Office document)"), N_("Save it as PDF or plain text and attach that.")),
    (b"\xd0\xcf\x11\xe0", N_("an old Office document"), N_("Save it as PDF or plain text and attach that.")),
)


class AttachmentError(ValueError):
    """A file that cannot be attached, or attachments the model cannot take; the message says what to do."""


def sniff(data: bytes) -> str | None:
    """The media type of `data` told by its first bytes: PNG, JPEG, GIF, WebP or PDF; None for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return PNG
    if data.startswith(b"\xff\xd8\xff"):
        return JPEG
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return GIF
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return WEBP
    if 0 <= data.find(b"%PDF-", 0, 1024):  # a PDF may have a few bytes before its header
        return PDF
    return None


def image_dimensions(data: bytes, media_type: str) -> tuple[int, int]:
    """(width, height) from the image's header; (0, 0) when it cannot be read."""
    try:
        if media_type == PNG and data[12:16] == b"IHDR":
            return struct.unpack(">II", data[16:24])
        if media_type == GIF:
            return struct.unpack("<HH", data[6:10])
        if media_type == WEBP:
            return _webp_dimensions(data)
        if media_type == JPEG:
            return _jpeg_dimensions(data)
    except struct.error:
        pass
    return 0, 0


def _webp_dimensions(data: bytes) -> tuple[int, int]:
    chunk = data[12:16]
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L":
        b0, b1, b2, b3 = data[21:25]
        return 1 + (((b1 & 0x3F) << 8) | b0), 1 + (((b3 & 0x0F) << 10) | (b2 << 2) | ((b1 & 0xC0) >> 6))
    if chunk == b"VP8X":
        return 1 + int.from_bytes(data[24:27], "little"), 1 + int.from_bytes(data[27:30], "little")
    return 0, 0


_JPEG_FRAMES = frozenset({0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF})


def _jpeg_dimensions(data: bytes) -> tuple[int, int]:
    position = 2
    while position + 9 < len(data):
        if data[position] != 0xFF:
            return 0, 0
        marker = data[position + 1]
        if marker == 0xFF:  # fill byte
            position += 1
            continue
        if marker in _JPEG_FRAMES:
            height, width = struct.unpack(">HH", data[position + 5 : position + 9])
            return width, height
        if marker == 0x01 or 0xD0 <= marker <= 0xD9:  # markers without a length
            position += 2
            continue
        position += 2 + struct.unpack(">H", data[position + 2 : position + 4])[0]
    return 0, 0


_PAGE_OBJECT = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")
_PAGES_COUNT = re.compile(rb"/Type\s*/Pages\b[^>]{0,400}?/Count\s+(\d+)|/Count\s+(\d+)[^>]{0,400}?/Type\s*/Pages\b")


def pdf_pages(data: bytes) -> int:
    """Pages of a PDF: its page objects counted, else the page tree's /Count; 0 when neither can be read
    (page objects inside compressed object streams)."""
    pages = len(_PAGE_OBJECT.findall(data))
    if pages:
        return pages
    counts = [int(a or b) for a, b in _PAGES_COUNT.findall(data)]
    return max(counts, default=0)


def read_attachment(path: str | os.PathLike[str]) -> Attachment:
    """The file at `path` as an attachment block. Only a regular file is read, and never more than MAX_FILE_BYTES
    of it; raises AttachmentError saying what to do."""
    path = Path(path)
    try:
        info = path.stat()
    except OSError as exc:
        raise AttachmentError((tr("{name} cannot be read ({strerror}). Check that the file exists.")
                               .format(name=path.name or path, strerror=exc.strerror or exc))) from None
    if not stat.S_ISREG(info.st_mode):
        raise AttachmentError(tr("{name} is not a file. Attach files, not folders or devices.").format(name=path.name or path))
    if info.st_size > MAX_FILE_BYTES:
        raise AttachmentError((tr("{name} is {st_size}; attachments can be at most {max_file_bytes}.")
                               .format(name=path.name, st_size=human_size(info.st_size), max_file_bytes=human_size(MAX_FILE_BYTES))))
    try:
        with path.open("rb") as file:
            data = file.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise AttachmentError(tr("{name} cannot be read ({strerror}).").format(name=path.name, strerror=exc.strerror or exc)) from None
    if len(data) > MAX_FILE_BYTES:
        raise AttachmentError((tr("{name} is bigger than {max_file_bytes}, the most an attachment can be.")
                               .format(name=path.name, max_file_bytes=human_size(MAX_FILE_BYTES))))
    return attachment_from_bytes(data, path.name)


def attachment_from_bytes(data: bytes, name: str) -> Attachment:
    """`data` (a file's bytes, or an image pasted from the clipboard) as an attachment block named `name`."""
    if not data:
        raise AttachmentError(tr("{name} is empty: there is nothing to attach.").format(name=name))
    media_type = sniff(data)
    if media_type == PDF:
        if len(data) > MAX_PDF_BYTES:
            raise AttachmentError((tr("{name} is {data}; PDFs can be at most {max_pdf_bytes}. Split it and attach the part you need.")
                                   .format(name=name, data=human_size(len(data)), max_pdf_bytes=human_size(MAX_PDF_BYTES))))
        return DocumentBlock(data=_b64(data), name=name, size=len(data), pages=pdf_pages(data))
    if media_type is not None:
        if len(data) > MAX_IMAGE_BYTES:
            raise AttachmentError((tr("{name} is {data}; images can be at most {max_image_bytes}. Scale it down and attach it again.")
                                   .format(name=name, data=human_size(len(data)), max_image_bytes=human_size(MAX_IMAGE_BYTES))))
        width, height = image_dimensions(data, media_type)
        if not width or not height:
            raise AttachmentError(tr("{name} looks like an image but its size cannot be read: the file may be damaged.").format(name=name))
        return ImageBlock(media_type=media_type, data=_b64(data), name=name, size=len(data), width=width, height=height)
    return TextFileBlock(name=name, text=_text_of(data, name), size=len(data))


def _text_of(data: bytes, name: str) -> str:
    for signature, what, advice in _OTHER_FORMATS:
        if data.startswith(signature):
            raise AttachmentError(tr("{name} is {what}, which cannot be attached. {advice}").format(name=name, what=tr(what), advice=tr(advice)))
    utf16 = data.startswith((b"\xff\xfe", b"\xfe\xff"))
    if not utf16 and b"\x00" in data[:8192]:
        raise AttachmentError((tr("{name} is not a text file, an image or a PDF. Attach images (PNG, JPEG, GIF, WebP), PDFs, or text "
                                  "and code files.")
                               .format(name=name)))
    if len(data) > MAX_TEXT_BYTES:
        raise AttachmentError((tr("{name} is {data} of text; a text file can be at most {max_text_bytes}. Attach the part you need.")
                               .format(name=name, data=human_size(len(data)), max_text_bytes=human_size(MAX_TEXT_BYTES))))
    return _decode(data, "utf-16" if utf16 else "utf-8-sig", name)


def _decode(data: bytes, encoding: str, name: str) -> str:
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        raise AttachmentError((tr("{name} is not UTF-8 text, an image or a PDF. Save it as UTF-8 text (or PDF) and attach it again.")
                               .format(name=name))) from None


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


_attachments_of = PerMessage(lambda message: tuple(message.attachments))  # (most are the one empty tuple)
"""Each message's attachments, looked at again only past a conversation's unchanged prefix (a send at message 3,000
reads the new messages' blocks, not every message's)."""


def check_sendable(history: Sequence[Message], new: Sequence[Attachment], limits: AttachmentLimits) -> None:
    """Raise AttachmentError, before anything is sent, when one of the `new` attachments does not fit the model
    (every reason, one a line) or when the attachments of the request (`history`, then `new`) come to more than the
    provider takes in one request. Earlier attachments the model cannot take are sent as a note (the wires do it)."""
    reasons = [reason for block in new if (reason := problem(block, limits))]
    if reasons:
        raise AttachmentError("\n".join(reasons))
    if limits.request_bytes:
        earlier = [block for blocks in _attachments_of.of(history) for block in blocks if not problem(block, limits)]
        total = sum(attachment_bytes(block) for block in [*earlier, *new])
        if total > limits.request_bytes:
            raise AttachmentError(
                (tr("The attachments of this conversation come to {total}; {provider} takes {request_bytes} in one "
                    "request. Attach fewer or smaller files, or start a new conversation for them.")
                 .format(total=human_size(total), provider=limits.provider, request_bytes=human_size(limits.request_bytes)))
            )
