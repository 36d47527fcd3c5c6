"""Tasks checked against the environments they run in, before anyone runs them: the environment is loaded,
a check's path stays in the state's collections, the ids the task mentions are in its starting state, the
reference solution calls the environment's tools with arguments they accept; and notes on checks that the
starting state already passes (`sim-mcp check`, task generation)."""

from __future__ import annotations

import json
import re
from typing import Any

from jsonpointer import escape

from sim_mcp.episodes.checks import check_kind, keys_of
from sim_mcp.episodes.rewards import baseline_of, passing_at_start, start_state
from sim_mcp.episodes.tasks import Check, Task
from sim_mcp.errors import SpecError
from sim_mcp.specs.registry import Catalog
from sim_mcp.specs.schema import type_name, value_problem
from sim_mcp.state.values import pointer_parts

__all__ = ["validate_task"]

_FIRST_KEY = re.compile(r"^\$(?:\.([A-Za-z_][A-Za-z0-9_\-]*)|\[\s*['\"]([^'\"]+)['\"]\s*\])")


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
                reason = f"{key!r} is not in the starting state of {task.env!r} ({keys_of(state)})"
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
        if check_kind(check.kind).quotes:
            value = check.condition
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
        context = f" ({keys_of(node)})" if isinstance(node, dict) else f" (an array of {len(node)})"
        reason = f"{walked} is not in the starting state of {env!r}{context}"
        if depth < len(parts) - 2:
            return True, reason
        return None if check_kind(check.kind).holds_when_absent(check.condition) else (False, reason)
    return None
