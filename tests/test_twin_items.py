"""Twin inference over what a server makes up per item and per prefix: an answer per item of an array
argument (its fields, its place, lengths), each item stored under its key, ids counted under a prefix
(`req-1`, `task-3`), and short made-up hex ids and spaced dates compared by form."""

from __future__ import annotations

import json
from typing import Any

from sim_mcp.authoring.twins.agreement import Answer, compare_answers
from sim_mcp.authoring.twins.keyed_world import infer_guards, run_guard
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec


def call(
    session: int, seq: int, tool: str, arguments: dict[str, Any], answer: Any, error: bool = False
) -> RecordedCall:
    text = answer if isinstance(answer, str) else json.dumps(answer)
    result = {"content": [{"type": "text", "text": text}], "isError": error}
    return RecordedCall(f"s{session}", seq, tool, arguments, result, error)


def test_made_up_short_hex_ids_and_spaced_dates_agree_by_form() -> None:
    def agree(expected: Any, actual: Any) -> bool:
        return compare_answers(Answer(expected, False), Answer(actual, False)).agree

    assert agree("Saved: k\nSession: a5e8e023", "Saved: k\nSession: 0c1d2e3f")
    assert agree({"session": "a5e8e023"}, {"session": "9f00b1c2"})
    assert agree({"created_at": "2026-12-06 07:16:57"}, {"created_at": "2027-01-01 00:00:00"})
    assert agree("at 2026-12-06 07:16:57.", "at 2025-02-03 10:11:12.")
    # A word or a number of hex letters is no made-up id; nor is an id of another length.
    assert not agree("Session: deadbeef", "Session: 0c1d2e3f")
    assert not agree("Session: 20261206", "Session: 20270101")
    assert not agree("Session: a5e8e023", "Session: a5e8e0231")


STORE = [
    ToolSpec(
        name="save_many",
        input_schema={
            "type": "object",
            "properties": {
                "items": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"key": {"type": "string"}, "value": {"type": "string"}},
                    },
                }
            },
            "required": ["items"],
        },
    ),
    ToolSpec(
        name="get",
        input_schema={"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]},
        annotations={"readOnlyHint": True},  # type: ignore[arg-type]
    ),
]


def saved(items: list[dict[str, str]], stored: set[str]) -> dict[str, Any]:
    results = [
        {"index": i, "key": item["key"], "action": "updated" if item["key"] in stored else "created"}
        | {"size": len(item["value"])}
        for i, item in enumerate(items)
    ]
    total = sum(len(item["value"]) for item in items)
    return {"totalItems": len(items), "totalSize": total, "results": results, "errors": []}


def store_session(number: int, batches: list[list[tuple[str, str]]]) -> list[RecordedCall]:
    calls: list[RecordedCall] = []
    values: dict[str, str] = {}
    for batch in batches:
        items = [{"key": key, "value": value} for key, value in batch]
        calls.append(call(number, len(calls) + 1, "save_many", {"items": items}, saved(items, set(values))))
        values.update(batch)
        for key in [batch[0][0], "nothing-here"]:
            found = f"Value of '{key}': {values[key]}" if key in values else f"No such key: {key}"
            calls.append(call(number, len(calls) + 1, "get", {"key": key}, found, key not in values))
    return calls


def test_an_answer_per_item_of_an_array_argument_and_each_item_stored_under_its_key() -> None:
    sessions = [
        store_session(
            0,
            [
                [("north-1", "red wine"), ("bear-2", "green blue")],
                [("north-1", "crimson tide"), ("gamma-3", "x y z w q r")],
            ],
        ),
        store_session(
            1,
            [
                [("delta-4", "four fives"), ("echo-5", "a b c d e f g")],
                [("zeta-6", "last one"), ("delta-4", "again it is")],
            ],
        ),
        store_session(2, [[("one-7", "uno dos tres")], [("two-8", "dos tres"), ("one-7", "eins zwei drei")]]),
    ]
    # (Lengths chosen apart: a value as long as its key, or as its place, would read as either.)
    plans = infer_guards(STORE, sessions, ["save_many", "get"]).plans
    state: dict[str, Any] = {}
    items = [{"key": "north", "value": "cold"}, {"key": "south", "value": "warm air"}, {"key": "east", "value": "s"}]
    first = run_guard(plans["save_many"], "save_many", state, {"items": items})
    assert first == (saved(items, set()), False)
    # Each item was stored under its key: read back, and saved again it is `updated`.
    assert run_guard(plans["get"], "get", state, {"key": "south"}) == ("Value of 'south': warm air", False)
    again = [{"key": "south", "value": "hot"}, {"key": "west", "value": "windy"}]
    assert run_guard(plans["save_many"], "save_many", state, {"items": again}) == (saved(again, {"south"}), False)


