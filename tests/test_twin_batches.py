"""Batch tools: a server whose every tool takes a list (entries added several at once, read, edited and removed
by lists of ids), answering what it did for each item: `{"added": [4, 5], "n": 2}`. Sessions of a Python model of
it are compiled by the real learner, and the twin's Starlark answers sessions with titles it never saw: the ids
each item gets from the one sequence, each item's fields read back by id, an edit of an id that is missing left
out of the answer, as the server does."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from sim_mcp.authoring.twins.agreement import Answer, compare_answers
from sim_mcp.authoring.twins.batches import find_batches, unrolled
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.rules import CallContext, Limits, compile_program, run_tool
from sim_mcp.rules.helpers import DEFAULT_CLOCK
from sim_mcp.specs.model import ToolSpec
from sim_mcp.state.patch import apply_patch
from tests.twin_learning import compile_recorded

_OBJECTS = {"type": "array", "items": {"type": "object", "additionalProperties": True}}
_IDS = {"type": "array", "items": {"type": "integer"}}
TOOLS = [
    ToolSpec(name="add_entries", input_schema={"type": "object", "properties": {"entries": _OBJECTS}}),
    ToolSpec(name="get_entries", input_schema={"type": "object", "properties": {"ids": _IDS}}),
    ToolSpec(name="edit_entries", input_schema={"type": "object", "properties": {"edits": _OBJECTS}}),
    ToolSpec(name="remove_entries", input_schema={"type": "object", "properties": {"ids": _IDS}}),
]
TITLES = ["Buy milk", "Call mum", "Pay rent", "Walk dog", "Book dentist"]
# Titles no recorded session shows: what the twin must answer from what it learned.
UNSEEN = ["Water the plants", "Renew passport", "Fix the gate"]


class EntryServer:
    """Entries numbered one past the largest ever made; a read or edit of a missing id is left out of the
    answer; a batch with an item of an unknown level is refused whole, nothing written."""

    def __init__(self) -> None:
        self.entries: dict[int, dict[str, Any]] = {}
        self.last = 0

    def call(self, tool: str, args: dict[str, Any]) -> tuple[Any, bool]:
        if tool == "add_entries":
            items = args["entries"]
            if any(item.get("level", "normal") not in ("low", "normal", "high") for item in items):
                return "Invalid level: expected low, normal or high", True
            made = []
            for item in items:
                self.last += 1
                self.entries[self.last] = {"title": item["title"], "level": item.get("level", "normal"), "done": False}
                made.append(self.last)
            return {"added": made, "n": len(made)}, False
        if tool == "get_entries":
            found = [{"id": i, "entry": dict(self.entries[i])} for i in args["ids"] if i in self.entries]
            return {"entries": found, "n": len(found)}, False
        if tool == "edit_entries":
            edited = []
            for edit in args["edits"]:
                if edit["id"] in self.entries:
                    self.entries[edit["id"]].update({k: v for k, v in edit.items() if k != "id"})
                    edited.append(edit["id"])
            return {"edited": edited, "n": len(edited)}, False
        removed = [i for i in args["ids"] if self.entries.pop(i, None) is not None]
        return {"removed": removed, "n": len(removed)}, False


def session(rng: random.Random, titles: list[str], calls: int) -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    made = 0
    for _ in range(calls):
        pick = rng.random()
        if pick < 0.35 or not made:
            items: list[dict[str, Any]] = []
            for _ in range(rng.randint(1, 3)):
                item: dict[str, Any] = {"title": rng.choice(titles)}
                if rng.random() < 0.5:
                    item["level"] = rng.choice(["low", "high"])
                items.append(item)
            if rng.random() < 0.08:
                items = [{"title": rng.choice(titles), "level": "urgent"}]
            made += len(items)
            out.append(("add_entries", {"entries": items}))
            continue
        ids = sorted({rng.randint(1, made) for _ in range(rng.randint(1, 2))})
        if rng.random() < 0.2:
            ids.append(99)
        if pick < 0.6:
            out.append(("get_entries", {"ids": ids}))
        elif pick < 0.85:
            changes: list[dict[str, Any]] = [{"done": True}, {"level": "high"}, {"title": rng.choice(titles) + "!"}]
            change = rng.choice(changes)
            out.append(("edit_entries", {"edits": [{"id": i, **change} for i in ids]}))
        else:
            out.append(("remove_entries", {"ids": ids}))
    return out


def recorded(seed: int, count: int, titles: list[str]) -> list[list[RecordedCall]]:
    rng = random.Random(seed)
    sessions = []
    for number in range(count):
        server = EntryServer()
        calls = []
        for seq, (tool, args) in enumerate(session(rng, titles, 12), start=1):
            value, is_error = server.call(tool, args)
            text = value if isinstance(value, str) else json.dumps(value)
            result: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": is_error}
            if not is_error:
                result["structuredContent"] = value
            calls.append(RecordedCall(f"s{seed}-{number}", seq, tool, args, result, is_error))
        sessions.append(calls)
    return sessions


def test_a_batch_tool_is_learned_item_by_item_and_answers_titles_it_never_saw(tmp_path: Path) -> None:
    report = compile_recorded(tmp_path, TOOLS, recorded(0, 20, TITLES))
    for name in ("add_entries", "get_entries", "edit_entries", "remove_entries"):
        assert report[name]["status"] in ("guarded", "exact"), report[name]
        assert report[name]["plan"]["batch"]["counts"] == {"n": next(iter(report[name]["plan"]["batch"]["lists"]))}
    text = (tmp_path / "spec.rules.star").read_text()
    program = compile_program(text, "<twin>", [tool.name for tool in TOOLS])
    state: dict[str, Any] = {"_twin": {"keys": {}}}
    server = EntryServer()

    def agree(tool: str, args: dict[str, Any]) -> Any:
        nonlocal state
        context = CallContext.of(DEFAULT_CLOCK, seed=0, sequence=0, tool=tool)
        outcome = run_tool(program, tool, state, args, context, Limits(), handing_on=True)
        assert outcome.declined is None, f"{tool}({args}) was handed on: {outcome.declined}"
        real = server.call(tool, args)
        verdict = compare_answers(Answer(*real), Answer(outcome.result, outcome.is_error))
        assert verdict.agree, f"{tool}({args}): twin {outcome.result}, server {real[0]}"
        state = apply_patch(state, outcome.state_patch) if outcome.state_patch else state
        return outcome.result

    assert agree("add_entries", {"entries": [{"title": UNSEEN[0]}, {"title": UNSEEN[1], "level": "high"}]}) == {
        "added": [1, 2],
        "n": 2,
    }
    assert agree("add_entries", {"entries": [{"title": UNSEEN[2], "level": "low"}]})["added"] == [3]
    # Each item's fields read back by its id; a missing id is left out, and the count says so.
    got = agree("get_entries", {"ids": [2, 99, 3]})
    assert [entry["entry"]["title"] for entry in got["entries"]] == [UNSEEN[1], UNSEEN[2]]
    assert got["n"] == 2
    assert agree("edit_entries", {"edits": [{"id": 1, "done": True}, {"id": 99, "done": True}]}) == {
        "edited": [1],
        "n": 1,
    }
    assert agree("remove_entries", {"ids": [2]}) == {"removed": [2], "n": 1}
    assert agree("get_entries", {"ids": [2]}) == {"entries": [], "n": 0}


def test_an_answer_splits_by_the_value_each_element_shows_else_by_position() -> None:
    """Ids repeated in one batch go to the items in order; a list with as many elements as items and no
    value of theirs (ids made up) by position; a failure of several items is left out, as the recordings do
    not say which failed."""
    sessions = recorded(0, 20, TITLES)
    batches = find_batches(TOOLS, sessions)
    assert batches["add_entries"].owners == (None,)
    assert batches["edit_entries"].owners == ("id",)
    assert batches["get_entries"].singles == ("entries",)
    twice = RecordedCall(
        "x",
        1,
        "edit_entries",
        {"edits": [{"id": 2, "done": True}, {"id": 2, "title": "b"}, {"id": 7, "done": True}]},
        {"content": [], "structuredContent": {"edited": [2, 2], "n": 2}},
        False,
    )
    failed = RecordedCall(
        "x", 2, "add_entries", {"entries": [{"title": "a"}, {"title": "b", "level": "x"}]}, {"content": []}, True
    )
    _, view = unrolled(TOOLS, [[twice, failed]], batches)
    assert [(call.arguments, call.value) for call in view[0]] == [
        ({"id": 2, "done": True}, {"edited": 2}),
        ({"id": 2, "title": "b"}, {"edited": 2}),
        ({"id": 7, "done": True}, {"edited": None}),
    ]


def test_a_tool_whose_list_argument_is_not_always_given_is_no_batch() -> None:
    """A listing with an optional list of filters is no batch: its calls are learned as they are."""
    listing = ToolSpec(name="list_entries", input_schema={"type": "object", "properties": {"levels": _IDS}})
    calls = [
        RecordedCall("s", 1, "list_entries", {"levels": [1]}, {"content": [], "structuredContent": {"x": [1]}}, False),
        RecordedCall("s", 2, "list_entries", {}, {"content": [], "structuredContent": {"x": []}}, False),
    ]
    assert find_batches([listing], [calls]) == {}


class NumberedServer:
    """Entries numbered max(id) + 1 over those stored (removing the newest frees its id), each with an optional
    estimate in hours (a float, which may equal the id made up); a level outside those documented refused,
    the whole batch with it, in a validator's words; each entry read back nested under its id."""

    def __init__(self) -> None:
        self.entries: dict[int, dict[str, Any]] = {}

    def call(self, tool: str, args: dict[str, Any]) -> tuple[Any, bool]:
        if tool == "add_entries":
            for item in args["entries"]:
                if item.get("level", "normal") not in ("low", "normal", "high"):
                    return (
                        "1 validation error for Entry\nlevel\n  Input should be 'low', 'normal' or 'high' "
                        f"[input_value='{item['level']}']"
                    ), True
            made = []
            for item in args["entries"]:
                number = max(self.entries, default=0) + 1
                self.entries[number] = {
                    "title": item["title"],
                    "level": item.get("level", "normal"),
                    "estimate": item.get("estimate"),
                }
                made.append(number)
            return {"added": made, "n": len(made)}, False
        if tool == "get_entries":
            found = [{"id": i, "entry": dict(self.entries[i])} for i in args["ids"] if i in self.entries]
            return {"entries": found, "n": len(found)}, False
        removed = [i for i in args["ids"] if self.entries.pop(i, None) is not None]
        return {"removed": removed, "n": len(removed)}, False


