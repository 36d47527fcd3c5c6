"""A to-do list with filtered listings (`python -m tests.fixture_servers.filtered_todo`): each listing answers an
object holding the todos it picks and their number beside the arguments it was given (`{"todos": [...],
"count": 2, "priority": "A"}`); one picks by a field's value (a priority), one by an item of a list field (a
project), one by a keyword in the text, ignoring case. Completing a todo takes it off the list. Each todo's id is a
UUID the server makes up (from a generator seeded per session, so that a session answers the same each time and
no two sessions share an id). Reloading reads the todos back from the file the server keeps them in: each is
numbered by its line (`"0"`, `"1"`, ...), its text as the line keeps it, its projects marked in it
(`Review draft +work`)."""

from __future__ import annotations

import random
import uuid
from typing import Any

from tests.fixture_servers._stdio import as_json, serve, tool

_WORDS = {"type": "array", "items": {"type": "string"}}
_TODO_ID = {"todo_id": {"type": "string"}}
TOOLS = [
    tool(
        "add_todo",
        "Add a todo; answers it with its new id.",
        {"text": {"type": "string"}, "priority": {"type": "string"}, "projects": _WORDS},
        ["text"],
    ),
    tool("get_todo", "One todo by id.", _TODO_ID, ["todo_id"]),
    tool("complete_todo", "Mark a todo done: it leaves the list.", _TODO_ID, ["todo_id"]),
    tool("list_todos", "Every todo, in the order they were added.", {}, []),
    tool("filter_by_priority", "The todos of one priority.", {"priority": {"type": "string"}}, ["priority"]),
    tool("filter_by_project", "The todos of one project.", {"project": {"type": "string"}}, ["project"]),
    tool("search_todos", "The todos whose text holds the query.", {"query": {"type": "string"}}, ["query"]),
    tool("reload_todos", "Read the todos back from the file.", {}, []),
]


class FilteredTodos:
    """The server's world: `call(tool, arguments)` answers (text, is_error)."""

    def __init__(self, seed: str) -> None:
        self.todos: dict[str, dict[str, Any]] = {}
        self.ids = random.Random(seed)

    def call(self, name: str, args: dict[str, Any]) -> tuple[str, bool]:
        if name == "add_todo":
            made = str(uuid.UUID(int=self.ids.getrandbits(128), version=4))
            todo: dict[str, Any] = {
                "id": made,
                "text": str(args["text"]),
                "priority": args.get("priority"),
                "projects": list(args.get("projects") or []),
            }
            self.todos[made] = todo
            return as_json({"success": True, "todo": todo}), False
        if name == "get_todo":
            todo_id = str(args.get("todo_id"))
            if todo_id not in self.todos:
                return as_json({"error": f"Todo with ID '{todo_id}' not found", "todo_id": todo_id}), False
            return as_json({"todo": self.todos[todo_id]}), False
        if name == "complete_todo":
            todo_id = str(args.get("todo_id"))
            if self.todos.pop(todo_id, None) is None:
                return as_json({"error": f"Todo with ID '{todo_id}' not found", "todo_id": todo_id}), False
            return as_json({"success": True, "todo_id": todo_id, "message": "Todo marked as completed"}), False
        if name == "list_todos":
            return self._listing(list(self.todos.values()), {}), False
        if name == "filter_by_priority":
            priority = args.get("priority")
            return self._listing([t for t in self.todos.values() if t["priority"] == priority], args), False
        if name == "filter_by_project":
            project = args.get("project")
            return self._listing([t for t in self.todos.values() if project in t["projects"]], args), False
        if name == "search_todos":
            query = str(args.get("query")).lower()
            return self._listing([t for t in self.todos.values() if query in t["text"].lower()], args), False
        if name == "reload_todos":
            read = [
                {**todo, "id": str(n), "text": " ".join([todo["text"], *(f"+{p}" for p in todo["projects"])])}
                for n, todo in enumerate(self.todos.values())
            ]
            self.todos = {todo["id"]: todo for todo in read}
            return as_json({"success": True, "message": "Todos reloaded from file", "total_todos": len(read)}), False
        return f"Unknown tool {name}", True

    def _listing(self, todos: list[dict[str, Any]], args: dict[str, Any]) -> str:
        return as_json({"todos": todos, "count": len(todos), **args})


def main() -> None:
    world = FilteredTodos(str(uuid.uuid4()))
    serve("filtered-todo", TOOLS, world.call)


if __name__ == "__main__":
    main()