PLANNER = [
    ToolSpec(
        name="plan",
        input_schema={
            "type": "object",
            "properties": {
                "goal": {"type": "string"},
                "tasks": {"type": "array", "items": {"type": "object", "properties": {"title": {"type": "string"}}}},
            },
            "required": ["goal", "tasks"],
        },
    )
]


def planned(request: int, first_task: int, goal: str, titles: list[str]) -> dict[str, Any]:
    tasks = [{"id": f"task-{first_task + i}", "title": title} for i, title in enumerate(titles)]
    # A table with a row per task: one line per item of the array argument.
    table = "".join(f"| {task['id']} | {task['title']} | open |\n" for task in tasks)
    answer = {"status": "planned", "requestId": f"req-{request}", "goal": goal, "totalTasks": len(titles)}
    return answer | {"tasks": tasks, "message": f"Planned '{goal}':\n| Id | Title | State |\n{table}"}


def test_ids_counted_under_a_prefix_continue_from_the_largest_seen_one_counter_per_prefix() -> None:
    sessions = []
    for number, plans in enumerate([[["buy", "cook"], ["eat"]], [["wash"], ["dry", "iron", "fold"]], [["plan", "go"]]]):
        calls, tasks = [], 1
        for request, titles in enumerate(plans, start=1):
            goal = f"goal {number} {request}"
            arguments = {"goal": goal, "tasks": [{"title": t} for t in titles]}
            calls.append(call(number, request, "plan", arguments, planned(request, tasks, goal, titles)))
            tasks += len(titles)
        sessions.append(calls)
    plan = infer_guards(PLANNER, sessions, ["plan"]).plans["plan"]
    state: dict[str, Any] = {}
    first = {"goal": "ship it", "tasks": [{"title": "write"}, {"title": "test"}]}
    assert run_guard(plan, "plan", state, first) == (planned(1, 1, "ship it", ["write", "test"]), False)
    second = {"goal": "then", "tasks": [{"title": "release"}]}
    assert run_guard(plan, "plan", state, second) == (planned(2, 3, "then", ["release"]), False)


def test_a_record_kept_under_a_counted_id_is_read_back_and_a_missing_one_answered_as_recorded() -> None:
    getter = ToolSpec(
        name="get_request",
        input_schema={"type": "object", "properties": {"requestId": {"type": "string"}}, "required": ["requestId"]},
        annotations={"readOnlyHint": True},  # type: ignore[arg-type]
    )
    missing = {"status": "error", "message": "Request not found"}
    sessions = []
    for number, goals in enumerate([["paint", "sand"], ["cook"], ["fly", "land", "taxi"]]):
        calls: list[RecordedCall] = []
        for request, goal in enumerate(goals, start=1):
            arguments = {"goal": goal, "tasks": [{"title": goal + " it"}]}
            answer = planned(request, request, goal, [goal + " it"])
            calls.append(call(number, len(calls) + 1, "plan", arguments, answer))
            calls.append(call(number, len(calls) + 1, "get_request", {"requestId": f"req-{request}"}, answer))
            calls.append(call(number, len(calls) + 1, "get_request", {"requestId": "req-99"}, missing))
        sessions.append(calls)
    plans = infer_guards([*PLANNER, getter], sessions, ["plan", "get_request"]).plans
    state: dict[str, Any] = {}
    made = run_guard(plans["plan"], "plan", state, {"goal": "swim", "tasks": [{"title": "swim it"}]})
    assert made == (planned(1, 1, "swim", ["swim it"]), False)
    assert run_guard(plans["get_request"], "get_request", state, {"requestId": "req-1"}) == made
    # A "not found" the server answers as a success: nothing stored under the key could change it.
    assert run_guard(plans["get_request"], "get_request", state, {"requestId": "req-7"}) == (missing, False)


def test_a_null_in_an_answer_is_a_value_and_a_json_one_is_as_often_a_constant() -> None:
    tools = [
        ToolSpec(
            name="save",
            input_schema={
                "type": "object",
                "properties": {"key": {"type": "string"}, "value": {"type": "string"}},
                "required": ["key", "value"],
            },
        ),
        STORE[1],
    ]
    sessions = []
    for number, pairs in enumerate([[("north", "cold"), ("south", "warm air")], [("east", "sunrise")]]):
        calls: list[RecordedCall] = []
        for key, value in pairs:
            calls.append(call(number, len(calls) + 1, "save", {"key": key, "value": value}, f"Saved: {key}"))
            shown = {"items": [{"key": key, "value": value, "category": None, "size": len(value)}], "total": 1}
            calls.append(call(number, len(calls) + 1, "get", {"key": key}, shown))
        sessions.append(calls)
    plans = infer_guards(tools, sessions, ["save", "get"]).plans
    state: dict[str, Any] = {}
    run_guard(plans["save"], "save", state, {"key": "west", "value": "windy"})
    shown = {"items": [{"key": "west", "value": "windy", "category": None, "size": 5}], "total": 1}
    assert run_guard(plans["get"], "get", state, {"key": "west"}) == (shown, False)