_DOCUMENTED = {
    "type": "array",
    "items": {"type": "object", "additionalProperties": True},
    "description": 'Each entry: title; level, one of "low", "normal" (default), "high"; estimate in hours.',
}
NUMBERED = [
    ToolSpec(name="add_entries", input_schema={"type": "object", "properties": {"entries": _DOCUMENTED}}),
    ToolSpec(name="get_entries", input_schema={"type": "object", "properties": {"ids": _IDS}}),
    ToolSpec(name="remove_entries", input_schema={"type": "object", "properties": {"ids": _IDS}}),
]


def numbered_session(rng: random.Random, titles: list[str], calls: int) -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    made = 0
    for _ in range(calls):
        pick = rng.random()
        if pick < 0.45 or not made:
            items: list[dict[str, Any]] = []
            for _ in range(rng.randint(1, 2)):
                item: dict[str, Any] = {"title": rng.choice(titles)}
                if rng.random() < 0.4:
                    item["level"] = rng.choice(["low", "high"])
                if rng.random() < 0.4:
                    item["estimate"] = rng.choice([0.5, 1.5, 2.5])
                items.append(item)
            if rng.random() < 0.15:
                items[-1]["level"] = rng.choice(["urgent", "later", "asap"])
            made += len(items)
            out.append(("add_entries", {"entries": items}))
        elif pick < 0.75:
            out.append(("get_entries", {"ids": [rng.randint(1, made)]}))
        else:
            # The newest as often as not: the next entry takes its number again.
            out.append(("remove_entries", {"ids": [made if rng.random() < 0.5 else rng.randint(1, made)]}))
    return out


