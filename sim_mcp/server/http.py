"""The HTTP app: MCP over Streamable HTTP at `/mcp` (every environment) and `/mcp/{env}` (one), beside
health and the session control API (`/sessions`, see `server/control.py`).

Every route checks `Host` and `Origin` against one allow-list (`server/hosts.py`). With a token, every
route but `/healthz` and `/readyz` needs `Authorization: Bearer <token>`. With a session TTL, a
task in the lifespan deletes idle sessions every TTL/4 (at most every minute), so a session lives
between TTL and TTL plus that interval after its last use.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from sim_mcp.config import ServerConfig, Settings, SpecsConfig, StoreConfig
from sim_mcp.errors import SimMcpError
from sim_mcp.runtime import Runtime
from sim_mcp.server.auth import BearerTokenMiddleware, BrowserTokenMiddleware
from sim_mcp.server.context import ServerContext
from sim_mcp.server.control import control_routes
from sim_mcp.server.hosts import HostGuardMiddleware, transport_security
from sim_mcp.server.limits import BodyLimitMiddleware
from sim_mcp.server.mcp import SessionRouting, build_mcp_server
from sim_mcp.server.openapi import openapi_route
from sim_mcp.server.reload import hot_reload
from sim_mcp.server.routes import http_error, one_route_per_path
from sim_mcp.server.ui import LOGIN_PATH, static_paths, ui_routes
from sim_mcp.version import __version__

logger = logging.getLogger("sim_mcp")
# How many environment names a 404 of `/mcp/{env}` lists.
_NAMED = 50


def create_app(settings: Settings, runtime: Runtime | None = None) -> Starlette:
    """The whole HTTP server for `settings` as one Starlette app (on the runtime built from them, unless one
    is given); its lifespan opens and closes the runtime. The transport gets only the concerns it reads."""
    runtime = runtime if runtime is not None else Runtime(settings)
    return http_app(runtime, ServerConfig.of(settings), SpecsConfig.of(settings), StoreConfig.of(settings))


def http_app(runtime: Runtime, config: ServerConfig, specs: SpecsConfig, store: StoreConfig) -> Starlette:
    """The HTTP server of `runtime`: `config` is the transport's own concern; of the others it reads only
    the spec folders to watch (`specs`) and the store's URL, named when the store does not answer (`store`)."""
    routing = SessionRouting(process_session=f"http-{secrets.token_hex(4)}", default_session=config.default_session)
    context = ServerContext(runtime, config)
    server = build_mcp_server(context, routing)
    security = transport_security(config)
    # Idle handshake-era connections close, whatever --session-ttl (which deletes state) says.
    manager = StreamableHTTPSessionManager(
        server, security_settings=security, max_request_body_size=config.max_request_bytes,
        stateless=config.stateless_http,  # replicas: a handshake's state would live in one process only
        session_idle_timeout=config.connection_idle_timeout,
    )  # fmt: skip
    mcp_endpoint = StreamableHTTPASGIApp(manager)

    async def healthz(request: Request) -> Response:
        """The process is up."""
        return JSONResponse({"status": "ok", "version": __version__})

    async def readyz(request: Request) -> Response:
        """Ready to serve: specs loaded (at least one environment) and the store answering. Also how many
        environments' rules programs are checked (after start, in the background) and their problems."""
        catalog = runtime.catalog
        problems = [] if catalog.environments else ["no environment is loaded (check --specs and the spec errors)"]
        try:
            with anyio.fail_after(5):
                sessions = await runtime.sessions.count()
        except (SimMcpError, TimeoutError, OSError) as e:
            problems.append(f"the store ({store.store}) does not answer: {type(e).__name__}")
            sessions = None
        rules_checked, rules_errors = runtime.rules_status()
        body = {
            "status": "not ready" if problems else "ready",
            "problems": problems,
            "environments": sorted(catalog.environments),
            "tools": len(catalog.tools),
            "sessions": sessions,
            # Files that did not load, and rules programs (or their functions) the backend answers for; the
            # programs are checked in the background after start, so `rules_checked` says how far that got.
            "spec_errors": [str(error) for error in (*catalog.errors, *rules_errors)],
            "rules_checked": rules_checked,
            "rules_errors": [str(error) for error in rules_errors],
        }
        return JSONResponse(body, status_code=503 if problems else 200)

    async def metrics(request: Request) -> Response:
        try:
            sessions: int | None = await runtime.sessions.count()
        except SimMcpError:
            sessions = None
        return Response(context.metrics.exposition(sessions), media_type=context.metrics.content_type)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[dict[str, Runtime]]:
        # The watcher's thread polls this, so shutdown needn't wait out its timeout.
        stop_watching = anyio.Event()
        async with runtime, manager.run(), anyio.create_task_group() as tasks:
            tasks.start_soon(runtime.check_rules_in_background)
            if config.session_ttl > 0:
                tasks.start_soon(expire_idle_sessions, runtime, config.session_ttl)
            if config.watch:
                tasks.start_soon(lambda: hot_reload(context, specs, stop=stop_watching))
            try:
                yield {"runtime": runtime}
            finally:
                context.changes.live.close()  # end the web UI's event streams
                stop_watching.set()
            tasks.cancel_scope.cancel()

    routes = [
        Route("/mcp", mcp_endpoint),
        Route("/mcp/{env}", _KnownEnvironment(mcp_endpoint, runtime)),
        Route("/healthz", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
        openapi_route(),
        *control_routes(runtime),
        *ui_routes(context),
    ]
    app = Starlette(
        routes=one_route_per_path(routes), middleware=_middleware(config, security), lifespan=lifespan,
        exception_handlers={HTTPException: http_error},
    )  # fmt: skip
    app.state.runtime = runtime
    app.state.server = context
    return app


def _middleware(config: ServerConfig, security: TransportSecuritySettings | None) -> list[Middleware]:
    """Outermost first: the Host and Origin check (before anything else reads the request), the body
    limit, then the token (with the web UI's cookie) when there is one."""
    middleware = []
    if security is not None:
        # The login form only trades the token for a cookie: nothing for another site to gain from posting it.
        middleware.append(Middleware(HostGuardMiddleware, security=security, null_origin_paths=(LOGIN_PATH,)))
    middleware.append(Middleware(BodyLimitMiddleware, max_bytes=config.max_request_bytes))
    if config.token:
        ui_open = (LOGIN_PATH, *static_paths())
        middleware.append(Middleware(BrowserTokenMiddleware, token=config.token, open_paths=ui_open))
        middleware.append(
            Middleware(BearerTokenMiddleware, token=config.token, open_paths=("/healthz", "/readyz", *ui_open))
        )
    return middleware


async def expire_idle_sessions(runtime: Runtime, ttl: float) -> None:
    """Delete sessions idle for over `ttl` seconds, every `ttl / 4` seconds (at most every minute), forever."""
    interval = min(max(ttl / 4, 0.05), 60.0)
    while True:
        await anyio.sleep(interval)
        try:
            expired = await runtime.sessions.expire_idle(ttl)
        except SimMcpError as e:  # a store hiccup: try again next round
            logger.warning("expiring idle sessions failed: %s", e)
            continue
        if expired:
            logger.info("expired %d idle sessions (--session-ttl %gs)", len(expired), ttl)


class _KnownEnvironment:
    """Answers 404 for `/mcp/{env}` when no such environment is loaded, instead of an empty server."""

    def __init__(self, app: ASGIApp, runtime: Runtime) -> None:
        self.app = app
        self.runtime = runtime

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        env = scope.get("path_params", {}).get("env")
        catalog = self.runtime.catalog
        if catalog.environment(env) is None:
            # A catalogue may hold thousands: the first names, and where to find them all.
            body: dict[str, object] = {"error": f"unknown environment {env!r}", "expected": catalog.names[:_NAMED]}
            if len(catalog.names) > _NAMED:
                body["more"] = f"{len(catalog.names) - _NAMED} more: GET /environments pages through them all"
            response = JSONResponse(body, status_code=404)
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)
