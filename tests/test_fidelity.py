"""The fidelity benchmark: the bundled scenarios score 100% offline, an inconsistent provider scores lower."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sim_mcp.cli import main
from sim_mcp.config import Settings
from sim_mcp.episodes.fidelity import BenchmarkReport, RulesMode, Scenario, load_scenarios, render_report, run_benchmark
from sim_mcp.episodes.self_consistency import SelfConsistency
from sim_mcp.errors import ConfigError
from sim_mcp.runtime import Runtime
from sim_mcp.testing import FakeProvider, Reply, reply_outcome
from tests.scripted_tickets import created_ticket
from tests.servers import BUNDLED_SPECS, REPO

SCENARIOS = REPO / "benchmarks" / "fidelity"
BUNDLED = sorted(SCENARIOS.glob("*.yaml"))


def offline(**settings: Any) -> Settings:
    return Settings(specs=[BUNDLED_SPECS], **settings)


def scripted(fake: FakeProvider, *, max_attempts: int) -> Settings:
    """The scripted provider answers every call, even those of tools with a rules program."""
    return Settings(
        specs=[BUNDLED_SPECS],
        backend="openai",
        model="fake-model",
        base_url=fake.openai_url,
        max_attempts=max_attempts,
        provider_retries=0,
        run_rules=False,
    )


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_every_bundled_environment_has_a_scenario() -> None:
    scenarios, errors = load_scenarios(SCENARIOS)
    assert errors == []
    assert {scenario.env for scenario in scenarios} == {"tickets", "calendar", "shop", "bank"}


@pytest.mark.parametrize("path", BUNDLED, ids=[path.stem for path in BUNDLED])
async def test_bundled_scenarios_score_100_percent_offline(path: Path) -> None:
    scenarios, errors = load_scenarios(path)
    assert errors == []
    report = await bench(offline(), scenarios)
    (scenario,) = report.scenarios
    failures = [f"step {r.step + 1} {r.call}: {r.name}: {r.detail}" for r in scenario.results if not r.passed]
    assert failures == []
    assert scenario.score == 1.0
    assert scenario.total >= 30
    assert report.rules is False  # no model; but the rules programs answer every bundled tool, so
    assert scenario.skipped_rules == 0  # the rules count, and are met
    assert scenario.failed_calls == 0
    assert scenario.mean_latency_ms is not None


@pytest.mark.parametrize("path", BUNDLED, ids=[path.stem for path in BUNDLED])
async def test_the_generic_engine_meets_what_consistency_implies(path: Path) -> None:
    """Without the rules programs, the offline engine skips the rules and meets every other expectation."""
    scenarios, _ = load_scenarios(path)
    report = await bench(offline(run_rules=False), scenarios)
    (scenario,) = report.scenarios
    assert [r.detail for r in scenario.results if not r.passed] == []
    assert scenario.skipped_rules > 0


async def test_rules_count_when_asked_and_the_offline_backend_misses_them() -> None:
    scenarios, _ = load_scenarios(SCENARIOS / "bank.yaml")
    report = await bench(offline(run_rules=False), scenarios, rules="always")
    missed = [result for result in report.scenarios[0].results if not result.passed]
    assert report.rules is True
    assert 0 < report.score < 1
    assert missed
    assert all(result.rule for result in missed)


def test_cli_prints_the_table_and_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_file = tmp_path / "report.json"
    code = main(["bench-fidelity", str(SCENARIOS), "--specs", str(BUNDLED_SPECS), "--json", str(out_file)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "fidelity of backend offline; rules: counted where a rules program answers" in printed
    assert "tickets-lifecycle" in printed
    assert "bank-transfers" in printed
    overall = next(line for line in printed.splitlines() if line.startswith("overall"))
    assert "100.0%" in overall
    report = json.loads(out_file.read_text())
    assert report["score"] == 1.0
    assert report["backend"] == "offline"
    assert len(report["scenarios"]) == len(BUNDLED)
    assert report["scenarios"][0]["failures"] == []


TEMPLATED = """\
name: templated
env: tickets
steps:
  - id: first
    call: create_ticket
    args: {title: First, description: One., customer_email: a@b.example}
    expect:
      result: {id: T-1006}
      state: [{path: "/tickets/{{steps.first.result.id}}/title", equals: First}]
  - id: follow
    call: create_ticket
    args: {title: "Follow-up to {{steps.first.result.id}}", description: Two., customer_email: a@b.example}
    expect: {result: {title: Follow-up to T-1006}}
  - id: listed
    call: list_tickets
    args: {customer_email: a@b.example}
    expect: {result: {count: 2}}
  - call: list_tickets
    args: {customer_email: a@b.example, limit: "{{steps.listed.result.count}}"}
    expect:
      checks: [{path: /tickets, count: 2}]
  - call: get_ticket
    args: {ticket_id: "{{steps.follow.result.missing}}"}
    expect: {found: true, result: {id: T-1007}}
  - call: get_ticket
    args: {ticket_id: T-1006}
    expect: {result: {title: "{{steps.follow.result.title}}"}}
