"""Rules as code: Starlark programs answer their tools exactly, within limits, through real clients."""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp.client import Client

from sim_mcp.cli import main
from sim_mcp.config import Settings
from sim_mcp.rules import CallContext, Limits, compile_program, compile_rules, run_tool
from sim_mcp.runtime import Runtime
from sim_mcp.server.context import ServerContext
from sim_mcp.server.mcp import SessionRouting, build_mcp_server
from sim_mcp.specs.registry import load_catalog
from sim_mcp.state.patch import apply_patch, diff_patch
from sim_mcp.testing import FakeProvider
from tests.servers import BUNDLED_SPECS

ENVIRONMENTS = ["bank", "shop", "tickets", "calendar"]
_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")

LIBRARY = {
    "name": "library",
    "description": "A lending library.",
    "instructions": "A book with 0 copies cannot be borrowed.",
    "initial_state": {
        "books": {
            "BK-1": {"id": "BK-1", "title": "Dune", "copies": 0},
            "BK-2": {"id": "BK-2", "title": "Emma", "copies": 2},
        },
        "loans": {},
    },
    "tools": [
        {
            "name": "borrow_book",
            "description": "Borrow a copy of a book.",
            "input_schema": {
                "type": "object",
                "properties": {"book_id": {"type": "string"}, "member": {"type": "string"}},
                "required": ["book_id", "member"],
            },
        },
        {
            "name": "get_book",
            "description": "Fetch one book.",
            "input_schema": {"type": "object", "properties": {"book_id": {"type": "string"}}, "required": ["book_id"]},
        },
    ],
}

LIBRARY_RULES = """
CLOCK = "2025-06-01T09:00:00Z"

def borrow_book(state, args):
    book = state["books"].get(args["book_id"])
    if book == None:
        return error("Book %s not found." % args["book_id"])
    if book["copies"] < 1:
        return error("Book %s has no copies left." % book["id"])
    book["copies"] -= 1
    loan = {"id": next_id(state["loans"], "LN-"), "book_id": book["id"], "member": args["member"], "at": now()}
    state["loans"][loan["id"]] = loan
    return loan
"""


def write_library(folder: Path, rules: str | None = LIBRARY_RULES, **changes: Any) -> Path:
    """The library spec in `folder`, changed by `changes` (`inline_rules`: the spec's `rules` key), with
    `rules` beside it in library.rules.star."""
    folder.mkdir(parents=True, exist_ok=True)
    if "inline_rules" in changes:
        changes["rules"] = changes.pop("inline_rules")
    (folder / "library.json").write_text(json.dumps(LIBRARY | changes))
    if rules is not None:
        (folder / "library.rules.star").write_text(textwrap.dedent(rules))
    return folder


@asynccontextmanager
async def client_on(specs: Path, **settings: Any) -> AsyncIterator[tuple[Client, Runtime]]:
    async with Runtime(Settings(specs=[specs], **settings)) as runtime:
        server = build_mcp_server(ServerContext(runtime), SessionRouting(process_session="memory"))
        async with Client(server) as client:
            yield client, runtime


async def last_event(runtime: Runtime) -> Any:
    return (await runtime.sessions.events("memory"))[-1]


async def world(runtime: Runtime, environment: str) -> Any:
    record = await runtime.store.get("memory")
    assert record is not None
    return record.worlds.get(environment)


def text_of(result: Any) -> str:
    return str(result.content[0].text)


