"""Rewards: a task's checks run on an environment's final state, optionally blended with an LLM judge.

- **Checks** read values at a JSON Pointer (one value, or none) or a JSONPath (every match):
  `equals` (the same JSON value; numbers compare with a 1e-9 tolerance, `true` is not `1`), `contains`
  (a substring, case-insensitive; an item of an array; an object's subset or key), `count` (the number of
  JSONPath matches, or the number of items of the array or object at a JSON Pointer, 0 when absent),
  `exists` and `absent`. With a JSONPath, `equals` and `contains` need at least one match and hold for
  every match (`match: all`, the default) or for one (`match: any`).
- **Score** is the weighted share of checks passed; a judge's score (0..1) counts with its own weight.
  `passed` means every check passed and the judge (when it ran) scored at least its `pass_score`.
- **Baseline** is the score of the session's starting state (the judge, never asked about it, counts 0),
  and **gain** the score minus the baseline. A check that guards against harm ("its status stays
  pending") already passes at the start, so doing nothing has a baseline above 0.
- **Reward** is the score (`reward: absolute`, the default), or with `reward: gain` the share of what was
  left to do that the episode did, `(score - baseline) / (1 - baseline)` clipped to 0..1: 0 for doing
  nothing or for making things worse, 1 for passing everything. docs/rewards.md says which to use.
- **Judge**: the task's rubric, the final state (trimmed to the state budget) and the environment's last
  events go to the backend's model (`Backend.complete_json`), which answers `{score, reasons}`. A backend
  without a model (offline) skips the judge, and the evaluation says so; a task whose reward would then
  rest on nothing is an error.
"""

from __future__ import annotations

import copy
import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from jsonpointer import escape
from pydantic import BaseModel, Field

from sim_mcp.engine.backends import Backend
from sim_mcp.engine.contract import InvalidOutcome
from sim_mcp.engine.sessions import SessionService, merge_patch
from sim_mcp.episodes.asking import JsonForm, Problem, ask_json
from sim_mcp.episodes.tasks import Check, CountBounds, Task
from sim_mcp.errors import InvalidSessionInput, SpecError
from sim_mcp.specs.registry import Catalog
from sim_mcp.specs.schema import type_name, value_problem
from sim_mcp.state.session import Event, TokenUsage
from sim_mcp.state.values import json_equal, pointer_parts
from sim_mcp.text import shorten, shown

__all__ = [
    "CheckResult",
    "Evaluation",
    "Judge",
    "JudgeResult",
    "LlmJudge",
    "baseline_of",
    "evaluate",
    "evaluate_session",
    "gain_reward",
    "json_matches",
    "judge_for",
    "passing_at_start",
    "resolve_pointer",
    "run_check",
    "start_state",
    "validate_task",
]

# The judge sees at most this many of the environment's latest events, each value cut to this many characters.
JUDGE_EVENTS = 30
_JUDGE_VALUE_CHARS = 400
_FIRST_KEY = re.compile(r"^\$(?:\.([A-Za-z_][A-Za-z0-9_\-]*)|\[\s*['\"]([^'\"]+)['\"]\s*\])")


class CheckResult(BaseModel):
    name: str
    passed: bool
    detail: str = Field(description="What was found, against what was expected.")
    weight: float = 1.0


class JudgeResult(BaseModel):
    score: float | None = Field(default=None, description="0..1; None when the judge was skipped.")
    reasons: str = ""
    weight: float = 1.0
    passed: bool | None = None
    skipped: str | None = Field(default=None, description="Why the judge did not run.")
    tokens: TokenUsage = Field(default_factory=TokenUsage)


