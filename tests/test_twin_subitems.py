"""A twin of items and sub-items (`tests/fixture_servers/nested_items.py`), learned with no model from recorded
sessions: ids of letters and a padded counter with no separator (`r01`), a sub-item's id counted under its
parent's (`r02c01`), an optional argument typed as a string or null read as a string, a move refused for an
item with sub-items, a missing sub-item's id refused by its top-level item's, a move that keeps the fields
it does not answer, a listing that shows a state as a mark and a note's presence as one, and a view of
several records a block each."""

from __future__ import annotations

import json
import random
from typing import Any

from sim_mcp.authoring.twins.agreement import Answer, compare_answers
from sim_mcp.authoring.twins.keyed_world import GuardInference, infer_guards, run_guard
from sim_mcp.specs.model import ToolSpec
from tests.fixture_servers.nested_items import TOOLS, Items
from tests.twin_learning import played

SPECS = [ToolSpec(name=tool.name, input_schema=tool.input_schema) for tool in TOOLS]
Call = tuple[str, dict[str, Any]]


def _session(seed: str) -> list[Call]:
    rng = random.Random(seed)
    calls: list[Call] = []
    tops, subs = 0, 0
    for _ in range(12):
        roll = rng.random()
        title = rng.choice(["draft", "invites", "garden", "taxes"])
        if roll < 0.3 or not tops:
            calls.append(
                ("add_item", {"title": title} | ({"note": rng.choice(["soon", "ask ann"])} if roll < 0.15 else {}))
            )
            tops += 1
        elif roll < 0.4:
            calls.append(("list_items", {}))
        elif roll < 0.5:
            refs = [f"r{rng.randint(1, tops):02d}" for _ in range(rng.randint(1, 3))]
            calls.append(("show_items", {"refs": refs}))
        elif roll < 0.65:
            parent = f"r{rng.choice([rng.randint(1, tops), 9]):02d}"
            calls.append(("add_item", {"title": title, "parent": parent}))
            subs += 1
        else:
            ref = f"r{rng.randint(1, tops):02d}"
            if rng.random() < 0.3:
                ref += f"c{rng.randint(1, 2):02d}"
            elif rng.random() < 0.15:
                ref = rng.choice(["r09", "r12c03"])
            calls.append((rng.choice(["start_item", "close_item"]), {"ref": ref}))
    return calls


def _learned() -> GuardInference:
    sessions = [played(Items().call, f"s{n}", _session(f"train-{n}")) for n in range(20)]
    return infer_guards(SPECS, sessions, [tool.name for tool in TOOLS])


def _disagreements(inference: GuardInference, script: list[Call]) -> list[Any]:
    server, state = Items(), dict[str, Any]()
    found = []
    for tool, arguments in script:
        text, is_error = server.call(tool, arguments)
        answer = run_guard(inference.plans[tool], tool, state, arguments)
        expected = Answer(json.loads(text) if text.startswith("{") else text, is_error)
        if answer is None or not compare_answers(expected, Answer(*answer)).agree:
            found.append((tool, arguments, answer, text))
    return found


def test_a_twin_counts_ids_under_a_bare_prefix_and_sub_items_under_their_parent() -> None:
    inference = _learned()
    adding = json.dumps(inference.plans["add_item"])
    assert '["next", "r", 2]' in adding
    assert '["next_under", "parent", "c", 2]' in adding
    assert '"nested_present"' in json.dumps(inference.plans["start_item"])
    listing = json.dumps(inference.plans["list_items"])
    assert '["unnested", "c"]' in listing
    assert '"$any": " (...)"' in listing
    assert '"\\"started\\"": "~"' in listing
    assert '"opt"' in json.dumps(inference.plans["show_items"])
    script: list[Call] = [
        ("add_item", {"title": "amber"}),
        ("add_item", {"title": "pine", "note": "by friday"}),
        ("add_item", {"title": "stone", "parent": "r02"}),
        ("add_item", {"title": "kite", "parent": "r02"}),
        ("add_item", {"title": "cloud", "parent": "r07"}),
        # A sub-item's missing parent is refused by the top-level id; an item with sub-items refuses a move.
        ("start_item", {"ref": "r05c02"}),
        ("start_item", {"ref": "r02"}),
        ("close_item", {"ref": "r02c02"}),
        ("add_item", {"title": "river"}),
        ("add_item", {"title": "pine", "parent": "r03"}),
        ("start_item", {"ref": "r03c01"}),
        ("close_item", {"ref": "r01"}),
        # A started item keeps its title and note; the list leaves sub-items out.
        ("show_items", {"refs": ["r03c01", "r02", "r01"]}),
        ("list_items", {}),
        *_session("check"),
    ]
    assert _disagreements(inference, script) == []
