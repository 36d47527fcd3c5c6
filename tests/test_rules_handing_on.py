"""A rules program that declines a call (`decline()`): the next way of answering answers it (replay, then
the configured backend), the program's own changes are dropped; through the SDK client in memory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sim_mcp.rules import CallContext, Limits, RulesError, compile_program, example_problem, run_tool
from sim_mcp.specs.model import ToolExample, ToolSpec
from tests.test_rules import LIBRARY, client_on, last_event, text_of, world, write_library

# Answers only what its rules decide (a book it does not know, a book with no copies left), and hands the
# rest on, after changing the state on purpose: that change must not be kept.
GUARD_RULES = """
def borrow_book(state, args):
    book = state["books"].get(args["book_id"])
    if book == None:
        return error("Book %s not found." % args["book_id"])
    if book["copies"] < 1:
        state["books"][book["id"]]["copies"] = 99
        return decline("no rule for a book with no copies")
    book["copies"] -= 1
    return {"book_id": book["id"], "member": args["member"]}

def get_book(state, args):
    state["books"] = {}
    return decline()
"""


def recordings(folder: Path, calls: list[tuple[str, dict[str, Any], str, bool]]) -> Path:
    """A recordings file as `sim-mcp record` writes it: one real call a line."""
    path = folder / "recordings.jsonl"
    lines = []
    for seq, (tool, arguments, text, is_error) in enumerate(calls, start=1):
        result = {"content": [{"type": "text", "text": text}], "isError": is_error}
        entry = {"session": "s", "seq": seq, "tool": tool, "arguments": arguments, "result": result}
        lines.append(json.dumps(entry | {"is_error": is_error, "latency_ms": 1.0}))
    path.write_text("\n".join(lines) + "\n")
    return path


async def test_a_declined_call_goes_to_the_replay_and_the_program_changes_nothing(tmp_path: Path) -> None:
    specs = write_library(tmp_path / "specs", rules=GUARD_RULES)
    cassette = recordings(
        tmp_path, [("borrow_book", {"book_id": "BK-1", "member": "ana"}, "Dune is out of stock: join the queue", True)]
    )
    async with client_on(specs, backend="replay", cassette=cassette) as (client, runtime):
        declined = await client.call_tool("borrow_book", {"book_id": "BK-1", "member": "ana"})
        assert declined.is_error
        assert text_of(declined) == "Dune is out of stock: join the queue"
        event = await last_event(runtime)
        assert event.backend == "replay"
        assert "handed on by the rules program" in event.note
        assert "no rule for a book with no copies" in event.note
        assert event.state_patch == []
        assert (await world(runtime, "library"))["books"]["BK-1"]["copies"] == 0  # the 99 was dropped

        answered = await client.call_tool("borrow_book", {"book_id": "BK-9", "member": "ana"})
        assert answered.is_error
        assert text_of(answered) == "Book BK-9 not found."
        assert (await last_event(runtime)).backend == "rules"

        lent = await client.call_tool("borrow_book", {"book_id": "BK-2", "member": "ana"})
        assert not lent.is_error
        assert json.loads(text_of(lent)) == {"book_id": "BK-2", "member": "ana"}
        assert (await world(runtime, "library"))["books"]["BK-2"]["copies"] == 1
        assert (await world(runtime, "library"))["books"]["BK-1"]["copies"] == 0  # the declined change is gone


async def test_a_declined_call_nothing_else_can_answer_is_an_error_naming_the_tool(tmp_path: Path) -> None:
    specs = write_library(tmp_path / "specs", rules=GUARD_RULES)
    cassette = recordings(tmp_path, [("borrow_book", {"book_id": "BK-2", "member": "bo"}, "{}", False)])
    async with client_on(specs, backend="replay", cassette=cassette) as (client, runtime):
        called = await client.call_tool("get_book", {"book_id": "BK-2"})
        assert called.is_error
        assert "'get_book'" in text_of(called)
        assert "no outcome" in text_of(called)
        event = await last_event(runtime)
        assert event.failed
        assert event.state_patch == []
        assert (await world(runtime, "library"))["books"]["BK-2"]["copies"] == 2  # never a made-up success


async def test_the_offline_engine_answers_a_declined_call(tmp_path: Path) -> None:
    specs = write_library(tmp_path / "specs", rules=GUARD_RULES)
    async with client_on(specs) as (client, runtime):
        called = await client.call_tool("get_book", {"book_id": "BK-2"})
        event = await last_event(runtime)
        assert event.backend == "offline"
        assert "handed on by the rules program" in event.note
        assert not called.is_error
        assert (await world(runtime, "library"))["books"]  # get_book's `state["books"] = {}` was dropped


def test_declining_where_nothing_else_answers_is_a_rules_error() -> None:
    program = compile_program(GUARD_RULES, "guard.star", ["borrow_book", "get_book"])
    context = CallContext.of(program.clock, seed=0, sequence=0, tool="get_book")
    state = LIBRARY["initial_state"]
    with pytest.raises(RulesError, match=r"get_book: the function declined the call \(decline\(\)\)"):
        run_tool(program, "get_book", state, {"book_id": "BK-2"}, context, Limits())
    handed = run_tool(program, "get_book", state, {"book_id": "BK-2"}, context, Limits(), handing_on=True)
    assert handed.declined == ""
    assert handed.result is None
    assert handed.state_patch == []


def test_an_example_the_function_declines_is_not_its_to_fail() -> None:
    program = compile_program(GUARD_RULES, "guard.star", ["borrow_book", "get_book"])
    tool = ToolSpec.model_validate(
        LIBRARY["tools"][0]  # type: ignore[index]
        | {
            "examples": [
                ToolExample(arguments={"book_id": "BK-1", "member": "a"}, result="anything", is_error=True),
                ToolExample(arguments={"book_id": "BK-2", "member": "a"}, result={"book_id": "BK-3"}),
            ]
        }
    )
    assert example_problem(program, tool, 0, LIBRARY["initial_state"], Limits()) is None
    failed = example_problem(program, tool, 1, LIBRARY["initial_state"], Limits())
    assert failed is not None
    assert "result.book_id" in failed.reason
