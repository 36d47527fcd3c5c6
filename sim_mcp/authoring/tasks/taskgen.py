"""Task generation: tasks grounded in an environment's state and tools, each proven by its own solution.

`generate_tasks` drafts tasks, then keeps only those that survive validation:

1. the draft parses as a task (`episodes.tasks.parse_task`) and passes `validation.validate_task` (the ids it
   names are in the state, its checks' paths exist, its solution calls the environment's tools with
   arguments their schemas accept);
2. its checks do not already pass on the starting state (a task must ask for something);
3. its reference solution, replayed through the runtime's simulator (the chosen backend) in its sandbox (a
   fresh in-memory store, no injected faults), makes no call that fails;
4. after the replay, every check passes.

Drafts come from the backend's model (`Backend.complete_json`) when it has one: the prompt holds the
environment (rules, tools, state) and what the difficulty asks for. Without one (offline), they are filled
from templates over the state: status changes (`close_ticket`, `cancel_order`...) and field updates
(`update_ticket` with a new priority) on records that exist, with checks on the fields they change.

**Difficulty** D raises, for both: the number of steps and tools (D steps offline; more for the model),
how much the user leaves unsaid (at 1 the first message says everything; at 2 it leaves the ids to known
facts, shared when asked; at 3 and over it says only that there are things to sort out), and how strict the
checks are (from 2, checks that nothing else changed status; from 3, that no record appeared or vanished).
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jsonpointer import escape

from sim_mcp.engine.backends import Backend
from sim_mcp.engine.contract import InvalidOutcome
from sim_mcp.engine.intent import STATUS_OF_VERB, Action, Collection, find_collection, read_intent, split_words
from sim_mcp.engine.schema_data import generate as generate_value
from sim_mcp.engine.sessions import SessionService
from sim_mcp.engine.simulator import Simulator
from sim_mcp.episodes.asking import JsonForm
from sim_mcp.episodes.checks import check_kind, run_check
from sim_mcp.episodes.rewards import start_state
from sim_mcp.episodes.tasks import TASK_NAME_PATTERN, Task, parse_task
from sim_mcp.episodes.validation import validate_task
from sim_mcp.errors import BackendError, SpecError
from sim_mcp.plugins import CHECK_KINDS
from sim_mcp.specs.model import Environment, ToolSpec
from sim_mcp.specs.registry import Catalog
from sim_mcp.specs.schema import value_problem
from sim_mcp.text import clip, shorten

__all__ = [
    "TASK_DRAFT",
    "GenerationReport",
    "Rejection",
    "check_by_replay",
    "draft_prompt",
    "generate_tasks",
    "template_drafts",
]

# The state shown to the model is cut to this many characters.
_STATE_CHARS = 16_000
_TERMINAL = frozenset(STATUS_OF_VERB.values())
_TASK_FIELDS = ("name", "description", "initial_state", "state_mode", "user", "checks", "judge", "solution")
_LABEL_FIELDS = ("title", "name", "nickname", "summary", "subject")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

_DRAFT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "short-kebab-case-name"},
        "description": {"type": "string", "description": "The task, fully stated, for a human or a judge."},
        "user": {
            "type": "object",
            "properties": {
                "persona": {"type": "string"},
                "goal": {"type": "string"},
                "known": {"type": "array", "items": {"type": "string"}},
                "withheld": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"about": {"type": "string"}, "value": {"type": "string"}},
                        "required": ["about", "value"],
                    },
                },
                "messages": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["persona", "goal", "known", "messages"],
        },
        "checks": {"type": "array", "items": {"type": "object"}},
        "solution": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"tool": {"type": "string"}, "arguments": {"type": "object"}},
                "required": ["tool", "arguments"],
            },
        },
    },
    "required": ["description", "user", "checks", "solution"],
}
_DRAFT = JsonForm(_DRAFT_SCHEMA, "task", "Write the task: description, user, checks and a reference solution.")
# What a task draft is asked as (`draft_prompt` gives the question), for whoever drafts tasks its own way.
TASK_DRAFT = _DRAFT

_SYSTEM = """\
You write tasks for training and evaluating AI agents in a simulated software environment. An agent \
serves a simulated user: the user asks for something, and the agent carries it out by calling the \
environment's tools. A task says what the user wants, and checks on the environment's final state decide \
whether the agent succeeded.

