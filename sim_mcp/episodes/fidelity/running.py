"""Running scenarios: each step called through the simulator (and a reference run first), then scored."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import ValidationError

from sim_mcp.engine.sessions import SessionService
from sim_mcp.engine.simulator import CallResult
from sim_mcp.episodes.checks import json_matches, run_check
from sim_mcp.episodes.fidelity.report import (
    BenchmarkReport,
    CallScore,
    ExpectationResult,
    ReferenceStep,
    ScenarioReport,
)
from sim_mcp.episodes.fidelity.scenarios import Expectation, Scenario, Step, check_scenarios
from sim_mcp.episodes.fidelity.templates import Unresolved, as_text, render
from sim_mcp.errors import ConfigError
from sim_mcp.state.compare import changed_fields, first_difference
from sim_mcp.state.session import TokenUsage
from sim_mcp.text import shown

RulesMode = Literal["auto", "always", "never"]
_REASON_CHARS = 600


async def run_benchmark(
    sessions: SessionService,
    scenarios: Sequence[Scenario],
    *,
    rules: RulesMode = "auto",
    reference: SessionService | None = None,
) -> BenchmarkReport:
    """Run every scenario, each in a fresh session, through the simulator (and its backend) behind `sessions`;
    with `reference` (a simulator answering by rules programs), each call from the reference's state."""
    simulator = sessions.simulator
    errors = check_scenarios(scenarios, simulator.catalog)
    if errors:
        raise ConfigError("invalid scenarios:\n" + "\n".join(f"  {error}" for error in errors))
    backend = simulator.backend
    with_rules = rules == "always" or (rules == "auto" and backend.can_complete())
    report = BenchmarkReport(backend.name, backend.model, with_rules, rules == "auto")
    for scenario in scenarios:
        session_id = f"fidelity-{scenario.name}-{secrets.token_hex(4)}"[:128]
        expected = await reference_run(reference, scenario, session_id) if reference is not None else None
        report.scenarios.append(
            await run_scenario(
                sessions,
                scenario,
                rules=with_rules,
                rules_by_programs=rules == "auto",
                reference=expected,
                session_id=session_id,
            )
        )
    return report


async def reference_run(reference: SessionService, scenario: Scenario, session_id: str) -> list[ReferenceStep] | None:
    """The scenario run through the reference, step by step (None: some tool of it has no program there,
    or a step could not be called)."""
    simulator = reference.simulator
    tools = [simulator.catalog.tool(step.call, scenario.env) for step in scenario.steps]
    if check_scenarios([scenario], simulator.catalog) or any(
        tool is None or simulator.program_of(tool) is None for tool in tools
    ):
        return None
    await reference.create(env=scenario.env, state=scenario.state, session_id=session_id)
    steps: list[ReferenceStep] = []
    outcomes: dict[str, dict[str, Any]] = {}
    try:
        for step in scenario.steps:
            try:
                arguments = render(step.args, outcomes)
            except Unresolved:
                return None
            before = reference.state_of(await reference.get(session_id))
            called = await simulator.call(session_id, step.call, arguments, scope=scenario.env)
            after = reference.state_of(await reference.get(session_id))
            steps.append(ReferenceStep(arguments, called.result, called.is_error, before, after))
            if step.id is not None:
                outcomes[step.id] = {"result": called.result, "is_error": called.is_error, "args": arguments}
    finally:
        await reference.delete(session_id)
    return steps


async def run_scenario(
    sessions: SessionService,
    scenario: Scenario,
    *,
    rules: bool,
    rules_by_programs: bool = False,
    reference: list[ReferenceStep] | None = None,
    session_id: str | None = None,
) -> ScenarioReport:
    """One scenario in a new session of its environment (deleted afterwards). Rules are counted with
    `rules`, and with `rules_by_programs` for the steps whose tool a rules program answers. With
    `reference`, each call starts from the reference's state, with its arguments (see the module's doc)."""
    report = ScenarioReport(scenario.name, scenario.env, scenario.source, steps=len(scenario.steps))
    report.referenced = reference is not None
    session_id = session_id or f"fidelity-{scenario.name}-{secrets.token_hex(4)}"[:128]
    await sessions.create(env=scenario.env, state=scenario.state, session_id=session_id)
    outcomes: dict[str, dict[str, Any]] = {}
    try:
        for index, step in enumerate(scenario.steps):
            expectations = _expectations(sessions, scenario, step, report, rules=rules, by_programs=rules_by_programs)
            expected = reference[index] if reference is not None else None
            try:
                arguments = expected.arguments if expected is not None else render(step.args, outcomes)
            except Unresolved as e:
                for expectation, rule in expectations:
                    report.results += _not_run(index, step.call, expectation, rule, f"not called: {e}")
                continue
            if expected is not None:
                await _force_state(sessions, session_id, scenario.env, expected.before)
            before = sessions.state_of(await sessions.get(session_id))
            called = await sessions.simulator.call(session_id, step.call, arguments, scope=scenario.env)
            if called.kind not in ("ok", "error"):
                report.failed_calls += 1
            outcome = {"result": called.result, "is_error": called.is_error, "args": arguments}
            if step.id is not None:
                # Later steps are rendered from the reference's outcomes when it leads (its state is theirs).
                outcomes[step.id] = outcome if expected is None else _as_outcome(expected)
            state = sessions.state_of(await sessions.get(session_id))
            if expected is None:  # with a reference each call starts from its state: no session to be true to
                report.consistency.observe(index, step.call, called.result, called.is_error, before, state)
            judged = [
                result
                for expectation, rule in expectations
                for result in _judge_step(index, step.call, expectation, rule, outcome, state, outcomes)
            ]
            report.results += judged
            report.calls.append(_score(index, step.call, judged, called, state, expected))
    finally:
        await sessions.delete(session_id)
    return report