class Evaluation(BaseModel):
    task: str
    env: str
    reward: float = Field(ge=0, le=1, description="The score, or with `reward: gain` the normalised gain.")
    reward_kind: Literal["absolute", "gain"] = "absolute"
    score: float = Field(default=0.0, ge=0, le=1, description="Weighted share of checks (and judge) passed.")
    baseline: float = Field(default=0.0, ge=0, le=1, description="The score of the session's starting state.")
    gain: float = Field(default=0.0, ge=-1, le=1, description="score - baseline: what the episode changed.")
    passed: bool
    checks: list[CheckResult]
    judge: JudgeResult | None = None
    events: int = Field(default=0, description="The session's event count when it was evaluated.")
    evaluated_at: float = Field(default_factory=time.time)


class Judge(Protocol):
    """Scores a task's outcome against its rubric."""

    async def judge(self, task: Task, state: Any, events: Sequence[Event]) -> JudgeResult: ...


# --- checks ------------------------------------------------------------------------------------


def run_check(check: Check, document: Any) -> CheckResult:
    """One check on `document` (a final state, or a result)."""
    passed, detail = _run(check, document)
    return CheckResult(name=check.label, passed=passed, detail=detail, weight=check.weight)


def _run(check: Check, document: Any) -> tuple[bool, str]:
    values, missing = _values_at(check, document)
    kind = check.kind
    if kind in ("exists", "absent"):
        want_present = check.exists if kind == "exists" else not check.absent
        present = bool(values)
        found = _describe_found(check, values) if present else (missing or "nothing found")
        return present == want_present, found
    if kind == "count":
        bounds = check.count or CountBounds(min=0)  # a count check always has bounds
        number = _count(check, values)
        if isinstance(number, str):
            return False, number
        ok = (
            (bounds.equals is None or number == bounds.equals)
            and (bounds.min is None or number >= bounds.min)
            and (bounds.max is None or number <= bounds.max)
        )
        return ok, f"counted {number}, expected {bounds.describe()}"
    expected = check.equals if kind == "equals" else check.contains
    if not values:
        return False, f"{missing or 'nothing found'}; expected a value that {kind} {_show(expected)}"

    def test(value: Any) -> bool:
        return json_equal(value, expected, close_numbers=True) if kind == "equals" else _contains(value, expected)

    verb = "equal" if kind == "equals" else "contain"
    if check.jsonpath is None:
        value = values[0]
        if test(value):
            return True, f"found {_show(value)}"
        return False, f"found {_show(value)}, expected a value that {kind} {_show(expected)}"
    failing = [value for value in values if not test(value)]
    if check.match == "any":
        if len(failing) < len(values):
            return True, f"{len(values) - len(failing)} of {len(values)} values {verb} {_show(expected)}"
        return False, f"none of {len(values)} values {verb} {_show(expected)}, e.g. found {_show(values[0])}"
    if not failing:
        return True, f"all {len(values)} values {verb} {_show(expected)}"
    return False, (
        f"{len(failing)} of {len(values)} values do not {verb} {_show(expected)}, e.g. found {_show(failing[0])}"
    )


def _values_at(check: Check, document: Any) -> tuple[list[Any], str | None]:
    """The values at the check's path, and (when there are none) why."""
    if check.jsonpath is not None:
        values = [match.value for match in check.jsonpath.find(document)]
        return values, None if values else f"nothing matches {check.path}"
    found, value, missing = resolve_pointer(document, check.path)
    return ([value], None) if found else ([], missing)


def _count(check: Check, values: list[Any]) -> int | str:
    if check.jsonpath is not None:
        return len(values)
    if not values:
        return 0
    value = values[0]
    if isinstance(value, dict | list):
        return len(value)
    return f"found {_show(value)} at {check.path or '/'}, expected an array or object to count"


def _describe_found(check: Check, values: list[Any]) -> str:
    if check.jsonpath is not None:
        return f"{len(values)} match{'es' if len(values) != 1 else ''}, e.g. {_show(values[0])}"
    return f"found {_show(values[0])}"


