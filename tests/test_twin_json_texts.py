"""Twins of servers that return each record as its JSON text (`json.dumps(record, indent=2, sort_keys=True)`
answered as `{"result": "..."}`): a made-up UUID as the record's id, clock stamps in epoch seconds, a listing
as a JSON array; learned as the JSON values those texts write, written back as the server writes them."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from sim_mcp.authoring.twins.agreement import Answer, compare_answers
from sim_mcp.authoring.twins.json_texts import Style, decoded, documents, key_orders, server_documents, styles_of
from sim_mcp.authoring.twins.keyed_world import infer_guards, run_guard
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.rules.helpers import json_text
from sim_mcp.specs.model import ToolSpec

_ID = {"type": "object", "properties": {"task_id": {"type": "string"}}, "required": ["task_id"]}
TASK_TOOLS = [
    ToolSpec(
        name="add_task",
        input_schema={
            "type": "object",
            "properties": {"description": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}},
            "required": ["description"],
        },
    ),
    ToolSpec(name="get_task", input_schema=_ID),
    ToolSpec(name="list_tasks", input_schema={"type": "object", "properties": {}}),
]


class Tasks:
    """The server: a task made up under a UUID, stamped with the clock in epoch seconds, each answer the
    record (or the list of them) as JSON text; an unknown id an error."""

    def __init__(self) -> None:
        self.tasks: dict[str, dict[str, Any]] = {}

    def call(self, tool: str, arguments: dict[str, Any]) -> tuple[Any, bool]:
        if tool == "add_task":
            now = time.time()
            ref = str(uuid.uuid4())
            self.tasks[ref] = {
                "task_ref": ref,
                "description": arguments["description"],
                "tags": list(arguments.get("tags", [])),
                "status": "pending",
                "created_at": now,
                "updated_at": now,
                "completed_at": None,
            }
            return self.tasks[ref], False
        if tool == "get_task":
            found = self.tasks.get(arguments["task_id"])
            return (found, False) if found else (f"Task '{arguments['task_id']}' not found", True)
        return list(self.tasks.values()), False


def _made(server: Tasks, arguments: dict[str, Any]) -> dict[str, Any]:
    """`arguments` with an id written `<n>` as the one the server made up for its n-th task."""
    made = list(server.tasks)
    return {
        name: made[int(value[1:-1])] if isinstance(value, str) and value[:1] == "<" else value
        for name, value in arguments.items()
    }


def task_session(number: int, calls: list[tuple[str, dict[str, Any]]], sort_keys: bool = True) -> list[RecordedCall]:
    """A session as the server answers it; a success as FastMCP answers a tool's string, structured (its keys
    sorted, or in the order the server's code put them)."""
    server = Tasks()
    recorded = []
    for seq, (tool, given) in enumerate(calls, 1):
        arguments = _made(server, given)
        value, is_error = server.call(tool, arguments)
        text = value if is_error else json.dumps(value, indent=2, sort_keys=sort_keys)
        result: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": is_error}
        if not is_error:
            result["structuredContent"] = {"result": text}
        recorded.append(RecordedCall(f"s{number}", seq, tool, arguments, result, is_error))
        # Each record's clock stamps differ from the one before (a real clock's readings).
        time.sleep(0.001)
    return recorded


def _add(description: str, *tags: str) -> tuple[str, dict[str, Any]]:
    return ("add_task", {"description": description, **({"tags": list(tags)} if tags else {})})


def _sessions() -> list[list[RecordedCall]]:
    descriptions = ["Review draft", "Book venue", "Send invites", "Fix flaky test", "Update docs"]
    sessions = []
    for number in range(6):
        first, second = descriptions[number % 5], descriptions[(number + 2) % 5]
        calls: list[tuple[str, dict[str, Any]]] = [("list_tasks", {}), _add(first), _add(second, "home", "urgent")]
        calls += [("list_tasks", {}), ("get_task", {"task_id": "no-such-task"})]
        sessions.append(task_session(number, calls))
    return sessions


