"""Checks that an API key works with the cheapest real request, and lists Claude models, in plain words."""

from __future__ import annotations

import asyncio
import importlib
from dataclasses import dataclass, field

from desktop_copilot.core.keys.secrets import Secret
from desktop_copilot.core.tools.tavily import DEFAULT_TAVILY_BASE_URL

FALLBACK_MODEL_IDS: tuple[str, ...] = (
    "claude-opus-4-6",
    "claude-sonnet-4-5",
    "claude-haiku-4-5",
    "claude-sonnet-4-5-20250929",
    "claude-haiku-4-5-20251001",
    "claude-opus-4-1-20250805",
    "claude-sonnet-4-20250514",
)
"""Offered when the models endpoint cannot be asked (no key yet, offline)."""

CHECK_TIMEOUT = 20.0


@dataclass(frozen=True, slots=True)
class KeyCheck:
    """The outcome of testing a key: whether it works and a sentence for the user (never the key)."""

    ok: bool
    message: str
    model_ids: list[str] = field(default_factory=list)
    """For Anthropic: the models the key may use (the check lists them anyway)."""


class ModelListError(Exception):
    """Listing models failed; the message says why in words, without the key."""


async def list_model_ids(secret: Secret, base_url: str | None) -> list[str]:
    """Model ids from `GET /v1/models` with a short timeout and one retry; ModelListError in words."""
    anthropic = await asyncio.to_thread(importlib.import_module, "anthropic")  # about 1 s the first time

    from desktop_copilot.core.providers.anthropic_provider import AnthropicProvider, describe_status_error

    provider = AnthropicProvider(secret, base_url, max_retries=1, timeout=CHECK_TIMEOUT)
    failure = None
    try:
        return await provider.list_models()
    except anthropic.APIStatusError as exc:
        failure = describe_status_error(exc.status_code, exc.body, exc.message)
    except anthropic.APIConnectionError as exc:
        where = base_url or "https://api.anthropic.com"
        failure = f"Could not reach the Anthropic API at {where} ({_cause(exc)})."
    except anthropic.APIError as exc:  # e.g. a reply that is not the models list
        failure = f"The Anthropic API gave an unexpected answer ({type(exc).__name__}: {exc})."
    finally:
        await provider.aclose()
    raise ModelListError(secret.redact(failure))


async def check_anthropic_key(secret: Secret, base_url: str | None) -> KeyCheck:
    try:
        ids = await list_model_ids(secret, base_url)
    except ModelListError as exc:
        return KeyCheck(False, str(exc))
    return KeyCheck(True, f"Key works — {len(ids)} models available.", ids)


async def check_tavily_key(secret: Secret, base_url: str | None) -> KeyCheck:
    """`GET /usage`: proves the key without spending a search credit."""
    import httpx

    url = f"{(base_url or DEFAULT_TAVILY_BASE_URL).rstrip('/')}/usage"
    try:
        async with httpx.AsyncClient(timeout=CHECK_TIMEOUT) as http:
            response = await http.get(url, headers={"Authorization": f"Bearer {secret.reveal()}"})
    except httpx.HTTPError as exc:
        return KeyCheck(False, secret.redact(f"Could not reach Tavily at {url} ({type(exc).__name__})."))
    if response.status_code in (401, 403):
        return KeyCheck(False, f"Tavily rejected the key ({response.status_code}). Check the key at app.tavily.com.")
    if response.status_code >= 400:
        return KeyCheck(False, f"Tavily answered {response.status_code}: {secret.redact(response.text)[:200]}")
    return KeyCheck(True, "Key works" + _credits(response) + ".")


async def check_key(name: str, secret: Secret, *, anthropic_base_url: str | None, tavily_base_url: str | None) -> KeyCheck:
    if name == "anthropic":
        return await check_anthropic_key(secret, anthropic_base_url)
    if name == "tavily":
        return await check_tavily_key(secret, tavily_base_url)
    return KeyCheck(False, f"There is no test for the {name!r} key; it is checked on first use.")


def _credits(response) -> str:
    try:
        key = response.json().get("key") or {}
        used, limit = key.get("usage"), key.get("limit")
    except (ValueError, AttributeError):
        return ""
    if isinstance(used, int) and isinstance(limit, int):
        return f" — {used:,} of {limit:,} credits used"
    return f" — {used:,} credits used" if isinstance(used, int) else ""


def _cause(exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__
    return type(cause).__name__ if cause is not None else (str(exc) or type(exc).__name__)