def _expectations(
    sessions: SessionService, scenario: Scenario, step: Step, report: ScenarioReport, *, rules: bool, by_programs: bool
) -> list[tuple[Expectation, bool]]:
    """The step's expectations to count: `expect`, and `rules` when counted (see the module's doc)."""
    expectations = [(step.expect, False)]
    if step.rules is not None:
        tool = sessions.simulator.catalog.tool(step.call, scenario.env)
        answered_by_program = tool is not None and sessions.simulator.program_of(tool) is not None
        if rules or (by_programs and answered_by_program):
            expectations.append((step.rules, True))
        else:
            report.skipped_rules += step.rules.count()
    return expectations


def _score(
    index: int,
    call: str,
    judged: list[ExpectationResult],
    called: CallResult,
    state: Any,
    expected: ReferenceStep | None,
) -> CallScore:
    """One call's result and state match: the step's expectations on the result (with none, the reference's
    success or failure), and the state after it against the reference's."""
    on_result = [result for result in judged if not result.name.startswith("state ")]
    on_state = [result for result in judged if result.name.startswith("state ")]
    if on_result:
        result_match = all(result.passed for result in on_result)
    else:
        result_match = expected is None or expected.is_error == called.is_error
    difference: str | None = None
    if expected is not None:
        difference = first_difference(expected.after, state)
        state_match: bool | None = difference is None
        fields: int | None = changed_fields(expected.before, expected.after)
    else:
        state_match = all(result.passed for result in on_state) if on_state else None
        fields = None
    event = called.event
    return CallScore(
        index,
        call,
        result_match,
        state_match,
        fields,
        event.tokens if event is not None else TokenUsage(),
        event.latency_ms if event is not None else 0.0,
        difference,
        rejected=tuple(reason[:_REASON_CHARS] for reason in (event.rejected if event is not None else [])),
        error=as_text(called.result)[:_REASON_CHARS] if called.is_error else None,
        rejected_answers=tuple(event.rejected_answers) if event is not None else (),
        fallback=event is not None and event.fallback,
    )


def _as_outcome(expected: ReferenceStep) -> dict[str, Any]:
    return {"result": expected.result, "is_error": expected.is_error, "args": expected.arguments}


async def _force_state(sessions: SessionService, session_id: str, env: str, state: Any) -> None:
    """Set the session's world to `state` (its events kept), so that the next call starts from it."""
    async with sessions.lock(session_id):
        await sessions.set_world(session_id, env, state)


def _judge_step(
    index: int,
    call: str,
    expectation: Expectation,
    rule: bool,
    outcome: dict[str, Any],
    state: Any,
    outcomes: dict[str, dict[str, Any]],
) -> list[ExpectationResult]:
    def result(name: str, passed: bool, detail: str) -> ExpectationResult:
        return ExpectationResult(index, call, name, passed, detail, rule)

    try:
        rendered = Expectation.model_validate(render(expectation.model_dump(mode="json", exclude_unset=True), outcomes))
    except Unresolved as e:
        return _not_run(index, call, expectation, rule, f"cannot check: {e}")
    except ValidationError as e:
        return _not_run(index, call, expectation, rule, f"the expectation became invalid once filled in: {e}")
    results: list[ExpectationResult] = []
    actual, is_error = outcome["result"], outcome["is_error"]
    want_error = rendered.is_error if rendered.is_error is not None else _negate(rendered.found)
    if want_error is not None:
        name = "is_error" if rendered.is_error is not None else "found"
        wanted = "an error" if want_error else "a success"
        got = f"an error: {shown(actual, 80)}" if is_error else "a success"
        results.append(result(name, is_error == want_error, f"expected {wanted}, got {got}"))
    if "result" in rendered.model_fields_set:
        expected = rendered.result
        if isinstance(expected, dict):
            for key, value in expected.items():
                if not isinstance(actual, dict) or key not in actual:
                    results.append(result(f"result.{key}", False, f"no {key!r} in the result {shown(actual, 80)}"))
                    continue
                passed = json_matches(actual[key], value)
                results.append(
                    result(f"result.{key}", passed, f"found {shown(actual[key], 80)}, expected {shown(value, 80)}")
                )
        else:
            passed = json_matches(actual, expected)
            results.append(result("result", passed, f"found {shown(actual, 80)}, expected {shown(expected, 80)}"))
    for check in rendered.checks:
        checked = run_check(check, actual)
        results.append(result(f"result {checked.name}", checked.passed, checked.detail))
    for check in rendered.state:
        checked = run_check(check, state)
        results.append(result(f"state {checked.name}", checked.passed, checked.detail))
    return results


def _not_run(index: int, call: str, expectation: Expectation, rule: bool, why: str) -> list[ExpectationResult]:
    return [ExpectationResult(index, call, "step", False, why, rule) for _ in range(expectation.count())]


def _negate(value: bool | None) -> bool | None:
    return None if value is None else not value
