"""httpx's command-line tool stays unloaded until it is used (app/httpx_cli.py): importing httpx after the stand-in is
in place loads neither click, rich nor pygments, and `httpx.main` or a name read from `httpx._main` still reaches the
real tool. Each case in a fresh process, where httpx is not imported yet."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import json, sys
from desktop_copilot.app.httpx_cli import leave_httpx_cli_unloaded

leave_httpx_cli_unloaded()
import httpx

answer = {"tool_loaded": [name for name in ("click", "rich", "pygments") if name in sys.modules]}
{use}
print(json.dumps(answer))
"""


def run(use: str = "") -> tuple[dict, subprocess.CompletedProcess]:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(CHILD).replace("{use}", textwrap.dedent(use))],
                          capture_output=True, text=True, timeout=60, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1]), done


def test_importing_httpx_leaves_its_tool_unloaded():
    answer, _ = run()
    assert answer == {"tool_loaded": []}


def test_httpx_main_runs_the_real_tool():
    answer, done = run("""
        try:
            httpx.main(["--help"])
        except SystemExit as exc:
            answer["exit"] = exc.code
        answer["real"] = type(sys.modules["httpx._main"]).__name__
    """)
    assert answer == {"tool_loaded": [], "exit": 0, "real": "module"}
    assert "Usage: httpx" in done.stdout and "--method" in done.stdout


def test_a_name_read_from_the_tool_module_loads_it():
    answer, _ = run("""
        import httpx._main as tool
        answer["same_client"] = tool.Client is httpx.Client
        answer["rich_now"] = "rich" in sys.modules
    """)
    assert answer == {"tool_loaded": [], "same_client": True, "rich_now": True}


def test_httpx_imported_first_is_left_as_it_is():
    done = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import sys, httpx
        from desktop_copilot.app.httpx_cli import leave_httpx_cli_unloaded
        real = sys.modules["httpx._main"]
        leave_httpx_cli_unloaded()
        print(sys.modules["httpx._main"] is real and httpx.main is real.main)
    """)], capture_output=True, text=True, timeout=60, cwd=ROOT, check=False)
    assert done.stdout.strip() == "True", done.stderr
