"""Gemini `generateContent` wire format: domain history to the request body, and streamed response chunks
(`GenerateContentResponse` JSON) to unified events.

Thought signatures go back only to Gemini, on the part they came with: a function call's in its block's
`provider_fields`, a thought's in `ThinkingBlock.signature`, and a text part's in a `RawBlock` of type
`gemini_thought_signature` right after that text (see `SIGNATURE_BLOCK`)."""

from __future__ import annotations

import itertools
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.history import written_by
from desktop_copilot.core.conversation.models import Message, RawBlock, Role, TextBlock, ThinkingBlock, ToolCallBlock, Usage
from desktop_copilot.core.providers.attachment_limits import AttachmentLimits, limits_for, user_parts
from desktop_copilot.core.providers.base import ProviderRequest, ToolSpec
from desktop_copilot.core.providers.parts import Parts
from desktop_copilot.core.providers.wire_common import stable_call_id, tool_result_of
from desktop_copilot.core.providers.wire_values import count_of, dict_of, list_of, text_of
from desktop_copilot.core.words import N_, tr

PROVIDER_ID = "gemini"
SIGNATURE_BLOCK = "gemini_thought_signature"
"""`RawBlock.data["type"]` of a text part's thought signature: `{"type": SIGNATURE_BLOCK, "thoughtSignature": …,
"signs": "text"}` right after the TextBlock it came with (sent back on that text part), or `"signs": "part"` when
it came on a part of its own (an empty text part, sent back as `{"text": "", "thoughtSignature": …}`)."""
OTHER_PART = "gemini_part"
"""`RawBlock.data["type"]` of a part this app does not model (code execution, inline data), kept for replay."""
SKIP_SIGNATURE = "skip_thought_signature_validator"
"""Google's documented stand-in signature, put on the first function call of a turn another provider wrote:
Gemini 3 refuses a turn whose first function call has no signature."""

REFUSALS = {
    "SAFETY": N_("its safety filters"),
    "RECITATION": N_("its recitation check (the answer would repeat a source too closely)"),
    "PROHIBITED_CONTENT": N_("its prohibited-content policy"),
    "BLOCKLIST": N_("a blocklist of terms"),
    "SPII": N_("its check for sensitive personal information"),
    "IMAGE_SAFETY": N_("its image safety filters"),
    "IMAGE_PROHIBITED_CONTENT": N_("its prohibited-content policy for images"),
    "IMAGE_RECITATION": N_("its recitation check for images"),
    "MODEL_ARMOR": N_("Model Armor"),
    "JAILBREAK": N_("its jailbreak detection"),
}
FAILURES = {
    "MALFORMED_FUNCTION_CALL": N_("Gemini produced a malformed function call and stopped"),
    "UNEXPECTED_TOOL_CALL": N_("Gemini called a function that was not offered and stopped"),
    "TOO_MANY_TOOL_CALLS": N_("Gemini made too many tool calls in one reply and stopped"),
    "MISSING_THOUGHT_SIGNATURE": N_("Gemini refused the history because a thought signature was missing"),
    "MALFORMED_RESPONSE": N_("Gemini produced a malformed response"),
    "LANGUAGE": N_("Gemini stopped because the request is in a language it does not support"),
}
_SCHEMA_KEYS = frozenset({"type", "format", "description", "nullable", "enum", "items", "properties", "required",
                          "minItems", "maxItems", "minLength", "maxLength", "pattern", "minimum", "maximum",
                          "minProperties", "maxProperties", "anyOf", "propertyOrdering"})
"""The JSON Schema keys Gemini's `Schema` (an OpenAPI subset) accepts; others (`$schema`, `additionalProperties`,
`title`, `default`, `$defs`, …) are a 400."""
_FORMATS = frozenset({"enum", "date-time", "int32", "int64", "float", "double"})
_SYNTHETIC_ID = re.compile(r"^call_[0-9a-f]{24}$")
_MAX_INDEX = 10_000


# --- request ----------------------------------------------------------------------------------


