"""`sim-mcp record`: a recording proxy in front of a real MCP server (docs/twins.md)."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import anyio

from sim_mcp.cli.output import add_log_level
from sim_mcp.errors import ConfigError


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    record = commands.add_parser(
        "record",
        help="serve a real MCP server's tools, forwarding every call to it and recording each answer",
        usage="sim-mcp record -o DIR (--url URL | -- COMMAND [ARGS...]) [--fresh-per-session] [--redact REGEX] ...",
    )
    record.add_argument(
        "-o", "--output", type=Path, required=True, metavar="DIR", help="folder for spec.yaml and recordings.jsonl"
    )
    record.add_argument("--url", help="the real server's Streamable HTTP endpoint")
    record.add_argument(
        "server_command", nargs="*", metavar="COMMAND", help="after --: the real server's stdio command"
    )
    record.add_argument(
        "--header", action="append", default=[], help="HTTP header 'Name: value' for --url (repeatable)"
    )
    record.add_argument(
        "--fresh-per-session",
        dest="fresh",
        action="store_true",
        help="start the command anew for each session, in a new temporary folder ({tmp} in its arguments and "
        "environment values is replaced by it)",
    )
    record.add_argument(
        "--redact",
        action="append",
        default=[],
        metavar="REGEX",
        help="mask what matches in the recordings (repeatable)",
    )
    record.add_argument(
        "--timeout", type=float, default=60.0, help="seconds to wait for the server per call (default 60)"
    )
    record.add_argument(
        "--on-failure",
        choices=["restart", "stop"],
        default="restart",
        help="when the server exits, hangs or answers no MCP: start it again (default) or stop forwarding",
    )
    record.add_argument("--name", help="environment name of the captured spec (default: the server's name)")
    record.add_argument("--transport", choices=["stdio", "http"], default="stdio", help="how clients reach the proxy")
    record.add_argument("--host", default="127.0.0.1", help="HTTP host (default 127.0.0.1)")
    record.add_argument("--port", type=int, default=8000, help="HTTP port (default 8000; 0: any free port)")
    record.add_argument("--session", help="stdio: the name of the process's one session (default stdio-<random>)")
    add_log_level(record, "WARNING")
    record.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import anyio

    from sim_mcp.authoring.twins.proxy import ProxySettings
    from sim_mcp.cli.capture import parse_header
    from sim_mcp.specs.capture import HttpServer, LiveServer, StdioServer

    if bool(args.url) == bool(args.server_command):
        raise ConfigError("record: expected either --url URL or -- COMMAND ARGS... (exactly one of them)")
    if args.server_command and args.header:
        raise ConfigError("--header: only used with --url (a stdio command takes no HTTP headers)")
    if args.fresh and args.url:
        raise ConfigError("--fresh-per-session: only with a command (a server at a URL cannot be started anew)")
    if args.timeout <= 0:
        raise ConfigError(f"--timeout: expected a positive number of seconds, got {args.timeout}")
    server: LiveServer = (
        HttpServer(args.url, dict(parse_header(text) for text in args.header))
        if args.url
        else StdioServer(tuple(args.server_command), env=dict(os.environ))
    )
    settings = ProxySettings(
        server=server,
        output=args.output,
        fresh=args.fresh,
        redact=list(args.redact),
        timeout=args.timeout,
        on_failure=args.on_failure,
        name=args.name,
    )
    anyio.run(_serve, settings, args)
    return 0


async def _cancel_on_signal(scope: anyio.CancelScope) -> None:
    import anyio

    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for _ in signals:
            scope.cancel()
            return


async def _serve(settings: object, args: argparse.Namespace) -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    from sim_mcp.authoring.twins.proxy import ProxySettings, RecordingProxy

    assert isinstance(settings, ProxySettings)
    proxy = RecordingProxy(settings)
    async with proxy.running():
        print(
            f"sim-mcp record: {len(proxy.tools)} tools of {settings.server.target}; recording to {proxy.writer.path}",
            file=sys.stderr,
            flush=True,
        )
        if args.transport == "stdio":
            server = proxy.mcp_server(args.session)
            async with anyio.create_task_group() as tasks:
                # SIGTERM or SIGINT end the serving, not the process: leaving `running()` stops every server.
                tasks.start_soon(_cancel_on_signal, tasks.cancel_scope)
                async with stdio_server() as (read_stream, write_stream):
                    await server.run(read_stream, write_stream, server.create_initialization_options())
                tasks.cancel_scope.cancel()
        else:
            await _serve_http(proxy, args)
    print(f"sim-mcp record: {proxy.calls} calls recorded in {proxy.writer.path}", file=sys.stderr, flush=True)


async def _serve_http(proxy: object, args: argparse.Namespace) -> None:
    import uvicorn

    from sim_mcp.authoring.twins.proxy import RecordingProxy
    from sim_mcp.cli.serve import listen

    assert isinstance(proxy, RecordingProxy)
    listener = listen(args.host, args.port)
    port = listener.getsockname()[1]
    app = proxy.mcp_server().streamable_http_app(host=args.host)
    print(f"MCP endpoint: http://{args.host}:{port}/mcp", file=sys.stderr, flush=True)
    config = uvicorn.Config(app, log_level=args.log_level.lower(), log_config=None, lifespan="on")
    # uvicorn shuts down on SIGTERM or SIGINT, then raises the signal again under the handler it found: a
    # handler that does nothing lets the proxy stop the servers of all sessions before the process ends.
    previous = {sig: signal.signal(sig, lambda number, frame: None) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        await uvicorn.Server(config).serve(sockets=[listener])
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
