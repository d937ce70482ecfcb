"""Indexing sources into a real SQLite file: what the walk leaves out, incremental runs, changes and deletions, files
over the cap, damaged files, sources added, switched and removed."""

from __future__ import annotations

import os

import pytest

from desktop_copilot.core.knowledge.indexer import index_source
from desktop_copilot.core.knowledge.library import KnowledgeError, KnowledgeLibrary
from desktop_copilot.core.knowledge.walk import SECRET_REASON, walk_source


@pytest.fixture
def library(tmp_path):
    library = KnowledgeLibrary.in_folder(tmp_path / "data")
    yield library
    library.close()


@pytest.fixture
def notes(tmp_path):
    root = tmp_path / "notes"
    (root / "guide").mkdir(parents=True)
    (root / "guide" / "install.md").write_text("# Install\n\nRun the installer, then restart the machine.\n\n"
                                               "## Linux\n\nUse the .deb package on Debian and Ubuntu.\n", encoding="utf-8")
    (root / "zh.txt").write_text("向量数据库用于保存文本的嵌入向量。\n\n检索时先计算问题的向量。\n", encoding="utf-8")
    (root / "tool.py").write_text("def frobnicate(widget):\n    return widget * 2\n\n\nclass Gadget:\n    pass\n")
    return root


def _texts(library: KnowledgeLibrary) -> str:
    return "\n".join(r[0] for r in library.db.execute("SELECT text FROM passages"))


def test_walk_honours_gitignore_and_leaves_out_tool_folders_and_secrets(tmp_path):
    root = tmp_path / "repo"
    for folder in (".git", "node_modules/lib", "build", "src/generated", "src/kept"):
        (root / folder).mkdir(parents=True)
    (root / ".gitignore").write_text("build/\n*.log\n!keep.log\n")
    (root / "src" / ".gitignore").write_text("generated/\n")
    for path in (".git/config", "node_modules/lib/index.js", "build/out.txt", "src/generated/x.py", "src/kept/y.py",
                 "a.log", "keep.log", "readme.md", ".env", "deploy.pem"):
        (root / path).write_text("x")
    seen = {s.path: s for s in walk_source(root)}
    assert set(seen) == {".gitignore", "src/.gitignore", "src/kept/y.py", "keep.log", "readme.md", ".env", "deploy.pem"}
    assert seen[".env"].skip_reason == SECRET_REASON and seen["deploy.pem"].skip_reason == SECRET_REASON
    assert seen["readme.md"].skip_reason == ""


