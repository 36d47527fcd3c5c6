"""The `sim-mcp` command: one module per subcommand, their flags generated from `Settings` (`flags.py`).

A command's module is imported only when that command runs (or its `--help` is asked for): `sim-mcp --help`
lists the commands from `COMMANDS` alone, and each command imports what it needs inside its `run`, so that
no command pays for another's imports (the SDKs, the server, the engine). tests/test_cli_imports.py holds
them to it.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import sys
from collections.abc import Collection, Sequence
from typing import NamedTuple

from sim_mcp.version import __version__


class Command(NamedTuple):
    name: str
    module: str  # under sim_mcp.cli; its `add_parser(commands)` adds the command with this name and help
    help: str


COMMANDS = (
    Command("serve", "serve", "run the MCP server"),
    Command("check", "check", "validate spec and task files and print a summary"),
    Command("call", "call", "make one call in process, to try a spec"),
    Command("export", "export", "write sessions' trajectories as JSON Lines (events, or OpenAI chat messages for SFT)"),
    Command("bench-fidelity", "bench", "score a backend's consistency on scripted call sequences (docs/rewards.md)"),
    Command("tasks", "tasks", "task files: check them, or generate them (docs/rewards.md, docs/users.md)"),
    Command("import", "import_spec", "convert a spec file of any format to a native spec, for editing"),
    Command("capture", "capture", "save a live MCP server's tools as a native spec"),
    Command(
        "compile",
        "compile",
        "have a model write each tool's rules program, checked against examples, recordings and probe calls; "
        "write those that pass beside the spec (docs/formats.md)",
    ),
    Command("rules", "rules", "rules programs: scaffold one from a spec to fill in (init)"),
    Command(
        "generate",
        "generate",
        "have a model write environments (tools, world, rules programs, tasks) from one-line descriptions; keep "
        "those that pass every gate (docs/generate.md)",
    ),
    Command(
        "record", "record", "serve a real MCP server's tools, forwarding every call to it and recording each answer"
    ),
    Command(
        "twin-check",
        "twin_check",
        "compare two MCP servers (a real one and its twin) call by call on the same sessions",
    ),
)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(only=_command_named(arguments)).parse_args(arguments)
    from sim_mcp.config import ENV_PREFIX
    from sim_mcp.errors import SimMcpError
    from sim_mcp.logs import configure_logging

    log_format = getattr(args, "log_format", None) or os.environ.get(ENV_PREFIX + "LOG_FORMAT")
    configure_logging(getattr(args, "log_level", "INFO"), "json" if log_format == "json" else "text")
    try:
        result: int = args.run(args)
        sys.stdout.flush()
        return result
    except SimMcpError as e:
        print(f"sim-mcp: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return _closed_pipe()
    except OSError as e:
        if e.errno == errno.EPIPE:
            return _closed_pipe()
        raise


def build_parser(only: Collection[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every command (`only` None), or with only the commands named in `only` built in full,
    the others listed by name and help (enough for `sim-mcp --help` and for parsing one command's line)."""
    parser = argparse.ArgumentParser(
        prog="sim-mcp", description="Serve any tool spec over MCP, simulated with per-session state."
    )
    parser.add_argument("--version", action="version", version=f"sim-mcp {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        if only is None or command.name in only:
            importlib.import_module(f"sim_mcp.cli.{command.module}").add_parser(commands)
        else:
            commands.add_parser(command.name, help=command.help)
    return parser


def _command_named(arguments: Sequence[str]) -> set[str]:
    """The command an argument list runs: its first word that is not an option (none for `--help`)."""
    first = next((argument for argument in arguments if not argument.startswith("-")), None)
    return {first} if first is not None else set()


def _closed_pipe() -> int:
    """The reader went away (`sim-mcp call ... | head`): end quietly, as `cat` does, with the status of
    SIGPIPE. Python would print a second error flushing stdout at exit, so stdout goes to /dev/null first."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a file (a test's capture): nothing left to flush
        pass
    return 128 + 13
