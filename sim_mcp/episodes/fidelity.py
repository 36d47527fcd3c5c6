"""The fidelity benchmark: scripted call sequences whose later results must agree with earlier ones.

A scenario file (YAML or JSON) names an environment and a list of steps; each step calls a tool and
states what the outcome must be::

    name: tickets-lifecycle
    env: tickets
    state: {...}                        # optional: a merge patch over initial_state
    steps:
      - id: create                      # optional: lets later steps use this step's outcome
        call: create_ticket
        args: {title: VPN drops, description: Every hour., customer_email: ops@acme.example}
        expect:
          is_error: false               # or `found: true` (found: false is is_error: true)
          result: {status: open}        # the result holds these keys with these values (a subset)
          checks:                       # checks on the result (see tasks): JSON Pointer or JSONPath
            - {path: /id, equals: T-1006}
          state:                        # checks on the environment's state after the call
            - {path: "/tickets/{{steps.create.result.id}}/title", equals: VPN drops}
        rules:                          # expectations that follow from the environment's instructions
          result: {assignee: null}      # (counted only for backends with a model: see below)
      - call: get_ticket
        args: {ticket_id: "{{steps.create.result.id}}"}
        expect: {found: true, result: {id: "{{steps.create.result.id}}", title: VPN drops}}

Templates: `{{steps.ID.result.PATH}}`, `{{steps.ID.is_error}}` and `{{steps.ID.args.PATH}}` (PATH:
keys and list indexes joined by dots, e.g. `result.tickets.0.id`) in args and expectations. A string
that is only a template takes the value's JSON type; inside a longer string the value is written as text.

Scoring: each expectation counts one (each key of an expected `result`, each check); a scenario's score
is the share met. `expect` holds what state consistency alone implies (created records are found,
updates are visible, cancelled ones stay cancelled, ids increase, unknown ids are not found); `rules`
holds what only a simulator that reads the environment's instructions gets right (balances, stock,
permissions). Rules are counted for backends with a model, and for steps whose tool a rules program
answers (it carries the instructions out as code); they are skipped for the generic offline engine
(which does not read instructions), unless `--rules always` or `never` says otherwise.

State, per call (EnvSimBench's measure): given a reference (the same scenarios run first through the
hand-written rules programs, `bench-fidelity --reference`), each call starts from the reference's state
before it, with the reference's arguments, so that one miss counts once; its result matches when every
expectation of the step on the result is met, and its state matches when the state after it equals the
reference's (date-times compared by form: a simulator writes its own "now"). Calls are also grouped by
how many fields the reference's call changed (0, 1, 2, 3-4, 5+), with a line of their own for the calls
that change state. A scenario whose tools do not all have a reference program is run without one.
"""

from __future__ import annotations

import json
import re
import secrets
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from dataclasses import fields as dataclass_fields
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from sim_mcp.engine.sessions import SessionService
from sim_mcp.engine.simulator import CallResult
from sim_mcp.episodes.checks import json_matches, run_check
from sim_mcp.episodes.self_consistency import SelfConsistency
from sim_mcp.episodes.tasks import Check
from sim_mcp.errors import ConfigError, SpecError
from sim_mcp.specs.formats import parse_document, visible_files
from sim_mcp.specs.formats.checks import pydantic_reason
from sim_mcp.specs.registry import Catalog, files_under
from sim_mcp.specs.schema import json_path, type_name
from sim_mcp.state.compare import changed_fields, first_difference
from sim_mcp.state.session import TokenUsage
from sim_mcp.text import shown

__all__ = [
    "BenchmarkReport",
    "Expectation",
    "Scenario",
    "ScenarioReport",
    "load_scenarios",
    "render_report",
    "run_benchmark",
]

RulesMode = Literal["auto", "always", "never"]
_TEMPLATE = re.compile(r"\{\{\s*steps\.([A-Za-z0-9_\-]+)\.(result|is_error|args)((?:\.[^.{}\s]+)*)\s*\}\}")
_FAILURES_SHOWN = 40
_REASON_CHARS = 600


