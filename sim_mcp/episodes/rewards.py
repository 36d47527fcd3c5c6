"""Rewards: a task's checks run on an environment's final state, optionally blended with an LLM judge.

- **Checks** read values at a JSON Pointer or a JSONPath and hold them to a condition of their kind
  (`episodes/checks.py`; sim-mcp's own kinds: `episodes/check_kinds.py`).
- **Score** is the weighted share of checks passed; a judge's score (0..1) counts with its own weight.
  `passed` means every check passed and the judge (when it ran) scored at least its `pass_score`.
- **Baseline** is the score of the session's starting state (the judge, never asked about it, counts 0),
  and **gain** the score minus the baseline. A check that guards against harm ("its status stays
  pending") already passes at the start, so doing nothing has a baseline above 0.
- **Reward** is the score (`reward: absolute`, the default), or with `reward: gain` the share of what was
  left to do that the episode did, `(score - baseline) / (1 - baseline)` clipped to 0..1: 0 for doing
  nothing or for making things worse, 1 for passing everything. docs/rewards.md says which to use.
- **Judge** (`episodes/judge.py`): the backend's model scores the rubric. A backend without a model
  (offline) skips the judge, and the evaluation says so; a task whose reward would then rest on nothing
  is an error.

Tasks are checked against their environments before they run in `episodes/validation.py`.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from sim_mcp.engine.sessions import SessionService, merge_patch
from sim_mcp.episodes.checks import CheckResult, run_check
from sim_mcp.episodes.judge import JUDGE_EVENTS, Judge, JudgeResult
from sim_mcp.episodes.tasks import Check, Task
from sim_mcp.errors import InvalidSessionInput
from sim_mcp.plugins import BACKENDS
from sim_mcp.state.session import Event

__all__ = [
    "Evaluation",
    "baseline_of",
    "evaluate",
    "evaluate_session",
    "gain_reward",
    "passing_at_start",
    "start_state",
]


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
                skipped=f"the backend has no model to judge with: run with --backend {_with_model()}",
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
            f"(--backend {_with_model()})",
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


def start_state(task: Task, initial_state: Any) -> Any:
    """The state a session for `task` starts with, from its environment's `initial_state`."""
    if task.initial_state is None:
        return copy.deepcopy(initial_state)
    if task.state_mode == "replace":
        return copy.deepcopy(task.initial_state)
    return merge_patch(initial_state, task.initial_state)


def _with_model() -> str:
    return " or ".join(BACKENDS.tagged("model"))
