"""CLI flags are generated from `Settings`: none exists in one and not the other."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from sim_mcp.cli import build_parser
from sim_mcp.cli.flags import IN_PROCESS, flag_name, setting_flags, settings_from
from sim_mcp.config import CONCERNS, Settings

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


def test_every_setting_is_about_exactly_one_concern() -> None:
    named = [name for fields in CONCERNS.values() for name in fields]
    assert sorted(named) == sorted(Settings.model_fields), "a setting in no concern, or in two (config.CONCERNS)"
    assert set(CONCERNS) == {"specs", "server", "store", "engine", "llm", "faults", "episodes"}


# What each command reads, so what it offers: nothing that it would ignore.
COMMAND_CONCERNS = {
    "call": IN_PROCESS,
    "bench-fidelity": ("specs", "engine", "llm"),
    "tasks generate": ("specs", "engine", "llm"),
    "compile": ("llm",),
    "check": (),
    "import": (),
    "capture": (),
    "export": (),
}


@pytest.mark.parametrize("command", sorted(COMMAND_CONCERNS))
def test_each_command_takes_the_settings_of_its_concerns_only(command: str) -> None:
    parser = subcommands(build_parser())[command]
    settings = destinations(parser) & set(Settings.model_fields)
    expected = {name for name, _ in setting_flags(COMMAND_CONCERNS[command])}
    if command == "check":  # its own --specs, hidden: the paths to check
        expected.add("specs")
    if command == "export":  # its own --specs, --store and --token: which server or store to read
        expected |= {"specs", "store", "token"}
    assert settings == expected
    assert "port" not in settings or command == "serve"


def test_a_commands_help_has_a_section_per_concern(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser({"call"}).parse_args(["call", "--help"])
    text = capsys.readouterr().out
    for title in ("specs:", "session store:", "engine (", "backend and LLM:", "injected faults"):
        assert title in text, title
    assert "--port" not in text
    assert "--trajectories" not in text


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
