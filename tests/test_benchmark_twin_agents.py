"""The scoring of benchmarks/twin_agents.py (Kendall's tau-b, each agent's means, rewards that agree) and
the scripted agents of benchmarks/agent_sessions.py (ids read from answers, the same session per seed,
the second held-out set's calls well formed for its tools)."""

from __future__ import annotations

import json
import random
from typing import Any

import jsonschema
import pytest

from benchmarks.agent_sessions import GENERATORS, CalculatorAgent, KeyValueAgent, TaskAgent
from benchmarks.twin_agents import Scores, kendall_tau_b


def test_kendall_tau_b_ranks_alike_opposite_and_tied() -> None:
    assert kendall_tau_b([1.0, 0.5, 0.2, 0.0], [0.9, 0.6, 0.1, 0.0]) == 1.0
    assert kendall_tau_b([1.0, 0.5, 0.2], [0.0, 0.5, 0.9]) == -1.0
    assert kendall_tau_b([1.0, 0.5, 0.0], [0.0, 0.0, 0.0]) == 0.0  # the twin scores every agent alike


def test_scores_give_each_agents_means_and_the_share_of_rewards_that_agree() -> None:
    scores = Scores(
        [
            {"task": "t", "agent": "perfect", "repeat": 0, "real": 1.0, "twin": 1.0},
            {"task": "t", "agent": "perfect", "repeat": 1, "real": 1.0, "twin": 0.0},
            {"task": "t", "agent": "idle", "repeat": 0, "real": 0.0, "twin": 0.0},
            {"task": "t", "agent": "idle", "repeat": 1, "real": 0.0, "twin": 0.0},
        ]
    )
    summary = scores.summary()
    assert summary["agents"]["perfect"] == {"real": 1.0, "twin": 0.5}
    assert (summary["reward_agrees"], summary["reward_agreement"]) == (3, 0.75)
    assert summary["largest_gap"] == 0.5
    assert summary["kendall_tau_b"] == 1.0


def test_the_task_agent_takes_ids_from_answers_and_follows_the_lifecycle() -> None:
    agent = TaskAgent(random.Random(0))
    tool, _ = agent.next_call()
    assert tool == "request_planning"
    agent.observe({"status": "planned", "requestId": "req-7", "tasks": [{"id": "task-3"}, {"id": "task-4"}]})
    calls = []
    for _ in range(30):
        tool, arguments = agent.next_call()
        calls.append((tool, arguments))
        if tool == "get_next_task":
            agent.observe({"status": "next_task", "task": {"id": "task-3"}})
        elif tool == "mark_task_done":
            agent.observe({"status": "task_marked_done"})
        else:
            agent.observe({"status": "ok"})
    named = [arguments.get("requestId") for _, arguments in calls if "requestId" in arguments]
    assert named.count("req-7") > 0.7 * len(named)  # about 15% mistakes
    assert ("mark_task_done", {"requestId": "req-7", "taskId": "task-3"}) in [
        (tool, {k: v for k, v in arguments.items() if k != "completedDetails"}) for tool, arguments in calls
    ]


def test_scripted_sessions_are_the_same_for_the_same_seed() -> None:
    for kind in (KeyValueAgent, CalculatorAgent):
        runs = []
        for _ in range(2):
            agent = kind(random.Random("s"))
            calls = []
            for _ in range(20):
                calls.append(agent.next_call())
                agent.observe("The sum of 1 and 2 is 3")
            runs.append(calls)
        assert runs[0] == runs[1]


# The second held-out set's tools as their `tools/list` gives them (trimmed to what a call is checked on):
# the agents are tested without the servers installed.
_STRING = {"type": "string"}
_BANK_FILE = {"projectName": _STRING, "fileName": _STRING}
_PRIORITY = {"enum": ["low", "medium", "high", "none"], "type": "string"}
_STATUS = {"enum": ["active", "completed", "archived", "all", "none"], "type": "string"}
_TAGS = {"type": "array", "items": _STRING}
_TODO_FIELDS = {"name": _STRING, "desc": _STRING, "tags": _TAGS, "due_date": _STRING}
_TODO_FIELDS |= {"priority": _PRIORITY, "status": _STATUS, "progress": _STRING}
_ID = {"id": {"type": "integer"}}
SCHEMAS: dict[str, dict[str, tuple[dict[str, Any], list[str]]]] = {
    "bank": {
        "list_projects": ({}, []),
        "list_project_files": ({"projectName": _STRING}, ["projectName"]),
        "memory_bank_read": (_BANK_FILE, ["projectName", "fileName"]),
        "memory_bank_write": ({**_BANK_FILE, "content": _STRING}, ["projectName", "fileName", "content"]),
        "memory_bank_update": ({**_BANK_FILE, "content": _STRING}, ["projectName", "fileName", "content"]),
    },
    "todo": {
        "task_create": (_TODO_FIELDS, ["name"]),
        "task_get": (_ID, ["id"]),
        "task_update": ({**_ID, **_TODO_FIELDS}, ["id"]),
        "task_delete": (_ID, ["id"]),
        "task_list": (
            {
                "keyword": _STRING,
                "tags": _TAGS,
                "priority": _PRIORITY,
                "status": _STATUS,
                "orderby": {"enum": ["due-date", "priority", "id", "created-at"]},
                "order": {"enum": ["asc", "desc"]},
                "limit": {"type": "integer"},
            },
            [],
        ),
    },
    "calc": {"calculate": ({"expression": _STRING}, ["expression"])},
}
_ANSWERS = {
    "task_create": "Task created successfully with ID: {n}",
    "task_delete": "Task deleted successfully",
    "calculate": {"result": "{n}.125"},
}


def _session(name: str, seed: str, calls: int = 60) -> list[tuple[str, dict[str, Any]]]:
    agent = GENERATORS[name](random.Random(seed))
    made = []
    for number in range(calls):
        tool, arguments = agent.next_call()
        made.append((tool, arguments))
        answer = _ANSWERS.get(tool, "ok")
        agent.observe(json.loads(json.dumps(answer).replace("{n}", str(number + 1))))
    return made


@pytest.mark.parametrize("name", ["bank", "todo", "calc"])
def test_the_second_sets_agents_call_their_servers_tools_with_mostly_valid_arguments(name: str) -> None:
    calls = [call for seed in range(10) for call in _session(name, f"agent\x00{name}\x00{seed}")]
    tools = SCHEMAS[name]
    assert {tool for tool, _ in calls} == set(tools)  # every tool, no other
    invalid = 0
    for tool, arguments in calls:
        properties, required = tools[tool]
        schema = {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
        invalid += not jsonschema.Draft202012Validator(schema).is_valid(arguments)
    assert invalid < 0.1 * len(calls)  # the deliberate mistakes a schema catches: a priority, a name left out
    assert _session(name, "same") == _session(name, "same")


def test_the_todo_agent_names_the_ids_its_creates_answered() -> None:
    calls = _session("todo", "ids", 80)
    named = [arguments["id"] for tool, arguments in calls if "id" in arguments]
    answered = {n + 1 for n, (tool, _) in enumerate(calls) if tool == "task_create"}
    assert sum(task in answered for task in named) > 0.7 * len(named)  # the rest: mistakes (99, deleted ids)


def test_the_expression_agent_takes_the_previous_answer_a_step_further() -> None:
    calls = _session("calc", "chain", 80)
    chained = [n for n, (_, arguments) in enumerate(calls) if n and f"{n}.125" in arguments["expression"]]
    assert len(chained) > 10
