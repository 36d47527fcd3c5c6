"""The `sim-mcp` command: one module per subcommand, their flags generated from `Settings` (`flags.py`)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from sim_mcp.cli import bench, call, capture, check, compile, export, import_spec, record, serve, tasks, twin_check
from sim_mcp.config import ENV_PREFIX
from sim_mcp.errors import SimMcpError
from sim_mcp.logs import configure_logging
from sim_mcp.version import __version__

COMMANDS = (serve, check, call, export, bench, tasks, import_spec, capture, compile, record, twin_check)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    configure_logging(getattr(args, "log_level", "INFO"), "json" if _log_format(args) == "json" else "text")
    try:
        result: int = args.run(args)
        return result
    except SimMcpError as e:
        print(f"sim-mcp: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sim-mcp", description="Serve any tool spec over MCP, simulated with per-session state."
    )
    parser.add_argument("--version", action="version", version=f"sim-mcp {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_parser(commands)
    return parser


def _log_format(args: argparse.Namespace) -> str | None:
    flag: str | None = getattr(args, "log_format", None)
    return flag or os.environ.get(ENV_PREFIX + "LOG_FORMAT")
