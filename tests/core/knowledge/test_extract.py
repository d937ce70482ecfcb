"""Files of every indexed kind, made in the test, cut into passages: the text, the sizes and the locations."""

from __future__ import annotations

import codecs
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_copilot.core.knowledge.extract import FORMATS, Passage, UnreadableFile, extract_passages, kind_of, location_label, looks_binary
from desktop_copilot.core.knowledge.extract_units import CONTINUE, HARD, SOFT, Block, line_units, pack
from tests.core.knowledge.docx_maker import heading, make_docx, paragraph, table
from tests.core.knowledge.pdf_maker import make_pdf

LOREM = ("The knowledge index keeps every passage of the user's own files together with the line or the page it came from, "
         "so that an answer can cite its source and the reader can open the file at that very place.")
CHINESE = "知识库会把用户自己的文件切成段落并记住每段所在的页码或行号，这样回答时可以引用来源，读者也能直接打开文件的那个位置。"


def write(tmp_path: Path, name: str, text: str, encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def first_words(passage: Passage, n: int = 3) -> str:
    return " ".join(passage.text.split()[:n])


def assert_well_formed(passages: list[Passage], max_chars: int) -> None:
    assert passages
    for p in passages:
        assert p.text.strip(), p
        assert len(p.text) <= max_chars, (len(p.text), p)


def assert_lines_point_at_text(path: Path, passages: list[Passage], encoding: str = "utf-8") -> None:
    """Lines start..end of the file hold the passage's words: its first word on the first line, its last on the last."""
    lines = path.read_bytes().decode(encoding).lstrip("\ufeff").splitlines()
    previous_end = 0
    for p in passages:
        assert p.start_line is not None and p.end_line is not None and 1 <= p.start_line <= p.end_line <= len(lines), p
        assert p.start_line >= previous_end, "passages come in file order"
        source = "".join("".join(lines[p.start_line - 1:p.end_line]).split())
        assert first_words(p, 1) in lines[p.start_line - 1], (p, lines[p.start_line - 1])
        assert "".join(first_words(p).split()) in source, p
        assert p.text.split()[-1] in lines[p.end_line - 1], (p, lines[p.end_line - 1])
        previous_end = p.end_line


# ---------------------------------------------------------------- kinds and binary sniffing


def test_kind_by_suffix_and_well_known_names():
    assert kind_of(Path("notes/README.md")) == "markdown"
    assert kind_of(Path("a/B.PY")) == "code"
    assert kind_of(Path("x.tsx")) == kind_of(Path("x.go")) == kind_of(Path("x.rs")) == kind_of(Path("q.sql")) == "code"
    assert kind_of(Path("report.PDF")) == "pdf"
    assert kind_of(Path("letter.docx")) == "docx"
    assert kind_of(Path("page.htm")) == "html"
    assert kind_of(Path("notes.txt")) == "text"
    assert kind_of(Path("Makefile")) == kind_of(Path("Dockerfile")) == kind_of(Path("Dockerfile.dev")) == "code"
    assert kind_of(Path("README")) == kind_of(Path("LICENSE")) == "text"
    assert kind_of(Path("photo.jpg")) is None and kind_of(Path("old.doc")) is None and kind_of(Path("noext")) is None
    assert set(FORMATS.values()) == {"text", "markdown", "code", "html", "pdf", "docx"}
    assert all(s == s.lower() and s.startswith(".") for s in FORMATS)


def test_looks_binary():
    assert looks_binary(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    assert looks_binary(bytes(range(256)) * 4)
    assert looks_binary(b"\x01\x02\x03\x04\x05\x06 abc" * 10)
    assert not looks_binary(b"")
    assert not looks_binary(("plain text\n" + CHINESE).encode())
    assert not looks_binary("café naïve\r\n\tfin\x0c".encode("latin-1"))
    assert not looks_binary(codecs.BOM_UTF16_LE + "UTF-16 text".encode("utf-16-le"))
    assert not looks_binary(b"\x1b[31mred\x1b[0m terminal log\n")


def test_binary_file_is_unreadable(tmp_path: Path):
    path = tmp_path / "blob.txt"
    path.write_bytes(b"\x00\x01binary\x00" * 100)
    with pytest.raises(UnreadableFile, match="binary file"):
        extract_passages(path, "text")


# ---------------------------------------------------------------- plain text


def test_plain_text_in_chinese_and_english_by_paragraph(tmp_path: Path):
    paragraphs = [f"{n}. {LOREM}" if n % 2 else f"第{n}段。{CHINESE * 2}" for n in range(1, 13)]
    path = write(tmp_path, "notes.txt", "\n\n".join(paragraphs) + "\n")
    passages = extract_passages(path, "text", max_chars=600)
    assert_well_formed(passages, 600)
    assert_lines_point_at_text(path, passages)
    assert len(passages) > 2
    assert all(len(p.text) >= 150 for p in passages[:-1]), "small paragraphs are merged"
    text = "\n\n".join(p.text for p in passages)
    assert all(paragraph in text for paragraph in paragraphs), "paragraphs are not cut when they fit"
    assert passages[0].heading == "" and passages[0].page is None


def test_crlf_latin1_and_utf16_text_keep_their_line_numbers(tmp_path: Path):
    body = "Intro line\r\n\r\n" + "\r\n".join(f"Line {n} café" for n in range(3, 40)) + "\r\n"
    for name, encoding in (("crlf.txt", "utf-8"), ("latin1.txt", "latin-1"), ("utf16.txt", "utf-16")):
        path = write(tmp_path, name, body, encoding)
        passages = extract_passages(path, "text", max_chars=200)
        assert_well_formed(passages, 200)
        assert_lines_point_at_text(path, passages, encoding)
        assert "café" in passages[-1].text
        assert passages[-1].end_line == 39


def test_a_long_paragraph_is_cut_between_lines_and_a_huge_line_between_words(tmp_path: Path):
    lines = [f"Sentence {n} of a long paragraph that keeps going without any blank line." for n in range(1, 101)]
    huge = " ".join(f"word{n}" for n in range(2000))
    path = write(tmp_path, "long.txt", "\n".join(lines) + "\n\n" + huge + "\n\n" + CHINESE * 40 + "\n")
    passages = extract_passages(path, "text", max_chars=500)
    assert_well_formed(passages, 500)
    assert_lines_point_at_text(path, passages)
    on_huge_line = [p for p in passages if p.start_line == 102]
    assert len(on_huge_line) > 10 and all(p.end_line == 102 for p in on_huge_line)
    assert all(re.fullmatch(r"word\d+( word\d+)*", p.text) for p in on_huge_line), "cut between words"
    assert " ".join(p.text for p in on_huge_line) == huge
    assert "".join(p.text for p in passages if p.start_line == 104) == CHINESE * 40
    assert [p.start_line for p in passages if p.start_line <= 100][:2] == [1, passages[0].end_line + 1]


# ---------------------------------------------------------------- Markdown


MARKDOWN = f"""---
title: Notes
---

# Project notes

Some introduction that explains what these notes are about.

## Install

Run the installer. {LOREM}

### Linux

```sh
sudo apt-get install thing

# a blank line above, inside the fence
thing --version
```

Then restart.

Setext heading
--------------

Under the setext heading. {LOREM}

## Usage

* one
* two
"""


def test_markdown_by_headings_with_fenced_code_kept_whole(tmp_path: Path):
    path = write(tmp_path, "notes.md", MARKDOWN)
    passages = extract_passages(path, "markdown", max_chars=400)
    assert_well_formed(passages, 400)
    assert_lines_point_at_text(path, passages)
    headings = [p.heading for p in passages]
    assert "Project notes › Install › Linux" in headings
    assert "Project notes › Setext heading" in headings
    assert headings[-1] == "Project notes › Usage"
    fence = next(p for p in passages if "sudo apt-get" in p.text)
    assert "thing --version" in fence.text and "# a blank line above" in fence.text
    usage = passages[-1]
    assert usage.text.startswith("## Usage") and "* two" in usage.text
    for p in passages:  # never across a level 1–2 heading: a "## " line only at a passage's start
        assert "\n## " not in p.text and "\n# Project" not in p.text
    install = next(p for p in passages if p.text.startswith("## Install"))
    assert install.heading.startswith("Project notes › Install")


def test_markdown_heading_stays_with_its_text_when_a_section_is_cut(tmp_path: Path):
    text = "## Long section\n\n" + "\n\n".join(f"Paragraph {n}. {LOREM}" for n in range(10)) + "\n"
    path = write(tmp_path, "long.md", text)
    passages = extract_passages(path, "markdown", max_chars=500)
    assert_well_formed(passages, 500)
    assert_lines_point_at_text(path, passages)
    assert passages[0].text.startswith("## Long section\n\nParagraph 0.")
    assert all(p.heading == "Long section" for p in passages)


# ---------------------------------------------------------------- code


PYTHON = '''"""A module docstring."""

import os

CONSTANT = 1


@decorator
def first_function(a, b):
    """Adds."""
    return a + b


class Parser:
    """Reads things."""

    def __init__(self):
        self.items = []

    # a comment above the method
    def feed(self, data):
        for line in data.splitlines():
            self.items.append(line)

        return len(self.items)


async def main():
    await thing()
'''


def test_python_by_definitions(tmp_path: Path):
    path = write(tmp_path, "mod.py", PYTHON)
    passages = extract_passages(path, "code", max_chars=120)
    assert_well_formed(passages, 120)
    assert_lines_point_at_text(path, passages)
    by_heading = {}
    for p in passages:
        by_heading.setdefault(p.heading, p)
    assert by_heading["first_function"].text == 'CONSTANT = 1\n\n@decorator\ndef first_function(a, b):\n    """Adds."""\n    return a + b'
    assert by_heading["first_function"].start_line == 5, "a small block merges into the next definition, which names it"
    assert by_heading["Parser.feed"].text.startswith("    # a comment above the method\n    def feed")
    assert by_heading["Parser.__init__"].text.startswith('class Parser:\n    """Reads things."""\n\n    def __init__(self):')
    assert by_heading["main"].text == "async def main():\n    await thing()"
    assert [p.heading for p in passages].count("Parser.feed") == 2, "a definition longer than max_chars is cut"


def test_small_definitions_are_merged_into_one_passage(tmp_path: Path):
    path = write(tmp_path, "mod.py", PYTHON)
    passages = extract_passages(path, "code")
    assert_lines_point_at_text(path, passages)
    assert len(passages) == 2, "a passage grows over small definitions until it reaches the minimum size"
    assert passages[0].start_line == 1 and passages[-1].end_line == PYTHON.count("\n")


JAVASCRIPT = """import { thing } from "./thing.js";

// Adds two numbers.
export function add(a, b) {
  return a + b;
}

export const double = (x) => {
  return add(x, x);
};

class Counter {
  constructor() {
    this.count = 0;
  }

  increment(by) {
    this.count += by;
    return this.count;
  }
}

function* ids() {
  let n = 0;
  while (true) yield n++;
}
"""


def test_javascript_by_definitions(tmp_path: Path):
    path = write(tmp_path, "app.js", JAVASCRIPT)
    passages = extract_passages(path, "code", max_chars=80)
    assert_well_formed(passages, 80)
    assert_lines_point_at_text(path, passages)
    by_heading = {p.heading: p for p in passages}
    assert by_heading["add"].text.startswith("// Adds two numbers.\nexport function add")
    assert by_heading["double"].start_line == 8
    assert by_heading["Counter.increment"].text.startswith("  increment(by) {")
    assert by_heading["Counter.constructor"].text.startswith("class Counter {\n  constructor() {"), "a class's head goes with its first member"
    assert by_heading["ids"].text.startswith("function* ids() {")


def test_a_long_function_is_cut_at_blank_lines(tmp_path: Path):
    body = "\n\n".join("\n".join(f"    step_{b}_{n} = compute({n})" for n in range(8)) for b in range(10))
    path = write(tmp_path, "long.py", f"def long_function():\n{body}\n    return 1\n")
    passages = extract_passages(path, "code", max_chars=700)
    assert_well_formed(passages, 700)
    assert_lines_point_at_text(path, passages)
    assert len(passages) > 2 and all(p.heading == "long_function" for p in passages)
    assert all(p.text.splitlines()[-1].strip().startswith(("step_", "return")) for p in passages)
    assert all(p.text.lstrip().startswith(("def", "step_")) and "_0 = compute(0)" in p.text.splitlines()[0] or p is passages[0]
               for p in passages), "cut where a blank line is"


# ---------------------------------------------------------------- HTML


HTML = """<!DOCTYPE html>
<html>
<head>
  <title>Head title must not appear</title>
  <style>body { color: red; } .hidden-style-rule {}</style>
  <script>var secretScript = "must not appear";</script>
</head>
<body>
  <h1>Main title</h1>
  <p>First paragraph with <a href="https://example.invalid/secret-url">a link</a>
     and <b>bold</b> words.</p>
  <!-- a comment that must not appear -->
  <h2>Table section</h2>
  <table>
    <tr><th>Name</th><th>Value</th></tr>
    <tr><td>alpha</td><td>1</td></tr>
  </table>
  <ul>
    <li>item one</li>
    <li>item two</li>
  </ul>
  <pre>code line 1

code line 3</pre>
  <div hidden>hidden text</div>
  <script>document.write("no")</script>
  <p>Last &amp; final paragraph 香港</p>
</body>
</html>
"""


def test_html_visible_text_only_by_headings_with_source_lines(tmp_path: Path):
    path = write(tmp_path, "page.html", HTML)
    passages = extract_passages(path, "html", max_chars=1500)
    assert_well_formed(passages, 1500)
    text = "\n".join(p.text for p in passages)
    for absent in ("Head title", "color: red", "secretScript", "secret-url", "https://", "a comment", "hidden text", "document.write"):
        assert absent not in text
    assert "First paragraph with a link and bold words." in text
    assert "Name | Value\nalpha | 1" in text
    assert "item one\nitem two" in text, "list items and table rows follow each other line by line"
    assert "code line 1\n\ncode line 3" in text
    assert "Last & final paragraph 香港" in text
    first, second = passages
    assert (first.heading, first.start_line, first.end_line) == ("Main title", 9, 11)
    assert first.text == "Main title\n\nFirst paragraph with a link and bold words."
    assert second.heading == "Main title › Table section" and second.start_line == 13 and second.end_line == 27


def test_html_in_a_declared_legacy_encoding(tmp_path: Path):
    html = '<html><head><meta charset="windows-1252"></head><body>\n<p>Caf\xe9 cr\xe8me</p>\n</body></html>'
    path = tmp_path / "old.html"
    path.write_bytes(html.encode("cp1252"))
    passages = extract_passages(path, "html")
    assert [(p.text, p.start_line) for p in passages] == [("Café crème", 2)]


def test_html_text_is_located_on_its_own_lines_not_its_tags(tmp_path: Path):
    path = write(tmp_path, "indented.html", "<html><body>\n<div>\n  <p>\n    Indented text\n    continues\n  </p>\n</div>\n</body></html>\n")
    assert [(p.text, p.start_line, p.end_line) for p in extract_passages(path, "html")] == [("Indented text continues", 4, 5)]


def test_html_cut_into_many_passages_keeps_lines_in_order(tmp_path: Path):
    body = "\n".join(f"<h3>Part {n}</h3>\n<p>{LOREM}</p>" for n in range(30))
    path = write(tmp_path, "many.html", f"<html><body>\n{body}\n</body></html>\n")
    passages = extract_passages(path, "html")
    assert_well_formed(passages, 1500)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(passages) == 15, "each section is below the minimum size, so two go together"
    for n, p in enumerate(passages):
        assert p.heading == f"Part {2 * n}" and p.text.startswith(f"Part {2 * n}\n\n") and f"Part {2 * n + 1}\n\n" in p.text
        assert (p.start_line, p.end_line) == (2 + 4 * n, 5 + 4 * n)
        assert lines[p.start_line - 1] == f"<h3>Part {2 * n}</h3>" and lines[p.end_line - 1].startswith("<p>")


# ---------------------------------------------------------------- PDF


def pdf_file(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_pdf_pages_with_outline_headings(tmp_path: Path):
    pages = [[f"Page {n} line {k}: the quick brown fox jumps over the lazy dog." for k in range(1, 9)] for n in range(1, 6)]
    path = pdf_file(tmp_path, "doc.pdf", make_pdf(pages, outline=[("Introduction", 0), ("Results", 2)]))
    passages = extract_passages(path, "pdf")
    assert_well_formed(passages, 1500)
    assert [p.page for p in passages] == [1, 2, 3, 4, 5], "one short page, one passage: never across pages"
    for p in passages:
        assert p.text.startswith(f"Page {p.page} line 1:") and f"Page {p.page} line 8:" in p.text
        assert p.start_line is None and p.end_line is None
    assert [p.heading for p in passages] == ["Introduction", "Introduction", "Results", "Results", "Results"]
    assert location_label("pdf", passages[2]) == "page 3"


def test_a_long_pdf_page_is_cut_into_several_passages(tmp_path: Path):
    lines = [f"Line {k} of a long page. {LOREM[:60]}" for k in range(1, 50)]
    path = pdf_file(tmp_path, "long.pdf", make_pdf([lines, ["Second page."]]))
    passages = extract_passages(path, "pdf", max_chars=600)
    assert_well_formed(passages, 600)
    assert {p.page for p in passages[:-1]} == {1} and len(passages) > 3
    assert passages[-1].page == 2 and passages[-1].text == "Second page."
    assert "\n".join(p.text for p in passages[:-1]) == "\n".join(lines)


def test_a_scanned_pdf_has_no_text_layer(tmp_path: Path):
    path = pdf_file(tmp_path, "scan.pdf", make_pdf([[], []]))
    with pytest.raises(UnreadableFile, match=r"no text layer \(scanned PDF\?\)"):
        extract_passages(path, "pdf")


def test_a_pdf_with_some_empty_pages_skips_them(tmp_path: Path):
    path = pdf_file(tmp_path, "mixed.pdf", make_pdf([["Cover text."], [], ["Third page text."]]))
    assert [(p.page, p.text) for p in extract_passages(path, "pdf")] == [(1, "Cover text."), (3, "Third page text.")]


def test_an_encrypted_pdf_says_so(tmp_path: Path):
    path = pdf_file(tmp_path, "secret.pdf", make_pdf([["Secret text."]], user_password="pw"))
    with pytest.raises(UnreadableFile, match=r"^encrypted PDF"):
        extract_passages(path, "pdf")


@pytest.mark.parametrize("damage", ["truncated", "garbage", "empty", "header only"])
def test_a_damaged_pdf_says_so(tmp_path: Path, damage: str):
    good = make_pdf([[f"Line {k}" for k in range(40)]] * 3)
    data = {"truncated": good[: len(good) // 2], "garbage": bytes(range(256)) * 50, "empty": b"",
            "header only": b"%PDF-1.7\n" + b"\x00\xff" * 500}[damage]
    path = pdf_file(tmp_path, "bad.pdf", data)
    with pytest.raises(UnreadableFile, match=r"^damaged PDF"):
        extract_passages(path, "pdf")


# ---------------------------------------------------------------- DOCX


def test_docx_paragraphs_headings_and_tables(tmp_path: Path):
    path = make_docx(tmp_path / "report.docx", [
        paragraph("Quarterly report", "Title"),              # 1
        heading("Summary", 1),                               # 2
        paragraph("Sales went up.\tA lot."),                 # 3
        paragraph(""),                                       # 4
        paragraph("第二段：" + CHINESE),                      # 5
        heading("Figures", 2),                               # 6
        table([["Region", "Sales"], ["North", "12"]]),       # 7–10
        paragraph("After the table."),                       # 11
        heading("Next steps", 1),                            # 12
        paragraph(f"{LOREM}\nline two"),                     # 13
    ])
    passages = extract_passages(path, "docx")
    assert_well_formed(passages, 1500)
    assert [(p.start_line, p.end_line, p.heading) for p in passages] == [
        (1, 5, "Quarterly report › Summary"),
        (6, 11, "Quarterly report › Summary › Figures"),
        (12, 13, "Quarterly report › Next steps"),
    ]
    assert passages[0].text == f"Quarterly report\n\nSummary\n\nSales went up.\tA lot.\n\n第二段：{CHINESE}"
    assert passages[1].text == "Figures\n\nRegion | Sales\nNorth | 12\n\nAfter the table."
    assert passages[2].text == f"Next steps\n\n{LOREM}\nline two"
    assert location_label("docx", passages[1]) == "paragraphs 6–11"
    small = extract_passages(path, "docx", max_chars=120)
    assert_well_formed(small, 120)
    assert [(p.start_line, p.end_line) for p in small[2:]] == [(12, 12), (13, 13), (13, 13)]
    assert small[2].text == "Next steps" and small[3].text.startswith("The knowledge") and small[4].text.endswith("place.\nline two")
    assert location_label("docx", small[3]) == "paragraph 13"


def test_docx_text_box_counted_once_and_deleted_text_left_out(tmp_path: Path):
    mc = "http://schemas.openxmlformats.org/markup-compatibility/2006"
    shape = (f'<w:p><w:r><w:t>Before the box. </w:t></w:r><w:r><mc:AlternateContent xmlns:mc="{mc}">'
             f'<mc:Choice Requires="wps"><w:txbxContent>{paragraph("Boxed text.")}</w:txbxContent></mc:Choice>'
             f'<mc:Fallback><w:txbxContent>{paragraph("Boxed text.")}</w:txbxContent></mc:Fallback></mc:AlternateContent></w:r>'
             '<w:del><w:r><w:delText>deleted words</w:delText></w:r></w:del>'
             '<w:r><w:instrText>HYPERLINK "https://example.invalid"</w:instrText></w:r></w:p>')
    path = make_docx(tmp_path / "shapes.docx", [shape])
    assert [p.text for p in extract_passages(path, "docx")] == ["Before the box. Boxed text."]


def test_a_damaged_or_encrypted_docx_says_so(tmp_path: Path):
    good = make_docx(tmp_path / "good.docx", [paragraph(LOREM)]).read_bytes()
    cases = {"truncated.docx": good[: len(good) // 2], "random.docx": bytes(range(256)) * 20,
             "encrypted.docx": b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(500)}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(UnreadableFile, match="encrypted DOCX" if name == "encrypted.docx" else "^damaged DOCX"):
            extract_passages(tmp_path / name, "docx")


# ---------------------------------------------------------------- labels and the packing rules


def test_importing_extract_loads_no_parser():
    code = ("import sys, desktop_copilot.core.knowledge.extract; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'lxml', 'pypdfium2', 'pypdfium2_raw', 'zipfile', 'charset_normalizer'}))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "[]"


def test_location_labels():
    assert location_label("code", Passage("x", 10, 24)) == "lines 10–24"
    assert location_label("text", Passage("x", 7, 7)) == "line 7"
    assert location_label("pdf", Passage("x", None, None, 3)) == "page 3"
    assert location_label("pdf", Passage("x", 3, 4)) == "pages 3–4"
    assert location_label("docx", Passage("x", 2, 5)) == "paragraphs 2–5"
    assert location_label("docx", Passage("x", 2, 2)) == "paragraph 2"
    assert location_label("text", Passage("x", None, None)) == ""


def test_packing_never_merges_across_a_hard_break_and_merges_soft_ones_only_while_small():
    units = line_units(["a" * 50, "", "b" * 50, "", "c" * 400, "", "d" * 50, "", "e" * 50], 1000)
    blocks = [Block(0, 1, CONTINUE), Block(2, 3, SOFT), Block(4, 5, SOFT), Block(6, 7, HARD), Block(8, 9, CONTINUE)]
    spans = [(p.start_line, p.end_line) for p in pack(units, blocks, 1000)]
    assert spans == [(1, 5), (7, 9)]
    units.text[0] = "a" * 300  # a passage at the minimum size takes no SOFT block, a smaller one does
    assert [(p.start_line, p.end_line) for p in pack(units, blocks, 1000)] == [(1, 1), (3, 5), (7, 9)]


TOKENS = ["word", "words here.", " ", "\n", "\n\n", "\r\n", "# ", "## ", "### ", "```", "~~~", "---", "===", "def f(x):", "class C:",
          "    ", "\t", "function g() {", "}", "香港天气很好。", "<b>", "x" * 120]


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(["text", "markdown", "code"]), st.lists(st.sampled_from(TOKENS), max_size=200).map("".join),
       st.integers(min_value=8, max_value=400))
def test_any_text_gives_passages_within_the_limit_covering_every_word(tmp_path_factory, kind, text, max_chars):
    path = tmp_path_factory.mktemp("prop") / "p.txt"
    path.write_bytes(text.encode("utf-8"))
    passages = extract_passages(path, kind, max_chars=max_chars)
    assert all(p.text.strip() and len(p.text) <= max_chars for p in passages)
    assert re.sub(r"\s+", "", "".join(p.text for p in passages)) == re.sub(r"\s+", "", text), "every word, once, in order"
    if passages:
        assert_lines_point_at_text(path, passages)
