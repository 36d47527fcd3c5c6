"""A JSON list of the stored keys, learned with no model: every record's name in sorted order, or those whose
list field holds some of the items an array argument asks for, or none of those another leaves out (parts
listed by label); read from the twin's world, so that names never recorded are listed as the server lists
them."""

from __future__ import annotations

import json
import random
from typing import Any

from sim_mcp.authoring.twins.keyed_world import infer_guards
from sim_mcp.specs.model import ToolSpec
from tests.test_twin_merged import SPECS, WORDS, Call, Parts
from tests.twin_learning import guard_misses, played

LABELS = {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}], "default": None}
LIST = ToolSpec(
    name="list_parts",
    input_schema={"type": "object", "properties": {"with_labels": LABELS, "without_labels": LABELS}},
)


class ListedParts(Parts):
    """The catalogue of parts, listed by sku in sorted order, with some of the labels asked for and none of
    those left out."""

    def call(self, tool: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        if tool != "list_parts":
            return super().call(tool, arguments)
        wanted, unwanted = arguments.get("with_labels"), arguments.get("without_labels")
        skus = [
            sku
            for sku, part in sorted(self.parts.items())
            if (not wanted or set(wanted) & set(part["labels"]))
            and not (unwanted and set(unwanted) & set(part["labels"]))
        ]
        return json.dumps({"skus": skus}), False


def _session(words: list[str], seed: str) -> list[Call]:
    rng = random.Random(seed)
    calls: list[Call] = []
    for _ in range(10):
        roll = rng.random()
        if roll < 0.5:
            labels = rng.sample(words[:4], rng.randint(1, 2))
            calls.append(
                ("add_part", {"sku": rng.choice(words), "labels": labels, "info": " ".join(rng.sample(words, 2))})
            )
        elif roll < 0.7:
            calls.append(("list_parts", {}))
        elif roll < 0.85:
            calls.append(("list_parts", {"with_labels": [rng.choice(words[:4])]}))
        else:
            calls.append(("list_parts", {"without_labels": [rng.choice(words[:4])]}))
    return calls


def test_a_twin_lists_the_stored_keys_filtered_by_a_list_field() -> None:
    sessions = [played(ListedParts().call, f"s{n}", _session(WORDS, f"train-{n}")) for n in range(12)]
    inference = infer_guards([*SPECS, LIST], sessions, ["add_part", "list_parts"])
    listing = json.dumps(inference.plans["list_parts"])
    assert '"$keys"' in listing, listing
    assert '"excludes"' in listing, listing
    server = ListedParts()
    words = ["amber", "pine", "stone", "cloud", "kite", "river", "moss", "fern", "reed", "dune"]
    assert guard_misses(inference.plans, server.call, _session(words, "check") + _session(words, "more")) == []
