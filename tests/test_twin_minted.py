"""A record store whose ids the server makes up at random (as ohno keeps tasks under `task-c7e7c630`): a
create answers the id it made up, and every tool that names one answers `{"success": true}`, the record, or
`{"success": false, ...}` (a success, not an error) where nothing is stored under it. Sessions of a Python
model of that server are compiled by the real learner; the twin keeps each record under the id it made up
itself, and, as twin-check does (`rename.IdMap`), the server's id stands for the twin's in later calls."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from sim_mcp.authoring.twins.agreement import Answer, compare_answers
from sim_mcp.authoring.twins.keyed_world import infer_guards, run_guard
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.authoring.twins.rename import IdMap
from sim_mcp.specs.model import ToolSpec
from tests.twin_learning import compile_recorded

_ID = {"task_id": {"type": "string"}}
_FIELDS = {"title": {"type": "string"}, "description": {"type": "string"}, "estimate": {"type": "integer"}}
_STATUS = {"status": {"type": "string", "enum": ["todo", "in_progress", "done"]}}
TOOLS = [
    ToolSpec(name="create_task", input_schema={"type": "object", "properties": _FIELDS, "required": ["title"]}),
    ToolSpec(name="get_task", input_schema={"type": "object", "properties": _ID, "required": ["task_id"]}),
    ToolSpec(
        name="update_task_status",
        input_schema={"type": "object", "properties": {**_ID, **_STATUS}, "required": ["task_id", "status"]},
    ),
    ToolSpec(name="archive_task", input_schema={"type": "object", "properties": _ID, "required": ["task_id"]}),
]
NAMES = ["Book venue", "Send invites", "Draft outline", "Review draft", "Fix flaky test"]
UNSEEN = ["Water the plants", "Call the plumber", "Renew passport"]
_MISSING = "task-0000dead"  # an id an agent guesses: of the server's form, never made up


class TaskServer:
    """Ids `task-` and eight random hex digits; a record read back shows every field (the server's defaults
    where the create gave none) and a made-up time; a call naming an id nothing is stored under answers
    `{"success": false}`; an archived task is gone."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.tasks: dict[str, dict[str, Any]] = {}

    def made_up(self) -> str:
        # Eight random hex digits, drawn again where they hold no letter or no digit: agreement reads a short
        # hex id by form only where it holds both (`HEX_FORM`; "12345678" may be a number), so a recorded id
        # of digits alone would meet the twin's by value, and miss it.
        while True:
            digits = "".join(self.rng.choice("0123456789abcdef") for _ in range(8))
            if digits.strip("0123456789") and digits.strip("abcdef"):
                return "task-" + digits

    def call(self, tool: str, args: dict[str, Any]) -> tuple[Any, bool]:
        if tool == "create_task":
            task_id = self.made_up()
            self.tasks[task_id] = {
                "id": task_id,
                "title": args["title"],
                "status": "todo",
                "description": args.get("description"),
                "estimate": args.get("estimate"),
                "created_at": f"2026-12-06T11:{len(self.tasks):02d}:55.123Z",
            }
            return {"success": True, "task_id": task_id}, False
        found = self.tasks.get(args["task_id"])
        if found is None:
            return ({"success": False, "error": "Task not found"} if tool == "get_task" else {"success": False}), False
        if tool == "get_task":
            return dict(found), False
        if tool == "archive_task":
            del self.tasks[args["task_id"]]
        else:
            found["status"] = args["status"]
        return {"success": True}, False


def session(rng: random.Random, calls: int) -> list[tuple[str, dict[str, Any] | int]]:
    """Calls an agent would make: creating tasks, reading, moving and archiving those it made (by their place
    among the ids the server answered, resolved when the call is made), now and then one that does not exist."""
    out: list[tuple[str, dict[str, Any] | int]] = []
    made = 0
    for _ in range(calls):
        pick = rng.random()
        known = rng.randrange(made) if made and rng.random() < 0.85 else -1
        if pick < 0.35 or not made:
            args: dict[str, Any] = {"title": rng.choice(NAMES)}
            if rng.random() < 0.5:
                args["description"] = "about " + rng.choice(NAMES).lower()
            if rng.random() < 0.4:
                args["estimate"] = rng.randint(1, 8)
            made += 1
            out.append(("create_task", args))
        elif pick < 0.6:
            out.append(("get_task", known))
        elif pick < 0.85:
            out.append(("update_task_status", known))
        else:
            out.append(("archive_task", known))
    return out


