"""`sim-mcp generate` end to end with a scripted model (tests/generate_scripted.py), no network: an environment
that passes every gate after a repair at each, environments dropped at the gate that kept failing, near-
duplicates dropped, a rerun that keeps what passed, descriptions expanded from seeds, and the command through
the OpenAI wire."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sim_mcp.authoring.generate import GATES, Bounds, Options, expand_descriptions, generate_batch, generate_environment
from sim_mcp.cli import main
from sim_mcp.episodes.tasks import load_tasks
from sim_mcp.rules import compile_rules
from sim_mcp.specs.registry import load_catalog
from sim_mcp.testing.fake_provider import FakeProvider
from tests.generate_scripted import (
    BORROW_FORGETS_STATUS,
    DESIGN,
    DESIGN_WITHOUT_OUTPUT,
    LIST_SHOWS_ALL_AVAILABLE,
    PROGRAMS,
    RETURN_ALWAYS_FAILS,
    TASK_BORROW,
    TASK_BORROW_TAKEN,
    TASK_PASS_ON,
    Script,
    ScriptedModel,
    responder,
)

LIBRARY = "A lending library where members borrow and return books."
OPTIONS = Options(bounds=Bounds(min_tools=3, max_tools=6, min_records=3, max_records=8), rounds=2, repairs=1)


async def test_an_environment_passes_every_gate_after_a_repair_at_each(tmp_path: Path) -> None:
    model = ScriptedModel(
        Script(
            designs=[DESIGN_WITHOUT_OUTPUT, DESIGN],
            programs={**{name: [text] for name, text in PROGRAMS.items()}}
            | {
                "borrow_book": [BORROW_FORGETS_STATUS, PROGRAMS["borrow_book"]],
                "list_books": [LIST_SHOWS_ALL_AVAILABLE, PROGRAMS["list_books"]],
            },
            tasks={1: [TASK_BORROW_TAKEN, TASK_BORROW], 2: [TASK_PASS_ON]},
            simulation="right-once-rewritten",
        )
    )
    summary = await generate_batch([LIBRARY], tmp_path, model, OPTIONS, jobs=1)
    (report,) = summary.reports
    assert report.status == "passed", report.to_json()
    assert list(report.gates) == list(GATES)
    repairs = {name: gate.repairs for name, gate in report.gates.items()}
    # The spec (a tool without an output schema), the programs (an example failed), consistency (a listing
    # showed a borrowed book as available), the tasks (a solution failed in the replay), the agreement (the
    # simulator disagreed until the instructions were written again): each repaired once.
    assert repairs == {
        "spec": 1,
        "distinct": 0,
        "programs": 1,
        "consistency": 1,
        "tasks": 1,
        "gain": 0,
        "agreement": 1,
    }, report.to_json()
    # Each failure went back to the model quoted.
    quoted = [user for kind, user in model.prompts]
    assert any("tools[0] (get_book).output_schema" in user for user in quoted)
    assert any("Your previous program failed" in user and "example 1" in user for user in quoted)
    assert any("list_books" in user and "a result must show what the state stores" in user for user in quoted)
    assert any("Your previous task was refused" in user and "solution[0] (borrow_book)" in user for user in quoted)
    assert any("Where the simulator disagreed with the programs" in user for user in quoted)
    assert (report.tools, report.tasks, report.tasks_by_difficulty) == (4, 2, {1: 1, 2: 1})
    assert report.agreement == 1.0
    assert report.tokens.input > 0
    assert report.requests > 0
    # The programs were asked again for list_books with the consistency finding quoted.
    assert model.asked.count("program") == 4 + 1 + 1

    # What ships loads and serves with no error, its programs pass their examples, its tasks load.
    envs = tmp_path / "envs"
    catalog = load_catalog(envs)
    assert catalog.errors == ()
    assert list(catalog.environments) == ["library-loans"]
    assert compile_rules(catalog).errors == ()
    assert "Rewritten" in catalog.environments["library-loans"].instructions
    tasks, errors = load_tasks(envs)
    assert errors == []
    assert len(tasks) == 2
    assert all(task.reward == "gain" and task.env == "library-loans" for task in tasks.values())
    document = json.loads((tmp_path / "summary.json").read_text())
    assert document["passed"] == 1
    assert document["passed_gate"]["agreement"] == 1
    assert document["tools_per_environment"] == 4
    assert document["tasks_per_environment"] == 2

    # A rerun keeps what passed and asks nothing.
    again = ScriptedModel(Script())
    summary = await generate_batch([LIBRARY], tmp_path, again, OPTIONS, jobs=1)
    assert again.asked == []
    assert [report.status for report in summary.reports] == ["passed"]


async def test_a_gate_that_keeps_failing_drops_the_environment_and_names_the_gate(tmp_path: Path) -> None:
    programs = {name: [text] for name, text in PROGRAMS.items()} | {"return_book": [RETURN_ALWAYS_FAILS]}
    summary = await generate_batch([LIBRARY], tmp_path, ScriptedModel(Script(programs=programs)), OPTIONS, jobs=1)
    (report,) = summary.reports
    assert (report.status, report.failed_gate) == ("dropped", "programs")
    assert "return_book" in report.gates["programs"].detail
    assert "example" in report.gates["programs"].detail
    assert not list((tmp_path / "envs").glob("*.yaml")), "nothing ships that failed a gate"
    stored = json.loads(next((tmp_path / "reports").glob("*.json")).read_text())
    assert stored["status"] == "dropped"
    assert stored["failed_gate"] == "programs"

    # A rerun does the dropped one again; this time the model writes a program that passes.
    summary = await generate_batch([LIBRARY], tmp_path, ScriptedModel(Script()), OPTIONS, jobs=1)
    assert [report.status for report in summary.reports] == ["passed"]


async def test_a_simulator_that_never_agrees_with_the_programs_drops_the_environment(tmp_path: Path) -> None:
    model = ScriptedModel(Script(simulation="wrong"))
    generated = await generate_environment(LIBRARY, model, tmp_path / "work", OPTIONS, key="library")
    report = generated.report
    assert (report.status, report.failed_gate) == ("dropped", "agreement")
    assert report.gates["agreement"].repairs == OPTIONS.repairs
    assert "the simulator the error" in report.gates["agreement"].detail
    assert all(report.gates[gate].passed for gate in ("spec", "programs", "consistency", "tasks", "gain"))
    assert generated.spec is None


async def test_a_spec_the_model_never_gets_right_is_dropped_at_the_spec_gate(tmp_path: Path) -> None:
    model = ScriptedModel(Script(designs=[DESIGN_WITHOUT_OUTPUT]))
    generated = await generate_environment(LIBRARY, model, tmp_path / "work", OPTIONS, key="library")
    assert (generated.report.status, generated.report.failed_gate) == ("dropped", "spec")
    assert "output_schema" in generated.report.gates["spec"].detail
    assert model.asked == ["environment"] * OPTIONS.rounds


async def test_near_duplicates_are_dropped(tmp_path: Path) -> None:
    descriptions = [LIBRARY, "A school library lending books to its pupils."]
    summary = await generate_batch(descriptions, tmp_path, ScriptedModel(Script()), OPTIONS, jobs=1)
    first, second = summary.reports
    assert first.status == "passed"
    assert (second.status, second.failed_gate) == ("dropped", "distinct")
    assert "library-loans" in second.gates["distinct"].detail
    assert summary.to_json()["failed_gate"] == {"distinct": 1}


async def test_descriptions_expand_from_seeds_without_near_duplicates() -> None:
    seeds = ["A lending library where members borrow and return books.", "A dental clinic booking appointments."]
    model = ScriptedModel(
        Script(
            descriptions=[
                [
                    "A lending library where members borrow and return books and magazines.",
                    "A parking garage selling hourly tickets and monthly passes.",
                    "A bike-sharing service where riders unlock bikes and end trips at docks.",
                ]
            ]
        )
    )
    expanded = await expand_descriptions(seeds, 4, model)
    assert expanded == [
        *seeds,
        "A parking garage selling hourly tickets and monthly passes.",
        "A bike-sharing service where riders unlock bikes and end trips at docks.",
    ]


def test_the_command_runs_the_pipeline_through_the_openai_wire(fake: FakeProvider, tmp_path: Path, capsys: Any) -> None:
    model = ScriptedModel(Script(designs=[DESIGN_WITHOUT_OUTPUT, DESIGN]))
    fake.responder = responder(model)
    descriptions = tmp_path / "descriptions.txt"
    descriptions.write_text(f"# one a line\n{LIBRARY}\n")
    out = tmp_path / "out"
    flags = ["--backend", "openai", "--base-url", fake.openai_url, "--model", "fake-model", "--provider-retries", "0"]
    code = main(["generate", "--from", str(descriptions), "-o", str(out), "--agreement-sample", "0", *flags])
    captured = capsys.readouterr()
    assert code == 0, captured
    assert "1 of 1 environments passed every gate" in captured.out
    assert "passed  library-loans: 4 tools, 2 tasks, 1 repairs" in captured.err
    assert "1/1 done, 1 passed, 0 dropped" in captured.err
    assert (out / "envs" / "library-loans.yaml").is_file()
    assert (out / "envs" / "library-loans.rules.star").is_file()
    assert model.asked[:2] == ["environment", "environment"]


def test_the_command_needs_a_model_and_descriptions(tmp_path: Path, capsys: Any) -> None:
    assert main(["generate", LIBRARY, "-o", str(tmp_path)]) == 2
    assert "generate needs a model" in capsys.readouterr().err
    assert main(["generate", "-o", str(tmp_path), "--backend", "openai", "--model", "m"]) == 2
    assert "no descriptions" in capsys.readouterr().err


@pytest.mark.parametrize("flag", ["--tools", "--records"])
def test_bad_ranges_are_refused(tmp_path: Path, capsys: Any, flag: str) -> None:
    assert main(["generate", LIBRARY, "-o", str(tmp_path), flag, "5-2"]) == 2
    assert f"{flag}: expected 1 <= MIN <= MAX" in capsys.readouterr().err
