"""Sessions an agent would run against real MCP servers held out from twin inference (BENCHMARKS.md,
"Twins held out", that first set now dev, and "Twins held out, second set"): scripted agents that use
each server as intended (keys that were set, ids read from earlier answers, values chained from one call
to the next), with about 15% mistakes (a key never set, an id that does not exist, a step out of order,
an argument left out). The second set's agents are written from each package's own documentation and
tool list.

Each generator has the interface of `session_gen.CallGenerator`: `next_call()` gives the next (tool,
arguments), `observe(value)` feeds it the reference's answer (`answer_value`: JSON text read as JSON).
The names an agent chooses come from small vocabularies, the same for every seed, so that recorded
sessions and checked sessions share names unless the check renames them (`twin-check --rename`).
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable
from typing import Any, Protocol

__all__ = ["GENERATORS", "SessionAgent"]

MISTAKE = 0.15
_TOPICS = ("auth", "billing", "search", "deploy", "cache", "docs", "ui", "api")
_ASPECTS = ("decision", "owner", "status", "deadline", "risk", "summary")
_WORDS = (
    "use postgres for storage",
    "ship on friday",
    "alice owns the rollout",
    "blocked on review",
    "retry with backoff",
    "keep the old endpoint",
    "cache for ten minutes",
    "write the migration first",
)
_CATEGORIES = ("task", "decision", "progress", "note", "error", "warning")
_PRIORITIES = ("high", "normal", "low")
_REQUESTS = (
    "Plan the team offsite",
    "Prepare the quarterly report",
    "Migrate the billing service",
    "Write the onboarding guide",
    "Clean up the test suite",
    "Organise the book club",
)
_TASKS = (
    ("Draft outline", "List the sections"),
    ("Collect numbers", "Ask finance for the figures"),
    ("Book venue", "Find a room for twenty"),
    ("Review draft", "Read it and comment"),
    ("Send invites", "Email everyone the date"),
    ("Fix flaky test", "Make the retry test deterministic"),
    ("Update docs", "Describe the new flags"),
)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[+-]?\d+)?")


class SessionAgent(Protocol):
    def next_call(self) -> tuple[str, dict[str, Any]]: ...

    def observe(self, value: Any) -> None: ...


class KeyValueAgent:
    """mcp-memory-keeper's key-value tools: save under keys, read them back, list, search, delete."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.stored: dict[str, str] = {}
        self.pending: list[str] = []

    def _key(self) -> str:
        return f"{self.rng.choice(_TOPICS)}-{self.rng.choice(_ASPECTS)}"

    def _known_key(self) -> str:
        if self.stored and self.rng.random() >= MISTAKE:
            return self.rng.choice(sorted(self.stored))
        return self._key() + "-old"  # a key never set

    def next_call(self) -> tuple[str, dict[str, Any]]:
        roll = self.rng.random()
        if not self.stored or roll < 0.3:
            key, value = self._key(), self.rng.choice(_WORDS)
            arguments: dict[str, Any] = {"key": key, "value": value}
            if self.rng.random() < 0.5:
                arguments["category"] = self.rng.choice(_CATEGORIES)
            if self.rng.random() < 0.3:
                arguments["priority"] = self.rng.choice(_PRIORITIES)
            self.stored[key] = value
            return "context_save", arguments
        if roll < 0.55:
            return "context_get", {"key": self._known_key()}
        if roll < 0.62:
            return "context_get", {}
        if roll < 0.7:
            items = [{"key": self._key(), "value": self.rng.choice(_WORDS)} for _ in range(2)]
            for item in items:
                self.stored[item["key"]] = item["value"]
            return "context_batch_save", {"items": items}
        if roll < 0.8:
            keys = [self._known_key()]
            for key in keys:
                self.stored.pop(key, None)
            return "context_batch_delete", {"keys": keys}
        if roll < 0.92:
            source = self.rng.choice(sorted(self.stored)) if self.stored else self._key()
            return "context_search", {"query": source.split("-")[0]}
        return "context_status", {}

    def observe(self, value: Any) -> None:
        return None


