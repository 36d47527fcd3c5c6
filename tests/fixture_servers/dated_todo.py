"""A todo.txt-like list MCP server (`python -m tests.fixture_servers.dated_todo`): each todo is stamped with the
day it was added (the server's clock) and answered with a line the server composes from its fields
(`(A) 2026-12-06 Review draft +work @phone`: the priority in parentheses, the day, the text, each project
marked `+`, each context `@`, a part left out where the field is absent). Projects are kept sorted; a priority
that is no single uppercase letter is refused with a success-shaped `{"error": ...}`, as such servers do; an
update answers the record as it leaves it. Deterministic but for the day."""

from __future__ import annotations

import datetime
from typing import Any

from tests.fixture_servers._stdio import as_json, serve, tool

_ID = {"id": {"type": "integer"}}
_WORDS = {"type": "array", "items": {"type": "string"}}
TOOLS = [
    tool(
        "add_todo",
        "Add a todo; answers it with its new id and its todo.txt line.",
        {"text": {"type": "string"}, "priority": {"type": "string"}, "projects": _WORDS, "contexts": _WORDS},
        ["text"],
    ),
    tool("get_todo", "One todo by id.", _ID, ["id"]),
    tool(
        "update_todo",
        "Change a todo's text or priority; answers it as changed.",
        {**_ID, "text": {"type": "string"}, "priority": {"type": "string"}},
        ["id"],
    ),
    tool("list_todos", "Every todo, in the order they were added.", {}, []),
]


class DatedTodos:
    """The server's world, its clock's day given: `call(tool, arguments)` answers (text, is_error)."""

    def __init__(self, today: str) -> None:
        self.today = today
        self.todos: dict[int, dict[str, Any]] = {}

    def call(self, name: str, args: dict[str, Any]) -> tuple[str, bool]:
        priority = args.get("priority")
        if priority is not None and not (len(priority) == 1 and priority.isupper()):
            return as_json({"error": "Priority must be a single uppercase letter (A-Z)", "priority": priority}), False
        if name == "add_todo":
            number = len(self.todos) + 1
            todo = {
                "id": number,
                "text": str(args["text"]),
                "priority": args.get("priority"),
                "created": self.today,
                "projects": sorted(args.get("projects") or []),
                "contexts": list(args.get("contexts") or []),
            }
            todo["line"] = _line(todo)
            self.todos[number] = todo
            return as_json({"todo": todo, "message": f"Added todo {number}"}), False
        if name == "list_todos":
            return as_json({"todos": list(self.todos.values()), "count": len(self.todos)}), False
        found = self.todos.get(args.get("id"))  # type: ignore[arg-type]
        if name == "get_todo" and found is not None:
            return as_json(found), False
        if name == "update_todo" and found is not None:
            found.update({field: args[field] for field in ("text", "priority") if field in args})
            found["line"] = _line(found)
            return as_json({"success": True, "todo": found}), False
        if name in ("get_todo", "update_todo"):
            return f"Todo {args.get('id')} not found", True
        return f"Unknown tool {name}", True


def _line(todo: dict[str, Any]) -> str:
    parts = [f"({todo['priority']})"] if todo["priority"] else []
    parts += [todo["created"], todo["text"]]
    parts += [f"+{project}" for project in todo["projects"]] + [f"@{context}" for context in todo["contexts"]]
    return " ".join(parts)


def main() -> None:
    world = DatedTodos(datetime.date.today().isoformat())
    serve("dated-todo", TOOLS, world.call)


if __name__ == "__main__":
    main()