def test_walk_follows_no_symlink_out_of_the_source(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("private")
    root = tmp_path / "src"
    root.mkdir()
    (root / "inside.txt").write_text("shared")
    os.symlink(outside, root / "leak.txt")
    os.symlink(root / "inside.txt", root / "alias.txt")
    os.symlink(root, root / "loop")
    assert sorted(s.path for s in walk_source(root)) == ["alias.txt", "inside.txt"]


def test_index_then_incremental_changes_and_deletions(library, notes):
    source = library.add_source(notes, "Notes")
    first = index_source(library, source)
    assert (first.added, first.updated, first.removed, first.unchanged) == (3, 0, 0, 0) and first.finished
    assert "Use the .deb package" in _texts(library) and "向量数据库" in _texts(library)
    assert library.source("notes").files == 3 and library.source("notes").passages >= 3

    again = index_source(library, library.source("notes"))
    assert (again.total, again.unchanged) == (0, 3)  # unchanged files are not read again

    (notes / "tool.py").write_text("def renamed_function():\n    return 1\n")
    os.utime(notes / "tool.py", ns=(1, 2))  # a different mtime even on a coarse clock
    (notes / "zh.txt").unlink()
    (notes / "guide" / "new.md").write_text("Fresh words about telescopes.\n")
    third = index_source(library, library.source("notes"))
    assert (third.added, third.updated, third.removed, third.unchanged) == (1, 1, 1, 1)
    texts = _texts(library)
    assert "renamed_function" in texts and "frobnicate" not in texts and "向量数据库" not in texts and "telescopes" in texts
    # the FTS index forgot the old rows too (a contentless table keeps nothing it was not told to delete)
    assert library.db.execute("SELECT count(*) FROM passages_fts WHERE passages_fts MATCH 'frobnicate'").fetchone()[0] == 0
    assert library.db.execute("SELECT count(*) FROM passages_fts WHERE passages_fts MATCH 'telescopes'").fetchone()[0] == 1

    full = index_source(library, library.source("notes"), full=True)
    assert full.updated == 3 and full.unchanged == 0


def test_files_left_out_are_listed_with_their_reason_and_never_stop_indexing(library, tmp_path):
    root = tmp_path / "mixed"
    root.mkdir()
    (root / "good.md").write_text("A perfectly good note about otters.\n")
    (root / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj <<\x00\x01 garbage")
    (root / "blob.txt").write_bytes(b"\x00\x01\x02" * 1000)
    (root / "picture.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 10)
    (root / ".env").write_text("API_KEY=sk-do-not-index\n")
    with open(root / "huge.log", "wb") as handle:  # sparse: 100 MB over the cap, nothing written
        handle.truncate(100 * 1024 * 1024)
    source = library.add_source(root, max_file_mb=20)
    progress = index_source(library, source)
    reasons = dict(progress.problems)
    assert set(reasons) == {"broken.pdf", "blob.txt", "picture.png", ".env", "huge.log"}
    assert "20 MB" in reasons["huge.log"] and "binary" in reasons["blob.txt"] and reasons[".env"] == SECRET_REASON
    assert reasons["broken.pdf"]  # the parser's reason, in words
    listed = {f.path: f for f in library.problems(source.id)}
    assert set(listed) == set(reasons) and listed["broken.pdf"].status == "failed" and listed["huge.log"].status == "skipped"
    assert "otters" in _texts(library) and "sk-do-not-index" not in _texts(library)
    assert library.source(source.name).files == 1 and library.source(source.name).skipped == 5


def test_a_single_file_source(library, tmp_path):
    file = tmp_path / "paper.md"
    file.write_text("# Findings\n\nThe coral reefs recovered within a decade.\n")
    source = library.add_source(file)
    assert source.name == "paper.md" and source.is_file
    index_source(library, source)
    (row,) = library.file_passages("paper.md", "paper.md")
    assert "coral reefs" in row.text and row.file == file


def test_sources_are_named_once_switched_and_removed(library, notes, tmp_path):
    library.add_source(notes, "Notes")
    with pytest.raises(KnowledgeError, match="already called"):
        library.add_source(tmp_path, "notes")
    with pytest.raises(KnowledgeError, match="already the source"):
        library.add_source(notes, "Other")
    with pytest.raises(KnowledgeError, match="does not exist"):
        library.add_source(tmp_path / "missing")
    with pytest.raises(KnowledgeError, match="without slashes"):
        library.add_source(tmp_path, "a/b")
    index_source(library, library.source("Notes"))
    assert library.has_enabled_sources()
    library.set_enabled("notes", False)
    assert not library.has_enabled_sources()
    removed = library.remove_source("NOTES")
    assert removed.name == "Notes" and library.sources() == []
    assert library.db.execute("SELECT count(*) FROM passages").fetchone()[0] == 0
    assert library.db.execute("SELECT count(*) FROM passages_fts WHERE passages_fts MATCH 'installer'").fetchone()[0] == 0
    assert (notes / "guide" / "install.md").exists()  # the files themselves are untouched


def test_stopping_keeps_what_was_indexed(library, notes):
    source = library.add_source(notes)
    calls = iter([False, True])
    progress = index_source(library, source, should_stop=lambda: next(calls, True))
    assert progress.stopped and progress.done == 1
    assert library.source(source.name).indexed_at is None  # not marked up to date
    rest = index_source(library, library.source(source.name))
    assert rest.added == 2 and rest.unchanged == 1
