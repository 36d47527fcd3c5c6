"""A refusal a server answers as a success (`{"ok": false, "error": ..., "entry": null}`, the fields of its
successes but not their flag) for the form of an item of a list argument (a label of two words): the twin
asks for the form of a list of one string as of that string (`tags/0`), and tells that refusal from the
successes by the flag its answers set."""

from __future__ import annotations

import json
import random
from typing import Any

from sim_mcp.authoring.twins.keyed_world import infer_guards
from tests.test_twin_merged import SPECS, WORDS, Call, Parts
from tests.twin_learning import guard_misses, played


class CheckedParts(Parts):
    """The catalogue of parts, which refuses a label that is not one word."""

    def call(self, tool: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        bad = [label for label in arguments.get("labels") or [] if " " in label]
        if tool == "add_part" and bad:
            refusal = {"ok": False, "entry": None, "error": f"label '{bad[0]}' must be one word"}
            return json.dumps(refusal), False
        answer, is_error = super().call(tool, arguments)
        return json.dumps({**json.loads(answer), "error": None}), is_error


def _session(words: list[str], seed: str) -> list[Call]:
    rng = random.Random(seed)
    calls: list[Call] = []
    for _ in range(8):
        label = " ".join(rng.sample(words, 2)) if rng.random() < 0.3 else rng.choice(words)
        add = {"sku": rng.choice(words), "labels": [label], "info": " ".join(rng.sample(words, 2))}
        calls.append(("add_part", add))
        if rng.random() < 0.4:
            calls.append(("get_part", {"sku": rng.choice(words)}))
    return calls


def test_a_twin_refuses_a_list_item_of_another_form_answered_as_a_success() -> None:
    sessions = [played(CheckedParts().call, f"s{n}", _session(WORDS, f"train-{n}")) for n in range(10)]
    inference = infer_guards(SPECS, sessions, ["add_part", "get_part"])
    adding = json.dumps(inference.plans["add_part"])
    assert '["unlike", "labels/0", ["a"]]' in adding, adding
    server = CheckedParts()
    words = ["amber", "pine", "stone", "cloud", "kite", "river", "moss", "fern", "reed", "dune"]
    assert guard_misses(inference.plans, server.call, _session(words, "check") + _session(words, "more")) == []
