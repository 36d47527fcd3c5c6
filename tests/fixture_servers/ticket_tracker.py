"""An issue-tracker MCP server (`python -m tests.fixture_servers.ticket_tracker`): tickets with a lifecycle,
as such trackers keep them. A ticket's id is a prefix and a counter padded with zeros (`TIX-007`); a ticket
carries every field from the start, most at the server's default (a null resolution, an empty list of
labels; a queue `auto` for a ticket left to the default owner, none for one given to a person); it is
stamped with the server's clock (`created_at`, `updated_at`, ISO date-times with microseconds); a close
sets several fields at once (its status, resolution and `closed_at`) and answers the ticket with a field
of its own beside it; an update answers what it changed, each field's old and new value; an unknown id or
priority is refused with a success-shaped `{"error": ...}`, as such servers do. Deterministic but for the clock."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from tests.fixture_servers._stdio import as_json, serve, tool

_ID = {"id": {"type": "string"}}
_TEXT = {"type": "string"}
TOOLS = [
    tool(
        "create_ticket",
        "Open a ticket; answers it with every field.",
        {
            "title": _TEXT,
            "description": {"type": "string", "default": ""},
            "priority": {"type": "string", "default": "P2"},
            "owner": {"type": "string", "default": "bot"},
        },
        ["title"],
    ),
    tool("get_ticket", "One ticket by id.", _ID, ["id"]),
    tool(
        "update_ticket",
        "Change a ticket's title or priority; answers it as changed, and each change.",
        {**_ID, "title": _TEXT, "priority": _TEXT},
        ["id"],
    ),
    tool(
        "close_ticket",
        "Close a ticket with a resolution; answers it as closed.",
        {**_ID, "resolution": {"type": "string", "default": "Completed"}},
        ["id"],
    ),
    tool("list_tickets", "Every ticket, in the order they were opened.", {}, []),
]
# The owner a ticket has unless given one: the only one whose tickets the server queues itself.
_DEFAULT_OWNER = "bot"
_PRIORITIES = ("P0", "P1", "P2", "P3")


class Tickets:
    """The server's world, its clock given: `call(tool, arguments)` answers (text, is_error)."""

    def __init__(self, now: Callable[[], str]) -> None:
        self.now = now
        self.tickets: dict[str, dict[str, Any]] = {}

    def call(self, name: str, args: dict[str, Any]) -> tuple[str, bool]:
        priority = args.get("priority")
        if priority is not None and priority not in _PRIORITIES:
            return as_json({"error": f"Unknown priority {priority!r}. Use one of {list(_PRIORITIES)}."}), False
        if name == "create_ticket":
            number = len(self.tickets) + 1
            stamp = self.now()
            owner = args.get("owner", _DEFAULT_OWNER)
            ticket = {
                "id": f"TIX-{number:03d}",
                "title": str(args["title"]),
                "description": args.get("description", ""),
                "status": "open",
                "priority": args.get("priority", "P2"),
                "owner": owner,
                "queue": "auto" if owner == _DEFAULT_OWNER else None,
                "labels": [],
                "resolution": None,
                "created_at": stamp,
                "updated_at": stamp,
                "closed_at": None,
            }
            self.tickets[ticket["id"]] = ticket
            return as_json(ticket), False
        if name == "list_tickets":
            return as_json(list(self.tickets.values())), False
        found = self.tickets.get(str(args.get("id")))
        if found is None:
            return as_json({"error": f"Not found: {args.get('id')!r}"}), False
        if name == "update_ticket":
            given = [field for field in ("title", "priority") if field in args]
            changes = [f"{field}: {found[field]} \u2192 {args[field]}" for field in given]
            found.update({field: args[field] for field in given})
            found["updated_at"] = self.now()
            return as_json({"ticket": found, "changes": changes}), False
        if name == "close_ticket":
            stamp = self.now()
            found.update({"status": "done", "resolution": args.get("resolution", "Completed")})
            found.update({"closed_at": stamp, "updated_at": stamp})
            # What the close did beside the ticket, answered with it but no field of it.
            return as_json({**found, "_follow_up": None}), False
        return as_json(found), False


def main() -> None:
    world = Tickets(lambda: datetime.datetime.now(datetime.UTC).isoformat())
    serve("ticket-tracker", TOOLS, world.call)


if __name__ == "__main__":
    main()