class Expectation(BaseModel):
    """What a step's outcome must be."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    is_error: bool | None = None
    found: bool | None = Field(default=None, description="found: true is is_error: false; found: false the opposite.")
    result: Any = Field(default=None, description="A subset of the result (objects: the keys given), or its value.")
    checks: list[Check] = Field(default_factory=list, description="Checks on the result.")
    state: list[Check] = Field(default_factory=list, description="Checks on the environment's state after the call.")

    @model_validator(mode="after")
    def _consistent(self) -> Expectation:
        if self.is_error is not None and self.found is not None and self.is_error == self.found:
            raise ValueError("is_error and found contradict each other: give one of them")
        return self

    def count(self) -> int:
        results = len(self.result) if isinstance(self.result, dict) else int("result" in self.model_fields_set)
        flags = int(self.is_error is not None or self.found is not None)
        return flags + results + len(self.checks) + len(self.state)


class Step(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_\-]{1,64}$")
    call: str = Field(min_length=1, description="The tool to call (its plain name in the environment).")
    args: dict[str, Any] = Field(default_factory=dict)
    expect: Expectation = Field(default_factory=Expectation)
    rules: Expectation | None = None


class Scenario(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[A-Za-z0-9_.\-]{1,128}$")
    env: str = Field(min_length=1)
    description: str = ""
    state: dict[str, Any] | None = Field(default=None, description="A merge patch over the initial state.")
    steps: list[Step] = Field(min_length=1)
    source: str = Field(default="", exclude=True)

    @model_validator(mode="after")
    def _references(self) -> Scenario:
        # Arguments may use earlier steps' outcomes; expectations also the step's own.
        seen: set[str] = set()
        for index, step in enumerate(self.steps):
            for template_id in _references(step.args):
                if template_id not in seen:
                    raise ValueError(f"steps[{index}].args: {template_id!r} is not the id of an earlier step")
            if step.id is not None:
                if step.id in seen:
                    raise ValueError(f"steps[{index}].id: {step.id!r} is already the id of an earlier step")
                seen.add(step.id)
            expectations = step.model_dump(mode="json", include={"expect", "rules"})
            for template_id in _references(expectations):
                if template_id not in seen:
                    raise ValueError(f"steps[{index}]: {template_id!r} is not the id of this step or an earlier one")
        return self


# --- loading -----------------------------------------------------------------------------------


def scenario_files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    return visible_files(root)


def load_scenarios(*paths: Path) -> tuple[list[Scenario], list[SpecError]]:
    """The scenarios in `paths` (files or folders), and the errors of those that could not be read."""
    scenarios: list[Scenario] = []
    errors: list[SpecError] = []
    names: dict[str, str] = {}
    for path in files_under(paths, scenario_files, errors):
        try:
            scenario = _read_scenario(path)
        except SpecError as e:
            errors.append(e)
            continue
        if scenario.name in names:
            reason = f"scenario {scenario.name!r} is already defined in {names[scenario.name]}"
            errors.append(SpecError(str(path), reason, "name"))
            continue
        names[scenario.name] = str(path)
        scenarios.append(scenario)
    return scenarios, errors


def _read_scenario(path: Path) -> Scenario:
    source = str(path)
    document = parse_document(path)
    if not isinstance(document, dict):
        raise SpecError(source, f"expected a scenario (a mapping with env and steps), got {type_name(document)}")
    fields = {"name": path.stem, **document, "source": source}
    try:
        return Scenario.model_validate(fields)
    except ValidationError as e:
        first = e.errors()[0]
        reason = pydantic_reason(first) if first["type"] != "value_error" else str(first["msg"])
        raise SpecError(source, reason.removeprefix("Value error, "), json_path(first["loc"])) from e


def check_scenarios(scenarios: Sequence[Scenario], catalog: Catalog) -> list[SpecError]:
    """Each scenario's environment is loaded, and each step calls one of its tools."""
    errors: list[SpecError] = []
    for scenario in scenarios:
        environment = catalog.environment(scenario.env)
        if environment is None:
            known = ", ".join(sorted(catalog.environments)) or "none loaded"
            errors.append(SpecError(scenario.source, f"unknown environment {scenario.env!r}: expected one of {known}"))
            continue
        tools = [tool.name for tool in environment.tools]
        for index, step in enumerate(scenario.steps):
            if step.call not in tools:
                reason = (
                    f"unknown tool {step.call!r} in environment {scenario.env!r}: expected one of {', '.join(tools)}"
                )
                errors.append(SpecError(scenario.source, reason, f"steps[{index}].call"))
    return errors