def resolve_pointer(document: Any, pointer: str) -> tuple[bool, Any, str]:
    """(found, value, why not) for an RFC 6901 JSON Pointer."""
    node = document
    walked = ""
    for part in pointer_parts(pointer):
        here = f"{walked}/{escape(part)}"
        if isinstance(node, dict):
            if part not in node:
                return False, None, f"no {part!r} in {walked or 'the state'} ({_keys(node)})"
            node = node[part]
        elif isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                return False, None, f"no item {part!r} in {walked or 'the state'} (an array of {len(node)})"
            node = node[int(part)]
        else:
            kind = type_name(node)
            return False, None, f"nothing at {here}: {walked or 'the state'} is {kind}, not an object or array"
        walked = here
    return True, node, ""


def json_matches(actual: Any, expected: Any) -> bool:
    """`expected` is a subset of `actual`: objects match on the keys `expected` names (recursively),
    arrays item by item, anything else by `json_equal`."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            key in actual and json_matches(actual[key], value) for key, value in expected.items()
        )
    if isinstance(expected, list):
        return isinstance(actual, list) and len(actual) == len(expected) and all(map(json_matches, actual, expected))
    return json_equal(actual, expected, close_numbers=True)


def _contains(value: Any, expected: Any) -> bool:
    if isinstance(value, str):
        return isinstance(expected, str) and expected.casefold() in value.casefold()
    if isinstance(value, list):
        return any(json_matches(item, expected) for item in value)
    if isinstance(value, dict):
        return expected in value if isinstance(expected, str) else json_matches(value, expected)
    return False


# --- the judge ---------------------------------------------------------------------------------

_JUDGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "score": {"type": "number", "minimum": 0, "maximum": 1, "description": "0: not met at all; 1: fully met."},
        "reasons": {"type": "string", "description": "Why, in a few sentences, citing the state or the calls."},
    },
    "required": ["score", "reasons"],
}
_VERDICT = JsonForm(_JUDGE_SCHEMA, "verdict", "Report the score (0..1) and the reasons for it.")

_JUDGE_SYSTEM = """\
You judge one episode of an agent working in a simulated environment. The agent called the
environment's tools to carry out a task; you see the task, a rubric, the environment's final state and
the tool calls it made. Score how well the outcome meets the rubric, from 0 (not at all) to 1 (fully),
judging only from what the state and the calls show. Answer with one JSON object:
{"score": <number from 0 to 1>, "reasons": "<a few sentences>"}."""


@dataclass(frozen=True, slots=True)
class LlmJudge:
    """A judge that asks the backend's model (`Backend.complete_json`), retrying unusable answers."""

    backend: Backend
    max_attempts: int = 3
    state_budget_chars: int = 24_000

    async def judge(self, task: Task, state: Any, events: Sequence[Event]) -> JudgeResult:
        spec = task.judge
        if spec is None:
            raise ValueError(f"task {task.name!r} has no judge")
        request = _VERDICT.request(judge_prompt(task, state, events, state_budget_chars=self.state_budget_chars))
        answer = await ask_json(self.backend, request, _verdict, attempts=self.max_attempts)
        usage = answer.usage
        if answer.value is not None:
            score, reasons = answer.value
            return JudgeResult(
                score=score, reasons=reasons, weight=spec.weight, passed=score >= spec.pass_score, tokens=usage
            )
        raise InvalidOutcome(
            self.backend.name,
            f"the judge gave no usable verdict in {self.max_attempts} attempts: {answer.problems[-1]}",
            model=self.backend.model,
            usage=usage,
        )


def judge_for(backend: Backend, *, max_attempts: int = 3, state_budget_chars: int = 24_000) -> LlmJudge | None:
    """A judge on the backend's model, or None when the backend has none (offline)."""
    if not backend.can_complete():
        return None
    return LlmJudge(backend, max_attempts=max_attempts, state_budget_chars=state_budget_chars)


