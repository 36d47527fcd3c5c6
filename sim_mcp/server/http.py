"""The HTTP app: MCP over Streamable HTTP at `/mcp` (every environment) and `/mcp/{env}` (one), beside
health and the session control API."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from sim_mcp import __version__
from sim_mcp.config import Settings
from sim_mcp.server.mcp import SessionRouting, build_mcp_server
from sim_mcp.server.runtime import Runtime

_LOOPBACK = ("127.0.0.1", "localhost", "::1")


def create_app(settings: Settings, runtime: Runtime | None = None) -> Starlette:
    """The whole HTTP server as one Starlette app; its lifespan opens and closes the runtime."""
    runtime = runtime if runtime is not None else Runtime(settings)
    routing = SessionRouting(process_session=f"http-{secrets.token_hex(4)}", default_session=settings.default_session)
    server = build_mcp_server(runtime.simulator, routing)
    manager = StreamableHTTPSessionManager(app=server, security_settings=transport_security(settings))
    mcp_endpoint = StreamableHTTPASGIApp(manager)

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok", "version": __version__})

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[dict[str, Runtime]]:
        async with runtime, manager.run():
            yield {"runtime": runtime}

    routes = [
        Route("/mcp", mcp_endpoint),
        Route("/mcp/{env}", _KnownEnvironment(mcp_endpoint, runtime)),
        Route("/healthz", healthz, methods=["GET"]),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.runtime = runtime
    return app


def transport_security(settings: Settings) -> TransportSecuritySettings | None:
    """DNS-rebinding protection: on for a loopback bind (plus any extra allowed hosts), and for any bind
    that names its allowed hosts; off for a wildcard bind without them (a container behind a proxy)."""
    hosts = list(settings.allowed_hosts)
    if settings.host in _LOOPBACK:
        hosts += ["127.0.0.1:*", "localhost:*", "[::1]:*"]
    if not hosts:
        return None
    origins = [f"http://{host}" for host in hosts] + [f"https://{host}" for host in hosts]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins)


class _KnownEnvironment:
    """Answers 404 for `/mcp/{env}` when no such environment is loaded, instead of an empty server."""

    def __init__(self, app: ASGIApp, runtime: Runtime) -> None:
        self.app = app
        self.runtime = runtime

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        env = scope.get("path_params", {}).get("env")
        if self.runtime.catalog.environment(env) is None:
            known = sorted(self.runtime.catalog.environments)
            response = JSONResponse({"error": f"unknown environment {env!r}", "expected": known}, status_code=404)
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)
