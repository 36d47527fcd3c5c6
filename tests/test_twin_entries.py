"""A knowledge base of entries under a namespace and a key (as an SQLite-backed store keeps them): one save
that creates an entry, given no id, under an id counted across the store that is never given out again, or,
given the id of one stored, changes the fields the call gives and names them; a read by id, a listing under
a namespace with the day each entry was updated, an edit of its data (a stretch replaced, or "not found"), a
delete. Every argument but the id is optional and may be null, as a Python server declares it, and every
answer, refusals too, is a text the server's framework wraps under one field (`{"result": "..."}`).
Sessions of a Python model of that server are compiled by the real learner, and the twin's Starlark answers
sessions it never saw."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

from sim_mcp.authoring.twins.agreement import Answer, compare_answers
from sim_mcp.authoring.twins.keyed_world import infer_guards, run_guard
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec


def _nullable(kind: str) -> dict[str, Any]:
    return {"anyOf": [{"type": kind}, {"type": "null"}], "default": None}


_FIELDS = ("ns", "key", "title", "description", "data")
_ID = {"id": {"type": "integer"}}
TOOLS = [
    ToolSpec(
        name="save",
        input_schema={
            "type": "object",
            "properties": {"id": _nullable("integer")}
            | {f: _nullable("string") for f in _FIELDS}
            | {"tags": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]}},
        },
    ),
    ToolSpec(name="get", input_schema={"type": "object", "properties": _ID, "required": ["id"]}),
    ToolSpec(name="list", input_schema={"type": "object", "properties": {"ns": _nullable("string")}}),
    ToolSpec(name="delete", input_schema={"type": "object", "properties": _ID, "required": ["id"]}),
    ToolSpec(
        name="replace",
        input_schema={
            "type": "object",
            "properties": _ID | {"old_string": {"type": "string"}, "new_string": {"type": "string"}},
            "required": ["id", "old_string", "new_string"],
        },
    ),
]
SPACES = ["billing", "search", "deploy"]
NAMES = ["cache-risk", "api-owner", "docs-status", "ui-deadline", "auth-summary"]
# Namespaces and names no recorded session shows: what the twin must answer from what it learned.
UNSEEN = [("payments", "retry-policy"), ("payments", "fraud-rules"), ("mobile", "release-train")]


def _title(key: str) -> str:
    return key.replace("-", " ").title()


class EntryServer:
    """The server's behaviour: an entry's id is one past the largest ever given (deleting the newest frees
    none); a save without an id needs ns, key and title; a save with one changes what it gives."""

    def __init__(self) -> None:
        self.entries: dict[int, dict[str, Any]] = {}
        self.last = 0

    def call(self, tool: str, args: dict[str, Any]) -> str:
        if tool == "save":
            return self.save(args)
        if tool == "list":
            space = args.get("ns")
            shown = [e for e in self.entries.values() if space is None or e["ns"] == space]
            if not shown:
                return "No entries found."
            day = datetime.now(UTC).date().isoformat()
            lines = [f"id={e['id']} | {e['ns']}/{e['key']} | {e['title']} | {day}" for e in shown]
            return "\n".join([*lines, f"({len(shown)} total)"])
        found = self.entries.get(args["id"])
        if found is None:
            return f"Not found: id={args['id']}"
        if tool == "replace":
            if args["old_string"] not in found.get("data", ""):
                return f"Error: old_string not found in id={args['id']}"
            found["data"] = found["data"].replace(args["old_string"], args["new_string"])
            return f"Replaced in: {found['ns']}/{found['key']} (id={found['id']})"
        if tool == "get":
            # A Python server's f-string of the list it stored.
            tags = f"  tags={found['tags']}" if found.get("tags") else ""
            return f"id={found['id']} | {found['ns']}/{found['key']}{tags}\n{found['title']}"
        del self.entries[args["id"]]
        return f"Deleted id={args['id']}"

    def save(self, args: dict[str, Any]) -> str:
        given = {name: args[name] for name in (*_FIELDS, "tags") if args.get(name) is not None}
        if args.get("id") is None:
            if not all(name in given for name in ("ns", "key", "title")):
                return "Error: create requires ns, key, and title (or pass id to update)"
            self.last += 1
            self.entries[self.last] = {"id": self.last, **given}
            return f"Created: {given['ns']}/{given['key']} (id={self.last})"
        found = self.entries.get(args["id"])
        if found is None:
            return f"Not found: id={args['id']}"
        found.update(given)
        return f"Updated: {found['ns']}/{found['key']} (id={found['id']}) — fields: {', '.join(given)}"


def session(rng: random.Random, calls: int) -> list[tuple[str, dict[str, Any]]]:
    """Calls an agent would make: saving entries (now and then without a title), changing one of their
    fields by id, reading, listing and deleting them (and now and then an id that does not exist)."""
    out: list[tuple[str, dict[str, Any]]] = []
    made = 0
    for _ in range(calls):
        pick = rng.random()
        known = rng.randint(1, made) if made and rng.random() < 0.85 else 99
        if pick < 0.35 or not made:
            key = rng.choice(NAMES)
            args: dict[str, Any] = {"ns": rng.choice(SPACES), "key": key, "title": _title(key)}
            if rng.random() < 0.4:
                args["description"] = key.replace("-", " ") + " started"
            if rng.random() < 0.5:
                args["data"] = rng.choice(["blocked on review", "waiting for alice"])
            if rng.random() < 0.4:
                args["tags"] = rng.sample(["docs", "urgent", "home"], rng.randint(1, 2))
            if rng.random() < 0.1:
                del args["title"]
            made += "title" in args
            out.append(("save", args))
        elif pick < 0.55:
            change = rng.choice([{"title": "Renamed"}, {"data": "notes"}, {"description": "later", "data": "x"}])
            out.append(("save", {"id": known, **change}))
        elif pick < 0.7:
            out.append(("get", {"id": known}))
        elif pick < 0.8:
            out.append(("list", {"ns": rng.choice(SPACES)} if rng.random() < 0.5 else {}))
        elif pick < 0.9:
            old = rng.choice(["review", "alice", "nothing"])
            out.append(("replace", {"id": known, "old_string": old, "new_string": "bob"}))
        else:
            out.append(("delete", {"id": known}))
    return out


def _result(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "structuredContent": {"result": text}, "isError": False}


def recorded(seed: int, count: int) -> list[list[RecordedCall]]:
    rng = random.Random(seed)
    sessions = []
    for number in range(count):
        server = EntryServer()
        calls = []
        for seq, (tool, args) in enumerate(session(rng, 12), start=1):
            calls.append(RecordedCall(f"s{seed}-{number}", seq, tool, args, _result(server.call(tool, args)), False))
        sessions.append(calls)
    return sessions


def test_entries_saved_under_a_counted_id_changed_by_it_read_and_listed() -> None:
    plans = infer_guards(TOOLS, recorded(0, 20), [tool.name for tool in TOOLS]).plans
    state: dict[str, Any] = {}
    server = EntryServer()

    def agree(tool: str, args: dict[str, Any]) -> str:
        twin = run_guard(plans[tool], tool, state, args)
        assert twin is not None, f"{tool}({args}) was handed on"
        real = server.call(tool, args)
        verdict = compare_answers(Answer({"result": real}, False), Answer(twin[0], twin[1]))
        assert verdict.agree, f"{tool}({args}): twin {twin}, server {real}"
        return real

    (space, key), (_, other), (third_space, third) = UNSEEN
    assert agree("save", {"ns": space, "key": key, "title": _title(key)}) == f"Created: {space}/{key} (id=1)"
    assert agree("save", {"ns": space, "key": other, "title": "Fraud"}).endswith("(id=2)")
    # A refusal answered as a success: a create without its title stores nothing and counts no id.
    assert agree("save", {"ns": space, "key": "x"}).startswith("Error: create requires")
    # The id counts on across the store: deleting the newest entry gives its id out to none.
    assert agree("delete", {"id": 2}) == "Deleted id=2"
    assert agree("save", {"ns": third_space, "key": third, "title": "Train", "tags": ["ios"]}).endswith("(id=3)")
    # Read back with the list stored as the server's language writes one.
    assert agree("get", {"id": 3}) == f"id=3 | {third_space}/{third}  tags=['ios']\nTrain"
    # Given an id, the save changes that entry and names the fields the call gave, in the server's order.
    changed = agree("save", {"id": 1, "data": "notes", "description": "later"})
    assert changed == f"Updated: {space}/{key} (id=1) — fields: description, data"
    agree("save", {"id": 1, "title": "Renamed"})
    assert agree("get", {"id": 1}) == f"id=1 | {space}/{key}\nRenamed"
    assert agree("save", {"id": 2, "title": "Gone"}) == "Not found: id=2"
    # A replace finds the text it is to replace in the stored data, or says it is not there.
    assert agree("replace", {"id": 1, "old_string": "not", "new_string": "NOT"}) == f"Replaced in: {space}/{key} (id=1)"
    assert agree("replace", {"id": 1, "old_string": "absent", "new_string": "b"}).startswith(
        "Error: old_string not found"
    )
    assert agree("get", {"id": 7}) == "Not found: id=7"
    # Listed with the day each was updated: the twin's own clock, as the server's.
    listed = agree("list", {})
    assert listed.endswith("(2 total)")
    assert f"| {datetime.now(UTC).date().isoformat()}" in listed
