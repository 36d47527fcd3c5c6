"""The MCP side: the SDK's low-level `Server`, whose handlers turn requests into simulator calls.

Which session a request belongs to (`session_for`): over HTTP, `?session=NAME` on the URL, else the
handshake-era `Mcp-Session-Id`, else the server's default session; over stdio or in memory, the
process's own session.

Sessions offered `ask_user(message)` (see `services.py`, which decides it and routes the call) list it
beside their environment's tools.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from starlette.requests import Request

from sim_mcp.engine.sessions import SESSION_ID_PATTERN
from sim_mcp.engine.simulator import CallResult, refusal
from sim_mcp.episodes.user import (
    ASK_USER,
    ASK_USER_DESCRIPTION,
    ASK_USER_INPUT_SCHEMA,
    ASK_USER_OUTPUT_SCHEMA,
)
from sim_mcp.errors import InvalidSessionName, SessionLimitExceeded
from sim_mcp.server.context import ServerContext
from sim_mcp.server.resources import resource_handlers
from sim_mcp.specs.registry import Catalog, Tool
from sim_mcp.version import __version__

logger = logging.getLogger("sim_mcp")

SESSION_QUERY_PARAM = "session"
SESSION_HEADER = "sim-mcp-session"
# The `_meta` key of results of calls that named no session (and so share the default one).
SHARED_SESSION_META = "sim-mcp/session"


@dataclass
class SessionRouting:
    """How requests map to sessions. `process_session` is the one session of stdio and in-memory use."""

    process_session: str
    default_session: str = "default"


@dataclass
class _Listing:
    """`tools/list` results, built once per catalog and scope (a reload makes a new catalog)."""

    catalog: Catalog | None = None
    by_scope: dict[str | None, list[types.Tool]] = field(default_factory=dict)

    def tools(self, catalog: Catalog, scope: str | None) -> list[types.Tool]:
        if catalog is not self.catalog:
            self.catalog, self.by_scope = catalog, {}
        if scope not in self.by_scope:
            self.by_scope[scope] = [to_mcp_tool(tool, tool.served_name(scope)) for tool in catalog.tools_of(scope)]
        return self.by_scope[scope]


def build_mcp_server(server: ServerContext, routing: SessionRouting) -> Server[Any]:
    """The MCP server: tools from the catalog, and the session resources (`server/resources.py`).

    `server` is shared with whatever else changes sessions (the control API), so that their subscribers hear
    about it. Sessions that have a simulated user reachable as a tool are offered `ask_user`.
    """
    handlers = _ToolHandlers(server, routing)
    resources = resource_handlers(
        server.runtime.sessions,
        server.changes,
        session_of=lambda ctx: session_for(ctx, routing),
        scope_of=scope_of,
        connection_of=lambda ctx: connection_of(ctx, routing),
    )
    return _SimServer(
        "sim-mcp",
        version=__version__,
        instructions="Simulated tools: every call is answered by a simulator that keeps this session's world state.",
        get_tool_input_schema=handlers.input_schema_of,
        on_list_tools=handlers.list_tools,
        on_call_tool=handlers.call_tool,
        on_list_resources=resources.list_resources,
        on_read_resource=resources.read_resource,
        on_subscribe_resource=resources.subscribe,
        on_unsubscribe_resource=resources.unsubscribe,
        on_subscriptions_listen=resources.listen,
    )


class _ToolHandlers:
    """`tools/list` and `tools/call` for every session; the environment a request is bound to is worked out
    once per request (`_binding`): the one in the path, else the session's own."""

    def __init__(self, server: ServerContext, routing: SessionRouting) -> None:
        self.server = server
        self.runtime = server.runtime
        self.routing = routing
        self.listing = _Listing()
        self.ask_user_tool = types.Tool(
            name=ASK_USER,
            title="Ask the user",
            description=ASK_USER_DESCRIPTION,
            input_schema=ASK_USER_INPUT_SCHEMA,
            output_schema=ASK_USER_OUTPUT_SCHEMA,
        )
        self.shared_session_logged = False  # the log says once that unnamed calls share the default session

    async def list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        catalog = self.runtime.catalog
        try:
            session_id = session_for(ctx, self.routing)
        except InvalidSessionName:
            return types.ListToolsResult(tools=self.listing.tools(catalog, scope_of(ctx)))
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            self.server.changes.watch_tools(connection_of(ctx, self.routing), ctx.session)
        scope, ask_user = await self.runtime.calls.offered(session_id, scope_of(ctx))
        tools = self.listing.tools(catalog, scope)
        if ask_user:
            tools = [*tools, self.ask_user_tool]
        return types.ListToolsResult(tools=tools)

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        scope: str | None = scope_of(ctx)
        limiter = self.server.limiter
        try:
            session_id = session_for(ctx, self.routing)
            if not limiter.allow(session_id):
                outcome = refusal(
                    "rate_limited",
                    f"rate limit exceeded: at most {limiter.rate:g} calls per second per session "
                    "(--rate-limit / SIM_MCP_RATE_LIMIT); try again shortly",
                )
            else:
                outcome, scope = await self.runtime.calls.call(session_id, params.name, params.arguments, scope)
        except InvalidSessionName as e:
            outcome = refusal("invalid_session", str(e))
        except SessionLimitExceeded as e:
            outcome = refusal("session_limit", str(e))
        if outcome.event is None:  # turned away before simulation: no commit, so no after-commit metrics
            known = self.runtime.catalog.tool(params.name, scope) if outcome.kind != "unknown_tool" else None
            if known is not None:
                self.server.metrics.refused(known.environment.name, known.name, outcome.kind)
            else:
                self.server.metrics.refused(scope, ASK_USER if params.name == ASK_USER else None, outcome.kind)
        result = to_call_tool_result(outcome)
        if names_no_session(ctx):
            result.meta = {SHARED_SESSION_META: self._shared_session_note()}
        return result

    def _shared_session_note(self) -> dict[str, Any]:
        """What a result of a call that named no session says (every such result: a 2026-07-28 client has no
        identity, so none can be told apart as a first one), logged once per server."""
        session = self.routing.default_session
        hint = (
            f"this call named no session, so it went to {session!r}, which every client that names none "
            f"shares; name one with ?session=NAME in the URL or the {SESSION_HEADER} header"
        )
        if not self.shared_session_logged:
            self.shared_session_logged = True
            logger.warning("calls that name no session share the session %r: %s (said once)", session, hint)
        return {"id": session, "shared": True, "hint": hint}

    def input_schema_of(self, name: str) -> dict[str, Any] | None:
        # The SDK checks a 2026-07-28 call's `Mcp-Param-*` headers against the tool's input schema; without
        # this lookup it runs (and serializes) the whole tools/list on every call: 60% of a call's CPU.
        catalog = self.runtime.catalog
        tool = catalog.tool(name)
        if tool is not None:
            return tool.spec.input_schema
        schemas = [tools[name].spec.input_schema for tools in catalog.by_environment.values() if name in tools]
        if not schemas and name == ASK_USER:
            return ASK_USER_INPUT_SCHEMA
        # A plain name that several environments share (on /mcp/{env}): their schema if they agree, else none.
        return schemas[0] if schemas and all(schema == schemas[0] for schema in schemas) else None


