"""Twins of servers that list stored records filtered by several arguments at once (each with a default where
it is not given), sorted by the field an argument names with nulls last, and cut at a limit."""

from __future__ import annotations

import json
import random
from typing import Any

from sim_mcp.authoring.twins.filtered import _Call, _compared, _Kept, _mapped
from sim_mcp.authoring.twins.keyed_world import infer_guards, run_guard
from sim_mcp.authoring.twins.library import TwinLibrary
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec
from tests.twin_learning import assert_guard_agrees

_NULLABLE_TEXT = {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}
_PRIORITY = {"anyOf": [{"enum": ["low", "high"], "type": "string"}, {"type": "null"}], "default": None}
_TAGS = {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}], "default": None}

TOOLS = [
    ToolSpec(
        name="add",
        input_schema={
            "type": "object",
            "properties": {"title": {"type": "string"}, "notes": _NULLABLE_TEXT, "due": _NULLABLE_TEXT}
            | {"priority": _PRIORITY, "tags": _TAGS},
            "required": ["title"],
        },
    ),
    ToolSpec(
        name="update",
        input_schema={
            "type": "object",
            "properties": {
                "id": {"type": "integer"},
                "title": _NULLABLE_TEXT,
                "priority": _PRIORITY,
                "status": {"anyOf": [{"enum": ["open", "closed"], "type": "string"}, {"type": "null"}]},
            },
            "required": ["id"],
        },
    ),
    ToolSpec(
        name="find",
        input_schema={
            "type": "object",
            "properties": {
                "status": {"anyOf": [{"enum": ["open", "closed", "all"], "type": "string"}, {"type": "null"}]},
                "priority": _PRIORITY,
                "keyword": _NULLABLE_TEXT,
                "tags": _TAGS,
                "sort": {"enum": ["due", "id"], "type": "string", "default": "due"},
                "order": {"enum": ["asc", "desc"], "type": "string", "default": "asc"},
                "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": 10},
            },
        },
    ),
]


