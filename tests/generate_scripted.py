"""A scripted model for `sim-mcp generate`: it answers each question of the pipeline (the design, the world,
a tool's program, a task, the instructions, more descriptions) from a script, and simulates calls as the
environment's own programs do (or wrongly, to fail the agreement gate). Each script entry is a list of
replies given in turn, the last one again once the others are used up, so a first reply can be a broken
one that the pipeline must quote back and get repaired.

It serves the library tests as a `Backend`, and the command-line test as the fake provider's responder
(`reply_for(body)`: the OpenAI wire body in, the scripted JSON out), so the whole pipeline runs with no
network and no model."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from sim_mcp.engine.backends import Backend
from sim_mcp.engine.contract import JsonReply, JsonRequest, Outcome, SimulationRequest
from sim_mcp.rules import CallContext, Limits, compile_program, run_tool
from sim_mcp.state.session import TokenUsage
from sim_mcp.testing.fake_provider import Reply

BOOK = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "title": {"type": "string"},
        "author": {"type": "string"},
        "status": {"type": "string", "enum": ["available", "borrowed"]},
        "borrower": {"type": ["string", "null"]},
    },
    "required": ["id", "status"],
}

DESIGN: dict[str, Any] = {
    "name": "library-loans",
    "description": "A small lending library: members borrow and return books.",
    "now": "2025-03-14T10:00:00Z",
    "instructions": (
        'Books live in `books`, keyed by id "B-<number>"; each has id, title, author, status ("available" or '
        '"borrowed") and borrower (a member id, or null). Members live in `members`, keyed by id "M-<number>". '
        'get_book returns the stored book; an unknown book fails with "book <id> not found". list_books returns '
        '{"books": [...], "count": n}, the books in id order, only those of the given status when one is given. '
        'borrow_book sets the status to "borrowed" and the borrower to the member; it fails with "book <id> not '
        'found", "member <id> not found", or "book <id> is not available". return_book sets the status to '
        '"available" and the borrower to null; it fails with "book <id> is not borrowed". Failed calls change '
        "nothing."
    ),
    "tools": [
        {
            "name": "get_book",
            "description": "Read one book.",
            "input_schema": {
                "type": "object",
                "properties": {"book_id": {"type": "string"}},
                "required": ["book_id"],
            },
            "output_schema": BOOK,
        },
        {
            "name": "list_books",
            "description": "List the books, optionally by status.",
            "input_schema": {
                "type": "object",
                "properties": {"status": {"type": "string", "enum": ["available", "borrowed"]}},
            },
            "output_schema": {
                "type": "object",
                "properties": {"books": {"type": "array", "items": BOOK}, "count": {"type": "integer"}},
                "required": ["books", "count"],
            },
        },
        {
            "name": "borrow_book",
            "description": "Lend a book to a member.",
            "input_schema": {
                "type": "object",
                "properties": {"book_id": {"type": "string"}, "member_id": {"type": "string"}},
                "required": ["book_id", "member_id"],
            },
            "output_schema": BOOK,
        },
        {
            "name": "return_book",
            "description": "Take a borrowed book back.",
            "input_schema": {
                "type": "object",
                "properties": {"book_id": {"type": "string"}},
                "required": ["book_id"],
            },
            "output_schema": BOOK,
        },
    ],
}

# A first design that the spec gate refuses: a tool without an output schema.
DESIGN_WITHOUT_OUTPUT = copy.deepcopy(DESIGN)
del DESIGN_WITHOUT_OUTPUT["tools"][0]["output_schema"]


def _book(number: int, title: str, author: str, borrower: str | None = None) -> dict[str, Any]:
    status = "borrowed" if borrower else "available"
    return {"id": f"B-{number}", "title": title, "author": author, "status": status, "borrower": borrower}


WORLD: dict[str, Any] = {
    "initial_state": {
        "books": {
            "B-1": _book(1, "The Left Hand of Darkness", "Ursula K. Le Guin"),
            "B-2": _book(2, "Middlemarch", "George Eliot"),
            "B-3": _book(3, "Beloved", "Toni Morrison", "M-2"),
            "B-4": _book(4, "The Master and Margarita", "Mikhail Bulgakov"),
        },
        "members": {
            "M-1": {"id": "M-1", "name": "Ada Obi"},
            "M-2": {"id": "M-2", "name": "Bo Lindqvist"},
            "M-3": {"id": "M-3", "name": "Chen Wei"},
        },
    },
    "examples": [
        {
            "tool": "get_book",
            "arguments": {"book_id": "B-1"},
            "result": _book(1, "The Left Hand of Darkness", "Ursula K. Le Guin"),
        },
        {
            "tool": "list_books",
            "arguments": {"status": "borrowed"},
            "result": {"books": [_book(3, "Beloved", "Toni Morrison", "M-2")], "count": 1},
        },
        {
            "tool": "borrow_book",
            "arguments": {"book_id": "B-1", "member_id": "M-1"},
            "result": {"id": "B-1", "status": "borrowed", "borrower": "M-1"},
        },
        {
            "tool": "return_book",
            "arguments": {"book_id": "B-3"},
            "result": {"id": "B-3", "status": "available", "borrower": None},
        },
    ],
}

PROGRAMS = {
    "get_book": """\
