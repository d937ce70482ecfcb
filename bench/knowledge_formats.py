"""PDF and DOCX text extraction libraries side by side, to choose the ones the knowledge folders use; and the speed
of the app's own extraction of plain text, code and Markdown.

    python -m venv /tmp/kf && /tmp/kf/bin/pip install pypdf cryptography pypdfium2 pdfminer.six python-docx docx2python \\
        reportlab fpdf2 msoffcrypto-tool pillow
    /tmp/kf/bin/python bench/knowledge_formats.py [--pages 50] [--keep DIR]

It makes the documents itself: a 50-page English PDF (reportlab, Helvetica), two Chinese PDFs (reportlab's
non-embedded STSong-Light CID font; fpdf2 with Noto Sans CJK embedded) and, where `chromium` is installed, a
Chinese/English page printed by headless Chromium; a two-column page drawn right column first (reading order);
a scanned (image-only) page; encrypted PDFs (RC4-128 and AES-256 with a user password, AES-128 with an owner
password only); damaged PDFs (truncated at 50 % and 95 %, random bytes, garbage after the header, stream bytes
overwritten); a DOCX with headings, a table and Chinese (python-docx), damaged and encrypted DOCX.

Each (library, document) runs in a fresh process: import time, extraction time, peak RSS above a bare interpreter,
the expected sentences found on the right page, and what happens on the damaged files. Not part of the test run.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CJK_FONT = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
WORDS = ("the index keeps every passage of the user's own files with the line or page it comes from so that an answer can "
         "cite its source and the reader can open the file at that place while the worker thread reads ten thousand files "
         "without blocking the window").split()
CHINESE = ("知识库会把用户自己的文件切成段落并记住每段所在的页码或行号这样回答时可以引用来源读者也能直接打开文件的那个位置"
           "后台线程读取一万个文件时窗口不会卡住数据库索引怎么设计香港今天天气很好明天可能下雨")
PDF_LIBS = ("pypdf", "pypdfium2", "pdfminer.six")
DOCX_LIBS = ("python-docx", "docx2python", "stdlib")


# ---------------------------------------------------------------- documents


def english_page(rng: random.Random, page: int, sentences: int = 14) -> list[str]:
    return [f"Page {page} sentence {s} says " + " ".join(rng.choices(WORDS, k=rng.randint(10, 24))) + "." for s in range(1, sentences + 1)]


def chinese_page(rng: random.Random, page: int, sentences: int = 8) -> list[str]:
    out = []
    for s in range(1, sentences + 1):
        start = rng.randrange(len(CHINESE) - 30)
        out.append(f"第{page}页第{s}句：" + CHINESE[start:start + rng.randint(16, 30)] + "。")
    return out


def wrap(text: str, width: int) -> list[str]:
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [*lines, line] if line else lines


def make_latin_pdf(path: Path, pages: int) -> dict:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    rng = random.Random(1)
    expected = {}
    c = canvas.Canvas(str(path), pagesize=A4)
    for page in range(1, pages + 1):
        sentences = english_page(rng, page)
        expected[page] = [s[:60] for s in sentences]
        text = c.beginText(50, 800)
        text.setFont("Helvetica", 10)
        for sentence in sentences:
            for line in wrap(sentence, 95):
                text.textLine(line)
            text.textLine("")
        c.drawText(text)
        c.showPage()
    c.save()
    return expected


def make_cid_pdf(path: Path, pages: int) -> dict:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.pdfgen import canvas

    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    rng = random.Random(2)
    expected = {}
    c = canvas.Canvas(str(path), pagesize=A4)
    for page in range(1, pages + 1):
        sentences = chinese_page(rng, page)
        expected[page] = sentences
        text = c.beginText(50, 800)
        text.setFont("STSong-Light", 12)
        for sentence in sentences:
            for k in range(0, len(sentence), 38):
                text.textLine(sentence[k:k + 38])
            text.textLine("")
        c.drawText(text)
        c.showPage()
    c.save()
    return expected


def make_fpdf_cjk(path: Path, pages: int) -> dict:
    from fpdf import FPDF

    rng = random.Random(3)
    expected = {}
    pdf = FPDF()
    pdf.add_font("noto", fname=CJK_FONT)
    pdf.set_font("noto", size=12)
    for page in range(1, pages + 1):
        pdf.add_page()
        sentences = chinese_page(rng, page) + english_page(rng, page, 3)
        expected[page] = [s[:40] for s in sentences]
        for sentence in sentences:
            pdf.multi_cell(0, 7, sentence)
            pdf.ln(3)
    pdf.output(str(path))
    return expected


def make_chromium_pdf(path: Path, pages: int) -> dict | None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        return None
    rng = random.Random(4)
    expected, body = {}, []
    for page in range(1, pages + 1):
        sentences = chinese_page(rng, page, 6) + english_page(rng, page, 4)
        expected[page] = [s[:40] for s in sentences]
        body.append(f"<section style='page-break-after: always'><h2>Section {page}</h2>" + "".join(f"<p>{s}</p>" for s in sentences) + "</section>")
    html = path.with_suffix(".html")
    html.write_text("<html><head><meta charset='utf-8'><style>body{font-family:'Noto Sans CJK SC',sans-serif}</style></head><body>"
                    + "".join(body) + "</body></html>", encoding="utf-8")
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer", f"--print-to-pdf={path}",
                    html.as_uri()], capture_output=True, timeout=120, check=False)
    return expected if path.exists() else None


def make_columns_pdf(path: Path) -> dict:
    """One page, two columns, the right column drawn first: does the text come out left column first?"""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=A4)
    for x, label in ((320, "RIGHT"), (50, "LEFT")):
        text = c.beginText(x, 800)
        text.setFont("Helvetica", 10)
        for n in range(1, 30):
            text.textLine(f"{label} column line {n} with words")
        c.drawText(text)
    c.showPage()
    c.save()
    return {1: ["LEFT column line 1 with", "RIGHT column line 1 with"]}


def make_scanned_pdf(path: Path) -> None:
    from PIL import Image, ImageDraw
    from reportlab.pdfgen import canvas

    image = Image.new("RGB", (600, 200), "white")
    ImageDraw.Draw(image).text((20, 80), "This page is a picture of text", fill="black")
    png = path.with_suffix(".png")
    image.save(png)
    c = canvas.Canvas(str(path))
    c.drawImage(str(png), 50, 500, 500, 170)
    c.showPage()
    c.save()


def make_encrypted(source: Path, folder: Path) -> list[Path]:
    from pypdf import PdfReader, PdfWriter

    out = []
    for name, user, algorithm in (("enc_rc4_user.pdf", "secret", "RC4-128"), ("enc_aes256_user.pdf", "secret", "AES-256"),
                                  ("enc_aes128_owner_only.pdf", "", "AES-128")):
        writer = PdfWriter(clone_from=PdfReader(source))
        writer.encrypt(user_password=user, owner_password="owner", algorithm=algorithm)
        writer.write(folder / name)
        out.append(folder / name)
    return out


def make_damaged(source: Path, folder: Path) -> list[Path]:
    data = source.read_bytes()
    rng = random.Random(5)
    cases = {
        "dmg_truncated_50.pdf": data[: len(data) // 2],
        "dmg_truncated_95.pdf": data[: len(data) * 95 // 100],
        "dmg_random.pdf": rng.randbytes(100_000),
        "dmg_header_garbage.pdf": b"%PDF-1.4\n" + rng.randbytes(50_000),
        "dmg_empty.pdf": b"",
    }
    corrupted = bytearray(data)
    for match in list(re.finditer(rb"stream\r?\n", data))[::3]:
        corrupted[match.end():match.end() + 200] = rng.randbytes(200)
    cases["dmg_streams_overwritten.pdf"] = bytes(corrupted)
    for name, content in cases.items():
        (folder / name).write_bytes(content)
    return [folder / n for n in cases]


def make_docx(path: Path, paragraphs: int) -> dict:
    from docx import Document

    rng = random.Random(6)
    doc = Document()
    doc.add_heading("Knowledge report", 0)
    expected = []
    for section in range(1, paragraphs // 50 + 1):
        doc.add_heading(f"Section {section}", 1)
        for sub in (1, 2):
            doc.add_heading(f"Part {section}.{sub}", 2)
            for _ in range(12):
                sentence = " ".join(english_page(rng, section, 2)) if rng.random() < 0.7 else "".join(chinese_page(rng, section, 2))
                doc.add_paragraph(sentence)
                expected.append(sentence[:50])
        if section % 5 == 1:
            table = doc.add_table(rows=6, cols=3)
            for r, row in enumerate(table.rows):
                for k, cell in enumerate(row.cells):
                    cell.text = f"cell {section}-{r}-{k}"
            expected.append(f"cell {section}-3-1")
    doc.save(str(path))
    return {1: expected}


def make_docx_variants(source: Path, folder: Path) -> list[Path]:
    data = source.read_bytes()
    (folder / "dmg_docx_truncated.docx").write_bytes(data[: len(data) // 2])
    (folder / "dmg_docx_random.docx").write_bytes(random.Random(7).randbytes(50_000))
    out = [folder / "dmg_docx_truncated.docx", folder / "dmg_docx_random.docx"]
    try:
        import msoffcrypto.format.ooxml

        with open(source, "rb") as plain, open(folder / "enc_docx.docx", "wb") as encrypted:
            msoffcrypto.format.ooxml.OOXMLFile(plain).encrypt("secret", encrypted)
        out.append(folder / "enc_docx.docx")
    except ImportError:
        pass
    return out


# ---------------------------------------------------------------- one extraction in a fresh process


def pdf_pypdf(path: str) -> list[str]:
    from pypdf import PdfReader

    reader = PdfReader(path)
    if reader.is_encrypted and not reader.decrypt(""):
        raise PermissionError("encrypted")
    return [page.extract_text() or "" for page in reader.pages]


def pdf_pypdfium2(path: str) -> list[str]:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(path)
    pages = []
    for index in range(len(doc)):
        page = doc[index]
        textpage = page.get_textpage()
        pages.append(textpage.get_text_bounded())
        textpage.close()
        page.close()
    doc.close()
    return pages


def pdf_pdfminer(path: str) -> list[str]:
    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LTTextContainer

    return ["".join(el.get_text() for el in layout if isinstance(el, LTTextContainer)) for layout in extract_pages(path)]


def docx_python_docx(path: str) -> list[str]:
    from docx import Document
    from docx.table import Table

    parts = []
    for block in Document(path).iter_inner_content():
        if isinstance(block, Table):
            parts.extend(" | ".join(cell.text for cell in row.cells) for row in block.rows)
        else:
            parts.append(block.text)
    return ["\n".join(parts)]


def docx_docx2python(path: str) -> list[str]:
    from docx2python import docx2python

    with docx2python(path) as doc:
        return [doc.text]


def docx_stdlib(path: str) -> list[str]:
    from desktop_copilot.core.knowledge.extract_docx import docx_paragraphs

    return ["\n".join(p[0] for p in docx_paragraphs(path))]


EXTRACTORS = {"pypdf": pdf_pypdf, "pypdfium2": pdf_pypdfium2, "pdfminer.six": pdf_pdfminer,
              "python-docx": docx_python_docx, "docx2python": docx_docx2python, "stdlib": docx_stdlib}
IMPORTS = {"pypdf": "pypdf", "pypdfium2": "pypdfium2", "pdfminer.six": "pdfminer.high_level", "python-docx": "docx",
           "docx2python": "docx2python", "stdlib": "desktop_copilot.core.knowledge.extract_docx"}


def _hwm_mb() -> float:
    """Peak resident memory of this process so far (VmHWM; ru_maxrss would carry the parent's over exec)."""
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM")) / 1024


def child(library: str, path: str) -> None:
    """Import one library and extract one document on a worker thread, as the app does, while this (main) thread
    wakes every millisecond: how late it wakes is what a window would feel."""
    import threading

    sys.path.insert(0, str(ROOT))
    base = _hwm_mb()
    started = time.perf_counter()
    __import__(IMPORTS[library])
    imported = time.perf_counter()
    result: dict = {"import_s": imported - started}

    def work() -> None:
        try:
            result["pages"] = EXTRACTORS[library](path)
        except BaseException as exc:  # noqa: BLE001 - what each library raises is what is measured
            result["error"] = f"{type(exc).__name__}: {str(exc)[:120]}"
        result["extract_s"] = time.perf_counter() - imported

    worker = threading.Thread(target=work)
    worker.start()
    stall = 0.0
    while worker.is_alive():
        before = time.perf_counter()
        time.sleep(0.001)
        stall = max(stall, time.perf_counter() - before - 0.001)
    result["stall_ms"] = stall * 1000
    result["rss_mb"] = _hwm_mb() - base
    print(json.dumps(result))


def run(library: str, path: Path, timeout: float = 120) -> dict:
    try:
        done = subprocess.run([sys.executable, __file__, "--child", library, str(path)], capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout:.0f} s"}
    if done.returncode != 0:
        return {"error": f"crashed (exit {done.returncode}): {done.stderr.strip()[-120:]}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------- scoring and report


def squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


def score(pages: list[str], expected: dict[int, list[str]]) -> tuple[int, int]:
    found = total = 0
    for page, snippets in expected.items():
        text = squeeze(pages[page - 1]) if page <= len(pages) else ""
        total += len(snippets)
        found += sum(squeeze(s) in text for s in snippets)
    return found, total


def installed_size_mb(dist: str) -> float:
    files = importlib.metadata.distribution(dist).files or []
    return sum((f.size or 0) for f in files) / 1e6


def licence(dist: str) -> str:
    meta = importlib.metadata.metadata(dist)
    return meta.get("License-Expression") or next((c.split(" :: ")[-1] for c in meta.get_all("Classifier") or [] if c.startswith("License")),
                                                   (meta.get("License") or "?")[:40])


def report_library(library: str, docs: dict[str, tuple[Path, dict | None]]) -> None:
    rows = []
    for name, (path, expected) in docs.items():
        result = run(library, path)
        pages = result.get("pages")
        if pages is None:
            outcome = result["error"]
        elif expected is None:
            chars = sum(len(p.strip()) for p in pages)
            outcome = f"no error: {len(pages)} pages, {chars} chars" + (", NUL in text" if any("\x00" in p for p in pages) else "")
        else:
            found, total = score(pages, expected)
            outcome = f"{found}/{total} sentences found"
            if name == "columns.pdf":
                text = squeeze(pages[0])
                left, right = text.find("LEFTcolumnline1"), text.find("RIGHTcolumnline1")
                outcome += ", left column first" if 0 <= left < right else ", right column first"
            if any("\x00" in p or "\ufffd" in p for p in pages):
                outcome += ", NUL/U+FFFD in text"
        per_page = f"{1000 * result.get('extract_s', 0) / max(len(pages or [1]), 1):7.2f}"
        rows.append(f"| {name} | {result.get('import_s', 0) * 1000:6.0f} | {result.get('extract_s', 0) * 1000:8.0f} | {per_page} | "
                    f"{result.get('rss_mb', 0):6.1f} | {result.get('stall_ms', 0):5.1f} | {outcome} |")
    print(f"\n### {library}\n")
    print("| document | import ms | extract ms | ms/page | peak RSS +MB | main stall ms | outcome |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    print("\n".join(rows))


def own_text_speed() -> None:
    """MB/s of the app's own cutting of plain text, code and Markdown (the repository's files, repeated to ~10 MB)."""
    sys.path.insert(0, str(ROOT))
    from desktop_copilot.core.knowledge.extract_code import code_passages
    from desktop_copilot.core.knowledge.extract_markdown import markdown_passages
    from desktop_copilot.core.knowledge.extract_text import text_passages

    code = "".join(p.read_text(encoding="utf-8") for p in sorted(ROOT.glob("desktop_copilot/**/*.py")))
    markdown = "".join(p.read_text(encoding="utf-8") for p in sorted(ROOT.glob("**/*.md")) if ".venv" not in p.parts)
    rng = random.Random(8)
    prose = "\n\n".join(" ".join(rng.choices(WORDS, k=rng.randint(20, 120))) for _ in range(3000)) + "\n\n" + "\n".join(chinese_page(rng, 1, 2000))
    print("\n### the app's own text extraction\n")
    print("| kind | MB | seconds | MB/s | passages |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for kind, text, cut in (("plain text", prose, text_passages), ("code (.py)", code, code_passages), ("markdown", markdown, markdown_passages)):
        text = text * max(1, int(10e6 / max(len(text.encode()), 1)))
        size = len(text.encode()) / 1e6
        best = min(_timed(cut, text) for _ in range(3))
        print(f"| {kind} | {size:.1f} | {best[0]:.3f} | {size / best[0]:.0f} | {best[1]} |")


def _timed(cut, text: str) -> tuple[float, int]:
    started = time.perf_counter()
    passages = cut(text, 1500)
    return time.perf_counter() - started, len(passages)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=50)
    parser.add_argument("--keep", type=Path, help="make the documents in this folder and keep them")
    parser.add_argument("--child", nargs=2, metavar=("LIBRARY", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    folder = args.keep or Path(tempfile.mkdtemp(prefix="knowledge-formats-"))
    folder.mkdir(parents=True, exist_ok=True)
    pdfs: dict[str, tuple[Path, dict | None]] = {}
    pdfs["latin.pdf"] = (folder / "latin.pdf", make_latin_pdf(folder / "latin.pdf", args.pages))
    pdfs["cjk_cid.pdf"] = (folder / "cjk_cid.pdf", make_cid_pdf(folder / "cjk_cid.pdf", 10))
    pdfs["cjk_fpdf.pdf"] = (folder / "cjk_fpdf.pdf", make_fpdf_cjk(folder / "cjk_fpdf.pdf", 10))
    if (expected := make_chromium_pdf(folder / "cjk_chromium.pdf", args.pages)) is not None:
        pdfs["cjk_chromium.pdf"] = (folder / "cjk_chromium.pdf", expected)
    pdfs["columns.pdf"] = (folder / "columns.pdf", make_columns_pdf(folder / "columns.pdf"))
    make_scanned_pdf(folder / "scanned.pdf")
    pdfs["scanned.pdf"] = (folder / "scanned.pdf", None)
    for path in make_encrypted(folder / "latin.pdf", folder):
        pdfs[path.name] = (path, pdfs["latin.pdf"][1] if "owner_only" in path.name else None)
    for path in make_damaged(folder / "latin.pdf", folder):
        pdfs[path.name] = (path, None)
    docxs: dict[str, tuple[Path, dict | None]] = {"report.docx": (folder / "report.docx", make_docx(folder / "report.docx", 1500))}
    for path in make_docx_variants(folder / "report.docx", folder):
        docxs[path.name] = (path, None)
    print(f"documents in {folder}; {os.cpu_count()} cores; Python {sys.version.split()[0]}")
    print("\n## Libraries\n\n| library | version | licence | installed MB |\n| --- | --- | --- | ---: |")
    for dist in (*PDF_LIBS, "python-docx", "docx2python"):
        print(f"| {dist} | {importlib.metadata.version(dist)} | {licence(dist)} | {installed_size_mb(dist):.1f} |")
    print("\n## PDF")
    for library in PDF_LIBS:
        report_library(library, pdfs)
    print("\n## DOCX")
    for library in DOCX_LIBS:
        report_library(library, docxs)
    own_text_speed()
    if args.keep is None:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
