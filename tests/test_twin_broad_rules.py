"""A store whose save answers one template on nearly every call and, now and then, a variant nothing in the call
or the world tells apart: the twin learns the common answer as one lenient rule for every call, not carved into
rules under conditions that only happen to leave the variant's calls out (an optional argument missing), which a
new session's calls, giving every argument, would not meet."""

from __future__ import annotations

import random
from typing import Any

from sim_mcp.authoring.twins.keyed_world import infer_guards, run_guard
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec
from tests.twin_learning import played

FIELDS = ["colour", "size", "shelf", "owner", "label", "origin"]
SAVE = ToolSpec(
    name="save_item",
    description="Save an item under a name, with optional fields.",
    input_schema={
        "type": "object",
        "properties": {"name": {"type": "string"}} | {field: {"type": "string"} for field in FIELDS},
        "required": ["name"],
    },
)
NAMES = ["anchor", "bucket", "candle", "drum", "easel", "flute", "globe", "harp", "inkpot", "jug", "kettle", "lamp"]


def _sessions(count: int) -> list[list[RecordedCall]]:
    """Sessions of saves that give each optional field three times in four; the server answers a save as saved,
    and on one save a session that gives every field (by chance, as far as the twin can know) adds a note."""
    rng = random.Random(7)
    sessions = []
    for s in range(count):
        noted = {rng.randrange(1, 8)}
        calls: list[tuple[str, dict[str, Any]]] = []
        for n in range(8):
            arguments: dict[str, Any] = {"name": f"{rng.choice(NAMES)}-{s}-{n}"}
            every = n in noted
            arguments |= {field: rng.choice(["a", "b", "c"]) for field in FIELDS if every or rng.random() < 0.75}
            calls.append(("save_item", arguments))

        def answer(tool: str, arguments: dict[str, Any], s: int = s, noted: set[int] = noted) -> tuple[str, bool]:
            n = int(arguments["name"].rsplit("-", 1)[1])
            if n in noted:
                return f'{{"saved": "{arguments["name"]}", "note": "stored twice"}}', False
            return f'{{"saved": "{arguments["name"]}"}}', False

        sessions.append(played(answer, f"s{s}", calls))
    return sessions


def test_a_common_answer_is_one_rule_for_calls_that_give_every_argument() -> None:
    inference = infer_guards([SAVE], _sessions(12), ["save_item"])
    plan = inference.plans["save_item"]
    state: dict[str, Any] = {}
    assert run_guard(plan, "save_item", state, {"name": "yoyo-1"}) == ({"saved": "yoyo-1"}, False), plan["rules"]
    arguments = {"name": "zither-1"} | {field: "d" for field in FIELDS}
    assert run_guard(plan, "save_item", state, arguments) == ({"saved": "zither-1"}, False), plan["rules"]