def is_synthetic_id(call_id: str) -> bool:
    """Whether `call_id` was made up here (`stable_call_id`) because Gemini gave the call none."""
    return bool(_SYNTHETIC_ID.match(call_id))


def _text_signature(blocks: list, index: int) -> str:
    after = blocks[index + 1] if index + 1 < len(blocks) else None
    if isinstance(after, RawBlock) and after.data.get("type") == SIGNATURE_BLOCK and after.data.get("signs") == "text":
        return str(after.data.get("thoughtSignature") or "")
    return ""


def _model_parts(message: Message, own: bool) -> list[dict[str, Any]]:
    """The parts of an assistant message; signatures, call ids and unmodelled parts only when Gemini wrote it."""
    parts: list[dict[str, Any]] = []
    blocks = message.blocks
    for index, block in enumerate(blocks):
        match block:
            case TextBlock(text=text):
                signature = _text_signature(blocks, index) if own else ""
                if text.strip() or signature:
                    parts.append({"text": text, **({"thoughtSignature": signature} if signature else {})})
            case ThinkingBlock(thinking=thinking, signature=signature) if own and signature:
                parts.append({"text": thinking, "thought": True, "thoughtSignature": signature})
            case ToolCallBlock():
                call: dict[str, Any] = {"name": block.name, "args": block.arguments}
                if own and not is_synthetic_id(block.id):
                    call["id"] = block.id
                parts.append({"functionCall": call, **(block.provider_fields if own else {})})
            case RawBlock(data=data) if own and data.get("type") == SIGNATURE_BLOCK and data.get("signs") != "text":
                parts.append({"text": "", "thoughtSignature": data.get("thoughtSignature") or ""})
            case RawBlock(data=data) if own and data.get("type") == OTHER_PART:
                parts.append({k: v for k, v in data.items() if k != "type"})
    first_call = next((p for p in parts if "functionCall" in p), None)
    if first_call is not None and not own and not first_call.get("thoughtSignature"):
        first_call["thoughtSignature"] = SKIP_SIGNATURE
    return parts


def _function_responses(message: Message, own: bool) -> list[dict[str, Any]]:
    """One `functionResponse` per call, in the order of the calls; a call that never finished gets an error."""
    parts = []
    for call in message.tool_calls:
        text, is_error = tool_result_of(call)
        response: dict[str, Any] = {"name": call.name, "response": {"error": text} if is_error else {"result": text}}
        if own and not is_synthetic_id(call.id):
            response["id"] = call.id
        parts.append({"functionResponse": response})
    return parts


def user_parts_of(message: Message, limits: AttachmentLimits) -> list[dict[str, Any]]:
    """A user message as parts: text, text files headed by their names, images and PDFs as `inlineData`."""
    return [{"text": part} if isinstance(part, str) else {"inlineData": {"mimeType": part.media_type, "data": part.data}}
            for part in user_parts(message, limits)]


def build_contents(history: list[Message], limits: AttachmentLimits | None = None) -> list[dict[str, Any]]:
    """`contents` for `history`: each assistant turn is a "model" content, its function responses the "user"
    content right after it; adjacent contents of one role merge. Gemini takes only contents that alternate between
    user and model ("Please ensure that multiturn requests alternate between user and model"), with a model's function
    calls answered by the user content right after them: so a user message that follows the responses (the next
    question after the reply to them failed) joins their content, after the responses, as the google-genai SDK groups
    consecutive user parts into one content (`t_contents`) and as Anthropic puts text after its tool results.
    `limits`: what the model takes as attachments (default: any Gemini model's)."""
    limits = limits or limits_for(PROVIDER_ID, "gemini", "")
    contents: list[dict[str, Any]] = []

    def add(role: str, parts: list[dict[str, Any]]) -> None:
        if not parts:
            return
        if contents and contents[-1]["role"] == role:
            contents[-1]["parts"].extend(parts)
        else:
            contents.append({"role": role, "parts": list(parts)})

    for message in history:
        if message.role is Role.USER:
            add("user", user_parts_of(message, limits))
        else:
            own = written_by(message, PROVIDER_ID)
            add("model", _model_parts(message, own))
            add("user", _function_responses(message, own))  # after the calls' content: never merged into a question
    return contents


