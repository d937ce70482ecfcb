"""Workspace file tools on real temporary folders: list, read, search, write and edit, diffs, and path escapes refused."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import httpx
import pytest
import pytest_asyncio
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_copilot.core.keys.secrets import EnvironmentKeys, KeyLookup
from desktop_copilot.core.tools.base import Risk, Tool, ToolContext, ToolError, ToolRegistry
from desktop_copilot.core.tools.workspace import (
    MAX_CHANGED_FILE_BYTES,
    MAX_LIST_ENTRIES,
    MAX_SEARCH_MATCHES,
    EditFile,
    ListFiles,
    ReadFile,
    SearchFiles,
    WriteFile,
)

SECRET = "TOP SECRET outside the workspace"


@pytest.fixture
def folders(tmp_path):
    """tmp/ws (the workspace) with a few files and links out, and tmp/outside holding a secret."""
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    (ws / "src" / "pkg").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET + "\n")
    (ws / "README.md").write_text("# Project\n\nHello workspace.\n")
    (ws / "src" / "main.py").write_text("def main():\n    print('hello')\n\n\nmain()\n")
    (ws / "src" / "pkg" / "util.py").write_text("HELLO = 1\nhello_world = 2\n")
    (ws / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(64))
    (ws / "secret_link.txt").symlink_to(outside / "secret.txt")
    (ws / "outside_dir").symlink_to(outside, target_is_directory=True)
    (ws / "inner_link.md").symlink_to(ws / "README.md")
    return ws, outside


@pytest_asyncio.fixture
async def http():
    async with httpx.AsyncClient() as client:
        yield client


@pytest.fixture
def ctx(folders, http):
    return ToolContext({}, http, {}, workspace=folders[0])


async def call(tool: Tool, ctx: ToolContext, **arguments) -> str:
    return await tool.run(tool.validate(arguments), ctx)


async def preview(tool: Tool, ctx: ToolContext, **arguments) -> str:
    return await tool.preview(tool.validate(arguments), ctx)


# --- declarations ----------------------------------------------------------------------------


def test_risks_and_workspace_gating():
    tools = [ListFiles(), ReadFile(), SearchFiles(), WriteFile(), EditFile()]
    assert {t.name: t.risk for t in tools} == {
        "list_files": Risk.READ_ONLY, "read_file": Risk.READ_ONLY, "search_files": Risk.READ_ONLY,
        "write_file": Risk.WRITES, "edit_file": Risk.WRITES,
    }
    registry = ToolRegistry(tools)
    keys = KeyLookup([EnvironmentKeys({})])
    assert registry.enabled_for(keys) == []
    assert [t.name for t in registry.enabled_for(keys, workspace=Path("/tmp"))] == [t.name for t in tools]


@pytest.mark.asyncio
@pytest.mark.parametrize(("tool", "arguments"), [
    (ListFiles(), {}), (ReadFile(), {"path": "a"}), (SearchFiles(), {"query": "a"}),
    (WriteFile(), {"path": "a", "content": "x"}), (EditFile(), {"path": "a", "old_text": "x", "new_text": "y"}),
])
async def test_every_tool_refuses_without_a_workspace(http, tool, arguments):
    with pytest.raises(ToolError, match="No workspace folder is chosen"):
        await call(tool, ToolContext({}, http, {}, workspace=None), **arguments)


# --- list, read, search ----------------------------------------------------------------------


@pytest.mark.asyncio
async def test_list_top_level_marks_folders_and_links_out(ctx):
    listing = (await call(ListFiles(), ctx)).splitlines()
    assert listing == [
        "README.md", "image.png", "inner_link.md", "outside_dir/ (link to outside the workspace)",
        "secret_link.txt (link to outside the workspace)", "src/",
    ]


@pytest.mark.asyncio
async def test_recursive_listing_with_glob_skips_folders_linked_outside(ctx):
    assert (await call(ListFiles(), ctx, recursive=True, glob="*.py")).splitlines() == ["src/main.py", "src/pkg/util.py"]
    everything = await call(ListFiles(), ctx, recursive=True)
    assert "src/pkg/util.py" in everything and "secret.txt" not in everything.replace("secret_link.txt", "")


@pytest.mark.asyncio
async def test_listing_is_capped_with_a_note(ctx, folders):
    many = folders[0] / "many"
    many.mkdir()
    for number in range(MAX_LIST_ENTRIES + 7):
        (many / f"f{number:04}.txt").write_text("x")
    listing = (await call(ListFiles(), ctx, path="many")).splitlines()
    assert len(listing) == MAX_LIST_ENTRIES + 1
    assert listing[-1] == "… and 7 more not shown; narrow the listing with path or glob."


@pytest.mark.asyncio
async def test_read_whole_file_and_a_line_range(ctx):
    assert await call(ReadFile(), ctx, path="src/main.py") == "src/main.py:\ndef main():\n    print('hello')\n\n\nmain()\n"
    part = await call(ReadFile(), ctx, path="src/main.py", offset=2, limit=1)
    assert part == "src/main.py:\n    print('hello')\n\n[Lines 2-2 of 5 shown; read on with offset=3.]"
    with pytest.raises(ToolError, match="has 5 lines; offset 9 is past its end"):
        await call(ReadFile(), ctx, path="src/main.py", offset=9)


@pytest.mark.asyncio
async def test_a_symlink_loop_is_an_error_in_words_and_left_out_of_listings(ctx, folders):
    (folders[0] / "loop_a").symlink_to(folders[0] / "loop_b")
    (folders[0] / "loop_b").symlink_to(folders[0] / "loop_a")
    with pytest.raises(ToolError, match="loop_a cannot be resolved .a symbolic link loop"):
        await call(ReadFile(), ctx, path="loop_a")
    listing = await call(ListFiles(), ctx, recursive=True)
    assert "loop_a" not in listing and "src/pkg/util.py" in listing
    assert "hello_world" in await call(SearchFiles(), ctx, query="hello_world")


@pytest.mark.asyncio
async def test_read_follows_links_that_stay_inside(ctx):
    assert "Hello workspace." in await call(ReadFile(), ctx, path="inner_link.md")


@pytest.mark.asyncio
async def test_read_refuses_missing_folders_binary_and_non_utf8(ctx, folders):
    (folders[0] / "latin1.txt").write_bytes("café".encode("latin-1"))
    with pytest.raises(ToolError, match="nope.txt does not exist in the workspace"):
        await call(ReadFile(), ctx, path="nope.txt")
    with pytest.raises(ToolError, match="src is not a regular file .it is a folder"):
        await call(ReadFile(), ctx, path="src")
    with pytest.raises(ToolError, match="image.png is a binary file; only text files can be read or edited"):
        await call(ReadFile(), ctx, path="image.png")
    with pytest.raises(ToolError, match="latin1.txt is not UTF-8 text"):
        await call(ReadFile(), ctx, path="latin1.txt")


@pytest.mark.asyncio
async def test_read_of_a_huge_file_is_cut_with_a_note(ctx, folders):
    (folders[0] / "big.log").write_text("0123456789abcdef\n" * 100_000)  # 1.7 MB
    result = await call(ReadFile(), ctx, path="big.log")
    assert result.startswith("big.log:\n0123456789abcdef\n")
    assert "read on with offset=" in result and "only its first 1024 KB were read" in result
    assert len(result) < 110_000


@pytest.mark.asyncio
async def test_search_text_regex_case_and_glob(ctx):
    assert (await call(SearchFiles(), ctx, query="hello")).splitlines() == [
        "src/main.py:2: print('hello')",
        "src/pkg/util.py:2: hello_world = 2",
    ]
    loose = (await call(SearchFiles(), ctx, query="hello", ignore_case=True, glob="*.md")).splitlines()
    assert loose == ["README.md:3: Hello workspace.", "inner_link.md:3: Hello workspace."]
    assert await call(SearchFiles(), ctx, query=r"^\w+ = \d$", regex=True) == "src/pkg/util.py:1: HELLO = 1\nsrc/pkg/util.py:2: hello_world = 2"
    assert await call(SearchFiles(), ctx, query="zzz-missing") == "No matches for 'zzz-missing' in .."


@pytest.mark.asyncio
async def test_search_skips_binary_files_and_folders_linked_outside(ctx, folders):
    (folders[0] / "data.bin").write_bytes(b"\x00\x01TOP SECRET")
    assert await call(SearchFiles(), ctx, query="TOP SECRET") == "No matches for 'TOP SECRET' in .."


@pytest.mark.asyncio
async def test_search_with_a_bad_regex_says_how_to_fix_it(ctx):
    with pytest.raises(ToolError, match="regular expression is not valid.*set regex to false"):
        await call(SearchFiles(), ctx, query="(unclosed", regex=True)


@pytest.mark.asyncio
async def test_search_is_capped_with_a_note(ctx, folders):
    (folders[0] / "many.txt").write_text("needle\n" * (MAX_SEARCH_MATCHES + 50))
    lines = (await call(SearchFiles(), ctx, query="needle")).splitlines()
    assert len(lines) == MAX_SEARCH_MATCHES + 1
    assert lines[0] == "many.txt:1: needle" and lines[-1].startswith(f"[Stopped after {MAX_SEARCH_MATCHES} matches")


# --- write and edit --------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_write_new_file_previews_all_added_lines_and_creates_folders(ctx, folders):
    diff = await preview(WriteFile(), ctx, path="notes/today/plan.md", content="one\ntwo\n")
    assert diff.splitlines() == ["--- /dev/null", "+++ b/notes/today/plan.md", "@@ -0,0 +1,2 @@", "+one", "+two"]
    assert not (folders[0] / "notes").exists()
    assert await call(WriteFile(), ctx, path="notes/today/plan.md", content="one\ntwo\n") == "Created notes/today/plan.md (2 lines)."
    assert (folders[0] / "notes" / "today" / "plan.md").read_text() == "one\ntwo\n"
    assert [p.name for p in (folders[0] / "notes" / "today").iterdir()] == ["plan.md"]  # no temporary file left


@pytest.mark.asyncio
async def test_overwrite_previews_the_change_and_keeps_the_mode(ctx, folders):
    script = folders[0] / "run.sh"
    script.write_text("#!/bin/sh\necho old\n")
    script.chmod(0o750)
    diff = await preview(WriteFile(), ctx, path="run.sh", content="#!/bin/sh\necho new\n")
    assert "--- a/run.sh\n+++ b/run.sh\n" in diff and "-echo old\n+echo new" in diff
    assert await call(WriteFile(), ctx, path="run.sh", content="#!/bin/sh\necho new\n") == "Replaced the content of run.sh (2 lines)."
    assert script.read_text() == "#!/bin/sh\necho new\n"
    assert stat.S_IMODE(script.stat().st_mode) == 0o750


@pytest.mark.asyncio
async def test_write_refuses_a_folder(ctx):
    with pytest.raises(ToolError, match="src is a folder"):
        await call(WriteFile(), ctx, path="src", content="x")


@pytest.mark.asyncio
async def test_long_diff_is_cut_with_a_note(ctx):
    diff = await preview(WriteFile(), ctx, path="long.txt", content="".join(f"line {n}\n" for n in range(20_000)))
    assert len(diff) < 41_000 and diff.endswith("more characters not shown)")


@pytest.mark.asyncio
async def test_edit_previews_a_diff_then_changes_exactly_that(ctx, folders):
    arguments = {"path": "src/main.py", "old_text": "print('hello')", "new_text": "print('goodbye')"}
    diff = await preview(EditFile(), ctx, **arguments)
    assert diff.startswith("--- a/src/main.py\n+++ b/src/main.py\n") and "-    print('hello')\n+    print('goodbye')\n" in diff
    assert (folders[0] / "src" / "main.py").read_text().count("hello") == 1  # the preview changed nothing
    assert await call(EditFile(), ctx, **arguments) == "Edited src/main.py: replaced 1 occurrence."
    assert (folders[0] / "src" / "main.py").read_text() == "def main():\n    print('goodbye')\n\n\nmain()\n"


@pytest.mark.asyncio
async def test_edit_old_text_not_found_or_found_twice(ctx, folders):
    with pytest.raises(ToolError, match="old_text was not found in src/main.py. Read the file again"):
        await call(EditFile(), ctx, path="src/main.py", old_text="print('nope')", new_text="x")
    with pytest.raises(ToolError, match="old_text occurs 2 times in src/main.py. Include more of the surrounding lines.*replace_all"):
        await preview(EditFile(), ctx, path="src/main.py", old_text="main()", new_text="run()")
    assert await call(EditFile(), ctx, path="src/main.py", old_text="main()", new_text="run()", replace_all=True) == \
        "Edited src/main.py: replaced 2 occurrences."
    assert (folders[0] / "src" / "main.py").read_text() == "def run():\n    print('hello')\n\n\nrun()\n"


@pytest.mark.asyncio
async def test_edit_keeps_windows_line_endings(ctx, folders):
    (folders[0] / "win.txt").write_bytes(b"alpha\r\nbeta\r\ngamma\r\n")
    await call(EditFile(), ctx, path="win.txt", old_text="alpha\nbeta", new_text="alpha\nBETA\nbeta2")
    assert (folders[0] / "win.txt").read_bytes() == b"alpha\r\nBETA\r\nbeta2\r\ngamma\r\n"


@pytest.mark.asyncio
async def test_edit_and_write_refuse_binary_files(ctx, folders):
    before = (folders[0] / "image.png").read_bytes()
    with pytest.raises(ToolError, match="image.png is a binary file"):
        await call(EditFile(), ctx, path="image.png", old_text="PNG", new_text="GIF")
    with pytest.raises(ToolError, match="image.png is a binary file"):
        await call(WriteFile(), ctx, path="image.png", content="text now")
    assert (folders[0] / "image.png").read_bytes() == before


@pytest.mark.asyncio
async def test_edit_refuses_a_file_too_large_to_change(ctx, folders):
    (folders[0] / "huge.txt").write_text("x" * (MAX_CHANGED_FILE_BYTES + 10))
    with pytest.raises(ToolError, match="huge.txt is larger than 10 MB; it is too large to change"):
        await call(EditFile(), ctx, path="huge.txt", old_text="xx", new_text="y")


# --- escapes ---------------------------------------------------------------------------------


ESCAPES = [
    "../outside/secret.txt",
    "src/../../outside/secret.txt",
    "secret_link.txt",
    "outside_dir/secret.txt",
    "outside_dir/../outside/secret.txt",
    "~/secret.txt",
    "{outside}/secret.txt",
]


@pytest.fixture
def escapes(folders, monkeypatch):
    outside = folders[1]
    monkeypatch.setenv("HOME", str(outside))  # "~" is the folder with the secret
    return [raw.format(outside=outside) for raw in ESCAPES]


@pytest.mark.asyncio
async def test_reading_outside_is_refused(ctx, escapes):
    for raw in escapes:
        with pytest.raises(ToolError, match=r"is outside the workspace folder ws; only files inside it can be read or changed") as caught:
            await call(ReadFile(), ctx, path=raw)
        assert str(caught.value).startswith(raw)
        with pytest.raises(ToolError, match="outside the workspace folder"):
            await call(EditFile(), ctx, path=raw, old_text="TOP", new_text="x")


@pytest.mark.asyncio
async def test_writing_outside_is_refused_and_changes_nothing(ctx, escapes, folders):
    ws, outside = folders
    for raw in [*escapes, "../new.txt", "outside_dir/new.txt", "~/new.txt"]:
        with pytest.raises(ToolError, match="outside the workspace folder"):
            await preview(WriteFile(), ctx, path=raw, content="pwned")
        with pytest.raises(ToolError, match="outside the workspace folder"):
            await call(WriteFile(), ctx, path=raw, content="pwned")
    assert (outside / "secret.txt").read_text() == SECRET + "\n"
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert not (ws.parent / "new.txt").exists()


@pytest.mark.asyncio
async def test_listing_and_searching_outside_is_refused(ctx, escapes):
    for tool, arguments in [(ListFiles(), {"path": ".."}), (ListFiles(), {"path": "outside_dir"}), (SearchFiles(), {"query": "TOP", "path": "outside_dir"}),
                            (SearchFiles(), {"query": "TOP", "path": "~"}), (ListFiles(), {"path": "/"})]:
        with pytest.raises(ToolError, match="outside the workspace folder"):
            await call(tool, ctx, **arguments)


@pytest.mark.asyncio
async def test_a_workspace_under_home_is_reachable_through_tilde(folders, http, monkeypatch):
    ws, _ = folders
    monkeypatch.setenv("HOME", str(ws.parent))
    ctx = ToolContext({}, http, {}, workspace=ws)
    assert "Hello workspace." in await call(ReadFile(), ctx, path="~/ws/README.md")
    assert "Hello workspace." in await call(ReadFile(), ctx, path=str(ws / "README.md"))


@pytest.mark.asyncio
async def test_a_symlinked_parent_folder_pointing_outside_is_refused(ctx, folders):
    ws, outside = folders
    (outside / "deeper").mkdir()
    (ws / "src" / "escape").symlink_to(outside / "deeper", target_is_directory=True)
    with pytest.raises(ToolError, match="outside the workspace folder"):
        await call(WriteFile(), ctx, path="src/escape/sub/new.txt", content="x")
    assert list((outside / "deeper").iterdir()) == []


SEGMENTS = st.sampled_from(["..", ".", "src", "pkg", "outside_dir", "secret_link.txt", "README.md", "ws", "outside", "secret.txt", "nope"])


@pytest.fixture(scope="module")
def unused_client():
    """The workspace tools never touch the network; one client (never opened) serves every example."""
    client = httpx.AsyncClient()
    yield client
    asyncio.run(client.aclose())


@settings(max_examples=200, deadline=None)
@given(segments=st.lists(SEGMENTS, min_size=1, max_size=8))
def test_relative_paths_with_dotdot_never_escape(tmp_path_factory, unused_client, segments):
    base = tmp_path_factory.mktemp("prop")
    ws, outside = base / "ws", base / "outside"
    (ws / "src" / "pkg").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    (ws / "README.md").write_text("inside text")
    (ws / "secret_link.txt").symlink_to(outside / "secret.txt")
    (ws / "outside_dir").symlink_to(outside, target_is_directory=True)
    raw = "/".join(segments)
    escapes = not os.path.realpath(ws / raw).startswith(str(ws) + os.sep) and os.path.realpath(ws / raw) != str(ws)

    async def attempt() -> tuple[str, str]:
        ctx = ToolContext({}, unused_client, {}, workspace=ws)
        outcomes = []
        for tool, arguments in [(ReadFile(), {"path": raw}), (ListFiles(), {"path": raw}),
                                (WriteFile(), {"path": raw + "/new.txt", "content": "pwned"})]:
            try:
                outcomes.append(await call(tool, ctx, **arguments))
            except ToolError as exc:
                outcomes.append(f"error: {exc}")
        return outcomes[0], "\n".join(outcomes)

    read, everything = asyncio.run(attempt())
    assert SECRET not in everything
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"] and (outside / "secret.txt").read_text() == SECRET
    assert ("outside the workspace folder ws" in read) == escapes
