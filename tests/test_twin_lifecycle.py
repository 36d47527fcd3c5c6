"""A twin of records with a lifecycle, as an issue tracker keeps them (`tests/fixture_servers/ticket_tracker.py`),
learned with no model from recorded sessions: ids a prefix and a counter padded with zeros, which an
agent's mistaken id in an error does not move; fields at the server's defaults, one of them filled only for
a record left at another argument's default; refusals answered as successes, which key no record; the
server's clock; a close that sets several fields at once; an update that shows a field's old value."""

from __future__ import annotations

import datetime
import json
import random
from collections.abc import Callable
from typing import Any

from sim_mcp.authoring.twins.agreement import Answer, compare_answers
from sim_mcp.authoring.twins.keyed_world import GuardInference, infer_guards, run_guard
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec
from tests.fixture_servers.ticket_tracker import TOOLS, Tickets
from tests.twin_learning import played

SPECS = [ToolSpec(name=tool.name, input_schema=tool.input_schema) for tool in TOOLS]
Call = tuple[str, dict[str, Any]]


def _clock(day: int) -> Callable[[], str]:
    """A server's clock on day `day` of December 2026, a second and a bit later at each reading."""
    moments = iter(
        datetime.datetime(2026, 12, day, 9, tzinfo=datetime.UTC) + datetime.timedelta(seconds=1.123457 * n)
        for n in range(1, 10_000)
    )
    return lambda: next(moments).isoformat()


def _session(words: list[str], seed: str) -> list[Call]:
    rng = random.Random(seed)
    calls: list[Call] = []
    made = 0
    for _ in range(12):
        roll = rng.random()
        if roll < 0.4 or not made:
            args: dict[str, Any] = {"title": " ".join(rng.sample(words, 2))}
            if rng.random() < 0.4:
                args["priority"] = rng.choice(["P0", "P1", "P3", "high"])
            if rng.random() < 0.5:
                args["owner"] = rng.choice(["ann", "bob", "bot"])
            if rng.random() < 0.3:
                args["description"] = " ".join(rng.sample(words, 3))
            calls.append(("create_ticket", args))
            made += 1
        elif roll < 0.55:
            # Now and then an id no ticket has, past any the session makes.
            calls.append(("get_ticket", {"id": f"TIX-{rng.choice([rng.randint(1, made), 99]):03d}"}))
        elif roll < 0.7:
            calls.append(("update_ticket", {"id": f"TIX-{rng.randint(1, made):03d}", "title": rng.choice(words)}))
        elif roll < 0.85:
            close: dict[str, Any] = {"id": f"TIX-{rng.choice([rng.randint(1, made), 99]):03d}"}
            if rng.random() < 0.4:
                close["resolution"] = rng.choice(["Wontfix", "Duplicate"])
            calls.append(("close_ticket", close))
        else:
            calls.append(("list_tickets", {}))
    return calls


def _recorded(number: int, calls: list[Call]) -> list[RecordedCall]:
    return played(Tickets(_clock(6)).call, f"s{number}", calls)


def _learned() -> GuardInference:
    words = ["draft", "invites", "garden", "taxes", "work", "review", "phone", "errands"]
    sessions = [_recorded(n, _session(words, f"train-{n}")) for n in range(10)]
    return infer_guards(SPECS, sessions, [tool.name for tool in TOOLS])


def _disagreements(inference: GuardInference, script: list[Call]) -> list[Any]:
    """Play `script` on the server (another day) and on the twin: the calls whose answers disagree (times
    compared by form, everything else exactly: ids included)."""
    server, state = Tickets(_clock(20)), dict[str, Any]()
    found = []
    for tool, arguments in script:
        text, is_error = server.call(tool, arguments)
        answer = run_guard(inference.plans[tool], tool, state, arguments)
        expected = Answer(json.loads(text), is_error)
        if answer is None or not compare_answers(expected, Answer(*answer)).agree:
            found.append((tool, arguments, answer, text))
    return found


def test_a_tracker_twin_mints_padded_ids_fills_defaults_and_closes_records() -> None:
    inference = _learned()
    creating = json.dumps(inference.plans["create_ticket"])
    assert '["next", "TIX-", 3]' in creating
    # The queue a ticket gets depends on whether its owner was left at the default: asked as such.
    assert '["at_default", "owner", "bot"]' in creating
    words = ["amber", "pine", "stone", "cloud", "kite", "river"]
    script: list[Call] = [
        ("create_ticket", {"title": "amber pine"}),
        # An agent's mistaken id, past the counter: refused, and the next id is still the next one.
        ("get_ticket", {"id": "TIX-099"}),
        ("create_ticket", {"title": "stone", "owner": "ann", "priority": "P0"}),
        ("create_ticket", {"title": "kite river", "owner": "bot", "description": "cloud"}),
        ("create_ticket", {"title": "cloud", "priority": "high"}),
        ("close_ticket", {"id": "TIX-002", "resolution": "Wontfix"}),
        # A title a close did not give, read from the ticket as the close left it.
        ("update_ticket", {"id": "TIX-002", "title": "pine"}),
        ("close_ticket", {"id": "TIX-099"}),
        ("get_ticket", {"id": "TIX-002"}),
        ("close_ticket", {"id": "TIX-001"}),
        *_session(words, "check"),
        ("list_tickets", {}),
    ]
    assert _disagreements(inference, script) == []
