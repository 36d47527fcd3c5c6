"""`sim-mcp export`: sessions' trajectories as JSON Lines (events, or OpenAI chat messages for SFT)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from sim_mcp.cli.output import add_log_level
from sim_mcp.config import ENV_PREFIX, Settings
from sim_mcp.errors import ConfigError


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    export = commands.add_parser(
        "export",
        help="write sessions' trajectories as JSON Lines (events, or OpenAI chat messages for SFT)",
        usage="sim-mcp export (--url URL [--token T] | --store STORE [--specs DIR]) (--session ID ... | --all) "
        "[--format events|openai] [-o OUT]",
    )
    export.add_argument("--url", help="a running server's base URL, e.g. http://127.0.0.1:8765 (its control API)")
    export.add_argument("--token", help="the server's bearer token (SIM_MCP_TOKEN)")
    export.add_argument("--store", help="read a store directly instead, e.g. sqlite:///runs.db (server stopped)")
    export.add_argument(
        "--specs", action="append", type=Path, help="with --store: the spec folders, for the openai format's tools"
    )
    export.add_argument(
        "--session", dest="sessions", action="append", default=[], metavar="ID", help="a session id (repeatable)"
    )
    export.add_argument("--all", action="store_true", help="every session, oldest first")
    export.add_argument("--format", choices=["events", "openai"], default="events", help="default events")
    export.add_argument("-o", "--output", type=Path, help="file to write (default: standard output)")
    add_log_level(export, "WARNING")
    export.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import anyio

    from sim_mcp.episodes.export import export_from_server, export_from_store

    if bool(args.url) == bool(args.store):
        raise ConfigError("export: expected either --url URL (a running server) or --store STORE (exactly one)")
    if bool(args.sessions) == bool(args.all):
        raise ConfigError("export: name sessions with --session ID (repeatable), or give --all (exactly one)")
    sessions = None if args.all else list(args.sessions)
    if args.url:
        token = args.token or os.environ.get(ENV_PREFIX + "TOKEN") or None
        text, count = export_from_server(args.url, sessions, args.format, token=token)
    else:
        specs = Settings.load({"specs": args.specs}).specs
        text, count = anyio.run(lambda: export_from_store(args.store, sessions, args.format, specs))
    if args.output is None:
        sys.stdout.write(text)
    else:
        try:
            args.output.write_text(text, encoding="utf-8")
        except OSError as e:
            raise ConfigError(f"-o/--output: cannot write {args.output}: {e.strerror or e}") from e
    lines = text.count("\n")
    where = args.output or "standard output"
    print(f"exported {count} session(s), {lines} line(s), {args.format} format, to {where}", file=sys.stderr)
    return 0