def gemini_schema(schema: Any, defs: dict[str, Any] | None = None, depth: int = 0) -> Any:
    """`schema` (JSON Schema, as pydantic writes it) in the subset Gemini accepts: `$ref`s inlined, `null`
    alternatives turned into `nullable`, `const` into `enum`, and every key Gemini refuses left out."""
    if not isinstance(schema, dict) or depth > 20:
        return {}
    defs = {**(defs or {}), **(schema.get("$defs") or {}), **(schema.get("definitions") or {})}
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.rsplit("/", 1)[-1] in defs:
        target = defs[ref.rsplit("/", 1)[-1]]
        schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    if isinstance(schema.get("allOf"), list) and len(schema["allOf"]) == 1:
        schema = {**gemini_schema(schema["allOf"][0], defs, depth + 1), **{k: v for k, v in schema.items() if k != "allOf"}}
    out: dict[str, Any] = {}
    alternatives = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(alternatives, list):
        kept = [a for a in alternatives if not (isinstance(a, dict) and a.get("type") == "null")]
        if len(kept) < len(alternatives):
            out["nullable"] = True
        if len(kept) == 1:
            out.update(gemini_schema(kept[0], defs, depth + 1))
        elif kept:
            out["anyOf"] = [gemini_schema(a, defs, depth + 1) for a in kept]
    kind = schema.get("type")
    if isinstance(kind, list):
        out["nullable"] = out.get("nullable", False) or "null" in kind
        kind = next((k for k in kind if k != "null"), None)
    if "const" in schema and "enum" not in schema:
        schema = {**schema, "enum": [schema["const"]]}
    for key, value in schema.items():
        if key not in _SCHEMA_KEYS or key in ("anyOf", "nullable"):
            continue
        if key == "type":
            if kind:
                out["type"] = kind
        elif key == "properties" and isinstance(value, dict):
            out["properties"] = {name: gemini_schema(sub, defs, depth + 1) for name, sub in value.items()}
        elif key == "items":
            out["items"] = gemini_schema(value[0] if isinstance(value, list) and value else value, defs, depth + 1)
        elif key == "format":
            if value in _FORMATS:
                out["format"] = value
        elif key == "enum":
            if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
                out["enum"] = value
        else:
            out[key] = value
    if out.get("nullable") is False:
        del out["nullable"]
    return out


def function_declaration(tool: ToolSpec) -> dict[str, Any]:
    declaration: dict[str, Any] = {"name": tool.name, "description": tool.description}
    parameters = gemini_schema(tool.input_schema)
    if parameters.get("properties"):  # an object without properties is a 400: a call without arguments has none
        declaration["parameters"] = parameters
    return declaration


def build_body(request: ProviderRequest) -> dict[str, Any]:
    """The JSON body of `models/{model}:streamGenerateContent`."""
    body: dict[str, Any] = {"contents": build_contents(request.messages, limits_for(PROVIDER_ID, "gemini", request.model))}
    if request.system:
        body["systemInstruction"] = {"parts": [{"text": request.system}]}
    if request.tools:
        body["tools"] = [{"functionDeclarations": [function_declaration(t) for t in request.tools]}]
    sampling = request.sampling_options()
    config: dict[str, Any] = {"maxOutputTokens": request.max_tokens,
                              **({"temperature": sampling["temperature"]} if "temperature" in sampling else {}),
                              **({"topP": sampling["top_p"]} if "top_p" in sampling else {})}
    if request.thinking_budget:
        config["thinkingConfig"] = {"includeThoughts": True, "thinkingBudget": request.thinking_budget}
        if request.max_tokens <= request.thinking_budget:  # thoughts count against maxOutputTokens
            config["maxOutputTokens"] = request.thinking_budget + 4096
    body["generationConfig"] = config
    return body