# --- running -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ExpectationResult:
    step: int
    call: str
    name: str
    passed: bool
    detail: str
    rule: bool = False


@dataclass(frozen=True, slots=True)
class CallScore:
    """One scripted call: did its result match, did the state after it match (None: no reference to
    compare with), how many fields the reference changed, and what it cost."""

    step: int
    call: str
    result_match: bool
    state_match: bool | None
    fields_changed: int | None
    tokens: TokenUsage
    latency_ms: float
    state_difference: str | None = None
    # Why the backend's answers before the committed one were rejected, and the error result the call
    # ended with (both cut to _REASON_CHARS): what a model got wrong, beyond whether it did.
    rejected: tuple[str, ...] = ()
    error: str | None = None
    # Those rejected answers as the model wrote them (the event's `rejected_answers`).
    rejected_answers: tuple[str, ...] = ()
    # `--llm-output auto` fell back to patch mode after program mode gave no valid answer (the event's).
    fallback: bool = False

    def to_json(self) -> dict[str, Any]:
        """Every field, in order, as JSON: a field added later is reported without a line here."""
        values = {item.name: getattr(self, item.name) for item in dataclass_fields(self)}
        as_json = {"tokens": self.tokens.model_dump(), "rejected": list(self.rejected)}
        return {**values, **as_json, "rejected_answers": list(self.rejected_answers)}


@dataclass(frozen=True, slots=True)
class ReferenceStep:
    """What the reference did at one step: the arguments it was called with, its outcome, the states."""

    arguments: dict[str, Any]
    result: Any
    is_error: bool
    before: Any
    after: Any


# Groups by the number of fields a call changes, as EnvSimBench reports them.
FIELD_GROUPS: tuple[tuple[str, int, int], ...] = (
    ("0", 0, 0),
    ("1", 1, 1),
    ("2", 2, 2),
    ("3-4", 3, 4),
    ("5+", 5, 10**9),
)


class _Totals:
    """What a scenario's report and the whole benchmark's compute alike: the share of expectations met, and
    the tokens and mean latency of the calls."""

    __slots__ = ()

    @property
    def total(self) -> int:
        raise NotImplementedError

    @property
    def met(self) -> int:
        raise NotImplementedError

    def _scored(self) -> list[CallScore]:
        raise NotImplementedError

    @property
    def score(self) -> float:
        return self.met / self.total if self.total else 1.0

    @property
    def tokens(self) -> TokenUsage:
        return sum((call.tokens for call in self._scored()), TokenUsage())

    @property
    def mean_latency_ms(self) -> float | None:
        calls = self._scored()
        return statistics.fmean(call.latency_ms for call in calls) if calls else None


