"""The covering's work asked once: the table of atoms and templates per call and world, the library's per-call
readings and a tool's rules are kept over the whole inference, and what is kept is what the library gives
anew, whichever effects were tried before."""

from __future__ import annotations

import json
from typing import Any

from sim_mcp.authoring.twins.keyed_world import _atoms, _effects, _Learner, _strings, _Tool
from sim_mcp.authoring.twins.library import TwinLibrary
from sim_mcp.authoring.twins.recordings import RecordedCall
from tests.test_twin_guards import TASK_TOOLS, task_server


def add(name: str, note: str, **more: Any) -> tuple[str, dict[str, Any]]:
    return "add_task", {"name": name, "note": note, **more}


def find(query: str) -> tuple[str, dict[str, Any]]:
    return "find_tasks", {"query": query}


SESSIONS = [
    task_server(
        0,
        [
            add("docs-update", "write the guide", tag="writing"),
            find("docs"),
            add("docs-review", "read the guide", done=True),
            find("docs"),
            find("guide"),
            find("nothing"),
        ],
    ),
    task_server(
        1,
        [
            add("book-venue", "call the hotel", done=False),
            add("send-invites", "email the team", tag="events", done=True),
            find("venue"),
            find("the"),
            add("hotel-deposit", "pay the venue"),
            find("venue"),
            find("zzz"),
        ],
    ),
    # The same first call as another session's: one case, asked once.
    task_server(2, [add("book-venue", "call the hotel", done=False), find("zzz"), find("venue")]),
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