class Tasks:
    """The server: tasks numbered one past the largest, open when made; `find` lists the open ones unless
    asked (`all`: every one), of a priority, with a keyword in the title or notes, with one of some tags,
    sorted by due date (nulls last) or id, at most `limit` (10)."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []

    def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        if tool == "add":
            number = max([row["id"] for row in self.rows] + [0]) + 1
            fields = ("notes", "due", "priority", "tags")
            self.rows.append({"id": number, "title": arguments["title"]} | {f: arguments.get(f) for f in fields})
            self.rows[-1]["status"] = "open"
            return f"Task created with ID: {number}"
        if tool == "update":
            row = next((row for row in self.rows if row["id"] == arguments["id"]), None)
            if row is None:
                return "Task not found"
            row.update({name: value for name, value in arguments.items() if name != "id"})
            return f"Task {arguments['id']} updated"
        return self.find(arguments)

    def find(self, arguments: dict[str, Any]) -> list[dict[str, Any]]:
        status = arguments.get("status") or "open"
        rows = [row for row in self.rows if status == "all" or row["status"] == status]
        if arguments.get("priority"):
            rows = [row for row in rows if row["priority"] == arguments["priority"]]
        if arguments.get("tags"):
            rows = [row for row in rows if row["tags"] and any(tag in row["tags"] for tag in arguments["tags"])]
        if arguments.get("keyword"):
            word = arguments["keyword"].lower()
            rows = [row for row in rows if word in row["title"].lower() or word in (row["notes"] or "").lower()]
        descending = arguments.get("order") == "desc"
        if arguments.get("sort", "due") == "due":
            rows.sort(key=lambda row: (0, row["due"]) if row["due"] else (1, ""), reverse=descending)
        else:
            rows.sort(key=lambda row: row["id"], reverse=descending)
        return [dict(row) for row in rows[: arguments.get("limit") or 10]]


_TITLES = ["Book venue", "Send invites", "Draft outline", "Review draft"]
_NOTES = [None, "Find a room", "Email everyone", "List the sections"]
_DUES = [None, None, "2027-02-01", "2027-01-15", "2027-06-30"]
_TAG_SETS = [None, ["home"], ["work"], ["work", "urgent"]]
_WORDS = ["draft", "room", "send", "zzz", "EMAIL"]


def _step(rng: random.Random, made: int) -> tuple[str, dict[str, Any]]:
    roll = rng.random()
    if roll < 0.4 or not made:
        arguments: dict[str, Any] = {"title": rng.choice(_TITLES), "notes": rng.choice(_NOTES)}
        arguments |= {"due": rng.choice(_DUES), "priority": rng.choice([None, "low", "high"])}
        arguments |= {"tags": rng.choice(_TAG_SETS)}
        return "add", {name: value for name, value in arguments.items() if value is not None}
    if roll < 0.55:
        changes = rng.choice([{"status": "closed"}, {"status": "open"}, {"title": "Send invites (revised)"}])
        return "update", {"id": rng.randint(1, made + 1), **changes, **rng.choice([{}, {"priority": "high"}])}
    filters = {
        "status": rng.choice([None, None, "open", "closed", "all"]),
        "priority": rng.choice([None, None, "low", "high"]),
        "keyword": rng.choice([None, None, None, *_WORDS]),
        "tags": rng.choice([None, None, None, ["work"], ["home", "urgent"]]),
        "sort": rng.choice([None, None, "due", "id"]),
        "order": rng.choice([None, None, "desc"]),
        "limit": rng.choice([None, None, None, 2]),
    }
    return "find", {name: value for name, value in filters.items() if value is not None}


def _session(number: int, seed: str, calls: int) -> list[RecordedCall]:
    rng, server, recorded = random.Random(f"{seed}/{number}"), Tasks(), []
    for seq in range(1, calls + 1):
        tool, arguments = _step(rng, len(server.rows))
        value = server.call(tool, arguments)
        text = value if isinstance(value, str) else json.dumps(value)
        result = {"content": [{"type": "text", "text": text}], "isError": False}
        recorded.append(RecordedCall(f"s{number}", seq, tool, arguments, result, False))
    return recorded


def test_a_listing_filtered_by_several_arguments_with_defaults_is_sorted_and_cut() -> None:
    sessions = [_session(number, "train", 14) for number in range(14)]
    finds = sum(call.tool == "find" for session in sessions for call in session)
    inference = infer_guards(TOOLS, sessions, ["add", "update", "find"])
    assert inference.answered["find"] == finds  # every recorded listing, the empty ones too
    [listing] = [rule["answer"] for rule in inference.plans["find"]["rules"] if "where" in rule["answer"]]
    filters = {(rule[0], rule[1]) for rule in listing["where"]}
    assert filters == {("eq", "status"), ("eq", "priority"), ("has", "keyword"), ("overlaps", "tags")}
    assert listing["limit"] == ["limit", 10]
    assert listing["sort"]["by"][0] == "sort"
    # Sessions never recorded: other titles, other orders of filters; the twin lists what the server lists.
    for number in range(6):
        server, state, rng = Tasks(), dict[str, Any](), random.Random(f"check/{number}")
        for _ in range(16):
            tool, arguments = _step(rng, len(server.rows))
            expected = server.call(tool, arguments)
            assert_guard_agrees(inference.plans, tool, state, arguments, expected)


NOTE_TOOLS = [
    ToolSpec(
        name="add_note",
        input_schema={"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]},
    ),
    ToolSpec(name="list_notes", input_schema={"type": "object", "properties": {}}),
]


def test_records_kept_under_ids_shown_as_numbers_are_listed_in_their_order() -> None:
    def session(number: int, titles: list[str]) -> list[RecordedCall]:
        calls: list[RecordedCall] = []
        notes: list[dict[str, Any]] = []
        for title in titles:
            notes.append({"id": len(notes) + 1, "title": title})
            for tool, arguments, value in (("add_note", {"title": title}, notes[-1]), ("list_notes", {}, notes[::-1])):
                result = {"content": [{"type": "text", "text": json.dumps(value)}], "isError": False}
                calls.append(RecordedCall(f"s{number}", len(calls) + 1, tool, arguments, result, False))
        return calls

    sessions = [session(0, ["milk", "eggs", "flour"]), session(1, ["tea", "rice"])]
    inference = infer_guards(NOTE_TOOLS, sessions, ["add_note", "list_notes"])
    listing = inference.plans["list_notes"]["rules"][0]["answer"]
    # The key "2" is shown as the number 2: the rows line up, newest first, as an order and not as a set.
    assert listing["order"] == "reverse"
    state: dict[str, Any] = {}
    for title in ("x1", "y2"):
        run_guard(inference.plans["add_note"], "add_note", state, {"title": title})
    assert run_guard(inference.plans["list_notes"], "list_notes", state, {}) == (
        [{"id": 2, "title": "y2"}, {"id": 1, "title": "x1"}],
        False,
    )


FLAG_TOOLS = [
    ToolSpec(
        name="add",
        input_schema={
            "type": "object",
            "properties": {"title": {"type": "string"}, "due": _NULLABLE_TEXT},
            "required": ["title"],
        },
    ),
    ToolSpec(
        name="finish",
        input_schema={"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
    ),
    ToolSpec(
        name="search",
        input_schema={
            "type": "object",
            "properties": {
                "state": {"type": "string", "default": "any"},
                "before": _NULLABLE_TEXT,
                "after": _NULLABLE_TEXT,
            },
        },
    ),
]


class Chores:
    """Chores kept with a flag (`finished`), searched by a word for it (`pending`, `finished`, `any`) and by
    their due day strictly before or after one (a chore without a due day is never listed so)."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []

    def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        if tool == "add":
            self.rows.append({"id": len(self.rows) + 1, "title": arguments["title"], "finished": False})
            self.rows[-1]["due"] = arguments.get("due")
            return self.rows[-1]
        if tool == "finish":
            row = self.rows[arguments["id"] - 1]
            row["finished"] = True
            return row
        state = arguments.get("state", "any")
        rows = [row for row in self.rows if state == "any" or row["finished"] == (state == "finished")]
        if arguments.get("before"):
            rows = [row for row in rows if row["due"] is not None and row["due"] < arguments["before"]]
        if arguments.get("after"):
            rows = [row for row in rows if row["due"] is not None and row["due"] > arguments["after"]]
        return {"rows": [dict(row) for row in rows]}


