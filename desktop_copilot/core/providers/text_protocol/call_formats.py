"""The tool-call formats models write as text, read from a piece of markup that has closed: Hermes/Qwen JSON
(`{"name": …, "arguments": {…}}`, or a list of them), MiniMax `<invoke>` XML, and the sentences that say why a call
could not be read."""

from __future__ import annotations

import html
import json
import math
from dataclasses import dataclass
from typing import Any, Literal

from desktop_copilot.core.conversation.clean_values import clean_json, clean_text
from desktop_copilot.core.words import tr

Form = Literal["hermes", "minimax", "invoke", "json"]
"""How a call was written: `<tool_call>{json}</tool_call>`, `<minimax:tool_call><invoke …>` (or `<invoke>` inside a
`<tool_call>`), a bare `<invoke …>`, or a fenced ```json block that ends the reply."""
FORMS: tuple[Form, ...] = ("hermes", "minimax", "invoke", "json")
TEXT_FORM_FIELD = "text_form"
"""The key of a call's `provider_fields` that records its Form (the history writes the call back in it)."""

_CALL_KEYS = frozenset({"name", "arguments", "parameters"})


@dataclass(frozen=True, slots=True)
class TextCall:
    name: str
    arguments: dict[str, Any]
    form: Form


class UnreadableCall(ValueError):
    """Markup that looks like a call but is not one; the message says what is wrong ("invalid JSON")."""


def unreadable_sentence(tag: str, reason: str) -> str:
    return tr("The model wrote a tool call as text that could not be read ({tag} with {reason}), so it did not run.").format(
        tag=tag, reason=reason)


def unfinished_sentence(tag: str) -> str:
    return tr("The model's reply ended inside a tool call written as text ({tag} was never closed), so it did not run.").format(tag=tag)


def json_calls(body: str, form: Form, *, only_call_keys: bool = False) -> list[TextCall]:
    """The calls in a JSON object or list of objects, each `{"name", "arguments" | "parameters"}` (arguments may be a
    JSON string; `{"function": {…}}` is unwrapped). `only_call_keys`: an object with any other key is no call."""
    try:
        value = json.loads(_unfenced(body))
    except (ValueError, RecursionError):  # not JSON, or nested deeper than Python reads
        raise UnreadableCall("invalid JSON") from None
    items = value if isinstance(value, list) else [value]
    if not items:
        raise UnreadableCall("no call in it")
    return [_json_call(item, form, only_call_keys) for item in items]


def _json_call(item: Any, form: Form, only_call_keys: bool) -> TextCall:
    if not isinstance(item, dict):
        raise UnreadableCall("JSON that is not an object")
    if only_call_keys and not item.keys() <= _CALL_KEYS:
        raise UnreadableCall("keys other than name and arguments")
    if "name" not in item and isinstance(item.get("function"), dict) and not only_call_keys:
        item = item["function"]
    name = item.get("name")
    if not isinstance(name, str) or not name.strip():
        raise UnreadableCall("no tool name")
    arguments = item.get("arguments", item.get("parameters"))
    if isinstance(arguments, str):  # some models write the arguments as a JSON string
        try:
            arguments = json.loads(arguments) if arguments.strip() else None
        except (ValueError, RecursionError):
            raise UnreadableCall("arguments that are not valid JSON") from None
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise UnreadableCall("arguments that are not a JSON object")
    # JSON can decode to what no reply can keep (a lone surrogate from a "\ud800" escape, NaN): made storable.
    return TextCall(clean_text(name.strip()), clean_json(arguments), form)


def _unfenced(body: str) -> str:
    """`body` without a Markdown fence around it (some models fence the JSON inside the tags)."""
    text = body.strip()
    if text.startswith("```") and text.endswith("```") and "\n" in text:
        return text[text.index("\n") + 1:-3]
    return text


def invoke_calls(markup: str, form: Form) -> list[TextCall]:
    """Each `<invoke name="…"><parameter name="…">value</parameter>…</invoke>` in `markup`, in order (text between
    them is ignored). Read with `find`, not a regular expression: linear on any input."""
    calls, position = [], 0
    while (start := markup.find("<invoke", position)) >= 0:
        head_end = markup.find(">", start)
        end = markup.find("</invoke>", head_end + 1) if head_end >= 0 else -1
        if end < 0:
            raise UnreadableCall("an <invoke> that is not closed")
        name = _name_attribute(markup[start + len("<invoke"):head_end])
        if not name:
            raise UnreadableCall("an <invoke> without a tool name")
        calls.append(TextCall(clean_text(name), _parameters(markup[head_end + 1:end]), form))
        position = end + len("</invoke>")
    if not calls:
        raise UnreadableCall("no <invoke> in it")
    return calls


def _parameters(body: str) -> dict[str, Any]:
    arguments: dict[str, Any] = {}
    position = 0
    while (start := body.find("<parameter", position)) >= 0:
        head_end = body.find(">", start)
        end = body.find("</parameter>", head_end + 1) if head_end >= 0 else -1
        if end < 0:
            raise UnreadableCall("a <parameter> that is not closed")
        name = _name_attribute(body[start + len("<parameter"):head_end])
        if not name:
            raise UnreadableCall("a <parameter> without a name")
        arguments[clean_text(name)] = parameter_value(body[head_end + 1:end])
        position = end + len("</parameter>")
    return arguments


def _name_attribute(attributes: str) -> str:
    """The value of ` name="…"` (quoted with " or ', or bare), unescaped; "" when there is none."""
    text = attributes.strip()
    if not text.startswith("name="):
        return ""
    value = text[len("name="):].strip()
    if value[:1] in ("\"", "'"):
        closing = value.find(value[0], 1)
        value = value[1:closing] if closing > 0 else value[1:]
    return html.unescape(value).strip()


def parameter_value(text: str) -> Any:
    """A parameter's value: JSON numbers, booleans, null, objects and arrays are read; anything else (a JSON string
    included) is kept as written, without one leading and one trailing line break."""
    text = text.removeprefix("\n")
    text = text.removesuffix("\n")
    candidate = text.strip()
    if not candidate or candidate[0] not in "{[-0123456789tfn":
        return clean_text(text)
    try:
        value = json.loads(candidate)
    except (ValueError, RecursionError):
        return clean_text(text)
    if isinstance(value, str) or isinstance(value, float) and not math.isfinite(value):
        return clean_text(text)
    return clean_json(value)