@dataclass(slots=True)
class ScenarioReport(_Totals):
    name: str
    env: str
    source: str
    steps: int = 0
    results: list[ExpectationResult] = field(default_factory=list)
    skipped_rules: int = 0
    failed_calls: int = 0
    calls: list[CallScore] = field(default_factory=list)
    referenced: bool = False
    # Without a reference: do the session's reads agree with what it showed before (episodes/self_consistency.py)?
    consistency: SelfConsistency = field(default_factory=SelfConsistency)

    @property
    def total(self) -> int:
        return len(self.results)

    @property
    def met(self) -> int:
        return sum(result.passed for result in self.results)

    def _scored(self) -> list[CallScore]:
        return self.calls

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "env": self.env,
            "source": self.source,
            "steps": self.steps,
            "expectations": self.total,
            "met": self.met,
            "score": round(self.score, 6),
            "skipped_rules": self.skipped_rules,
            "failed_calls": self.failed_calls,
            "fallback_calls": sum(call.fallback for call in self.calls),
            "tokens": self.tokens.model_dump(),
            "mean_latency_ms": self.mean_latency_ms,
            "referenced": self.referenced,
            "self_consistency": self.consistency.to_json(),
            "calls": [call.to_json() for call in self.calls],
            "failures": [
                {"step": r.step, "call": r.call, "expectation": r.name, "detail": r.detail, "rule": r.rule}
                for r in self.results
                if not r.passed
            ],
        }


@dataclass(slots=True)
class BenchmarkReport(_Totals):
    backend: str
    model: str | None
    rules: bool
    # Rules counted, besides, for the steps whose tool a rules program answers (`--rules auto`).
    rules_by_programs: bool = False
    scenarios: list[ScenarioReport] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(report.total for report in self.scenarios)

    @property
    def met(self) -> int:
        return sum(report.met for report in self.scenarios)

    def _scored(self) -> list[CallScore]:
        return self.calls

    @property
    def calls(self) -> list[CallScore]:
        return [call for report in self.scenarios for call in report.calls]

    def call_groups(self) -> list[tuple[str, list[CallScore]]]:
        """The calls, all of them, then those that change state, then by the number of fields changed."""
        calls = self.calls
        known = [call for call in calls if call.fields_changed is not None]
        groups = [("all calls", calls), ("state-changing calls", [c for c in known if c.fields_changed])]
        for label, low, high in FIELD_GROUPS:
            groups.append((f"{label} fields changed", [c for c in known if low <= (c.fields_changed or 0) <= high]))
        return groups

    def per_call(self) -> dict[str, Any]:
        """Tokens and seconds per call (medians and means over the calls that ran)."""
        calls = self.calls
        if not calls:
            return {}
        inputs = [call.tokens.input for call in calls]
        return {
            "calls": len(calls),
            "prompt_tokens_median": statistics.median(inputs),
            "prompt_tokens_mean": statistics.fmean(inputs),
            "output_tokens_mean": statistics.fmean(call.tokens.output for call in calls),
            "seconds_median": statistics.median(call.latency_ms for call in calls) / 1000,
            "seconds_mean": statistics.fmean(call.latency_ms for call in calls) / 1000,
        }

    @property
    def reads(self) -> tuple[int, int]:
        """Reads of the scenarios run without a reference, and how many agreed with what was shown before."""
        counted = [report.consistency for report in self.scenarios if not report.referenced]
        return sum(item.reads for item in counted), sum(item.agreeing for item in counted)

    def to_json(self) -> dict[str, Any]:
        groups = {label: _rates(calls) for label, calls in self.call_groups()}
        reads, agreeing = self.reads
        return {
            "backend": self.backend,
            "model": self.model,
            "rules": self.rules,
            "expectations": self.total,
            "met": self.met,
            "score": round(self.score, 6),
            "tokens": self.tokens.model_dump(),
            "mean_latency_ms": self.mean_latency_ms,
            "per_call": self.per_call(),
            "call_groups": groups,
            "self_consistency": {"reads": reads, "agreeing": agreeing, "score": agreeing / reads if reads else None},
            "scenarios": [report.to_json() for report in self.scenarios],
        }