_DAYS = ["2027-01-05", "2027-02-10", "2027-03-15", None]


def _chores(rng: random.Random, made: int, dated: bool) -> tuple[str, dict[str, Any]]:
    roll = rng.random()
    if roll < 0.4 or not made:
        arguments = {"title": rng.choice(_TITLES), "due": rng.choice(_DAYS) if dated else None}
        return "add", {name: value for name, value in arguments.items() if value is not None}
    if roll < 0.6:
        return "finish", {"id": rng.randint(1, made)}
    return "search", rng.choice(
        [
            {},
            {"state": rng.choice(["pending", "finished", "any"])},
            {"before": rng.choice(["2027-02-01", "2027-03-01"])},
            {"after": rng.choice(["2027-01-20", "2027-02-20"])},
        ]
    )


def _chore_session(number: int, seed: str, dated: bool) -> list[RecordedCall]:
    rng, server, recorded = random.Random(f"{seed}/{number}"), Chores(), []
    for seq in range(1, 15):
        tool, arguments = _chores(rng, len(server.rows), dated)
        result = {"content": [{"type": "text", "text": json.dumps(server.call(tool, arguments))}], "isError": False}
        recorded.append(RecordedCall(f"s{number}", seq, tool, arguments, result, False))
    return recorded


def test_a_word_that_picks_a_flag_filters_a_listing() -> None:
    """`state: "pending"` lists the records whose `finished` is false, `finished` those whose flag is true,
    `any` (the default) every one: the argument's words mapped to the field's other values."""
    sessions = [_chore_session(number, "train", dated=False) for number in range(14)]
    inference = infer_guards(FLAG_TOOLS, sessions, ["add", "finish", "search"])
    [listing] = [rule["answer"]["rows"] for rule in inference.plans["search"]["rules"] if "rows" in rule["answer"]]
    [state] = [rule for rule in listing["where"] if rule[1] == "state"]
    assert state == ["eq", "state", "finished", "any", ["any"], {"pending": False, "finished": True}]
    for number in range(6):
        server, world, rng = Chores(), dict[str, Any](), random.Random(f"check/{number}")
        for _ in range(16):
            tool, arguments = _chores(rng, len(server.rows), dated=False)
            assert_guard_agrees(inference.plans, tool, world, arguments, server.call(tool, arguments))


def test_days_before_or_after_one_filter_a_listing() -> None:
    """`before` and `after` keep the rows whose due day is strictly before or after the one given, a row
    without one left out: found from what the recorded answers listed and left out, and applied by the
    twin's own filters."""
    rows = [{"id": n, "due": due} for n, due in enumerate(["2027-01-05", "2027-02-10", None, "2027-03-15"], 1)]

    def kept(name: str, day: str) -> _Kept:
        call = _Call({name: day}, [(str(row["id"]), row) for row in rows], [])
        due = {code: row["due"] for code, row in call.rows.items() if row["due"] is not None}
        call.listed = [code for code, on in due.items() if (on < day if name == "before" else on > day)]
        return _Kept(call, call.left_out())

    before = [kept("before", day) for day in ("2027-02-01", "2027-03-01")]
    after = [kept("after", day) for day in ("2027-01-20", "2027-02-20")]
    assert _compared("before", before) == ["below", "before", "due"]
    assert _compared("after", after) == ["above", "after", "due"]
    where = [["below", "before", "due"], ["above", "after", "due"]]
    cases = [{"args": {"before": "2027-03-01", "after": "2027-01-20"}, "rows": rows}]
    assert TwinLibrary().call("twin_bridge_kept", {"where": where, "cases": cases}) == [[False, True, False, False]]


def test_a_tag_whose_records_happen_to_share_a_flag_is_no_word_for_it() -> None:
    """Two tags each asked for once, one listing an open record and the other a closed one, line up with
    the flag as a status's words would; but every row listed holds the tag itself, so it is not read as a
    word standing for the flag (the list filter reads it)."""
    rows = [
        {"id": 1, "done": False, "tags": ["work"]},
        {"id": 2, "done": True, "tags": ["home"]},
        {"id": 3, "done": False, "tags": []},
    ]
    calls = []
    for tag, listed in (("work", ["1"]), ("home", ["2"])):
        calls.append(_Call({"tag": tag}, [(str(row["id"]), row) for row in rows], listed))
    assert _mapped("tag", None, calls) is None
    # The same answers to a word no row shows: a word for the flag.
    words = [
        _Call({"state": word}, list(call.rows.items()), call.listed)
        for word, call in zip(["open", "closed"], calls, strict=True)
    ]
    assert _mapped("state", None, words) == ["eq", "state", "done", None, [], {"open": False, "closed": True}]