def numbered_recorded(seed: int, count: int) -> list[list[RecordedCall]]:
    rng = random.Random(seed)
    sessions = []
    for number in range(count):
        server = NumberedServer()
        calls = []
        for seq, (tool, args) in enumerate(numbered_session(rng, TITLES, 12), start=1):
            value, is_error = server.call(tool, args)
            text = value if isinstance(value, str) else json.dumps(value)
            result: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": is_error}
            if not is_error:
                result["structuredContent"] = value
            calls.append(RecordedCall(f"n{seed}-{number}", seq, tool, args, result, is_error))
        sessions.append(calls)
    return sessions


def test_ids_numbered_over_those_stored_and_refusals_checked_before_anything(tmp_path: Path) -> None:
    """A JSON id that is one past the largest stored (not a counter), an id equal to a float estimate still
    made up, and a refusal of a level outside those documented answered first, storing nothing."""
    compile_recorded(tmp_path, NUMBERED, numbered_recorded(0, 24))
    program = compile_program((tmp_path / "spec.rules.star").read_text(), "<twin>", [t.name for t in NUMBERED])
    state: dict[str, Any] = {"_twin": {"keys": {}}}
    server = NumberedServer()

    def agree(tool: str, args: dict[str, Any]) -> Any:
        nonlocal state
        context = CallContext.of(DEFAULT_CLOCK, seed=0, sequence=0, tool=tool)
        outcome = run_tool(program, tool, state, args, context, Limits(), handing_on=True)
        assert outcome.declined is None, f"{tool}({args}) was handed on: {outcome.declined}"
        real = server.call(tool, args)
        verdict = compare_answers(Answer(*real), Answer(outcome.result, outcome.is_error))
        assert verdict.agree, f"{tool}({args}): twin {outcome.result}, server {real[0]}"
        state = apply_patch(state, outcome.state_patch) if outcome.state_patch else state
        return outcome.result

    assert agree("add_entries", {"entries": [{"title": UNSEEN[0]}]})["added"] == [1]
    assert agree("add_entries", {"entries": [{"title": UNSEEN[1], "estimate": 2.0}]})["added"] == [2]
    # Refused whole: nothing stored, no number used up.
    agree("add_entries", {"entries": [{"title": UNSEEN[2]}, {"title": UNSEEN[2], "level": "someday"}]})
    assert agree("add_entries", {"entries": [{"title": UNSEEN[2], "level": "high"}]})["added"] == [3]
    # The newest removed: its number is free again.
    agree("remove_entries", {"ids": [3]})
    assert agree("add_entries", {"entries": [{"title": UNSEEN[0], "estimate": 1.0}]})["added"] == [3]
    assert agree("get_entries", {"ids": [2]})["entries"][0]["entry"]["title"] == UNSEEN[1]
