"""`sim-mcp rules init`: a spec's rules program scaffolded from the spec alone. The functions it writes do
what the offline engine does (the same results and the same states, call for call), the stubs answer an
honest "not written yet", and the spec's examples run against it at once."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from sim_mcp.authoring.programs.scaffold import scaffold
from sim_mcp.cli import main
from sim_mcp.config import Settings
from sim_mcp.engine.schema_data import generate
from sim_mcp.rules import compile_program
from sim_mcp.runtime import Runtime
from sim_mcp.specs.registry import load_catalog
from tests.servers import BUNDLED_SPECS, REPO
from tests.test_offline import SCENARIOS

GREENHOUSE = REPO / "tests" / "unseen" / "greenhouse.yaml"
_STAMP = re.compile(r"\d{4}-\d{2}-\d{2}T[\d:]+(\.\d+)?(Z|[+-]\d\d:\d\d)")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_init_writes_the_program_beside_the_spec_and_reports_each_tool(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "greenhouse.yaml"
    shutil.copy(GREENHOUSE, spec)
    code, out, _ = run(capsys, "rules", "init", str(spec))
    assert code == 0
    program = tmp_path / "greenhouse.rules.star"
    assert out.splitlines() == [
        f"wrote {program}: 6 functions",
        "stub     water_bed: not written yet",
        "stub     sow_seeds: not written yet",
        "stub     harvest: not written yet",
        "stub     vent_roof: not written yet",
        "stub     bed_report: not written yet",
        'written  beds_overview: lists the records of state["beds"] that match the arguments; no examples',
        f"1 written from the offline engine (0 failing an example), 5 to write; `sim-mcp check {spec}` runs the "
        "examples again",
    ]
    text = program.read_text()
    stub = text[text.index("def sow_seeds(") : text.index("def harvest(")]
    # The stub quotes what its author needs: the tool, its arguments, the state, the rules.
    assert "#   Sow a crop in an empty bed; the bed becomes planted." in stub
    assert '#   args["bed_id"]: string (required)' in stub
    assert '#   state["beds"] (a mapping by id): records with id, crop, moisture, state' in stub
    assert '#   state["store"] = {"basil": 0, "tomato": 3}' in stub
    assert "#   A bed holds one crop at a time. Sowing needs an empty bed;" in stub
    # Never written over by accident.
    program.write_text(text + "\n# my edits\n")
    code, _, err = run(capsys, "rules", "init", str(spec))
    assert code == 2
    assert f"{program} exists: edit it, or give --force" in err
    assert program.read_text().endswith("# my edits\n")
    assert run(capsys, "rules", "init", str(spec), "--force")[0] == 0
    assert program.read_text() == text


def test_check_says_which_functions_are_still_stubs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(GREENHOUSE, tmp_path)
    assert run(capsys, "rules", "init", str(tmp_path / "greenhouse.yaml"))[0] == 0
    code, out, _ = run(capsys, "check", str(tmp_path))
    assert code == 0
    program = tmp_path / "greenhouse.rules.star"
    assert f"note  {program}: sow_seeds (line" in out
    assert "): not written yet (a stub of rules init)" in out
    assert f"ok    {program}: beds_overview (line" in out
    assert "cannot act on" not in out  # the program answers every tool, if only to say it is not written


async def test_stubs_answer_not_written_yet_and_written_functions_answer(tmp_path: Path) -> None:
    shutil.copy(GREENHOUSE, tmp_path)
    assert main(["rules", "init", str(tmp_path / "greenhouse.yaml")]) == 0
    async with Runtime(Settings(specs=[tmp_path])) as runtime:
        stub = await runtime.simulator.call("s", "sow_seeds", {"bed_id": "BED-1", "crop": "tomato"})
        listed = await runtime.simulator.call("s", "beds_overview", {})
    assert stub.is_error
    assert stub.result.startswith("sow_seeds: not written yet: its function in greenhouse.rules.star is a stub")
    assert stub.event is not None
    assert (stub.event.backend, stub.event.state_patch) == ("rules", [])
    assert listed.event is not None
    assert listed.event.backend == "rules"
    assert [bed["id"] for bed in listed.result["beds"]] == ["BED-1", "BED-2"]


def test_examples_run_at_once_pass_fail_or_wait(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(BUNDLED_SPECS / "tickets.yaml", tmp_path)
    document = yaml.safe_load((tmp_path / "tickets.yaml").read_text())
    document["tools"].append(
        {
            "name": "escalate",
            "description": "Escalate a ticket to the on-call engineer.",
            "input_schema": {"type": "object", "properties": {"ticket_id": {"type": "string"}}},
            "examples": [{"arguments": {"ticket_id": "T-1001"}, "result": {"escalated": True}}],
        }
    )
    (tmp_path / "tickets.yaml").write_text(yaml.safe_dump(document))
    code, out, _ = run(capsys, "rules", "init", str(tmp_path / "tickets.yaml"))
    assert code == 0
    assert 'written  create_ticket: adds a record to state["tickets"], with the next id; 1 of 1 examples pass' in out
    assert 'written  get_ticket: reads one record of state["tickets"]; no examples' in out
    # What the offline engine does not know (a closed ticket cannot be changed) fails the spec's own example.
    assert 'written  update_ticket: stores the arguments in a record of state["tickets"]; 1 of 2 examples pass' in out
    assert "         example 2 (Updating a closed ticket fails.): expected the error" in out
    assert "stub     escalate: not written yet (1 example waits for it)" in out


def test_a_spec_with_inline_rules_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "notes.yaml"
    spec.write_text(
        "name: notes\nrules: |\n  def get_note(state, args):\n    return {}\ninitial_state: {notes: {}}\ntools:\n"
        "  - name: get_note\n    input_schema: {type: object}\n"
    )
    code, _, err = run(capsys, "rules", "init", str(spec))
    assert code == 2
    assert "its rules are inline (the rules: key); move them to notes.rules.star first" in err
    assert not (tmp_path / "notes.rules.star").exists()


@pytest.mark.parametrize("folder", [BUNDLED_SPECS, REPO / "tests" / "tracker", REPO / "tests" / "unseen"])
def test_every_scaffold_compiles(folder: Path) -> None:
    catalog = load_catalog(folder)
    assert catalog.environments
    for environment in catalog.environments.values():
        text, functions = scaffold(environment, Path(environment.source))
        program = compile_program(text, "scaffold", [tool.name for tool in environment.tools])
        assert sorted(program.functions) == sorted(tool.name for tool in environment.tools)
        assert len(functions) == len(environment.tools)


def _normal(value: Any) -> Any:
    """Timestamps by form only (the engine and a program each stamp their own), an error as its message."""
    if isinstance(value, dict) and set(value) == {"error", "message"}:
        value = str(value["message"]).replace("'", "")
    return json.loads(_STAMP.sub("<time>", json.dumps(value, sort_keys=True)))


async def _answers(specs: Path, *, run_rules: bool) -> list[Any]:
    """The scenarios of tests/test_offline.py and one call of every tool with drawn arguments, each answer
    and each session's world after them."""
    answers: list[Any] = []
    async with Runtime(Settings(specs=[specs], run_rules=run_rules)) as runtime:
        for env, create, arguments, get, id_name, update, changes, end, end_arguments, _ in SCENARIOS:
            session = f"{env}-{create}"
            made = await runtime.simulator.call(session, create, arguments, scope=env)
            answers.append((create, made.is_error, _normal(made.result)))
            made_id = made.result.get("id")
            steps: tuple[tuple[str | None, dict[str, Any]], ...] = (
                (get, {}),
                (update, changes),
                (end, end_arguments),
                (get, {}),
            )
            for step, more in steps:
                if step is not None:
                    answer = await runtime.simulator.call(session, step, {id_name: made_id, **more}, scope=env)
                    answers.append((step, answer.is_error, _normal(answer.result)))
            record = await runtime.store.get(session)
            answers.append(_normal(record.worlds if record is not None else None))
        for env in sorted(runtime.catalog.environments):
            for tool in runtime.catalog.tools_of(env):
                drawn = generate(tool.spec.input_schema, tool.name)
                answer = await runtime.simulator.call(f"drawn-{env}", tool.name, drawn, scope=env)
                answers.append((tool.name, drawn, answer.is_error, _normal(answer.result)))
            record = await runtime.store.get(f"drawn-{env}")
            answers.append(_normal(record.worlds if record is not None else None))
    return answers


async def test_the_written_functions_do_what_the_offline_engine_does(tmp_path: Path) -> None:
    """On the bundled specs (their own programs and examples left out), the scaffold answers every call as the
    offline engine does, and leaves the same worlds."""
    for source in BUNDLED_SPECS.glob("*.yaml"):
        document = yaml.safe_load(source.read_text())
        for tool in document["tools"]:
            tool.pop("examples", None)
        (tmp_path / source.name).write_text(yaml.safe_dump(document))
    engine = await _answers(tmp_path, run_rules=False)
    for source in BUNDLED_SPECS.glob("*.yaml"):
        assert main(["rules", "init", str(tmp_path / source.name)]) == 0
    programs = await _answers(tmp_path, run_rules=True)
    assert len(programs) == len(engine) > 60
    assert [a for a, b in zip(engine, programs, strict=True) if a != b] == []
