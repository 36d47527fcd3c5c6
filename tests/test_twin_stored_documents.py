"""Twins of a store whose values are given as JSON text (a cache of documents under names): the server reads
each value as JSON, keeps the document, and answers a read with it written anew (`json.dumps`: its own
spacing, the keys in the order given); it refuses a text that is no JSON, and says how long it keeps an entry,
its schema's default where the call gives none. Learned, a read answers any document stored under names and
with keys the recordings never showed."""

from __future__ import annotations

import json
from typing import Any

from sim_mcp.authoring.twins.agreement import Answer, compare_answers
from sim_mcp.authoring.twins.keyed_world import _Learner, _Tool, infer_guards, run_guard
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.rules.helpers import is_json, json_document
from sim_mcp.specs.model import ToolSpec

_NAME = {"name": {"type": "string"}}
STORE_TOOLS = [
    ToolSpec(
        name="save_entry",
        input_schema={
            "type": "object",
            "properties": {**_NAME, "body": {"type": "string"}, "hours": {"type": "integer", "default": 24}},
            "required": ["name", "body"],
        },
    ),
    ToolSpec(name="load_entry", input_schema={"type": "object", "properties": _NAME, "required": ["name"]}),
    ToolSpec(
        name="track_series",
        input_schema={
            "type": "object",
            "properties": {"series": {"type": "string"}, "points": {"type": "string"}},
            "required": ["series", "points"],
        },
    ),
    ToolSpec(name="list_series", input_schema={"type": "object", "properties": {}}),
    ToolSpec(
        name="list_entries",
        input_schema={"type": "object", "properties": {"starting": {"type": "string"}}, "required": ["starting"]},
    ),
]


