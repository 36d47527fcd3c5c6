"""`sim-mcp --help` and each command's `--help` import no more than they need: the import graph, read in a
fresh interpreter, not a timing (benchmarks/cli_startup.py times them). A closed pipe ends quietly."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sim_mcp.cli import COMMANDS, build_parser
from tests.servers import BUNDLED_SPECS, REPO

# What a command's --help must not load: the SDKs, the web stack, the engine and the spec readers. Each is
# loaded by the command that needs it, when it runs.
HEAVY = (
    "mcp",
    "anthropic",
    "openai",
    "starlette",
    "uvicorn",
    "httpx",
    "aiohttp",
    "jsonschema",
    "jsonschema_rs",
    "starlark",
    "redis",
    "yaml",
    "anyio",
    "sim_mcp.engine",
    "sim_mcp.server",
    "sim_mcp.runtime",
    "sim_mcp.episodes",
    "sim_mcp.specs.registry",
    "sim_mcp.specs.formats",
)

PROBE = """
import json, sys
from sim_mcp.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def modules_after(*argv: str) -> set[str]:
    """The modules loaded once `sim-mcp ARGV` has run, in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], cwd=REPO, capture_output=True, text=True, timeout=120, check=False
    )
    loaded: list[str] = json.loads(done.stderr.strip().splitlines()[-1])
    return set(loaded)


def heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == name or m.startswith(name + ".") for name in HEAVY))


def test_the_top_level_help_loads_no_command_and_not_even_pydantic() -> None:
    loaded = modules_after("--help")
    assert heavy(loaded) == []
    assert not any(m == "pydantic" or m.startswith("pydantic.") for m in loaded)
    assert not any(m.startswith("sim_mcp.cli.") for m in loaded), "a command's module was imported for --help"


@pytest.mark.parametrize("argv", [[command.name, "--help"] for command in COMMANDS] + [["tasks", "check", "--help"]])
def test_a_commands_help_loads_only_that_command(argv: list[str]) -> None:
    loaded = modules_after(*argv)
    assert heavy(loaded) == []
    (command,) = [command for command in COMMANDS if command.name == argv[0]]
    others = {f"sim_mcp.cli.{other.module}" for other in COMMANDS if other != command}
    assert not loaded & others


def test_the_command_table_says_what_each_module_registers() -> None:
    """The top-level help comes from `COMMANDS` without importing the modules: the two must agree."""
    for command in COMMANDS:
        parser = build_parser({command.name})
        (subparsers,) = [action for action in parser._actions if action.choices and command.name in action.choices]
        shown = {choice.dest: choice.help for choice in subparsers._choices_actions}  # type: ignore[attr-defined]
        assert shown[command.name] == command.help, command.name


def test_a_closed_pipe_ends_quietly() -> None:
    """`sim-mcp check | head -1`: the reader goes away; no traceback, the status of SIGPIPE."""
    command = [sys.executable, "-m", "sim_mcp.cli", "check", str(BUNDLED_SPECS)]
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None
    assert process.stderr is not None
    process.stdout.close()  # before it writes anything: its first write meets a closed pipe
    errors = process.stderr.read().decode()
    assert process.wait(timeout=120) == 141, errors
    assert errors == ""
