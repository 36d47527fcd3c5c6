"""Counts over the stored records, learned with no model: how many records hold each value of a field (a
tag and how many parts have it) and how many values there are, beside how many records are stored; read from
the twin's world, so that names never recorded are counted as the server counts them."""

from __future__ import annotations

import json
import random
from typing import Any

from sim_mcp.authoring.twins.keyed_world import infer_guards
from sim_mcp.specs.model import ToolSpec
from tests.test_twin_merged import SPECS, WORDS, Call, Parts
from tests.twin_learning import guard_misses, played

STATS = ToolSpec(name="part_stats", input_schema={"type": "object", "properties": {}})


class CountedParts(Parts):
    """The catalogue of parts, with its statistics: parts, parts per label, distinct labels."""

    def call(self, tool: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        if tool != "part_stats":
            return super().call(tool, arguments)
        per_label: dict[str, int] = {}
        for part in self.parts.values():
            for label in part["labels"]:
                per_label[label] = per_label.get(label, 0) + 1
        stats = {"part_count": len(self.parts), "per_label": per_label, "label_count": len(per_label)}
        return json.dumps(stats), False


def _session(words: list[str], seed: str) -> list[Call]:
    rng = random.Random(seed)
    calls: list[Call] = []
    for _ in range(10):
        if rng.random() < 0.6:
            labels = rng.sample(words[:5], rng.randint(1, 3))
            calls.append(
                ("add_part", {"sku": rng.choice(words), "labels": labels, "info": " ".join(rng.sample(words, 2))})
            )
        else:
            calls.append(("part_stats", {}))
    return calls


def test_a_twin_counts_the_records_per_label_and_the_labels() -> None:
    sessions = [played(CountedParts().call, f"s{n}", _session(WORDS, f"train-{n}")) for n in range(10)]
    inference = infer_guards([*SPECS, STATS], sessions, ["add_part", "part_stats"])
    stats = json.dumps(inference.plans["part_stats"])
    assert '{"$tally": "labels"}' in stats, stats
    assert '"size": true' in stats, stats
    server = CountedParts()
    words = ["amber", "pine", "stone", "cloud", "kite", "river", "moss", "fern", "reed", "dune"]
    assert (
        guard_misses(inference.plans, server.call, [("part_stats", {}), *_session(words, "check"), ("part_stats", {})])
        == []
    )
