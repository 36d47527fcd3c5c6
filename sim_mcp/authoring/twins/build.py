"""`sim-mcp compile SPEC --from RECORDINGS`: a twin of a recorded real server, beside its captured spec.

1. Read the recordings (a bad line is named by file and line and left out; the rest is used).
2. Infer without a model (`infer.infer_plans`) each tool's behaviour, and the first world.
3. Write the behaviours as Starlark (`library`) and replay every recorded session, in order, from
   the first world through the engine's rules runtime: a tool keeps its program only if every one of its
   recorded calls gets the recorded answer there (and the others are dropped until that holds).
4. Given a model (`backend`), ask it (`authoring.compile.compile_environment`) for the tools still without
   a program, checked against their recorded calls in the states the twin reaches.
5. Write the spec with its first world (`initial_state`) and the programs file beside it
   (`<spec>.rules.star`); the report says per tool: exact without a model, written by the model, or left
   to the LLM at run time (served by the replay of the recordings when nothing else answers), and why.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sim_mcp.authoring.programs.compile import compile_environment, programs_path
from sim_mcp.authoring.programs.transitions import Recording
from sim_mcp.authoring.twins.agreement import Answer, compare_answers
from sim_mcp.authoring.twins.batches import find_batches, unrolled
from sim_mcp.authoring.twins.behaviours import TWIN_KEY
from sim_mcp.authoring.twins.infer import Inference, infer_plans
from sim_mcp.authoring.twins.keyed_world import (
    EFFECT_TRIALS,
    GuardInference,
    as_set,
    infer_guards,
    initial_keys,
    unordered,
)
from sim_mcp.authoring.twins.library import TwinLibrary, program_text
from sim_mcp.authoring.twins.recordings import RecordedCall, read_calls
from sim_mcp.authoring.twins.rename import IdMap
from sim_mcp.authoring.twins.served import refuses, served_schema
from sim_mcp.authoring.twins.wrapped import find_wrappers, unwrapped
from sim_mcp.engine.backends import Backend
from sim_mcp.engine.cache import situation_key
from sim_mcp.engine.cassette import CassetteEntry, call_key
from sim_mcp.engine.contract import Outcome
from sim_mcp.errors import ConfigError
from sim_mcp.rules import CallContext, Limits, RulesError, compile_program, run_handed_on, run_tool
from sim_mcp.rules.helpers import DEFAULT_CLOCK
from sim_mcp.specs.formats import read_spec_file
from sim_mcp.specs.model import Environment, ToolSpec
from sim_mcp.specs.registry import with_rules_file
from sim_mcp.specs.schema import CompiledSchema, compile_schema
from sim_mcp.specs.writer import environment_yaml
from sim_mcp.state.patch import apply_patch

__all__ = ["REPLAY_SUFFIX", "TwinReport", "build_twin", "replay_path"]

REPLAY_SUFFIX = ".cassette"


@dataclass
class TwinReport:
    spec: Path
    programs: Path
    calls: int = 0
    sessions: int = 0
    problems: list[str] = field(default_factory=list)
    tools: dict[str, dict[str, Any]] = field(default_factory=dict)  # tool -> {status, reason, calls, plan}
    effect_choices: int = 0  # the choices of the tools' effects the keyed world's search evaluated

    def lines(self) -> list[str]:
        out = []
        for tool, entry in self.tools.items():
            status = {
                "exact": "exact without a model",
                "model": "written by the model",
                "guarded": "guarded",
                "llm": "left to the LLM at run time",
            }[entry["status"]]
            why = f": {entry['reason']}" if entry.get("reason") else ""
            family = f" ({entry['family']})" if entry.get("family") else ""
            out.append(f"{tool}: {status}{family}, {entry['calls']} recorded calls{why}")
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "spec": str(self.spec),
            "programs": str(self.programs),
            "sessions": self.sessions,
            "calls": self.calls,
            "problems": self.problems,
            "tools": self.tools,
            "effect_choices": self.effect_choices,
        }


async def build_twin(
    spec_path: Path,
    recordings: list[Path],
    backend: Backend | None = None,
    *,
    rounds: int = 3,
    effect_trials: int = EFFECT_TRIALS,
    progress: Callable[[str], None] = lambda line: None,
) -> TwinReport:
    environment = read_spec_file(spec_path)
    calls: list[RecordedCall] = []
    report = TwinReport(spec_path, programs_path(spec_path))
    for path in recordings:
        found = read_calls(path)
        calls += found.calls
        report.problems += found.problems
    known = {tool.name for tool in environment.tools}
    unknown = sorted({call.tool for call in calls} - known)
    if unknown:
        report.problems.append(f"calls of tools the spec lacks are left out: {', '.join(unknown)}")
    calls = [call for call in calls if call.tool in known]
    sessions = _sessions(calls)
    report.calls, report.sessions = len(calls), len(sessions)
    if not calls:
        raise ConfigError(f"--from {', '.join(map(str, recordings))}: no recorded call of {spec_path}'s tools")
    wrappers = find_wrappers(list(environment.tools), sessions)
    # Tools whose arguments come wrapped in one object may be learned on that object's fields (`wrapped.py`): the
    # twin takes that way where it answers more of the sessions it did not learn from, decided first, so that
    # only the way taken is learned from every session.
    if wrappers and _generalises_better(environment, sessions, effect_trials, wrappers):
        learned = _learn_unwrapped(environment, sessions, effect_trials, wrappers)
    else:
        learned = _learn_batched(environment, sessions, effect_trials)
    report.effect_choices = learned.effect_choices
    report.problems += learned.problems
    plans, reasons, initial = learned.plans, learned.reasons, learned.initial
    text = program_text(plans)
    tools, relaxed = _as_served(list(environment.tools), calls)
    for name, arguments in relaxed.items():
        report.problems.append(
            f"{name}: the server answered calls without {', '.join(arguments)} successfully; "
            "the twin does not require them either"
        )
    twin = environment.model_copy(update={"initial_state": initial, "rules": None, "rules_source": "", "tools": tools})
    _write(
        spec_path, environment_yaml(twin, header=f"A twin built by sim-mcp compile --from {len(calls)} recorded calls.")
    )
    _write(report.programs, text)
    _write(replay_path(spec_path), _replay_text(spec_path, plans, text, sessions, initial))
    answered_calls = _answered(
        plans, sessions, initial, {tool.name: compile_schema(tool.input_schema) for tool in tools}
    )
    for tool in environment.tools:
        count = sum(call.tool == tool.name for call in calls)
        if tool.name in plans and plans[tool.name]["family"] == "guard":
            answered = answered_calls.get(tool.name, 0)
            report.tools[tool.name] = {
                "status": "guarded",
                "calls": count,
                "family": "guard",
                "reason": f"its rules answer {answered} of its {count} recorded calls exactly and hand the rest on"
                + (f" ({reasons[tool.name]})" if tool.name in reasons else ""),
                "rules": len(plans[tool.name]["rules"]),
                "plan": plans[tool.name],
            }
            if listed := unordered(plans[tool.name]):
                # Listings whose order the recordings do not explain: to be compared as a set.
                report.tools[tool.name]["unordered"] = listed
        elif tool.name in plans:
            report.tools[tool.name] = {
                "status": "exact",
                "calls": count,
                "family": plans[tool.name]["family"],
                "plan": plans[tool.name],
            }
        else:
            reason = reasons.get(tool.name) or "no recorded call"
            report.tools[tool.name] = {"status": "llm", "calls": count, "reason": reason}
        progress(report.lines()[-1])
    left_over = [tool for tool in environment.tools if tool.name not in plans and report.tools[tool.name]["calls"]]
    if backend is not None and left_over:
        await _ask_model(spec_path, plans, initial, sessions, left_over, backend, rounds, report, progress)
    return report


@dataclass
class _Learned:
    """What inference learned from one view of the recordings: the plans, why a tool has none, the first world."""

    plans: dict[str, dict[str, Any]]
    reasons: dict[str, str]
    initial: dict[str, Any]
    problems: list[str] = field(default_factory=list)
    effect_choices: int = 0  # the choices of the tools' effects the keyed world's search evaluated


def _learn(environment: Environment, sessions: list[list[RecordedCall]], trials: int) -> _Learned:
    """Each tool's behaviour (`infer_plans`), else its keyed world's rules (`infer_guards`, searching at most
    `trials` choices of the tools' effects), as its Starlark replays `sessions` (`_verified`)."""
    problems: list[str] = []
    calls = [call for session in sessions for call in session]
    try:
        inference = infer_plans(list(environment.tools), sessions)
    except Exception as e:  # answers of a shape no behaviour expected cost the behaviours only
        problems.append(f"inferring the record stores' behaviours failed ({_failure(e)}); none is used")
        inference = Inference(calls=dict(Counter(call.tool for call in calls)))
    plans, reasons = _verified(
        environment, dict(inference.plans), dict(inference.reasons), sessions, inference.initial_state()
    )
    # Tools no behaviour explains get guards: the answers the recordings show exactly, the rest handed on.
    # So may a tool whose behaviour is a constant answer, or an answer built from its own calls alone: where
    # its guard answers every recorded call too, from the arguments and the keyed world, the guard is kept
    # (one that uses its arguments, and stores what other tools read back, before one that ignores them).
    constant = [name for name, plan in plans.items() if plan["family"] in ("const", "template")]
    left = [tool.name for tool in environment.tools if tool.name not in plans]
    try:
        guards = infer_guards(list(environment.tools), sessions, left + constant, trials)
    except Exception as e:  # a failure the learner pinned on no one tool costs the guards only
        problems.append(f"learning the keyed world's rules failed ({_failure(e)}); no tool has them")
        guards = GuardInference(failed={name: f"learning its rules failed: {_failure(e)}" for name in left})
    for name, why in guards.failed.items():
        reasons[name] = why
    if guards.stopped_at:
        problems.append(
            f"the search for the tools' effects on the keyed world stopped at {guards.stopped_at} choices tried "
            "(--effect-trials): the rules are the best it had found; a larger bound may answer more calls"
        )
    for name in constant:
        if guards.answers_all(name, sum(call.tool == name for call in calls)):
            del plans[name]
        else:
            guards.plans.pop(name, None)
    initial = inference.initial_state()
    if guards.plans:
        initial[TWIN_KEY] = {"keys": initial_keys(guards.root, guards.seeds)}
        plans, reasons = _verified(environment, {**plans, **guards.plans}, reasons, sessions, initial)
    return _Learned(plans, reasons, initial, problems, guards.tried)


def _learn_batched(environment: Environment, sessions: list[list[RecordedCall]], trials: int) -> _Learned:
    """What `_learn` finds, and where some tools take their items in batches, what it finds of them as the
    one-item calls they stand for (`batches.py`): whichever answers more of the recorded calls as recorded."""
    learned = _learn(environment, sessions, trials)
    if batches := find_batches(list(environment.tools), sessions):
        view_tools, view_sessions = unrolled(list(environment.tools), sessions, batches)
        per_item = _learn(environment.model_copy(update={"tools": view_tools}), view_sessions, trials)
        per_item.effect_choices += learned.effect_choices
        per_item.plans = {
            name: {**plan, "batch": batches[name].to_plan()} if name in batches else plan
            for name, plan in per_item.plans.items()
        }
        if _agreeing(per_item.plans, sessions, per_item.initial) > _agreeing(learned.plans, sessions, learned.initial):
            return per_item
        learned.effect_choices = per_item.effect_choices
    return learned


def _learn_unwrapped(
    environment: Environment, sessions: list[list[RecordedCall]], trials: int, wrappers: dict[str, str]
) -> _Learned:
    """What `_learn_batched` finds of the tools with their wrapped arguments unwrapped (`wrapped.py`), each
    such tool's plan carrying the argument its calls wrap theirs in."""
    view_tools, view_sessions = unwrapped(list(environment.tools), sessions, wrappers)
    inner = _learn_batched(environment.model_copy(update={"tools": view_tools}), view_sessions, trials)
    inner.plans = {
        name: {**plan, "wrapper": wrappers[name]} if name in wrappers else plan for name, plan in inner.plans.items()
    }
    return inner


def _generalises_better(
    environment: Environment, sessions: list[list[RecordedCall]], trials: int, wrappers: dict[str, str]
) -> bool:
    """Whether the tools learned unwrapped answer more calls of sessions they did not learn from than the tools
    learned as they are: each way learned from every other session and checked on the rest, as the served
    twin answers them (`_served_agreement`). Rules that answer every recorded call may have learned facts of
    the recorded calls alone (a catalogue entry's details, written as literal text under conditions that
    happen to tell the recorded calls apart), and a world their effects change keys the replay of the calls
    they hand on otherwise: what answers more of the recorded calls can answer fewer of the next ones."""
    learned_from, checked = sessions[::2], sessions[1::2]
    if not checked:
        return True
    plain = _learn_batched(environment, learned_from, trials)
    inner = _learn_unwrapped(environment, learned_from, trials, wrappers)
    return _served_agreement(inner, learned_from, checked) > _served_agreement(plain, learned_from, checked)


def _served_agreement(
    learned: _Learned, learned_from: list[list[RecordedCall]], checked: list[list[RecordedCall]]
) -> int:
    """How many calls of `checked` the twin learned from `learned_from` answers as recorded: its programs, else
    its replay of the recorded answers (`_replay_text`): one recorded with the same arguments in the same
    world, or one recorded alike in several worlds."""
    plans, initial = learned.plans, learned.initial
    program = compile_program(program_text(plans), "<twin programs>", list(plans))
    in_world: dict[str, tuple[Any, bool]] = {}
    seen: dict[str, tuple[set[str], set[str]]] = {}  # call key -> worlds, answers
    for session in learned_from:
        for before, _, call, result in _replay(program, plans, session, initial):
            if result is None:
                in_world[situation_key("", call.tool, call.arguments, before)] = (call.value, call.is_error)
                worlds, answers = seen.setdefault(call_key(call.tool, call.arguments), (set(), set()))
                worlds.add(json.dumps(before, sort_keys=True))
                answers.add(json.dumps([call.value, call.is_error], sort_keys=True))
    agree = 0
    for session in checked:
        for before, _, call, result in _replay(program, plans, session, initial):
            if result is None:
                result = in_world.get(situation_key("", call.tool, call.arguments, before))
                worlds, answers = seen.get(call_key(call.tool, call.arguments), (set(), set()))
                if result is None and len(worlds) > 1 and len(answers) == 1:
                    value, is_error = json.loads(next(iter(answers)))
                    result = (value, bool(is_error))
            if result is not None:
                agree += compare_answers(Answer(call.value, call.is_error), Answer(*result)).agree
    return agree


def _agreeing(plans: dict[str, dict[str, Any]], sessions: list[list[RecordedCall]], initial: dict[str, Any]) -> int:
    """How many recorded calls the plans' program answers as recorded, in the replay of every session."""
    if not plans:
        return 0
    program = compile_program(program_text(plans), "<twin programs>", list(plans))
    agree = 0
    for session in sessions:
        for _, _, call, result in _replay(program, plans, session, initial):
            if result is not None:
                listed = unordered(plans[call.tool]) if plans[call.tool]["family"] == "guard" else []
                expected, value = as_set(call.value, listed), as_set(result[0], listed)
                agree += compare_answers(Answer(expected, call.is_error), Answer(value, result[1])).agree
    return agree


def _failure(error: Exception) -> str:
    """An inference's failure as the report names it: its kind and message."""
    return f"{type(error).__name__}: {error}"


def _as_served(tools: list[ToolSpec], calls: list[RecordedCall]) -> tuple[list[ToolSpec], dict[str, list[str]]]:
    """The tools as the server serves them (`served.served_schema`): (tools, the arguments relaxed by tool)."""
    served: list[ToolSpec] = []
    relaxed: dict[str, list[str]] = {}
    for tool in tools:
        schema, left_out = served_schema(tool, calls)
        if left_out:
            relaxed[tool.name] = left_out
            tool = tool.model_copy(update={"input_schema": schema})
        served.append(tool)
    return served, relaxed


def _served_schemas(tools: list[ToolSpec], sessions: list[list[RecordedCall]]) -> dict[str, CompiledSchema]:
    """By tool, the input schema the twin serves, ready to check a call's arguments."""
    calls = [call for session in sessions for call in session]
    return {tool.name: compile_schema(served_schema(tool, calls)[0]) for tool in tools}


def replay_path(spec_path: Path) -> Path:
    """The twin's own cassette, beside its spec: `spec.yaml` -> `spec.cassette`."""
    return spec_path.with_name(spec_path.stem + REPLAY_SUFFIX)


def _replay_text(
    spec_path: Path,
    plans: dict[str, dict[str, Any]],
    text: str,
    sessions: list[list[RecordedCall]],
    initial: dict[str, Any],
) -> str:
    """The recorded answers that no program gives, as a cassette keyed by the world the twin's programs
    had reached at each (`--backend replay` answers a call from it only in that same world): a listing
    recorded in one session never comes back in another whose world differs. A call recorded with the
    same arguments in several worlds, always with the same answer, is an invariant of the recordings: it
    is also written keyed by its arguments alone, and answers in any world."""
    served = with_rules_file(read_spec_file(spec_path), spec_path)
    program = compile_program(text, "<twin programs>", list(plans))
    entries: list[CassetteEntry] = []
    seen: dict[str, tuple[set[str], set[str], CassetteEntry]] = {}  # call key -> worlds, answers, an entry
    schemas = {tool.name: compile_schema(tool.input_schema) for tool in served.tools}
    for session in sessions:
        for before, _, call, result in _replay(program, plans, session, initial, schemas):
            if result is not None:
                continue  # the twin's program (or its schema) answers it
            entry = CassetteEntry(
                key=situation_key(served.version, call.tool, call.arguments, before),
                environment=served.name,
                version=served.version,
                tool=call.tool,
                arguments=call.arguments,
                session=call.session,
                outcome=Outcome(result=call.value, is_error=call.is_error),
            )
            entries.append(entry)
            worlds, answers, _ = seen.setdefault(call_key(call.tool, call.arguments), (set(), set(), entry))
            worlds.add(json.dumps(before, sort_keys=True))
            answers.add(json.dumps([call.value, call.is_error], sort_keys=True))
    for key, (worlds, answers, entry) in seen.items():
        if len(worlds) > 1 and len(answers) == 1:
            entries.append(entry.model_copy(update={"key": key, "session": None}))
    return "".join(entry.model_dump_json() + "\n" for entry in entries)


def _sessions(calls: list[RecordedCall]) -> list[list[RecordedCall]]:
    grouped: dict[str, list[RecordedCall]] = {}
    for call in calls:
        grouped.setdefault(call.session, []).append(call)
    return [sorted(group, key=lambda call: call.seq) for group in grouped.values()]


def _verified(
    environment: Environment,
    plans: dict[str, dict[str, Any]],
    reasons: dict[str, str],
    sessions: list[list[RecordedCall]],
    initial: dict[str, Any],
) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """The plans whose Starlark gives every recorded answer it gives at all (a guard may decline a call)
    when all kept plans replay every session."""
    plans = dict(plans)
    reasons = dict(reasons)
    library = TwinLibrary()
    while plans:
        misses = _starlark_misses(environment, plans, sessions, initial, library)
        if not misses:
            break
        for tool, (miss, state, arguments) in misses.items():
            plan = plans[tool]
            rule = _answering_rule(library, plan, tool, state, arguments) if plan["family"] == "guard" else None
            if rule is not None and len(plan["rules"]) > 1:
                # Only the guard's rule that answered the call wrongly goes: its other rules each stand on the
                # calls they answer, which the next round checks again in the world the twin then reaches (a
                # call that rule answered falls to a later rule, or is handed on).
                plans[tool] = {**plan, "rules": [kept for at, kept in enumerate(plan["rules"]) if at != rule]}
                reasons[tool] = f"a rule of its program in the rules runtime missed {miss}, and was left out"
                continue
            reasons[tool] = f"its program ({plan['family']}) in the rules runtime missed {miss}"
            del plans[tool]
    return plans, reasons


def _answering_rule(
    library: TwinLibrary, plan: dict[str, Any], tool: str, state: Any, arguments: dict[str, Any]
) -> int | None:
    """Which rule of a guard plan answers a call in `state` (the first that holds and writes an answer)."""
    for at in range(len(plan["rules"])):
        answer, _ = library.guard(
            {**plan, "rules": plan["rules"][: at + 1]}, tool, json.loads(json.dumps(state)), arguments
        )
        if answer is not None:
            return at
    return None


def _lenient_answer(
    library: TwinLibrary, plan: dict[str, Any], tool: str, state: Any, arguments: dict[str, Any]
) -> bool:
    """Whether a guard's rule that answers a call is its last one, learned `lenient`."""
    if plan["family"] != "guard" or not any(rule.get("lenient") for rule in plan["rules"]):
        return False
    at = _answering_rule(library, plan, tool, state, arguments)
    return at is not None and bool(plan["rules"][at].get("lenient"))


def _answered(
    plans: dict[str, dict[str, Any]],
    sessions: list[list[RecordedCall]],
    initial: dict[str, Any],
    schemas: dict[str, CompiledSchema] | None = None,
) -> dict[str, int]:
    """By tool, how many recorded calls its program (or its served schema) answers rather than declines in
    the replay."""
    if not plans:
        return {}
    program = compile_program(program_text(plans), "<twin programs>", list(plans))
    counts: dict[str, int] = {}
    for session in sessions:
        for _, _, call, result in _replay(program, plans, session, initial, schemas):
            if result is not None:
                counts[call.tool] = counts.get(call.tool, 0) + 1
    return counts


def _starlark_misses(
    environment: Environment,
    plans: dict[str, dict[str, Any]],
    sessions: list[list[RecordedCall]],
    initial: dict[str, Any],
    library: TwinLibrary,
) -> dict[str, tuple[str, Any, dict[str, Any]]]:
    """By tool, the first recorded call its program answers wrongly: where and how, the state before it, and
    its arguments. A guard's last rule learned `lenient` (`keyed_world._lenient`) may answer some wrongly."""
    program = compile_program(program_text(plans), "<twin programs>", list(plans))
    misses: dict[str, tuple[str, Any, dict[str, Any]]] = {}
    schemas = _served_schemas(list(environment.tools), sessions)
    for session in sessions:
        for before, _, call, result in _replay(program, plans, session, initial, schemas, library):
            if result is None or call.tool in misses:
                continue
            value, is_error = result
            listed = unordered(plans[call.tool]) if plans[call.tool]["family"] == "guard" else []
            expected, value = as_set(call.value, listed), as_set(value, listed)
            verdict = compare_answers(Answer(expected, call.is_error), Answer(value, is_error))
            if not verdict.agree and not _lenient_answer(library, plans[call.tool], call.tool, before, call.arguments):
                misses[call.tool] = (f"{call.where}: {verdict.kind}: {verdict.detail}", before, call.arguments)
    return misses


def _replay(
    program: Any,
    plans: dict[str, Any],
    session: list[RecordedCall],
    initial: dict[str, Any],
    schemas: dict[str, CompiledSchema] | None = None,
    library: TwinLibrary | None = None,
) -> list[tuple[Any, Any, RecordedCall, tuple[Any, bool] | None]]:
    """Each call of `session` with the state before and after it, and the program's answer (None: no plan,
    or its program declined the call; an error where the tool's served schema, of `schemas`, refuses its
    arguments, as the twin does before its program runs). An id the twin made up in place of the one
    recorded (a random `task-c7e7c630`, kept under its own) stands for it in the later calls that name it,
    as twin-check sends them (`rename.IdMap`): each call is returned with the arguments the twin got. Given
    `library`, a call a guard's lenient rule answers otherwise than recorded leaves the world as the recorded
    answer would (`_shown`), so that its wrong answer is borne once and does not make later calls miss."""
    state: Any = json.loads(json.dumps(initial))
    steps: list[tuple[Any, Any, RecordedCall, tuple[Any, bool] | None]] = []
    made_up = IdMap()
    for sequence, recorded in enumerate(session):
        call = replace(recorded, arguments=made_up(recorded.arguments))
        context = CallContext.of(DEFAULT_CLOCK, seed=0, sequence=sequence, tool=call.tool)
        if call.tool not in plans:
            after = _shown(program, state, call, context)
            steps.append((state, after, call, None))
            state = after
            continue
        if schemas is not None and call.tool in schemas and refuses(schemas[call.tool], call.arguments):
            steps.append((state, state, call, (f"invalid arguments for {call.tool}", True)))
            continue
        try:
            outcome = run_tool(program, call.tool, state, call.arguments, context, Limits(), handing_on=True)
        except RulesError as e:
            steps.append((state, state, call, (f"twin: {e}", True)))
            continue
        if outcome.declined is not None:  # handed on: the replay of the recordings answers it when served
            after = _shown(program, state, call, context)
            steps.append((state, after, call, None))
            state = after
            continue
        after = apply_patch(state, outcome.state_patch) if outcome.state_patch else state
        if library is not None and _lenient_answer(library, plans[call.tool], call.tool, state, call.arguments):
            verdict = compare_answers(Answer(call.value, call.is_error), Answer(outcome.result, outcome.is_error))
            if not verdict.agree:
                after = _shown(program, state, call, context)
        if not outcome.is_error:
            made_up.learn(call.value, outcome.result)
        steps.append((state, after, call, (outcome.result, outcome.is_error)))
        state = after
    return steps


def _shown(program: Any, state: Any, call: RecordedCall, context: CallContext) -> Any:
    """The state after a handed-on call, as the served twin has it: its recorded success shown to the
    program's `sim_mcp_handed_on` (the ids it made up counted), as the simulator does with the backend's."""
    if call.is_error or call.rpc_error is not None:
        return state
    patch = run_handed_on(program, state, call.tool, call.arguments, call.value, context, Limits())
    return apply_patch(state, patch) if patch else state


async def _ask_model(
    spec_path: Path,
    plans: dict[str, dict[str, Any]],
    initial: dict[str, Any],
    sessions: list[list[RecordedCall]],
    left: list[Any],
    backend: Backend,
    rounds: int,
    report: TwinReport,
    progress: Callable[[str], None],
) -> None:
    program = compile_program(program_text(plans), "<twin programs>", list(plans))
    names = {tool.name for tool in left}
    recordings = [
        Recording(call.tool, call.arguments, before, call.value, call.is_error, after, call.where, index)
        for session in sessions
        for index, (before, after, call, _) in enumerate(_replay(program, plans, session, initial))
        if call.tool in names
    ]
    twin = read_spec_file(spec_path).model_copy(update={"tools": left})
    result = await compile_environment(
        twin, spec_path, backend, recordings=recordings, rounds=rounds, progress=progress
    )
    for tool in result.tools:
        if tool.status == "compiled":
            report.tools[tool.tool].update({"status": "model", "reason": None, "rounds": tool.rounds})
        elif tool.status == "failed":
            report.tools[tool.tool]["reason"] = (
                f"{report.tools[tool.tool]['reason']}; the model's program failed too: {tool.reason}"
            )


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"{path}: cannot write it: {e.strerror or e}") from e