def test_a_list_of_one_key_is_asked_about_as_that_key() -> None:
    deleter = ToolSpec(
        name="delete_many",
        input_schema={
            "type": "object",
            "properties": {"keys": {"type": "array", "items": {"type": "string"}}},
            "required": ["keys"],
        },
    )

    def deleted(key: str, found: bool) -> dict[str, Any]:
        result = {"index": 0, "key": key, "deleted": found}
        return {"keys": [key], "totalDeleted": int(found), "notFound": [] if found else [key], "results": [result]}

    sessions = []
    for number, (kept, gone) in enumerate([("north-1", "south-2"), ("east-3", "west-4"), ("up-5", "down-6")]):
        items = [{"key": kept, "value": "a long value"}, {"key": gone, "value": "another one"}]
        calls = [call(number, 1, "save_many", {"items": items}, saved(items, set()))]
        calls.append(call(number, 2, "delete_many", {"keys": [gone]}, deleted(gone, True)))
        calls.append(call(number, 3, "delete_many", {"keys": [gone]}, deleted(gone, False)))
        calls.append(call(number, 4, "delete_many", {"keys": [kept]}, deleted(kept, True)))
        sessions.append(calls)
    plans = infer_guards([STORE[0], deleter], sessions, ["save_many", "delete_many"]).plans
    state: dict[str, Any] = {}
    items = [{"key": "left-7", "value": "a long value"}, {"key": "right-8", "value": "x"}]
    run_guard(plans["save_many"], "save_many", state, {"items": items})
    assert run_guard(plans["delete_many"], "delete_many", state, {"keys": ["right-8"]}) == (
        deleted("right-8", True),
        False,
    )
    assert run_guard(plans["delete_many"], "delete_many", state, {"keys": ["right-8"]}) == (
        deleted("right-8", False),
        False,
    )


def test_a_name_the_agent_gave_first_is_no_id_the_server_counts() -> None:
    """`req-1` appears first in an answer: the server made it up, and counts under `req-`. `delta-86` is a
    folder the agent named before any answer showed it: no counter, whatever listings show it later."""
    from sim_mcp.authoring.twins.keyed_world import _counted_prefixes

    sessions = [
        [
            call(1, 1, "plan", {"title": "offsite"}, {"requestId": "req-1"}),
            call(1, 2, "mkdir", {"path": "{tmp}/delta-86"}, "Created {tmp}/delta-86"),
            call(1, 3, "write", {"path": "{tmp}/harbor-3.txt", "content": "x"}, "Wrote {tmp}/harbor-3.txt"),
            call(1, 4, "list", {"path": "{tmp}"}, "[DIR] delta-86\n[FILE] harbor-3.txt"),
            call(1, 5, "get", {"requestId": "req-1"}, {"requestId": "req-1", "title": "offsite"}),
        ],
    ]
    assert _counted_prefixes(sessions) == ("req-",)


def test_a_field_stored_without_a_value_shows_the_servers_default() -> None:
    saver = ToolSpec(
        name="save",
        input_schema={
            "type": "object",
            "properties": {"key": {"type": "string"}, "value": {"type": "string"}, "priority": {"type": "string"}},
            "required": ["key", "value"],
        },
    )

    def shown(key: str, value: str, priority: str | None) -> dict[str, Any]:
        return {"items": [{"key": key, "value": value, "priority": priority or "normal", "note": None}]}

    recorded: list[list[tuple[str, str, str | None]]] = [
        [("north", "cold wind", None), ("south", "warm air", "high")],
        [("east", "sunrise", None)],
    ]
    sessions = []
    for number, saves in enumerate(recorded):
        calls: list[RecordedCall] = []
        for key, value, priority in saves:
            arguments = {"key": key, "value": value} | ({"priority": priority} if priority else {})
            calls.append(call(number, len(calls) + 1, "save", arguments, f"Saved: {key}"))
            calls.append(call(number, len(calls) + 1, "get", {"key": key}, shown(key, value, priority)))
        sessions.append(calls)
    plans = infer_guards([saver, STORE[1]], sessions, ["save", "get"]).plans
    state: dict[str, Any] = {}
    run_guard(plans["save"], "save", state, {"key": "west", "value": "windy", "priority": "low"})
    run_guard(plans["save"], "save", state, {"key": "up", "value": "skyward"})
    assert run_guard(plans["get"], "get", state, {"key": "west"}) == (shown("west", "windy", "low"), False)
    assert run_guard(plans["get"], "get", state, {"key": "up"}) == (shown("up", "skyward", None), False)
