"""`tavily_search`: web search through the Tavily API, offered only when a Tavily key is set; and testing a Tavily key."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from pydantic import BaseModel, Field

from desktop_copilot.core.keys.secrets import Secret
from desktop_copilot.core.tools.base import PydanticTool, Risk, ToolContext, ToolError

if TYPE_CHECKING:
    from desktop_copilot.core.keys.key_check import KeyCheck

DEFAULT_TAVILY_BASE_URL = "https://api.tavily.com"
MAX_RESULTS = 5
SNIPPET_CHARS = 500


class TavilySearchArgs(BaseModel):
    query: str = Field(min_length=1, description="What to search the web for.")


def format_results(query: str, results: list[dict]) -> str:
    """Numbered entries with title, URL and snippet, as the model reads them."""
    if not results:
        return f'No web results for "{query}".'
    lines = [f'Web results for "{query}":', ""]
    for number, item in enumerate(results[:MAX_RESULTS], start=1):
        snippet = " ".join(str(item.get("content") or "").split())
        if len(snippet) > SNIPPET_CHARS:
            snippet = snippet[:SNIPPET_CHARS].rstrip() + "…"
        lines += [f"[{number}] {item.get('title') or '(untitled)'}", f"URL: {item.get('url') or ''}", snippet, ""]
    return "\n".join(lines).rstrip()


class TavilySearch(PydanticTool):
    name: ClassVar[str] = "tavily_search"
    description: ClassVar[str] = (
        "Search the web for current information. Returns up to 5 results with title, URL and a snippet."
    )
    arguments: ClassVar[type[BaseModel]] = TavilySearchArgs
    required_keys: ClassVar[tuple[str, ...]] = ("tavily",)
    timeout: ClassVar[float] = 30.0
    risk: ClassVar[Risk] = Risk.READ_ONLY
    """Sends only the query to Tavily and changes nothing: runs without asking, as before."""

    async def run(self, args: TavilySearchArgs, ctx: ToolContext) -> str:
        import httpx

        base = ctx.endpoints.get("tavily") or DEFAULT_TAVILY_BASE_URL
        secret = ctx.keys["tavily"]
        key = secret.reveal()
        try:
            response = await ctx.http.post(
                f"{base.rstrip('/')}/search",
                json={"query": args.query, "max_results": MAX_RESULTS},
                headers={"Authorization": f"Bearer {key}"},
            )
        except httpx.HTTPError as exc:
            raise ToolError(f"Could not reach Tavily: {type(exc).__name__}") from None
        if response.status_code in (401, 403):
            raise ToolError("Tavily rejected the API key. Check the Tavily key in Settings.")
        if response.status_code >= 400:
            raise ToolError(f"Tavily answered {response.status_code}: {secret.redact(response.text)[:200]}")
        try:
            results = response.json().get("results") or []
        except ValueError:
            raise ToolError("Tavily answered with something that is not JSON.") from None
        return format_results(args.query, results)



async def check_tavily_key(secret: Secret, base_url: str | None) -> KeyCheck:
    """`GET /usage`: proves the key without spending a search credit."""
    import httpx

    from desktop_copilot.core.keys.key_check import CHECK_TIMEOUT, KeyCheck  # a dataclass (~1 ms to make): loaded when a key is tested

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


def _credits(response) -> str:
    try:
        key = response.json().get("key") or {}
        used, limit = key.get("usage"), key.get("limit")
    except (ValueError, AttributeError):
        return ""
    if isinstance(used, int) and isinstance(limit, int):
        return f" — {used:,} of {limit:,} credits used"
    return f" — {used:,} credits used" if isinstance(used, int) else ""
