"""An optional bearer token in front of every HTTP route but health (`--token` / `SIM_MCP_TOKEN`)."""

from __future__ import annotations

import hmac
from collections.abc import Collection

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send


class BearerTokenMiddleware:
    """Answers 401 (JSON, with `WWW-Authenticate: Bearer`) unless `Authorization: Bearer <token>` matches."""

    def __init__(self, app: ASGIApp, token: str, open_paths: Collection[str] = ("/healthz",)) -> None:
        self.app = app
        self._token = token.encode()
        self.open_paths = frozenset(open_paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in self.open_paths:
            await self.app(scope, receive, send)
            return
        scheme, _, given = Headers(scope=scope).get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not given.strip():
            message = "missing bearer token: send 'Authorization: Bearer <token>' with the token the server was given"
            await _unauthorized(message, 'Bearer realm="sim-mcp"')(scope, receive, send)
            return
        # Constant-time, so the comparison does not reveal how much of a guess was right.
        if not hmac.compare_digest(given.strip().encode(), self._token):
            challenge = 'Bearer realm="sim-mcp", error="invalid_token"'
            await _unauthorized("wrong bearer token", challenge)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def _unauthorized(message: str, challenge: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=401, headers={"WWW-Authenticate": challenge})
