"""Unit tests of the Gemini wire format: history to `contents`, the request body, and chunks to unified events."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.conversation.accumulate import accumulate
from desktop_copilot.core.conversation.models import (
    Message,
    MessageStatus,
    RawBlock,
    RedactedThinkingBlock,
    Role,
    TextBlock,
    TextFileBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolCallStatus,
    Usage,
)
from desktop_copilot.core.providers.attachment_limits import limits_for, user_parts
from desktop_copilot.core.providers.base import ProviderRequest, ToolSpec
from desktop_copilot.core.providers.gemini_wire import (
    SIGNATURE_BLOCK,
    SKIP_SIGNATURE,
    GeminiEventMapper,
    build_body,
    build_contents,
    function_declaration,
    gemini_schema,
)
from desktop_copilot.core.tools.tavily import TavilySearch
from tests.support.gemini_support import chunk, gemini_rules_refusal, usage

TEXT_FILE = TextFileBlock(name="notes.txt", text="hello from the note", size=19)
SIG_A, SIG_B, SIG_T = "CloBvj72+4/aTlyeodvVsF6WQseQ==", "EsINCr8NAb4+9vvezzPlSWg3==", "EjQKMgEMtextsig=="


def assistant(*blocks, provider: str | None = "gemini", status=MessageStatus.COMPLETED) -> Message:
    return Message(role=Role.ASSISTANT, blocks=list(blocks), status=status, provider=provider)


def call(call_id: str, name: str, *, signature: str = "", result: str | None = "5", is_error=False,
         status=ToolCallStatus.DONE) -> ToolCallBlock:
    return ToolCallBlock(id=call_id, name=name, arguments={"a": 2, "b": 3}, status=status, result=result, is_error=is_error,
                         provider_fields={"thoughtSignature": signature} if signature else {})


def feed_all(chunks: list[dict]) -> tuple[list[ev.Event], Message]:
    mapper = GeminiEventMapper()
    events = [e for c in chunks for e in mapper.feed(c)] + mapper.finish()
    message = Message.assistant(provider="gemini")
    for event in events:
        accumulate(message, event)
    return events, message


# --- request --------------------------------------------------------------------------------


def test_signatures_and_ids_echo_on_the_same_call_parts_only_for_gemini_messages():
    calls = [call("8hd01vsf", "add", signature=SIG_A), call("call_0123456789abcdef01234567", "multiply")]
    own = build_contents([Message.user("q"), assistant(*calls)])
    assert own[1] == {"role": "model", "parts": [
        {"functionCall": {"name": "add", "args": {"a": 2, "b": 3}, "id": "8hd01vsf"}, "thoughtSignature": SIG_A},
        {"functionCall": {"name": "multiply", "args": {"a": 2, "b": 3}}},  # a made-up id is not Gemini's: not sent
    ]}
    assert own[2]["parts"][0]["functionResponse"]["id"] == "8hd01vsf" and "id" not in own[2]["parts"][1]["functionResponse"]

    foreign = [call("toolu_01A", "add", signature=SIG_A), call("toolu_01B", "multiply")]
    for provider in ("anthropic", None, "openai"):
        contents = build_contents([Message.user("q"), assistant(*foreign, provider=provider)])
        assert contents[1]["parts"] == [  # no ids, no other provider's fields; Google's stand-in on the first call
            {"functionCall": {"name": "add", "args": {"a": 2, "b": 3}}, "thoughtSignature": SKIP_SIGNATURE},
            {"functionCall": {"name": "multiply", "args": {"a": 2, "b": 3}}},
        ]
        assert all("id" not in p["functionResponse"] for p in contents[2]["parts"])


def test_function_responses_in_call_order_in_one_user_content():
    message = assistant(TextBlock(text="Let me compute."), call("c1", "add", result="5"),
                        call("c2", "divide", result="division by zero", is_error=True, status=ToolCallStatus.ERROR),
                        call("c3", "multiply", result=None, status=ToolCallStatus.RUNNING), status=MessageStatus.INTERRUPTED)
    contents = build_contents([Message.user("q"), message, Message.user("thanks")])
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    assert contents[1]["parts"][0] == {"text": "Let me compute."}
    assert [p["functionResponse"] for p in contents[2]["parts"][:3]] == [
        {"name": "add", "response": {"result": "5"}, "id": "c1"},
        {"name": "divide", "response": {"error": "division by zero"}, "id": "c2"},
        {"name": "multiply", "response": {"error": "The tool call did not complete (the reply was interrupted or stopped)."}, "id": "c3"},
    ]
    assert contents[2]["parts"][3:] == [{"text": "thanks"}]  # the next question after the responses, in their turn


def test_a_failed_reply_to_function_responses_leaves_turns_that_alternate():
    """The provider refused the request carrying the function responses: the failed reply is empty, so the next
    question follows the responses. Gemini refuses two user contents in a row ("Please ensure that multiturn
    requests alternate between user and model"): the question joins the responses' content, after them."""
    calls = assistant(call("c1", "read_note", signature=SIG_A))
    failed = assistant(TextBlock(text=""), status=MessageStatus.FAILED)
    history = [Message.user("Read my note"), calls, failed, Message.user("And now?", [TEXT_FILE])]
    contents = build_contents(history)
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    assert [next(iter(p)) for p in contents[2]["parts"]] == ["functionResponse", "text", "text"]
    assert contents[2]["parts"][1:] == [{"text": part} for part in user_parts(history[-1], limits_for("gemini", "gemini", ""))]
    assert gemini_rules_refusal({"contents": contents}) is None

    answered = assistant(TextBlock(text="It says hello."))
    later = build_contents([*history, answered, Message.user("Thanks")])
    assert [c["role"] for c in later] == ["user", "model", "user", "model", "user"]
    assert gemini_rules_refusal({"contents": later}) is None


def test_thinking_is_not_sent_as_text_and_only_signed_own_thoughts_go_back():
    thought = ThinkingBlock(thinking="**Planning**\nAdd first.", signature="")
    signed = ThinkingBlock(thinking="Check.", signature=SIG_B)
    redacted = RedactedThinkingBlock(data="EmwKAhgB")
    own = build_contents([Message.user("q"), assistant(thought, signed, redacted, TextBlock(text="5"))])
    assert own[1]["parts"] == [{"text": "Check.", "thought": True, "thoughtSignature": SIG_B}, {"text": "5"}]
    claude = build_contents([Message.user("q"), assistant(signed.model_copy(), TextBlock(text="5"), provider="anthropic")])
    assert claude[1]["parts"] == [{"text": "5"}]


def test_text_signatures_round_trip_on_their_text_part():
    events, message = feed_all([
        chunk({"text": "The answer "}),
        chunk({"text": "is 5."}),
        chunk({"text": "", "thoughtSignature": SIG_T}, finish="STOP", usage=usage()),
    ])
    assert [e.kind for e in events] == ["start", "text_start", "text_delta", "text_delta", "usage", "text_end", "raw_block", "done"]
    assert message.text == "The answer is 5."
    assert message.blocks[1] == RawBlock(data={"type": SIGNATURE_BLOCK, "thoughtSignature": SIG_T, "signs": "text"})
    contents = build_contents([Message.user("q"), message])
    assert contents[1] == {"role": "model", "parts": [{"text": "The answer is 5.", "thoughtSignature": SIG_T}]}
    assert build_contents([Message.user("q"), message.model_copy(update={"provider": "openai"})])[1]["parts"] == [
        {"text": "The answer is 5."}]


def test_signature_on_a_part_of_its_own_goes_back_as_that_part():
    _, message = feed_all([
        chunk({"functionCall": {"name": "add", "args": {"a": 1}}, "thoughtSignature": SIG_A}),
        chunk({"text": "", "thoughtSignature": SIG_T}, finish="STOP"),
    ])
    assert [b.type for b in message.blocks] == ["tool_call", "raw"]
    assert build_contents([Message.user("q"), message])[1]["parts"] == [
        {"functionCall": {"name": "add", "args": {"a": 1}}, "thoughtSignature": SIG_A},
        {"text": "", "thoughtSignature": SIG_T},
    ]


def test_signed_text_first_then_more_text_stays_one_block():
    _, message = feed_all([chunk({"text": "Hel", "thoughtSignature": SIG_T}), chunk({"text": "lo"}, finish="STOP")])
    assert [b.type for b in message.blocks] == ["text", "raw"] and message.text == "Hello"
    assert build_contents([Message.user("q"), message])[1]["parts"] == [{"text": "Hello", "thoughtSignature": SIG_T}]


def test_body_system_tools_only_when_present_and_generation_config():
    plain = build_body(ProviderRequest(model="m", messages=[Message.user("q")], max_tokens=1000, provider="gemini"))
    assert plain == {"contents": [{"role": "user", "parts": [{"text": "q"}]}], "generationConfig": {"maxOutputTokens": 1000}}
    tool = ToolSpec("calc", "Calculate.", {"type": "object", "properties": {"x": {"type": "integer"}}})
    full = build_body(ProviderRequest(model="m", messages=[Message.user("q")], system="S", tools=[tool], max_tokens=8000,
                                      thinking_budget=3000, provider="gemini"))
    assert full["systemInstruction"] == {"parts": [{"text": "S"}]}
    assert full["tools"] == [{"functionDeclarations": [{"name": "calc", "description": "Calculate.", "parameters": tool.input_schema}]}]
    assert full["generationConfig"] == {"maxOutputTokens": 8000, "thinkingConfig": {"includeThoughts": True, "thinkingBudget": 3000}}


def test_adjacent_user_turns_merge_and_empty_turns_are_dropped():
    failed = assistant(TextBlock(text=""), ThinkingBlock(thinking="unsigned"), status=MessageStatus.FAILED)
    contents = build_contents([Message.user("one"), failed, Message.user(" "), Message.user("two")])
    assert contents == [{"role": "user", "parts": [{"text": "one"}, {"text": "two"}]}]


class Place(BaseModel):
    city: str = Field(title="City", description="The city.")
    country: str | None = None


class Lookup(BaseModel):
    model_config = {"extra": "forbid"}
    place: Place
    unit: Literal["c", "f"] = "c"
    days: list[int] = Field(default_factory=list, max_length=7)
    level: Literal[1, 2] = 1
    url: str = Field(default="", json_schema_extra={"format": "uri"})
    title: str = ""  # a property named like a schema key Gemini refuses


def test_schema_cleaning_of_pydantic_output():
    schema = Lookup.model_json_schema()
    assert {"$defs", "additionalProperties", "title"} <= set(schema)
    cleaned = gemini_schema({"$schema": "https://json-schema.org/draft/2020-12/schema", **schema})
    assert cleaned == {
        "type": "object",
        "properties": {
            "place": {"type": "object", "required": ["city"], "properties": {
                "city": {"type": "string", "description": "The city."},
                "country": {"type": "string", "nullable": True},
            }},
            "unit": {"type": "string", "enum": ["c", "f"]},
            "days": {"type": "array", "items": {"type": "integer"}, "maxItems": 7},
            "level": {"type": "integer"},
            "url": {"type": "string"},
            "title": {"type": "string"},
        },
        "required": ["place"],
    }


def test_builtin_tool_declaration_and_tools_without_arguments():
    assert function_declaration(TavilySearch().spec()) == {
        "name": "tavily_search", "description": TavilySearch.description,
        "parameters": {"type": "object", "properties": {"query": {"type": "string", "description": "What to search the web for.",
                                                                  "minLength": 1}}, "required": ["query"]},
    }
    assert function_declaration(ToolSpec("now", "The time.", {"type": "object", "properties": {}})) == {"name": "now", "description": "The time."}


# --- events ---------------------------------------------------------------------------------


def test_parallel_calls_in_one_chunk_get_stable_distinct_ids():
    parts = [{"functionCall": {"name": "add", "args": {"a": 2, "b": 3}}, "thoughtSignature": SIG_A},
             {"functionCall": {"name": "add", "args": {"a": 2, "b": 3}}}]
    events, message = feed_all([chunk(*parts, finish="STOP")])
    starts = [e for e in events if isinstance(e, ev.ToolCallStart)]
    assert [(e.index, e.arguments, e.provider_fields) for e in starts] == [(0, {"a": 2, "b": 3}, {"thoughtSignature": SIG_A}),
                                                                          (1, {"a": 2, "b": 3}, {})]
    assert starts[0].tool_call_id != starts[1].tool_call_id
    assert [c.id for c in feed_all([chunk(*parts, finish="STOP")])[1].tool_calls] == [c.id for c in message.tool_calls]
    other = feed_all([chunk(*parts, finish="STOP", response_id="another")])[1]
    assert not {c.id for c in other.tool_calls} & {c.id for c in message.tool_calls}
    assert message.stop_reason == "tool_use"


def test_thoughts_text_and_usage():
    events, message = feed_all([
        chunk({"text": "Think ", "thought": True}),
        chunk({"text": "more.", "thought": True}, {"text": "Answer"}),
        chunk({"text": "."}, finish="STOP", usage=usage(prompt=100, candidates=7, thoughts=40, cached=60)),
    ])
    assert [b.type for b in message.blocks] == ["thinking", "text"]
    assert message.blocks[0].thinking == "Think more." and message.text == "Answer."
    assert message.usage == Usage(input_tokens=100, output_tokens=47, reasoning_tokens=40, cache_read_tokens=60)
    assert events[-1] == ev.Done(reason="end_turn")


def test_streamed_arguments_with_nested_paths_and_a_late_signature():
    _, message = feed_all([
        chunk({"functionCall": {"name": "plan", "willContinue": True}}),
        chunk({"functionCall": {"partialArgs": [{"jsonPath": "$.title", "stringValue": "Tri", "willContinue": True}], "willContinue": True}}),
        chunk({"functionCall": {"partialArgs": [{"jsonPath": "$.title", "stringValue": "p"},
                                                {"jsonPath": "$.stops[1].days", "numberValue": 2.0},
                                                {"jsonPath": "$['with space']", "boolValue": True},
                                                {"jsonPath": "$.note", "nullValue": "NULL_VALUE"}], "willContinue": True},
               "thoughtSignature": SIG_B}),
        chunk({"functionCall": {}}),
        chunk({"text": ""}, finish="STOP"),
    ])
    (planned,) = message.tool_calls
    assert planned.arguments == {"title": "Trip", "stops": [None, {"days": 2}], "with space": True, "note": None}
    assert planned.provider_fields == {"thoughtSignature": SIG_B}


def test_finish_reasons_and_a_stream_without_one():
    def outcome(*chunks):
        events, message = feed_all(list(chunks))
        return events[-1], message

    done, message = outcome(chunk({"text": "cut"}, finish="MAX_TOKENS"))
    assert done == ev.Done(reason="max_tokens")
    done, message = outcome(chunk({"text": "Some"}, finish="RECITATION"))
    assert done.reason == "refusal" and "recitation" in done.detail and message.stop_reason == "refusal"
    error, message = outcome(chunk(finish="MALFORMED_FUNCTION_CALL", finishMessage="bad call"))
    assert error.kind == "error" and error.message.startswith("Gemini produced a malformed function call and stopped (bad call).")
    error, message = outcome(chunk({"text": "x"}, finish="OTHER"))
    assert error.kind == "error" and "OTHER" in error.message and message.status is MessageStatus.FAILED
    error, message = outcome(chunk({"text": "half"}))
    assert (error.kind, error.reason, message.text, message.status) == ("error", "interrupted", "half", MessageStatus.INTERRUPTED)
    done, _ = outcome({"promptFeedback": {"blockReason": "SAFETY"}})
    assert done.reason == "refusal" and "request was blocked" in done.detail


def test_unmodelled_parts_are_kept_for_gemini_only():
    code = {"executableCode": {"language": "PYTHON", "code": "print(1)"}}
    _, message = feed_all([chunk(code, {"text": "1"}, finish="STOP")])
    assert message.blocks[0] == RawBlock(data={"type": "gemini_part", **code})
    assert build_contents([Message.user("q"), message])[1]["parts"] == [code, {"text": "1"}]
    assert build_contents([Message.user("q"), message.model_copy(update={"provider": "anthropic"})])[1]["parts"] == [{"text": "1"}]


def test_a_signature_ends_a_run_of_thoughts_and_goes_back_with_it():
    events, message = feed_all([
        chunk({"text": "Plan: ", "thought": True}),
        chunk({"text": "add.", "thought": True}, {"thought": True, "thoughtSignature": SIG_B}),
        chunk({"text": "Then reply.", "thought": True}, {"text": "5"}, finish="STOP"),
    ])
    assert [(b.type, getattr(b, "thinking", None), getattr(b, "signature", None)) for b in message.blocks] == [
        ("thinking", "Plan: add.", SIG_B), ("thinking", "Then reply.", ""), ("text", None, None)]
    assert next(e for e in events if isinstance(e, ev.ThinkingEnd)).signature == SIG_B
    assert build_contents([Message.user("q"), message])[1]["parts"] == [
        {"text": "Plan: add.", "thought": True, "thoughtSignature": SIG_B}, {"text": "5"}]
