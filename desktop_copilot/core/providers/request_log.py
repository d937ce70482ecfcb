"""One log line per provider request: provider, model, HTTP status, retries, time to first event, duration,
outcome and token counts. Never the words of the conversation: at DEBUG only the request's sizes."""

from __future__ import annotations

import logging
import time
from typing import Any

from desktop_copilot.core.conversation import events as ev
from desktop_copilot.core.providers.base import ProviderRequest

log = logging.getLogger("desktop_copilot.requests")


class RequestLog:
    """Collects what one streamed request did; `finish()` writes the line (once)."""

    def __init__(self, provider: str, request: ProviderRequest) -> None:
        self.provider, self.model = provider, request.model
        self.started = time.monotonic()
        self.first_event: float | None = None
        self.status: int | None = None
        self.retries = 0
        self.request_id = ""
        self.outcome: str | None = None
        self.detail = ""
        self.usage: Any = None
        self._written = False
        if log.isEnabledFor(logging.DEBUG):
            log.debug("%s request starting: model=%s messages=%d tools=%d max_tokens=%d thinking_budget=%s "
                      "system_chars=%d", provider, request.model, len(request.messages), len(request.tools),
                      request.max_tokens, request.thinking_budget, len(request.system or ""))

    def response(self, response: Any) -> None:
        """Status, retries taken and request id from the HTTP response, or from the request when none came back."""
        try:
            self.status = getattr(response, "status_code", None)
            self.request_id = response.headers.get("request-id", "") if self.status is not None else ""
            request = response.request if self.status is not None else response
            self.retries = int(request.headers.get("x-stainless-retry-count", 0))
        except Exception:  # noqa: BLE001 - no response or request attached: the line says less, nothing fails
            pass

    def error(self, exc: BaseException) -> None:
        for name in ("response", "request"):
            try:
                found = getattr(exc, name, None)
            except Exception:  # noqa: BLE001 - httpx raises RuntimeError for a missing request
                found = None
            if found is not None:
                self.response(found)
                return

    def event(self, event: ev.Event) -> None:
        if type(event) is ev.TextDelta and self.first_event is not None:  # most events: nothing to note
            return
        if self.first_event is None and not isinstance(event, ev.Error):
            self.first_event = time.monotonic() - self.started
        if isinstance(event, ev.UsageUpdate):
            self.usage = event.usage
        elif isinstance(event, ev.Done):
            self.outcome = event.reason
        elif isinstance(event, ev.Error):
            self.outcome, self.detail = f"{event.reason}", event.message
            self.status = event.status_code or self.status

    def finish(self) -> None:
        if self._written:
            return
        self._written = True
        total = time.monotonic() - self.started
        outcome = self.outcome or "cancelled"
        first = f"{self.first_event:.3f}s" if self.first_event is not None else "-"
        tokens = f" tokens_in={self.usage.input_tokens} tokens_out={self.usage.output_tokens}" if self.usage else ""
        level = logging.WARNING if self.detail else logging.INFO
        log.log(level, "%s request: model=%s status=%s retries=%d first_event=%s total=%.3fs outcome=%s%s%s%s",
                self.provider, self.model, self.status if self.status is not None else "-", self.retries, first, total,
                outcome, tokens, f" request_id={self.request_id}" if self.request_id else "",
                f" error={self.detail!r}" if self.detail else "")
