"""A log of work entries (`python -m tests.fixture_servers.work_log`): each entry saved under the next number,
with a task and, where given, its files, a decision, its tags and notes. A listing is a header with a count,
then one block of several lines per entry, newest first, numbered by its place and stamped with the clock
to the minute (`[1] #4 — 2026-12-07T01:43`), a line per field the entry holds (`  Files     : a, b`, left
out where it has none); a listing may be filtered by a tag (an item of the entry's tags), a search by a
text found in any of its fields, ignoring case; a load shows the most recent entries under a header of its
own."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tests.fixture_servers._stdio import serve, tool

_WORDS = {"type": "array", "items": {"type": "string"}}
_ENTRY = {"entry_id": {"type": "integer"}}
TOOLS = [
    tool(
        "save_entry",
        "Save a work entry; answers its number.",
        {"task": {"type": "string"}, "files": _WORDS, "decision": {"type": "string"}, "tags": _WORDS}
        | {"notes": {"type": "string"}},
        ["task"],
    ),
    tool("delete_entry", "Delete an entry by its number.", _ENTRY, ["entry_id"]),
    tool("list_entries", "The entries, newest first, or those with a tag.", {"tag": {"type": "string"}}, []),
    tool("search_entries", "The entries holding a text in any field.", {"query": {"type": "string"}}, ["query"]),
    tool("load_context", "The most recent entries, to start a session with.", {}, []),
]
# The fields of an entry in the order its block shows them, with their labels.
_LABELS = (("task", "Task"), ("files", "Files"), ("decision", "Decision"), ("tags", "Tags"), ("notes", "Notes"))


class WorkLog:
    """The server's world: `call(tool, arguments)` answers (text, is_error)."""

    def __init__(self) -> None:
        self.entries: dict[int, dict[str, Any]] = {}
        self.last = 0

    def call(self, name: str, args: dict[str, Any]) -> tuple[str, bool]:
        if name == "save_entry":
            self.last += 1
            stamp = datetime.now().strftime("%Y-%m-%dT%H:%M")
            self.entries[self.last] = {key: args[key] for key, _ in _LABELS if args.get(key)} | {"at": stamp}
            return f"Saved entry #{self.last}: {args['task']}", False
        if name == "delete_entry":
            number = int(args["entry_id"])
            if self.entries.pop(number, None) is None:
                return f"No entry with id {number}.", False
            return f"Deleted entry #{number}.", False
        newest = sorted(self.entries.items(), reverse=True)
        if name == "list_entries":
            tag = args.get("tag")
            picked = [(number, entry) for number, entry in newest if tag is None or tag in entry.get("tags", [])]
            if not picked:
                return f"No entries with tag '{tag}'." if tag is not None else "No entries yet.", False
            return f"=== log: {len(picked)} entries ===\n{_blocks(picked)}", False
        if name == "search_entries":
            query = str(args["query"]).lower()
            picked = [(number, entry) for number, entry in newest if query in _searched(entry)]
            if not picked:
                return f"No entries matched '{args['query']}'.", False
            return f"=== Search results for '{args['query']}' ({len(picked)}) ===\n{_blocks(picked)}", False
        if name == "load_context":
            return f"=== session context ===\n\n--- Recent ({len(newest)}) ---\n{_blocks(newest)}", False
        return f"unknown tool {name}", True


def _shown(value: Any) -> str:
    return ", ".join(value) if isinstance(value, list) else str(value)


def _searched(entry: dict[str, Any]) -> str:
    return "\n".join(_shown(entry[key]) for key, _ in _LABELS if key in entry).lower()


def _blocks(picked: list[tuple[int, dict[str, Any]]]) -> str:
    blocks = []
    for place, (number, entry) in enumerate(picked, 1):
        lines = [f"[{place}] #{number} — {entry['at']}"]
        lines += [f"  {label:<10}: {_shown(entry[key])}" for key, label in _LABELS if key in entry]
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


def main() -> None:
    world = WorkLog()
    serve("work-log", TOOLS, world.call)


if __name__ == "__main__":
    main()
