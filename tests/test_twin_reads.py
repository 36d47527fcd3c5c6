"""Reads that count themselves (`keyed_world`, `library.twin_touch`): a memory store whose retrieve answers a
record with its access count, one more on each read, is learned from recorded sessions by the real learner
and answered by the real Starlark. The count is learned from successive answers about one record (the
effect of the read), kept or reset by a write as the recordings show; the record's id is counted across the
whole store, every namespace, as its sequence counts; a name left without its namespace is read in the
namespace the schema defaults to; every record, or a namespace's, is listed with those numbers, the one
written last first; and a read whose answers count nothing is held to change nothing."""

from __future__ import annotations

import json
from typing import Any

from sim_mcp.authoring.twins.keyed_world import infer_guards
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec
from tests.twin_learning import assert_guard_agrees

_NAMED = {"key": {"type": "string"}, "namespace": {"type": "string", "default": "default"}}
TOOLS = [
    ToolSpec(
        name="memory_store",
        input_schema={
            "type": "object",
            "properties": {**_NAMED, "value": {"type": "string"}},
            "required": ["key", "value"],
        },
    ),
    ToolSpec(name="memory_retrieve", input_schema={"type": "object", "properties": _NAMED, "required": ["key"]}),
    ToolSpec(name="memory_delete", input_schema={"type": "object", "properties": _NAMED, "required": ["key"]}),
    ToolSpec(name="memory_list", input_schema={"type": "object", "properties": {"namespace": {"type": "string"}}}),
]
NAMES = [tool.name for tool in TOOLS]


class Memory:
    """A keyed memory as such a server keeps it: records under a namespace and a key, each with an id its
    sequence numbers (`every`: a store of a key already there uses one up too, as an upsert does), a time,
    and how often it was read (`counted`; `reset`: a write starts the count again)."""

    def __init__(self, session: str, *, counted: bool = True, every: bool = False, reset: bool = False) -> None:
        self.session, self.counted, self.every, self.reset = session, counted, every, reset
        self.records: dict[tuple[str, str], dict[str, Any]] = {}
        self.sequence = 0
        self.calls: list[RecordedCall] = []

    def answer(self, tool: str, args: dict[str, Any]) -> Any:
        where = (args.get("namespace", "default"), args.get("key", ""))
        now = f"2026-01-01T00:00:{len(self.calls):02d}+00:00"
        if tool == "memory_store":
            before = self.records.get(where)
            if before is None or self.every:
                self.sequence += 1
            if before is None:
                record = {"id": self.sequence, "namespace": where[0], "key": where[1], "created_at": now}
                self.records[where] = record | {"value": args["value"], "updated_at": now, "access_count": 0}
            else:
                before.update(value=args["value"], updated_at=now)
                if self.reset:
                    before["access_count"] = 0
            return {"namespace": where[0], "key": where[1], "stored": True, "updated_at": now}
        if tool == "memory_delete":
            return {"deleted": self.records.pop(where, None) is not None, "namespace": where[0], "key": where[1]}
        if tool == "memory_list":
            # Every record, or a namespace's, the one written last first.
            listed = [r for r in self.records.values() if args.get("namespace") in (None, r["namespace"])]
            listed.sort(key=lambda record: record["updated_at"], reverse=True)
            return {"total": len(listed), "memories": [dict(record) for record in listed]}
        found = self.records.get(where)
        if found is None:
            return {"found": False, "key": where[1], "namespace": where[0]}
        shown = dict(found)
        if self.counted:
            found["access_count"] += 1
        else:
            del shown["access_count"]
        return shown

    def play(self, steps: list[tuple[str, dict[str, Any]]]) -> list[RecordedCall]:
        for tool, args in steps:
            result = {"content": [{"type": "text", "text": _json(self.answer(tool, args))}], "isError": False}
            self.calls.append(RecordedCall(self.session, len(self.calls) + 1, tool, args, result, False))
        return self.calls


def _json(value: Any) -> str:
    return json.dumps(value, indent=2)


def _store(key: str, value: str, namespace: str | None = None) -> tuple[str, dict[str, Any]]:
    return ("memory_store", {"key": key, "value": value} | ({"namespace": namespace} if namespace else {}))


def _read(key: str, namespace: str | None = None, tool: str = "memory_retrieve") -> tuple[str, dict[str, Any]]:
    return (tool, {"key": key} | ({"namespace": namespace} if namespace else {}))


def _list(namespace: str | None = None) -> tuple[str, dict[str, Any]]:
    return ("memory_list", {"namespace": namespace} if namespace else {})


