"""Permission rules from the command line alone, as a user runs it (subprocesses against the loopback Anthropic server
and the real stdio MCP demo server): `permissions deny|allow|ask` then `ask` without a terminal — a deny holds even
under --yes and the model reads which rule; an allow runs a destructive tool without --yes; an ask rule asks even for a
read-only tool; a rule with a path pattern decides the built-in file tools; a damaged permissions.json is moved aside
and reported."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.app.test_ask_mcp import cli, demo_added, last_results, requests  # noqa: F401 - demo_added is a fixture
from tests.support.loopback import anthropic_text_reply, anthropic_tool_reply, sse_response


def delete_then_answer(loopback, text="Done."):
    loopback.enqueue("/v1/messages", sse_response(anthropic_tool_reply([("toolu_1", "mcp__demo__delete_note", {"name": "groceries"})])),
                     sse_response(anthropic_text_reply(text)))


def test_a_deny_rule_holds_under_yes_and_the_model_reads_which_rule(loopback, demo_added):  # noqa: F811 - the fixture
    added = cli(loopback, "permissions", "deny", "mcp:demo/delete_*")
    assert added.returncode == 0 and added.stdout == "Added rule 1: deny mcp:demo/delete_*.\n"
    delete_then_answer(loopback, "I could not delete it.")
    result = cli(loopback, "ask", "--yes", "delete my groceries note")
    assert result.returncode == 0, result.stderr
    denied = last_results(requests(loopback)[1])["toolu_1"]
    assert denied["is_error"] is True and "`deny mcp:demo/delete_*`" in denied["content"]
    assert "Settings ▸ Permissions" in denied["content"]


def test_an_allow_rule_runs_a_destructive_tool_without_yes_or_a_terminal(loopback, demo_added):  # noqa: F811 - the fixture
    assert cli(loopback, "permissions", "allow", "mcp:demo/delete_note").returncode == 0
    delete_then_answer(loopback)
    result = cli(loopback, "ask", "delete my groceries note")
    assert result.returncode == 0, result.stderr
    ran = last_results(requests(loopback)[1])["toolu_1"]
    assert ran["is_error"] is False and "groceries" in ran["content"]


def test_the_more_specific_rule_wins_and_an_ask_rule_asks_even_for_a_read_only_tool(loopback, demo_added):  # noqa: F811 - the fixture
    assert cli(loopback, "permissions", "allow", "mcp:demo/*").returncode == 0
    assert cli(loopback, "permissions", "ask", "mcp:demo/read_note").returncode == 0
    listed = json.loads(cli(loopback, "permissions", "list", "--json").stdout)
    assert [(r["number"], r["action"], r["tool"]) for r in listed] == [(1, "ask", "mcp:demo/read_note"), (2, "allow", "mcp:demo/*")]
    loopback.enqueue("/v1/messages", sse_response(anthropic_tool_reply([("toolu_1", "mcp__demo__read_note", {"name": "todo"}),
                                                                        ("toolu_2", "mcp__demo__delete_note", {"name": "old"})])),
                     sse_response(anthropic_text_reply("Read one, deleted one.")))
    result = cli(loopback, "ask", "read todo and delete old")
    assert result.returncode == 0, result.stderr
    results = last_results(requests(loopback)[1])
    assert results["toolu_1"]["is_error"] is True and "declined" in results["toolu_1"]["content"]  # asked: no terminal
    assert results["toolu_2"]["is_error"] is False  # the glob allows the destructive one


def test_a_path_rule_decides_the_built_in_file_tools(loopback, tmp_path):
    workspace = tmp_path / "work"
    (workspace / "notes").mkdir(parents=True)
    settings = Path(os.environ["DESKTOP_COPILOT_HOME"]) / "config" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"workspace_folder": str(workspace)}), encoding="utf-8")
    assert cli(loopback, "permissions", "allow", "write_file", "notes/*").returncode == 0
    assert cli(loopback, "permissions", "deny", "write_file", "notes/private*").returncode == 0
    loopback.enqueue("/v1/messages", sse_response(anthropic_tool_reply([
        ("toolu_1", "write_file", {"path": "notes/todo.md", "content": "milk"}),
        ("toolu_2", "write_file", {"path": "notes/../notes/private.md", "content": "pin"}),
        ("toolu_3", "write_file", {"path": "other.md", "content": "x"})])), sse_response(anthropic_text_reply("Done.")))
    result = cli(loopback, "ask", "write three files")
    assert result.returncode == 0, result.stderr
    results = last_results(requests(loopback)[1])
    assert results["toolu_1"]["is_error"] is False and (workspace / "notes" / "todo.md").read_text() == "milk"
    assert "`deny write_file `notes/private*``" in results["toolu_2"]["content"]  # resolved before matching
    assert not (workspace / "notes" / "private.md").exists()
    assert "declined" in results["toolu_3"]["content"] and not (workspace / "other.md").exists()  # no rule: asks


def test_a_damaged_permissions_file_is_moved_aside_and_reported(loopback):
    config = Path(os.environ["DESKTOP_COPILOT_HOME"]) / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "permissions.json").write_text("{damaged", encoding="utf-8")
    listed = cli(loopback, "permissions", "list")
    assert listed.returncode == 0
    assert "could not be read" in listed.stderr and "permissions.json.broken-" in listed.stderr
    kept = list(config.glob("permissions.json.broken-*"))
    assert len(kept) == 1 and kept[0].read_text() == "{damaged"
    assert cli(loopback, "permissions", "deny", "shell").returncode == 0
    assert json.loads((config / "permissions.json").read_text())["rules"][0]["tool"] == "shell"


def test_remove_and_reset(loopback):
    for action, tool in (("deny", "shell"), ("allow", "read_file")):
        assert cli(loopback, "permissions", action, tool).returncode == 0
    gone = cli(loopback, "permissions", "remove", "1")
    assert gone.returncode == 0 and gone.stdout.startswith("Removed 1: ")
    assert cli(loopback, "permissions", "remove", "5").returncode == 2
    assert cli(loopback, "permissions", "reset").returncode == 2  # no terminal: only with --yes
    assert cli(loopback, "permissions", "reset", "--yes").stdout == "Removed 1 rules and grants.\n"
    assert "No rules." in cli(loopback, "permissions", "list").stdout


def test_the_shell_asks_every_time_unless_a_rule_allows_the_command(loopback, tmp_path):
    workspace = tmp_path / "project"
    workspace.mkdir()
    assert cli(loopback, "tools", "workspace", str(workspace)).returncode == 0
    assert cli(loopback, "tools", "enable", "shell").returncode == 0
    assert cli(loopback, "permissions", "allow", "shell", "echo *").returncode == 0
    loopback.enqueue("/v1/messages", sse_response(anthropic_tool_reply([
        ("toolu_1", "shell", {"command": "echo hello from the shell"}),
        ("toolu_2", "shell", {"command": "touch made-by-the-model"})])), sse_response(anthropic_text_reply("Done.")))
    result = cli(loopback, "ask", "run two commands")
    assert result.returncode == 0, result.stderr
    results = last_results(requests(loopback)[1])
    assert results["toolu_1"]["is_error"] is False and "hello from the shell" in results["toolu_1"]["content"]
    assert "exit status 0" in results["toolu_1"]["content"]
    assert "declined" in results["toolu_2"]["content"] and not (workspace / "made-by-the-model").exists()  # outside the rule
    assert "shell" in {tool["name"] for tool in requests(loopback)[0]["tools"]}
