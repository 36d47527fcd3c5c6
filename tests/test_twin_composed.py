"""Twins of a record store that stamps each record with its clock's day and answers it with a line it composes
from the record's fields (`tests/fixture_servers/dated_todo.py`, a todo.txt list)."""

from __future__ import annotations

import json
import random
from typing import Any

from sim_mcp.authoring.twins.composed import compositions, parse
from sim_mcp.authoring.twins.keyed_world import GuardInference, infer_guards, run_guard
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.rules.helpers import DEFAULT_CLOCK
from sim_mcp.specs.model import ToolSpec
from tests.fixture_servers.dated_todo import TOOLS, DatedTodos

SPECS = [ToolSpec(name=tool.name, input_schema=tool.input_schema) for tool in TOOLS]
# The day the sessions were recorded on; the twin's own clock (the learner's and a served twin's session
# start, `DEFAULT_CLOCK`) is another.
RECORDED = "2026-12-06"
TWIN_DAY = DEFAULT_CLOCK.date().isoformat()


def _session(number: int, words: list[str], seed: str) -> list[tuple[str, dict[str, Any]]]:
    rng = random.Random(seed)
    calls: list[tuple[str, dict[str, Any]]] = []
    added = 0
    for _ in range(10):
        roll = rng.random()
        if roll < 0.45 or not added:
            args: dict[str, Any] = {"text": " ".join(rng.sample(words, rng.choice([1, 2])))}
            if rng.random() < 0.5:
                args["priority"] = rng.choice(["A", "B", "C", "C", "high"])
            if rng.random() < 0.6:
                args["projects"] = rng.sample(words, rng.choice([1, 2]))
            if rng.random() < 0.4:
                args["contexts"] = rng.sample(words, 1)
            calls.append(("add_todo", args))
            added += 1
        elif roll < 0.65:
            calls.append(("get_todo", {"id": rng.randint(1, added + 1)}))
        elif roll < 0.8:
            change = {"priority": rng.choice("ABC")} if rng.random() < 0.6 else {"text": " ".join(rng.sample(words, 2))}
            calls.append(("update_todo", {"id": rng.randint(1, added), **change}))
        else:
            calls.append(("list_todos", {}))
    return calls


def _recorded(number: int, calls: list[tuple[str, dict[str, Any]]]) -> list[RecordedCall]:
    server = DatedTodos(RECORDED)
    recorded = []
    for seq, (tool, arguments) in enumerate(calls, 1):
        text, is_error = server.call(tool, arguments)
        result = {"content": [{"type": "text", "text": text}], "isError": is_error}
        recorded.append(RecordedCall(f"s{number}", seq, tool, arguments, result, is_error))
    return recorded


def _learned() -> GuardInference:
    words = ["draft", "invites", "garden", "taxes", "work", "review", "phone", "errands"]
    sessions = [_recorded(n, _session(n, words, f"train-{n}")) for n in range(8)]
    return infer_guards(SPECS, sessions, [tool.name for tool in TOOLS])


def test_a_line_composed_from_fields_is_parsed_as_marked_segments_merged_over_calls() -> None:
    first = {"text": "Review draft", "priority": "A", "projects": ["work"]}
    second = {"text": "Send invites", "projects": ["taxes", "work"], "contexts": ["phone"]}
    assert parse("(A) 2026-12-06 Review draft +work", first) == [
        ("priority", "(", ")", ""),
        ("$today", "", "", ""),
        ("text", "", "", ""),
        ("projects", "+", "", "any"),
    ]
    # Literal words are no field's: no composition.
    assert parse("Added Review draft +work", first) is None
    # Projects given unsorted and shown sorted: the server sorts them.
    third = {"text": "Pay rent", "projects": ["work", "home"]}
    assert compositions(
        [
            ("(A) 2026-12-06 Review draft +work", first),
            ("2026-12-06 Send invites +taxes +work @phone", second),
            ("2026-12-06 Pay rent +home +work", third),
        ]
    ) == [
        ("priority", "(", ")", ""),
        ("$today", "", "", ""),
        ("text", "", "", ""),
        ("projects", "+", "", "sorted"),
        ("contexts", "@", "", ""),
    ]
    # A word two fields could write is read as the one most texts show it as.
    fourth = {"text": "work", "projects": ["work"]}
    texts = [("2026-12-06 work +work", fourth), ("2026-12-06 Send invites +taxes +work @phone", second)]
    assert compositions([*texts, ("(A) 2026-12-06 Review draft +work", first)]) == [
        ("priority", "(", ")", ""),
        ("$today", "", "", ""),
        ("text", "", "", ""),
        ("projects", "+", "", ""),
        ("contexts", "@", "", ""),
    ]


def test_a_twin_answers_its_own_day_and_composes_each_records_line() -> None:
    inference = _learned()
    assert set(inference.plans) == {"add_todo", "get_todo", "update_todo", "list_todos"}
    # A session never recorded, with words the recordings never showed, answered on the twin's own day:
    # the answers are the server's on that day, exactly (not merely dates of the same form).
    words = ["amber", "pine", "stone", "cloud", "kite", "river"]
    server, state = DatedTodos(TWIN_DAY), dict[str, Any]()
    script = [
        ("add_todo", {"text": "amber pine", "priority": "B", "projects": ["stone"], "contexts": ["kite"]}),
        ("add_todo", {"text": "cloud"}),
        ("add_todo", {"text": "river kite", "projects": ["pine", "amber"]}),
        ("add_todo", {"text": "stone", "priority": "low"}),
        ("update_todo", {"id": 2, "priority": "A"}),
        ("get_todo", {"id": 2}),
        ("update_todo", {"id": 3, "text": "kite stone"}),
        *_session(99, words, "check"),
        ("get_todo", {"id": 1}),
        ("get_todo", {"id": 2}),
        ("list_todos", {}),
    ]
    for tool, arguments in script:
        text, is_error = server.call(tool, arguments)
        answer = run_guard(inference.plans[tool], tool, state, arguments)
        assert answer is not None, (tool, arguments)
        expected = text if is_error else json.loads(text)
        assert answer == (expected, is_error), (tool, arguments, answer, expected)
    assert TWIN_DAY != RECORDED