def judge_prompt(
    task: Task, state: Any, events: Sequence[Event], *, state_budget_chars: int = 24_000
) -> tuple[str, str]:
    """(system, user) for the judge: task, rubric, the final state (trimmed), the latest events."""
    rubric = task.judge.rubric if task.judge is not None else ""
    state_text = shorten(
        json.dumps(state, ensure_ascii=False, indent=1, default=str), state_budget_chars, separator="\n"
    )
    shown = list(events)[-JUDGE_EVENTS:]
    lines = [_judge_line(event) for event in shown]
    calls = "\n".join(lines) if lines else "(no tool calls)"
    header = f"{len(shown)} of {len(events)}, oldest first" if len(events) > len(shown) else "oldest first"
    # The conversation with the simulated user, when there was one, is among the calls, in order.
    heading = "Tool calls and messages" if any(event.kind != "tool_call" for event in shown) else "Tool calls"
    user = (
        f"## Task: {task.name}\n{task.description or '(no description)'}\n\n"
        f"## Rubric\n{rubric}\n\n"
        f"## Final state of the environment {task.env!r}\n```json\n{state_text}\n```\n\n"
        f"## {heading} ({header})\n{calls}\n"
    )
    return _JUDGE_SYSTEM, user


def _judge_line(event: Event) -> str:
    if event.kind == "agent_message":
        return f"{event.seq}. the agent said to the user: {_clip(event.result)}"
    if event.kind == "user_message":
        return f"{event.seq}. the user said: {_clip(event.result)}"
    error = "ERROR " if event.is_error else ""
    return f"{event.seq}. {event.tool}({_clip(event.arguments)}) -> {error}{_clip(event.result)}"


def _verdict(value: dict[str, Any]) -> tuple[float, str] | Problem:
    score = value.get("score")
    if isinstance(score, bool) or not isinstance(score, int | float) or not 0 <= score <= 1:
        return Problem(f"'score' must be a number from 0 to 1, got {_show(score)}")
    reasons = value.get("reasons", "")
    return float(score), reasons if isinstance(reasons, str) else json.dumps(reasons, ensure_ascii=False)


# --- evaluation --------------------------------------------------------------------------------


async def evaluate(
    task: Task, state: Any, events: Sequence[Event], judge: Judge | None = None, *, initial: Any = None
) -> Evaluation:
    """The task's checks on `state` (the final state of `task.env`), and its judge when it has one; the
    baseline from the checks on `initial`, the session's starting state (None: not known, baseline 0).

    With a judge in the task but none given (a backend without a model), the judge is skipped and the
    reward rests on the checks; `InvalidSessionInput` (field `task`) when nothing would be left to score.
    """
    checks = _run_checks(task, state)
    verdict: JudgeResult | None = None
    if task.judge is not None:
        if judge is None:
            verdict = JudgeResult(
                weight=task.judge.weight,
                skipped="the backend has no model to judge with: run with --backend openai or anthropic",
            )
        else:
            verdict = await judge.judge(task, state, events)
    weights = sum(result.weight for result in checks)
    score = sum(result.weight for result in checks if result.passed)
    if verdict is not None and verdict.score is not None:
        weights += verdict.weight
        score += verdict.weight * verdict.score
    if weights <= 0:
        raise InvalidSessionInput(
            "task",
            f"task {task.name!r} cannot be scored here: its reward rests on its judge, which needs an LLM backend "
            "(--backend openai or anthropic)",
        )
    passed = all(result.passed for result in checks) and (verdict is None or verdict.passed is not False)
    final = _unit(score / weights)
    # The judge is not asked about the starting state: nothing was done yet, so it counts 0 there.
    at_start = [] if initial is None else _run_checks(task, initial)
    baseline = _unit(sum(result.weight for result in at_start if result.passed) / weights)
    return Evaluation(
        task=task.name,
        env=task.env,
        reward=final if task.reward == "absolute" else gain_reward(final, baseline),
        reward_kind=task.reward,
        score=final,
        baseline=baseline,
        gain=round(final - baseline, 6),
        passed=passed,
        checks=checks,
        judge=verdict,
        events=len(events),
    )