def _played(plans: dict[str, Any], calls: list[tuple[str, dict[str, Any]]], sort_keys: bool = True) -> None:
    """Each call answered by the twin as the server answers it, the twin's own made-up ids given back to it
    as a client would."""
    server = Tasks()
    state: dict[str, Any] = {}
    mine: dict[str, str] = {}
    for tool, arguments in calls:
        arguments = _made(server, arguments)
        given = {name: mine.get(value, value) if isinstance(value, str) else value for name, value in arguments.items()}
        expected, is_error = server.call(tool, arguments)
        answer = run_guard(plans[tool], tool, state, given)
        assert answer is not None, (tool, arguments)
        text = expected if is_error else json.dumps(expected, indent=2, sort_keys=sort_keys)
        wanted = text if is_error else {"result": text}
        verdict = compare_answers(Answer(wanted, is_error), Answer(answer[0], answer[1]))
        assert verdict.agree, (tool, verdict, answer[0])
        assert isinstance(answer[0], dict) or is_error
        if tool == "add_task":
            # The twin writes its record as the server does, its id a UUID of its own.
            record = json.loads(answer[0]["result"])
            assert record["status"] == "pending"
            assert record["description"] == arguments["description"]
            mine[expected["task_ref"]] = record["task_ref"]
        time.sleep(0.001)


def test_a_record_answered_as_its_json_text_is_learned_as_the_record_and_written_back_so() -> None:
    sessions = _sessions()
    plans = infer_guards(TASK_TOOLS, sessions, [tool.name for tool in TASK_TOOLS]).plans
    for tool in ("add_task", "list_tasks"):
        assert plans[tool]["documents"] == [["result", 2, True, True]], tool
    # The read's successes were never seen: it writes only its error, no document.
    assert "documents" not in plans["get_task"]
    calls: list[tuple[str, dict[str, Any]]] = [("list_tasks", {}), _add("Plan the offsite", "work")]
    calls += [_add("Call the caterer"), ("list_tasks", {}), ("get_task", {"task_id": "missing"})]
    _played(plans, calls)


def test_a_stored_record_is_read_back_by_the_made_up_id_its_json_text_showed() -> None:
    plans = infer_guards(TASK_TOOLS, _sessions_reading(), [tool.name for tool in TASK_TOOLS]).plans
    assert plans["get_task"]["documents"] == [["result", 2, True, True]]
    calls = [_add("Plan the offsite", "work"), _add("Plan the offsite"), ("get_task", {"task_id": "<0>"})]
    _played(plans, [*calls, ("get_task", {"task_id": "<1>"}), ("list_tasks", {})])


def _sessions_reading(sort_keys: bool = True) -> list[list[RecordedCall]]:
    """Sessions that read back the tasks their calls added by the ids their answers made up (`<0>`: the
    first one's), two tasks of a session sometimes alike."""
    sessions = []
    for number in range(6):
        second = "Review draft" if number % 2 else f"Task {number}"
        calls = [_add("Review draft"), _add(second, "home"), ("get_task", {"task_id": "<1>"})]
        calls += [("get_task", {"task_id": "<0>"}), ("list_tasks", {})]
        sessions.append(task_session(number, calls, sort_keys))
    return sessions


def test_a_record_whose_keys_keep_the_servers_order_is_read_back_in_that_order() -> None:
    # `json.dumps(record)` with the keys as the server's code put them (task_ref, description, tags, status,
    # ...): learned as the records they write, each written back with its keys in the order recorded.
    plans = infer_guards(TASK_TOOLS, _sessions_reading(sort_keys=False), [tool.name for tool in TASK_TOOLS]).plans
    for tool in ("add_task", "get_task", "list_tasks"):
        assert plans[tool]["documents"][0][:4] == ["result", 2, False, True], tool
        assert plans[tool]["documents"][0][4][0][:4] == ["task_ref", "description", "tags", "status"]
    calls = [_add("Plan the offsite", "work"), _add("Plan the offsite"), ("get_task", {"task_id": "<0>"})]
    _played(plans, [*calls, ("get_task", {"task_id": "<1>"}), ("list_tasks", {})], sort_keys=False)


def test_a_json_texts_style_is_the_one_python_writes_it_back_in() -> None:
    record = {"b": 1, "a": ["é"]}
    # Keys sorted: a document in a sorted style (and in the server's order, which is the same here).
    assert styles_of(json.dumps(record, indent=2, sort_keys=True)) == [Style(2, True, True), Style(2, False, True)]
    assert styles_of(json.dumps(record, sort_keys=True, ensure_ascii=False)) == [
        Style(None, True, False),
        Style(None, False, False),
    ]
    # Keys in the order the server put them: a document written back in the order learned (`key_orders`).
    assert styles_of(json.dumps(record)) == [Style(None, False, True)]
    assert styles_of(json.dumps(record, indent=2)) == [Style(2, False, True)]
    assert styles_of("[]")[0] == Style(2, True, True)
    assert len(styles_of("[]")) > 1
    assert styles_of("Task added") == []
    assert styles_of('{"a": 1,  "b": 2}') == []
    assert json_text(record, 2, True, True) == json.dumps(record, indent=2, sort_keys=True)
    # An empty listing is written in every style: the tool's other documents tell which.
    calls = _sessions()[0]
    assert documents(calls) == {"result": Style(2, True, True)}
    assert decoded(calls[1], documents(calls)).value["result"]["status"] == "pending"
    assert decoded(calls[4], documents(calls)) is calls[4]
    every = {"result": Style(2, True, True)}
    assert server_documents(calls) == {"add_task": every, "list_tasks": every}


