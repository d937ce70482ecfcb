"""McpTool: provider-safe names, risk from annotations, and argument validation the model can act on."""

from __future__ import annotations

import re

import mcp_types as types
import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop_copilot.core.mcp.tools import MAX_ERROR_CHARS, McpTool, model_tool_name, risk_of
from desktop_copilot.core.tools.base import Risk, ToolArgumentsError

PROVIDER_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
SERVER_NAMES = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", fullmatch=True)


def test_plain_names_stay_readable():
    assert model_tool_name("files", "read_file") == "mcp__files__read_file"


def test_long_or_odd_names_are_cut_and_hashed():
    long = model_tool_name("server", "x" * 100)
    assert PROVIDER_NAME.match(long) and long.startswith("mcp__server__xxx")
    odd = model_tool_name("my.server", "read file/now")
    assert PROVIDER_NAME.match(odd) and odd.startswith("mcp__my_server__read_file_now_")
    assert model_tool_name("a", "b" * 100) != model_tool_name("a", "b" * 101)


def test_a_double_underscore_server_cannot_pose_as_another_pair():
    assert model_tool_name("a__b", "c") != model_tool_name("a", "b__c")


@given(SERVER_NAMES, st.text(min_size=1, max_size=200))
def test_names_always_fit_provider_rules(server, tool):
    assert PROVIDER_NAME.match(model_tool_name(server, tool))


@given(SERVER_NAMES, st.text(min_size=1, max_size=120), st.text(min_size=1, max_size=120))
def test_two_tools_never_share_a_name(server, first, second):
    if first != second:
        assert model_tool_name(server, first) != model_tool_name(server, second)


@pytest.mark.parametrize(("hints", "risk"), [
    (None, Risk.UNKNOWN),
    ({}, Risk.UNKNOWN),
    ({"read_only_hint": True}, Risk.READ_ONLY),
    ({"read_only_hint": True, "destructive_hint": False}, Risk.READ_ONLY),
    ({"read_only_hint": True, "destructive_hint": True}, Risk.DESTRUCTIVE),
    ({"destructive_hint": True}, Risk.DESTRUCTIVE),
    ({"read_only_hint": False}, Risk.DESTRUCTIVE),  # destructiveHint defaults to true when not read-only
    ({"read_only_hint": False, "destructive_hint": False}, Risk.UNKNOWN),
    ({"read_only_hint": False, "destructive_hint": False, "open_world_hint": True}, Risk.OPEN_WORLD),
    ({"open_world_hint": True}, Risk.OPEN_WORLD),
    ({"read_only_hint": True, "open_world_hint": True}, Risk.READ_ONLY),  # the issue: readOnlyHint runs without asking
    ({"idempotent_hint": True}, Risk.UNKNOWN),
])
def test_risk_from_annotations(hints, risk):
    annotations = None if hints is None else types.ToolAnnotations(**hints)
    assert risk_of(annotations) is risk


async def _never(*_args):
    raise AssertionError("not called")


def make_tool(schema: dict, name: str = "write") -> McpTool:
    tool = types.Tool(name=name, description="Writes.", input_schema=schema)
    return McpTool("files", "mcp:abc", tool, _never)


SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "lines": {"type": "integer", "minimum": 1}},
    "required": ["path"],
    "additionalProperties": False,
}


def test_entry_fields():
    tool = make_tool(SCHEMA)
    assert (tool.name, tool.title, tool.description) == ("mcp__files__write", "write", "Writes.")
    assert tool.source.kind == "mcp" and tool.source.name == "files" and tool.source.identity == "mcp:abc"
    assert tool.spec().input_schema == SCHEMA
    assert tool.timeout == 120.0


def test_valid_arguments_pass_through():
    assert make_tool(SCHEMA).validate({"path": "a.txt", "lines": 3}) == {"path": "a.txt", "lines": 3}


def test_errors_name_the_field_and_what_was_expected():
    with pytest.raises(ToolArgumentsError) as caught:
        make_tool(SCHEMA).validate({"lines": 0, "extra": 1})
    text = str(caught.value)
    assert "'path' is a required property" in text
    assert "- lines: 0 is less than the minimum of 1" in text
    assert "'extra' was unexpected" in text
    assert "Fix the arguments" in text


def test_error_messages_are_capped():
    with pytest.raises(ToolArgumentsError) as caught:
        make_tool({"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(50)}}).validate(
            {f"p{i}": "x" * 5000 if i % 2 else i for i in range(50)})
    assert len(str(caught.value)) <= MAX_ERROR_CHARS
    assert "more" in str(caught.value)


def test_a_non_object_is_refused():
    with pytest.raises(ToolArgumentsError, match="expected a JSON object"):
        make_tool(SCHEMA).validate(["path"])  # type: ignore[arg-type]


def test_the_schema_dialect_is_honoured():
    draft4 = {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
              "properties": {"n": {"type": "number", "maximum": 5, "exclusiveMaximum": True}}}
    with pytest.raises(ToolArgumentsError, match="n"):
        make_tool(draft4).validate({"n": 5})


def test_an_invalid_schema_still_checks_for_an_object():
    broken = make_tool({"type": "object", "properties": {"n": {"type": "no-such-type"}}})
    assert broken.validate({"n": 1}) == {"n": 1}
    with pytest.raises(ToolArgumentsError):
        broken.validate("text")  # type: ignore[arg-type]