def matches(expected: Any, actual: Any) -> bool:
    """`actual` has what `expected` says; timestamps (the session's clock writes its own) by form only."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(k in actual and matches(v, actual[k]) for k, v in expected.items())
    if isinstance(expected, list):
        return isinstance(actual, list) and len(actual) == len(expected) and all(map(matches, expected, actual))
    if isinstance(expected, str) and _DATE_TIME.match(expected):
        return isinstance(actual, str) and bool(_DATE_TIME.match(actual))
    return bool(expected == actual)


# --- the bundled environments -------------------------------------------------------------------


def test_every_bundled_tool_has_a_working_program() -> None:
    catalog = load_catalog(BUNDLED_SPECS)
    rules = compile_rules(catalog)
    assert (catalog.errors, rules.errors) == ((), ())
    for environment in ENVIRONMENTS:
        tools = catalog.tools_of(environment)
        assert tools
        programs = [rules.program(tool) for tool in tools]
        assert [tool.name for tool, program in zip(tools, programs, strict=True) if program is None] == []
        assert all(p is not None and p.source.endswith(f"{environment}.rules.star") for p in programs)


@pytest.mark.parametrize("environment", ENVIRONMENTS)
async def test_bundled_examples_through_a_client(environment: str) -> None:
    """Each example of each bundled spec, called in a fresh session, gives what the example says."""
    catalog = load_catalog(BUNDLED_SPECS)
    examples = [(tool.spec, example) for tool in catalog.tools_of(environment) for example in tool.spec.examples]
    assert examples
    for spec, example in examples:
        async with client_on(BUNDLED_SPECS) as (client, runtime):
            before = catalog.environments[environment].initial_state
            called = await client.call_tool(spec.name, example.arguments)
            event = await last_event(runtime)
            assert event.backend == "rules"
            assert called.is_error == example.is_error, (spec.name, text_of(called))
            if example.is_error:
                assert text_of(called) == example.result
                assert await world(runtime, environment) in (None, before)
            else:
                assert matches(example.result, called.structured_content), (spec.name, called.structured_content)


async def test_bank_transfer_moves_both_balances_and_counts_ids() -> None:
    async with client_on(BUNDLED_SPECS) as (client, runtime):
        moved = await client.call_tool(
            "create_transfer", {"from_account_id": "ACC-1001", "to_account_id": "ACC-1002", "amount": 100}
        )
        assert not moved.is_error, text_of(moved)
        assert moved.structured_content is not None
        assert moved.structured_content["id"] == "TRF-9005"
        assert moved.structured_content["status"] == "completed"
        state = await world(runtime, "bank")
        assert state["accounts"]["ACC-1001"]["balance"] == 2318.37
        assert state["accounts"]["ACC-1002"]["balance"] == 15300.0
        event = await last_event(runtime)
        assert (event.backend, event.tokens.input, event.tokens.output) == ("rules", 0, 0)
        assert {op["path"] for op in event.state_patch} == {
            "/accounts/ACC-1001/balance",
            "/accounts/ACC-1002/balance",
            "/transfers/TRF-9005",
        }
        second = await client.call_tool(
            "create_transfer", {"from_account_id": "ACC-1002", "to_account_id": "EXT-1234", "amount": 0.1}
        )
        assert second.structured_content is not None
        assert second.structured_content["id"] == "TRF-9006"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            {"from_account_id": "ACC-1001", "to_account_id": "ACC-1001", "amount": 5},
            "Source and destination must differ.",
        ),
        ({"from_account_id": "ACC-1004", "to_account_id": "ACC-1001", "amount": 5}, "Account ACC-1004 is frozen."),
        ({"from_account_id": "ACC-1001", "to_account_id": "ACC-1004", "amount": 5}, "Currency mismatch"),
        ({"from_account_id": "ACC-1001", "to_account_id": "ACC-1002", "amount": 2918.38}, "available 2918.37 USD"),
        ({"from_account_id": "ACC-9999", "to_account_id": "ACC-1002", "amount": 5}, "Account ACC-9999 not found."),
        (
            {"from_account_id": "ACC-1001", "to_account_id": "ACC-1002", "amount": 1.005},
            "Amount 1.005 has more than two decimals",
        ),
        (
            {"from_account_id": "ACC-1001", "to_account_id": "ACC-1002", "amount": 5, "scheduled_for": "2025-03-01"},
            "is in the past",
        ),
    ],
)
async def test_bank_refusals_change_nothing(arguments: dict[str, Any], message: str) -> None:
    async with client_on(BUNDLED_SPECS) as (client, runtime):
        refused = await client.call_tool("create_transfer", arguments)
        assert refused.is_error
        assert message in text_of(refused)
        assert await world(runtime, "bank") in (None, load_catalog(BUNDLED_SPECS).environments["bank"].initial_state)
        assert (await last_event(runtime)).state_patch == []


async def test_shop_order_takes_stock_and_cancelling_gives_it_back() -> None:
    async with client_on(BUNDLED_SPECS) as (client, runtime):
        ordered = await client.call_tool(
            "create_order", {"customer_id": "CUS-202", "items": [{"product_id": "PRD-103", "quantity": 3}]}
        )
        order = ordered.structured_content
        assert order is not None
        assert (order["subtotal"], order["shipping"], order["total"]) == (22.5, 6.95, 29.45)
        assert (await world(runtime, "shop"))["products"]["PRD-103"]["stock"] == 237
        skipped = await client.call_tool("update_order", {"order_id": order["id"], "status": "shipped"})
        assert text_of(skipped) == "Cannot change status from pending to shipped."
        cancelled = await client.call_tool("cancel_order", {"order_id": order["id"], "cancellation_reason": "oops"})
        assert cancelled.structured_content is not None
        assert cancelled.structured_content["status"] == "cancelled"
        assert (await world(runtime, "shop"))["products"]["PRD-103"]["stock"] == 240


async def test_same_seed_same_session_same_answers() -> None:
    """Timestamps and tracking numbers come from the seeded session clock: a replay sees the same ones."""
    answers: list[list[Any]] = []
    for _ in range(2):
        async with client_on(BUNDLED_SPECS, seed=7) as (client, _runtime):
            calls = [
                ("update_order", {"order_id": "ORD-5003", "status": "shipped"}),
                ("create_ticket", {"title": "A", "description": "B", "customer_email": "c@d.example"}),
            ]
            answers.append([(await client.call_tool(name, args)).structured_content for name, args in calls])
    assert answers[0] == answers[1]
    shipped, ticket = answers[0]
    assert re.fullmatch(r"1Z[A-Z0-9]{16}", shipped["tracking_number"])
    assert shipped["updated_at"] < ticket["created_at"]  # the clock moves forward per call


async def test_rules_can_be_turned_off() -> None:
    async with client_on(BUNDLED_SPECS, run_rules=False) as (client, runtime):
        await client.call_tool("get_account", {"account_id": "ACC-1001"})
        assert (await last_event(runtime)).backend == "offline"


async def test_llm_backend_spends_no_tokens_on_tools_with_programs(fake: FakeProvider) -> None:
    settings = {"backend": "openai", "model": "fake-model", "base_url": fake.openai_url, "provider_retries": 0}
    async with client_on(BUNDLED_SPECS, **settings) as (client, runtime):
        moved = await client.call_tool(
            "create_transfer", {"from_account_id": "ACC-1002", "to_account_id": "ACC-1003", "amount": 10}
        )
        assert not moved.is_error, text_of(moved)
        event = await last_event(runtime)
        assert (event.backend, event.tokens.input, event.tokens.output) == ("rules", 0, 0)
    assert fake.posts("/chat/completions") == []


# --- the generic offline engine and the library ---------------------------------------------------


async def test_offline_answers_a_tool_it_cannot_read_with_an_honest_error(tmp_path: Path) -> None:
    specs = write_library(tmp_path / "specs", rules=None)
    async with client_on(specs) as (client, runtime):
        borrowed = await client.call_tool("borrow_book", {"book_id": "BK-1", "member": "ana"})
        assert borrowed.is_error
        message = json.loads(text_of(borrowed))["message"]
        assert message.startswith("borrow_book: the offline simulator cannot tell what this tool does")
        assert f"sim-mcp rules init {specs / 'library.json'}" in message
        assert "--backend openai" in message
        event = await last_event(runtime)
        assert event.backend == "offline"
        assert event.state_patch == []
        assert "borrows" not in (await world(runtime, "library"))


async def test_offline_answers_a_tool_it_cannot_read_read_only_when_asked_to(tmp_path: Path) -> None:
    specs = write_library(tmp_path / "specs", rules=None)
    async with client_on(specs, offline_unknown="generate") as (client, runtime):
        borrowed = await client.call_tool("borrow_book", {"book_id": "BK-1", "member": "ana"})
        assert not borrowed.is_error
        event = await last_event(runtime)
        assert event.state_patch == []
        assert "read-only" in (event.note or "")


async def test_library_program_refuses_a_book_with_no_copies(tmp_path: Path) -> None:
    specs = write_library(tmp_path / "specs")
    async with client_on(specs) as (client, runtime):
        refused = await client.call_tool("borrow_book", {"book_id": "BK-1", "member": "ana"})
        assert (refused.is_error, text_of(refused)) == (True, "Book BK-1 has no copies left.")
        lent = await client.call_tool("borrow_book", {"book_id": "BK-2", "member": "ana"})
        assert json.loads(text_of(lent))["id"] == "LN-1"
        assert (await world(runtime, "library"))["books"]["BK-2"]["copies"] == 1
        await client.call_tool("get_book", {"book_id": "BK-2"})  # no function: the offline engine answers
        assert (await last_event(runtime)).backend == "offline"


async def test_rules_inline_in_the_spec(tmp_path: Path) -> None:
    specs = write_library(tmp_path / "specs", rules=None, inline_rules=LIBRARY_RULES)
    catalog = load_catalog(specs)
    rules = compile_rules(catalog)
    assert (catalog.errors, rules.errors) == ((), ())
    tool = catalog.tool("borrow_book", "library")
    assert tool is not None
    assert rules.program(tool) is not None


def test_rules_both_inline_and_beside_is_an_error(tmp_path: Path) -> None:
    specs = write_library(tmp_path / "specs", rules=LIBRARY_RULES)
    (specs / "library.json").write_text(json.dumps(LIBRARY | {"rules": LIBRARY_RULES}))
    (error,) = load_catalog(specs).errors
    assert "rules are given twice" in str(error)


# --- load errors: file, tool, line, expectation; the rest still serves -------------------------------


def test_a_program_that_does_not_parse_is_a_load_error_and_the_tools_fall_back(tmp_path: Path) -> None:
    specs = write_library(tmp_path / "specs", rules="def borrow_book(state, args):\n    return 1 +\n")
    catalog = load_catalog(specs)
    rules = compile_rules(catalog)
    (error,) = rules.errors
    assert str(error).startswith(f"{specs / 'library.rules.star'}: line 2: Parse error")
    assert "library" in catalog.environments
    tool = catalog.tool("borrow_book", "library")
    assert tool is not None
    assert rules.program(tool) is None


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ('load("other.star", "x")\n', "line 1"),
        ("def borrow_book(state, args):\n    return open('/etc/passwd')\n", "line 2: Variable `open` not found"),
        ("def borrow_book(state, args):\n    print('hi')\n    return 1\n", "line 2: Variable `print` not found"),
        ("def borrow_book(state, args):\n    while True:\n        pass\n", "line 2"),
    ],
)
def test_no_io_no_imports_no_unbounded_loops(tmp_path: Path, source: str, found: str) -> None:
    specs = write_library(tmp_path / "specs", rules=source)
    (error,) = compile_rules(load_catalog(specs)).errors
    assert found in str(error)


def test_a_function_failing_its_example_names_file_tool_line_and_expectation(tmp_path: Path) -> None:
    tools = [dict(LIBRARY["tools"][0]), LIBRARY["tools"][1]]  # type: ignore[index]
    tools[0]["examples"] = [
        {"arguments": {"book_id": "BK-1", "member": "x"}, "result": "Book BK-1 is out.", "is_error": True}
    ]
    specs = write_library(tmp_path / "specs", tools=tools)
    catalog = load_catalog(specs)
    rules = compile_rules(catalog)
    (error,) = rules.errors
    assert str(error) == (
        f"{specs / 'library.rules.star'}: borrow_book (line 4): example 1: "
        'expected result = "Book BK-1 is out.", got "Book BK-1 has no copies left."'
    )
    tool = catalog.tool("borrow_book", "library")
    assert tool is not None
    assert rules.program(tool) is None


# --- limits: an honest error, the state untouched ------------------------------------------------


async def call_library(tmp_path: Path, rules: str, **settings: Any) -> tuple[Any, Any, Runtime]:
    specs = write_library(tmp_path / "specs", rules=rules)
    async with client_on(specs, **settings) as (client, runtime):
        called = await client.call_tool("borrow_book", {"book_id": "BK-2", "member": "ana"})
        return called, await last_event(runtime), runtime


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("    for i in range(1000000000):\n        state['books']['BK-2']['copies'] = i\n", "ran past its budget"),
        (
            "    state['books']['BK-2']['copies'] -= 1\n    return state['nope']\n",
            "borrow_book (line 3): Key 'nope' was not found",
        ),
        ("    state['big'] = ['x' * 1000] * 2000\n    return 1\n", "the state would grow to over"),
        ("    return money('ten')\n", "money(amount): expected a number"),
        ("    return round(1.5, 'two')\n", "digits, got 1.5, 'two'"),
    ],
)
async def test_a_failing_program_is_an_honest_error_and_the_state_is_untouched(
    tmp_path: Path, body: str, expected: str
) -> None:
    # The step budget, not the clock, must stop the endless loop: on a busy machine 2,000,000 steps can take
    # longer than the default second, so the time budget is set well past it.
    called, event, _runtime = await call_library(
        tmp_path, "def borrow_book(state, args):\n" + body, rules_timeout_ms=120_000
    )
    assert called.is_error
    assert text_of(called).startswith("the simulator could not produce a valid result: the rules program failed")
    assert expected in text_of(called)
    assert event.state_patch == []
    assert event.backend == "rules"


async def test_time_budget(tmp_path: Path) -> None:
    rules = "def borrow_book(state, args):\n    for i in range(1000000000):\n        pass\n"
    called, _event, _runtime = await call_library(tmp_path, rules, rules_max_steps=10**12, rules_timeout_ms=50)
    assert "ran past its time budget of 0.05 s" in text_of(called)


async def test_a_result_that_breaks_the_output_schema_is_an_honest_error(tmp_path: Path) -> None:
    tools = [dict(LIBRARY["tools"][0]), LIBRARY["tools"][1]]  # type: ignore[index]
    tools[0]["output_schema"] = {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}
    specs = write_library(tmp_path / "specs", tools=tools)
    async with client_on(specs) as (client, runtime):
        called = await client.call_tool("borrow_book", {"book_id": "BK-2", "member": "ana"})
        assert called.is_error
        assert "the rules program's answer is unusable" in text_of(called)
        assert (await world(runtime, "library")) in (None, LIBRARY["initial_state"])


# --- the helpers and the patch, through the rules package's public functions ----------------------


HELPERS = """
CLOCK = "2025-03-14T10:00:00Z"

