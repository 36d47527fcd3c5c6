"""A record store with integer ids a server makes up (as mcp-todo keeps tasks): a create answered as text
("Task created successfully with ID: 3", the id one past the largest stored), a read of the record as JSON
with the server's defaults (null) for what the create did not give and a time set once the record is
completed, an update and a delete of a record that may not exist, answered as successes, and errors of the
input schema. Sessions of a Python model of that server are compiled by the real learner, and the twin's
Starlark answers sessions it never saw."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from sim_mcp.authoring.twins.agreement import Answer, compare_answers
from sim_mcp.authoring.twins.keyed_world import infer_guards, run_guard
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec
from tests.twin_learning import compile_recorded

_ID = {"id": {"type": "integer"}}
_FIELDS = {
    "name": {"type": "string"},
    "desc": {"anyOf": [{"type": "string"}, {"type": "null"}]},
    "tags": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]},
    "priority": {"anyOf": [{"enum": ["low", "medium", "high"], "type": "string"}, {"type": "null"}]},
}
_STATUS = {"status": {"anyOf": [{"enum": ["active", "completed"], "type": "string"}, {"type": "null"}]}}
TOOLS = [
    ToolSpec(name="task_create", input_schema={"type": "object", "properties": _FIELDS, "required": ["name"]}),
    ToolSpec(name="task_get", input_schema={"type": "object", "properties": _ID, "required": ["id"]}),
    ToolSpec(
        name="task_update",
        input_schema={"type": "object", "properties": {**_ID, **_FIELDS, **_STATUS}, "required": ["id"]},
    ),
    ToolSpec(name="task_delete", input_schema={"type": "object", "properties": _ID, "required": ["id"]}),
]
NAMES = ["Book venue", "Send invites", "Draft outline", "Review draft", "Fix flaky test"]
# Names and texts no recorded session shows: what the twin must answer from what it learned.
UNSEEN = ["Water the plants", "Call the plumber", "Renew passport"]
_CLOCK = "2026-12-06T11:16:55.456484"


class TaskServer:
    """The server's behaviour: a task's id is one past the largest stored (deleting the newest frees its
    id), a task read back shows every field (null where not given), `completed_at` is set when it is
    completed; an update or delete of a missing task is answered as a success."""

    def __init__(self) -> None:
        self.tasks: dict[int, dict[str, Any]] = {}
        self.ticks = 0

    def now(self) -> str:
        self.ticks += 1
        return f"2026-12-06T11:{self.ticks:02d}:55.{self.ticks:06d}"

    def call(self, tool: str, args: dict[str, Any]) -> tuple[str, bool]:
        if tool == "task_create":
            if "name" not in args:
                return "Input validation error: 'name' is a required property", True
            if args.get("priority") not in (None, "low", "medium", "high"):
                return f"Input validation error: '{args['priority']}' is not one of ['low', 'medium', 'high']", True
            task_id = max(self.tasks, default=0) + 1
            task = {"id": task_id, "name": args["name"], "desc": None, "tags": None, "priority": None}
            task |= {k: v for k, v in args.items() if k in _FIELDS}
            self.tasks[task_id] = task | {"status": "active", "created_at": self.now(), "completed_at": None}
            return f"Task created successfully with ID: {task_id}", False
        found = self.tasks.get(args["id"])
        if tool == "task_get":
            return ("Task not found", False) if found is None else (json.dumps(found, indent=2), False)
        if tool == "task_delete":
            if found is None:
                return "Task not found", False
            del self.tasks[args["id"]]
            return "Task deleted successfully", False
        if found is None:
            return f"Error: Task with ID {args['id']} not found", False
        found.update({k: v for k, v in args.items() if k != "id"})
        if args.get("status") == "completed" and found["completed_at"] is None:
            found["completed_at"] = self.now()
        return f"Task {args['id']} updated successfully", False


def session(rng: random.Random, names: list[str], calls: int) -> list[tuple[str, dict[str, Any]]]:
    """Calls an agent would make: creating tasks with some optional fields, reading, completing, renaming
    and deleting those it made (and now and then one that does not exist), a create missing its name."""
    out: list[tuple[str, dict[str, Any]]] = []
    made = changed = 0
    for _ in range(calls):
        pick = rng.random()
        known = rng.randint(1, made) if made and rng.random() < 0.85 else 99
        if pick < 0.4 or not made:
            args: dict[str, Any] = {"name": rng.choice(names)}
            if rng.random() < 0.5:
                args["desc"] = "about " + rng.choice(names).lower()
            if rng.random() < 0.4:
                args["tags"] = rng.sample(["home", "work", "docs"], rng.randint(1, 2))
            if rng.random() < 0.4:
                args["priority"] = rng.choice(["low", "medium", "high"])
            if rng.random() < 0.08:
                args = {"desc": "no name"} if rng.random() < 0.5 else {**args, "priority": "urgent"}
            made += 1
            out.append(("task_create", args))
        elif pick < 0.6:
            # What was just changed is read back as often as not.
            out.append(("task_get", {"id": changed if changed and rng.random() < 0.5 else known}))
        elif pick < 0.8:
            change = rng.choice([{"status": "completed"}, {"priority": "high"}, {"name": rng.choice(names) + "!"}])
            out.append(("task_update", {"id": known, **change}))
            changed = known
        else:
            out.append(("task_delete", {"id": known}))
    return out


def recorded(seed: int, count: int, names: list[str]) -> list[list[RecordedCall]]:
    rng = random.Random(seed)
    sessions = []
    for number in range(count):
        server = TaskServer()
        calls = []
        for seq, (tool, args) in enumerate(session(rng, names, 12), start=1):
            text, is_error = server.call(tool, args)
            result = {"content": [{"type": "text", "text": text}], "isError": is_error}
            calls.append(RecordedCall(f"s{seed}-{number}", seq, tool, args, result, is_error))
        sessions.append(calls)
    return sessions


def test_made_up_ids_records_read_back_and_their_lifecycle_are_learned() -> None:
    inference = infer_guards(TOOLS, recorded(0, 24, NAMES), [tool.name for tool in TOOLS])
    plans = inference.plans
    state: dict[str, Any] = {}
    server = TaskServer()

    def both(tool: str, args: dict[str, Any]) -> tuple[Any, Any]:
        twin = run_guard(plans[tool], tool, state, args)
        text, is_error = server.call(tool, args)
        assert twin is not None, f"{tool}({args}) was handed on"
        value = json.loads(text) if text.startswith("{") else text
        twin_value = json.loads(twin[0]) if isinstance(twin[0], str) and twin[0].startswith("{") else twin[0]
        return (twin_value, twin[1]), (value, is_error)

    def agree(tool: str, args: dict[str, Any]) -> Any:
        twin, real = both(tool, args)
        verdict = compare_answers(Answer(*real), Answer(*twin))
        assert verdict.agree, f"{tool}({args}): twin {twin}, server {real}"
        return twin[0]

    # The id is one past the largest stored: deleting the newest frees it; a mistaken id moves nothing.
    assert agree("task_create", {"name": UNSEEN[0]}) == "Task created successfully with ID: 1"
    assert agree("task_create", {"name": UNSEEN[1], "tags": ["garden"], "priority": "low"}).endswith("ID: 2")
    assert agree("task_update", {"id": 99, "status": "completed"}) == "Error: Task with ID 99 not found"
    assert agree("task_delete", {"id": 2}) == "Task deleted successfully"
    assert agree("task_create", {"name": UNSEEN[2], "desc": "before May"}).endswith("ID: 2")
    assert agree("task_create", {"name": UNSEEN[1], "tags": ["garden", "shed"]}).endswith("ID: 3")
    # Read back as JSON: what the create gave (a list too), the server's nulls for the rest, a made-up time.
    got = agree("task_get", {"id": 3})
    assert got["tags"] == ["garden", "shed"]
    assert got["desc"] is None
    assert got["completed_at"] is None
    assert agree("task_get", {"id": 2})["desc"] == "before May"
    # Completed: the record shows its new status and a time (compared by form, as a server's clock is).
    agree("task_update", {"id": 1, "status": "completed"})
    done = agree("task_get", {"id": 1})
    assert done["status"] == "completed"
    assert isinstance(done["completed_at"], str)
    assert agree("task_get", {"id": 7}) == "Task not found"
    assert agree("task_delete", {"id": 7}) == "Task not found"


def test_errors_of_the_input_schema_leave_the_rules_to_the_successes(tmp_path: Path) -> None:
    """A create refused by the schema (no name, a priority outside the enum) is answered by the twin's
    schema before its rules: compile keeps one rule for every create, the id made up, and checks it."""
    sessions = recorded(1, 24, NAMES)
    assert any(call.is_error for s in sessions for call in s if call.tool == "task_create")
    tools = compile_recorded(tmp_path, TOOLS, sessions)
    create = tools["task_create"]
    assert create["status"] in ("guarded", "exact"), create
    rules = create["plan"]["rules"]
    assert [rule["when"] for rule in rules] == [[["always"]]]
    assert rules[0]["answer"] == {"$parts": ["Task created successfully with ID: ", ["fresh", "stored"]]}
    for name in ("task_get", "task_update", "task_delete"):
        assert tools[name]["status"] in ("guarded", "exact"), tools[name]


@pytest.mark.parametrize("text", ["Task created successfully with ID: 12", "Created #12 (v2.5)", "12 made"])
def test_the_id_a_text_announces_is_its_one_number_no_argument_gave(text: str) -> None:
    rule: dict[str, Any] = {"when": [["always"]], "answer": text, "error": False, "effect": ["keep_id"]}
    plan: dict[str, Any] = {"family": "guard", "root": None, "rules": [rule]}
    state: dict[str, Any] = {}
    assert run_guard(plan, "make", state, {"name": "x", "count": 5}) == (text, False)
    assert list(state["_twin"]["keys"]) == ["12"]
    assert state["_twin"]["keys"]["12"]["args"] == {"name": "x", "count": 5}
    # Two numbers no argument gave: which is the id cannot be told, so nothing is kept.
    state = {}
    run_guard(plan | {"rules": [{**rule, "answer": "12 of 13"}]}, "make", state, {})
    assert state["_twin"]["keys"] == {}


def test_a_listing_whose_only_placeholders_are_made_up_times_is_no_rule_of_its_own() -> None:
    """A recorded listing with its records' creation times is as constant as any other: it is never answered
    as one where something is stored (the times alone would have let it through as built)."""
    key = {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]}
    save = ToolSpec(name="save", input_schema=key)
    has = ToolSpec.model_validate({"name": "has", "input_schema": key, "annotations": {"readOnlyHint": True}})
    recent = ToolSpec.model_validate(
        {
            "name": "recent",
            "input_schema": {"type": "object", "properties": {"limit": {"type": "integer"}}},
            "annotations": {"readOnlyHint": True},
        }
    )
    listing = json.dumps([{"name": "alpha", "created_at": _CLOCK}])

    def call(session: str, seq: int, tool: str, args: dict[str, Any], text: str) -> RecordedCall:
        return RecordedCall(session, seq, tool, args, {"content": [{"type": "text", "text": text}]}, False)

    sessions = [
        [
            call(f"s{n}", 1, "has", {"key": other}, "Stored: no"),
            call(f"s{n}", 2, "save", {"key": name}, f"Saved {name}"),
            call(f"s{n}", 3, "has", {"key": name}, "Stored: yes"),
            call(f"s{n}", 4, "recent", {"limit": 5}, listing),
        ]
        for n, (name, other) in enumerate([("north", "west"), ("south", "up"), ("east", "down")])
    ]
    plans = infer_guards([save, has, recent], sessions, ["save", "has", "recent"]).plans
    assert plans["save"]["rules"][0]["effect"] == ["put", "key"]
    assert sorted(rule["answer"] for rule in plans["has"]["rules"]) == ["Stored: no", "Stored: yes"]
    assert "recent" not in plans


def test_a_property_schema_that_is_no_object_is_read_as_naming_no_type() -> None:
    # JSON Schema allows `true` for "anything": the search for arguments that name stored keys reads it as
    # naming no type, so it neither stops the learner nor changes what the other arguments teach it.
    loose = [
        tool.model_copy(
            update={
                "input_schema": {**tool.input_schema, "properties": {**tool.input_schema["properties"], "note": True}}
            }
        )
        for tool in TOOLS
    ]
    sessions = recorded(0, 24, NAMES)
    names = [tool.name for tool in TOOLS]
    assert infer_guards(loose, sessions, names).plans == infer_guards(TOOLS, sessions, names).plans


def test_an_announced_id_replaces_a_record_a_call_put_there_not_one_made_up() -> None:
    """An id the server made up and still holds is not made up again (a refusal naming the record in the
    way keeps nothing); a record a call put under an id it gave itself (an update of a task the server had
    not made yet) was the twin's guess, which the server's announcement replaces."""
    keep: dict[str, Any] = {"when": [["always"]], "answer": "Created #2", "error": False, "effect": ["keep_id"]}
    put: dict[str, Any] = {"when": [["always"]], "answer": "ok", "error": False, "effect": ["put", "id"]}
    plan: dict[str, Any] = {"family": "guard", "root": None, "rules": [keep]}
    state: dict[str, Any] = {}
    run_guard({**plan, "rules": [put]}, "task_update", state, {"id": 2, "status": "completed"})
    run_guard(plan, "task_create", state, {"name": "x"})
    assert state["_twin"]["keys"]["2"]["args"] == {"name": "x"}
    assert state["_twin"]["keys"]["2"]["made"]
    run_guard(plan, "task_create", state, {"name": "y"})
    assert state["_twin"]["keys"]["2"]["args"] == {"name": "x"}
