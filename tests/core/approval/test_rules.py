"""Permission rules as a table of cases, and their matching and specificity laws checked with hypothesis."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop_copilot.core.approval.rules import (
    Action,
    CallSubject,
    Rule,
    RuleError,
    by_specificity,
    call_argument,
    deciding_rule,
    make_rule,
    proposed_pattern,
    rule_name,
)

RULES = [
    make_rule("allow", "shell", "git status*"),
    make_rule("deny", "shell", "git push*"),
    make_rule("ask", "shell"),
    make_rule("deny", "shell", "rm *"),
    make_rule("allow", "write_file", "notes/*"),
    make_rule("deny", "write_file", "notes/secret*"),
    make_rule("allow", "web_fetch", "*.python.org"),
    make_rule("deny", "mcp:notes/*"),
    make_rule("allow", "mcp:notes/list_notes"),
    make_rule("ask", "*"),
    make_rule("allow", "read_file"),
]


@pytest.mark.parametrize(("tool", "argument", "expected"), [
    ("shell", "git status --short", "allow shell `git status*`"),
    ("shell", "git push origin main", "deny shell `git push*`"),
    ("shell", "ls -la", "ask shell"),  # the named tool without a pattern, over the `*` glob
    ("shell", "rm -rf build", "deny shell `rm *`"),
    ("write_file", "notes/todo.md", "allow write_file `notes/*`"),
    ("write_file", "notes/secret-plan.md", "deny write_file `notes/secret*`"),  # the longer pattern is more specific
    ("write_file", "src/app.py", "ask *"),
    ("web_fetch", "docs.python.org", "allow web_fetch `*.python.org`"),
    ("web_fetch", "python.org", "ask *"),
    ("mcp:notes/delete_note", None, "deny mcp:notes/*"),
    ("mcp:notes/list_notes", None, "allow mcp:notes/list_notes"),  # a named tool over a glob
    ("mcp:files/read", None, "ask *"),
    ("read_file", "anything.txt", "allow read_file"),
])
def test_the_most_specific_rule_decides(tool, argument, expected):
    rule = deciding_rule(RULES, CallSubject(tool, argument))
    assert rule is not None and rule.describe() == expected


def test_at_equal_specificity_deny_beats_ask_beats_allow():
    call = CallSubject("shell", "make test")
    rules = [make_rule("allow", "shell", "make*"), make_rule("ask", "shell", "make*")]
    assert deciding_rule(rules, call).action is Action.ASK
    assert deciding_rule([*rules, make_rule("deny", "shell", "make*")], call).action is Action.DENY


def test_no_rule_matches_and_a_pattern_never_matches_a_call_without_an_argument():
    assert deciding_rule([make_rule("deny", "shell", "rm *")], CallSubject("shell", "ls")) is None
    assert deciding_rule([make_rule("deny", "mcp:x/y", "*")], CallSubject("mcp:x/y", None)) is None


def test_grants_are_bound_to_the_source_and_the_conversation():
    grant = Rule(tool="mcp:notes/delete_note", action=Action.ALLOW, identity="abc", conversation_id="conv_1")
    assert grant.matches(CallSubject("mcp:notes/delete_note", None, "abc", "conv_1"))
    assert not grant.matches(CallSubject("mcp:notes/delete_note", None, "changed", "conv_1"))  # a changed server
    assert not grant.matches(CallSubject("mcp:notes/delete_note", None, "abc", "conv_2"))


def test_bad_rules_are_refused_in_words():
    with pytest.raises(RuleError, match="allow, ask or deny"):
        make_rule("permit", "shell")
    with pytest.raises(RuleError, match="needs a tool"):
        make_rule("allow", "  ")
    assert Rule.from_json(make_rule("deny", "shell", "rm *").to_json()).describe() == "deny shell `rm *`"


def test_the_argument_rules_see(tmp_path: Path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "link").symlink_to(tmp_path / "src")
    assert call_argument("write_file", {"path": "src/../notes/a.md"}, tmp_path) == "notes/a.md"
    assert call_argument("read_file", {"path": "src/link/x.py"}, tmp_path) == "src/x.py"  # resolved as the tools do
    assert call_argument("read_file", {"path": "../outside.txt"}, tmp_path) == (tmp_path.parent / "outside.txt").as_posix()
    assert call_argument("web_fetch", {"url": "https://Docs.Python.org/3/"}, None) == "docs.python.org"
    assert call_argument("shell", {"command": "  git status  "}, None) == "git status"
    assert call_argument("tavily_search", {"query": "x"}, None) is None


def test_the_pattern_a_card_proposes():
    assert proposed_pattern("shell", "git status --short") == "git status*"
    assert proposed_pattern("shell", "rm -rf *") == "rm -rf*"
    assert proposed_pattern("shell", "ls") == "ls*"
    assert proposed_pattern("write_file", "notes/todo.md") == "notes/*"
    assert proposed_pattern("write_file", "todo.md") == "*"
    assert proposed_pattern("web_fetch", "docs.python.org") == "docs.python.org"
    assert rule_name("mcp", "notes", "mcp__notes__delete_note", "delete_note") == "mcp:notes/delete_note"
    assert rule_name("builtin", "", "shell") == "shell"


# --- laws ---------------------------------------------------------------------------------------------------

words = st.text(alphabet="abcdefgh/._-", min_size=1, max_size=12)
actions = st.sampled_from(list(Action))


@given(tool=words, argument=words)
def test_a_named_rule_matches_only_its_own_tool_and_star_matches_everything(tool, argument):
    call = CallSubject(tool, argument)
    assert make_rule("allow", tool).matches(call) and make_rule("allow", "*").matches(call)
    assert make_rule("allow", tool, "*").matches(call) and make_rule("allow", tool, argument).matches(call)
    assert not make_rule("allow", tool + "x").matches(call)


@given(tool=words, argument=words, first=actions, second=actions)
def test_a_named_tool_beats_a_glob_and_a_pattern_beats_none_whatever_the_actions(tool, argument, first, second):
    call = CallSubject(tool, argument)
    named, glob = make_rule(first.value, tool), make_rule(second.value, "*")
    assert deciding_rule([glob, named], call) is named
    with_pattern = make_rule(second.value, tool, "*")
    assert deciding_rule([named, with_pattern], call) is with_pattern


@given(rules=st.lists(st.tuples(actions, st.sampled_from(["shell", "*", "sh*"]), st.sampled_from(["", "*", "git*"])),
                      min_size=1, max_size=8), command=st.sampled_from(["git status", "ls"]))
def test_the_decision_does_not_depend_on_the_order_of_the_rules(rules, command):
    made = [make_rule(a.value, t, p) for a, t, p in rules]
    call = CallSubject("shell", command)
    first, second = deciding_rule(made, call), deciding_rule(list(reversed(made)), call)
    assert (first is None) == (second is None)
    if first is not None:
        assert (first.action, first.specificity) == (second.action, second.specificity)
        assert by_specificity(made)[0].specificity >= first.specificity