class _SimServer(Server[Any]):
    """The SDK server, advertising `listChanged` for tools and resources in the handshake era too (the
    SDK asks for them at initialization; a hot reload and each committed call do change them)."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        options = notification_options or NotificationOptions(tools_changed=True)
        return super().create_initialization_options(options, experimental_capabilities, extensions)


def session_for(ctx: ServerRequestContext[Any], routing: SessionRouting) -> str:
    request = ctx.request
    if not isinstance(request, Request):
        return routing.process_session
    named = _named_session(request)
    if named is not None:
        if not SESSION_ID_PATTERN.match(named):
            raise InvalidSessionName(
                f"invalid session name {named[:40]!r}: expected 1-128 characters of letters, digits and _ . : -"
            )
        return named
    return request.headers.get("mcp-session-id") or routing.default_session


def names_no_session(ctx: ServerRequestContext[Any]) -> bool:
    """An HTTP request with no session name and no Mcp-Session-Id: it goes to the shared default session."""
    request = ctx.request
    if not isinstance(request, Request):
        return False
    return _named_session(request) is None and not request.headers.get("mcp-session-id")


def _named_session(request: Request) -> str | None:
    """The session a request names: `?session=NAME`, else the `sim-mcp-session` header."""
    return request.query_params.get(SESSION_QUERY_PARAM) or request.headers.get(SESSION_HEADER)


def connection_of(ctx: ServerRequestContext[Any], routing: SessionRouting) -> str:
    """The client connection a request came on: its Mcp-Session-Id over HTTP, the process otherwise."""
    request = ctx.request
    if isinstance(request, Request):
        return request.headers.get("mcp-session-id") or "no-session-id"
    return routing.process_session


def scope_of(ctx: ServerRequestContext[Any]) -> str | None:
    """The environment named in the path (`/mcp/{env}`), or None for all of them."""
    request = ctx.request
    if isinstance(request, Request):
        env = request.path_params.get("env")
        return env if isinstance(env, str) else None
    return None


def to_mcp_tool(tool: Tool, name: str) -> types.Tool:
    spec = tool.spec
    annotations = (
        types.ToolAnnotations(**spec.annotations.model_dump(exclude_none=True))
        if spec.annotations is not None
        else None
    )
    return types.Tool(
        name=name,
        title=spec.title,
        description=spec.description or None,
        input_schema=spec.input_schema,
        output_schema=spec.output_schema,
        annotations=annotations,
    )


def to_call_tool_result(outcome: CallResult) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=outcome.text)],
        structured_content=outcome.result if outcome.structured else None,
        is_error=outcome.is_error,
    )
