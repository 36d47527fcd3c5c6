"""A text a server composes with optional clauses, each left out with its separator where its value is absent
(a part retired in favour of another: "Retired; use *gear*." then the reason where one was given, then the
memo the part held where it held one), learned with no model as one template whose clauses are optional,
so that calls with and without each clause are answered alike."""

from __future__ import annotations

import json
import random
from typing import Any

from sim_mcp.authoring.twins.keyed_world import infer_guards
from sim_mcp.specs.model import ToolSpec
from tests.test_twin_merged import OPTIONAL, SPECS, TEXT, WORDS, Call, Parts
from tests.twin_learning import guard_misses, played

RETIRE = ToolSpec(
    name="retire_part",
    input_schema={
        "type": "object",
        "properties": {"sku": TEXT, "successor": TEXT, "reason": OPTIONAL},
        "required": ["sku", "successor"],
    },
)
REASONS = ["worn out", "replaced by a cheaper one", "no longer made"]


class RetiredParts(Parts):
    """The catalogue of parts, whose parts may be retired: the memo says so, then why, then what it held."""

    def call(self, tool: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        if tool != "retire_part":
            return super().call(tool, arguments)
        sku = arguments["sku"]
        if sku not in self.parts:
            return json.dumps({"ok": False, "entry": None}), False
        part = self.parts[sku]
        clauses = [f"Retired; use *{arguments['successor']}*.", arguments.get("reason"), part["memo"]]
        part["memo"] = " ".join(clause for clause in clauses if clause)
        return json.dumps({"ok": True, "entry": part}), False


def _session(words: list[str], seed: str) -> list[Call]:
    rng = random.Random(seed)
    calls: list[Call] = []
    made: list[str] = []
    for _ in range(10):
        if rng.random() < 0.5 or not made:
            sku = rng.choice(words)
            add: dict[str, Any] = {"sku": sku, "labels": [rng.choice(words)], "info": " ".join(rng.sample(words, 2))}
            if rng.random() < 0.5:
                add["memo"] = "see " + rng.choice(words)
            calls.append(("add_part", add))
            made.append(sku)
        else:
            retire: dict[str, Any] = {"sku": rng.choice(made), "successor": rng.choice(words)}
            if rng.random() < 0.5:
                retire["reason"] = rng.choice(REASONS)
            calls.append(("retire_part", retire))
    return calls


def test_a_twin_leaves_out_the_clauses_of_absent_values() -> None:
    sessions = [played(RetiredParts().call, f"s{n}", _session(WORDS, f"train-{n}")) for n in range(12)]
    inference = infer_guards([*SPECS, RETIRE], sessions, ["add_part", "retire_part"])
    retiring = json.dumps(inference.plans["retire_part"])
    # The record read back, its memo's clauses optional: the reason given, the memo it held.
    assert '"$record": "sku"' in retiring, retiring
    assert '["opt", [" ", ["arg", "reason"]]], ["opt", [" ", ["stored", "sku", "memo"]]]' in retiring, retiring
    server = RetiredParts()
    words = ["amber", "pine", "stone", "cloud", "kite", "river", "moss", "fern", "reed", "dune"]
    assert guard_misses(inference.plans, server.call, _session(words, "check") + _session(words, "more")) == []
