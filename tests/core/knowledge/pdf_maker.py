"""Small valid PDFs made by hand for the tests: pages of Latin text in Helvetica, an outline, a page with no text,
and the standard security handler (RC4, 40-bit, revision 2) for an encrypted file."""

from __future__ import annotations

import hashlib
import struct

_PAD = bytes.fromhex("28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A")


def _rc4(key: bytes, data: bytes) -> bytes:
    s = list(range(256))
    j = 0
    for i in range(256):
        j = (j + s[i] + key[i % len(key)]) % 256
        s[i], s[j] = s[j], s[i]
    out = bytearray()
    i = j = 0
    for byte in data:
        i = (i + 1) % 256
        j = (j + s[i]) % 256
        s[i], s[j] = s[j], s[i]
        out.append(byte ^ s[(s[i] + s[j]) % 256])
    return bytes(out)


def _escape(text: str) -> bytes:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("cp1252")


def _content(lines: list[str]) -> bytes:
    if not lines:  # a "scanned" page: something drawn, no text
        return b"0.5 g 72 400 450 300 re f"
    body = b"".join(b"(" + _escape(line) + b") Tj T*\n" for line in lines)
    return b"BT /F1 11 Tf 14 TL 72 770 Td\n" + body + b"ET"


def make_pdf(pages: list[list[str]], *, outline: list[tuple[str, int]] = (), user_password: str | None = None) -> bytes:
    """A PDF with one page per list of lines (an empty list: a page with a grey box and no text); `outline` is
    (title, 0-based page) bookmarks; `user_password` encrypts the file (RC4 40-bit) so that it needs that password
    (not with an outline: its titles would need encrypting too)."""
    objects: dict[int, bytes] = {1: b"", 2: b"", 3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"}
    streams: dict[int, bytes] = {}
    kids = []
    number = 4
    for lines in pages:
        page, content = number, number + 1
        number += 2
        objects[page] = (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
                         f"/Contents {content} 0 R >>").encode()
        streams[content] = _content(lines)
        kids.append(page)
    objects[2] = f"<< /Type /Pages /Kids [{' '.join(f'{k} 0 R' for k in kids)}] /Count {len(kids)} >>".encode()
    catalog = b"<< /Type /Catalog /Pages 2 0 R"
    if outline:
        root = number
        items = list(range(root + 1, root + 1 + len(outline)))
        objects[root] = f"<< /Type /Outlines /First {items[0]} 0 R /Last {items[-1]} 0 R /Count {len(items)} >>".encode()
        for n, ((title, page_index), item) in enumerate(zip(outline, items)):
            links = (f" /Prev {items[n - 1]} 0 R" if n else "") + (f" /Next {items[n + 1]} 0 R" if n + 1 < len(items) else "")
            objects[item] = (f"<< /Title ({title}) /Parent {root} 0 R{links} /Dest [{kids[page_index]} 0 R /XYZ 0 792 0] >>").encode()
        number = items[-1] + 1
        catalog += f" /Outlines {root} 0 R".encode()
    objects[1] = catalog + b" >>"
    trailer = b"/Root 1 0 R"
    if user_password is not None:
        encrypt, key = _security(user_password, number)
        objects[number] = encrypt
        trailer += f" /Encrypt {number} 0 R /ID [<{'ab' * 16}> <{'ab' * 16}>]".encode()
        streams = {n: _rc4(hashlib.md5(key + struct.pack("<I", n)[:3] + b"\0\0").digest()[:10], data) for n, data in streams.items()}
    return _assemble(objects, streams, trailer)


def _security(user_password: str, number: int) -> tuple[bytes, bytes]:
    """The /Encrypt dictionary (standard handler, V1 R2) and the file key, as in Algorithms 2–4 of ISO 32000-1."""
    user = (user_password.encode("latin-1") + _PAD)[:32]
    owner = _rc4(hashlib.md5((b"owner" + _PAD)[:32]).digest()[:5], user)
    permissions = -4
    key = hashlib.md5(user + owner + struct.pack("<i", permissions) + bytes.fromhex("ab" * 16)).digest()[:5]
    u = _rc4(key, _PAD)
    encrypt = f"<< /Filter /Standard /V 1 /R 2 /O <{owner.hex()}> /U <{u.hex()}> /P {permissions} >>".encode()
    return encrypt, key


def _assemble(objects: dict[int, bytes], streams: dict[int, bytes], trailer: bytes) -> bytes:
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = {}
    for n in sorted({*objects, *streams}):
        offsets[n] = len(out)
        if n in streams:
            data = streams[n]
            out += f"{n} 0 obj\n<< /Length {len(data)} >>\nstream\n".encode() + data + b"\nendstream\nendobj\n"
        else:
            out += f"{n} 0 obj\n".encode() + objects[n] + b"\nendobj\n"
    size = max(offsets) + 1
    xref = len(out)
    out += f"xref\n0 {size}\n0000000000 65535 f \n".encode()
    for n in range(1, size):
        out += f"{offsets[n]:010d} 00000 n \n".encode() if n in offsets else b"0000000000 65535 f \n"
    out += f"trailer\n<< /Size {size} ".encode() + trailer + f" >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)
