"""Limits: a per-session call rate (a token bucket per session, in this process) and request body size."""

from __future__ import annotations

import time
from collections import OrderedDict

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class RateLimiter:
    """At most `rate` calls per second per session, with bursts up to `burst`; `rate` 0 means no limit.

    Buckets of the least recently seen sessions are dropped past `max_sessions` (a dropped bucket
    starts full again, which only ever errs towards allowing a call)."""

    def __init__(self, rate: float, burst: float | None = None, max_sessions: int = 100_000) -> None:
        self.rate = rate
        self.burst = burst if burst is not None else max(rate, 1.0)
        self.max_sessions = max_sessions
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def allow(self, session_id: str) -> bool:
        if self.rate <= 0:
            return True
        now = time.monotonic()
        tokens, last = self._buckets.pop(session_id, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        allowed = tokens >= 1
        self._buckets[session_id] = (tokens - 1 if allowed else tokens, now)
        if len(self._buckets) > self.max_sessions:
            self._buckets.popitem(last=False)
        return allowed


class BodyLimitMiddleware:
    """Answers 413 (JSON) for a request body over `max_bytes`, by its Content-Length or as it streams in."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._too_large(scope, receive, send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise _TooLarge
            return message

        try:
            await self.app(scope, counted, send)
        except _TooLarge:
            await self._too_large(scope, receive, send)

    async def _too_large(self, scope: Scope, receive: Receive, send: Send) -> None:
        message = f"request body too large: the limit is {self.max_bytes} bytes (--max-request-bytes)"
        await JSONResponse({"error": message}, status_code=413)(scope, receive, send)


class _TooLarge(Exception):
    pass