def get_book(state, args):
    book = state["books"].get(args["book_id"])
    if book == None:
        return error("book %s not found" % args["book_id"])
    return book
""",
    "list_books": """\
def list_books(state, args):
    books = [book for book in sorted_by(state["books"], "id") if args.get("status") in (None, book["status"])]
    return {"books": books, "count": len(books)}
""",
    "borrow_book": """\
def borrow_book(state, args):
    book = state["books"].get(args["book_id"])
    if book == None:
        return error("book %s not found" % args["book_id"])
    if state["members"].get(args["member_id"]) == None:
        return error("member %s not found" % args["member_id"])
    if book["status"] != "available":
        return error("book %s is not available" % book["id"])
    book["status"] = "borrowed"
    book["borrower"] = args["member_id"]
    return book
""",
    "return_book": """\
def return_book(state, args):
    book = state["books"].get(args["book_id"])
    if book == None:
        return error("book %s not found" % args["book_id"])
    if book["status"] != "borrowed":
        return error("book %s is not borrowed" % book["id"])
    book["status"] = "available"
    book["borrower"] = None
    return book
""",
}

# Fails its example (the status is never changed): compile quotes the failure back.
BORROW_FORGETS_STATUS = PROGRAMS["borrow_book"].replace('    book["status"] = "borrowed"\n', "")
# Passes its example and probes, but shows every book as available, whatever the state holds: the
# consistency gate catches it in a generated session.
LIST_SHOWS_ALL_AVAILABLE = """\
def list_books(state, args):
    books = [dict(book, status = "available") for book in sorted_by(state["books"], "id")]
    books = [book for book in books if args.get("status") in (None, book["status"])]
    if args.get("status") == "borrowed":
        books = [book for book in sorted_by(state["books"], "id") if book["status"] == "borrowed"]
    return {"books": books, "count": len(books)}
