"""The gates after the programs, each run by the project's own code on a sandboxed simulator.

- **tasks**: drafts asked with `tasks generate`'s question (`draft_prompt`), each proven by replaying its
  reference solution under the programs (`check_by_replay`); a refused draft is quoted back in the next ask.
- **gain**: a session made for the task, where nothing is done, is evaluated (`evaluate_session`): its reward
  (`reward: gain`) and gain must be 0; after the reference solution, the reward must be 1.
- **consistency**: generated sessions (`CallGenerator`: valid calls whose ids come from the world and the
  answers) answered by the programs: every record a result shows holds the shown values in the state after
  the call (`shown_records`), a record shown again unchanged shows the same, an error changes nothing, and no
  valid call goes without a valid answer.
- **agreement**: a sample of calls (the tools' examples, the tasks' solution steps, generated calls), each from
  the same state, answered by the programs and by the LLM backend following the instructions
  (`compare_answers`, as twin-check compares two servers).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sim_mcp.authoring.tasks.taskgen import TASK_DRAFT, check_by_replay, draft_prompt
from sim_mcp.authoring.twins.agreement import Answer, compare_answers
from sim_mcp.authoring.twins.session_gen import CallGenerator, session_rng
from sim_mcp.config import EngineConfig, LlmConfig
from sim_mcp.engine.backends import Backend
from sim_mcp.engine.consistency import find_collection_at, shown_agrees, shown_records
from sim_mcp.engine.contract import InvalidOutcome
from sim_mcp.engine.records import id_field, locate
from sim_mcp.engine.sessions import SessionService
from sim_mcp.engine.simulator import CallResult, Simulator
from sim_mcp.episodes.rewards import evaluate_session
from sim_mcp.episodes.tasks import TASK_NAME_PATTERN, Task, parse_task
from sim_mcp.errors import BackendError, SpecError
from sim_mcp.specs.model import Environment
from sim_mcp.specs.registry import Catalog
from sim_mcp.state.stores.memory import MemoryStore
from sim_mcp.text import shorten

__all__ = [
    "AgreementReport",
    "Call",
    "TaskDrafts",
    "agreement",
    "agreement_sample",
    "consistency_problems",
    "draft_tasks",
    "gain_problems",
    "sandboxed",
]

_TASK_FIELDS = ("name", "description", "initial_state", "state_mode", "user", "checks", "judge", "solution")


def sandboxed(catalog: Catalog, backend: Backend, engine: EngineConfig, llm: LlmConfig, *, rules: bool) -> Simulator:
    """A simulator over `catalog` with a store of its own and no faults; `rules`: programs answer their tools
    (else the backend answers every call)."""
    config = engine.model_copy(update={"run_rules": rules})
    return Simulator(lambda: catalog, backend, MemoryStore(), config, llm=llm, faults=None, inject_faults=False)


# --- tasks -------------------------------------------------------------------------------------


@dataclass
class TaskDrafts:
    accepted: list[Task] = field(default_factory=list)
    # Each refused draft: its difficulty and why.
    refused: list[tuple[int, str]] = field(default_factory=list)
    asked: int = 0


async def draft_tasks(
    simulator: Simulator,
    environment: Environment,
    backend: Backend,
    *,
    difficulties: Sequence[int],
    per_difficulty: int,
    rounds: int,
) -> TaskDrafts:
    """Up to `per_difficulty` proven tasks at each difficulty, each asked up to `rounds` times with the previous
    draft's refusal quoted; `simulator` runs the programs (the replay is under them)."""
    drafts = TaskDrafts()
    for difficulty in difficulties:
        for number in range(per_difficulty):
            problem: str | None = None
            for _ in range(max(1, rounds)):
                drafts.asked += 1
                system, user = draft_prompt(environment, difficulty, drafts.accepted, number)
                if problem is not None:
                    user += f"\n\nYour previous task was refused: {problem}\nWrite one that passes."
                try:
                    reply = await backend.complete_json(TASK_DRAFT.request((system, user)))
                except InvalidOutcome as e:
                    problem = f"your reply was unusable: {e.reason}"
                    drafts.refused.append((difficulty, problem))
                    continue
                task = _task(reply.value, environment, difficulty, backend, {t.name for t in drafts.accepted})
                if isinstance(task, str):
                    problem = task
                elif (problem := await check_by_replay(task, simulator)) is None:
                    drafts.accepted.append(task)
                    break
                drafts.refused.append((difficulty, problem))
    return drafts


