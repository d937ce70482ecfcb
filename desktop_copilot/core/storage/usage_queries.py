"""Read-only SQL over the stored replies' token usage: sums per local day, provider, model and prompt band, in one
query that reads no blocks (earlier versions of a conversation's tail count too: they were paid for)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import date

from desktop_copilot.core.conversation.models import Usage
from desktop_copilot.core.provider_table import PROVIDERS

_USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens")


@dataclass(frozen=True, slots=True)
class UsageRow:
    """The summed usage of the replies of one day, provider and model whose prompts fell in one band (replies that
    reported no tokens at all are left out)."""

    day: date
    """The local calendar day the replies were started."""
    provider: str | None
    """None: Anthropic (replies stored before providers could be chosen)."""
    model: str | None
    prompt_band: int
    """How many of the query's `prompt_bands` each reply's prompt was over (for long-prompt prices)."""
    usage: Usage
    """Summed as the provider reported it (see pricing.billed_counts for what includes what)."""
    replies: int


def _replies_sql(archived: bool) -> str:
    """The replies of `messages` (columns), or of `archived_tails` (a JSON list of messages per row), in one shape."""
    if archived:
        source, where = "archived_tails AS t, json_each(t.messages) AS m", "json_extract(m.value, '$.role') = 'assistant'"
        columns = ", ".join(["t.conversation_id"] + [f"json_extract(m.value, '$.{name}') AS {name}" for name in ("provider", "model", "created_at")])
        usage = "m.value, '$.usage."
    else:
        source, where, columns, usage = "messages", "role = 'assistant'", "conversation_id, provider, model, created_at", "usage, '$."
    counts = ", ".join(f"COALESCE(json_extract({usage}{name}'), 0) AS {name}" for name in _USAGE_FIELDS)
    return f"SELECT {columns}, {counts} FROM {source} WHERE {where}"


def usage_rows(
    connection: sqlite3.Connection,
    *,
    prompt_bands: tuple[int, ...] = (),
    since: float | None = None,
    conversation_id: str | None = None,
    earlier_versions: bool = True,
) -> list[UsageRow]:
    """The replies' usage summed per (local day, provider, model, prompt band), oldest day first. `since` (a Unix
    time) and `conversation_id` narrow it; `earlier_versions` adds the replies archived by an edit or regenerate."""
    parts = [_replies_sql(archived=False)] + ([_replies_sql(archived=True)] if earlier_versions else [])
    apart = sorted(spec.id for spec in PROVIDERS.values() if spec.cache_apart)  # their input leaves the cache out
    prompt = ("input_tokens + CASE WHEN provider IS NULL OR provider = '' OR provider IN ({}) "
              "THEN cache_read_tokens + cache_write_tokens ELSE 0 END").format(", ".join("?" * len(apart)))
    band = " + ".join(f"(({prompt}) > ?)" for _ in prompt_bands) or "0"
    band_args: list[object] = []
    for threshold in prompt_bands:
        band_args += [*apart, threshold]
    filters, filter_args = ["input_tokens + output_tokens + cache_read_tokens + cache_write_tokens > 0"], []
    if since is not None:
        filters.append("created_at >= ?")
        filter_args.append(since)
    if conversation_id is not None:
        filters.append("conversation_id = ?")
        filter_args.append(conversation_id)
    sums = ", ".join(f"SUM({name})" for name in _USAGE_FIELDS)
    sql = f"""
        SELECT date(created_at, 'unixepoch', 'localtime') AS day, provider, model, {band} AS band, {sums}, COUNT(*)
        FROM ({' UNION ALL '.join(parts)})
        WHERE {' AND '.join(filters)}
        GROUP BY day, provider, model, band
        ORDER BY day, provider, model, band"""
    cursor = connection.cursor()
    cursor.row_factory = None
    cursor.execute(sql, [*band_args, *filter_args])
    return [
        UsageRow(date.fromisoformat(day), provider or None, model or None, int(band_), Usage(**dict(zip(_USAGE_FIELDS, map(int, sums_)))), count)
        for day, provider, model, band_, *sums_, count in cursor
        if day is not None
    ]