"""
RETURN_ALWAYS_FAILS = 'def return_book(state, args):\n    return error("no")\n'


def _user(goal: str, messages: list[str]) -> dict[str, Any]:
    return {"persona": "A librarian, brief.", "goal": goal, "known": [], "messages": messages}


TASK_BORROW = {
    "name": "lend-b1",
    "description": "Lend book B-1 to member M-1.",
    "user": _user("B-1 lent to M-1.", ["Please lend B-1 to M-1."]),
    "checks": [
        {"path": "/books/B-1/status", "equals": "borrowed"},
        {"path": "/books/B-1/borrower", "equals": "M-1"},
    ],
    "solution": [{"tool": "borrow_book", "arguments": {"book_id": "B-1", "member_id": "M-1"}}],
}
# Its solution fails in the replay (B-3 is out on loan): the refusal is quoted back.
TASK_BORROW_TAKEN = {
    **TASK_BORROW,
    "name": "lend-b3",
    "checks": [{"path": "/books/B-3/borrower", "equals": "M-1"}],
    "solution": [{"tool": "borrow_book", "arguments": {"book_id": "B-3", "member_id": "M-1"}}],
}
TASK_PASS_ON = {
    "name": "pass-b3-on",
    "description": "Take B-3 back from M-2 and lend it to M-3.",
    "user": _user("B-3 lent to M-3.", ["B-3 is back; M-3 wants it.", "It is B-3, for M-3."]),
    "checks": [
        {"path": "/books/B-3/borrower", "equals": "M-3"},
        {"path": "/books/B-3/status", "equals": "borrowed"},
    ],
    "solution": [
        {"tool": "return_book", "arguments": {"book_id": "B-3"}},
        {"tool": "borrow_book", "arguments": {"book_id": "B-3", "member_id": "M-3"}},
    ],
}

Simulation = Literal["right", "wrong", "right-once-rewritten"]
REWRITTEN = DESIGN["instructions"] + " (Rewritten: every rule above is what the programs do.)"


@dataclass
class Script:
    designs: list[dict[str, Any]] = field(default_factory=lambda: [DESIGN])
    worlds: list[dict[str, Any]] = field(default_factory=lambda: [WORLD])
    programs: dict[str, list[str]] = field(default_factory=lambda: {name: [text] for name, text in PROGRAMS.items()})
    tasks: dict[int, list[dict[str, Any]]] = field(default_factory=lambda: {1: [TASK_BORROW], 2: [TASK_PASS_ON]})
    instructions: list[str] = field(default_factory=lambda: [REWRITTEN])
    descriptions: list[list[str]] = field(default_factory=list)
    simulation: Simulation = "right"


class ScriptedModel(Backend):
    """Answers the pipeline's questions from a `Script`; `asked` lists each question's kind, in order."""

    name = "scripted"
    model = "scripted-model"

    def __init__(self, script: Script) -> None:
        self.script = script
        self.asked: list[str] = []
        # Each question's kind and its user prompt, in order (what was quoted back is in there).
        self.prompts: list[tuple[str, str]] = []
        self._taken: dict[str, int] = {}

    def can_complete(self) -> bool:
        return True

    def _next(self, key: str, replies: list[Any]) -> Any:
        """The next reply of a script entry: each in turn, then the last again."""
        number = self._taken.get(key, 0)
        self._taken[key] = number + 1
        return copy.deepcopy(replies[min(number, len(replies) - 1)])

    def answer(self, kind: str, system: str, user: str) -> dict[str, Any]:
        """The scripted reply to one question (its schema's name, its prompt)."""
        self.asked.append(kind)
        self.prompts.append((kind, user))
        script = self.script
        match kind:
            case "environment":
                design: dict[str, Any] = self._next("design", script.designs)
                return design
            case "world":
                world: dict[str, Any] = self._next("world", script.worlds)
                return world
            case "program":
                tool = re.search(r"Write def (\w+)\(state, args\)", user)
                assert tool is not None, user
                return {"program": self._next(f"program:{tool.group(1)}", script.programs[tool.group(1)])}
            case "task":
                level = re.search(r"## Difficulty (\d+)", user)
                assert level is not None, user
                task: dict[str, Any] = self._next(f"task:{level.group(1)}", script.tasks[int(level.group(1))])
                return task
            case "instructions":
                return {"instructions": self._next("instructions", script.instructions)}
            case "descriptions":
                return {"descriptions": self._next("descriptions", script.descriptions)}
        raise AssertionError(f"no script for {kind!r}")

    async def complete_json(self, request: JsonRequest) -> JsonReply:
        return JsonReply(self.answer(request.name, request.system, request.user), TokenUsage(input=100, output=50))

    async def simulate(self, request: SimulationRequest) -> Outcome:
        self.asked.append("simulate")
        environment = request.environment
        right = self.script.simulation == "right" or (
            self.script.simulation == "right-once-rewritten" and "Rewritten" in environment.instructions
        )
        if not right or environment.rules is None:
            return Outcome(result="the simulator cannot tell", is_error=True, usage=TokenUsage(input=80, output=10))
        program = compile_program(environment.rules, "scripted", [tool.name for tool in environment.tools])
        context = CallContext.of(program.clock, seed=request.seed, sequence=request.sequence, tool=request.tool.name)
        ran = run_tool(program, request.tool.name, request.state, request.arguments, context, Limits())
        return Outcome(
            result=ran.result, is_error=ran.is_error, state_patch=ran.state_patch, usage=TokenUsage(input=80, output=10)
        )


def responder(model: ScriptedModel) -> Callable[[Any], Reply]:
    """The fake provider's responder: an OpenAI chat body in, the scripted JSON out (as the message content)."""

    def reply_for(body: Any) -> Reply:
        name = ((body.get("response_format") or {}).get("json_schema") or {}).get("name", "")
        messages = body.get("messages") or []
        system = next((m["content"] for m in messages if m.get("role") == "system"), "")
        user = next((m["content"] for m in reversed(messages) if m.get("role") == "user"), "")
        return Reply(tool_input=model.answer(name, _text(system), _text(user)))

    return reply_for


def _text(content: Any) -> str:
    """A message's content as text (a list of parts as JSON, which the scripted model only searches)."""
    return content if isinstance(content, str) else json.dumps(content)
