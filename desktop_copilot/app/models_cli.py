"""`desktop-copilot models`: each model's profile (context window, output limit, thinking, tools, images), every
figure marked with where it came from, for one provider or every provider usable now; what providers report is
cached in settings.json for `--offline`."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from desktop_copilot.core.profiles.known_models import TAKEN
from desktop_copilot.core.profiles.profile import ModelFacts, ModelProfile
from desktop_copilot.core.profiles.resolve import resolve_profile
from desktop_copilot.core.profiles.stored import facts_key, override_for, reported_for, with_reported

if TYPE_CHECKING:
    from desktop_copilot.core.provider_table import ProviderSpec
    from desktop_copilot.core.runtime import Runtime

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_PROVIDER = 3
LOCAL_TIMEOUT = 3.0
"""Seconds a model server on this machine may take to list its models before it counts as not running."""
CLOUD_TIMEOUT = 30.0
MARKS = {"user": "u", "provider": "p", "table": "t", "default": "?"}
LEGEND = (f"sources: u = your override (Settings ▸ Model profiles), p = reported by the provider, "
          f"t = the shipped table (taken {TAKEN}), ? = a guess")
COLUMNS = ("model", "context", "output", "thinking", "tools", "images")
_UNREACHABLE = {"ConnectError", "ConnectTimeout", "TimeoutException", "APIConnectionError", "APITimeoutError"}


def add_parser(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("models", help="list models with their context window, output limit, thinking and tools")
    parser.add_argument("--provider", metavar="ID", help="only this provider (default: every provider usable now)")
    parser.add_argument("--json", action="store_true", help="print one JSON document: a list of model profiles")
    parser.add_argument("--offline", action="store_true",
                        help="ask no provider: use what they reported before and the shipped table")
    parser.set_defaults(run=run)


@dataclass
class Listing:
    """What was found: each provider's models, the notes for stderr, and the exit code (a provider failed: 3; a
    provider asked for by name has no key: 2)."""

    models: list[tuple[ProviderSpec, list[ModelFacts]]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    code: int = EXIT_OK


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_models(args))


async def _models(args: argparse.Namespace) -> int:
    from desktop_copilot.core.bootstrap import build_runtime

    runtime = build_runtime(check_keyring=False)
    for problem in runtime.warnings:
        print(f"warning: {problem}", file=sys.stderr)
    known = runtime.providers()
    if args.provider is not None and args.provider.strip().lower() not in known:
        print(f"error: unknown provider {args.provider!r}; known providers: {', '.join(known)}", file=sys.stderr)
        return EXIT_USAGE
    specs = [known[args.provider.strip().lower()]] if args.provider is not None else list(known.values())
    try:
        if args.offline:
            listing = cached_listing(runtime, specs, explicit=args.provider is not None)
        else:
            listing = await live_listing(runtime, specs, explicit=args.provider is not None)
    finally:
        await runtime.aclose()
    for note in listing.notes:
        print(note, file=sys.stderr)
    if listing.code != EXIT_OK and args.provider is not None:
        return listing.code
    profiles = [(spec, profile_of(runtime, spec, facts)) for spec, found in listing.models for facts in found]
    if args.json:
        print(json.dumps([profile.to_json() for _, profile in profiles], indent=2, ensure_ascii=False))
    else:
        print(profile_table(profiles))
    return listing.code


def profile_of(runtime: Runtime, spec: ProviderSpec, reported: ModelFacts) -> ModelProfile:
    overrides = runtime.settings.model_overrides if runtime.settings is not None else {}
    learned = runtime.settings.learned_tools if runtime.settings is not None else {}
    return resolve_profile(spec.id, spec.wire, reported.id, override=override_for(overrides, spec.id, reported.id),
                           reported=reported, learned_tools=learned.get(facts_key(spec.id, reported.id)),
                           local=spec.local, reads_pdfs=spec.pdfs)


# --- live: ask each provider, cache what it reported ---------------------------------------------------------------


async def live_listing(runtime: Runtime, specs: list[ProviderSpec], *, explicit: bool) -> Listing:
    """Each provider's models as it lists them now (concurrently); one that needs a key without one, is switched
    off, or (a local server) does not answer is skipped with a note, unless it was asked for by name."""
    from desktop_copilot.core.runtime import MissingKeyError

    listing = Listing()
    disabled = runtime.settings.disabled_providers if runtime.settings is not None and not explicit else set()
    asked = [spec for spec in specs if spec.id not in disabled]
    listing.notes += [f"note: {spec.label} skipped: switched off in Settings" for spec in specs if spec.id in disabled]
    answers = await asyncio.gather(*(_list_one(runtime, spec) for spec in asked), return_exceptions=True)
    fetched_at = datetime.now(UTC)
    reported: dict[str, list[ModelFacts]] = {}
    for spec, answer in zip(asked, answers):
        if not isinstance(answer, BaseException):
            listing.models.append((spec, answer))
            reported[spec.id] = answer
        elif isinstance(answer, MissingKeyError):
            listing.notes.append(f"error: {answer}" if explicit else f"note: {spec.label} skipped: no key (run "
                                 f"`desktop-copilot keys set {spec.key_name}` or set {spec.key_env})")
            listing.code = EXIT_USAGE if explicit else listing.code
        elif spec.local and _unreachable(answer) and not explicit:
            listing.notes.append(f"note: {spec.label} skipped: nothing answered at {runtime.base_url(spec)} "
                                 f"within {LOCAL_TIMEOUT:g} s")
        elif isinstance(answer, Exception):
            listing.notes.append(f"error: {spec.label} failed: {_words(answer, spec, runtime)}")
            listing.code = EXIT_PROVIDER
        else:
            raise answer
    _cache(runtime, reported, fetched_at, listing.notes)
    return listing


async def _list_one(runtime: Runtime, spec: ProviderSpec) -> list[ModelFacts]:
    return await asyncio.wait_for(runtime.list_model_facts(spec.id), LOCAL_TIMEOUT if spec.local else CLOUD_TIMEOUT)


def _unreachable(exc: BaseException) -> bool:
    """Whether `exc` (or what it wraps) says nothing answered: refused, timed out, no such host."""
    seen: BaseException | None = exc
    while seen is not None:
        if getattr(seen, "unreachable", False) or isinstance(seen, TimeoutError | ConnectionError) \
                or _UNREACHABLE & {c.__name__ for c in type(seen).__mro__}:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _words(exc: Exception, spec: ProviderSpec, runtime: Runtime) -> str:
    if isinstance(exc, TimeoutError):
        timeout = LOCAL_TIMEOUT if spec.local else CLOUD_TIMEOUT
        return f"{runtime.base_url(spec)} did not answer within {timeout:g} s"
    text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    if _unreachable(exc):
        text = f"nothing answered at {runtime.base_url(spec)} ({text})"
    return text[:300]


def _cache(runtime: Runtime, reported: dict[str, list[ModelFacts]], fetched_at: datetime, notes: list[str]) -> None:
    """Keeps what the providers reported in settings.json (read again just before, so nothing edited meanwhile is
    lost); a file that cannot be written costs a warning, not the listing."""
    if not reported or runtime.settings_file is None:
        return
    from desktop_copilot.core.config.settings import SettingsError

    settings = runtime.settings_file.load()
    if runtime.settings_file.problem:
        return  # build_runtime already warned about the file; it is not overwritten
    cache = settings.model_facts
    for provider, found in reported.items():
        cache = with_reported(cache, provider, found, fetched_at)
    settings.model_facts = cache
    try:
        runtime.settings_file.save(settings)
    except (SettingsError, OSError) as exc:
        notes.append(f"warning: what the providers reported was not kept for --offline: {exc}")
    runtime.settings = settings


# --- offline: what was reported before, else the ids the model picker cached, else the default model --------------


def cached_listing(runtime: Runtime, specs: list[ProviderSpec], *, explicit: bool) -> Listing:
    listing = Listing()
    settings = runtime.settings
    for spec in specs:
        found = reported_for(settings.model_facts, spec.id) if settings is not None else []
        if not found and settings is not None:
            ids = settings.provider_models.get(spec.id)
            found = [ModelFacts(model) for model in (ids.model_ids if ids is not None else [])]
        if not found and explicit:
            listing.notes.append(f"note: nothing is cached for {spec.label}; showing its default model "
                                 "(run without --offline to ask it)")
            found = [ModelFacts(spec.default_model)]
        if found:
            listing.models.append((spec, found))
    if not listing.models:
        listing.notes.append("note: nothing is cached yet; run `desktop-copilot models` without --offline first")
    return listing


# --- the table -----------------------------------------------------------------------------------------------------


def _cell(value: Any, source: str) -> str:
    if isinstance(value, bool):
        value = "yes" if value else "no"
    elif isinstance(value, int):
        value = f"{value:,}"
    return f"{value} {MARKS[source]}"


def profile_table(profiles: list[tuple[ProviderSpec, ModelProfile]]) -> str:
    """One block per provider (its label, then a row per model: context, output, thinking, tools, images, each with
    the mark of its source), then the legend."""
    rows: dict[str, list[tuple[str, ...]]] = {}
    labels: dict[str, str] = {}
    for spec, profile in profiles:
        labels[spec.id] = f"{spec.label} ({spec.id})"
        figures = (profile.context_window, profile.output_limit, profile.thinking, profile.tools, profile.images)
        rows.setdefault(spec.id, []).append((profile.model, *(_cell(f.value, f.source) for f in figures)))
    if not rows:
        return "No models to show."
    every = [COLUMNS, *(row for block in rows.values() for row in block)]
    widths = [max(len(row[i]) for row in every) for i in range(len(COLUMNS))]
    right = {1, 2}  # numbers line up on the right

    def line(row: tuple[str, ...]) -> str:
        cells = [cell.rjust(width) if i in right else cell.ljust(width) for i, (cell, width) in enumerate(zip(row, widths))]
        return ("  " + "  ".join(cells)).rstrip()

    out: list[str] = []
    for provider, block in rows.items():
        out += [labels[provider], line(COLUMNS), *(line(row) for row in block), ""]
    return "\n".join([*out, LEGEND])