class TaskAgent:
    """@kazuph/mcp-taskmanager: plan a request, take its tasks one by one (next, done, approved), then
    approve the request; inspect, list, add, update and delete tasks on the way."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.request: str | None = None
        self.tasks: list[str] = []  # ids of tasks not yet deleted
        self.current: str | None = None
        self.done: list[str] = []  # done, not yet approved
        self.last: str = ""

    def _request_id(self) -> str:
        if self.request is None or self.rng.random() < MISTAKE:
            return "req-99"
        return self.request

    def _task_id(self, pool: list[str]) -> str:
        if not pool or self.rng.random() < MISTAKE:
            return "task-42"
        return self.rng.choice(pool)

    def next_call(self) -> tuple[str, dict[str, Any]]:
        self.last = self._choose()
        return self.last, self._arguments(self.last)

    def _choose(self) -> str:
        if self.request is None:
            return "request_planning"
        if self.done:
            return "approve_task_completion"
        if self.current is not None:
            return "mark_task_done"
        roll = self.rng.random()
        if roll < 0.45:
            return "get_next_task"
        if roll < 0.55:
            return "open_task_details"
        if roll < 0.63:
            return "list_requests"
        if roll < 0.71:
            return "add_tasks_to_request"
        if roll < 0.79:
            return "update_task"
        if roll < 0.85:
            return "delete_task"
        if roll < 0.93:
            return "approve_request_completion"
        return "request_planning"

    def _arguments(self, tool: str) -> dict[str, Any]:
        if tool == "request_planning":
            picked = self.rng.sample(_TASKS, self.rng.randint(1, 3))
            arguments: dict[str, Any] = {
                "originalRequest": self.rng.choice(_REQUESTS),
                "tasks": [{"title": title, "description": description} for title, description in picked],
            }
            if self.rng.random() < 0.3:
                arguments["splitDetails"] = "Split into small steps"
            return arguments
        if tool in ("get_next_task", "list_requests", "approve_request_completion"):
            return {} if tool == "list_requests" else {"requestId": self._request_id()}
        if tool == "mark_task_done":
            arguments = {"requestId": self._request_id(), "taskId": self._task_id([self.current or ""])}
            if self.rng.random() < 0.5:
                arguments["completedDetails"] = "Done as asked"
            return arguments
        if tool == "approve_task_completion":
            return {"requestId": self._request_id(), "taskId": self._task_id(self.done)}
        if tool == "open_task_details":
            return {"taskId": self._task_id(self.tasks)}
        if tool == "add_tasks_to_request":
            title, description = self.rng.choice(_TASKS)
            return {"requestId": self._request_id(), "tasks": [{"title": title, "description": description}]}
        if tool == "update_task":
            title, description = self.rng.choice(_TASKS)
            arguments = {"requestId": self._request_id(), "taskId": self._task_id(self.tasks)}
            if self.rng.random() < 0.7:
                arguments["title"] = title + " again"
            if self.rng.random() < 0.5:
                arguments["description"] = description
            return arguments
        return {"requestId": self._request_id(), "taskId": self._task_id(self.tasks)}  # delete_task

    def observe(self, value: Any) -> None:
        if not isinstance(value, dict) or value.get("status") == "error":
            return
        if self.last in ("request_planning", "add_tasks_to_request") and value.get("status") == "planned":
            self.request = str(value.get("requestId"))
            self.tasks = [str(task.get("id")) for task in value.get("tasks", []) if isinstance(task, dict)]
            self.current, self.done = None, []
        elif self.last == "add_tasks_to_request":
            self.tasks += [str(task.get("id")) for task in value.get("newTasks", []) if isinstance(task, dict)]
        elif self.last == "get_next_task" and isinstance(value.get("task"), dict):
            self.current = str(value["task"].get("id"))
        elif self.last == "mark_task_done" and value.get("status") == "task_marked_done":
            self.done.append(self.current or "")
            self.current = None
        elif self.last == "approve_task_completion" and value.get("status") == "task_approved":
            self.done = []
        elif self.last == "delete_task" and value.get("status") == "task_deleted":
            gone = re.match(r"Task (\S+) has been deleted", str(value.get("message", "")))
            self.tasks = [task for task in self.tasks if gone is None or task != gone.group(1)]
        if self.last == "mark_task_done" and self.current is not None and value.get("status") != "task_marked_done":
            self.current = None
        if self.last == "approve_task_completion" and value.get("status") != "task_approved":
            self.done = []


class CalculatorAgent:
    """@wrtnlabs/calculator-mcp: arithmetic chained as an agent computes an expression step by step, the
    result of one call an operand of the next."""

    TOOLS = ("add", "sub", "mul", "div", "mod", "sqrt")

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.result: float | None = None

    def _operand(self) -> float:
        if self.rng.random() < 0.5:
            return self.rng.randint(-20, 100)
        return round(self.rng.uniform(0, 100), self.rng.choice((1, 2)))

    def next_call(self) -> tuple[str, dict[str, Any]]:
        tool = self.rng.choice(self.TOOLS)
        a = self.result if self.result is not None and self.rng.random() < 0.6 else self._operand()
        if tool == "sqrt":
            arguments: dict[str, Any] = {"a": abs(a) if self.rng.random() >= MISTAKE else a}
        else:
            b = self._operand()
            if tool in ("div", "mod") and self.rng.random() < MISTAKE:
                b = 0
            arguments = {"a": a, "b": b}
        if self.rng.random() < MISTAKE / 3:
            arguments.pop("a")  # an argument left out
        return tool, arguments

    def observe(self, value: Any) -> None:
        found = _NUMBER.findall(value) if isinstance(value, str) else []
        number = float(found[-1]) if found else None
        self.result = number if number is not None and abs(number) < 1e12 else None
        if self.result is not None and self.result.is_integer():
            self.result = int(self.result)


# --- the second held-out set (BENCHMARKS.md, "Twins held out, second set"), from each package's docs ---

_PROJECTS = ("auth-service", "billing-api", "search-ui", "deploy-tools", "docs-site", "mobile-app")
_BANK_FILES = ("projectbrief.md", "productContext.md", "activeContext.md", "systemPatterns.md", "techContext.md")
_HEADINGS = ("Goals", "Current focus", "Decisions", "Next steps", "Open questions")
_TAGS = ("work", "home", "docs", "urgent", "review")
_DUE_DATES = ("2027-01-15", "2027-02-01", "2027-03-10", "2027-06-30")
_TODO_PRIORITIES = ("low", "medium", "high")
_PROGRESS = ("started", "half done", "waiting on review", "almost there")
_OPERANDS = (2, 3, 4, 5, 7, 8, 9, 12, 16, 25, 36, 42, 100, 0.5, 1.5, 2.25, 3.75, 12.5)
# Expressions an agent asks a calculator for: arithmetic, powers, the math functions the tool evaluates.
_SHAPES = (
    "{a} + {b}",
    "{a} - {b}",
    "{a} * {b}",
    "{a} / {b}",
    "{a} + {b} * {c}",
    "({a} + {b}) * {c}",
    "({a} - {b}) / {c}",
    "{a} ^ 2",
    "{a} ** 3",
    "{a} // {b}",
    "{a} % {b}",
    "-{a} + {b}",
    "sqrt({a})",
    "sqrt({a} * {b})",
    "{a} * pi",
    "log({a})",
    "log10({a})",
    "sin({a})",
    "factorial({k})",
    "pow({a}, 2)",
    "floor({a} / {b})",
)
# The same agent's mistakes: a zero divisor, a dangling operator, a function the tool does not know, a
# letter for times, a root of a negative number.
_MISTAKES = ("{a} / 0", "{a} +", "round({a} / {b}, 2)", "abs(-{a})", "{a} x {b}", "sqrt(-{a})", "{a} % 0")
# A step that goes on from the previous answer.
_CHAINED = ("{r} + {b}", "{r} * {b}", "{r} / {b}", "sqrt({r})", "{r} - {b}")


class MemoryBankAgent:
    """@allpepper/memory-bank-mcp: a memory bank of projects of markdown files (Cline's memory bank);
    write files, read them back, update them, list a project's files and the projects. Mistakes: a file
    never written, a project never made, a name the server refuses, a write without its content."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.files: dict[tuple[str, str], str] = {}
        self.started = False

    def _content(self) -> str:
        return f"# {self.rng.choice(_HEADINGS)}\n\n- {self.rng.choice(_WORDS)}"

    def _project(self) -> str:
        known = sorted({project for project, _ in self.files})
        return self.rng.choice(known) if known and self.rng.random() < 0.7 else self.rng.choice(_PROJECTS)

    def _known_file(self) -> tuple[str, str]:
        if self.files and self.rng.random() >= MISTAKE:
            return self.rng.choice(sorted(self.files))
        if self.files and self.rng.random() < 0.5:
            return self.rng.choice(sorted(self.files))[0], "progress.md"  # a file never written
        return self.rng.choice(_PROJECTS) + "-old", self.rng.choice(_BANK_FILES)  # a project never made

    def next_call(self) -> tuple[str, dict[str, Any]]:
        first, self.started = not self.started, True
        if first and self.rng.random() < 0.4:
            return "list_projects", {}  # an agent looks first (an empty bank: the root is not made yet)
        roll = self.rng.random()
        if not self.files or roll < 0.28:
            project, name = self._project(), self.rng.choice(_BANK_FILES)
            content = self._content()
            self.files.setdefault((project, name), content)  # a second write keeps the first content
            return "memory_bank_write", {"projectName": project, "fileName": name, "content": content}
        if roll < 0.5:
            project, name = self._known_file()
            return "memory_bank_read", {"projectName": project, "fileName": name}
        if roll < 0.66:
            project, name = self._known_file()
            content = self._content()
            if (project, name) in self.files:
                self.files[(project, name)] = content
            return "memory_bank_update", {"projectName": project, "fileName": name, "content": content}
        if roll < 0.76:
            project = self._known_file()[0] if self.rng.random() >= MISTAKE else self.rng.choice(_PROJECTS) + "-old"
            return "list_project_files", {"projectName": project}
        if roll < 0.86:
            return "list_projects", {}
        mistake = self.rng.randrange(3)
        project, name = self.rng.choice(sorted(self.files))
        if mistake == 0:
            return "memory_bank_read", {"projectName": project, "fileName": name.replace("Context", " context")}
        if mistake == 1:
            return "memory_bank_read", {"projectName": project, "fileName": "../" + name}
        return "memory_bank_write", {"projectName": project, "fileName": self.rng.choice(_BANK_FILES)}

    def observe(self, value: Any) -> None:
        return None


class TodoAgent:
    """mcp-todo: tasks with a name, description, tags, due date, priority and status; create them, read
    one back by the id the create answered, update its status (complete, archive), priority or progress,
    delete it, list with filters and orders. Mistakes: an id never made or already deleted, a priority
    the schema does not allow, a task without its name."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.ids: list[int] = []
        self.deleted: list[int] = []
        self.last: tuple[str, dict[str, Any]] = ("", {})

    def _id(self) -> int:
        if self.ids and self.rng.random() >= MISTAKE:
            return self.rng.choice(self.ids)
        return self.rng.choice(self.deleted) if self.deleted and self.rng.random() < 0.5 else 99

    def next_call(self) -> tuple[str, dict[str, Any]]:
        self.last = self._choose()
        return self.last

    def _choose(self) -> tuple[str, dict[str, Any]]:
        roll = self.rng.random()
        if not self.ids or roll < 0.28:
            return "task_create", self._created()
        if roll < 0.42:
            return "task_get", {"id": self._id()}
        if roll < 0.62:
            return "task_update", self._update()
        if roll < 0.72:
            return "task_delete", {"id": self._id()}
        return "task_list", self._filters()

    def _created(self) -> dict[str, Any]:
        name, description = self.rng.choice(_TASKS)
        arguments: dict[str, Any] = {"name": name}
        if self.rng.random() < 0.5:
            arguments["desc"] = description
        if self.rng.random() < 0.4:
            arguments["tags"] = self.rng.sample(_TAGS, self.rng.randint(1, 2))
        if self.rng.random() < 0.5:
            arguments["priority"] = self.rng.choice(_TODO_PRIORITIES)
        if self.rng.random() < 0.4:
            arguments["due_date"] = self.rng.choice(_DUE_DATES)
        mistake = self.rng.random()
        if mistake < MISTAKE / 2:
            arguments["priority"] = "urgent"  # not one of the schema's priorities
        elif mistake < MISTAKE * 0.8:
            arguments.pop("name")
            arguments.setdefault("desc", description)
        return arguments

    def _update(self) -> dict[str, Any]:
        arguments: dict[str, Any] = {"id": self._id()}
        change = self.rng.random()
        if change < 0.45:
            arguments["status"] = "completed"
        elif change < 0.55:
            arguments["status"] = self.rng.choice(("archived", "active"))
        elif change < 0.7:
            arguments["priority"] = self.rng.choice(_TODO_PRIORITIES)
        elif change < 0.85:
            arguments["progress"] = self.rng.choice(_PROGRESS)
        else:
            arguments["name"] = self.rng.choice(_TASKS)[0] + " (revised)"
        if self.rng.random() < 0.2:
            arguments["tags"] = [self.rng.choice(_TAGS)]
        return arguments

    def _filters(self) -> dict[str, Any]:
        arguments: dict[str, Any] = {}
        kind = self.rng.random()
        if kind < 0.25:
            arguments["status"] = self.rng.choice(("all", "completed", "archived"))
        elif kind < 0.4:
            arguments["priority"] = self.rng.choice(_TODO_PRIORITIES)
        elif kind < 0.5:
            arguments["tags"] = [self.rng.choice(_TAGS)]
        elif kind < 0.6:
            arguments["keyword"] = self.rng.choice(_TASKS)[0].split()[0].lower()
        if self.rng.random() < 0.3:
            arguments["orderby"] = self.rng.choice(("id", "priority", "created-at"))
            if self.rng.random() < 0.5:
                arguments["order"] = "desc"
        if self.rng.random() < 0.15:
            arguments["limit"] = self.rng.choice((2, 3, 5))
        return arguments

    def observe(self, value: Any) -> None:
        tool, arguments = self.last
        text = value if isinstance(value, str) else ""
        made = re.fullmatch(r"Task created successfully with ID: (\d+)", text)
        if tool == "task_create" and made:
            self.ids.append(int(made.group(1)))
        elif tool == "task_delete" and text == "Task deleted successfully":
            self.ids = [task for task in self.ids if task != arguments.get("id")]
            self.deleted.append(int(arguments["id"]))


class ExpressionAgent:
    """mcp-server-calculator: one tool, `calculate(expression)`; expressions of varied shapes on numbers
    from a small set, sometimes the previous answer taken a step further, about 15% of them mistakes."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.result: str | None = None

    def next_call(self) -> tuple[str, dict[str, Any]]:
        numbers = {name: self.rng.choice(_OPERANDS) for name in ("a", "b", "c")}
        numbers["k"] = self.rng.randint(3, 10)
        roll = self.rng.random()
        if roll < MISTAKE:
            shape = self.rng.choice(_MISTAKES)
        elif self.result is not None and roll < 0.45:
            shape = self.rng.choice(_CHAINED)
        else:
            shape = self.rng.choice(_SHAPES)
        return "calculate", {"expression": shape.format(r=self.result, **numbers)}

    def observe(self, value: Any) -> None:
        text = value.get("result") if isinstance(value, dict) else value
        try:
            number = float(str(text))
        except ValueError:
            number = math.nan
        self.result = str(text) if math.isfinite(number) and 1e-6 < abs(number) < 1e9 else None


class Scripted:
    """A session written out beforehand (the dev fixtures' own scripted sessions: tests/fixture_servers)."""

    def __init__(self, calls: list[tuple[str, dict[str, Any]]]) -> None:
        self.calls = list(calls)

    def next_call(self) -> tuple[str, dict[str, Any]]:
        return self.calls.pop(0) if self.calls else ("list_keys", {})

    def observe(self, value: Any) -> None:
        return None


def fixture_agent(fixture: str, seed: int, number: int, calls: int) -> Scripted:
    """Session `number` of seed `seed` of a dev fixture's scripted agent: the train pool of names below
    test seeds, else the check pool (names the recorded sessions never showed)."""
    from tests.fixture_servers.sessions import kv_sessions, todo_sessions

    make = kv_sessions if fixture == "kv" else todo_sessions
    pool = "train" if seed < 1000 else "check"
    return Scripted(make(pool, seed, number + 1, calls)[number])


# Each server's scripted agent, by its name in benchmarks/heldout.py: the first set (dev), then the second.
GENERATORS: dict[str, Callable[[random.Random], SessionAgent]] = {
    "keeper": KeyValueAgent,
    "taskmanager": TaskAgent,
    "calculator": CalculatorAgent,
    "bank": MemoryBankAgent,
    "todo": TodoAgent,
    "calc": ExpressionAgent,
}
