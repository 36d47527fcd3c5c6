"""CLI flags are generated from `Settings`: none exists in one and not the other."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from sim_mcp.cli import build_parser
from sim_mcp.cli.flags import SERVER_ONLY, flag_name, settings_from
from sim_mcp.config import Settings

# Flags of one command that are deliberately not settings (what they mean is the command's own).
COMMAND_ONLY = {
    "serve": {"session", "log_level"},
    "call": {"tool", "args", "session", "log_level"},
    "bench-fidelity": {"scenarios", "rules", "json", "log_level"},
}


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    found: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found[name] = sub
                found.update({f"{name} {inner}": parser for inner, parser in subcommands(sub).items()})
    return found


def destinations(parser: argparse.ArgumentParser) -> set[str]:
    return {action.dest for action in parser._actions if action.dest not in ("help", argparse.SUPPRESS)}


def test_serve_has_a_flag_for_every_setting_and_nothing_else_but_its_own() -> None:
    serve = subcommands(build_parser())["serve"]
    assert destinations(serve) - COMMAND_ONLY["serve"] == set(Settings.model_fields)
    flags = {option for action in serve._actions for option in action.option_strings}
    assert {flag_name(name) for name in Settings.model_fields} <= flags


@pytest.mark.parametrize("command", ["call", "bench-fidelity", "tasks generate"])
def test_in_process_commands_take_every_setting_but_the_servers(command: str) -> None:
    parser = subcommands(build_parser())[command]
    settings = destinations(parser) & set(Settings.model_fields)
    assert settings == set(Settings.model_fields) - SERVER_ONLY


def test_every_setting_flag_reaches_its_setting(tmp_path: Path) -> None:
    argv = [
        "serve",
        "--specs", str(tmp_path),
        "--max-attempts", "5",
        "--timeout-s", "2.5",
        "--allowed-hosts", "sim,sim.internal",
        "--no-watch",
        "--transport", "stdio",
        "--fault-latency-ms", "uniform:1:2",
    ]  # fmt: skip
    settings = settings_from(build_parser().parse_args(argv))
    assert settings.specs == [tmp_path]
    assert settings.max_attempts == 5
    assert settings.timeout_s == 2.5
    assert settings.allowed_hosts == ["sim", "sim.internal"]
    assert settings.watch is False
    assert settings.transport == "stdio"
    assert settings.fault_latency_ms is not None


def test_a_flag_left_out_keeps_the_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIM_MCP_MAX_ATTEMPTS", "7")
    assert settings_from(build_parser().parse_args(["serve"])).max_attempts == 7
    assert settings_from(build_parser().parse_args(["serve", "--max-attempts", "2"])).max_attempts == 2


def test_every_setting_is_described_so_its_help_says_something() -> None:
    assert [name for name, info in Settings.model_fields.items() if not info.description] == []
