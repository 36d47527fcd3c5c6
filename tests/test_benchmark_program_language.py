"""benchmarks/program_language.py on a tiny results folder: one scenario, three kept programs, both modes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from benchmarks import program_language

REPO = Path(__file__).resolve().parent.parent

# Written for step 1 of tickets.yaml (get_ticket): a generator expression (Starlark reads it only after the
# rewrites, Python as it is), a program with `is None` and a Python-only `{**record}` copy, one that does
# not parse in either language, and one that runs in both and leaves the wrong state.
GENERATOR = (
    "def get_ticket(state, args):\n"
    "    count = sum(1 for t in state['tickets'].values() if t['status'] == 'open')\n"
    "    ticket = state['tickets'].get(args['ticket_id'])\n"
    "    if ticket == None:\n"
    "        return error('Ticket %s not found.' % args['ticket_id'])\n"
    "    return ticket\n"
)
UNPACKED = (
    "def get_ticket(state, args):\n"
    "    ticket = state['tickets'].get(args['ticket_id'])\n"
    "    if ticket is None:\n"
    "        return error('Ticket %s not found.' % args['ticket_id'])\n"
    "    return {**ticket}\n"
)
_NO_ANSWER = "the simulator could not produce a valid result: your program failed: Parse error"
BROKEN = "def get_ticket(state, args):\n    return error('no closing quote)\n"
# Runs everywhere, and removes the ticket it was asked to read: not the state the hand-written program leaves.
WRONG = "def get_ticket(state, args):\n    return state['tickets'].pop(args['ticket_id'])\n"


def _call(step: int, tool: str, *, state: bool, result: bool, seconds: float, **more: Any) -> dict[str, Any]:
    return {
        "step": step,
        "call": tool,
        "result_match": result,
        "state_match": state,
        "fields_changed": 1 if tool == "create_ticket" else 0,
        "latency_ms": seconds * 1000,
        "rejected": more.get("rejected", []),
        "error": more.get("error"),
        "rejected_answers": more.get("answers", []),
    }


def _report(calls: list[dict[str, Any]]) -> dict[str, Any]:
    return {"scenarios": [{"name": "tickets-lifecycle", "env": "tickets", "calls": calls}]}


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    results, scenarios = tmp_path / "results", tmp_path / "scenarios"
    for mode in ("patch", "program"):
        (results / mode).mkdir(parents=True)
    scenarios.mkdir()
    shutil.copy(REPO / "benchmarks/fidelity/tickets.yaml", scenarios / "tickets.yaml")
    program = [
        _call(0, "create_ticket", state=True, result=True, seconds=50),
        _call(
            1,
            "get_ticket",
            state=True,
            result=False,
            seconds=90,
            rejected=["your program failed: Parse error: unfinished string literal (line 2)"] * 2,
            error="the simulator could not produce a valid result: your program failed: Parse error",
            answers=[GENERATOR, UNPACKED, BROKEN, WRONG],
        ),
    ]
    patch = [
        _call(0, "create_ticket", state=False, result=True, seconds=20),
        _call(1, "get_ticket", state=True, result=True, seconds=10),
    ]
    (results / "program" / "tickets.json").write_text(json.dumps(_report(program)), encoding="utf-8")
    (results / "patch" / "tickets.json").write_text(json.dumps(_report(patch)), encoding="utf-8")
    return results, scenarios


def _run(folders: tuple[Path, Path], capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    results, scenarios = folders
    arguments = ["--results", str(results), "--scenarios", str(scenarios), "--runs", "4", *extra]
    assert program_language.main(arguments) == 0
    return capsys.readouterr().out


def _row(out: str, name: str) -> list[str]:
    line = next(line for line in out.splitlines() if line.startswith(f"| {name} |"))
    return [cell.strip() for cell in line.strip("|").split("|")]


def test_starlark_figures_and_modes(folders: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(folders, capsys, "--only", "corpus,cost,determinism,modes")
    assert "4 programs (4 distinct)" in out
    # As written only the wrong one parses (a generator, `is`, an open string); after the rewrites the generator's does
    # too and runs; `{**ticket}` still fails (Starlark has no dict unpacking).
    assert _row(out, "starlark as written")[-1] == "1 / 1 / 0 of 4"
    # ... and leaves the state as the hand-written get_ticket does (unchanged).
    assert _row(out, "starlark + rewrites")[-1] == "2 / 2 / 1 of 4"
    assert _row(out, "generator expression")[1:] == ["1", "1", "1"]
    assert _row(out, "is / is not")[1:] == ["1", "0", "0"]
    assert "unexpected symbol '\\*\\*'`: 1" in out
    loaded = _row(out, "starlark: loaded program, one call")
    assert loaded[1] == "4"
    assert float(loaded[2]) > 0
    assert "each call twice with the same call context: 16 of 16 same" in out
    assert _row(out, "all")[1:3] == ["2", "100.0% / 50.0%"]
    assert _row(out, "patch always")[1:4] == ["100.0%", "50.0%", "0 of 1"]
    assert _row(out, "program for tools not marked readOnlyHint, patch for reads")[1:5] == [
        "100.0%",
        "100.0%",
        "1 of 1",
        "30.0",
    ]


def test_without_monty_says_so(
    folders: tuple[Path, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(program_language, "load_monty", lambda: None)
    out = _run(folders, capsys, "--only", "corpus,bundled,features")
    assert "pydantic-monty is not installed" in out.splitlines()[0]
    assert _row(out, "monty as written")[1].startswith("pydantic-monty is not installed")
    assert "## The bundled hand-written programs in monty" in out


def test_monty_runs_python_as_written(folders: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pydantic_monty")
    out = _run(folders, capsys, "--only", "corpus,bundled,features")
    assert _row(out, "monty as written")[-1] == "3 / 3 / 2 of 4"
    assert "Calls run by both (Starlark + rewrites, monty as written): 2; same answer: 2." in out
    assert "run in monty only: 1 (1 of them leave the hand-written program's state)" in out
    assert _row(out, "tickets")[1:5] == ["yes", "16", "16", "16"]
    assert _row(out, "a generator as an argument")[1:] == ["True", "True"]
    assert _row(out, "dict.get(k, default=v)")[1].startswith("TypeError")


def test_bad_arguments_are_named(folders: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        _run(folders, capsys, "--only", "corpus,speed")
    assert "--only: unknown section speed" in capsys.readouterr().err


def test_modes_estimates_each_split_of_the_attempts_for_auto_and_its_fallback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results, scenarios = tmp_path / "results", tmp_path / "scenarios"
    for mode in ("patch", "program"):
        (results / mode).mkdir(parents=True)
    scenarios.mkdir()
    shutil.copy(REPO / "benchmarks/fidelity/tickets.yaml", scenarios / "tickets.yaml")
    failing = "your program failed: Parse error"
    program = [  # two create_ticket calls: no valid program in 2 attempts; a valid one at the second
        _call(0, "create_ticket", state=False, result=False, seconds=60, rejected=[failing] * 2, error=_NO_ANSWER),
        _call(2, "create_ticket", state=True, result=True, seconds=40, rejected=[failing]),
    ]
    patch = [  # both valid at the first attempt, the second wrong
        _call(0, "create_ticket", state=True, result=True, seconds=10),
        _call(2, "create_ticket", state=False, result=False, seconds=10),
    ]
    (results / "program" / "tickets.json").write_text(json.dumps(_report(program)), encoding="utf-8")
    (results / "patch" / "tickets.json").write_text(json.dumps(_report(patch)), encoding="utf-8")
    out = _run((results, scenarios), capsys, "--only", "modes")
    # result, state, exact changes, no valid answer, fallbacks, s per call (an attempt: the call's time / attempts)
    rows = [line for line in out.splitlines() if line.startswith(("| 2 |", "| 3 |"))]
    assert [[cell.strip() for cell in row.strip("|").split("|")][1:] for row in rows] == [
        ["2 + 0", "50.0%", "50.0%", "1 of 2", "1", "0", "50.0"],
        ["1 + 1 (the rule)", "50.0%", "50.0%", "1 of 2", "0", "2", "35.0"],
        ["2 + 1 (the rule)", "100.0%", "100.0%", "2 of 2", "0", "1", "55.0"],
        ["1 + 2", "50.0%", "50.0%", "1 of 2", "0", "2", "35.0"],
    ]
