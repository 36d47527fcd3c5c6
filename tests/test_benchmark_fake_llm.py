"""The RL benchmark's fake provider reads the prompt sim-mcp sends today (it once silently stopped: every
read of a created ticket came back not found, and the benchmark measured error answers)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from benchmarks.fake_llm import outcome_for
from sim_mcp.engine.contract import SimulationRequest
from sim_mcp.llm.modes import prompt_for
from sim_mcp.specs.formats import read_spec_file
from tests.servers import BUNDLED_SPECS

TICKETS = read_spec_file(BUNDLED_SPECS / "tickets.yaml")


def ask(tool: str, arguments: dict[str, Any], state: Any) -> dict[str, Any]:
    spec = next(spec for spec in TICKETS.tools if spec.name == tool)
    request = SimulationRequest(
        environment=TICKETS, tool=spec, arguments=arguments, state=state, recent_events=[], session_id="s"
    )
    prompt = prompt_for(request, history_events=4, state_budget_chars=24_000)
    return outcome_for(prompt.system + "\n\n" + prompt.user)


@pytest.mark.parametrize("extra", [0, 200], ids=["whole state", "sliced state"])
def test_a_created_ticket_is_read_back(extra: int) -> None:
    state = copy.deepcopy(TICKETS.initial_state)
    for n in range(extra):  # enough tickets that the prompt shows the state sliced
        state["tickets"][f"T-{5000 + n}"] = {**next(iter(state["tickets"].values())), "id": f"T-{5000 + n}"}
    arguments = {"title": "Printer", "description": "Jams", "customer_email": "ana@example.com"}
    created = ask("create_ticket", arguments, state)
    assert created["is_error"] is False
    ticket = created["result"]
    highest = max(int(ticket_id.removeprefix("T-")) for ticket_id in state["tickets"])
    assert ticket["id"] == f"T-{highest + 1}"
    state["tickets"][ticket["id"]] = ticket
    read = ask("get_ticket", {"ticket_id": ticket["id"]}, state)
    assert read == {"result": ticket, "is_error": False, "state_patch": []}
