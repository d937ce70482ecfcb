"""What goes back to a model that calls tools in text: the system prompt that teaches it the Hermes/Qwen
`<tool_call>` protocol, each earlier call written back in the form the model used, and the results as
`<tool_response>` text (the user message that answers the calls)."""

from __future__ import annotations

import html
import json
from collections.abc import Iterable
from typing import Any

from desktop_copilot.core.conversation.models import Message, TextBlock, ToolCallBlock
from desktop_copilot.core.providers.base import ToolSpec
from desktop_copilot.core.providers.text_protocol.call_formats import FORMS, TEXT_FORM_FIELD, Form
from desktop_copilot.core.providers.wire_common import tool_result_of

PROTOCOL = """# Tools

You may call one or more tools to help with the user's request. The tools are listed below inside <tools></tools> \
tags, each with its description and its parameters as a JSON Schema.

To call a tool, write a JSON object with the tool's name and its arguments inside <tool_call></tool_call> tags:
<tool_call>
{"name": "TOOL_NAME", "arguments": {...}}
</tool_call>
"arguments" is an object that matches the tool's parameters. Write one <tool_call> block per call; you may write \
several. After your calls, stop writing and wait: the results come back in the next user message, one per call in \
the same order, as
<tool_response name="TOOL_NAME">…</tool_response>
Never write a <tool_response> yourself and never guess what a tool would return. When no tool is needed, answer \
normally, without these tags.

<tools>"""


def tools_system_prompt(tools: Iterable[ToolSpec]) -> str:
    """The protocol and every tool's name, description and parameters, for the system prompt."""
    lines = [PROTOCOL]
    for tool in tools:
        described = {"name": tool.name, "description": tool.description.strip(), "parameters": tool.input_schema}
        lines.append(json.dumps(described, ensure_ascii=False, sort_keys=True))
    lines.append("</tools>")
    return "\n".join(lines)


def form_of(call: ToolCallBlock) -> Form:
    """The form `call` was written in (recorded by the reader); "hermes" for a native call or an unknown form."""
    form = call.provider_fields.get(TEXT_FORM_FIELD)
    return form if form in FORMS else "hermes"


def call_text(name: str, arguments: dict[str, Any], form: str = "hermes") -> str:
    """A call written as the model writes it in `form` ("hermes", "minimax", "invoke", "json"; another: "hermes")."""
    if form in ("minimax", "invoke"):
        parameters = "".join(f'<parameter name="{_attribute(key)}">{_parameter_text(value)}</parameter>\n'
                             for key, value in arguments.items())
        invoke = f'<invoke name="{_attribute(name)}">\n{parameters}</invoke>'
        return f"<minimax:tool_call>\n{invoke}\n</minimax:tool_call>" if form == "minimax" else invoke
    call = json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)
    return f"```json\n{call}\n```" if form == "json" else f"<tool_call>\n{call}\n</tool_call>"


def reply_text(message: Message) -> str:
    """A reply whose calls travel as text, as the model wrote it: its text and each call where it was made, in the
    form the model used (a native call as `<tool_call>`); whitespace-only text left out."""
    pieces = []
    for block in message.blocks:
        if isinstance(block, TextBlock) and block.text.strip():
            pieces.append(block.text)
        elif isinstance(block, ToolCallBlock):
            pieces.append(call_text(block.name, block.arguments, form_of(block)))
    return "\n\n".join(pieces)


def written_as_text(message: Message) -> bool:
    """Whether the model wrote some of the calls of `message` as text (so they go back as text)."""
    return any(TEXT_FORM_FIELD in call.provider_fields for call in message.tool_calls)


def results_text(calls: Iterable[ToolCallBlock]) -> str:
    """One `<tool_response>` per call, in order (a failed or unfinished call's marked `error="true"`)."""
    responses = []
    for call in calls:
        text, is_error = tool_result_of(call)
        error = ' error="true"' if is_error else ""
        responses.append(f'<tool_response name="{_attribute(call.name)}"{error}>\n{text}\n</tool_response>')
    return "\n".join(responses)


def _attribute(value: str) -> str:
    return html.escape(value, quote=True)


def _parameter_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