def _task(
    draft: dict[str, Any], environment: Environment, difficulty: int, backend: Backend, taken: set[str]
) -> Task | str:
    document = {key: value for key, value in draft.items() if key in _TASK_FIELDS}
    digest = hashlib.sha256(json.dumps(document, sort_keys=True, default=str).encode()).hexdigest()[:6]
    slug = re.sub(r"[^a-z0-9]+", "-", str(document.get("name") or "").lower()).strip("-")[:40].strip("-")
    slug = slug.removeprefix(f"{environment.name}-")
    name = f"{environment.name}-{slug or f'd{difficulty}'}-{digest}"
    if not re.match(TASK_NAME_PATTERN, name):
        name = f"task-d{difficulty}-{digest}"
    if name in taken:
        return "the same task as one written already: write a different one"
    document |= {
        "name": name,
        "env": environment.name,
        "difficulty": difficulty,
        "reward": "gain",
        "metadata": {"generated": {"by": backend.name, "model": backend.model, "difficulty": difficulty}},
    }
    try:
        return parse_task(document, "generated", place="")
    except SpecError as e:
        return f"not a valid task: {e.place}: {e.reason}" if e.place else f"not a valid task: {e.reason}"


# --- gain ----------------------------------------------------------------------------------------


async def gain_problems(simulator: Simulator, tasks: Sequence[Task]) -> list[str]:
    """Each task for which doing nothing scores other than 0, or its reference solution other than 1."""
    sessions = SessionService(simulator)
    problems: list[str] = []
    for number, task in enumerate(tasks):
        idle = await _task_session(sessions, task, f"idle-{number}")
        evaluation = await evaluate_session(sessions, idle, task, keep=False)
        if evaluation.reward != 0 or evaluation.gain != 0:
            problems.append(
                f"{task.name}: doing nothing scores reward {evaluation.reward:g}, gain {evaluation.gain:g}: expected 0"
            )
            continue
        solved = await _task_session(sessions, task, f"solved-{number}")
        for step in task.solution:
            await simulator.call(solved, step.tool, step.arguments, scope=task.env)
        evaluation = await evaluate_session(sessions, solved, task, keep=False)
        if evaluation.reward != 1:
            problems.append(f"{task.name}: its reference solution scores reward {evaluation.reward:g}: expected 1")
    return problems


async def _task_session(sessions: SessionService, task: Task, session_id: str) -> str:
    record = await sessions.create(
        env=task.env, state=task.initial_state, state_mode=task.state_mode, task=task.name, session_id=session_id
    )
    return record.id


# --- consistency ---------------------------------------------------------------------------------


async def consistency_problems(
    simulator: Simulator, environment: Environment, *, sessions: int, calls: int, seed: int
) -> tuple[dict[str, str], int]:
    """Generated sessions answered by `simulator`: for each tool that broke the property, the first way it
    did (with the call); and how many calls were made."""
    service = SessionService(simulator)
    tools = [(tool.name, tool.input_schema) for tool in environment.tools]
    descriptions = {tool.name: tool.description for tool in environment.tools}
    found: dict[str, str] = {}
    made = 0
    for number in range(sessions):
        record = await service.create(env=environment.name, session_id=f"consistency-{seed}-{number}")
        generator = CallGenerator(tools, session_rng(seed, number))
        generator.observe(environment.initial_state)
        shown: dict[tuple[tuple[str, ...], str], tuple[str, dict[str, Any]]] = {}
        before = simulator.world_of(record, environment.name)
        for _ in range(calls):
            name, arguments = generator.next_call()
            answer = await simulator.call(record.id, name, arguments, scope=environment.name)
            if answer.kind not in ("ok", "error", "failed"):
                continue  # refused before any program ran (arguments the schema's formats refuse)
            made += 1
            after = simulator.world_of(await service.get(record.id), environment.name)
            call = f"{name}({shorten(json.dumps(arguments, ensure_ascii=False), 200)})"
            problem: str | None = None
            if answer.kind == "failed":
                problem = f"{call} got no valid answer: {shorten(answer.text, 300)}"
            elif answer.is_error:
                if _canonical(after) != _canonical(before):
                    problem = f"{call} failed ({shorten(answer.text, 160)}) but changed the state"
            else:
                problem = _shown_problem(call, name, descriptions[name], answer, before, after, shown)
            if problem is not None and name not in found:
                found[name] = problem
            generator.observe(answer.result)
            before = after
    return found, made


