"""The scoring of benchmarks/twin_agents.py (Kendall's tau-b, each agent's means, rewards that agree) and
the scripted agents of benchmarks/agent_sessions.py (ids read from answers, the same session per seed,
the second and third held-out sets' calls well formed for their tools). That each task gives the perfect agent 1
and the idle one 0 on the real server is the benchmark's own "real" column (BENCHMARKS.md), since the
held-out servers are not installed where the tests run."""

from __future__ import annotations

import itertools
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


def _tools(
    *entries: tuple[str, list[str], list[str]], types: dict[str, Any]
) -> dict[str, tuple[dict[str, Any], list[str]]]:
    """(tool, its properties, the required ones) -> the schema table above; a property's type from `types`
    (a string when not named there)."""
    return {tool: ({name: types.get(name, _STRING) for name in names}, required) for tool, names, required in entries}


# The third held-out set's tools as their `tools/list` gives them (trimmed as above; only the tools the
# agents use: notes' todos, timers and templates, ohno's handoff and failure tools, calc-mcp's random,
# cron_parse and datetime now are left out).
_INTEGER = {"type": "integer"}
_NUMBER = {"type": "number"}
_NOTE = ["name", "project"]
_NOTE_REVISED = [*_NOTE, "expected_revision"]
SCHEMAS["notes"] = _tools(
    ("project_register", ["name", "path", "description", "tags", "members"], ["name", "path"]),
    ("note_write", [*_NOTE_REVISED, "content", "tags"], ["name", "content"]),
    ("note_read", [*_NOTE, "mode", "section"], ["name"]),
    ("note_append", [*_NOTE_REVISED, "content"], ["name", "content"]),
    ("note_append_section", [*_NOTE, "heading", "content"], ["name", "heading", "content"]),
    ("note_edit", [*_NOTE_REVISED, "content", "section", "line_start", "line_end"], ["name", "content"]),
    ("note_list", ["project", "tags", "offset", "limit"], []),
    ("note_add_tags", [*_NOTE, "tags"], ["name", "tags"]),
    ("note_remove_tags", [*_NOTE, "tags"], ["name", "tags"]),
    ("note_tags_list", ["project"], []),
    ("note_rename", [*_NOTE_REVISED, "new_name"], ["name", "new_name"]),
    ("note_search", ["query", "project", "limit", "kinds"], ["query"]),
    ("note_find", [*_NOTE, "query", "limit"], ["name", "query"]),
    ("note_tail", [*_NOTE, "lines"], ["name"]),
    ("note_delete", _NOTE_REVISED, ["name"]),
    ("note_archive", _NOTE, ["name"]),
    ("note_clear", _NOTE_REVISED, ["name"]),
    types={name: _INTEGER for name in ("expected_revision", "line_start", "line_end", "offset", "limit", "lines")},
)
_TASK_STATUS = {"enum": ["todo", "in_progress", "review", "done", "blocked"]}
_OHNO_TYPES = {
    "status": _TASK_STATUS,
    "task_type": {"enum": ["feature", "bug", "chore", "spike", "test"]},
    "priority": {"enum": ["P0", "P1", "P2", "P3"]},
    "activity_type": {"enum": ["note", "file_change", "decision", "progress"]},
    "fields": {"enum": ["minimal", "standard", "full"]},
    "include_done": {"type": "boolean"},
    **{name: _NUMBER for name in ("estimate_hours", "progress_percent", "limit", "limit_per_column", "offset")},
}
_ID_ONLY = ["task_id"]
SCHEMAS["ohno"] = _tools(
    *((tool, [], []) for tool in ("get_session_context", "get_project_status", "get_next_task", "get_blocked_tasks")),
    ("get_kanban_board", ["include_done", "limit_per_column"], []),
    ("get_tasks", ["status", "priority", "limit", "fields"], []),
    ("get_task", ["task_id", "fields"], _ID_ONLY),
    ("create_task", ["title", "story_id", "task_type", "description", "estimate_hours", "source"], ["title"]),
    ("create_story", ["title", "epic_id", "description"], ["title"]),
    ("create_epic", ["title", "project_id", "description", "priority"], ["title"]),
    ("get_story", ["story_id"], ["story_id"]),
    ("get_epic", ["epic_id"], ["epic_id"]),
    ("list_stories", ["epic_id", "status", "limit", "offset"], []),
    ("get_epics", ["status", "priority", "limit"], []),
    ("update_task_status", ["task_id", "status", "notes"], ["task_id", "status"]),
    ("update_task", ["task_id", "title", "description", "task_type", "estimate_hours"], _ID_ONLY),
    ("update_task_progress", ["task_id", "progress_percent", "context_summary"], ["task_id", "progress_percent"]),
    ("add_task_activity", ["task_id", "activity_type", "description"], ["task_id", "activity_type", "description"]),
    ("set_handoff_notes", ["task_id", "notes"], ["task_id", "notes"]),
    ("set_blocker", ["task_id", "reason"], ["task_id", "reason"]),
    ("resolve_blocker", _ID_ONLY, _ID_ONLY),
    ("archive_task", ["task_id", "reason"], _ID_ONLY),
    ("reopen_task", ["task_id", "notes"], _ID_ONLY),
    ("add_dependency", ["task_id", "depends_on_task_id", "dependency_type"], ["task_id", "depends_on_task_id"]),
    ("get_task_dependencies", _ID_ONLY, _ID_ONLY),
    types=_OHNO_TYPES,
)
_CODING = {"enum": ["encode", "decode"]}
SCHEMAS["calcmcp"] = _tools(
    ("math", ["expression", "action", "values"], []),
    ("hash", ["input", "algorithm", "action", "key"], ["input", "algorithm"]),
    ("base64", ["input", "action"], ["input", "action"]),
    ("encode", ["input", "action", "type"], ["input", "action", "type"]),
    ("datetime", ["action", "timezone", "datetime", "fromTimezone", "toTimezone", "format", "timestamp"], ["action"]),
    ("count", ["text", "encoding"], ["text"]),
    ("date", ["action", "date", "date2", "amount", "unit"], ["action", "date"]),
    ("regex", ["pattern", "flags", "text", "action", "replacement"], ["pattern", "text", "action"]),
    ("base", ["value", "from", "to"], ["value", "from", "to"]),
    ("diff", ["text1", "text2", "action"], ["text1", "text2"]),
    ("format_validate", ["input", "format"], ["input", "format"]),
    ("luhn", ["number", "action"], ["number"]),
    ("ip", ["action", "ip", "cidr", "target"], ["action"]),
    ("color", ["color", "to"], ["color"]),
    ("convert", ["value", "from", "to", "category"], ["value", "from", "to"]),
    ("char_info", ["char"], ["char"]),
    ("jwt_decode", ["token"], ["token"]),
    ("url_parse", ["url"], ["url"]),
    ("semver", ["action", "version", "version2", "range"], ["action", "version"]),
    types={
        "action": {"type": "string"},  # each tool's own enum of actions is checked by the tool itself
        "values": {"type": "array", "items": _NUMBER},
        "algorithm": {"enum": ["md5", "sha1", "sha256", "sha512", "crc32"]},
        "type": {"enum": ["url", "html", "unicode"]},
        "value": {"type": ["string", "number"]},
        "from": {"type": ["string", "integer"]},  # base: an integer base; convert: a unit
        "to": {"type": ["string", "integer"]},
        "amount": _NUMBER,
        "timestamp": _NUMBER,
        "format": {"type": "string"},
    },
)
_ANSWERS: dict[str, Any] = {
    "task_create": "Task created successfully with ID: {n}",
    "task_delete": "Task deleted successfully",
    "calculate": {"result": "{n}.125"},
    "create_task": {"success": True, "task_id": "task-{n}"},
    "create_story": {"success": True, "story_id": "story-{n}"},
    "create_epic": {"success": True, "epic_id": "epic-{n}"},
    "math": "{n}",
    "base64": "ZW5jb2RlZC0{n}",
}


