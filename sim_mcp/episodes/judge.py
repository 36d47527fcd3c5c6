"""The LLM judge: a task's rubric, the final state (trimmed to the state budget) and the environment's last
events go to the backend's model (`Backend.complete_json`), which answers `{score, reasons}`. A backend
without a model (offline) has no judge (`judge_for` gives None), and the evaluation says so.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel, Field

from sim_mcp.engine.backends import Backend
from sim_mcp.engine.contract import InvalidOutcome
from sim_mcp.episodes.asking import JsonForm, Problem, ask_json
from sim_mcp.episodes.checks import show
from sim_mcp.episodes.tasks import Task
from sim_mcp.state.session import Event, TokenUsage
from sim_mcp.text import shorten

__all__ = ["JUDGE_EVENTS", "Judge", "JudgeResult", "LlmJudge", "judge_for", "judge_prompt"]

# The judge sees at most this many of the environment's latest events, each value cut to this many characters.
JUDGE_EVENTS = 30
_JUDGE_VALUE_CHARS = 400


class JudgeResult(BaseModel):
    score: float | None = Field(default=None, description="0..1; None when the judge was skipped.")
    reasons: str = ""
    weight: float = 1.0
    passed: bool | None = None
    skipped: str | None = Field(default=None, description="Why the judge did not run.")
    tokens: TokenUsage = Field(default_factory=TokenUsage)


class Judge(Protocol):
    """Scores a task's outcome against its rubric."""

    async def judge(self, task: Task, state: Any, events: Sequence[Event]) -> JudgeResult: ...


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
        return f"{event.seq}. the agent said to the user: {_clipped(event.result)}"
    if event.kind == "user_message":
        return f"{event.seq}. the user said: {_clipped(event.result)}"
    error = "ERROR " if event.is_error else ""
    return f"{event.seq}. {event.tool}({_clipped(event.arguments)}) -> {error}{_clipped(event.result)}"


def _verdict(value: dict[str, Any]) -> tuple[float, str] | Problem:
    score = value.get("score")
    if isinstance(score, bool) or not isinstance(score, int | float) or not 0 <= score <= 1:
        return Problem(f"'score' must be a number from 0 to 1, got {show(score)}")
    reasons = value.get("reasons", "")
    return float(score), reasons if isinstance(reasons, str) else json.dumps(reasons, ensure_ascii=False)


def _clipped(value: Any) -> str:
    return show(value, _JUDGE_VALUE_CHARS)
