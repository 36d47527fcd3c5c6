"""What a scripted provider answers to the first call of the tickets fidelity scenario
(benchmarks/fidelity/tickets.yaml: create_ticket "VPN drops every hour")."""

from __future__ import annotations

from typing import Any

from sim_mcp.testing import Reply, reply_outcome

CREATED_TICKET = {
    "id": "T-1006",
    "title": "VPN drops every hour",
    "description": "The office VPN disconnects on the hour, every hour, since Monday.",
    "customer_email": "ops@acme.example",
    "priority": "high",
    "status": "open",
    "assignee": None,
    "resolution": None,
    "tags": ["network"],
}


def created_ticket(state_patch: list[dict[str, Any]] | None = None) -> Reply:
    """The created ticket as the result, with the patch that adds it (or `state_patch`)."""
    added = [{"op": "add", "path": "/tickets/T-1006", "value": CREATED_TICKET}]
    return reply_outcome(CREATED_TICKET, state_patch=added if state_patch is None else state_patch)