def gain_reward(score: float, baseline: float) -> float:
    """The share of what the starting state left to do that was done: 0 for doing nothing (or for making
    things worse), 1 for passing everything; 0 when the starting state already passed everything."""
    if baseline >= 1.0:
        return 0.0
    return _unit((score - baseline) / (1.0 - baseline))


def _unit(value: float) -> float:
    return round(min(1.0, max(0.0, value)), 6)


def _run_checks(task: Task, state: Any) -> list[CheckResult]:
    return [run_check(check, state) for check in task.checks]


def passing_at_start(task: Task, initial_state: Any) -> list[tuple[int, Check]]:
    """The checks that the task's starting state already passes (from its environment's `initial_state`):
    guards against harm, or checks that test nothing. Doing nothing earns their weight under `absolute`."""
    state = start_state(task, initial_state)
    return [(index, check) for index, check in enumerate(task.checks) if run_check(check, state).passed]


def baseline_of(task: Task, initial_state: Any) -> float:
    """The score of doing nothing: the weight of the checks the starting state passes, over all the weight
    (the judge's too, which counts 0 there)."""
    total = sum(check.weight for check in task.checks) + (task.judge.weight if task.judge is not None else 0.0)
    passing = sum(check.weight for _, check in passing_at_start(task, initial_state))
    return _unit(passing / total) if total > 0 else 0.0


async def evaluate_session(
    sessions: SessionService, session_id: str, task: Task, judge: Judge | None = None, *, keep: bool = True
) -> Evaluation:
    """Evaluate a session's state of `task.env`; with `keep`, store the result as the session's evaluation
    (its `reward`). The control API keeps only the evaluations of the session's own task (or of any task for a
    session made for none), so that scoring an episode against another task leaves its reward alone.

    The state is read under the session's lock, judged outside it (a judge may take seconds), and the
    evaluation saved under the lock again, on the record as it is then.
    """
    async with sessions.lock(session_id):
        record = await sessions.get(session_id)
        if record.environment is not None and record.environment != task.env:
            raise InvalidSessionInput(
                "task",
                f"task {task.name!r} runs in environment {task.env!r}, but session {session_id!r} is bound to "
                f"{record.environment!r}",
            )
        if sessions.simulator.catalog.environment(task.env) is None and task.env not in record.worlds:
            raise InvalidSessionInput(
                "task", f"task {task.name!r} runs in environment {task.env!r}, which is not loaded"
            )
        state = copy.deepcopy(sessions.simulator.world_of(record, task.env))
        # Where the session started: its state as created (or the environment's), before any call changed it.
        initial = copy.deepcopy(sessions.simulator.world_of(record.model_copy(update={"worlds": {}}), task.env))
        events = (
            [event for event in await sessions.log(session_id, last=JUDGE_EVENTS * 4) if event.environment == task.env]
            if task.judge is not None and judge is not None
            else []
        )
        count = record.event_count
    evaluation = await evaluate(task, state, events, judge, initial=initial)
    evaluation = evaluation.model_copy(update={"events": count})
    if not keep:
        return evaluation
    async with sessions.lock(session_id):
        current = await sessions.find(session_id)
        if current is not None:  # deleted meanwhile: nothing to keep it on
            await sessions.record_evaluation(current, evaluation.model_dump(mode="json"))
    return evaluation


# --- validating tasks against the environments -------------------------------------------------


def start_state(task: Task, initial_state: Any) -> Any:
    """The state a session for `task` starts with, from its environment's `initial_state`."""
    if task.initial_state is None:
        return copy.deepcopy(initial_state)
    if task.state_mode == "replace":
        return copy.deepcopy(task.initial_state)
    return merge_patch(initial_state, task.initial_state)