def test_a_server_that_keeps_its_keys_in_its_own_order_keeps_it_in_every_document() -> None:
    # One answer whose keys stand as the server's code put them: the server sorts none, and every tool's
    # documents are read in its own order, those sorted by chance too, each written back in the orders seen.
    calls = _sessions()[0]
    unsorted = json.dumps({"path": "/tmp", "name": "mobile-app"}, indent=2)
    result = {
        "content": [{"type": "text", "text": unsorted}],
        "isError": False,
        "structuredContent": {"result": unsorted},
    }
    calls.append(RecordedCall("s0", len(calls) + 1, "project_register", {"name": "mobile-app"}, result, False))
    assert documents(calls[:-1]) == {"result": Style(2, True, True)}
    own = {"result": Style(2, False, True)}
    assert server_documents(calls) == {"add_task": own, "list_tasks": own, "project_register": own}
    orders = key_orders(calls, "project_register")
    assert orders[0] == ["path", "name"]
    assert json_text({"name": "x", "path": "/"}, 2, False, True, orders) == json.dumps(
        {"path": "/", "name": "x"}, indent=2
    )
    # An object of keys never seen together: those of the order holding most of them first, the rest sorted.
    assert list(json.loads(json_text({"z": 1, "name": 2, "a": 3, "path": 4}, None, False, True, orders))) == [
        "path",
        "name",
        "a",
        "z",
    ]
    # A server that writes compact JSON (JavaScript's `JSON.stringify`) fits no style: no document at all.
    compact = '{"path":"/tmp"}'
    result = {
        "content": [{"type": "text", "text": compact}],
        "isError": False,
        "structuredContent": {"result": compact},
    }
    calls.append(RecordedCall("s0", len(calls) + 1, "project_register", {"name": "x"}, result, False))
    assert server_documents(calls) == {}


def test_clock_stamps_in_epoch_seconds_agree_by_form_and_only_they() -> None:
    def agree(first: Any, second: Any) -> bool:
        return compare_answers(Answer(first, False), Answer(second, False)).agree

    assert agree({"created_at": 1796608533.9689274}, {"created_at": 1796602881.25})
    assert agree('{"created_at": 1796608533.9689274}', '{"created_at": 1796602881.25}')
    assert not agree({"total": 1796608533}, {"total": 1796602881})
    assert not agree({"total": 12.5}, {"total": 13.5})
    # A computed number of ten digits is no clock: before late 2020, or with no fraction.
    assert not agree({"area": 1328877720.2554405}, {"area": 1328877720.2554})
    assert not agree({"volume": 2500000000.0}, {"volume": 2600000000.0})
    assert not agree("v1796608533.96", "v1796602881.96")
    assert not agree({"created_at": 1796608533.9689274}, {"created_at": None})


def test_clock_stamps_in_epoch_milliseconds_agree_by_form_and_only_they() -> None:
    def agree(first: Any, second: Any) -> bool:
        return compare_answers(Answer(first, False), Answer(second, False)).agree

    # `Date.now()`, `int(time.time() * 1000)`: a JSON integer, or in a text (a record written as its JSON text).
    assert agree({"created_at": 1796684335373}, {"created_at": 1796688143550})
    assert agree('{"created_at": 1796684335373, "title": "a"}', '{"created_at": 1796688143550, "title": "a"}')
    assert not agree('{"created_at": 1796684335373, "title": "a"}', '{"created_at": 1796688143550, "title": "b"}')
    # A quantity of thirteen digits is mostly a whole number of thousands, or before late 2020: no clock.
    assert not agree({"bytes": 2000000000000}, {"bytes": 2100000000000})
    assert not agree({"total": 1234567890123}, {"total": 1234567890124})
    # A longer number holds no stamp, and a stamp in milliseconds is no stamp in seconds.
    assert not agree("n 17966843353731", "n 17966881435501")
    assert not agree({"created_at": 1796684335373}, {"created_at": 1796608533.25})
    assert not agree({"created_at": 1796684335373}, {"created_at": None})
