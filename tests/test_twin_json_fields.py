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
        found = self.notes.get(arguments["note_id"])
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