A good task:
1. Is grounded: every id, name and value it mentions exists in the world state below (or is made by the \
solution), and it follows the environment's rules.
2. Is reachable: `solution` lists tool calls, in order, that achieve it from the state below; each call \
uses a tool below with arguments its input schema accepts.
3. Is checkable: `checks` hold only after the work is done (they must fail on the state below). A check is \
{"path": JSON Pointer like /tickets/T-1001/status or JSONPath like $.tickets[?(@.status == 'open')], and \
exactly one of {check_kinds}; optional "name" and "weight"}.
4. Has a user: `persona` (who they are, how they write), `goal` (what they want), `known` (facts they \
share when asked, as sentences), `withheld` (optional: private facts they never share, {"about", \
"value"}), and `messages`: what the user says, in order, when there is no model to play them (the first \
states the request as the difficulty allows; later ones answer the agent's likely questions).

Reply with exactly one JSON object: {"name", "description", "user", "checks", "solution"}."""


@dataclass(frozen=True, slots=True)
class Rejection:
    """A draft that failed validation, and why."""

    name: str
    reason: str


@dataclass
class GenerationReport:
    env: str
    difficulty: int
    attempts: int = 0
    accepted: list[Task] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)


async def generate_tasks(
    simulator: Simulator,
    env: str,
    *,
    count: int,
    difficulty: int,
    existing: Mapping[str, Task] | None = None,
    seed: int = 0,
) -> GenerationReport:
    """Draft `count` tasks for `env` at `difficulty` with the simulator's backend, and keep those that pass
    validation (see the module); `simulator` is the runtime's, whose catalog and backend the tasks are for."""
    catalog, backend = simulator.catalog, simulator.backend
    environment = catalog.environment(env)
    if environment is None:
        known = ", ".join(sorted(catalog.environments)) or "none loaded"
        raise SpecError("--env", f"unknown environment {env!r}: expected one of {known}")
    report = GenerationReport(env=env, difficulty=difficulty)
    taken = set(existing or {})
    if backend.can_complete():
        for attempt in range(count):
            draft = await _model_draft(environment, difficulty, backend, report.accepted, attempt)
            await _consider(draft, report, taken, simulator, environment, difficulty)
        return report
    drafts = template_drafts(environment, difficulty, count, seed=seed)
    for draft in drafts:
        await _consider(draft, report, taken, simulator, environment, difficulty)
    if len(drafts) < count:
        report.rejected.append(
            Rejection(
                "(templates)",
                f"only {len(drafts)} distinct tasks at difficulty {difficulty} could be made from the state of {env!r}",
            )
        )
    return report


async def _consider(
    draft: dict[str, Any] | Rejection,
    report: GenerationReport,
    taken: set[str],
    simulator: Simulator,
    environment: Environment,
    difficulty: int,
) -> None:
    backend = simulator.backend
    report.attempts += 1
    if isinstance(draft, Rejection):
        report.rejected.append(draft)
        return
    document = {key: value for key, value in draft.items() if key in _TASK_FIELDS}
    name = _task_name(environment.name, difficulty, document)
    document.update(
        {
            "name": name,
            "env": environment.name,
            "difficulty": difficulty,
            "metadata": {"generated": {"by": backend.name, "model": backend.model, "difficulty": difficulty}},
        }
    )
    if name in taken:
        report.rejected.append(Rejection(name, "a task of that name exists already (the same task, drafted again)"))
        return
    try:
        task = parse_task(document, "generated", place="")
    except SpecError as e:
        report.rejected.append(Rejection(name, f"not a valid task: {e.place}: {e.reason}" if e.place else e.reason))
        return
    problem = await check_by_replay(task, simulator)
    if problem is not None:
        report.rejected.append(Rejection(name, problem))
        return
    taken.add(name)
    report.accepted.append(task)


async def check_by_replay(task: Task, simulator: Simulator) -> str | None:
    """Why `task` is not proven by its reference solution, or None when it is: validation, a starting state its
    checks already accept, a failing step, a check that still fails after the steps. The steps run in the
    simulator's sandbox (a store of its own, no injected faults), so served sessions never see them."""
    catalog = simulator.catalog
    errors, _ = validate_task(task, catalog)
    if errors:
        error = errors[0]
        return f"{error.place}: {error.reason}" if error.place else error.reason
    environment = catalog.environment(task.env)
    assert environment is not None  # validate_task said so
    if not task.solution:
        return "no reference solution (solution: the tool calls that achieve the task)"
    start = start_state(task, environment.initial_state)
    if task.checks and all(run_check(check, start).passed for check in task.checks):
        return "its checks already pass on the starting state: the task asks for nothing"
    rehearsal = simulator.sandbox()
    sessions = SessionService(rehearsal)
    record = await sessions.create(
        env=task.env, state=task.initial_state, state_mode=task.state_mode, task=task.name, session_id="replay"
    )
    for index, step in enumerate(task.solution):
        try:
            outcome = await rehearsal.call(record.id, step.tool, step.arguments, scope=task.env)
        except BackendError as e:
            return f"solution[{index}] ({step.tool}): the backend failed: {e}"
        if outcome.is_error:
            return f"solution[{index}] ({step.tool}) failed in the replay: {shorten(outcome.text, 200)}"
    final = rehearsal.world_of(await sessions.get(record.id), task.env)
    for index, check in enumerate(task.checks):
        result = run_check(check, final)
        if not result.passed:
            return f"checks[{index}] ({result.name}) fails after the reference solution: {result.detail}"
    return None


def _task_name(env: str, difficulty: int, document: Mapping[str, Any]) -> str:
    """`{env}-{slug}-{hash}`: readable, and the same for the same draft."""
    digest = hashlib.sha256(json.dumps(document, sort_keys=True, default=str).encode()).hexdigest()[:6]
    proposed = document.get("name") if isinstance(document.get("name"), str) else ""
    slug = re.sub(r"[^a-z0-9]+", "-", str(proposed).lower()).strip("-")[:48].strip("-")
    if slug.startswith(f"{env.lower()}-"):
        slug = slug[len(env) + 1 :]
    name = f"{env}-{slug or f'd{difficulty}'}-{digest}"
    return name if re.match(TASK_NAME_PATTERN, name) else f"task-d{difficulty}-{digest}"


# --- drafts from the model ---------------------------------------------------------------------


async def _model_draft(
    environment: Environment, difficulty: int, backend: Backend, accepted: Sequence[Task], attempt: int
) -> dict[str, Any] | Rejection:
    request = _DRAFT.request(draft_prompt(environment, difficulty, accepted, attempt))
    try:
        reply = await backend.complete_json(request)
    except InvalidOutcome as e:
        return Rejection(f"(draft {attempt + 1})", f"the model's reply was unusable: {e.reason}")
    except BackendError as e:
        return Rejection(f"(draft {attempt + 1})", f"the model failed: {e}")
    return reply.value


def draft_prompt(environment: Environment, difficulty: int, accepted: Sequence[Task], attempt: int) -> tuple[str, str]:
    """(system, user) asking the model for one task at `difficulty`, grounded in the environment."""
    tools = [
        {"name": tool.name, "description": tool.description, "input_schema": tool.input_schema}
        for tool in environment.tools
    ]
    parts = [f"# Environment: {environment.name}"]
    if environment.description:
        parts.append(environment.description.strip())
    if environment.instructions:
        parts += ["## Rules of this environment", environment.instructions.strip()]
    parts += ["## Tools", _fence(tools)]
    state = json.dumps(environment.initial_state, ensure_ascii=False, indent=1)
    state = shorten(state, _STATE_CHARS, separator="\n")
    parts += ["## World state (before the agent acts)", "```json\n" + state.replace("`", "\\u0060") + "\n```"]
    kinds = ", ".join(check_kind(name).prompt for name in CHECK_KINDS)
    system = _SYSTEM.replace("{check_kinds}", kinds) + "\n\n" + "\n\n".join(parts) + "\n"
    lines = [f"## Difficulty {difficulty}", _difficulty_text(difficulty)]
    if accepted:
        lines += ["", "Tasks written already (write a different one):"]
        lines += [f"- {task.description[:160]}" for task in accepted]
    lines += ["", f"Write task number {attempt + 1}. Reply with one JSON object."]
    return system, "\n".join(lines)


def _difficulty_text(difficulty: int) -> str:
    if difficulty <= 1:
        return (
            "Easy: one or two tool calls on one record. The user's first message states everything the agent "
            "needs (ids, values). Checks test the change asked for."
        )
    if difficulty == 2:
        return (
            "Medium: two to four tool calls with at least two different tools. The user states the goal but "
            "leaves ids or exact values out of the first message: they are known facts, shared when asked. "
            "Checks test the changes, and that nothing else changed (e.g. counts of records by status)."
        )
    steps = 2 * difficulty
    return (
        f"Hard: {difficulty + 1} to {steps} tool calls with at least three different tools, over several records. "
        "The user says only what they want in general terms; the details are known facts the agent must ask for, "
        "or find with the tools. Checks are strict: exact values, counts of records, other records untouched."
    )


# --- drafts from templates (no model) ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Action:
    """One step a template task can ask for, with the checks that prove it."""

    tool: str
    arguments: dict[str, Any]
    checks: list[dict[str, Any]]
    ask: str  # "close ticket T-1004"
    vague: str  # "close the ticket 'Login loop after enabling SSO'"
    fact: str  # "The ticket is T-1004."
    record: tuple[str, str]
    collection: tuple[str, ...]
    status: str | None = None  # the status the step sets, if it is a status change


@dataclass(frozen=True, slots=True)
class _Target:
    """One record a tool can change, and what the tool's input schema asks to be told about it."""

    spec: ToolSpec
    collection: Collection
    key: str
    record: dict[str, Any]
    id_param: str

    @property
    def tool(self) -> str:
        return self.spec.name

    @property
    def properties(self) -> dict[str, Any]:
        properties = self.spec.input_schema.get("properties", {})
        return properties if isinstance(properties, dict) else {}

    @property
    def required(self) -> list[str]:
        return [name for name in self.spec.input_schema.get("required", []) if isinstance(name, str)]

    @property
    def pointer(self) -> str:
        return f"{self.collection.pointer}/{escape(self.key)}"

    def arguments(self, *, skip: str | None = None) -> dict[str, Any]:
        """The call's arguments: the record's id, and the other required ones filled from the record."""
        skipped = {self.id_param} if skip is None else {self.id_param, skip}
        return {self.id_param: self.key, **_filled(self.properties, self.required, self.record, skip=skipped)}


def template_drafts(environment: Environment, difficulty: int, count: int, *, seed: int = 0) -> list[dict[str, Any]]:
    """Up to `count` distinct drafts for `environment` at `difficulty`, filled from its state (no model)."""
    actions = _actions(environment)
    steps = max(1, difficulty)
    drafts: list[dict[str, Any]] = []
    seen: set[frozenset[tuple[str, str, str]]] = set()
    rng = random.Random(f"{seed}:{environment.name}:{difficulty}")
    for _ in range(count * 20):
        if len(drafts) >= count or len(actions) < steps:
            break
        chosen = _choose(actions, steps, rng)
        if chosen is None:
            continue
        key = frozenset((action.tool, *action.record) for action in chosen)
        if key in seen:
            continue
        seen.add(key)
        drafts.append(_draft(environment, chosen, difficulty))
    return drafts


def _choose(actions: Sequence[_Action], steps: int, rng: random.Random) -> list[_Action] | None:
    """`steps` actions on distinct records, with as many distinct tools as there are."""
    pool = list(actions)
    rng.shuffle(pool)
    chosen: list[_Action] = []
    for action in pool:
        if any(other.record == action.record for other in chosen):
            continue
        tools = {other.tool for other in chosen}
        if action.tool in tools and len(tools) < len({item.tool for item in actions}):
            continue
        chosen.append(action)
        if len(chosen) == steps:
            return chosen
    # Not enough distinct tools: allow repeats, still on distinct records.
    for action in pool:
        if len(chosen) == steps:
            break
        if action not in chosen and all(other.record != action.record for other in chosen):
            chosen.append(action)
    return chosen if len(chosen) == steps else None


def _actions(environment: Environment) -> list[_Action]:
    state = environment.initial_state
    actions: list[_Action] = []
    catalog = Catalog.build([environment])
    for spec in environment.tools:
        intent = read_intent(spec.name)
        if intent.action not in (Action.SET_STATUS, Action.UPDATE):
            continue
        collection = find_collection(state, intent.noun)
        tool = catalog.tool(spec.name, environment.name)
        if collection is None or tool is None or not isinstance(collection.records, dict):
            continue
        properties = spec.input_schema.get("properties", {})
        id_param = _id_parameter(collection, properties)
        if id_param is None or not isinstance(properties, dict):
            continue
        for key, record in sorted(collection.records.items()):
            if not isinstance(record, dict) or record.get("status") in _TERMINAL:
                continue
            target = _Target(spec, collection, key, record, id_param)
            candidates = (
                _status_actions(target, intent.verb) if intent.action is Action.SET_STATUS else _update_actions(target)
            )
            actions += [
                action for action in candidates if value_problem(action.arguments, tool.input_validator) is None
            ]
    return actions


def _id_parameter(collection: Collection, properties: Any) -> str | None:
    if not isinstance(properties, dict):
        return None
    base = collection.singular
    camel = re.sub(r"_(\w)", lambda m: m.group(1).upper(), base)
    for name in (f"{base}_id", f"{camel}Id", f"{base}Id", "id"):
        if name in properties:
            return name
    return None


def _status_actions(target: _Target, verb: str) -> list[_Action]:
    status = STATUS_OF_VERB.get(verb)
    record, properties, id_param = target.record, target.properties, target.id_param
    if status is None or "status" not in record or record["status"] == status:
        return []
    arguments = target.arguments()
    pointer = target.pointer
    checks: list[dict[str, Any]] = [{"path": f"{pointer}/status", "equals": status}]
    # A free-text field the call records (a resolution, a reason): asked for, and checked.
    note = next(
        (
            name
            for name, schema in sorted(properties.items())
            if name != id_param and name in record and _free_text(schema) and record.get(name) in (None, "")
        ),
        None,
    )
    detail = ""
    if note is not None:
        text = "Handled at the customer's request"
        arguments[note] = text
        checks.append({"path": f"{pointer}/{note}", "contains": "customer's request"})
        detail = f', with the {_words(note)} "{text}"'
    return [_record_action(target, arguments, checks, verb, detail, status)]


def _update_actions(target: _Target) -> list[_Action]:
    actions: list[_Action] = []
    record, id_param = target.record, target.id_param
    pointer = target.pointer
    for name, schema in sorted(target.properties.items()):
        if name == id_param or name not in record or not isinstance(schema, dict):
            continue
        current = record[name]
        enum = schema.get("enum")
        new: Any
        if isinstance(enum, list):
            options = [value for value in enum if value is not None and value != current and value not in _TERMINAL]
            if not options:
                continue
            new = options[0]
        elif _free_text(schema) and isinstance(current, str) and " " in current.strip():  # prose, not a code
            new = f"{current} (revised)"
        else:
            continue
        arguments = {**target.arguments(skip=name), name: new}
        checks: list[dict[str, Any]] = [{"path": f"{pointer}/{escape(name)}", "equals": new}]
        status = record.get("status")
        if name != "status" and isinstance(status, str):
            checks.append({"path": f"{pointer}/status", "equals": status, "weight": 0.5})
        status = new if name == "status" and isinstance(new, str) else None
        change = f"set the {_words(name)} of"
        actions.append(_record_action(target, arguments, checks, change, f" to {new}", status))
    return actions


def _record_action(
    target: _Target,
    arguments: dict[str, Any],
    checks: list[dict[str, Any]],
    change: str,
    detail: str,
    status: str | None,
) -> _Action:
    """An action on one record, asked for by its id ("close ticket T-1002") or, vaguer, by what it is."""
    collection, key = target.collection, target.key
    noun = _words(collection.singular)
    label = _label(noun, key, target.record)
    return _Action(
        tool=target.tool,
        arguments=arguments,
        checks=checks,
        ask=f"{change} {noun} {key}{detail}",
        vague=f"{change} {label}{detail}",
        fact=_sentence(f"{label} is {key}"),
        record=(collection.pointer, key),
        collection=collection.path,
        status=status,
    )


def _draft(environment: Environment, actions: Sequence[_Action], difficulty: int) -> dict[str, Any]:
    asks = [action.ask for action in actions]
    description = _sentence(_joined(asks))
    checks = [check for action in actions for check in action.checks]
    state = environment.initial_state
    if difficulty >= 2:
        # Strictness: no other record changed to the statuses the task sets.
        for path, status in sorted({(a.collection, a.status) for a in actions if a.status is not None}):
            jsonpath = _jsonpath(path)
            if jsonpath is None:
                continue
            after = _statuses_after(state, path, actions)
            checks.append(
                {
                    "name": f"no other {_words(path[-1])} became {status}",
                    "path": f"{jsonpath}[?(@.status == '{status}')]",
                    "count": sum(1 for value in after.values() if value == status),
                    "weight": 0.5,
                }
            )
    if difficulty >= 3:
        for path in sorted({action.collection for action in actions}):
            pointer = "".join(f"/{escape(part)}" for part in path)
            size = len(_records(state, path))
            checks.append({"name": f"no {_words(path[-1])} added or removed", "path": pointer, "count": size})
    if difficulty <= 1:
        opening = f"Hi, please {_joined(asks)}."
        known: list[str] = []
        messages = [opening]
    elif difficulty == 2:
        opening = f"Hi, could you {_joined([action.vague for action in actions])}?"
        known = [action.fact for action in actions]
        messages = [opening, " ".join(known)]
    else:
        opening = f"Hi, I have {len(actions)} things to sort out in {environment.name}. Can you help?"
        known = [_sentence(f"I need you to {action.ask}") for action in actions]
        messages = [opening, *known]
    return {
        "name": f"{'-'.join(split_words(actions[0].tool))}-d{difficulty}",
        "description": description,
        "user": {
            "persona": f"A busy {environment.name} customer who writes short, plain messages.",
            "goal": _sentence(f"Get the agent to {_joined(asks)}"),
            "known": known,
            "messages": messages,
        },
        "checks": checks,
        "solution": [{"tool": action.tool, "arguments": action.arguments} for action in actions],
    }


def _statuses_after(state: Any, path: tuple[str, ...], actions: Sequence[_Action]) -> dict[str, Any]:
    """Each record's status in the collection at `path` once the actions are done."""
    node = state
    for part in path:
        node = node.get(part) if isinstance(node, dict) else None
    records = node if isinstance(node, dict) else {}
    after = {key: record.get("status") for key, record in records.items() if isinstance(record, dict)}
    for action in actions:
        if action.collection == path and action.status is not None:
            after[action.record[1]] = action.status
    return after


def _filled(properties: dict[str, Any], required: list[str], record: dict[str, Any], skip: set[str]) -> dict[str, Any]:
    """Values for the required arguments: the record's own value when it fits, else a plain valid one."""
    values: dict[str, Any] = {}
    for name in required:
        schema = properties.get(name)
        if name in skip or not isinstance(schema, dict):
            continue
        if name in record and record[name] is not None:
            values[name] = copy.deepcopy(record[name])
        elif _free_text(schema):
            values[name] = "Requested by the customer"
        else:
            values[name] = generate_value(schema, name)
    return values


def _free_text(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    return "string" in kinds and not any(key in schema for key in ("enum", "format", "pattern", "const"))


def _records(state: Any, path: tuple[str, ...]) -> list[dict[str, Any]]:
    node = state
    for part in path:
        node = node.get(part) if isinstance(node, dict) else None
    values = node.values() if isinstance(node, dict) else node if isinstance(node, list) else []
    return [value for value in values if isinstance(value, dict)]


def _jsonpath(path: tuple[str, ...]) -> str | None:
    if not all(_IDENTIFIER.match(part) for part in path):
        return None
    return "$." + ".".join(path)


def _label(noun: str, key: str, record: dict[str, Any]) -> str:
    for name in _LABEL_FIELDS:
        value = record.get(name)
        if isinstance(value, str) and value.strip():
            return f'the {noun} "{clip(value.strip(), 60)}"'
    return f"the {noun} {key}"


def _words(name: str) -> str:
    return " ".join(split_words(name))


def _joined(parts: Sequence[str]) -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _sentence(text: str) -> str:
    text = text.strip()
    return (text[:1].upper() + text[1:]).rstrip(".") + "."


def _fence(value: Any) -> str:
    return "```json\n" + json.dumps(value, ensure_ascii=False, indent=1).replace("`", "\\u0060") + "\n```"