"""


async def test_templates_fill_args_and_expectations(tmp_path: Path) -> None:
    scenarios, errors = load_scenarios(write(tmp_path / "templated.yaml", TEMPLATED))
    assert errors == []
    report = await bench(offline(), scenarios)
    results = report.scenarios[0].results
    by_step: dict[int, list[Any]] = {}
    for result in results:
        by_step.setdefault(result.step, []).append(result)
    assert all(result.passed for step in (0, 1, 2, 3) for result in by_step[step])  # typed: limit is an integer
    # An unresolved template: the step is not called, and each of its expectations fails, saying why.
    assert [r.passed for r in by_step[4]] == [False, False]
    assert "not called: {{steps.follow.result.missing}}: steps.follow.result has no 'missing'" in by_step[4][0].detail
    assert by_step[5][0].passed is False  # found "First", expected "Follow-up to T-1006"
    assert report.score == pytest.approx(5 / 8)
    assert "templated step 5 get_ticket: step: not called" in render_report(report)


BAD_SCENARIOS = {
    "no-steps.yaml": ("env: tickets\nsteps: []\n", "no-steps.yaml: steps: List should have at least 1 item"),
    "no-call.yaml": ("env: tickets\nsteps: [{args: {}}]\n", "no-call.yaml: steps[0].call: is required"),
    "forward.yaml": (
        "env: tickets\nsteps:\n  - {call: get_ticket, args: {ticket_id: '{{steps.later.result.id}}'}}\n"
        "  - {id: later, call: create_ticket}\n",
        "forward.yaml: steps[0].args: 'later' is not the id of an earlier step",
    ),
    "contradiction.yaml": (
        "env: tickets\nsteps: [{call: get_ticket, expect: {is_error: true, found: true}}]\n",
        "contradiction.yaml: steps[0].expect: is_error and found contradict each other",
    ),
    "bad-check.yaml": (
        "env: tickets\nsteps: [{call: get_ticket, expect: {checks: [{path: id, equals: 1}]}}]\n",
        "bad-check.yaml: steps[0].expect.checks[0].path: expected a JSON Pointer",
    ),
    "typo.yaml": (
        "env: tickets\nsteps: [{call: get_ticket, expcet: {}}]\n",
        "typo.yaml: steps[0].expcet: unknown field",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_SCENARIOS))
def test_bad_scenario_files_name_the_field(tmp_path: Path, name: str) -> None:
    text, message = BAD_SCENARIOS[name]
    scenarios, errors = load_scenarios(write(tmp_path / name, text))
    assert scenarios == []
    assert len(errors) == 1
    assert f"{tmp_path}/{message}" in str(errors[0]), str(errors[0])


async def test_unknown_tools_and_environments_stop_the_run(tmp_path: Path) -> None:
    write(tmp_path / "a.yaml", "env: tickets\nsteps: [{call: fly_to_moon}]\n")
    write(tmp_path / "b.yaml", "env: nowhere\nsteps: [{call: get_ticket}]\n")
    scenarios, _ = load_scenarios(tmp_path)
    with pytest.raises(ConfigError) as raised:
        await bench(offline(), scenarios)
    assert "a.yaml: steps[0].call: unknown tool 'fly_to_moon' in environment 'tickets': expected one of" in str(
        raised.value
    )
    assert "b.yaml: unknown environment 'nowhere': expected one of bank, calendar, shop, tickets" in str(raised.value)


# --- an inconsistent provider ----------------------------------------------------------------------


async def test_an_inconsistent_provider_scores_lower_without_crashing(fake: FakeProvider) -> None:
    fake.script(
        created_ticket(),
        # The ticket just created is not found: the inconsistency the benchmark is there to catch.
        reply_outcome("ticket T-1006 not found", is_error=True),
    )
    # Every later request finds no scripted reply: the provider fails, the calls end as error results.
    settings = scripted(fake, max_attempts=1)
    scenarios, _ = load_scenarios(SCENARIOS / "tickets.yaml")
    report = await bench(settings, scenarios)
    (scenario,) = report.scenarios
    assert report.rules is True  # a backend with a model: the instructions' rules count
    results = scenario.results
    assert all(result.passed for result in results if result.step == 0)  # the create was right
    get = [result for result in results if result.step == 1]
    assert get[0].name == "found"
    assert not get[0].passed
    assert 'expected a success, got an error: "ticket T-1006 not found"' in get[0].detail
    assert 0 < report.score < 0.5
    # Every call after those two failed, but get_comment (with no comment id to fill in, it was not called)
    # and the two that name a ticket and a comment the state lacks (T-4242, CMT-9999): the engine answers
    # those as not found itself, without asking the model.
    assert scenario.failed_calls == len(scenarios[0].steps) - 5
    assert any(result.detail.startswith("not called: {{steps.comment.result.id}}") for result in results)
    assert scenario.tokens.input == 200  # the two replies the provider gave
    assert "not met" in render_report(report)


async def bench(settings: Settings, scenarios: list[Scenario], *, rules: RulesMode = "auto") -> BenchmarkReport:
    async with Runtime(settings) as runtime:
        return await run_benchmark(runtime.sessions, scenarios, rules=rules)


async def test_each_call_keeps_its_rejected_answers_why_and_the_error_it_ended_with(fake: FakeProvider) -> None:
    fake.script(
        reply_outcome("", is_error=True),  # an error with no message: rejected, asked again
        created_ticket(),
        reply_outcome("ticket T-1006 not found", is_error=True),
    )
    settings = scripted(fake, max_attempts=2)
    scenarios, _ = load_scenarios(SCENARIOS / "tickets.yaml")
    report = await bench(settings, scenarios)
    first, second = report.scenarios[0].calls[:2]
    assert (first.result_match, first.error) == (True, None)
    (reason,) = first.rejected
    assert "message" in reason
    assert (second.result_match, second.rejected, second.error) == (False, (), "ticket T-1006 not found")
    (answer,) = first.rejected_answers
    assert json.loads(answer) == {"result": "", "is_error": True, "state_patch": []}
    assert report.to_json()["scenarios"][0]["calls"][0]["rejected"] == [reason]
    assert report.to_json()["scenarios"][0]["calls"][0]["rejected_answers"] == [answer]


async def test_a_report_counts_the_calls_auto_mode_answered_by_falling_back_to_a_patch(fake: FakeProvider) -> None:
    broken = Reply(tool_input={"program": "def create_ticket(state, args)\n    return {}\n"})
    fake.script(broken, created_ticket(), reply_outcome("ticket T-1006 not found", is_error=True))
    settings = scripted(fake, max_attempts=2).model_copy(update={"llm_output": "auto"})
    scenarios, _ = load_scenarios(SCENARIOS / "tickets.yaml")
    report = await bench(settings, scenarios)
    first, second = report.scenarios[0].calls[:2]
    # create_ticket: its one program did not parse, the patch was its answer; get_ticket reads: a patch.
    assert (first.result_match, first.fallback, len(first.rejected)) == (True, True, 1)
    assert (second.call, second.fallback) == ("get_ticket", False)
    scenario = report.to_json()["scenarios"][0]
    assert scenario["calls"][0]["fallback"] is True
    assert scenario["fallback_calls"] == 1


# --- self-consistency, for runs without a reference ----------------------------------------------------


@pytest.mark.parametrize("path", BUNDLED, ids=[path.stem for path in BUNDLED])
async def test_the_generic_engine_reads_back_what_it_showed(path: Path) -> None:
    scenarios, _ = load_scenarios(path)
    report = await bench(offline(run_rules=False), scenarios)
    reads, agreeing = report.reads
    assert reads > 0
    assert agreeing == reads, [text for item in report.scenarios for text in item.consistency.disagreements]
    assert report.to_json()["self_consistency"] == {"reads": reads, "agreeing": agreeing, "score": 1.0}
    assert f"{agreeing} of {reads} reads agree" in render_report(report)


def test_a_read_contradicting_an_unstored_showing_is_counted() -> None:
    """An update shown but not stored (the state did not change), then a read of the stored value."""
    state = {"notes": {"n1": {"id": "n1", "text": "milk"}}}
    measure = SelfConsistency()
    measure.observe(0, "get_note", {"id": "n1", "text": "milk"}, False, state, state)
    measure.observe(1, "update_note", {"id": "n1", "text": "eggs"}, False, state, state)
    measure.observe(2, "get_note", {"id": "n1", "text": "milk"}, False, state, state)
    assert (measure.reads, measure.agreeing) == (2, 0)
    assert "text='milk' (showed 'eggs')" in measure.disagreements[-1]
    changed = {"notes": {"n1": {"id": "n1", "text": "eggs"}}}
    measure.observe(3, "update_note", {"id": "n1", "text": "eggs"}, False, state, changed)
    measure.observe(4, "get_note", {"id": "n1", "text": "eggs"}, False, changed, changed)
    assert (measure.reads, measure.agreeing) == (3, 1)  # a stored change starts afresh; the read after agrees
