"""Records nested in records: a call that makes up a parent and its children (a request and its tasks, each
with an id made up), later calls that read and change a child by its id (marked done, then approved), all
learned by the real learner and answered by the twin's own Starlark."""

from __future__ import annotations

import json
from typing import Any

from sim_mcp.authoring.twins.keyed_world import infer_guards, run_guard
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec

ITEMS = {"type": "array", "items": {"type": "object", "properties": {"title": {"type": "string"}}}}
IDS = {"requestId": {"type": "string"}, "taskId": {"type": "string"}}
TOOLS = [
    ToolSpec(
        name="plan",
        input_schema={
            "type": "object",
            "properties": {"goal": {"type": "string"}, "tasks": ITEMS},
            "required": ["goal", "tasks"],
        },
    ),
    ToolSpec(
        name="mark_done",
        input_schema={
            "type": "object",
            "properties": {**IDS, "note": {"type": "string"}},
            "required": ["requestId", "taskId"],
        },
    ),
]
MISSING = {"status": "error", "message": "Task not found"}
ALREADY = {"status": "already_done", "message": "Task is already marked done."}


def call(session: int, seq: int, tool: str, arguments: dict[str, Any], answer: Any) -> RecordedCall:
    result = {"content": [{"type": "text", "text": json.dumps(answer)}], "isError": False}
    return RecordedCall(f"s{session}", seq, tool, arguments, result, False)


def planned(request: int, first: int, titles: list[str]) -> dict[str, Any]:
    tasks = [{"id": f"task-{first + i}", "title": title} for i, title in enumerate(titles)]
    return {"status": "planned", "requestId": f"req-{request}", "tasks": tasks}


def done(request: str, task: str, title: str, note: str) -> dict[str, Any]:
    return {"status": "done", "requestId": request, "task": {"id": task, "title": title, "note": note}}


def recorded() -> list[list[RecordedCall]]:
    """Sessions that plan a request, mark its tasks done (the second time: already done), and name a task
    that does not exist."""
    sessions = []
    plans = [["buy", "cook", "eat"], ["wash", "dry"], ["plan", "go", "return"], ["sand", "paint"]]
    for number, titles in enumerate(plans):
        calls = [
            call(
                number,
                1,
                "plan",
                {"goal": f"goal {number}", "tasks": [{"title": t} for t in titles]},
                planned(1, 1, titles),
            )
        ]
        for index in (1, 0):
            task, note = f"task-{index + 1}", f"{titles[index]} went well"
            arguments = {"requestId": "req-1", "taskId": task, "note": note}
            calls.append(call(number, len(calls) + 1, "mark_done", arguments, done("req-1", task, titles[index], note)))
        again = {"requestId": "req-1", "taskId": "task-2", "note": "twice"}
        calls.append(call(number, len(calls) + 1, "mark_done", again, ALREADY))
        unknown = {"requestId": "req-1", "taskId": "task-9", "note": "never"}
        calls.append(call(number, len(calls) + 1, "mark_done", unknown, MISSING))
        sessions.append(calls)
    return sessions


def test_children_made_up_by_a_call_are_read_and_changed_by_their_id() -> None:
    found = infer_guards(TOOLS, recorded(), ["plan", "mark_done"])
    assert found.answered == {"plan": 4, "mark_done": 16}
    plans = found.plans
    # The request's tasks are kept each under its made-up id, the request's key beside their fields.
    assert plans["plan"]["rules"][0]["effect"] == [
        "and",
        ["keep", "requestId"],
        ["keep_children", "tasks", "id", "requestId"],
    ]
    state: dict[str, Any] = {}
    titles = ["mow the lawn", "fix the fence"]
    arguments = {"goal": "garden", "tasks": [{"title": t} for t in titles]}
    assert run_guard(plans["plan"], "plan", state, arguments) == (planned(1, 1, titles), False)
    assert state["_twin"]["keys"]["task-2"]["args"] == {"title": "fix the fence", "requestId": "req-1"}
    # A task read back by its id, with a title no recorded call had; then it is done.
    first = {"requestId": "req-1", "taskId": "task-2", "note": "all fixed"}
    assert run_guard(plans["mark_done"], "mark_done", state, first) == (
        done("req-1", "task-2", "fix the fence", "all fixed"),
        False,
    )
    assert run_guard(plans["mark_done"], "mark_done", state, first) == (ALREADY, False)
    unknown = {"requestId": "req-1", "taskId": "task-7", "note": "no"}
    assert run_guard(plans["mark_done"], "mark_done", state, unknown) == (MISSING, False)
    other = {"requestId": "req-1", "taskId": "task-1", "note": "cut"}
    assert run_guard(plans["mark_done"], "mark_done", state, other) == (
        done("req-1", "task-1", "mow the lawn", "cut"),
        False,
    )