def _rates(calls: list[CallScore]) -> dict[str, Any]:
    """Result and state match of `calls`, as shares (None when no call has the measure)."""
    states = [call.state_match for call in calls if call.state_match is not None]
    return {
        "calls": len(calls),
        "result_match": sum(call.result_match for call in calls) / len(calls) if calls else None,
        "state_match": sum(states) / len(states) if states else None,
        "state_compared": len(states),
    }


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
                arguments = _render(step.args, outcomes)
            except _Unresolved:
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
                arguments = expected.arguments if expected is not None else _render(step.args, outcomes)
            except _Unresolved as e:
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
        error=_as_text(called.result)[:_REASON_CHARS] if called.is_error else None,
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
        rendered = Expectation.model_validate(
            _render(expectation.model_dump(mode="json", exclude_unset=True), outcomes)
        )
    except _Unresolved as e:
        return _not_run(index, call, expectation, rule, f"cannot check: {e}")
    except ValidationError as e:
        return _not_run(index, call, expectation, rule, f"the expectation became invalid once filled in: {e}")
    results: list[ExpectationResult] = []
    actual, is_error = outcome["result"], outcome["is_error"]
    want_error = rendered.is_error if rendered.is_error is not None else _negate(rendered.found)
    if want_error is not None:
        name = "is_error" if rendered.is_error is not None else "found"
        wanted = "an error" if want_error else "a success"
        got = f"an error: {_show(actual)}" if is_error else "a success"
        results.append(result(name, is_error == want_error, f"expected {wanted}, got {got}"))
    if "result" in rendered.model_fields_set:
        expected = rendered.result
        if isinstance(expected, dict):
            for key, value in expected.items():
                if not isinstance(actual, dict) or key not in actual:
                    results.append(result(f"result.{key}", False, f"no {key!r} in the result {_show(actual)}"))
                    continue
                passed = json_matches(actual[key], value)
                results.append(result(f"result.{key}", passed, f"found {_show(actual[key])}, expected {_show(value)}"))
        else:
            passed = json_matches(actual, expected)
            results.append(result("result", passed, f"found {_show(actual)}, expected {_show(expected)}"))
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


# --- templates ---------------------------------------------------------------------------------


class _Unresolved(Exception):
    """A template naming something the earlier steps did not produce."""


def _references(value: Any) -> list[str]:
    if isinstance(value, str):
        return [match.group(1) for match in _TEMPLATE.finditer(value)]
    if isinstance(value, dict):
        return [ref for item in value.values() for ref in _references(item)]
    if isinstance(value, list):
        return [ref for item in value for ref in _references(item)]
    return []


def _render(value: Any, outcomes: dict[str, dict[str, Any]]) -> Any:
    if isinstance(value, str):
        whole = _TEMPLATE.fullmatch(value.strip())
        if whole is not None:
            return _lookup(whole, outcomes)
        return _TEMPLATE.sub(lambda match: _as_text(_lookup(match, outcomes)), value)
    if isinstance(value, dict):
        return {key: _render(item, outcomes) for key, item in value.items()}
    if isinstance(value, list):
        return [_render(item, outcomes) for item in value]
    return value


def _lookup(match: re.Match[str], outcomes: dict[str, dict[str, Any]]) -> Any:
    step_id, part, rest = match.group(1), match.group(2), match.group(3)
    if step_id not in outcomes:
        raise _Unresolved(f"{match.group(0)}: step {step_id!r} has no outcome")
    node = outcomes[step_id][part]
    walked = f"steps.{step_id}.{part}"
    for key in [key for key in rest.split(".") if key]:
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            raise _Unresolved(f"{match.group(0)}: {walked} has no {key!r} (it is {_show(node)})")
        walked += f".{key}"
    return node


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


# --- report ------------------------------------------------------------------------------------


