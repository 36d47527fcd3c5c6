"""A bundled catalogue: a shop whose products come with the server (each with an aisle and a size), listed by aisle
and bought by name. The answers show each product's facts beside its name; the twin reads them from every tool's
answers, listings too, so that it answers a purchase of a product no recorded purchase named, only a listing."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from sim_mcp.authoring.twins.agreement import Answer, compare_answers
from sim_mcp.authoring.twins.catalogue import catalogue_pieces, read_catalogue
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.rules import CallContext, Limits, compile_program, run_tool
from sim_mcp.rules.helpers import DEFAULT_CLOCK
from sim_mcp.specs.model import ToolSpec
from tests.twin_learning import compile_recorded, played

PRODUCTS = {
    "Rolled Oats": ("Breakfast", "Large"),
    "Corn Flakes": ("Breakfast", "Medium"),
    "Honey Jar": ("Breakfast", "Small"),
    "Green Tea": ("Drinks", "Small"),
    "Orange Juice": ("Drinks", "Large"),
    "Sparkling Water": ("Drinks", "Medium"),
    "Dark Chocolate": ("Sweets", "Small"),
    "Fruit Gums": ("Sweets", "Medium"),
    "Ginger Biscuits": ("Sweets", "Large"),
}
AISLES = sorted({aisle for aisle, _ in PRODUCTS.values()})
# Bought in the recorded sessions; the others are only ever listed there.
BOUGHT = ["Rolled Oats", "Green Tea", "Dark Chocolate", "Orange Juice", "Fruit Gums"]
TOOLS = [
    ToolSpec(name="browse", input_schema={"type": "object", "properties": {"aisle": {"type": "string"}}}),
    ToolSpec(
        name="buy",
        input_schema={
            "type": "object",
            "properties": {"product": {"type": "string"}, "quantity": {"type": "integer"}},
            "required": ["product", "quantity"],
        },
    ),
]


def shop(tool: str, args: dict[str, Any]) -> tuple[str, bool]:
    if tool == "browse":
        rows = [f"- {name} [{aisle}, {size}]" for name, (aisle, size) in PRODUCTS.items() if aisle == args["aisle"]]
        return f"{len(rows)} products:\n" + "\n".join(rows), False
    found = next((name for name in PRODUCTS if name.lower() == args["product"].lower()), None)
    if found is None:
        return f"No product named {args['product']}", True
    aisle, size = PRODUCTS[found]
    return f"Bought {args['quantity']} x {found} ({aisle}, {size})", False


def sessions(seed: int, count: int) -> list[list[RecordedCall]]:
    rng = random.Random(seed)
    recorded = []
    for number in range(count):
        calls: list[tuple[str, dict[str, Any]]] = [("browse", {"aisle": rng.choice(AISLES)})]
        for _ in range(5):
            # An agent now and then writes a name in lower case; the server finds it all the same.
            product = rng.choice(BOUGHT)
            calls.append(
                ("buy", {"product": product.lower() if rng.random() < 0.2 else product, "quantity": rng.randint(1, 9)})
            )
        recorded.append(played(shop, f"s{number}", calls))
    return recorded


def test_the_catalogue_is_read_from_every_tools_lines_listings_too() -> None:
    recorded = sessions(0, 12)
    calls = [call for session in recorded for call in session]
    catalogue = read_catalogue((tool, [call for call in calls if call.tool == tool.name]) for tool in TOOLS)
    listed = {call.value for call in calls if call.tool == "browse"}
    shown = {name for name in PRODUCTS if any(name in str(value) for value in listed)}
    # Every product a listing showed is an entry, with its aisle and size, though no call bought it.
    for name in shown | set(BOUGHT):
        assert catalogue.names[name.lower()] == name
        assert catalogue.facts[name] == {0: PRODUCTS[name][0], 1: PRODUCTS[name][1]}
    # A purchase's answer shows the facts of the product its argument names, as lookup pieces.
    buy = [call for call in calls if call.tool == "buy"]
    pieces = catalogue_pieces(catalogue, TOOLS[1], buy)
    assert all(
        {text for text, _ in pieces[id(call)]} >= set(PRODUCTS[catalogue.names[call.arguments["product"].lower()]])
        for call in buy
    ), pieces


def test_a_state_a_line_shows_beside_a_name_is_no_fact() -> None:
    # A stock count changes between listings of the same product: it is a state, kept out of the catalogue.
    lines = [["- Honey Jar [Small] stock 3", "- Green Tea [Small] stock 5"], ["- Honey Jar [Small] stock 2"]]
    calls = [
        RecordedCall(
            "s", 1, "buy", {"product": "Honey Jar"}, {"content": [{"type": "text", "text": lines[1][0]}]}, False
        ),
        RecordedCall(
            "s", 2, "buy", {"product": "Green Tea"}, {"content": [{"type": "text", "text": lines[0][1]}]}, False
        ),
        RecordedCall(
            "s", 3, "browse", {"aisle": "x"}, {"content": [{"type": "text", "text": "\n".join(lines[0])}]}, False
        ),
    ]
    catalogue = read_catalogue((tool, [call for call in calls if call.tool == tool.name]) for tool in TOOLS)
    assert catalogue.facts["Honey Jar"] == {0: "Small"}


def test_a_purchase_of_a_product_only_listed_is_answered_from_the_catalogue(tmp_path: Path) -> None:
    report = compile_recorded(tmp_path, TOOLS, sessions(0, 12))
    assert report["buy"]["status"] in ("guarded", "exact"), report["buy"]
    program = compile_program((tmp_path / "spec.rules.star").read_text(), "<twin>", [tool.name for tool in TOOLS])
    listed_only = [name for name in PRODUCTS if name not in BOUGHT]
    recorded = sessions(0, 12)
    shown = [name for name in listed_only if any(name in str(c.value) for s in recorded for c in s)]
    assert shown
    for name in [*shown, shown[0].lower()]:
        args = {"product": name, "quantity": 4}
        context = CallContext.of(DEFAULT_CLOCK, seed=0, sequence=0, tool="buy")
        outcome = run_tool(program, "buy", {"_twin": {"keys": {}}}, args, context, Limits(), handing_on=True)
        assert outcome.declined is None, f"buy({args}) was handed on: {outcome.declined}"
        real = shop("buy", args)
        verdict = compare_answers(Answer(*real), Answer(outcome.result, outcome.is_error))
        assert verdict.agree, f"buy({args}): twin {outcome.result}, server {real[0]}"


def test_the_names_themselves_are_a_table_only_where_an_answer_spelled_one_otherwise() -> None:
    # A server that answers every name as it was given (a store of names an agent makes up) gets no table of
    # the names seen: it would answer no name a later call makes up, where the name given answers them all.
    exact = [
        [call for call in session if call.arguments.get("product", "").lower() != call.arguments.get("product")]
        for session in sessions(0, 12)
    ]
    calls = [call for session in exact for call in session]
    catalogue = read_catalogue((tool, [call for call in calls if call.tool == tool.name]) for tool in TOOLS)
    assert catalogue.facts
    assert "name" not in dict(catalogue.tables())
    everything = [call for session in sessions(0, 12) for call in session]
    respelled = read_catalogue((tool, [call for call in everything if call.tool == tool.name]) for tool in TOOLS)
    assert "name" in dict(respelled.tables())
