"""Twins of servers that answer stored records as a JSON listing: each record an object built from what was
stored, the server's defaults, values it makes up and its numbering of rows."""

from __future__ import annotations

import json
import uuid
from typing import Any

from sim_mcp.authoring.twins.keyed_world import infer_guards
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec
from tests.twin_learning import assert_guard_agrees

MEMO_TOOLS = [
    ToolSpec(
        name="save",
        input_schema={
            "type": "object",
            "properties": {"key": {"type": "string"}, "value": {"type": "string"}, "priority": {"type": "string"}},
            "required": ["key", "value"],
        },
    ),
    ToolSpec(name="get", input_schema={"type": "object", "properties": {"key": {"type": "string"}}}),
]


class Memo:
    """The server: rows numbered MAX(seq) + 1 over the others (a row saved again replaces its old one),
    listed in the order they were saved, a missing priority answered as "normal"."""

    def __init__(self) -> None:
        self.rows: dict[str, dict[str, Any]] = {}

    def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        if tool == "save":
            key = arguments["key"]
            self.rows.pop(key, None)
            seq = max([row["seq"] for row in self.rows.values()] + [0]) + 1
            self.rows[key] = {
                "id": str(uuid.uuid4()),
                "key": key,
                "value": arguments["value"],
                "priority": arguments.get("priority", "normal"),
                "size": len(arguments["value"]),
                "created": "2026-01-02 03:04:05",
                "seq": seq,
            }
            return f"Saved: {key}"
        if "key" in arguments:
            if arguments["key"] not in self.rows:
                return "No match"
            shown = [self.rows[arguments["key"]]]
        else:
            shown = sorted(self.rows.values(), key=lambda row: row["seq"])
        return {"items": shown, "page": {"total": len(shown), "offset": 0}}


def memo_session(number: int, calls: list[tuple[str, dict[str, Any]]]) -> list[RecordedCall]:
    server = Memo()
    recorded = []
    for seq, (tool, arguments) in enumerate(calls, 1):
        value = server.call(tool, arguments)
        text = value if isinstance(value, str) else json.dumps(value)
        result = {"content": [{"type": "text", "text": text}], "isError": False}
        recorded.append(RecordedCall(f"s{number}", seq, tool, arguments, result, False))
    return recorded


def save(key: str, value: str, priority: str | None = None) -> tuple[str, dict[str, Any]]:
    return ("save", {"key": key, "value": value, **({"priority": priority} if priority else {})})


def test_a_json_listing_of_stored_records_is_built_from_their_fields_defaults_and_numbering() -> None:
    sessions = [
        memo_session(
            0,
            [
                save("ui-risk", "ship on friday"),
                ("get", {"key": "ui-risk"}),
                save("api-owner", "alice", "high"),
                ("get", {}),
                save("ui-risk", "ship on monday"),
                ("get", {}),
                ("get", {"key": "gone"}),
            ],
        ),
        memo_session(
            1,
            [
                save("db-plan", "use postgres", "low"),
                save("db-risk", "disk full"),
                ("get", {}),
                ("get", {"key": "db-plan"}),
                save("db-plan", "use sqlite"),
                ("get", {"key": "db-plan"}),
                ("get", {}),
                ("get", {"key": "old"}),
            ],
        ),
    ]
    inference = infer_guards(MEMO_TOOLS, sessions, ["save", "get"])
    assert inference.answered["get"] == 9  # every recorded read
    # A session never recorded: keys, values and priorities the recordings never showed.
    server, state = Memo(), dict[str, Any]()
    script = [
        save("x", "one", "urgent"),
        save("yy", "three"),
        save("x", "four"),
        ("get", {}),
        ("get", {"key": "yy"}),
        ("get", {"key": "zz"}),
    ]
    for tool, arguments in script:
        expected = server.call(tool, arguments)
        assert_guard_agrees(inference.plans, tool, state, arguments, expected)
