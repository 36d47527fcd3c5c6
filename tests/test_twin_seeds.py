"""Twins of servers whose world starts with a record no call made (a board's `root` node, a default project):
a listing shows it before any call names it, and the twin's world holds it from the start, so that a call on
it succeeds as the server's does, in a session that never made it."""

from __future__ import annotations

from typing import Any

from sim_mcp.authoring.twins.agreement import Answer, compare_answers
from sim_mcp.authoring.twins.keyed_world import infer_guards, initial_keys, run_guard
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec

_ID = {"id": {"type": "string"}}
BOARD_TOOLS = [
    ToolSpec(name="show", input_schema={"type": "object", "properties": {}}),
    ToolSpec(
        name="add",
        input_schema={
            "type": "object",
            "properties": {**_ID, "parent": {"type": "string"}},
            "required": ["id", "parent"],
        },
    ),
    ToolSpec(
        name="add_note",
        input_schema={"type": "object", "properties": {**_ID, "note": {"type": "string"}}, "required": ["id", "note"]},
    ),
]


class Board:
    """The server: nodes under a `root` it starts with; a note on a node it lacks is refused."""

    def __init__(self) -> None:
        self.nodes = ["root"]

    def call(self, tool: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        if tool == "show":
            return "\n".join(f"{node} [active]" for node in self.nodes), False
        if tool == "add":
            if arguments["parent"] not in self.nodes:
                return f"Error: parent '{arguments['parent']}' not found", True
            self.nodes.append(arguments["id"])
            return f"Added node '{arguments['id']}'", False
        if arguments["id"] not in self.nodes:
            return f"Error: node '{arguments['id']}' not found", True
        return f"Added note to '{arguments['id']}'", False


def _session(number: int, calls: list[tuple[str, dict[str, Any]]]) -> list[RecordedCall]:
    server, recorded = Board(), []
    for seq, (tool, arguments) in enumerate(calls, 1):
        text, is_error = server.call(tool, arguments)
        result = {"content": [{"type": "text", "text": text}], "isError": is_error}
        recorded.append(RecordedCall(f"s{number}", seq, tool, arguments, result, is_error))
    return recorded


def test_a_record_the_server_starts_with_is_in_the_twins_world_from_the_start() -> None:
    sessions = []
    for number in range(6):
        node = f"task-{['docs', 'ui', 'api'][number % 3]}-{number}"
        calls: list[tuple[str, dict[str, Any]]] = [("show", {}), ("add", {"id": node, "parent": "root"})]
        calls += [("add_note", {"id": "root", "note": "keep it"}), ("add_note", {"id": node, "note": "later"})]
        calls += [("add_note", {"id": f"{node}-old", "note": "lost"}), ("show", {})]
        sessions.append(_session(number, calls))
    found = infer_guards(BOARD_TOOLS, sessions, [tool.name for tool in BOARD_TOOLS])
    # A session whose first call names the root, and whose nodes were never recorded.
    server, state = Board(), {"_twin": {"keys": initial_keys(found.root, found.seeds)}}
    calls = [("add_note", {"id": "root", "note": "first"}), ("add", {"id": "spike-x", "parent": "root"})]
    calls += [("add_note", {"id": "spike-x", "note": "a"}), ("add_note", {"id": "gone-x", "note": "b"})]
    for tool, arguments in calls:
        expected = server.call(tool, arguments)
        answer = run_guard(found.plans[tool], tool, state, arguments)
        assert answer is not None, (tool, arguments)
        verdict = compare_answers(Answer(expected[0], expected[1]), Answer(answer[0], answer[1]))
        assert verdict.agree, (tool, arguments, answer)
        assert verdict.error_text, (tool, arguments, answer)
    assert found.seeds == ["root"]
