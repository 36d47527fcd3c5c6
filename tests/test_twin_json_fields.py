"""Twins of servers that keep a list argument in a record as its JSON text (`"tags": json.dumps(tags)`, a
SQLite column of text) and answer the record as JSON text too, stamped in epoch milliseconds: a JSON text
inside a JSON text, whose list the twin writes from the call's argument as the server's `json.dumps` does."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from sim_mcp.authoring.twins.agreement import Answer, compare_answers
from sim_mcp.authoring.twins.keyed_world import infer_guards, run_guard
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec

NOTE_TOOLS = [
    ToolSpec(
        name="create_note",
        input_schema={
            "type": "object",
            "properties": {
                "title": {"type": "string"},
                "content": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}, "default": None},
            },
            "required": ["title", "content"],
        },
    ),
    ToolSpec(
        name="get_note",
        input_schema={"type": "object", "properties": {"note_id": {"type": "string"}}, "required": ["note_id"]},
    ),
]


LISTING_TOOLS = [
    *NOTE_TOOLS,
    ToolSpec(
        name="update_note",
        input_schema={
            "type": "object",
            "properties": {"note_id": {"type": "string"}, "content": {"type": "string"}},
            "required": ["note_id", "content"],
        },
    ),
    ToolSpec(
        name="list_notes",
        input_schema={
            "type": "object",
            "properties": {"tags": {"type": "array", "items": {"type": "string"}, "default": None}},
        },
    ),
]


class Notes:
    """The server: a note made up under a UUID, its tags kept as their JSON text, stamped in milliseconds,
    each answer the record as JSON text in the order its code put the fields; an unknown id a message."""

    def __init__(self) -> None:
        self.notes: dict[str, dict[str, Any]] = {}

    def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        if tool == "create_note":
            now = int(time.time() * 1000)
            ref = str(uuid.uuid4())
            self.notes[ref] = {
                "id": ref,
                "title": arguments["title"],
                "content": arguments["content"],
                "tags": json.dumps(arguments.get("tags") or []),
                "created_at": now,
                "updated_at": now,
            }
            return json.dumps(self.notes[ref])
        if tool == "list_notes":
            # Newest written first, those holding some of the tags asked for.
            asked = arguments.get("tags") or []
            notes = [note for note in self.notes.values() if not asked or set(asked) & set(json.loads(note["tags"]))]
            return json.dumps(sorted(notes, key=lambda note: -note["updated_at"]))
        found = self.notes.get(arguments["note_id"])
        if found and tool == "update_note":
            found.update(content=arguments["content"], updated_at=int(time.time() * 1000))
        return json.dumps(found) if found else f"Nota {arguments['note_id']} inexistente"


def _session(number: int, calls: list[tuple[str, dict[str, Any]]]) -> list[RecordedCall]:
    server = Notes()
    recorded = []
    for seq, (tool, given) in enumerate(calls, 1):
        arguments = {k: list(server.notes)[int(v[1:-1])] if k == "note_id" else v for k, v in given.items()}
        text = server.call(tool, arguments)
        result = {"content": [{"type": "text", "text": text}], "structuredContent": {"result": text}, "isError": False}
        recorded.append(RecordedCall(f"s{number}", seq, tool, arguments, result, False))
        time.sleep(0.002)
    return recorded


def _create(title: str, *tags: str) -> tuple[str, dict[str, Any]]:
    given = {"tags": list(tags)} if tags else {}
    return ("create_note", {"title": title, "content": f"- {title} by friday", **given})


def test_a_list_argument_kept_as_its_json_text_is_written_from_the_call() -> None:
    words = ["home", "urgent", "q3", "travel", "docs", "later"]
    sessions = []
    for number in range(6):
        calls = [_create(f"Plan {number}", words[number], words[(number + 1) % 6]), _create(f"Idea {number}")]
        calls += [_create(f"Log {number}", words[(number + 3) % 6]), ("get_note", {"note_id": "<0>"})]
        sessions.append(_session(number, calls))
    plans = infer_guards(NOTE_TOOLS, sessions, [tool.name for tool in NOTE_TOOLS]).plans
    # Tags never recorded, written as the server writes them, inside the record's own JSON text.
    server, state, mine = Notes(), dict[str, Any](), dict[str, str]()
    for tool, arguments in [_create("Pack", "beach", "sun"), _create("Call"), ("get_note", {"note_id": "<0>"})]:
        if tool == "get_note":
            arguments = {"note_id": next(iter(server.notes))}
        expected = server.call(tool, arguments)
        given = {k: mine.get(v, v) if isinstance(v, str) else v for k, v in arguments.items()}
        answer = run_guard(plans[tool], tool, state, given)
        assert answer is not None, tool
        verdict = compare_answers(Answer({"result": expected}, False), Answer(answer[0], answer[1]))
        assert verdict.agree, (tool, verdict)
        if tool == "create_note":
            mine[json.loads(expected)["id"]] = json.loads(answer[0]["result"])["id"]
            assert json.loads(json.loads(answer[0]["result"])["tags"]) == arguments.get("tags", [])
        time.sleep(0.002)


def test_a_listing_filtered_by_a_list_kept_as_json_text_lists_the_newest_written_first() -> None:
    words = ["home", "urgent", "q3", "travel", "docs", "later"]
    sessions = []
    for number in range(6):
        first, second = words[number], words[(number + 1) % 6]
        calls = [_create(f"Plan {number}", first), _create(f"Idea {number}", second)]
        calls += [_create(f"Log {number}", first, second), ("update_note", {"note_id": "<0>", "content": "done"})]
        calls += [("list_notes", {}), ("list_notes", {"tags": [first]}), ("list_notes", {"tags": [second]})]
        sessions.append(_session(number, calls))
    plans = infer_guards(LISTING_TOOLS, sessions, [tool.name for tool in LISTING_TOOLS]).plans
    server, state, mine = Notes(), dict[str, Any](), dict[str, str]()
    calls = [_create("Pack", "beach"), _create("Call", "sun"), _create("Shop", "beach", "sun")]
    calls += [
        ("update_note", {"note_id": "<1>", "content": "later"}),
        ("update_note", {"note_id": "<0>", "content": "x"}),
    ]
    calls += [("list_notes", {"tags": ["beach"]}), ("list_notes", {"tags": ["sun"]}), ("list_notes", {})]
    for tool, arguments in calls:
        if isinstance(arguments.get("note_id"), str) and arguments["note_id"].startswith("<"):
            arguments = {**arguments, "note_id": list(server.notes)[int(arguments["note_id"][1:-1])]}
        expected = server.call(tool, arguments)
        given = {k: mine.get(v, v) if isinstance(v, str) else v for k, v in arguments.items()}
        answer = run_guard(plans[tool], tool, state, given)
        assert answer is not None, tool
        if tool == "list_notes":
            # The twin's notes in the server's order, the twin's own ids in place of the server's.
            shown = [mine[note["id"]] for note in json.loads(expected)]
            assert [note["id"] for note in json.loads(answer[0]["result"])] == shown, arguments
        if tool == "create_note":
            mine[json.loads(expected)["id"]] = json.loads(answer[0]["result"])["id"]
        time.sleep(0.002)