def validate_task(task: Task, catalog: Catalog) -> tuple[list[SpecError], list[str]]:
    """Errors (the environment is unknown, a check's path leaves the state's collections, the task mentions an
    id the state lacks, a solution step calls no tool of the environment or breaks its input schema) and notes
    (a check names a record that is not in the starting state: fine if the agent is to create it)."""
    environment = catalog.environment(task.env)
    if environment is None:
        known = ", ".join(sorted(catalog.environments)) or "none loaded"
        return [SpecError(task.source, f"unknown environment {task.env!r}: expected one of {known}", "env")], []
    state = start_state(task, environment.initial_state)
    errors: list[SpecError] = []
    notes: list[str] = []
    errors += _mentioned_id_problems(task, state, notes)
    errors += _solution_problems(task, catalog)
    if task.user is not None and task.user.tool and environment.tool("ask_user") is not None:
        notes.append(
            f"{task.source}: user.tool: environment {task.env!r} has an ask_user tool of its own, which is served "
            "instead of the simulated user"
        )
    for index, check in enumerate(task.checks):
        place = f"checks[{index}].path"
        if check.jsonpath is not None:
            match = _FIRST_KEY.match(check.path)
            key = (match.group(1) or match.group(2)) if match else None
            if key is not None and isinstance(state, dict) and key not in state:
                reason = f"{key!r} is not in the starting state of {task.env!r} ({_keys(state)})"
                errors.append(SpecError(task.source, reason, place))
            continue
        problem = _pointer_problem(state, check, task.env)
        if problem is None:
            continue
        fatal, reason = problem
        if fatal:
            errors.append(SpecError(task.source, reason, place))
        else:
            notes.append(f"{task.source}: {place}: {reason} (fine if the agent is to create it)")
    errors += _starting_state_problems(task, environment.initial_state, notes)
    return errors, notes


def _starting_state_problems(task: Task, initial_state: Any, notes: list[str]) -> list[SpecError]:
    """A check that the starting state already passes earns reward for doing nothing (under `reward:
    absolute`): a note, since a guard against harm ("its status stays pending") is meant to; when every
    check does, the note says the task asks for nothing (task generation rejects such drafts)."""
    passing = passing_at_start(task, initial_state)
    if passing and len(passing) == len(task.checks) and task.judge is None:
        notes.append(
            f"{task.source}: checks: every check already passes on the starting state: the task asks for nothing "
            "to be done (doing nothing passes it)"
        )
        return []
    for index, check in passing:
        notes.append(
            f"{task.source}: checks[{index}] ({check.label}): already passes on the starting state: a guard "
            "against harm, which doing nothing passes too"
        )
    if passing and task.reward == "absolute":
        notes.append(
            f"{task.source}: doing nothing scores {baseline_of(task, initial_state):.2f} (its baseline): give the "
            "task `reward: gain` to reward progress only (docs/rewards.md)"
        )
    return []


def _mentioned_id_problems(task: Task, state: Any, notes: list[str]) -> list[SpecError]:
    """Ids that the task's text mentions (description, user, check values) must be in the starting state.

    An id is a word like `T-1004`, with a prefix that ids in the state have (`T-`): other words with a dash
    and digits (`SHA-256`) are not taken for ids. An id that a check's path names is one the agent is to
    create: a note, not an error."""
    ids, prefixes = _state_ids(state)
    if not prefixes:
        return []
    texts: list[tuple[str, str]] = [("description", task.description)]
    user = task.user
    if user is not None:
        texts += [("user.persona", user.persona), ("user.goal", user.goal), ("user.instructions", user.instructions)]
        texts += [(f"user.known[{index}]", fact) for index, fact in enumerate(user.known)]
        texts += [(f"user.messages[{index}]", item.message) for index, item in enumerate(user.messages)]
    for index, check in enumerate(task.checks):
        if check.kind in ("equals", "contains"):
            value = getattr(check, check.kind)
            texts.append((f"checks[{index}].{check.kind}", value if isinstance(value, str) else json.dumps(value)))
    created = " ".join(check.path for check in task.checks)
    errors: list[SpecError] = []
    for place, text in texts:
        for match in _ID_TOKEN.finditer(text):
            mention = match.group(0)
            if match.group(1) not in prefixes or mention in ids:
                continue
            if re.search(rf"(?<![A-Za-z0-9]){re.escape(mention)}(?![0-9])", created):
                notes.append(f"{task.source}: {place}: {mention} is not in the starting state (a check expects it)")
                continue
            similar = sorted(known for known in ids if known.startswith(f"{match.group(1)}-"))
            shown = ", ".join(similar[:6]) + (f" and {len(similar) - 6} more" if len(similar) > 6 else "")
            reason = f"mentions {mention}, which is not in the starting state of {task.env!r} (it has {shown})"
            errors.append(SpecError(task.source, reason, place))
            break
    return errors


