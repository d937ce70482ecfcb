"""`resolve_profile`: a model's profile, figure by figure from the first source that knows it: the user's override,
what the provider reported, the shipped table (as the wire carries it), or a cautious default that says it is one."""

from __future__ import annotations

from typing import Any

from desktop_copilot.core.profiles.known_models import Family, known_family
from desktop_copilot.core.profiles.profile import FACT_FIELDS, Figure, ModelFacts, ModelProfile, ThinkingStyle, ToolProtocol
from desktop_copilot.core.provider_table import Wire

LOCAL_CONTEXT_GUESS = 4096
CLOUD_CONTEXT_GUESS = 128_000
LOCAL_OUTPUT_GUESS = 4096
CLOUD_OUTPUT_GUESS = 8192
ANTHROPIC_OUTPUT_GUESS = 32_000
"""Every Claude since 4 accepts at least this many output tokens (providers/base.py sends it by default)."""
GUESS = "a guess"
LEARNED_TOOLS: dict[str, str] = {"text": "learned: the server refused native tools",
                                 "native": "learned: the server took native tools"}
"""The note of a tool protocol the server showed (core/runtime.py remembers it)."""


def carried_thinking(style: ThinkingStyle, wire: Wire, *, local: bool) -> ThinkingStyle:
    """How `wire` delivers the thinking of a model that thinks in `style`: Anthropic's and Gemini's wires as their
    own blocks and parts; Ollama and hosted Chat Completions APIs in a separate field (they take `<think>` out of
    the text); a local Chat Completions server leaves `<think>` in the text unless its reasoning parser is on."""
    if style == "none":
        return "none"
    if wire in ("anthropic", "gemini"):
        return wire  # type: ignore[return-value]
    if style == "think_tags" and wire == "chat_completions" and local:
        return "think_tags"
    return "reasoning_field"


def _provider_reads_pdfs(wire: Wire, reads_pdfs: bool) -> bool:
    return reads_pdfs or wire in ("anthropic", "gemini")


def _from_table(family: Family, name: str, wire: Wire, local: bool, reads_pdfs: bool) -> Figure[Any] | None:
    facts = family.facts
    value = getattr(facts, name)
    note = family.note
    if name == "pdfs" and value and not _provider_reads_pdfs(wire, reads_pdfs):
        return None  # the model reads them, the provider carries none: the default says so
    if name == "thinking" and value is not None:
        value = carried_thinking(value, wire, local=local)
        if value == "think_tags":
            note += "; <think> stays in the text unless the server's reasoning parser takes it out"
    elif name == "echo_thinking" and value is not None and facts.thinking is not None:
        if carried_thinking(facts.thinking, wire, local=local) != facts.thinking:
            value = False  # only the model's own API asks for its thinking back
    elif name == "context_window" and value is not None and local:
        note += "; the model's own window: the server may run it with less"
    return None if value is None else Figure(value, "table", note)


def _default(name: str, wire: Wire, local: bool, reads_pdfs: bool, thinking: ThinkingStyle) -> Figure[Any]:
    match name:
        case "context_window":
            if local:
                return Figure(LOCAL_CONTEXT_GUESS, "default", f"{GUESS}: local servers often run 4k–8k unless set higher")
            return Figure(CLOUD_CONTEXT_GUESS, "default", GUESS)
        case "output_limit":
            if wire == "anthropic":
                return Figure(ANTHROPIC_OUTPUT_GUESS, "default", f"{GUESS}: every Claude since 4 writes at least this")
            return Figure(LOCAL_OUTPUT_GUESS if local else CLOUD_OUTPUT_GUESS, "default", GUESS)
        case "thinking":
            style: ThinkingStyle = wire if wire in ("anthropic", "gemini") else "none"  # type: ignore[assignment]
            return Figure(style, "default", f"{GUESS} from the {wire} wire")
        case "echo_thinking":
            if thinking == "anthropic":
                return Figure(True, "default", "Anthropic's thinking blocks go back signed, as they came")
            return Figure(False, "default", GUESS)
        case "tools":
            return Figure("native", "default", GUESS)
        case "images":
            return Figure(not local, "default", GUESS if local else f"{GUESS}: the provider says so when it takes none")
        case "pdfs":
            reads = _provider_reads_pdfs(wire, reads_pdfs)
            return Figure(reads, "default", "the provider reads PDFs" if reads else "the provider reads no PDFs")
        case "sampling":
            if local:
                return Figure(True, "default", f"{GUESS}: local servers take temperature and top-p")
            return Figure(False, "default", f"{GUESS}: reasoning models refuse temperature and top-p, so none is sent")
    raise ValueError(f"no figure named {name!r}")


def resolve_profile(provider: str, wire: Wire, model: str, *, override: ModelFacts | None = None,
                    reported: ModelFacts | None = None, learned_tools: ToolProtocol | None = None, local: bool = False,
                    reads_pdfs: bool = False) -> ModelProfile:
    """The profile of `model` at `provider` (speaking `wire`; `local`: a model server on the user's machine;
    `reads_pdfs`: the provider takes PDFs). Each figure comes from `override` (the user's), else `learned_tools` for
    the tool protocol (what the server showed: it refused native tools), else `reported` (the provider's model list),
    else the shipped table, else a default marked a guess."""
    family = known_family(model)
    figures: dict[str, Figure[Any]] = {}
    for name in FACT_FIELDS:
        if override is not None and (value := getattr(override, name)) is not None:
            figures[name] = Figure(value, "user", "set in Settings")
        elif name == "tools" and learned_tools is not None:
            figures[name] = Figure(learned_tools, "provider", LEARNED_TOOLS[learned_tools])
        elif reported is not None and (value := getattr(reported, name)) is not None:
            figures[name] = Figure(value, "provider", f"reported by {reported.reported_by or provider}")
        elif family is not None and (figure := _from_table(family, name, wire, local, reads_pdfs)) is not None:
            figures[name] = figure
        else:
            thinking = figures["thinking"].value if "thinking" in figures else "none"
            figures[name] = _default(name, wire, local, reads_pdfs, thinking)
    return ModelProfile(provider, model, **figures)