def probe(state, args):
    state["codes"].append(random_code(8))
    state["items"]["A-007"]["n"] += 1
    state.pop("old")
    return {
        "next": [next_id(state["items"], "A-"), next_id({}, "B-"), next_id([{"id": "C-9"}], "C-")],
        "money": [money(2.675), money(-1.005), money(0.1 + 0.2), money_text(63.1)],
        "fixed": [fixed_text(48407, 2, ","), fixed_text(0.125, 2), fixed_text(-1234.5, 1, ".", ",")]
        + [fixed_text(2.5, 0)],
        "round": [round(2.675, 2), round(2.5), round(-0.5), round(1234.5, -2), round(7, 1)],
        "later": to_seconds("2025-03-20T10:00:00+01:00") < to_seconds("2025-03-20T09:30:00Z"),
        "now": now(),
        "today": today(),
        "sorted": [r["id"] for r in sorted_by(state["items"], "id", reverse = True)],
        "found": contains_text({"t": "Gantt Export"}, ["t"], "export"),
    }
"""


def test_helpers_and_the_patch_of_their_changes() -> None:
    program = compile_program(HELPERS, "helpers.star", ["probe"])
    items = {"A-006": {"id": "A-006", "n": 1}, "A-007": {"id": "A-007", "n": 1}}
    state: dict[str, Any] = {"items": items, "codes": [], "old": 1}
    context = CallContext.of(program.clock, seed=3, sequence=2, tool="probe")
    outcome = run_tool(program, "probe", state, {}, context, Limits())
    result = outcome.result
    assert result["next"] == ["A-008", "B-1", "C-10"]
    assert result["money"] == [2.68, -1.01, 0.3, "63.10"]
    # As Python's format writes them: the double's exact value, halves to even (0.125 is exact: 0.12).
    assert result["fixed"] == ["48,407.00", "0.12", "-1.234,5", "2"]
    assert result["round"] == [2.68, 3, -1, 1200.0, 7.0]  # halves away from zero, not Python's to even
    assert result["later"] is True  # 10:00+01:00 is 09:00Z, before 09:30Z (as text it sorts after)
    assert result["now"].startswith("2025-03-14T10:02:")
    assert result["today"] == "2025-03-14"
    assert result["sorted"] == ["A-007", "A-006"]
    assert result["found"] is True
    (code,) = apply_patch(state, outcome.state_patch)["codes"]
    assert re.fullmatch(r"[A-Z0-9]{8}", code)
    assert sorted(outcome.state_patch, key=lambda op: op["path"]) == [
        {"op": "add", "path": "/codes/-", "value": code},
        {"op": "replace", "path": "/items/A-007/n", "value": 2},
        {"op": "remove", "path": "/old"},
    ]
    assert state["items"]["A-007"]["n"] == 1  # the function changed a copy
    again = run_tool(
        program, "probe", state, {}, CallContext.of(program.clock, seed=3, sequence=2, tool="probe"), Limits()
    )
    assert again == outcome  # the same seed and call number: the same time and the same draws


def test_diff_patch_turns_one_value_into_another() -> None:
    before = {"a": [1, 2], "b": {"c": 1, "d": 2}, "e": [1, 2, 3], "f": True}
    after = {"a": [1, 2, 3], "b": {"c": 1, "x": 5}, "e": [3], "f": 1, "g": None}
    patch = diff_patch(before, after)
    assert apply_patch(before, patch) == after
    assert {"op": "add", "path": "/a/-", "value": 3} in patch
    assert {"op": "replace", "path": "/e", "value": [3]} in patch
    assert {"op": "replace", "path": "/f", "value": 1} in patch  # true and 1 are different JSON
    assert diff_patch(before, before) == []


def test_check_reports_per_tool(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tools = [dict(LIBRARY["tools"][0]), LIBRARY["tools"][1]]  # type: ignore[index]
    tools[0]["examples"] = [{"arguments": {"book_id": "BK-2", "member": "x"}, "result": {"id": "LN-1", "member": "x"}}]
    specs = write_library(tmp_path / "specs", tools=tools)
    assert main(["check", str(specs)]) == 0
    printed = capsys.readouterr().out
    rules = specs / "library.rules.star"
    assert f"ok    {rules}: borrow_book (line 4): answered by the program; its example passes" in printed
    assert f"note  {rules}: get_book: no working function; the backend answers it" in printed

    (specs / "library.rules.star").write_text(LIBRARY_RULES.replace("next_id(", "next_idd("))
    assert main(["check", str(specs)]) == 1
    printed = capsys.readouterr().out
    assert f"error {rules}: line 11: Variable `next_idd` not found" in printed
