"""Every `--flag` that README.md, docs/ and sim-mcp's own messages name is a flag of the `sim-mcp` CLI (its
parser, with every subcommand), so that neither a doc nor an error message sends a user to a flag that
does not exist. Flags that the docs show for other programs are listed below with their owner."""

from __future__ import annotations

import argparse
import ast
import re

from sim_mcp.cli import build_parser
from tests.servers import REPO

FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9]*(?:-[a-z0-9]+)*)(-\*)?")
# Flags of other programs, shown in the docs: the flag and whose it is.
FOREIGN = {
    "--dist": "pytest-xdist, in the README's test command",
    "--task": "the examples in examples/ (docs/integrations.md)",
    "--server": "the examples in examples/ and make_verl_data.py (docs/integrations.md)",
    "--out": "make_verl_data.py (docs/integrations.md)",
    "--repeat": "make_verl_data.py (docs/integrations.md)",
    "--config-path": "verl's trainer (docs/integrations.md)",
    "--config-name": "verl's trainer (docs/integrations.md)",
    "--some-name": "the placeholder of sim_mcp/cli/flags.py's docstring",
    "--appendonly": "redis-server (docs/control-api.md)",
    "--daemonize": "redis-server (docs/deploy.md)",
    "--build": "docker compose up (README.md, docs/deploy.md)",
    "--scale": "docker compose up (README.md, docs/deploy.md)",
    "--train": "tests/fixture_servers/harness.py, the twin fixtures' measure (docs/twins.md)",
    "--check": "tests/fixture_servers/harness.py, the twin fixtures' measure (docs/twins.md)",
    "--twins": "benchmarks/twin_agents.py, agents scored on the real server and its twin (docs/twins.md)",
    "--keep": "benchmarks/heldout.py and benchmarks/twins.py keep their folders (docs/twins.md)",
    "--rm": "kubectl run (docs/deploy.md)",
    "--image": "kubectl run (docs/deploy.md)",
    "--appendfsync": "redis-server (docs/control-api.md)",
    "--only": "benchmarks/run.py (docs/deploy.md)",
    "--scale-sessions": "benchmarks/run.py (docs/deploy.md)",
}


def cli_flags(parser: argparse.ArgumentParser) -> set[str]:
    """Every option string of `parser` and of its subcommands, all the way down."""
    flags: set[str] = set()
    for action in parser._actions:
        flags.update(action.option_strings)
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                flags |= cli_flags(sub)
    return flags


def named_flags() -> dict[str, list[str]]:
    """Flag (or `--prefix-*` pattern) -> where it is named: lines of the docs, strings of sim_mcp's code."""
    found: dict[str, list[str]] = {}

    def add(text: str, where: str) -> None:
        for flag, pattern in FLAG.findall(text):
            found.setdefault(flag + pattern, []).append(where)

    for path in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            add(line, f"{path.relative_to(REPO)}:{number}")
    for path in sorted((REPO / "sim_mcp").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                add(node.value, f"{path.relative_to(REPO)}:{node.lineno}")
    return found


def test_every_flag_the_docs_and_messages_name_exists() -> None:
    flags = cli_flags(build_parser())
    missing = {
        flag: places[:3] for flag, places in named_flags().items() if flag not in FOREIGN and not _exists(flag, flags)
    }
    assert missing == {}, f"named but not a flag of the sim-mcp CLI: {missing}"


def _exists(named: str, flags: set[str]) -> bool:
    """A flag of the CLI; for a pattern `--prefix-*`, the prefix of one."""
    if named.endswith("-*"):
        return any(flag.startswith(named.removesuffix("*")) for flag in flags)
    return named in flags


def test_the_scan_finds_the_flags_it_should() -> None:
    """The scan itself: it sees flags in the README, in docs/ and in error messages, and patterns."""
    found = named_flags()
    assert any(place.startswith("README.md:") for place in found["--specs"])
    assert any(place.startswith("docs/") for place in found["--session-ttl"])
    assert any(place.startswith("sim_mcp/") for place in found["--max-argument-bytes"])
    assert "--fault-*" in found
    assert not FOREIGN.keys() & cli_flags(build_parser()), "a flag listed as foreign is sim-mcp's own"