def render_report(report: BenchmarkReport, *, failures: bool = True) -> str:
    """The report as a table, then the expectations that were not met."""
    model = f" ({report.model})" if report.model else ""
    rules = "counted" if report.rules else "skipped (the backend has no model to read instructions)"
    if not report.rules and report.rules_by_programs:
        rules = "counted where a rules program answers; skipped elsewhere (the backend has no model)"
    header = ["scenario", "env", "steps", "expectations", "met", "score", "rules skipped", "tokens in/out", "latency"]
    rows = [header]
    for item in report.scenarios:
        rows.append(
            [
                item.name,
                item.env,
                str(item.steps),
                str(item.total),
                str(item.met),
                f"{item.score:.1%}",
                str(item.skipped_rules),
                f"{item.tokens.input}/{item.tokens.output}",
                _latency(item.mean_latency_ms),
            ]
        )
    tokens = report.tokens
    rows.append(
        [
            "overall",
            "",
            str(sum(item.steps for item in report.scenarios)),
            str(report.total),
            str(report.met),
            f"{report.score:.1%}",
            str(sum(item.skipped_rules for item in report.scenarios)),
            f"{tokens.input}/{tokens.output}",
            _latency(report.mean_latency_ms),
        ]
    )
    widths = [max(len(row[column]) for row in rows) for column in range(len(header))]
    numeric = set(range(2, len(header)))

    def line(row: list[str]) -> str:
        cells = [
            cell.rjust(width) if i in numeric else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        return "  ".join(cells).rstrip()

    lines = [f"fidelity of backend {report.backend}{model}; rules: {rules}", ""]
    lines += [line(rows[0]), line(["-" * width for width in widths])]
    lines += [line(row) for row in rows[1:-1]]
    lines += [line(["-" * width for width in widths]), line(rows[-1])]
    lines += ["", *_call_lines(report)]
    reads, agreeing = report.reads
    if reads:
        lines += [
            "",
            f"self-consistency (scenarios without a reference): {agreeing} of {reads} reads agree with what the "
            f"session showed before ({agreeing / reads:.1%})",
        ]
        shown = [f"  {item.name} {text}" for item in report.scenarios for text in item.consistency.disagreements]
        lines += shown[:_FAILURES_SHOWN]
    missed = [(item, result) for item in report.scenarios for result in item.results if not result.passed]
    if failures and missed:
        lines += ["", f"not met ({len(missed)}):"]
        for item, result in missed[:_FAILURES_SHOWN]:
            tag = " [rule]" if result.rule else ""
            lines.append(f"  {item.name} step {result.step + 1} {result.call}{tag}: {result.name}: {result.detail}")
        if len(missed) > _FAILURES_SHOWN:
            lines.append(f"  ... and {len(missed) - _FAILURES_SHOWN} more (--json FILE has them all)")
    return "\n".join(lines)


def _call_lines(report: BenchmarkReport) -> list[str]:
    """Per call: result and state match, all calls, state-changing ones, and by fields changed; then cost."""
    referenced = sum(item.referenced for item in report.scenarios)
    how = (
        f"each call from the reference's state ({referenced} of {len(report.scenarios)} scenarios have a reference)"
        if referenced
        else "no reference: state match from the steps' state checks"
    )
    rows = [["per call", "calls", "result match", "state match"]]
    for label, calls in report.call_groups():
        rates = _rates(calls)
        if not calls and label.endswith("fields changed"):
            continue
        rows.append([label, str(len(calls)), _percent(rates["result_match"]), _percent(rates["state_match"])])
    widths = [max(len(row[column]) for row in rows) for column in range(4)]
    lines = [f"per call: {how}"]
    lines += [
        "  ".join(cell.rjust(w) if i else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths, strict=True)))
        for row in rows
    ]
    cost = report.per_call()
    if cost:
        lines.append(
            f"per call: prompt tokens median {cost['prompt_tokens_median']:,.0f} "
            f"(mean {cost['prompt_tokens_mean']:,.0f}), "
            f"output tokens mean {cost['output_tokens_mean']:,.0f}, seconds median {cost['seconds_median']:.2f} "
            f"(mean {cost['seconds_mean']:.2f})"
        )
    return lines


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _latency(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f} ms"


def _show(value: Any, limit: int = 80) -> str:
    return shown(value, limit)
