"""A small real MCP server that keeps files in its working folder, for twin-check's and record's tests:
`python tests/files_upstream.py [--ignore-eof]`.

`write_file(path, content)` and `read_file(path)` accept only absolute paths inside the folder it was
started in (as a file-system server allowed one folder would), so a call that names `{tmp}` literally
fails. With `--ignore-eof` it starts a child process and keeps running when its stdin closes (as some
real servers do), appending its own and its child's process ids to the file `FILES_UPSTREAM_PIDS` names.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

TOOLS = [
    types.Tool(
        name="write_file",
        description="Write a file; the path must lie inside the server's folder.",
        input_schema={
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
        },
    ),
    types.Tool(
        name="read_file",
        description="Read a file; the path must lie inside the server's folder.",
        input_schema={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    ),
]


def _text(text: str, is_error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=is_error)


def main() -> None:
    root = Path.cwd().resolve()
    if "--ignore-eof" in sys.argv:
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        with open(os.environ["FILES_UPSTREAM_PIDS"], "a") as pids:
            pids.write(f"{os.getpid()} {child.pid}\n")
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # only a kill ends it

    async def list_tools(ctx: ServerRequestContext[Any], params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=TOOLS)

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        return answer(params.name, params.arguments or {})

    def answer(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        path = Path(str(arguments.get("path", "")))
        if not path.is_absolute() or not path.resolve().is_relative_to(root):
            return _text(f"Access denied: {path} is outside {root}", True)
        if name == "write_file":
            path.write_text(str(arguments.get("content", "")))
            return _text(f"Wrote {path}")
        if not path.is_file():
            return _text(f"No such file: {path}", True)
        return _text(path.read_text())

    server = Server("files-upstream", on_list_tools=list_tools, on_call_tool=call_tool)

    async def serve() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(serve)
    if "--ignore-eof" in sys.argv:
        while True:  # stdin closed: a well-behaved server would exit here
            time.sleep(1)


if __name__ == "__main__":
    main()
