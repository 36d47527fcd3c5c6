"""A small real MCP server for the recording proxy's tests, run as `python tests/twins_upstream.py [FILE]`.

It keeps a list of notes (in FILE when given, so a fresh folder gives a fresh world) and misbehaves on
demand: `crash` exits the process mid-call, `hang` never answers, `garbage` writes a line that is no
JSON-RPC to stdout and then never answers, `refuse` answers with a JSON-RPC error.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

TOOLS = [
    types.Tool(
        name="add_note",
        description="Add a note; returns it with its id.",
        input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    ),
    types.Tool(name="list_notes", description="All notes.", input_schema={"type": "object", "properties": {}}),
    types.Tool(
        name="get_note",
        description="One note by id.",
        input_schema={"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
    ),
    *[
        types.Tool(name=name, description=f"Misbehave: {name}.", input_schema={"type": "object", "properties": {}})
        for name in ("crash", "hang", "garbage", "refuse")
    ],
]


def main() -> None:
    store = Path(sys.argv[1]) if len(sys.argv) > 1 else None
    notes: list[dict[str, Any]] = json.loads(store.read_text()) if store is not None and store.exists() else []

    async def list_tools(ctx: ServerRequestContext[Any], params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=TOOLS)

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = params.arguments or {}
        if params.name == "add_note":
            note = {"id": len(notes) + 1, "text": arguments["text"]}
            notes.append(note)
            if store is not None:
                store.write_text(json.dumps(notes))
            return _text(note)
        if params.name == "list_notes":
            return _text({"notes": notes})
        if params.name == "get_note":
            found = [note for note in notes if note["id"] == arguments.get("id")]
            if not found:
                return types.CallToolResult(content=[_content(f"Note {arguments.get('id')} not found")], is_error=True)
            return _text(found[0])
        if params.name == "crash":
            os._exit(3)
        if params.name == "hang":
            await anyio.sleep_forever()
        if params.name == "garbage":
            os.write(1, b"this is not JSON-RPC\n")
            await anyio.sleep_forever()
        raise MCPError(-32602, "refused: this tool always refuses")

    server = Server("notes", on_list_tools=list_tools, on_call_tool=call_tool)

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(run)


def _content(text: str) -> types.TextContent:
    return types.TextContent(type="text", text=text)


def _text(value: Any) -> types.CallToolResult:
    return types.CallToolResult(content=[_content(json.dumps(value, indent=2))])


if __name__ == "__main__":
    main()
