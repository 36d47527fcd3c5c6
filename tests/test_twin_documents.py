"""Twins of servers that keep documents and show them back as the server rewrote them: a text appended to
with a joiner, a revision counted per write (also across a rename), and a search that answers its constant
"nothing found" where no stored document holds the query."""

from __future__ import annotations

import json
from typing import Any

from sim_mcp.authoring.twins.keyed_world import infer_guards
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec
from tests.twin_learning import assert_guard_agrees


def _tool(name: str, *required: str) -> ToolSpec:
    properties = {arg: {"type": "string"} for arg in required}
    return ToolSpec(name=name, input_schema={"type": "object", "properties": properties, "required": list(required)})


NOTE_TOOLS = [
    _tool("note_write", "name", "content"),
    _tool("note_append", "name", "content"),
    _tool("note_rename", "name", "new_name"),
    _tool("note_read", "name"),
    _tool("note_search", "query"),
]


class Notes:
    """The server: a note is a text kept as a file ending in a newline, appended to a line at a time; every
    write counts a revision (a rename too); answers are JSON written as text, indented."""

    def __init__(self) -> None:
        self.notes: dict[str, dict[str, Any]] = {}

    def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        name = arguments.get("name", "")
        if tool == "note_search":
            query = arguments["query"].lower()
            found = [n for n, note in self.notes.items() if query in note["text"].lower() or query in n.lower()]
            return f"Found {len(found)} notes." if found else "Nothing matches."
        if tool != "note_write" and name not in self.notes:
            return {"error": "not_found", "message": f"Note '{name}' not found."}
        if tool == "note_write":
            revision = self.notes[name]["revision"] + 1 if name in self.notes else 1
            self.notes[name] = {"text": arguments["content"] + "\n", "revision": revision}
        elif tool == "note_append":
            note = self.notes[name]
            note["text"] += arguments["content"] + "\n"
            note["revision"] += 1
        elif tool == "note_rename":
            note = self.notes.pop(name)
            note["revision"] += 1
            name = arguments["new_name"]
            self.notes[name] = note
        else:
            note = self.notes[name]
            return {"name": name, "revision": note["revision"], "content": note["text"]}
        return {"name": name, "revision": self.notes[name]["revision"]}


def notes_session(number: int, calls: list[tuple[str, dict[str, Any]]]) -> list[RecordedCall]:
    server = Notes()
    recorded = []
    for seq, (tool, arguments) in enumerate(calls, 1):
        value = server.call(tool, arguments)
        text = value if isinstance(value, str) else json.dumps(value, indent=2)
        result = {"content": [{"type": "text", "text": text}], "isError": False}
        recorded.append(RecordedCall(f"s{number}", seq, tool, arguments, result, False))
    return recorded


def write(name: str, content: str) -> tuple[str, dict[str, Any]]:
    return ("note_write", {"name": name, "content": content})


def append(name: str, content: str) -> tuple[str, dict[str, Any]]:
    return ("note_append", {"name": name, "content": content})


def read(name: str) -> tuple[str, dict[str, Any]]:
    return ("note_read", {"name": name})


def search(query: str) -> tuple[str, dict[str, Any]]:
    return ("note_search", {"query": query})


def rename(name: str, new_name: str) -> tuple[str, dict[str, Any]]:
    return ("note_rename", {"name": name, "new_name": new_name})


def test_a_document_is_shown_back_as_written_appended_to_and_counted_per_write() -> None:
    sessions = [
        notes_session(
            0,
            [
                write("deploy-plan", "# Goals\n\n- ship on friday"),
                read("deploy-plan"),
                search("postgres"),
                write("cache-notes", "- use sqlite"),
                append("deploy-plan", "- keep the old endpoint"),
                read("deploy-plan"),
                search("friday"),
                append("deploy-plan", "- alice owns it"),
                read("deploy-plan"),
                rename("cache-notes", "cache-notes-old"),
                read("cache-notes-old"),
                write("cache-notes-old", "- use sqlite, then postgres"),
                write("deploy-plan", "# Decisions"),
                read("deploy-plan"),
                search("sqlite"),
                append("missing-note", "- lost"),
            ],
        ),
        notes_session(
            1,
            [
                search("cache"),
                write("cache-log", "# Open questions"),
                append("cache-log", "- blocked on review"),
                write("auth-notes", "# Next steps\n\n- review the migration"),
                write("misc", "- unrelated"),
                search("review"),
                read("cache-log"),
                rename("cache-log", "cache-log-old"),
                read("cache-log-old"),
                append("cache-log-old", "- retry with backoff"),
                read("cache-log-old"),
                search("sqlite"),
                append("auth-notes", "- cache for ten minutes"),
                read("auth-notes"),
                search("nothing-here"),
            ],
        ),
    ]
    inference = infer_guards(NOTE_TOOLS, sessions, [tool.name for tool in NOTE_TOOLS])
    for tool in ("note_read", "note_append", "note_search"):
        assert inference.answered[tool] == sum(c.tool == tool for s in sessions for c in s), tool
    # A session never recorded: names, texts and queries the recordings never showed.
    server, state = Notes(), dict[str, Any]()
    script = [
        search("zebra"),
        write("q", '# Plan\n\nUse "quotes" here'),
        append("q", "- one more line"),
        append("q", "- and another"),
        read("q"),
        write("other", "- unrelated"),
        search("QUOTES"),
        rename("q", "qq"),
        append("qq", "- after the rename"),
        read("qq"),
        write("qq", "fresh start"),
        read("qq"),
        search("zebra"),
    ]
    for tool, arguments in script:
        expected = server.call(tool, arguments)
        assert_guard_agrees(inference.plans, tool, state, arguments, expected)
