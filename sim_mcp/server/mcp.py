"""The MCP side: the SDK's low-level `Server`, whose handlers turn requests into simulator calls.

Which session a request belongs to (`session_for`): over HTTP, `?session=NAME` on the URL, else the
handshake-era `Mcp-Session-Id`, else the server's default session; over stdio or in memory, the
process's own session.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from starlette.requests import Request

from sim_mcp import __version__
from sim_mcp.errors import SessionLimitExceeded
from sim_mcp.simulation.simulator import CallResult, Simulator
from sim_mcp.specs.registry import Catalog, Tool

SESSION_QUERY_PARAM = "session"
SESSION_HEADER = "sim-mcp-session"
_SESSION_NAME = re.compile(r"^[A-Za-z0-9_.:\-]{1,128}$")


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
            self.by_scope[scope] = [to_mcp_tool(tool) for tool in catalog.tools_of(scope)]
        return self.by_scope[scope]


class InvalidSessionName(ValueError):
    pass


def build_mcp_server(simulator: Simulator, routing: SessionRouting) -> Server[Any]:
    listing = _Listing()

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        scope = scope_of(ctx)
        try:
            session_id = session_for(ctx, routing)
        except InvalidSessionName:
            return types.ListToolsResult(tools=listing.tools(simulator.catalog, scope))
        record = await simulator.store.get(session_id)
        if record is not None and record.environment is not None and scope is None:
            scope = record.environment
        return types.ListToolsResult(tools=listing.tools(simulator.catalog, scope))

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        try:
            session_id = session_for(ctx, routing)
            outcome = await simulator.call(session_id, params.name, params.arguments, scope=scope_of(ctx))
        except (InvalidSessionName, SessionLimitExceeded) as e:
            outcome = CallResult(str(e), is_error=True)
        return to_call_tool_result(outcome)

    return Server(
        "sim-mcp",
        version=__version__,
        instructions="Simulated tools: every call is answered by a simulator that keeps this session's world state.",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def session_for(ctx: ServerRequestContext[Any], routing: SessionRouting) -> str:
    request = ctx.request
    if not isinstance(request, Request):
        return routing.process_session
    named = request.query_params.get(SESSION_QUERY_PARAM) or request.headers.get(SESSION_HEADER)
    if named is not None:
        if not _SESSION_NAME.match(named):
            raise InvalidSessionName(
                f"invalid session name {named[:40]!r}: expected 1-128 characters of letters, digits and _ . : -"
            )
        return named
    return request.headers.get("mcp-session-id") or routing.default_session


def scope_of(ctx: ServerRequestContext[Any]) -> str | None:
    """The environment named in the path (`/mcp/{env}`), or None for all of them."""
    request = ctx.request
    if isinstance(request, Request):
        env = request.path_params.get("env")
        return env if isinstance(env, str) else None
    return None


def to_mcp_tool(tool: Tool) -> types.Tool:
    spec = tool.spec
    annotations = (
        types.ToolAnnotations(**spec.annotations.model_dump(exclude_none=True))
        if spec.annotations is not None
        else None
    )
    return types.Tool(
        name=spec.name,
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
