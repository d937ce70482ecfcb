"""Files turned into passages with their locations: which files are indexed (by kind), and the one entry point."""

from __future__ import annotations

from pathlib import Path

from desktop_copilot.core.knowledge.extract_text import looks_binary, read_text
from desktop_copilot.core.knowledge.extract_units import Passage, UnreadableFile

__all__ = ["FORMATS", "Passage", "UnreadableFile", "extract_passages", "kind_of", "location_label", "looks_binary"]

_TEXT = ".txt .text .rst .adoc .asciidoc .org .tex .bib .textile .wiki .nfo"
_MARKDOWN = ".md .markdown .mdown .mkd .mkdn .mdx .qmd .rmd"
_CODE = (".py .pyi .pyw .js .mjs .cjs .ts .mts .cts .tsx .jsx .vue .svelte .go .rs .java .kt .kts .scala .sc .groovy .gradle "
         ".c .h .cc .cpp .cxx .hpp .hh .hxx .m .mm .cs .fs .fsx .vb .rb .rake .php .swift .dart .sh .bash .zsh .fish .ps1 .psm1 .bat "
         ".cmd .sql .lua .r .jl .pl .pm .ex .exs .erl .hrl .clj .cljs .hs .ml .mli .elm .nim .zig .v .sv .vhd .cu .ino .proto .graphql "
         ".css .scss .sass .less .toml .ini .cfg .conf .yaml .yml .cmake .mk .tf .hcl .nix .dockerfile")
_HTML = ".html .htm .xhtml"
FORMATS: dict[str, str] = {
    **dict.fromkeys(_TEXT.split(), "text"),
    **dict.fromkeys(_MARKDOWN.split(), "markdown"),
    **dict.fromkeys(_CODE.split(), "code"),
    **dict.fromkeys(_HTML.split(), "html"),
    ".pdf": "pdf",
    ".docx": "docx",
}
"""Suffix (lowercase, with its dot) -> kind: "text", "markdown", "code", "html", "pdf" or "docx"."""

_NAMES: dict[str, str] = {
    **dict.fromkeys(("makefile", "gnumakefile", "dockerfile", "containerfile", "jenkinsfile", "vagrantfile", "rakefile", "gemfile",
                     "podfile", "brewfile", "procfile", "justfile", "cmakelists.txt", "build", "workspace"), "code"),
    **dict.fromkeys(("readme", "license", "licence", "copying", "authors", "contributors", "changelog", "changes", "news", "history",
                     "notice", "todo", "install", "thanks"), "text"),
}
"""Well-known file names without a (known) suffix."""


def kind_of(path: Path) -> str | None:
    """The kind of file by its suffix or its well-known name; None for a format that is not indexed."""
    name = path.name.lower()
    if name in _NAMES:
        return _NAMES[name]
    kind = FORMATS.get(Path(name).suffix)
    if kind is None and name.startswith(("dockerfile.", "makefile.")):
        return "code"
    return kind


def extract_passages(path: Path, kind: str, *, max_chars: int = 1500) -> list[Passage]:
    """The passages of a file of the given kind, in order, each at most max_chars long and never empty.
    Raises UnreadableFile (a binary, damaged, encrypted or scanned file) and OSError (the file cannot be read)."""
    if kind == "pdf":
        from desktop_copilot.core.knowledge.extract_pdf import pdf_passages

        return pdf_passages(path, max_chars)
    if kind == "docx":
        from desktop_copilot.core.knowledge.extract_docx import docx_passages

        return docx_passages(path, max_chars)
    if kind == "html":
        from desktop_copilot.core.knowledge.extract_html import html_passages

        with open(path, "rb") as handle:
            return html_passages(handle.read(), max_chars)
    text = read_text(path)
    if kind == "markdown":
        from desktop_copilot.core.knowledge.extract_markdown import markdown_passages

        return markdown_passages(text, max_chars)
    if kind == "code":
        from desktop_copilot.core.knowledge.extract_code import code_passages

        return code_passages(text, max_chars, path.suffix.lower())
    from desktop_copilot.core.knowledge.extract_text import text_passages

    return text_passages(text, max_chars)


def location_label(path_kind: str, passage: Passage) -> str:
    """Where a passage is, in words: "lines 10–24", "line 7", "page 3", "paragraphs 2–5" ("" when unknown)."""
    if passage.page is not None:
        return f"page {passage.page}"
    first, last = passage.start_line, passage.end_line
    if first is None:
        return ""
    unit = "paragraph" if path_kind == "docx" else "page" if path_kind == "pdf" else "line"
    if last is None or last == first:
        return f"{unit} {first}"
    return f"{unit}s {first}–{last}"
