"""The bound on the twin's search over the tools' effects (`EFFECT_TRIALS`, `sim-mcp compile --effect-trials`):
a search that reaches it stops with the best choice it had found, says so in the compile's report, and still
writes a twin; the same recordings compile to the same twin with a bound the search never reaches."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sim_mcp.authoring.twins.keyed_world import EFFECT_TRIALS, infer_guards, run_guard
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.cli import main
from sim_mcp.specs.model import ToolAnnotations, ToolSpec
from tests.twin_learning import compile_recorded

STORE = ToolSpec(
    name="set_value",
    input_schema={
        "type": "object",
        "properties": {"key": {"type": "string"}, "value": {"type": "string"}},
        "required": ["key", "value"],
    },
)
GET = ToolSpec(
    name="get_value",
    input_schema={"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]},
    annotations=ToolAnnotations(readOnlyHint=True),
)
DROP = ToolSpec(
    name="delete_value",
    input_schema={"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]},
)
TOOLS = [STORE, GET, DROP]


def call(session: int, seq: int, tool: str, arguments: dict[str, Any], text: str, error: bool = False) -> RecordedCall:
    result = {"content": [{"type": "text", "text": text}], "isError": error}
    return RecordedCall(f"s{session}", seq, tool, arguments, result, error)


def sessions() -> list[list[RecordedCall]]:
    """A key-value server: set, get after set, delete, get after delete."""
    found = []
    for number, (key, value) in enumerate([("alpha", "one"), ("beta", "two"), ("gamma", "three")]):
        steps = [
            ("get_value", {"key": key}, f"No value under '{key}'", True),
            ("set_value", {"key": key, "value": value}, f"Stored '{key}'", False),
            ("get_value", {"key": key}, value, False),
            ("delete_value", {"key": key}, f"Deleted '{key}'", False),
            ("get_value", {"key": key}, f"No value under '{key}'", True),
        ]
        found.append([call(number, seq, *step) for seq, step in enumerate(steps, 1)])
    return found


def test_a_search_that_reaches_its_bound_keeps_the_best_it_found_and_says_where_it_stopped() -> None:
    names = [tool.name for tool in TOOLS]
    free = infer_guards(TOOLS, sessions(), names)
    assert free.stopped_at == 0
    state: dict[str, Any] = {}
    run_guard(free.plans["set_value"], "set_value", state, {"key": "delta", "value": "four"})
    assert run_guard(free.plans["get_value"], "get_value", state, {"key": "delta"}) == ("four", False)

    bounded = infer_guards(TOOLS, sessions(), names, trials=1)
    assert bounded.stopped_at == 1
    # What it kept answers the recorded calls no better than the search that ended by itself, and no call
    # worse than handing it on: every rule it kept still agrees with every recorded call it answers.
    assert sum(bounded.answered.values()) <= sum(free.answered.values())
    for session in sessions():
        state = {}
        for recorded in session:
            plan = bounded.plans.get(recorded.tool)
            answer = run_guard(plan, recorded.tool, state, recorded.arguments) if plan else None
            if answer is not None:
                assert recorded.result is not None
                assert answer == (recorded.result["content"][0]["text"], recorded.is_error), recorded


def test_compile_reports_a_search_stopped_at_its_bound_and_refuses_a_bound_below_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    compile_recorded(tmp_path, TOOLS, sessions())
    assert "stopped at" not in capsys.readouterr().err
    free = json.loads((tmp_path / "compile.json").read_text())
    report = tmp_path / "bounded.json"
    spec, folder = str(tmp_path / "spec.yaml"), str(tmp_path)
    main(["compile", spec, "--from", folder, "--effect-trials", "1", "--report", str(report)])
    err = capsys.readouterr().err
    assert "the search for the tools' effects on the keyed world stopped at 1 choices tried (--effect-trials)" in err
    bounded = json.loads(report.read_text())
    assert bounded["tools"]["get_value"]["calls"] == 9
    # The report says how many choices each search evaluated: one per search under the bound, more without.
    assert 1 <= bounded["effect_choices"] < free["effect_choices"]
    assert main(["compile", spec, "--from", folder, "--effect-trials", "0"]) == 2
    assert "--effect-trials: expected 1 or more, got 0" in capsys.readouterr().err


def test_the_default_bound_is_the_one_compile_documents(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["compile", "--help"])
    assert f"(default {EFFECT_TRIALS};" in " ".join(capsys.readouterr().out.split())