def _shown_problem(
    call: str,
    tool: str,
    description: str,
    answer: CallResult,
    before: Any,
    after: Any,
    shown: dict[tuple[tuple[str, ...], str], tuple[str, dict[str, Any]]],
) -> str | None:
    for record in shown_records(answer.result, tool, before, after, description):
        collection = find_collection_at(after, record.collection.path)
        located = locate(collection, record.record_id) if collection is not None else None
        key = (record.collection.path, str(record.record_id))
        where = f"{'/'.join(key[0])}/{key[1]}"
        if located is None:
            was = find_collection_at(before, record.collection.path)
            if record.must_exist or was is None or locate(was, record.record_id) is None:
                return f"{call} shows the record {where}, which the state does not hold"
            shown.pop(key, None)
            continue
        stored = located[1]
        for name, value in record.fields.items():
            if not shown_agrees(value, stored.get(name)) and not (
                name == id_field(record.collection) and str(value) == str(stored.get(name))
            ):
                return (
                    f"{call} shows {where} {name}={_show(value)}, but the state after the call holds "
                    f"{_show(stored.get(name))}: a result must show what the state stores"
                )
        previous = shown.get(key)
        snapshot = _canonical(stored)
        if previous is not None and previous[0] == snapshot:
            for name, value in record.fields.items():
                if name in previous[1] and previous[1][name] != value:
                    return (
                        f"{call} shows {where} {name}={_show(value)}; unchanged, it showed {_show(previous[1][name])}"
                    )
        shown[key] = (snapshot, {**(previous[1] if previous and previous[0] == snapshot else {}), **record.fields})
    return None


# --- agreement -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Call:
    """One call of the sample, and the state it is made in."""

    tool: str
    arguments: dict[str, Any]
    state: Any


@dataclass
class AgreementReport:
    agreed: int = 0
    total: int = 0
    disagreements: list[str] = field(default_factory=list)

    @property
    def share(self) -> float:
        return self.agreed / self.total if self.total else 1.0


async def agreement_sample(
    programs: Simulator, environment: Environment, tasks: Sequence[Task], *, size: int, seed: int
) -> list[Call]:
    """Up to `size` calls: each tool's examples, then the tasks' solution steps (in the state the steps before
    them reached under the programs), then generated calls on the initial state."""
    calls = [
        Call(tool.name, example.arguments, environment.initial_state)
        for tool in environment.tools
        for example in tool.examples[:1]
    ]
    sessions = SessionService(programs)
    for number, task in enumerate(tasks):
        if len(calls) >= size:
            break
        session = await _task_session(sessions, task, f"sample-{number}")
        for step in task.solution:
            state = programs.world_of(await sessions.get(session), task.env)
            calls.append(Call(step.tool, step.arguments, state))
            await programs.call(session, step.tool, step.arguments, scope=task.env)
    generator = CallGenerator([(tool.name, tool.input_schema) for tool in environment.tools], session_rng(seed, 999))
    generator.observe(environment.initial_state)
    for _ in range(max(0, size - len(calls))):
        name, arguments = generator.next_call()
        calls.append(Call(name, arguments, environment.initial_state))
    return calls[:size]


async def agreement(
    programs: Simulator, llm: Simulator, environment: Environment, calls: Sequence[Call]
) -> AgreementReport:
    """Each call answered from its state by the programs and by the LLM; how many agree, and where not."""
    report = AgreementReport()
    for number, call in enumerate(calls):
        expected = await _answer(programs, environment, call, f"agree-programs-{number}")
        try:
            actual = await _answer(llm, environment, call, f"agree-llm-{number}")
        except BackendError as e:
            actual = CallResult(f"the backend failed: {e}", True, kind="failed")
        if expected.kind not in ("ok", "error"):
            continue  # refused before any answer, or the programs failed (the consistency gate's finding)
        report.total += 1
        verdict = compare_answers(Answer(expected.result, expected.is_error), Answer(actual.result, actual.is_error))
        if verdict.agree and actual.kind != "failed":
            report.agreed += 1
            continue
        report.disagreements.append(
            f"{call.tool}({shorten(json.dumps(call.arguments, ensure_ascii=False), 200)}): the programs answered "
            f"{_said(expected)}, the simulator {_said(actual)}" + (f" ({verdict.detail})" if verdict.detail else "")
        )
    return report


async def _answer(simulator: Simulator, environment: Environment, call: Call, session_id: str) -> CallResult:
    sessions = SessionService(simulator)
    await sessions.create(env=environment.name, state=call.state, state_mode="replace", session_id=session_id)
    return await simulator.call(session_id, call.tool, call.arguments, scope=environment.name)


def _said(answer: CallResult) -> str:
    kind = "the error" if answer.is_error else "the result"
    return f"{kind} {shorten(answer.text, 240)}"


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _show(value: Any) -> str:
    return shorten(json.dumps(value, ensure_ascii=False, default=str), 120)
