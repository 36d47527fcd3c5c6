"""A store of items and sub-items with a lifecycle (`python -m tests.fixture_servers.nested_items`), as task
managers keep them. An item's id is letters and a counter padded with zeros, no separator (`r01`); a
sub-item's is its parent's id, a few letters and its own counter under that parent (`r02c01`); an optional
argument is typed as a string or null, as Python servers declare one; a move answers the item's id and
its new state; an item with sub-items refuses a move of its own; a missing id is refused, naming the
top-level item of a sub-item's id (`r12c03`: "Item 'r12' not found"); a listing shows the top-level items
a line each, the state as a mark and a note's presence as ` (...)`; a view of several refs shows a block
each, its note's line only where it has one. Deterministic."""

from __future__ import annotations

from typing import Any

from tests.fixture_servers._stdio import as_json, serve, tool

_REF = {"ref": {"type": "string"}}
_OPTIONAL = {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}
TOOLS = [
    tool(
        "add_item",
        "Add an item, or a sub-item of `parent`.",
        {"title": {"type": "string"}, "note": _OPTIONAL, "parent": _OPTIONAL},
        ["title"],
    ),
    tool("start_item", "Start an item.", _REF, ["ref"]),
    tool("close_item", "Close an item.", _REF, ["ref"]),
    tool("list_items", "The top-level items, a line each.", {}, []),
    tool(
        "show_items", "Items by ref, a block each.", {"refs": {"type": "array", "items": {"type": "string"}}}, ["refs"]
    ),
]
_MARKS = {"open": ".", "started": "~", "closed": "x"}


class Items:
    """The server's world: `call(tool, arguments)` answers (text, is_error)."""

    def __init__(self) -> None:
        self.items: dict[str, dict[str, Any]] = {}

    def _missing(self, ref: str) -> tuple[str, bool]:
        top = ref[: next((at for at in range(1, len(ref)) if ref[at].isalpha()), len(ref))]
        return f"Item '{top}' not found", True

    def _block(self, ref: str) -> str:
        item = self.items.get(ref)
        if item is None:
            return f"# {ref}: not found"
        return f"# {ref}: {item['title']}\nstate: {item['state']}" + (f"\n\n{item['note']}" if item["note"] else "")

    def call(self, name: str, args: dict[str, Any]) -> tuple[str, bool]:
        if name == "add_item":
            parent = args.get("parent")
            if parent is not None and parent not in self.items:
                return self._missing(parent)
            if parent is None:
                ref = f"r{sum('c' not in k for k in self.items) + 1:02d}"
            else:
                ref = f"{parent}c{sum(k.startswith(parent + 'c') for k in self.items) + 1:02d}"
            self.items[ref] = {"title": args["title"], "state": "open", "note": args.get("note")}
            return as_json({"id": ref, "state": "open"}), False
        if name == "list_items":
            lines = [
                f"{_MARKS[item['state']]} {ref}  {item['title']}" + (" (...)" if item["note"] else "")
                for ref, item in self.items.items()
                if "c" not in ref
            ]
            return "\n".join(lines) or "Nothing yet", False
        if name == "show_items":
            return "\n\n---\n\n".join(self._block(ref) for ref in args["refs"]), False
        ref = str(args.get("ref"))
        if ref not in self.items:
            return self._missing(ref)
        if any(k.startswith(ref + "c") for k in self.items):
            return f"Item '{ref}' has sub-items; its state follows theirs", True
        self.items[ref]["state"] = "started" if name == "start_item" else "closed"
        return as_json({"id": ref, "state": self.items[ref]["state"]}), False


def main() -> None:
    serve("nested-items", TOOLS, Items().call)


if __name__ == "__main__":
    main()
