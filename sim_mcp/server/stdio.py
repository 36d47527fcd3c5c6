"""MCP over stdio: the process is one session."""

from __future__ import annotations

import logging
import os
import sys

import anyio
from mcp.server.stdio import stdio_server

from sim_mcp.config import ServerConfig, Settings, SpecsConfig
from sim_mcp.runtime import Runtime
from sim_mcp.server.context import ServerContext
from sim_mcp.server.mcp import SessionRouting, build_mcp_server
from sim_mcp.server.reload import hot_reload
from sim_mcp.state.session import new_session_id

logger = logging.getLogger("sim_mcp")


async def serve_stdio(settings: Settings, session: str | None = None, runtime: Runtime | None = None) -> None:
    """Serve one session over stdin and stdout until the client closes them (on the runtime built from
    `settings`, unless one is given; the transport reads its own concern and the spec folders to watch). A
    client that goes away in the middle of a response (a broken pipe) is logged in one line, not as a
    traceback."""
    runtime = runtime if runtime is not None else Runtime(settings)
    config, specs = ServerConfig.of(settings), SpecsConfig.of(settings)
    routing = SessionRouting(process_session=session or f"stdio-{new_session_id()}")
    context = ServerContext(runtime, config)
    server = build_mcp_server(context, routing)
    try:
        async with runtime, stdio_server() as (read_stream, write_stream), anyio.create_task_group() as tasks:
            stop_watching = anyio.Event()  # polled by the watcher's thread: a prompt exit
            tasks.start_soon(runtime.check_rules_in_background)
            if config.watch:
                tasks.start_soon(lambda: hot_reload(context, specs, stop=stop_watching))
            await server.run(read_stream, write_stream, server.create_initialization_options())
            stop_watching.set()
            tasks.cancel_scope.cancel()
    except* (BrokenPipeError, ConnectionResetError):
        logger.warning("stdio: the client closed its end mid-response (broken pipe); the server stops")
        _discard_stdout()


def _discard_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush of it at exit finds no broken pipe."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