def recorded(seed: int, count: int) -> list[list[RecordedCall]]:
    rng = random.Random(seed)
    sessions = []
    for number in range(count):
        server = TaskServer(random.Random(rng.random()))
        made: list[str] = []
        calls = []
        for seq, (tool, planned) in enumerate(session(rng, 12), start=1):
            if isinstance(planned, int):
                args: dict[str, Any] = {"task_id": made[planned] if planned >= 0 else _MISSING}
                if tool == "update_task_status":
                    args["status"] = rng.choice(["in_progress", "done"])
            else:
                args = planned
            value, is_error = server.call(tool, args)
            if tool == "create_task":
                made.append(value["task_id"])
            result = {"content": [{"type": "text", "text": json.dumps(value, indent=2)}], "isError": is_error}
            calls.append(RecordedCall(f"s{seed}-{number}", seq, tool, args, result, is_error))
        sessions.append(calls)
    return sessions


def test_a_record_is_kept_under_the_id_the_twin_made_up_and_found_by_the_calls_that_name_it() -> None:
    plans = infer_guards(TOOLS, recorded(0, 24), [tool.name for tool in TOOLS]).plans
    assert plans["create_task"]["rules"][0]["effect"] == ["keep", "task_id"]
    state: dict[str, Any] = {}
    server = TaskServer(random.Random(7))
    ids = IdMap()  # the server's ids, standing for the twin's: what twin-check sends the twin

    def agree(tool: str, args: dict[str, Any]) -> Any:
        real = server.call(tool, args)
        twin = run_guard(plans[tool], tool, state, ids(args))
        assert twin is not None, f"{tool}({args}) was handed on"
        value = json.loads(twin[0]) if isinstance(twin[0], str) else twin[0]
        verdict = compare_answers(Answer(*real), Answer(value, twin[1]))
        assert verdict.agree, f"{tool}({args}): twin {twin}, server {real}"
        ids.learn(real[0], value)
        return value

    mine = agree("create_task", {"title": UNSEEN[0], "estimate": 3})["task_id"]
    (theirs,) = server.tasks
    # The twin stored the record under the id it answered, not under the server's.
    assert mine != theirs
    assert mine in state["_twin"]["keys"]
    assert theirs not in state["_twin"]["keys"]
    assert agree("update_task_status", {"task_id": theirs, "status": "in_progress"}) == {"success": True}
    assert agree("update_task_status", {"task_id": _MISSING, "status": "done"}) == {"success": False}
    got = agree("get_task", {"task_id": theirs})
    assert got["title"] == UNSEEN[0]
    assert got["estimate"] == 3
    assert got["description"] is None
    assert got["status"] == "in_progress"
    assert agree("get_task", {"task_id": _MISSING}) == {"success": False, "error": "Task not found"}
    assert agree("archive_task", {"task_id": theirs}) == {"success": True}
    assert agree("get_task", {"task_id": theirs}) == {"success": False, "error": "Task not found"}


def test_compile_checks_the_rules_with_the_twins_ids_in_place_of_the_recorded_ones(tmp_path: Path) -> None:
    """Compile replays every recorded session through the twin's Starlark: a later call names the id the
    server made up, which the replay sends as the one the twin made up, so the rules that find the record
    are kept (sent as recorded, every one would find nothing and be left out)."""
    sessions = recorded(1, 24)
    tools = compile_recorded(tmp_path, TOOLS, sessions)
    for name in ("create_task", "get_task", "update_task_status", "archive_task"):
        assert tools[name]["status"] in ("guarded", "exact"), tools[name]
        assert "rules runtime missed" not in tools[name]["reason"], tools[name]
        assert tools[name]["reason"].startswith(f"its rules answer {tools[name]['calls']} of its"), tools[name]
