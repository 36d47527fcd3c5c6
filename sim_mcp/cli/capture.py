"""`sim-mcp capture`: save a live MCP server's tools as a native spec."""

from __future__ import annotations

import argparse
import os

from sim_mcp.cli.output import (
    add_log_level,
    add_spec_output,
    check_spec_output,
    environment_name,
    write_environment,
)
from sim_mcp.errors import ConfigError


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    capture = commands.add_parser(
        "capture",
        help="save a live MCP server's tools as a native spec",
        usage="sim-mcp capture (--url URL | -- COMMAND [ARGS...]) [-o OUT] [--name NAME] [--header 'N: V'] ...",
    )
    capture.add_argument("--url", help="Streamable HTTP endpoint of the server, e.g. http://127.0.0.1:8000/mcp")
    capture.add_argument("server_command", nargs="*", metavar="COMMAND", help="after --: a stdio server's command")
    add_spec_output(capture, default_name="the server's name")
    capture.add_argument(
        "--header", action="append", default=[], help="HTTP header 'Name: value' for --url (repeatable)"
    )
    capture.add_argument("--timeout", type=float, default=30.0, help="seconds to connect and list tools (default 30)")
    add_log_level(capture, "WARNING")
    capture.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import anyio

    from sim_mcp.specs.capture import HttpServer, LiveServer, StdioServer, capture

    check_spec_output(args.output)
    if bool(args.url) == bool(args.server_command):
        raise ConfigError("capture: expected either --url URL or -- COMMAND ARGS... (exactly one of them)")
    if args.server_command and args.header:
        raise ConfigError("--header: only used with --url (a stdio command takes no HTTP headers)")
    server: LiveServer = (
        HttpServer(args.url, dict(parse_header(text) for text in args.header))
        if args.url
        else StdioServer(tuple(args.server_command), env=dict(os.environ))
    )
    name = environment_name(args.name)
    environment = anyio.run(lambda: capture(server, name=name, timeout=args.timeout))
    header = f"Captured from {server.target} by sim-mcp capture: fill in initial_state and instructions."
    return write_environment(environment, args.output, header=header)


def parse_header(text: str) -> tuple[str, str]:
    name, colon, value = text.partition(":")
    if not colon or not name.strip():
        raise ConfigError(f"--header: expected 'Name: value', got {text!r}")
    return name.strip(), value.strip()
