"""The covering's work asked once: the table of atoms and templates per call and world, the library's per-call
readings and a tool's rules are kept over the whole inference, and what is kept is what the library gives
anew, whichever effects were tried before."""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import pytest

from sim_mcp.authoring.twins import keyed_world
from sim_mcp.authoring.twins.keyed_world import (
    _atoms,
    _Condition,
    _conditions,
    _effects,
    _keeps_made_up,
    _Learner,
    _strings,
    _Tool,
)
from sim_mcp.authoring.twins.library import TwinLibrary
from sim_mcp.authoring.twins.recordings import RecordedCall
from tests.test_twin_guards import TASK_TOOLS, add_task, find_tasks, task_server, task_sessions

SESSIONS = [
    *task_sessions(),
    # The same first call as another session's: one case, asked once.
    task_server(2, [add_task("book-venue", "call the hotel", done=False), find_tasks("zzz"), find_tasks("venue")]),
]


def learner_of(sessions: list[list[RecordedCall]]) -> tuple[_Learner, list[dict[str, list[Any] | None]]]:
    """A learner of the task server's recordings, and the choices of effects the ascent would try: each
    candidate effect of `add_task` (and none)."""
    tools = {
        tool.name: _Tool(tool, [call for session in sessions for call in session if call.tool == tool.name])
        for tool in TASK_TOOLS
    }
    learner = _Learner(tools, sessions, None)
    adding = tools["add_task"]
    adding.effects = _effects(adding, learner.templates(adding, learner.worlds(dict.fromkeys(tools))), [])
    assert adding.effects, "the task server's add stores its task under its name"
    return learner, [{"add_task": effect, "find_tasks": None} for effect in [None, *adding.effects]]


def test_the_table_kept_per_call_and_world_is_the_librarys_table() -> None:
    learner, choices = learner_of(SESSIONS)
    library = TwinLibrary()
    for choice in choices:
        worlds = learner.worlds(choice)
        stores = sorted(name for name, effect in choice.items() if effect is not None)
        for tool in learner.tools.values():
            templates = [template for template, _ in learner.templates(tool, worlds, choice[tool.spec.name]).values()]
            atoms = list(_atoms(tool.spec, None, _strings(tool.spec), stores))
            # Asked in parts and out of order: a later ask reads what an earlier one kept, and asks the rest.
            for asked_atoms, asked_templates in ((atoms[::2], templates[1::2]), (atoms[::-1], templates), (atoms, [])):
                cases = [{"args": call.arguments, "world": worlds[id(call)]} for call in tool.calls]
                payload = {"root": None, "atoms": asked_atoms, "templates": asked_templates, "cases": cases}
                assert learner.table(tool, worlds, asked_atoms, asked_templates) == library.call(
                    "twin_bridge_table", payload
                )


def test_a_tools_rules_are_the_same_whatever_was_tried_before() -> None:
    warm, choices = learner_of(SESSIONS)
    # Every choice tried once, then each again: its rules come from what the learner kept.
    for choice in choices:
        warm.evaluate(choice)
    warm.cache.clear()
    seen = set()
    for choice in choices:
        cold, _ = learner_of(SESSIONS)
        again = warm.evaluate(choice)
        fresh = cold.evaluate(choice)
        assert json.dumps(again.plans, sort_keys=True) == json.dumps(fresh.plans, sort_keys=True)
        assert again.answered == fresh.answered
        seen.add(json.dumps(fresh.plans.get("find_tasks"), sort_keys=True))
    # The search's rules differ by the effect of the add (its worlds): what is kept is told apart by them.
    assert len(seen) > 1


def test_effects_that_leave_a_tools_worlds_alike_share_one_covering() -> None:
    learner, choices = learner_of(SESSIONS)
    adding = learner.tools["add_task"]
    by_worlds: dict[str, list[dict[str, list[Any] | None]]] = {}
    for choice in choices:
        if choice["add_task"] is None:
            continue
        worlds = learner.worlds(choice)
        text = json.dumps([_keeps_made_up(choice["add_task"]), [worlds[id(c)] for c in adding.calls]], sort_keys=True)
        by_worlds.setdefault(text, []).append(choice)
    alike = next(group for group in by_worlds.values() if len(group) > 1)
    first, second = alike[0], alike[1]
    learner.learned(adding, learner.worlds(first), first["add_task"], ["add_task"])
    kept = len(learner.rules)
    # Its effect is only the label its success rules carry: the covering of the first answers for the second.
    again = learner.learned(adding, learner.worlds(second), second["add_task"], ["add_task"])
    assert len(learner.rules) == kept
    cold, _ = learner_of(SESSIONS)
    fresh = cold.learned(adding, cold.worlds(second), second["add_task"], ["add_task"])
    assert json.dumps(again, sort_keys=True) == json.dumps(fresh, sort_keys=True)
    assert any(rule.get("effect") == second["add_task"] for rule in again[0])


def test_the_conditions_tried_are_the_first_of_each_set_alike() -> None:
    # Atoms of every kind the covering reads, holding for random calls: each one and each two that hold
    # together, the first of each set alike (`_Condition.same`), as made one by one and sifted after.
    chooser = random.Random(7)
    kinds = ["always", "present", "missing", "empty", "nonempty", "stored_is", "absent", "given", "longer", "none_by"]
    holding = [([chooser.choice(kinds), f"a{n}"], chooser.randrange(1, 16)) for n in range(40)]
    made = [([atom], hit) for atom, hit in holding]
    pairs = itertools.combinations([(atom, hit) for atom, hit in holding if atom[0] != "always"], 2)
    made += [([a, b], ha & hb) for (a, ha), (b, hb) in pairs if ha & hb]
    seen: set[Any] = set()
    expected = []
    for when, hit in made:
        condition = _Condition.of(when, hit)
        if condition.same() not in seen:
            seen.add(condition.same())
            expected.append(condition)
    assert _conditions(holding) == expected


def test_a_learner_that_forgets_the_worlds_it_kept_learns_the_same_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    kept, choices = learner_of(SESSIONS)
    expected = [json.dumps(kept.evaluate(choice).plans, sort_keys=True) for choice in choices]
    monkeypatch.setattr(keyed_world, "_KEPT_WORLDS", len(SESSIONS) + 1)
    forgetting, _ = learner_of(SESSIONS)
    for choice, plans in zip(choices, expected, strict=True):
        assert json.dumps(forgetting.evaluate(choice).plans, sort_keys=True) == plans
        assert len(forgetting.kept_worlds) <= len(SESSIONS) + 1