# --- response ---------------------------------------------------------------------------------


def refusal_words(reason: str, message: str = "", *, prompt: bool = False) -> str:
    """What to tell the user when Gemini stopped a reply (or, `prompt`, blocked the request) on policy grounds."""
    why = tr(REFUSALS[reason]) if reason in REFUSALS else tr("its policies ({reason})").format(reason=reason)
    words = [(tr("Gemini declined to answer: the request was blocked by {why}.") if prompt
              else tr("Gemini declined to answer: the reply was stopped by {why}.")).format(why=why)]
    if message.strip():
        words.append(message.strip())
    return " ".join([*words, tr("The request is left out of later turns of this conversation; rephrase it or start anew.")])


def failure_words(reason: str, message: str = "") -> str:
    what = tr(FAILURES[reason]) if reason in FAILURES else tr(
        "Gemini stopped the reply for a reason it did not explain ({reason})").format(reason=reason)
    words = tr("{what} ({message}).").format(what=what, message=message.strip()) if message.strip() else tr("{what}.").format(what=what)
    return " ".join([words, tr("The partial reply was kept; try again or rephrase the request.")])


_PATH_STEP = re.compile(r"\.([^.\[\]]+)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\[\"((?:[^\"\\]|\\.)*)\"\]")


def _path(json_path: str) -> list[str | int] | None:
    """The steps of a JSON Path such as `$.foo.bar[0]['x y']`, or None when it is not one."""
    if not json_path.startswith("$"):
        return None
    steps: list[str | int] = []
    position = 1
    while position < len(json_path):
        match = _PATH_STEP.match(json_path, position)
        if match is None:
            return None
        name, number, single, double = match.groups()
        steps.append(int(number) if number is not None else (name or single or double or ""))
        position = match.end()
    return steps


def _assign(args: dict[str, Any], steps: list[str | int], value: Any, append: bool) -> None:
    """Set `value` at `steps` inside `args`, making the objects and arrays on the way; `append` adds a string
    piece to the one already there."""
    target: Any = args
    for step, following in itertools.pairwise(steps):
        container: Any = [] if isinstance(following, int) else {}
        if isinstance(target, dict) and isinstance(step, str):
            if not isinstance(target.get(step), dict | list):
                target[step] = container
        elif isinstance(target, list) and isinstance(step, int) and step < _MAX_INDEX:
            target.extend([None] * (step + 1 - len(target)))
            if not isinstance(target[step], dict | list):
                target[step] = container
        else:
            return
        target = target[step]
    last = steps[-1]
    if isinstance(target, dict) and isinstance(last, str):
        current = target.get(last)
    elif isinstance(target, list) and isinstance(last, int) and last < _MAX_INDEX:
        target.extend([None] * (last + 1 - len(target)))
        current = target[last]
    else:
        return
    target[last] = current + value if append and isinstance(current, str) and isinstance(value, str) else value


@dataclass
class _StreamedCall:
    """A call whose arguments arrive as `partialArgs` (Vertex's streamed function-call arguments)."""

    key: int
    call_id: str
    name: str
    signature: str
    args: dict[str, Any] = field(default_factory=dict)
    open_paths: set[str] = field(default_factory=set)
    signed_late: bool = False


