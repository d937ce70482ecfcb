"""What goes back to a text-protocol model: the system prompt, each call in the form the model wrote it (read back by
the reader as the same call), and the `<tool_response>` text of the results."""

from __future__ import annotations

import json

import pytest

from desktop_copilot.core.conversation.models import ToolCallBlock, ToolCallStatus
from desktop_copilot.core.providers.base import ToolSpec
from desktop_copilot.core.providers.text_protocol.writing import call_text, form_of, results_text, tools_system_prompt
from desktop_copilot.core.providers.wire_common import EMPTY_TOOL_RESULT, UNFINISHED_TOOL_RESULT

from .replay import read, shapes

SEARCH = ToolSpec("web_search", "Search the web.\n", {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]})
CALC = ToolSpec("calc", "Add numbers.", {"type": "object", "properties": {"x": {"type": "integer"}}})


def test_system_prompt_teaches_the_hermes_protocol_and_lists_every_tool():
    prompt = tools_system_prompt([SEARCH, CALC])
    assert '<tool_call>\n{"name": "TOOL_NAME", "arguments": {...}}\n</tool_call>' in prompt
    assert '<tool_response name="TOOL_NAME">' in prompt and "several" in prompt and "stop writing and wait" in prompt
    listed = prompt[prompt.index("<tools>\n") + len("<tools>\n"):prompt.index("\n</tools>")].split("\n")
    assert [json.loads(line) for line in listed] == [
        {"name": "web_search", "description": "Search the web.", "parameters": SEARCH.input_schema},
        {"name": "calc", "description": "Add numbers.", "parameters": CALC.input_schema},
    ]


ARGUMENTS = {"query": "香港 <weather>", "limit": 3, "exact": False, "filters": {"site": ["a", "b"]}, "nothing": None}


@pytest.mark.parametrize("form", ["hermes", "minimax", "invoke", "json"])
def test_a_call_written_back_is_read_back_as_the_same_call_in_the_same_form(form):
    written = call_text("web_search", ARGUMENTS, form)
    assert shapes(read([written]).message) == [("call", "web_search", ARGUMENTS, form)]


def test_each_form_looks_as_the_model_writes_it():
    assert call_text("calc", {"x": 1}) == '<tool_call>\n{"name": "calc", "arguments": {"x": 1}}\n</tool_call>'
    assert call_text("calc", {"x": 1}, "json") == '```json\n{"name": "calc", "arguments": {"x": 1}}\n```'
    assert call_text("calc", {"x": 1, "s": "hi"}, "invoke") == (
        '<invoke name="calc">\n<parameter name="x">1</parameter>\n<parameter name="s">hi</parameter>\n</invoke>')
    assert call_text("c&\"d", {}, "minimax") == '<minimax:tool_call>\n<invoke name="c&amp;&quot;d">\n</invoke>\n</minimax:tool_call>'
    assert call_text("calc", {}, "native") == call_text("calc", {}, "hermes")


def test_form_of_reads_the_recorded_form_and_falls_back_to_hermes():
    call = read([call_text("calc", {}, "minimax")]).calls[0]
    assert form_of(call) == "minimax"
    assert form_of(ToolCallBlock(id="n", name="calc")) == "hermes"
    assert form_of(ToolCallBlock(id="n", name="calc", provider_fields={"text_form": "smoke signals"})) == "hermes"


def test_results_text_answers_every_call_in_order():
    done = ToolCallBlock(id="c1", name="web_search", status=ToolCallStatus.DONE, result="Sunny")
    failed = ToolCallBlock(id="c2", name='we"ird<', status=ToolCallStatus.ERROR, result="boom", is_error=True)
    cut = ToolCallBlock(id="c3", name="calc", status=ToolCallStatus.DONE, result="a very long result", model_result="a very")
    empty = ToolCallBlock(id="c4", name="calc", status=ToolCallStatus.DONE, result="")
    never = ToolCallBlock(id="c5", name="calc")
    assert results_text([done, failed, cut, empty, never]) == (
        '<tool_response name="web_search">\nSunny\n</tool_response>\n'
        '<tool_response name="we&quot;ird&lt;" error="true">\nboom\n</tool_response>\n'
        '<tool_response name="calc">\na very\n</tool_response>\n'
        f'<tool_response name="calc">\n{EMPTY_TOOL_RESULT}\n</tool_response>\n'
        f'<tool_response name="calc" error="true">\n{UNFINISHED_TOOL_RESULT}\n</tool_response>'
    )
    assert results_text([]) == ""
