"""Sessions an agent would run against three real MCP servers held out from twin inference (BENCHMARKS.md,
"Twins held out"): scripted agents that use each server as intended (keys that were set, ids read from
earlier answers, values chained from one call to the next), with about 15% mistakes (a key never set, an
id that does not exist, a step out of order, an argument left out).

Each generator has the interface of `session_gen.CallGenerator`: `next_call()` gives the next (tool,
arguments), `observe(value)` feeds it the reference's answer (`answer_value`: JSON text read as JSON).
The names an agent chooses come from small vocabularies, the same for every seed, so that recorded
sessions and checked sessions share names unless the check renames them (`twin-check --rename`).
"""

from __future__ import annotations

import random
import re
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


GENERATORS: dict[str, type[KeyValueAgent] | type[TaskAgent] | type[CalculatorAgent]] = {
    "keeper": KeyValueAgent,
    "taskmanager": TaskAgent,
    "calculator": CalculatorAgent,
}
