"""A to-do list MCP server (`python -m tests.fixture_servers.todo_store`): records with made-up ids (a
counter that never reuses one), a lifecycle (add, rename, complete, delete), and a listing in the order
they were added, all answered as JSON text."""

from __future__ import annotations

from typing import Any

from tests.fixture_servers._stdio import as_json, serve, tool

_ID = {"id": {"type": "integer"}}
TOOLS = [
    tool("add_todo", "Add a to-do; answers it with its new id.", {"title": {"type": "string"}}, ["title"]),
    tool("get_todo", "One to-do by id.", _ID, ["id"]),
    tool("rename_todo", "Give a to-do a new title.", {**_ID, "title": {"type": "string"}}, ["id", "title"]),
    tool("complete_todo", "Mark a to-do done.", _ID, ["id"]),
    tool("delete_todo", "Delete a to-do.", _ID, ["id"]),
    tool("list_todos", "Every to-do, in the order they were added.", {}, []),
]


def main() -> None:
    todos: dict[int, dict[str, Any]] = {}
    last = 0

    def handle(name: str, args: dict[str, Any]) -> tuple[str, bool]:
        nonlocal last
        if name == "add_todo":
            last += 1
            todos[last] = {"id": last, "title": str(args["title"]), "done": False}
            return as_json(todos[last]), False
        if name == "list_todos":
            return as_json({"todos": list(todos.values())}), False
        found = todos.get(args.get("id"))  # type: ignore[arg-type]
        if found is None:
            return f"To-do {args.get('id')} not found", True
        if name == "get_todo":
            return as_json(found), False
        if name == "rename_todo":
            found["title"] = str(args["title"])
            return as_json(found), False
        if name == "complete_todo":
            found["done"] = True
            return as_json(found), False
        if name == "delete_todo":
            del todos[found["id"]]
            return f"Deleted to-do {found['id']}", False
        return f"Unknown tool {name}", True

    serve("todo-store", TOOLS, handle)


if __name__ == "__main__":
    main()