_ID_TOKEN = re.compile(r"(?<![A-Za-z0-9_\-])([A-Za-z]{1,12})-(\d+)(?![A-Za-z0-9_])")
_WHOLE_ID = re.compile(r"^([A-Za-z]{1,12})-\d+$")


def _state_ids(state: Any) -> tuple[set[str], set[str]]:
    """Every id-like key or string value in the state, and their prefixes (`T` for `T-1004`)."""
    ids: set[str] = set()
    stack = [state]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(key, str) and _WHOLE_ID.match(key):
                    ids.add(key)
                stack.append(value)
        elif isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, str) and _WHOLE_ID.match(node):
            ids.add(node)
    prefixes = {match.group(1) for match in map(_WHOLE_ID.match, ids) if match is not None}
    return ids, prefixes


def _solution_problems(task: Task, catalog: Catalog) -> list[SpecError]:
    """Each reference step must call a tool of the task's environment with arguments its schema accepts."""
    errors: list[SpecError] = []
    for index, step in enumerate(task.solution):
        tool = catalog.tool(step.tool, task.env)
        if tool is None:
            names = ", ".join(sorted(tool.name for tool in catalog.tools_of(task.env)))
            reason = f"unknown tool {step.tool!r} in environment {task.env!r}: expected one of {names}"
            errors.append(SpecError(task.source, reason, f"solution[{index}].tool"))
            continue
        if (problem := value_problem(step.arguments, tool.input_validator, "arguments")) is not None:
            errors.append(SpecError(task.source, problem, f"solution[{index}]"))
    return errors


def _pointer_problem(state: Any, check: Check, env: str) -> tuple[bool, str] | None:
    """(fatal, reason) when the pointer leaves the starting state: fatal when more than the last two
    steps are missing (a collection, not just a record and its field), or it runs into a scalar."""
    parts = pointer_parts(check.path)
    node = state
    for depth, part in enumerate(parts):
        walked = "".join(f"/{escape(p)}" for p in parts[: depth + 1])
        if isinstance(node, dict) and part in node:
            node = node[part]
            continue
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
            continue
        if not isinstance(node, dict | list):
            return True, f"{walked} goes into {type_name(node)} in the starting state of {env!r}"
        context = f" ({_keys(node)})" if isinstance(node, dict) else f" (an array of {len(node)})"
        reason = f"{walked} is not in the starting state of {env!r}{context}"
        if depth < len(parts) - 2:
            return True, reason
        negative = check.kind == "absent" or (check.kind == "exists" and check.exists is False)
        return None if negative else (False, reason)
    return None


# --- text helpers ------------------------------------------------------------------------------


def _keys(node: dict[str, Any]) -> str:
    keys = sorted(map(str, node))
    if not keys:
        return "it is empty"
    shown = ", ".join(keys[:8]) + (f" and {len(keys) - 8} more" if len(keys) > 8 else "")
    return f"it has {shown}"


def _show(value: Any, limit: int = 80) -> str:
    return shown(value, limit)


def _clip(value: Any) -> str:
    return _show(value, _JUDGE_VALUE_CHARS)