class GeminiEventMapper:
    """Maps streamed `GenerateContentResponse` chunks (plain dicts) to unified events through the parts manager.
    Gemini streams each part in pieces across chunks with no index: consecutive text (or thought) pieces form one
    part, and a function call arrives whole in one part (or, on Vertex, as `partialArgs` ended by an empty
    `functionCall`). The finish reason is kept until `finish()` at the end of the stream, so late usage still comes
    before `done`. A field of the wrong type is read as absent."""

    drained = False
    """Every chunk is read to the body's end: usage may follow the finish reason."""

    def __init__(self) -> None:
        self.parts = Parts()
        self.usage = Usage()
        self.started = False
        self.finished = False
        self.finish_reason: str | None = None
        self.finish_message = ""
        self.block_reason: str | None = None
        self._signature = ""
        """The signature of the open text or thought part."""
        self._streamed: _StreamedCall | None = None
        self._calls = 0
        self._response_id = ""
        self._nonce = uuid.uuid4().hex  # for call ids when a chunk carries no responseId

    def feed(self, chunk: dict[str, Any]) -> list[ev.Event]:
        events: list[ev.Event] = []
        self._response_id = text_of(chunk.get("responseId")) or self._response_id
        if not self.started:
            self.started = True
            events.append(ev.Start(model=text_of(chunk.get("modelVersion")), provider_message_id=self._response_id))
        candidates = list_of(chunk.get("candidates"))
        candidate = dict_of(candidates[0]) if candidates else {}
        for part in list_of(dict_of(candidate.get("content")).get("parts")):
            if isinstance(part, dict):
                events += self._part(part)
        if self._update_usage(chunk.get("usageMetadata")):
            events.append(ev.UsageUpdate(usage=self.usage.model_copy()))
        if reason := text_of(candidate.get("finishReason")):
            self.finished = True
            self.finish_reason = reason
            self.finish_message = text_of(candidate.get("finishMessage"))
        feedback = dict_of(chunk.get("promptFeedback"))
        if reason := text_of(feedback.get("blockReason")):
            self.finished = True
            self.block_reason = reason
            self.finish_message = text_of(feedback.get("blockReasonMessage"))
        return events

    def close(self) -> list[ev.Event]:
        """Everything open ends (the text part with its signature, a streamed call)."""
        return self._close_all() + self.parts.close_all()

    def finish(self, interruption: str = N_("The stream ended before Gemini said the reply was finished")) -> list[ev.Event]:
        """The closing events at the end of the stream: open parts closed, then `done` (or the error a finish
        reason means); without a finish reason, an `interrupted` error that keeps the partial reply."""
        events = self.close()
        if not self.finished:
            return [*events, ev.Error(reason="interrupted", message=tr("{what}. The partial reply was kept.").format(what=tr(interruption)))]
        if self.block_reason:
            return [*events, ev.Done(reason="refusal", detail=refusal_words(self.block_reason, self.finish_message, prompt=True))]
        reason = self.finish_reason or "STOP"
        if reason == "STOP":
            return [*events, ev.Done(reason="tool_use" if self._calls else "end_turn")]
        if reason in ("MAX_TOKENS", "CONTINUATION"):
            return [*events, ev.Done(reason="max_tokens")]
        if reason in REFUSALS:
            return [*events, ev.Done(reason="refusal", detail=refusal_words(reason, self.finish_message))]
        return [*events, ev.Error(reason="error", message=failure_words(reason, self.finish_message))]

    # --- parts ---

    def _part(self, part: dict[str, Any]) -> list[ev.Event]:
        signature = text_of(part.get("thoughtSignature"))
        if isinstance(part.get("functionCall"), dict):
            return self._function_call(part["functionCall"], signature)
        if "text" in part or (signature and set(part) <= {"thoughtSignature", "thought"}):  # text, or only a signature
            return self._text(text_of(part.get("text")), signature, thinking=bool(part.get("thought")))
        other = {k: v for k, v in part.items() if k not in ("thought",)}
        if not other:
            return []
        return [*self._close_all(), *self.parts.raw({"type": OTHER_PART, **other})]

    def _text(self, text: str, signature: str, *, thinking: bool) -> list[ev.Event]:
        """A piece of text or thought: it continues the open part of its kind, else starts one. A text part keeps
        the first signature that comes with its pieces; a signature ends a run of thought pieces."""
        kind = "thinking" if thinking else "text"
        parts = self.parts
        if parts.open_kind == kind and not (signature and self._signature and signature != self._signature):
            events = parts.thinking(text) if thinking else parts.text(text)
            self._signature = self._signature or signature
        else:
            if not text and not signature:
                return []
            events = self._close_all()
            if not text and not thinking:  # a signature on an empty text part of its own
                return [*events, *parts.raw({"type": SIGNATURE_BLOCK, "thoughtSignature": signature, "signs": "part"})]
            self._signature = signature
            events += parts.open_part(kind) + (parts.thinking(text) if thinking else parts.text(text))
        if thinking and self._signature:
            events += self._close()
        return events

    def _close(self) -> list[ev.Event]:
        """End the open text or thought part (with its signature)."""
        kind, signature, self._signature = self.parts.open_kind, self._signature, ""
        if kind == "thinking":
            self.parts.sign(signature)
            return self.parts.close_open()
        events = self.parts.close_open()
        if kind == "text" and signature:
            events += self.parts.raw({"type": SIGNATURE_BLOCK, "thoughtSignature": signature, "signs": "text"})
        return events

    def _close_all(self) -> list[ev.Event]:
        """End whatever is open before a new part starts."""
        return [*self._close(), *self._end_streamed()]

    def _function_call(self, call: dict[str, Any], signature: str) -> list[ev.Event]:
        streamed = self._streamed
        name = text_of(call.get("name"))
        if streamed is not None and not name:  # more of a call whose arguments stream
            self._apply_partial(streamed, list_of(call.get("partialArgs")))
            if signature and not streamed.signature:
                streamed.signature, streamed.signed_late = signature, True
            return [] if call.get("willContinue") else self._end_streamed()
        if not name:
            return []
        events = self._close_all()
        position = self._calls
        self._calls += 1
        call_id = text_of(call.get("id")) or stable_call_id(position, name, {}, salt=self._response_id or self._nonce)
        fields = {"thoughtSignature": signature} if signature else {}
        if call.get("willContinue") or call.get("partialArgs"):
            self._streamed = _StreamedCall(position, call_id, name, signature)
            self._apply_partial(self._streamed, list_of(call.get("partialArgs")))
            events += self.parts.start_call(position, call_id, name, provider_fields=fields)
            return events if call.get("willContinue") else events + self._end_streamed()
        return [*events, *self.parts.whole_call(position, call_id, name, dict_of(call.get("args")), provider_fields=fields)]

    @staticmethod
    def _apply_partial(call: _StreamedCall, pieces: list[Any]) -> None:
        for piece in pieces:
            if not isinstance(piece, dict):
                continue
            path = text_of(piece.get("jsonPath"))
            steps = _path(path)
            if not steps:
                continue
            if "stringValue" in piece:
                value: Any = piece["stringValue"]
            elif "numberValue" in piece:
                number = piece["numberValue"]
                value = int(number) if isinstance(number, float) and number.is_integer() else number
            elif "boolValue" in piece:
                value = piece["boolValue"]
            elif "nullValue" in piece:
                value = None
            else:
                continue
            _assign(call.args, steps, value, append=path in call.open_paths)
            (call.open_paths.add if piece.get("willContinue") else call.open_paths.discard)(path)

    def _end_streamed(self) -> list[ev.Event]:
        call, self._streamed = self._streamed, None
        if call is None:
            return []
        events: list[ev.Event] = []
        if call.signed_late:  # the signature came after the start: the call is started again with it
            events += self.parts.start_call(call.key, call.call_id, call.name, provider_fields={"thoughtSignature": call.signature},
                                            restart=True)
        return [*events, *self.parts.end_call(call.key, call.args)]

    def _update_usage(self, meta: Any) -> bool:
        """Take the counts of `usageMetadata` (each chunk's are totals so far); whether they changed."""
        if not isinstance(meta, dict):
            return False
        counts = [count_of(meta.get(k)) for k in ("promptTokenCount", "candidatesTokenCount", "thoughtsTokenCount",
                                                  "cachedContentTokenCount")]
        if all(c is None for c in counts):
            return False
        prompt, candidates, thoughts, cached = (c or 0 for c in counts)
        usage = Usage(input_tokens=prompt, output_tokens=candidates + thoughts, reasoning_tokens=thoughts,
                      cache_read_tokens=cached)
        changed = usage != self.usage
        self.usage = usage
        return changed