def _session(name: str, seed: str, calls: int = 60) -> list[tuple[str, dict[str, Any]]]:
    agent = GENERATORS[name](random.Random(seed))
    made = []
    for number in range(calls):
        tool, arguments = agent.next_call()
        made.append((tool, arguments))
        answer = _ANSWERS.get(tool, "ok")
        answer = json.loads(json.dumps(answer).replace("{n}", str(number + 1)))
        agent.observe(int(answer) if tool == "math" else answer)
    return made


@pytest.mark.parametrize("name", ["bank", "todo", "calc", "notes", "ohno", "calcmcp"])
def test_the_held_out_sets_agents_call_their_servers_tools_with_mostly_valid_arguments(name: str) -> None:
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


def test_the_notes_agent_reads_back_the_notes_it_wrote_in_the_projects_it_registered() -> None:
    calls = [call for seed in range(20) for call in _session("notes", f"notes\x00{seed}", 12)]
    written: set[tuple[str, str]] = set()
    registered = {arguments["name"] for tool, arguments in calls if tool == "project_register"}
    named = hits = 0
    for tool, arguments in calls:
        scope = arguments.get("project", "")
        if tool == "note_write":
            written.add((scope, arguments["name"]))
        elif "name" in arguments and tool != "project_register":
            named += 1
            hits += (scope, arguments["name"]) in written
        assert scope in registered or not scope or scope.endswith("-old")  # a project named in a mistake
    assert registered
    assert hits > 0.7 * named  # about 15% mistakes: a note never written, a project never made


