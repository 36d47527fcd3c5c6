"""The baseline: a bare `mcp` low-level server with one echo tool, over Streamable HTTP or stdio.

    python -m benchmarks.bare_server --transport http --port 8123 [--delay-ms 100]
    python -m benchmarks.bare_server --transport stdio

It is served the way sim-mcp serves itself (the SDK's `StreamableHTTPSessionManager` under uvicorn,
default options, DNS-rebinding protection for 127.0.0.1), so the two differ only in what sim-mcp adds.
`--delay-ms` makes the tool sleep before it answers (an ideal backend of fixed latency). `--settle-heap`
tunes the garbage collector as `sim-mcp serve` does (`sim_mcp/server/heap.py`), to tell what that tuning
saves any server from what sim-mcp's own work costs.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

ECHO_TOOL = types.Tool(
    name="echo",
    description="Return the arguments, as JSON text.",
    input_schema={"type": "object", "additionalProperties": True},
)


def build_server(delay_s: float = 0.0) -> Server[Any]:
    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[ECHO_TOOL])

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        if delay_s > 0:
            await anyio.sleep(delay_s)
        text = json.dumps(params.arguments or {}, ensure_ascii=False)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    return Server("bare-echo", on_list_tools=list_tools, on_call_tool=call_tool)


def build_app(server: Server[Any]) -> Starlette:
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[f"http://{host}" for host in hosts],
    )
    manager = StreamableHTTPSessionManager(app=server, security_settings=security)

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with manager.run():
            yield

    routes = [Route("/mcp", StreamableHTTPASGIApp(manager)), Route("/healthz", healthz, methods=["GET"])]
    return Starlette(routes=routes, lifespan=lifespan)


async def _serve_stdio(server: Server[Any]) -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transport", choices=["http", "stdio"], default="http")
    parser.add_argument("--port", type=int, default=8123)
    parser.add_argument("--delay-ms", type=float, default=0.0)
    parser.add_argument("--settle-heap", action="store_true", help="tune the garbage collector as sim-mcp does")
    args = parser.parse_args()
    server = build_server(args.delay_ms / 1000)
    if args.transport == "stdio":
        anyio.run(_serve_stdio, server)
        return
    import uvicorn

    app = build_app(server)
    if args.settle_heap:
        from sim_mcp.server.heap import settle_heap

        settle_heap()
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning", lifespan="on")


if __name__ == "__main__":
    main()