class Store:
    """The server: a body read as JSON and kept as the value it writes; a read answers it as `json.dumps`
    writes it, `null` for a name never saved."""

    def __init__(self) -> None:
        self.entries: dict[str, Any] = {}
        self.series: dict[str, list[Any]] = {}

    def call(self, tool: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        if tool == "save_entry":
            try:
                value = json.loads(arguments["body"])
            except ValueError:
                return "body is not valid JSON", True
            self.entries[arguments["name"]] = value
            return f"saved '{arguments['name']}' for {arguments.get('hours', 24)}h", False
        if tool == "track_series":
            try:
                points = json.loads(arguments["points"])
            except ValueError:
                return "points are not valid JSON", True
            self.series.setdefault(arguments["series"], []).extend(points)
            return f"stored {len(points)} points for '{arguments['series']}'", False
        if tool == "list_series":
            return json.dumps(sorted(self.series)), False
        if tool == "list_entries":
            return json.dumps(sorted(name for name in self.entries if name.startswith(arguments["starting"]))), False
        found = arguments["name"] in self.entries
        return json.dumps(self.entries[arguments["name"]]) if found else "null", False


def store_session(number: int, calls: list[tuple[str, dict[str, Any]]]) -> list[RecordedCall]:
    """A session as the server answers it, a success structured as FastMCP answers a tool's string."""
    server = Store()
    recorded = []
    for seq, (tool, arguments) in enumerate(calls, 1):
        text, is_error = server.call(tool, arguments)
        result: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": is_error}
        if not is_error:
            result["structuredContent"] = {"result": text}
        recorded.append(RecordedCall(f"s{number}", seq, tool, arguments, result, is_error))
    return recorded


def _save(name: str, body: str, hours: int | None = None) -> tuple[str, dict[str, Any]]:
    return ("save_entry", {"name": name, "body": body, **({"hours": hours} if hours is not None else {})})


def _load(name: str) -> tuple[str, dict[str, Any]]:
    return ("load_entry", {"name": name})


_BODIES = ['{"rate": 4.25, "currency": "EUR"}', '{"items": ["a", "b"], "total": 2}', "[3, 5, 8]", "42", "true"]


def _sessions() -> list[list[RecordedCall]]:
    sessions = []
    for number in range(6):
        first, second = _BODIES[number % 5], _BODIES[(number + 2) % 5]
        calls = [_save(f"alpha-{number}", first, 60), _save(f"beta-{number}", second), _load(f"alpha-{number}")]
        calls += [_save(f"gamma-{number}", "not json at all"), _load(f"beta-{number}"), _load(f"gamma-{number}")]
        calls.append(_load(f"delta-{number}"))
        calls += [
            _save(f"aardvark-{number}", "1"),
            ("list_entries", {"starting": "a"}),
            ("list_entries", {"starting": "x"}),
        ]
        points = json.dumps([{"day": day, "value": day * 1.5} for day in range(1 + number % 3)])
        calls += [("track_series", {"series": f"sales-{number}", "points": points}), ("list_series", {})]
        calls += [("track_series", {"series": f"a-series-{number}", "points": "[oops"}), ("list_series", {})]
        calls += [("list_entries", {"starting": ""}), ("track_series", {"series": f"aa-{number}", "points": "[1]"})]
        calls += [("list_series", {}), ("list_entries", {"starting": ""})]
        sessions.append(store_session(number, calls))
    return sessions


def test_a_read_answers_a_stored_document_as_the_server_writes_it_anew() -> None:
    plans = infer_guards(STORE_TOOLS, _sessions(), [tool.name for tool in STORE_TOOLS]).plans
    server = Store()
    state: dict[str, Any] = {}
    # Names, keys and values the recordings never showed; a compact body, written back with the server's
    # spacing; keys in the order given, which no sorting gives back.
    calls = [
        _save("zeta", '{"zulu":[1,2],"alpha":{"k":"v"}}', 5),
        _save("eta", '["x", {"b": 1, "a": 2}]'),
        _save("theta", "not json either"),
        _save("iota", '"a quoted text"'),
        _load("zeta"),
        _load("eta"),
        _load("theta"),
        _load("iota"),
    ]
    for tool, arguments in calls:
        text, is_error = server.call(tool, arguments)
        answer = run_guard(plans[tool], tool, state, arguments)
        assert answer is not None, (tool, arguments)
        expected = text if is_error else {"result": text}
        verdict = compare_answers(Answer(expected, is_error), Answer(answer[0], answer[1]))
        assert verdict.agree, (tool, arguments, verdict, answer[0])
        if not is_error:
            assert answer[0] == expected, (tool, arguments, answer[0])


def test_a_listing_of_keys_answered_as_a_json_array_lists_the_keys_one_tool_stored() -> None:
    plans = infer_guards(STORE_TOOLS, _sessions(), [tool.name for tool in STORE_TOOLS]).plans
    server = Store()
    state: dict[str, Any] = {}
    calls = [_save("ox:two", "2"), _save("ox:one", "[1]"), _save("yak", "3")]
    calls += [
        ("list_entries", {"starting": "ox:"}),
        ("list_entries", {"starting": ""}),
        ("list_entries", {"starting": "q"}),
    ]
    # Series kept apart from the entries: each listing shows its own kind; a count of items given as JSON text.
    calls += [("list_series", {}), ("track_series", {"series": "ox:rain", "points": '[{"day": 3}, {"day": 4}]'})]
    calls += [
        ("list_series", {}),
        ("list_entries", {"starting": ""}),
        ("track_series", {"series": "b", "points": "[]"}),
    ]
    calls += [("list_series", {})]
    for tool, arguments in calls:
        text, is_error = server.call(tool, arguments)
        answer = run_guard(plans[tool], tool, state, arguments)
        assert answer == ({"result": text}, is_error), (tool, arguments, answer)


def test_an_acknowledgement_says_the_default_a_call_left_out() -> None:
    plans = infer_guards(STORE_TOOLS, _sessions(), [tool.name for tool in STORE_TOOLS]).plans
    answer = run_guard(plans["save_entry"], "save_entry", {}, {"name": "kappa", "body": "7"})
    assert answer == ({"result": "saved 'kappa' for 24h"}, False)
    answer = run_guard(plans["save_entry"], "save_entry", {}, {"name": "kappa", "body": "7", "hours": 3})
    assert answer == ({"result": "saved 'kappa' for 3h"}, False)


def test_json_helpers_read_a_text_as_json_reads_it() -> None:
    assert json_document('{"b": 1, "a": [2]}') == {"b": 1, "a": [2]}
    document = json_document('{"b": 1, "a": 2}')
    assert isinstance(document, dict)
    assert list(document) == ["b", "a"]
    for text in ("42", "{oops", "[", "true"):
        assert json_document(text) is None, text
    for text in ('"x"', "null", " [1] ", "4.5"):
        assert is_json(text), text
    for text in ("not json", "{'a': 1}", ""):
        assert not is_json(text), text


def test_only_tools_that_write_kinds_of_their_own_list_their_keys_apart() -> None:
    def tool(name: str, *strings: str) -> _Tool:
        spec = ToolSpec(
            name=name,
            input_schema={"type": "object", "properties": {s: {"type": "string"} for s in strings}},
        )
        result = {"content": [{"type": "text", "text": "ok"}], "isError": False}
        return _Tool(spec, [RecordedCall("s0", 1, name, dict.fromkeys(strings, "x"), result, False)])

    # A cache's values and its series: each kind kept and listed apart.
    kinds = {"set_value": tool("set_value", "key", "value"), "store_series": tool("store_series", "series", "points")}
    assert _Learner(kinds, [], None).stored_by() == [["by", "set_value"], ["by", "store_series"]]
    # A memory's save and its update write one kind of record (both give its `task`): no tool's keys apart.
    one_kind = {"save": tool("save", "task", "files"), "update": tool("update", "task", "note")}
    assert _Learner(one_kind, [], None).stored_by() == []
    assert _Learner({**one_kind, **kinds}, [], None).stored_by() == [["by", "set_value"], ["by", "store_series"]]