SESSIONS = [
    [
        _store("owner", "alice", "api"),
        _read("owner", "api"),
        _read("owner"),
        _read("owner", "api"),
        _store("deadline", "friday"),
        _read("deadline"),
        _read("owner", "api"),
        _store("owner", "bob", "api"),
        _read("owner", "api"),
        _read("deadline", "default"),
        _list(),
        _list("api"),
    ],
    [
        _store("risk", "high", "web"),
        _store("risk", "low", "web"),
        _store("plan", "ship", "web"),
        _read("plan", "web"),
        _read("risk", "web"),
        _read("risk", "web"),
        _read("missing", "web"),
        _read("plan", "web", "memory_delete"),
        _read("plan", "web"),
        _store("plan", "again", "web"),
        _read("plan", "web"),
        _read("plan", "web"),
        _read("risk", "web"),
        _list("web"),
        _store("extra", "more"),
        _list(),
    ],
    [
        _store("cache", "ten minutes"),
        _store("cache", "an hour", "ops"),
        _read("cache", "ops"),
        _read("cache"),
        _read("cache"),
        _read("cache", "ops"),
        _store("cache", "a day"),
        _read("cache"),
        _read("cache", "default", "memory_delete"),
        _read("cache"),
        _read("cache", "web"),
    ],
    [
        _read("notes"),
        _read("notes", "ops"),
        _store("notes", "short", "ops"),
        _store("todo", "long", "ops"),
        _read("todo", "ops"),
        _read("notes", "ops"),
        _read("notes", "ops"),
        _read("todo", "ops"),
        _store("notes", "longer", "ops"),
        _read("notes", "ops"),
        _read("todo"),
        _list("ops"),
        _list(),
        _store("alpha", "first", "ops"),
        _store("zeta", "last", "ops"),
        _store("alpha", "again", "ops"),
        _list("ops"),
        _list(),
    ],
]

# A session none was learned from: reads on reads, a write between them, a namespace left out.
PLAYED = [
    _store("rollout", "monday", "api"),
    _store("rollout", "tuesday"),
    _read("rollout", "api"),
    _read("rollout", "api"),
    _read("rollout"),
    _store("rollout", "wednesday", "api"),
    _read("rollout", "api"),
    _read("other", "api"),
    _store("next", "friday", "web"),
    _read("next", "web"),
    _read("next"),
    _list(),
    _list("api"),
    _read("rollout", "api", "memory_delete"),
    _read("rollout", "api"),
    _store("rollout", "again", "api"),
    _read("rollout", "api"),
    _store("next", "saturday", "web"),
    _list(),
    _list("web"),
]


def _learned(**server: bool) -> tuple[dict[str, Any], list[RecordedCall]]:
    recorded = [Memory(f"s{n}", **server).play(steps) for n, steps in enumerate(SESSIONS)]
    found = infer_guards(TOOLS, recorded, NAMES)
    played = Memory("played", **server).play(PLAYED)
    return found.plans, played


def _agrees(plans: dict[str, Any], played: list[RecordedCall]) -> None:
    state: dict[str, Any] = {}
    for call in played:
        assert_guard_agrees(plans, call.tool, state, call.arguments, call.value)


def test_a_read_that_counts_itself_answers_one_more_on_each_read_and_keeps_the_count_over_a_write() -> None:
    plans, played = _learned()
    assert ["touch", "namespace+key"] in [rule["effect"] for rule in plans["memory_retrieve"]["rules"]]
    _agrees(plans, played)


def test_a_count_that_a_write_starts_again_is_told_from_one_it_keeps() -> None:
    plans, played = _learned(reset=True)
    _agrees(plans, played)


def test_an_id_counted_by_every_store_is_told_from_one_counted_by_each_new_record() -> None:
    plans, played = _learned(every=True)
    _agrees(plans, played)


def test_a_read_whose_answers_count_nothing_changes_nothing() -> None:
    plans, played = _learned(counted=False)
    assert all(rule["effect"] is None for rule in plans["memory_retrieve"]["rules"])
    _agrees(plans, played)


# Deletes that find their record and deletes that do not, the same name in two namespaces: which one a
# delete removed only the namespace and the name together tell.
DELETES = [
    [
        _store("cache", "ten minutes"),
        _store("cache", "an hour", "ops"),
        _read("cache", "ops"),
        _read("cache", "ops", "memory_delete"),
        _read("cache", "ops"),
        _read("cache"),
        _read("cache", "ops", "memory_delete"),
        _read("cache", None, "memory_delete"),
        _read("cache"),
    ],
    [
        _store("plan", "ship", "web"),
        _read("plan", "web", "memory_delete"),
        _read("plan", "web", "memory_delete"),
        _store("plan", "again", "web"),
        _store("plan", "here"),
        _read("plan", "web"),
        _read("plan", None, "memory_delete"),
        _read("plan", "web"),
        _read("plan"),
    ],
    [
        _read("notes", "ops", "memory_delete"),
        _store("notes", "short", "ops"),
        _store("notes", "long"),
        _read("notes", "ops"),
        _read("notes", "default", "memory_delete"),
        _read("notes", "ops"),
        _read("notes", "ops", "memory_delete"),
        _read("notes", "ops"),
        _read("notes", "ops", "memory_delete"),
    ],
]

# A delete then finds nothing under its name in that namespace, and the same name elsewhere stays.
DELETED = [
    _store("rollout", "monday", "api"),
    _store("rollout", "tuesday"),
    _read("rollout", "api", "memory_delete"),
    _read("rollout", "api"),
    _read("rollout"),
    _read("rollout", "api", "memory_delete"),
    _read("rollout", None, "memory_delete"),
    _read("rollout"),
    _store("rollout", "again", "api"),
    _read("rollout", "api"),
]


def test_a_delete_by_a_name_in_a_namespace_removes_what_a_store_kept_there() -> None:
    recorded = [Memory(f"s{n}").play(steps) for n, steps in enumerate(DELETES + SESSIONS)]
    plans = infer_guards(TOOLS, recorded, NAMES).plans
    assert ["drop", "namespace+key"] in [rule.get("effect") for rule in plans["memory_delete"]["rules"]]
    _agrees(plans, Memory("played").play(DELETED))