def test_the_ohno_agent_names_the_ids_its_creates_answered_and_follows_the_lifecycle() -> None:
    named = answered = walked = grouped = 0
    for seed in range(10):
        calls = _session("ohno", f"lifecycle\x00{seed}", 60)
        made = {f"task-{n + 1}" for n, (tool, _) in enumerate(calls) if tool == "create_task"}
        tasks = [arguments["task_id"] for _, arguments in calls if "task_id" in arguments]
        named, answered = named + len(tasks), answered + sum(task in made for task in tasks)
        statuses: dict[str, list[str]] = {}
        for tool, arguments in calls:
            if tool == "update_task_status" and arguments["task_id"] in made:
                statuses.setdefault(arguments["task_id"], []).append(arguments["status"])
        walked += sum(steps[:3] == ["in_progress", "review", "done"] for steps in statuses.values())
        stories = {f"story-{n + 1}" for n, (tool, _) in enumerate(calls) if tool == "create_story"}
        grouped += sum(arguments.get("story_id") in stories for tool, arguments in calls if tool == "create_task")
    assert answered > 0.7 * named  # the rest: mistakes (ids never made)
    assert grouped > 0  # tasks made under the stories the agent made
    assert walked >= 3  # tasks taken from todo through review to done, in order


def test_the_compute_agent_spreads_over_the_tools_and_takes_answers_further() -> None:
    calls = [call for seed in range(10) for call in _session("calcmcp", f"spread\x00{seed}", 12)]
    counts = {tool: sum(t == tool for t, _ in calls) for tool in SCHEMAS["calcmcp"]}
    assert max(counts.values()) < 0.2 * len(calls)  # not only math
    assert any(arguments.get("action") == "statistics" for tool, arguments in calls if tool == "math")
    session = _session("calcmcp", "chain", 200)
    # math's answer n (the call's number) taken a step further; base64's encoding ("ZW5jb2RlZC0" + n) decoded
    steps = [
        arguments
        for n, ((previous, _), (tool, arguments)) in enumerate(itertools.pairwise(session))
        if previous == tool == "math" and str(arguments.get("expression", "")).startswith(f"{n + 1} ")
    ]
    decoded = [arguments for tool, arguments in session if tool == "base64" and arguments["action"] == "decode"]
    assert steps
    assert any(arguments["input"].startswith("ZW5jb2RlZC0") for arguments in decoded)
