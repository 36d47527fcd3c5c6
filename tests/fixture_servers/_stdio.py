"""What both fixture servers share: a low-level MCP server over stdio, its world kept in memory (a
process per session), and text answers."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

Handler = Callable[[str, dict[str, Any]], tuple[str, bool]]


def tool(name: str, description: str, properties: dict[str, Any], required: list[str]) -> types.Tool:
    schema = {"type": "object", "properties": properties, "required": required}
    return types.Tool(name=name, description=description, input_schema=schema)


def as_json(value: Any) -> str:
    return json.dumps(value, indent=2)


def serve(name: str, tools: list[types.Tool], handle: Handler) -> None:
    """Serve `tools` over stdio; `handle(tool, arguments)` gives each call's text and whether it is an error."""

    async def list_tools(ctx: ServerRequestContext[Any], params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        text, is_error = handle(params.name, params.arguments or {})
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=is_error)

    server = Server(name, on_list_tools=list_tools, on_call_tool=call_tool)

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(run)
