"""Do agents score the same on a twin as on the real server? Scripted agents of five skill levels (perfect,
sloppy, partial, wrong, idle) run a few tasks per server, each episode once against the real server and
once against its twin (a session of its own on each, the same setup calls first). The reward is read back
through that server's own tools at the end of the episode (on the real server from the real server, on
the twin from the twin), as an evaluation harness that uses a twin would read it. Reported: each agent's
mean score on both sides, the share of episodes whose reward agrees, and Kendall's tau-b between the
agents' mean scores on the two sides (1: ranked alike; with every score tied on one side, 0).

Tasks per server (the fifteenth set, BENCHMARKS.md "Fifteenth set", the default):
- sidecar (durable state for agents: values under keys, workflow runs, leases): store a value under a key (read back
  from that key); claim a workflow run, its id found by discovery through its tag, and checkpoint its two steps (the
  run resumed shows the agent and both steps' outputs); hand a lease over to another holder (the old holder's lease
  gone, the new one's held, each read by a renewal).
- devnotes (developers' notes on features, with tags, a status and a priority): add a note for a feature with its
  tags and priority (exported as JSON with them); complete one note of three, its id read from the list (the other
  two still in progress); delete one note of three (the other two still exported).
- roman (numbers as Roman numerals and back, no state): the years between two years written as numerals; the letters
  of a number's numeral; a numeral doubled, written as a numeral by the server and read back, each the agent's figure
  against the right calls made through that server's own tools.
The fourteenth set, dev now ("Fourteenth set"):
- board (a shared board of nodes under an id): add a node under a parent with its status (read back as JSON with
  that one parent and that status); remove one node of three (the other two still read back); hand a node over to
  a new owner and tell them (its data merged with the new owner, its other data kept, the message from the agent
  that sent it on the node).
- opennote (notes under a made-up id, with a category and tags): create a note with its category and tags (listed
  in that category with its content and tags); delete one note of three, its id read from the list (the other two
  still listed); replace a note's content, its id found by a search for its title (one note of that title, with the
  new content).
- gnuunits (unit conversion over the GNU units database, no state): a recipe's cups and tablespoons of milk in
  millilitres together; an oven's Celsius setting in Fahrenheit; the energy an appliance of some watts uses in some
  hours, in kilowatt-hours, each the agent's figure against the right calls made through that server's own tools.
The thirteenth set, dev now ("Thirteenth set"):
- docbank (Markdown documents with tags under a project): write a document with its tags (found by those tags,
  its content read back); delete one document of three (the other two still read back); append a line to a
  document (its content read back with the line after a blank one).
- dsa (practice problems from a bundled list): log an attempt at a named problem with its outcome, confidence
  and minutes (its history shows that one attempt); work the next new problem of a category as the server
  suggests it (the category's first problem, as the list orders it, shows the outcome logged); the number of
  problems of a category at a difficulty, the agent's figure against the right search made through that
  server's own tools.
- subnet (IPv4 subnet arithmetic, no state): the broadcast address of the smallest subnet at a base address
  that fits a number of hosts; the nth usable address of the network an address and a dotted mask give; the
  usable addresses after an address in its network, each the agent's figure (an address read as the integer
  it stands for, or a count) against the right calls made through that server's own tools.
The twelfth set, dev now ("Twelfth set"):
- aimem (memories with tags under integer ids): save a memory under its tag (its content listed under that tag);
  delete one memory of three (the other two still read back by id); move a memory to another tag (listed under
  the new tag, no longer under the old one).
- todokit (to-dos with a lifecycle under integer ids): complete one to-do of three (found done, the other two
  open); add a to-do with its priority, due day and tag (found under that tag with both); remove one to-do of
  three (the other two still found).
- measures (temperature, volume and weight conversions, no state): a recipe's cups of milk and tablespoons of
  oil in millilitres together; an oven's Fahrenheit setting in Celsius; the flour left in a bag of pounds once
  some grams are used, in kilograms, each the agent's figure against the right calls made through that
  server's own tools.
The eleventh set, dev now ("Eleventh set"):
- notepad (notes under a name): add a note under its name (its content listed under that name); delete one note
  of three (the other two still listed); rename a note (its content listed under the new name, the old one gone).
- bugs (fixed bugs with a lifecycle, by record id): record a bug in its area (found by its symptom in that area
  with its root cause and project); resolve one bug of three for another project (hidden from that project's
  patterns, the other two shown); delete one bug of three (the other two still shown).
- color (colours converted and compared, no state): the complement of an rgb colour (converted to hex first);
  the WCAG contrast of an hsl text colour on a page colour; the middle colour of a five-step gradient, each the
  agent's figure (a hex colour read as a number, or a ratio) against the right calls made through that
  server's own tools.
The tenth set, dev now ("Tenth set"):
- cachekv (JSON values under keys with a time to live, time series): cache a value under a key (read back from
  that key); invalidate one key of three (the other two still read back); store a time series of three
  monthly observations for its range (the same observations read back for that range).
- glossary (terms with a lifecycle, by lemma): add a term with its tag and definition (both looked up); deprecate a
  term in favour of another (it reads deprecated and names that successor, the other two left live); delete one
  term of three (the other two still listed).
- mathx (expressions, statistics, matrices, named calculation sessions): store a session's area from its width
  and height (the session's variable read back); the determinant of a 3x3 matrix; the mean of a list of
  numbers, each of the last two the agent's figure against the right call made through that server's own tools.
The ninth set, dev now ("Ninth set"):
- lmem (structured memories read back by id): add a memory with its kind and tag (its kind, content and tag
  read back from the recent list); archive one memory of three (its status archived, the other two active);
  mark a memory as superseding another (the one link out of it, to that memory, of that relation).
- todolist (tasks created in batches, by id): complete a task (read back done); create a task with its priority,
  tag and due date (listed under that tag with both); delete one task of three (the other two still listed).
- exactcalc (exact decimal arithmetic, no state): the exact sum of three decimals; a decimal as a fraction; a
  quotient rounded to three places, each the agent's figure (read from the exact value, a fraction or a
  decimal) against the right call made through that server's own tools.
The eighth set, dev now ("Eighth set"):
- memdb (memories saved under a topic, read back by number): save a memory under a topic with its tag (its
  content read back from the one listed under that tag); forget one memory of three (the other two still
  listed); add a note to a memory (its content kept with the note after it, no new memory beside it).
- cadence (to-dos with a lifecycle, by id): complete a task (shown done); add a task with its priority and due
  date (listed pending with both); split a task into two subtasks (both shown under it).
- charidx (character-level string work by index, no state): the index of a character's n-th occurrence; the
  letters of a text; where the text between the n-th pair of brackets starts, each the agent's figure against
  the right call made through that server's own tools.
The seventh set, dev now ("Seventh set"):
- memex (work entries saved under a number): save an entry with its tag (listed under that tag); forget one
  entry of three (the other two still listed); add a warning to an entry (that entry shows it, no new entry
  beside it).
- memtask (tasks with a lifecycle beside memories): complete a task (read back completed); remember a fact in
  a scope with its kind (recalled from that scope); remove one task of three (the others still pending).
- acb (adjusted cost base and capital gains over the trades a call gives, no state): the ACB per share after
  two buys; the taxable capital gain of a tax year; the unrealized gain at a market price, each the agent's
  figure against the right call made through that server's own tools.
The sixth set, dev now ("Sixth set"):
- kb (entries under a namespace and a key, with an id): store an entry under a namespace and a key (its data
  read back); forget one entry of three (the other two still listed); edit an entry's data in place (one
  word replaced, the rest kept).
- tasker (tasks and subtasks with a lifecycle): take a task through in progress and review to done; split a
  task into two subtasks (both listed under it); cancel one task of three (the others left pending).
- bizdays (business-day arithmetic, no state): the next business day after a holiday; the business days
  between two dates; the last business day of a month, each the agent's date or count against the right
  call made through that server's own tools.
The fifth set, dev now ("Fifth set"):
- memo (memories under a title, with an id): store a memory under a title; forget one memory of three (the
  other two still listed); rename a memory (its content read back under the new title, the old one gone).
- runloq (an issue tracker): take an issue through in progress to done with its resolution; file an issue
  with its priority and assignee; start one issue of three (the others left to do).
- fincalc (ten finance calculators, no state): a loan's monthly payment; the income tax of a filing
  status; the break-even units, each the agent's figure against the right call made through that server's
  own tools.
The fourth set, dev now ("Fourth set"):
- mem (memories under a key in a namespace): store a memory in a namespace; forget one memory of three
  (the other two kept); move a memory to another namespace (the old one gone).
- todotxt (a todo.txt list): complete one todo of three (a completed todo is archived to done.txt at
  once, so done reads as gone from the list with done.txt made, where a delete makes none); add a todo
  with its priority, project and context; raise one todo's priority to A (the others not).
- units (a unit converter, no state): kilometres in miles; a temperature in Fahrenheit; two parcels'
  weight in pounds from one batch, each the agent's answer against the right call made through that
  server's own tools.
The third set, dev now ("Third set"):
- notes (agent-toolkit's markdown notes under a name and a project): write a note in a project registered
  first; append a line to a note; rename a note (the old name gone).
- ohno (tasks with a lifecycle): take a task through in progress and review to done; block a task with its
  reason; archive one task of three (the other two still listed).
- calcmcp (21 computing tools, no state): (a + b) * c with `math`; a kilometres in miles with `convert`;
  the days between two dates with `date`, each the agent's answer against the right call made through
  that server's own tools.
The second set, dev now ("Twins held out, second set"):
- bank (a memory bank of projects' files): write a note into a file; update a file (writing over it keeps
  the old content); copy a file into another project.
- todo (tasks with a status): complete a task; add a task with its priority, tags and due date; delete one
  task of three.
- calc (one tool, `calculate(expression)`): (a + b) * c; the hypotenuse of a and b; the mean of three
  numbers, each the agent's answer against the right expression computed by that server.
The first set, dev now ("Twins held out"):
- keeper (key-value): store a value under a key; clear the keys under a prefix (and keep the others);
  move a value to a new key.
- taskmanager (lifecycle): plan a request and take it to completion; rename a task; drop one task.
- calculator: (a + b) * c; the square root of a + b; the mean of three numbers. A calculator keeps no
  state, so its reward reads the agent's reported answer against the same expression computed through
  that server's own tools.

Names and numbers of each episode are drawn from (seed, episode), apart from the agent sessions the twins
were built from. The twin is a folder of `benchmarks.heldout --keep DIR` (DIR/NAME/twin):

    python -m benchmarks.twin_agents --twins /tmp/ho15-base --episodes 3
    python -m benchmarks.twin_agents --twins /tmp/ho14-base --servers board,opennote,gnuunits
    python -m benchmarks.twin_agents --twins /tmp/ho13-base --servers docbank,dsa,subnet
    python -m benchmarks.twin_agents --twins /tmp/ho12-base --servers aimem,todokit,measures
    python -m benchmarks.twin_agents --twins /tmp/ho11-base --servers notepad,bugs,color
    python -m benchmarks.twin_agents --twins /tmp/ho10-base --servers cachekv,glossary,mathx
    python -m benchmarks.twin_agents --twins /tmp/ho9-base --servers lmem,todolist,exactcalc
    python -m benchmarks.twin_agents --twins /tmp/ho8-base --servers memdb,cadence,charidx
    python -m benchmarks.twin_agents --twins /tmp/ho7-base --servers memex,memtask,acb
    python -m benchmarks.twin_agents --twins /tmp/ho6-base --servers kb,tasker,bizdays
    python -m benchmarks.twin_agents --twins /tmp/ho5-after --servers memo,runloq,fincalc
    python -m benchmarks.twin_agents --twins /tmp/ho4-base --servers mem,todotxt,units
    python -m benchmarks.twin_agents --twins /tmp/ho3-base --servers notes,ohno,calcmcp
    python -m benchmarks.twin_agents --twins /tmp/ho2-base --servers bank,todo,calc
    python -m benchmarks.twin_agents --twins /tmp/ho-base --servers keeper,taskmanager,calculator
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import random
import re
import shlex
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import Any

import anyio
from mcp.shared.exceptions import MCPError

from benchmarks.agent_sessions import roman_numeral
from benchmarks.heldout import HELD_OUT, SERVERS
from sim_mcp.authoring.twins.targets import Target, parse_target, serving
from sim_mcp.authoring.twins.upstream import Upstream, UpstreamFailure, without_folder
from sim_mcp.state.compare import answer_value

SKILLS = ("perfect", "sloppy", "partial", "wrong", "idle")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|NaN|-?Infinity")
_WORDS = ("amber", "birch", "cobalt", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "juniper", "kelp")


@dataclass
class Side:
    """One session on one server: call a tool, get its answer as compared (`answer_value`), error or not."""

    upstream: Upstream
    folder: Path
    calls: int = 0

    async def call(self, tool: str, arguments: dict[str, Any]) -> tuple[Any, bool]:
        self.calls += 1
        try:
            result = await self.upstream.call(tool, arguments)
        except (MCPError, UpstreamFailure) as e:
            return str(e), True
        value = answer_value(result.model_dump(mode="json", by_alias=True, exclude_none=True))
        return without_folder(value, self.folder), bool(result.is_error)


Agent = Callable[[Side, dict[str, Any], random.Random], Awaitable[Any]]
Reward = Callable[[Side, dict[str, Any], Any], Awaitable[float]]


@dataclass
class Task:
    name: str
    draw: Callable[[random.Random], dict[str, Any]]  # the episode's names and numbers
    setup: Callable[[Side, dict[str, Any]], Awaitable[None]]
    agents: dict[str, Agent]
    reward: Reward


async def _nothing(side: Side, given: dict[str, Any]) -> None:
    return None


def _name(rng: random.Random) -> str:
    return f"{rng.choice(_WORDS)}-{rng.choice(_WORDS)}-{rng.randint(10, 99)}"


# --- keeper: a key-value store ------------------------------------------------------------------


def _stored(value: Any) -> dict[str, str]:
    """key -> value of the items a context_get answer lists (nothing when it lists none)."""
    items = value.get("items") if isinstance(value, dict) else None
    return {str(item.get("key")): str(item.get("value")) for item in items or [] if isinstance(item, dict)}


async def _get(side: Side, key: str) -> str | None:
    value, error = await side.call("context_get", {"key": key})
    return None if error else _stored(value).get(key)


def _store_task() -> Task:
    def draw(rng: random.Random) -> dict[str, Any]:
        return {"key": _name(rng), "value": f"{rng.choice(_WORDS)} at {rng.randint(1, 12)} o'clock"}

    async def perfect(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        await side.call("context_save", {"key": g["key"], "value": g["value"]})

    async def sloppy(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        key = g["key"] + "s" if rng.random() < 0.5 else g["key"]
        await side.call("context_save", {"key": key, "value": g["value"]})

    async def partial(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        await side.call("context_get", {"key": g["key"]})  # looks, never saves

    async def wrong(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        await side.call("context_save", {"key": g["key"], "value": "TODO"})

    async def idle(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        return None

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        return float(await _get(side, g["key"]) == g["value"])

    agents: dict[str, Agent] = {"perfect": perfect, "sloppy": sloppy, "partial": partial, "wrong": wrong, "idle": idle}
    return Task("store a value", draw, _nothing, agents, reward)


def _clear_task() -> Task:
    def draw(rng: random.Random) -> dict[str, Any]:
        prefix = rng.choice(_WORDS)
        other = rng.choice([word for word in _WORDS if word != prefix])
        return {"keys": [f"{prefix}-{n}" for n in ("a", "b", "c")], "pattern": f"{prefix}-*", "other": f"{other}-a"}

    async def setup(side: Side, g: dict[str, Any]) -> None:
        items = [{"key": key, "value": f"value of {key}"} for key in [*g["keys"], g["other"]]]
        await side.call("context_batch_save", {"items": items})

    async def perfect(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        await side.call("context_batch_delete", {"keys": g["keys"]})

    async def sloppy(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        await side.call("context_batch_delete", {"keys": g["keys"][:2]})

    async def partial(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        await side.call("context_batch_delete", {"keys": g["keys"][:1]})

    async def wrong(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        await side.call("context_batch_delete", {"keys": [*g["keys"], g["other"]]})

    async def idle(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        return None

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        gone = [await _get(side, key) is None for key in g["keys"]]
        kept = await _get(side, g["other"]) is not None
        return (sum(gone) + kept) / (len(gone) + 1)

    agents: dict[str, Agent] = {"perfect": perfect, "sloppy": sloppy, "partial": partial, "wrong": wrong, "idle": idle}
    return Task("clear the keys under a prefix", draw, setup, agents, reward)


def _move_task() -> Task:
    def draw(rng: random.Random) -> dict[str, Any]:
        return {"from": _name(rng), "to": _name(rng), "value": f"{rng.choice(_WORDS)} {rng.randint(100, 999)}"}

    async def setup(side: Side, g: dict[str, Any]) -> None:
        await side.call("context_save", {"key": g["from"], "value": g["value"]})

    async def perfect(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        value = await _get(side, g["from"])  # the agent reads the value it is to move
        if value is not None:
            await side.call("context_save", {"key": g["to"], "value": value})
            await side.call("context_batch_delete", {"keys": [g["from"]]})

    async def sloppy(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        value = await _get(side, g["from"])
        if value is not None:
            await side.call("context_save", {"key": g["to"], "value": value})  # forgets the delete

    async def partial(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        await _get(side, g["from"])

    async def wrong(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        await side.call("context_batch_delete", {"keys": [g["from"]]})

    async def idle(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        return None

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        moved = await _get(side, g["to"]) == g["value"]
        gone = await _get(side, g["from"]) is None
        return (float(moved) + float(gone)) / 2

    agents: dict[str, Agent] = {"perfect": perfect, "sloppy": sloppy, "partial": partial, "wrong": wrong, "idle": idle}
    return Task("move a value to a new key", draw, setup, agents, reward)


# --- taskmanager: requests of tasks with a lifecycle --------------------------------------------


def _plan(g: dict[str, Any]) -> dict[str, Any]:
    return {
        "originalRequest": g["request"],
        "tasks": [{"title": title, "description": f"Do {title.lower()}"} for title in g["titles"]],
    }


async def _planned(side: Side, g: dict[str, Any]) -> None:
    value, _ = await side.call("request_planning", _plan(g))
    if isinstance(value, dict):
        g[f"request@{id(side)}"] = value.get("requestId")
        g[f"tasks@{id(side)}"] = [t.get("id") for t in value.get("tasks", []) if isinstance(t, dict)]


def _ids(side: Side, g: dict[str, Any]) -> tuple[str, list[str]]:
    return str(g.get(f"request@{id(side)}")), [str(t) for t in g.get(f"tasks@{id(side)}", [])]


def _request_of(value: Any, request: str) -> dict[str, Any] | None:
    for entry in value.get("requests", []) if isinstance(value, dict) else []:
        if isinstance(entry, dict) and entry.get("originalRequest") == request:
            return entry
    return None


def _lifecycle_draw(rng: random.Random) -> dict[str, Any]:
    return {
        "request": f"Prepare the {_name(rng)} launch",
        "titles": [f"{word.capitalize()} step" for word in rng.sample(_WORDS, 3)],
        "new_title": f"{rng.choice(_WORDS).capitalize()} review",
    }


def _complete_task() -> Task:
    async def drive(side: Side, g: dict[str, Any], approve_all: bool, steps: int) -> None:
        value, _ = await side.call("request_planning", _plan({**g, "titles": g["titles"][:2]}))
        request = value.get("requestId") if isinstance(value, dict) else None
        for step in range(steps):
            value, _ = await side.call("get_next_task", {"requestId": str(request)})
            task = value.get("task") if isinstance(value, dict) else None
            if not isinstance(task, dict):
                break
            await side.call("mark_task_done", {"requestId": str(request), "taskId": str(task.get("id"))})
            if approve_all or step == 0:
                await side.call("approve_task_completion", {"requestId": str(request), "taskId": str(task.get("id"))})
        await side.call("approve_request_completion", {"requestId": str(request)})

    async def perfect(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        await drive(side, g, True, 3)

    async def sloppy(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        await drive(side, g, False, 3)  # approves the first task only

    async def partial(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        await drive(side, g, True, 1)

    async def wrong(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        value, _ = await side.call("request_planning", _plan({**g, "titles": g["titles"][:2]}))
        request = value.get("requestId") if isinstance(value, dict) else None
        await side.call("approve_request_completion", {"requestId": str(request)})  # nothing done

    async def idle(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        return None

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        value, _ = await side.call("list_requests", {})
        entry = _request_of(value, g["request"])
        if entry is None or not entry.get("totalTasks"):
            return 0.0
        return float(entry.get("approvedTasks", 0)) / float(entry["totalTasks"])

    agents: dict[str, Agent] = {"perfect": perfect, "sloppy": sloppy, "partial": partial, "wrong": wrong, "idle": idle}
    return Task("take a request to completion", _lifecycle_draw, _nothing, agents, reward)


def _rename_task() -> Task:
    async def update(side: Side, g: dict[str, Any], index: int) -> None:
        request, tasks = _ids(side, g)
        if tasks:
            task = tasks[min(index, len(tasks) - 1)]
            await side.call("update_task", {"requestId": request, "taskId": task, "title": g["new_title"]})

    async def perfect(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        await update(side, g, 0)

    async def sloppy(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        await update(side, g, 0 if rng.random() < 0.5 else 1)

    async def partial(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        _, tasks = _ids(side, g)
        if tasks:
            await side.call("open_task_details", {"taskId": tasks[0]})

    async def wrong(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        request, tasks = _ids(side, g)
        if tasks:
            await side.call("delete_task", {"requestId": request, "taskId": tasks[0]})

    async def idle(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        return None

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        _, tasks = _ids(side, g)
        if not tasks:
            return 0.0
        value, error = await side.call("open_task_details", {"taskId": tasks[0]})
        task = value.get("task") if isinstance(value, dict) and not error else None
        return float(isinstance(task, dict) and task.get("title") == g["new_title"])

    agents: dict[str, Agent] = {"perfect": perfect, "sloppy": sloppy, "partial": partial, "wrong": wrong, "idle": idle}
    return Task("rename a task", _lifecycle_draw, _planned, agents, reward)


def _drop_task() -> Task:
    async def delete(side: Side, g: dict[str, Any], indexes: list[int]) -> None:
        request, tasks = _ids(side, g)
        for index in indexes:
            if index < len(tasks):
                await side.call("delete_task", {"requestId": request, "taskId": tasks[index]})

    async def perfect(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        await delete(side, g, [1])

    async def sloppy(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        await delete(side, g, [1 if rng.random() < 0.5 else 2])

    async def partial(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        request, tasks = _ids(side, g)
        if len(tasks) > 1:
            await side.call("update_task", {"requestId": request, "taskId": tasks[1], "title": "Dropped"})

    async def wrong(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        await delete(side, g, [0, 1, 2])

    async def idle(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        return None

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        _, tasks = _ids(side, g)
        if len(tasks) < 3:
            return 0.0
        present = []
        for task in tasks:
            value, error = await side.call("open_task_details", {"taskId": task})
            present.append(not error and isinstance(value, dict) and value.get("status") == "task_details")
        return (float(not present[1]) + float(present[0]) + float(present[2])) / 3

    agents: dict[str, Agent] = {"perfect": perfect, "sloppy": sloppy, "partial": partial, "wrong": wrong, "idle": idle}
    return Task("drop one task of a request", _lifecycle_draw, _planned, agents, reward)


# --- calculator ----------------------------------------------------------------------------------


def _number(value: Any) -> float | None:
    found = _NUMBER.findall(value) if isinstance(value, str) else []
    if not found:
        return None
    text = str(found[-1])
    special = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
    return special[text] if text in special else float(text)


async def _op(side: Side, tool: str, *operands: float | None) -> float | None:
    if any(operand is None for operand in operands):
        return None
    names = ("a", "b")[: len(operands)]
    value, error = await side.call(tool, dict(zip(names, operands, strict=True)))
    return None if error else _number(value)


def _same(answer: Any, expected: float | None) -> float:
    if not isinstance(answer, float | int) or expected is None:
        return 0.0
    return float(math.isclose(answer, expected, rel_tol=1e-9, abs_tol=1e-9))


def _numbers(rng: random.Random) -> dict[str, Any]:
    return {"a": rng.randint(2, 90), "b": round(rng.uniform(1, 50), 1), "c": rng.randint(2, 9)}


def _calc_task(name: str, steps: Callable[[Side, dict[str, Any], str], Awaitable[float | None]]) -> Task:
    async def perfect(side: Side, g: dict[str, Any], rng: random.Random) -> float | None:
        return await steps(side, g, "perfect")

    async def sloppy(side: Side, g: dict[str, Any], rng: random.Random) -> float | None:
        return await steps(side, g, "sloppy" if rng.random() < 0.5 else "perfect")

    async def partial(side: Side, g: dict[str, Any], rng: random.Random) -> float | None:
        return await steps(side, g, "partial")

    async def wrong(side: Side, g: dict[str, Any], rng: random.Random) -> float | None:
        return await steps(side, g, "wrong")

    async def idle(side: Side, g: dict[str, Any], rng: random.Random) -> float | None:
        return None

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        return _same(answer, await steps(side, g, "perfect"))  # the expression, through this server's tools

    agents: dict[str, Agent] = {"perfect": perfect, "sloppy": sloppy, "partial": partial, "wrong": wrong, "idle": idle}
    return Task(name, _numbers, _nothing, agents, reward)


async def _sum_times(side: Side, g: dict[str, Any], how: str) -> float | None:
    first = await _op(side, "sub" if how == "sloppy" else "mul" if how == "wrong" else "add", g["a"], g["b"])
    return first if how == "partial" else await _op(side, "add" if how == "wrong" else "mul", first, g["c"])


async def _root_of_sum(side: Side, g: dict[str, Any], how: str) -> float | None:
    first = await _op(side, "mul" if how == "sloppy" else "add", g["a"], g["b"])
    if how == "partial":
        return first
    return await _op(side, "div" if how == "wrong" else "sqrt", *((first, 2) if how == "wrong" else (first,)))


async def _mean(side: Side, g: dict[str, Any], how: str) -> float | None:
    total = await _op(side, "add", g["a"], g["b"])
    if how != "sloppy":
        total = await _op(side, "add", total, g["c"])
    if how == "partial":
        return total
    return await _op(side, "mul" if how == "wrong" else "div", total, 3)


# --- the dev fixtures (tests/fixture_servers): a key-value store and a to-do list --------------------


def _fixture_task(
    name: str,
    draw: Callable[[random.Random], dict[str, Any]],
    setup: Callable[[Side, dict[str, Any]], Awaitable[None]],
    plays: dict[str, Callable[[Side, dict[str, Any], random.Random], Awaitable[None]]],
    reward: Reward,
) -> Task:
    async def idle(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        return None

    agents: dict[str, Agent] = {**plays, "idle": idle}
    return Task(name, draw, setup, agents, reward)


async def _kv_get(side: Side, key: str) -> str | None:
    value, error = await side.call("get_value", {"key": key})
    prefix = f"Value of '{key}': "
    return value[len(prefix) :] if not error and isinstance(value, str) and value.startswith(prefix) else None


def _kv_store() -> Task:
    def draw(rng: random.Random) -> dict[str, Any]:
        return {"key": f"{rng.choice(_WORDS)}:{_name(rng)}", "value": f"{rng.choice(_WORDS)} {rng.randint(1, 99)}"}

    async def play(side: Side, g: dict[str, Any], key: str | None, value: str) -> None:
        if key is not None:
            await side.call("set_value", {"key": key, "value": value})

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        return float(await _kv_get(side, g["key"]) == g["value"])

    return _fixture_task(
        "store a value",
        draw,
        _nothing,
        {
            "perfect": lambda side, g, rng: play(side, g, g["key"], g["value"]),
            "sloppy": lambda side, g, rng: play(side, g, g["key"] + ("s" if rng.random() < 0.5 else ""), g["value"]),
            "partial": lambda side, g, rng: play(side, g, None, ""),
            "wrong": lambda side, g, rng: play(side, g, g["key"], "TODO"),
        },
        reward,
    )


def _kv_clear() -> Task:
    def draw(rng: random.Random) -> dict[str, Any]:
        space, other = rng.sample(_WORDS, 2)
        return {"prefix": f"{space}:", "keys": [f"{space}:{n}" for n in ("a", "b", "c")], "other": f"{other}:a"}

    async def setup(side: Side, g: dict[str, Any]) -> None:
        for key in [*g["keys"], g["other"]]:
            await side.call("set_value", {"key": key, "value": f"value of {key}"})

    async def delete(side: Side, prefix: str | None) -> None:
        if prefix is not None:
            await side.call("delete_prefix", {"prefix": prefix})

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        gone = [await _kv_get(side, key) is None for key in g["keys"]]
        return (sum(gone) + (await _kv_get(side, g["other"]) is not None)) / (len(gone) + 1)

    return _fixture_task(
        "clear the keys under a prefix",
        draw,
        setup,
        {
            "perfect": lambda side, g, rng: delete(side, g["prefix"]),
            "sloppy": lambda side, g, rng: delete(side, g["keys"][0]),
            "partial": lambda side, g, rng: delete(side, None),
            "wrong": lambda side, g, rng: delete(side, ""),
        },
        reward,
    )


def _kv_move() -> Task:
    def draw(rng: random.Random) -> dict[str, Any]:
        return {
            "from": f"old:{_name(rng)}",
            "to": f"new:{_name(rng)}",
            "value": f"{rng.choice(_WORDS)} {rng.randint(1, 99)}",
        }

    async def setup(side: Side, g: dict[str, Any]) -> None:
        await side.call("set_value", {"key": g["from"], "value": g["value"]})

    async def move(side: Side, g: dict[str, Any], copy: bool, drop: bool) -> None:
        value = await _kv_get(side, g["from"])
        if copy and value is not None:
            await side.call("set_value", {"key": g["to"], "value": value})
        if drop:
            await side.call("delete_prefix", {"prefix": g["from"]})

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        moved = await _kv_get(side, g["to"]) == g["value"]
        return (float(moved) + float(await _kv_get(side, g["from"]) is None)) / 2

    return _fixture_task(
        "move a value to a new key",
        draw,
        setup,
        {
            "perfect": lambda side, g, rng: move(side, g, True, True),
            "sloppy": lambda side, g, rng: move(side, g, True, False),
            "partial": lambda side, g, rng: move(side, g, False, False),
            "wrong": lambda side, g, rng: move(side, g, False, True),
        },
        reward,
    )


async def _todos_added(side: Side, g: dict[str, Any]) -> None:
    ids = []
    for title in g["titles"]:
        value, _ = await side.call("add_todo", {"title": title})
        ids.append(value.get("id") if isinstance(value, dict) else None)
    g[f"ids@{id(side)}"] = ids


def _todo_ids(side: Side, g: dict[str, Any]) -> list[Any]:
    return list(g.get(f"ids@{id(side)}", []))


async def _todo(side: Side, todo: Any) -> dict[str, Any] | None:
    value, error = await side.call("get_todo", {"id": todo})
    return value if not error and isinstance(value, dict) else None


def _todo_draw(rng: random.Random) -> dict[str, Any]:
    return {"titles": [f"{word} {_name(rng)}" for word in rng.sample(_WORDS, 3)], "new": f"{rng.choice(_WORDS)} review"}


def _todo_complete() -> Task:
    async def act(side: Side, g: dict[str, Any], tool: str, count: int) -> None:
        for todo in _todo_ids(side, g)[:count]:
            await side.call(tool, {"id": todo})

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        done = [(await _todo(side, todo) or {}).get("done") is True for todo in _todo_ids(side, g)[:2]]
        return sum(done) / 2

    return _fixture_task(
        "complete two to-dos",
        _todo_draw,
        _todos_added,
        {
            "perfect": lambda side, g, rng: act(side, g, "complete_todo", 2),
            "sloppy": lambda side, g, rng: act(side, g, "complete_todo", 1),
            "partial": lambda side, g, rng: act(side, g, "get_todo", 2),
            "wrong": lambda side, g, rng: act(side, g, "delete_todo", 2),
        },
        reward,
    )


def _todo_rename() -> Task:
    async def act(side: Side, g: dict[str, Any], how: str, rng: random.Random) -> None:
        ids = _todo_ids(side, g)
        if not ids:
            return
        if how == "rename":
            title = g["new"] if rng.random() >= 0.5 or g.get("sloppy") is None else g["new"] + "!"
            await side.call("rename_todo", {"id": ids[0], "title": title})
        else:
            await side.call(how, {"id": ids[0]})

    async def sloppy(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        await act(side, {**g, "sloppy": True}, "rename", rng)

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        ids = _todo_ids(side, g)
        return float(bool(ids) and (await _todo(side, ids[0]) or {}).get("title") == g["new"])

    return _fixture_task(
        "rename a to-do",
        _todo_draw,
        _todos_added,
        {
            "perfect": lambda side, g, rng: act(side, g, "rename", random.Random(0)),
            "sloppy": sloppy,
            "partial": lambda side, g, rng: act(side, g, "get_todo", rng),
            "wrong": lambda side, g, rng: act(side, g, "delete_todo", rng),
        },
        reward,
    )


def _todo_drop() -> Task:
    async def act(side: Side, g: dict[str, Any], tool: str, indexes: list[int]) -> None:
        ids = _todo_ids(side, g)
        for index in indexes:
            if index < len(ids):
                await side.call(tool, {"id": ids[index]})

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        ids = _todo_ids(side, g)
        if len(ids) < 3:
            return 0.0
        present = [await _todo(side, todo) is not None for todo in ids]
        return (float(not present[1]) + float(present[0]) + float(present[2])) / 3

    return _fixture_task(
        "drop one to-do",
        _todo_draw,
        _todos_added,
        {
            "perfect": lambda side, g, rng: act(side, g, "delete_todo", [1]),
            "sloppy": lambda side, g, rng: act(side, g, "delete_todo", [1 if rng.random() < 0.5 else 2]),
            "partial": lambda side, g, rng: act(side, g, "complete_todo", [1]),
            "wrong": lambda side, g, rng: act(side, g, "delete_todo", [0, 1, 2]),
        },
        reward,
    )


# --- bank: a memory bank of projects' files (held out, second set) -------------------------------

_BANK_FILES = ("activeContext.md", "progress.md", "techContext.md", "decisions.md")


async def _bank_read(side: Side, project: str, name: str) -> str | None:
    value, error = await side.call("memory_bank_read", {"projectName": project, "fileName": name})
    return None if error or not isinstance(value, str) else value


def _bank_draw(rng: random.Random) -> dict[str, Any]:
    project, other = (f"{word}-{rng.randint(10, 99)}" for word in rng.sample(_WORDS, 2))
    return {
        "project": project,
        "other": other,
        "file": rng.choice(_BANK_FILES),
        "old": f"# Notes\n\n- {rng.choice(_WORDS)} at {rng.randint(1, 12)} o'clock",
        "new": f"# Notes\n\n- {rng.choice(_WORDS)} moved to {rng.randint(1, 12)} o'clock",
    }


def _careless(name: str, slip: Callable[[str], str], rng: random.Random) -> str:
    """`name` as a sloppy agent writes it: half the time with `slip` made."""
    return slip(name) if rng.random() < 0.5 else name


async def _bank_written(side: Side, g: dict[str, Any]) -> None:
    await side.call("memory_bank_write", {"projectName": g["project"], "fileName": g["file"], "content": g["old"]})


def _bank_write(project: str, name: str, content: str) -> dict[str, Any]:
    return {"projectName": project, "fileName": name, "content": content}


def _bank_record() -> Task:
    async def write(side: Side, g: dict[str, Any], name: str | None, content: str) -> None:
        if name is None:
            await side.call("list_projects", {})  # looks, never writes
        else:
            await side.call("memory_bank_write", _bank_write(g["project"], name, content))

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        return float(await _bank_read(side, g["project"], g["file"]) == g["new"])

    return _fixture_task(
        "write a note into a project's file",
        _bank_draw,
        _nothing,
        {
            "perfect": lambda side, g, rng: write(side, g, g["file"], g["new"]),
            "sloppy": lambda side, g, rng: write(
                side, g, g["file"].lower() if rng.random() < 0.5 else g["file"], g["new"]
            ),
            "partial": lambda side, g, rng: write(side, g, None, ""),
            "wrong": lambda side, g, rng: write(side, g, g["file"], "TODO"),
        },
        reward,
    )


def _bank_update() -> Task:
    async def change(side: Side, g: dict[str, Any], tool: str | None, project: str) -> None:
        await _bank_read(side, g["project"], g["file"])  # the agent reads the file first
        if tool is not None:
            await side.call(tool, _bank_write(project, g["file"], g["new"]))

    async def sloppy(side: Side, g: dict[str, Any], rng: random.Random) -> None:
        # writes over the file instead of updating it: the server keeps the first content
        await change(side, g, "memory_bank_write" if rng.random() < 0.5 else "memory_bank_update", g["project"])

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        return float(await _bank_read(side, g["project"], g["file"]) == g["new"])

    return _fixture_task(
        "update a project's file",
        _bank_draw,
        _bank_written,
        {
            "perfect": lambda side, g, rng: change(side, g, "memory_bank_update", g["project"]),
            "sloppy": sloppy,
            "partial": lambda side, g, rng: change(side, g, None, g["project"]),
            "wrong": lambda side, g, rng: change(side, g, "memory_bank_update", g["other"]),
        },
        reward,
    )


def _bank_copy() -> Task:
    async def copy(side: Side, g: dict[str, Any], name: str | None, update_source: bool) -> None:
        content = await _bank_read(side, g["project"], g["file"])
        if content is not None and name is not None:
            await side.call("memory_bank_write", _bank_write(g["other"], name, content))
        if update_source:
            await side.call("memory_bank_update", _bank_write(g["project"], g["file"], "moved"))

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        copied = await _bank_read(side, g["other"], g["file"]) == g["old"]
        kept = await _bank_read(side, g["project"], g["file"]) == g["old"]
        return (float(copied) + float(kept)) / 2

    return _fixture_task(
        "copy a file into another project",
        _bank_draw,
        _bank_written,
        {
            "perfect": lambda side, g, rng: copy(side, g, g["file"], False),
            "sloppy": lambda side, g, rng: copy(
                side, g, "copy-" + g["file"] if rng.random() < 0.5 else g["file"], False
            ),
            "partial": lambda side, g, rng: copy(side, g, None, False),
            "wrong": lambda side, g, rng: copy(side, g, g["file"], True),
        },
        reward,
    )


# --- todo: tasks with a status, priority and tags (held out, second set) ---------------------------

_CREATED = re.compile(r"Task created successfully with ID: (\d+)")


async def _mcp_todo_tasks(side: Side, g: dict[str, Any]) -> None:
    ids = []
    for name in g["names"]:
        value, _ = await side.call("task_create", {"name": name, "priority": "medium"})
        made = _CREATED.fullmatch(value) if isinstance(value, str) else None
        ids.append(int(made.group(1)) if made else None)
    g[f"ids@{id(side)}"] = ids


async def _mcp_todo_task(side: Side, task: Any) -> dict[str, Any] | None:
    if task is None:
        return None
    value, error = await side.call("task_get", {"id": task})
    return value if not error and isinstance(value, dict) else None  # else "Task not found"


def _mcp_todo_draw(rng: random.Random) -> dict[str, Any]:
    return {
        "names": [f"{word.capitalize()} {_name(rng)}" for word in rng.sample(_WORDS, 3)],
        "tags": rng.sample(("work", "home", "docs", "urgent"), 2),
        "due": f"2027-0{rng.randint(1, 9)}-{rng.randint(10, 28)}",
    }


def _mcp_todo_complete() -> Task:
    async def act(side: Side, g: dict[str, Any], tool: str, index: int, change: dict[str, Any]) -> None:
        ids = _todo_ids(side, g)
        if index < len(ids) and ids[index] is not None:
            await side.call(tool, {"id": ids[index], **change})

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        ids = _todo_ids(side, g)
        return float(bool(ids) and (await _mcp_todo_task(side, ids[0]) or {}).get("status") == "completed")

    done = {"status": "completed"}
    return _fixture_task(
        "complete a task",
        _mcp_todo_draw,
        _mcp_todo_tasks,
        {
            "perfect": lambda side, g, rng: act(side, g, "task_update", 0, done),
            "sloppy": lambda side, g, rng: act(side, g, "task_update", 0 if rng.random() < 0.5 else 1, done),
            "partial": lambda side, g, rng: act(side, g, "task_update", 0, {"progress": "half done"}),
            "wrong": lambda side, g, rng: act(side, g, "task_delete", 0, {}),
        },
        reward,
    )


def _mcp_todo_detailed() -> Task:
    async def create(side: Side, g: dict[str, Any], leave_out: tuple[str, ...], priority: str) -> None:
        arguments = {"name": g["names"][0], "priority": priority, "tags": g["tags"], "due_date": g["due"]}
        await side.call("task_create", {key: value for key, value in arguments.items() if key not in leave_out})

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        value, error = await side.call("task_list", {"keyword": g["names"][0], "status": "all"})
        found = [task for task in value if isinstance(task, dict)] if isinstance(value, list) and not error else []
        if not found:
            return 0.0
        task = found[0]
        right = [task.get("priority") == "high", task.get("tags") == g["tags"], task.get("due_date") == g["due"]]
        return (1.0 + sum(bool(fact) for fact in right)) / 4

    return _fixture_task(
        "add a task with its priority, tags and due date",
        _mcp_todo_draw,
        _nothing,
        {
            "perfect": lambda side, g, rng: create(side, g, (), "high"),
            "sloppy": lambda side, g, rng: create(side, g, ("tags",) if rng.random() < 0.5 else (), "high"),
            "partial": lambda side, g, rng: create(side, g, ("tags", "due_date", "priority"), "high"),
            "wrong": lambda side, g, rng: create(side, g, (), "low"),
        },
        reward,
    )


def _mcp_todo_drop() -> Task:
    async def act(side: Side, g: dict[str, Any], tool: str, indexes: list[int], change: dict[str, Any]) -> None:
        ids = _todo_ids(side, g)
        for index in indexes:
            if index < len(ids) and ids[index] is not None:
                await side.call(tool, {"id": ids[index], **change})

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        ids = _todo_ids(side, g)
        if len(ids) < 3:
            return 0.0
        present = [await _mcp_todo_task(side, task) is not None for task in ids]
        return (float(not present[1]) + float(present[0]) + float(present[2])) / 3

    return _fixture_task(
        "delete one task",
        _mcp_todo_draw,
        _mcp_todo_tasks,
        {
            "perfect": lambda side, g, rng: act(side, g, "task_delete", [1], {}),
            "sloppy": lambda side, g, rng: act(side, g, "task_delete", [1 if rng.random() < 0.5 else 2], {}),
            "partial": lambda side, g, rng: act(side, g, "task_update", [1], {"status": "archived"}),
            "wrong": lambda side, g, rng: act(side, g, "task_delete", [0, 1, 2], {}),
        },
        reward,
    )


# --- calc: one tool that evaluates an expression (held out, second set) ---------------------------


async def _calculate(side: Side, expression: str | None) -> float | None:
    if expression is None:
        return None
    value, error = await side.call("calculate", {"expression": expression})
    text = value.get("result") if isinstance(value, dict) else value
    try:
        return None if error else float(str(text))
    except ValueError:
        return None


def _calc_draw(rng: random.Random) -> dict[str, Any]:
    return {"a": rng.randint(2, 90), "b": round(rng.uniform(1, 50), 1), "c": rng.randint(2, 9)}


def _expression_task(name: str, shapes: dict[str, str]) -> Task:
    """`shapes`: the expression each agent writes (perfect: the right one; `sloppy` half the time)."""

    async def play(side: Side, g: dict[str, Any], rng: random.Random, agent: str) -> float | None:
        if agent == "sloppy" and rng.random() >= 0.5:
            agent = "perfect"
        return await _calculate(side, shapes[agent].format(**g))

    async def idle(side: Side, g: dict[str, Any], rng: random.Random) -> float | None:
        return None

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        return _same(answer, await _calculate(side, shapes["perfect"].format(**g)))

    def agent(skill: str) -> Agent:
        return lambda side, g, rng: play(side, g, rng, skill)

    agents: dict[str, Agent] = {skill: agent(skill) for skill in SKILLS[:4]}
    return Task(name, _calc_draw, _nothing, {**agents, "idle": idle}, reward)


_EXPRESSIONS = {
    "(a + b) * c": {
        "perfect": "({a} + {b}) * {c}",
        "sloppy": "{a} + {b} * {c}",
        "partial": "{a} + {b}",
        "wrong": "({a} - {b}) * {c}",
    },
    "the hypotenuse of a and b": {
        "perfect": "sqrt({a}^2 + {b}^2)",
        "sloppy": "sqrt({a}^2) + {b}^2",
        "partial": "{a}^2 + {b}^2",
        "wrong": "{a} + {b}",
    },
    "the mean of a, b, c": {
        "perfect": "({a} + {b} + {c}) / 3",
        "sloppy": "{a} + {b} + {c} / 3",
        "partial": "{a} + {b} + {c}",
        "wrong": "({a} + {b} + {c}) * 3",
    },
}


# --- notes: agent-toolkit's markdown notes under a name and a project (held out, third set) ----------------


def _toolkit(value: Any) -> Any:
    """agent-toolkit's answer as JSON: its tools return JSON text, which the SDK wraps as `{"result": text}`
    structured content; its errors are `{"error": true, "code", "message"}`, never an MCP error."""
    if isinstance(value, dict) and set(value) == {"result"} and isinstance(value["result"], str):
        try:
            return json.loads(value["result"])
        except ValueError:
            return value["result"]
    return value


async def _note(side: Side, project: str, name: str) -> str | None:
    """The body of note `name` in `project` as note_read gives it, None when there is no such note."""
    arguments = {"name": name, **({"project": project} if project else {})}
    value, error = await side.call("note_read", arguments)
    note = _toolkit(value)
    if error or not isinstance(note, dict) or note.get("error") or not isinstance(note.get("content"), str):
        return None
    return str(note["content"]).strip()


def _notes_draw(rng: random.Random) -> dict[str, Any]:
    return {
        "project": f"{rng.choice(_WORDS)}-app",
        "name": f"{rng.choice(_WORDS)}-notes",
        "new_name": f"{rng.choice(_WORDS)}-archive",
        "content": f"# {rng.choice(_WORDS).capitalize()} plan\n\n- meet at {rng.randint(1, 12)} o'clock",
        "line": f"- {rng.choice(_WORDS)} ships on day {rng.randint(1, 28)}",
    }


async def _notes_project(side: Side, g: dict[str, Any]) -> None:
    await side.call("project_register", {"name": g["project"], "path": "/tmp", "description": "a project of notes"})


async def _notes_written(side: Side, g: dict[str, Any]) -> None:
    await side.call("note_write", {"name": g["name"], "content": g["content"]})


def _notes_record() -> Task:
    async def write(side: Side, g: dict[str, Any], project: str | None, content: str) -> None:
        if project is None:
            await side.call("note_list", {"project": g["project"]})  # looks, never writes
            return
        arguments = {"name": g["name"], "content": content, **({"project": project} if project else {})}
        await side.call("note_write", arguments)

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        return float(await _note(side, g["project"], g["name"]) == g["content"])

    return _fixture_task(
        "write a note in a project",
        _notes_draw,
        _notes_project,
        {
            "perfect": lambda side, g, rng: write(side, g, g["project"], g["content"]),
            "sloppy": lambda side, g, rng: write(side, g, g["project"] if rng.random() < 0.5 else "", g["content"]),
            "partial": lambda side, g, rng: write(side, g, None, ""),
            "wrong": lambda side, g, rng: write(side, g, g["project"], "TODO"),
        },
        reward,
    )


def _notes_append() -> Task:
    async def add(side: Side, g: dict[str, Any], tool: str | None) -> None:
        if tool == "note_clear":
            await side.call(tool, {"name": g["name"]})
        elif tool is not None:
            await side.call(tool, {"name": g["name"], "content": g["line"]})
        else:
            await _note(side, "", g["name"])  # reads, never appends

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        body = await _note(side, "", g["name"]) or ""
        appended = body.endswith(g["line"])  # the old content kept counts only with the line (idle scores 0)
        return (float(appended) + float(appended and g["content"] in body)) / 2

    return _fixture_task(
        "append a line to a note",
        _notes_draw,
        _notes_written,
        {
            "perfect": lambda side, g, rng: add(side, g, "note_append"),
            "sloppy": lambda side, g, rng: add(side, g, "note_append" if rng.random() < 0.5 else "note_write"),
            "partial": lambda side, g, rng: add(side, g, None),
            "wrong": lambda side, g, rng: add(side, g, "note_clear"),
        },
        reward,
    )


def _notes_rename() -> Task:
    async def rename(side: Side, g: dict[str, Any], how: str) -> None:
        if how == "rename":
            await side.call("note_rename", {"name": g["name"], "new_name": g["new_name"]})
        elif how == "copy":  # writes the new note from the old, forgets to remove the old one
            content = await _note(side, "", g["name"])
            if content is not None:
                await side.call("note_write", {"name": g["new_name"], "content": content})
        elif how == "look":
            await side.call("note_list", {})
        else:
            await side.call("note_delete", {"name": g["name"]})

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        moved = await _note(side, "", g["new_name"]) == g["content"]
        return (float(moved) + float(await _note(side, "", g["name"]) is None)) / 2

    return _fixture_task(
        "rename a note",
        _notes_draw,
        _notes_written,
        {
            "perfect": lambda side, g, rng: rename(side, g, "rename"),
            "sloppy": lambda side, g, rng: rename(side, g, "rename" if rng.random() < 0.5 else "copy"),
            "partial": lambda side, g, rng: rename(side, g, "look"),
            "wrong": lambda side, g, rng: rename(side, g, "delete"),
        },
        reward,
    )


# --- ohno: tasks with a lifecycle (held out, third set) ------------------------------------------


async def _ohno_tasks(side: Side, g: dict[str, Any]) -> None:
    ids = []
    for title in g["titles"]:
        value, _ = await side.call("create_task", {"title": title, "description": f"Do {title.lower()}"})
        ids.append(value.get("task_id") if isinstance(value, dict) else None)
    g[f"ids@{id(side)}"] = ids


def _ohno_ids(side: Side, g: dict[str, Any]) -> list[str | None]:
    return list(g.get(f"ids@{id(side)}", []))


async def _ohno_task(side: Side, task: str | None) -> dict[str, Any] | None:
    if task is None:
        return None
    value, error = await side.call("get_task", {"task_id": task})
    return value if not error and isinstance(value, dict) and "error" not in value else None


def _ohno_draw(rng: random.Random) -> dict[str, Any]:
    return {
        "titles": [f"{word.capitalize()} {_name(rng)}" for word in rng.sample(_WORDS, 3)],
        "reason": f"Waiting for the {rng.choice(_WORDS)} review",
    }


async def _ohno_act(side: Side, g: dict[str, Any], steps: list[tuple[str, int, dict[str, Any]]]) -> None:
    """Each step: a tool, the index of the episode's task it takes, the rest of its arguments."""
    ids = _ohno_ids(side, g)
    for tool, index, rest in steps:
        if index < len(ids) and ids[index] is not None:
            await side.call(tool, {"task_id": ids[index], **rest})


def _status(status: str) -> tuple[str, int, dict[str, Any]]:
    return ("update_task_status", 0, {"status": status})


def _ohno_finish() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        ids = _ohno_ids(side, g)
        return float(bool(ids) and (await _ohno_task(side, ids[0]) or {}).get("status") == "done")

    lifecycle = [_status("in_progress"), _status("review"), _status("done")]
    return _fixture_task(
        "take a task to done",
        _ohno_draw,
        _ohno_tasks,
        {
            "perfect": lambda side, g, rng: _ohno_act(side, g, lifecycle),
            "sloppy": lambda side, g, rng: _ohno_act(side, g, lifecycle[: 3 if rng.random() < 0.5 else 2]),
            "partial": lambda side, g, rng: _ohno_act(side, g, lifecycle[:1]),
            "wrong": lambda side, g, rng: _ohno_act(side, g, [("archive_task", 0, {})]),
        },
        reward,
    )


def _ohno_block() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        ids = _ohno_ids(side, g)
        task = await _ohno_task(side, ids[0] if ids else None) or {}
        return (float(task.get("status") == "blocked") + float(task.get("blockers") == g["reason"])) / 2

    def block(index: int, g: dict[str, Any]) -> tuple[str, int, dict[str, Any]]:
        return ("set_blocker", index, {"reason": g["reason"]})

    return _fixture_task(
        "block a task with its reason",
        _ohno_draw,
        _ohno_tasks,
        {
            "perfect": lambda side, g, rng: _ohno_act(side, g, [block(0, g)]),
            "sloppy": lambda side, g, rng: _ohno_act(side, g, [block(0 if rng.random() < 0.5 else 1, g)]),
            "partial": lambda side, g, rng: _ohno_act(
                side, g, [("add_task_activity", 0, {"activity_type": "note", "description": g["reason"]})]
            ),
            "wrong": lambda side, g, rng: _ohno_act(side, g, [block(0, g), ("resolve_blocker", 0, {})]),
        },
        reward,
    )


def _ohno_archive() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        ids = _ohno_ids(side, g)
        value, error = await side.call("get_tasks", {})
        listed = (
            {t.get("id") for t in value.get("tasks", []) if isinstance(t, dict)} if isinstance(value, dict) else set()
        )
        if error or len(ids) < 3:
            return 0.0
        gone = ids[1] not in listed  # the others kept count only with it gone (idle scores 0)
        return float(gone) * (1.0 + float(ids[0] in listed) + float(ids[2] in listed)) / 3

    def archive(*indexes: int) -> list[tuple[str, int, dict[str, Any]]]:
        return [("archive_task", index, {"reason": "not needed"}) for index in indexes]

    return _fixture_task(
        "archive one task of three",
        _ohno_draw,
        _ohno_tasks,
        {
            "perfect": lambda side, g, rng: _ohno_act(side, g, archive(1)),
            "sloppy": lambda side, g, rng: _ohno_act(side, g, archive(1 if rng.random() < 0.5 else 2)),
            "partial": lambda side, g, rng: _ohno_act(side, g, [("update_task_progress", 1, {"progress_percent": 0})]),
            "wrong": lambda side, g, rng: _ohno_act(side, g, archive(0, 1, 2)),
        },
        reward,
    )


# --- calcmcp: 21 computing tools, no state (held out, third set) -----------------------------------


async def _computed(side: Side, tool: str, arguments: dict[str, Any], key: str | None) -> float | None:
    """A number calc-mcp answers: the whole answer (`math`), or the field `key` of it."""
    value, error = await side.call(tool, arguments)
    if key is not None:
        value = value.get(key) if isinstance(value, dict) else None
    return float(value) if not error and isinstance(value, int | float) and not isinstance(value, bool) else None


def _compute_task(name: str, steps: Callable[[dict[str, Any], str], tuple[str, dict[str, Any], str | None]]) -> Task:
    """`steps(given, how)`: the call each agent makes (tool, arguments, the answer's field it reports); the
    reward reads the agent's answer against the perfect call made through that server's own tools."""

    async def play(side: Side, g: dict[str, Any], rng: random.Random, how: str) -> float | None:
        if how == "sloppy" and rng.random() >= 0.5:
            how = "perfect"
        return await _computed(side, *steps(g, how))

    async def idle(side: Side, g: dict[str, Any], rng: random.Random) -> float | None:
        return None

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        return _same(answer, await _computed(side, *steps(g, "perfect")))

    def agent(skill: str) -> Agent:
        return lambda side, g, rng: play(side, g, rng, skill)

    agents: dict[str, Agent] = {skill: agent(skill) for skill in SKILLS[:4]}
    return Task(name, _compute_draw, _nothing, {**agents, "idle": idle}, reward)


def _compute_draw(rng: random.Random) -> dict[str, Any]:
    start = f"2027-0{rng.randint(1, 4)}-{rng.randint(10, 28)}"
    return {**_calc_draw(rng), "start": start, "end": f"2027-0{rng.randint(5, 9)}-{rng.randint(10, 28)}"}


def _sum_times_math(g: dict[str, Any], how: str) -> tuple[str, dict[str, Any], str | None]:
    return "math", {"expression": _EXPRESSIONS["(a + b) * c"][how].format(**g)}, None


def _km_to_miles(g: dict[str, Any], how: str) -> tuple[str, dict[str, Any], str | None]:
    source = {"sloppy": "m", "partial": "km"}.get(how, "km")
    target = {"partial": "km", "wrong": "ft"}.get(how, "mi")  # partial: the distance as it was given
    return "convert", {"value": g["a"], "from": source, "to": target}, "result"


def _days_between(g: dict[str, Any], how: str) -> tuple[str, dict[str, Any], str | None]:
    start = g["start"][:-2] + f"{int(g['start'][-2:]) - 1:02d}" if how == "sloppy" else g["start"]  # a day off
    field = {"partial": "months", "wrong": "hours"}.get(how, "days")
    return "date", {"action": "diff", "date": start, "date2": g["end"]}, field


# --- mem: memories under a key in a namespace (the fourth set, dev now) -----------------------------


async def _memory(side: Side, namespace: str, key: str) -> str | None:
    """The value memory_retrieve gives for `key` in `namespace`, None when it finds none."""
    value, error = await side.call("memory_retrieve", {"key": key, "namespace": namespace})
    found = value.get("value") if not error and isinstance(value, dict) else None
    return found if isinstance(found, str) else None


def _mem_draw(rng: random.Random) -> dict[str, Any]:
    spaces = rng.sample(_WORDS, 2)
    return {
        "namespace": f"{spaces[0]}-project",
        "other": f"{spaces[1]}-project",
        "keys": [f"{word}-{_name(rng)}" for word in rng.sample(_WORDS, 3)],
        "value": f"{rng.choice(_WORDS)} at {rng.randint(1, 12)} o'clock",
    }


async def _mem_stored(side: Side, g: dict[str, Any]) -> None:
    for key in g["keys"]:
        await side.call("memory_store", {"key": key, "value": f"{g['value']} ({key})", "namespace": g["namespace"]})


def _mem_store() -> Task:
    async def store(side: Side, g: dict[str, Any], namespace: str | None, value: str) -> None:
        if namespace is None:
            await side.call("memory_list", {"namespace": g["namespace"]})  # looks, never stores
            return
        arguments = {"key": g["keys"][0], "value": value, **({"namespace": namespace} if namespace else {})}
        await side.call("memory_store", arguments)

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        return float(await _memory(side, g["namespace"], g["keys"][0]) == g["value"])

    return _fixture_task(
        "store a memory in a namespace",
        _mem_draw,
        _nothing,
        {
            "perfect": lambda side, g, rng: store(side, g, g["namespace"], g["value"]),
            "sloppy": lambda side, g, rng: store(side, g, g["namespace"] if rng.random() < 0.5 else "", g["value"]),
            "partial": lambda side, g, rng: store(side, g, None, ""),
            "wrong": lambda side, g, rng: store(side, g, g["namespace"], "TODO"),
        },
        reward,
    )


def _mem_forget() -> Task:
    async def forget(side: Side, g: dict[str, Any], indexes: list[int], namespace: str | None) -> None:
        if namespace is None:
            await side.call("memory_search", {"query": g["keys"][1], "namespace": g["namespace"]})
        for index in indexes if namespace is not None else []:
            await side.call(
                "memory_delete", {"key": g["keys"][index], **({"namespace": namespace} if namespace else {})}
            )

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        kept = [await _memory(side, g["namespace"], key) is not None for key in g["keys"]]
        return float(not kept[1]) * (1.0 + kept[0] + kept[2]) / 3  # the others kept count only with it gone

    return _fixture_task(
        "forget one memory of three",
        _mem_draw,
        _mem_stored,
        {
            "perfect": lambda side, g, rng: forget(side, g, [1], g["namespace"]),
            "sloppy": lambda side, g, rng: forget(side, g, [1], g["namespace"] if rng.random() < 0.5 else ""),
            "partial": lambda side, g, rng: forget(side, g, [], None),
            "wrong": lambda side, g, rng: forget(side, g, [0, 1, 2], g["namespace"]),
        },
        reward,
    )


def _mem_move() -> Task:
    async def move(side: Side, g: dict[str, Any], copy: bool, delete: bool) -> None:
        key = g["keys"][0]
        value = await _memory(side, g["namespace"], key)  # the agent reads the value it is to move
        if copy and value is not None:
            await side.call("memory_store", {"key": key, "value": value, "namespace": g["other"]})
        if delete:
            await side.call("memory_delete", {"key": key, "namespace": g["namespace"]})

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        key = g["keys"][0]
        moved = await _memory(side, g["other"], key) == f"{g['value']} ({key})"
        return (float(moved) + float(moved and await _memory(side, g["namespace"], key) is None)) / 2

    return _fixture_task(
        "move a memory to another namespace",
        _mem_draw,
        _mem_stored,
        {
            "perfect": lambda side, g, rng: move(side, g, True, True),
            "sloppy": lambda side, g, rng: move(side, g, True, rng.random() < 0.5),  # forgets the delete
            "partial": lambda side, g, rng: move(side, g, False, False),
            "wrong": lambda side, g, rng: move(side, g, False, True),
        },
        reward,
    )


# --- todotxt: a todo.txt list (the fourth set, dev now) --------------------------------------------


async def _todo_txt(side: Side, g: dict[str, Any]) -> None:
    ids = []
    for title in g["titles"]:
        value, _ = await side.call("add_todo", {"text": title, "priority": "C"})
        made = value.get("todo") if isinstance(value, dict) else None
        ids.append(made.get("id") if isinstance(made, dict) else None)
    g[f"ids@{id(side)}"] = ids


def _todo_txt_id(side: Side, g: dict[str, Any], index: int) -> str | None:
    ids = g.get(f"ids@{id(side)}", [])
    return ids[index] if index < len(ids) else None


async def _todo_txt_listed(side: Side, **filters: Any) -> list[dict[str, Any]]:
    """The todos a listing gives (list_todos, or a filter's tool named by `tool`), by their text."""
    tool = filters.pop("tool", "list_todos")
    value, error = await side.call(tool, filters)
    todos = value.get("todos") if not error and isinstance(value, dict) else None
    return [todo for todo in todos or [] if isinstance(todo, dict)]


def _todo_txt_draw(rng: random.Random) -> dict[str, Any]:
    return {
        "titles": [f"{word.capitalize()} {_name(rng)}" for word in rng.sample(_WORDS, 3)],
        "project": f"{rng.choice(_WORDS)}-plan",
        "context": rng.choice(("phone", "office", "errands")),
        "priority": rng.choice("AB"),
    }


async def _todo_txt_act(side: Side, g: dict[str, Any], steps: list[tuple[str, int, dict[str, Any]]]) -> None:
    """Each step: a tool, the index of the episode's todo it takes, the rest of its arguments."""
    for tool, index, rest in steps:
        todo = _todo_txt_id(side, g, index)
        if todo is not None:
            await side.call(tool, {"todo_id": todo, **rest})


def _todo_txt_complete() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        # A completed todo is archived to done.txt at once (auto_archive), so no listing shows it: done is
        # the todo gone from the list with done.txt made (get_statistics' file_stats), which a delete leaves
        # unmade. The others still open count only with the first done (idle scores 0).
        listed = {todo.get("text") for todo in await _todo_txt_listed(side, include_completed=True)}
        value, error = await side.call("get_statistics", {})
        files = value.get("file_stats") if not error and isinstance(value, dict) else None
        archived = isinstance(files, dict) and (files.get("done_file") or {}).get("exists") is True
        done = g["titles"][0] not in listed and archived
        return float(done) * (1.0 + sum(title in listed for title in g["titles"][1:])) / 3

    return _fixture_task(
        "complete one todo of three",
        _todo_txt_draw,
        _todo_txt,
        {
            "perfect": lambda side, g, rng: _todo_txt_act(side, g, [("complete_todo", 0, {})]),
            "sloppy": lambda side, g, rng: _todo_txt_act(
                side, g, [("complete_todo", 0 if rng.random() < 0.5 else 1, {})]
            ),
            "partial": lambda side, g, rng: _todo_txt_act(side, g, [("get_todo", 0, {})]),
            "wrong": lambda side, g, rng: _todo_txt_act(side, g, [("delete_todo", 0, {})]),
        },
        reward,
    )


def _todo_txt_add() -> Task:
    async def add(side: Side, g: dict[str, Any], fields: tuple[str, ...], priority: str) -> None:
        arguments: dict[str, Any] = {"text": g["titles"][0]}
        if "priority" in fields:
            arguments["priority"] = priority
        if "project" in fields:
            arguments["projects"] = [g["project"]]
        if "context" in fields:
            arguments["contexts"] = [g["context"]]
        await side.call("add_todo", arguments)

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        listed = await _todo_txt_listed(side, tool="filter_by_project", project=g["project"])
        mine = [todo for todo in listed if todo.get("text") == g["titles"][0]]
        if not mine:
            return 0.0
        return (
            1.0 + float(mine[0].get("priority") == g["priority"]) + float(g["context"] in mine[0].get("contexts", []))
        ) / 3

    every = ("priority", "project", "context")
    return _fixture_task(
        "add a todo with its priority, project and context",
        _todo_txt_draw,
        _nothing,
        {
            "perfect": lambda side, g, rng: add(side, g, every, g["priority"]),
            "sloppy": lambda side, g, rng: add(side, g, every if rng.random() < 0.5 else every[:2], g["priority"]),
            "partial": lambda side, g, rng: add(side, g, every[1:2], g["priority"]),
            "wrong": lambda side, g, rng: add(side, g, every, "Z"),
        },
        reward,
    )


def _todo_txt_reprioritise() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        listed = await _todo_txt_listed(side, tool="filter_by_priority", priority="A")
        texts = {todo.get("text") for todo in listed}
        return (
            float(g["titles"][1] in texts) * (1.0 + sum(t not in texts for t in (g["titles"][0], g["titles"][2]))) / 3
        )

    raise_ = ("update_todo", 1, {"priority": "A"})
    return _fixture_task(
        "raise one todo's priority to A",
        _todo_txt_draw,
        _todo_txt,
        {
            "perfect": lambda side, g, rng: _todo_txt_act(side, g, [raise_]),
            "sloppy": lambda side, g, rng: _todo_txt_act(
                side, g, [raise_ if rng.random() < 0.5 else ("update_todo", 2, {"priority": "A"})]
            ),
            "partial": lambda side, g, rng: _todo_txt_act(side, g, [("update_todo", 1, {"priority": "B"})]),
            "wrong": lambda side, g, rng: _todo_txt_act(
                side, g, [("update_todo", n, {"priority": "A"}) for n in range(3)]
            ),
        },
        reward,
    )


# --- units: a unit converter, one tool per quantity, no state (the fourth set, dev now) ----------------


def _converted(value: Any) -> float | None:
    number = value.get("converted_value") if isinstance(value, dict) else None
    return float(number) if isinstance(number, int | float) and not isinstance(number, bool) else None


def _batch_total(value: Any) -> float | None:
    """The sum of a batch's converted values (None when one of them failed)."""
    results = value.get("batch_results") if isinstance(value, dict) else None
    numbers = [_converted(result) for result in results or []]
    return sum(n for n in numbers if n is not None) if numbers and None not in numbers else None


def _units_task(
    name: str, steps: Callable[[dict[str, Any], str], tuple[str, dict[str, Any], Callable[[Any], float | None]]]
) -> Task:
    """`steps(given, how)`: the call each agent makes (tool, arguments, how its answer is read as a number);
    the reward reads the agent's answer against the perfect call made through that server's own tools."""

    async def run(side: Side, g: dict[str, Any], how: str) -> float | None:
        tool, arguments, read = steps(g, how)
        value, error = await side.call(tool, arguments)
        return None if error else read(value)

    async def play(side: Side, g: dict[str, Any], rng: random.Random, how: str) -> float | None:
        return await run(side, g, "perfect" if how == "sloppy" and rng.random() >= 0.5 else how)

    async def idle(side: Side, g: dict[str, Any], rng: random.Random) -> float | None:
        return None

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        return _same(answer, await run(side, g, "perfect"))

    def agent(skill: str) -> Agent:
        return lambda side, g, rng: play(side, g, rng, skill)

    agents: dict[str, Agent] = {skill: agent(skill) for skill in SKILLS[:4]}
    return Task(name, _units_draw, _nothing, {**agents, "idle": idle}, reward)


def _units_draw(rng: random.Random) -> dict[str, Any]:
    return {
        "a": rng.randint(2, 90),
        "b": round(rng.uniform(1, 50), 1),
        "celsius": rng.choice((-12, 0, 21, 37, 100)) + rng.randint(0, 9) / 2,
    }


def _length(g: dict[str, Any], how: str) -> tuple[str, dict[str, Any], Callable[[Any], float | None]]:
    source = {"sloppy": "meter"}.get(how, "kilometer")
    target = {"partial": "kilometer", "wrong": "foot"}.get(how, "mile")  # partial: the distance as given
    return "convert_length", {"value": g["a"], "from_unit": source, "to_unit": target}, _converted


def _temperature(g: dict[str, Any], how: str) -> tuple[str, dict[str, Any], Callable[[Any], float | None]]:
    source = {"sloppy": "kelvin", "wrong": "fahrenheit"}.get(how, "celsius")
    target = {"partial": "kelvin", "wrong": "celsius"}.get(how, "fahrenheit")
    return "convert_temperature", {"value": g["celsius"], "from_unit": source, "to_unit": target}, _converted


def _parcels(g: dict[str, Any], how: str) -> tuple[str, dict[str, Any], Callable[[Any], float | None]]:
    """Two parcels' weights (kilograms) in pounds, in one batch, added up."""
    parcels = [g["a"], g["b"]][: 1 if how == "partial" else 2]
    units = ("gram" if how == "sloppy" else "kilogram", "ounce" if how == "wrong" else "pound")
    requests = [
        {
            "value": weight,
            "from_unit": units[0],
            "to_unit": units[1],
            "conversion_type": "mass",
            "request_id": f"parcel-{n}",
        }
        for n, weight in enumerate(parcels, 1)
    ]
    return "convert_batch", {"requests": requests}, _batch_total


# --- memo: memories stored under a title, with an id (the fifth set, dev now) -------------------------

_MEMORY_STORED = re.compile(r"with ID: (\d+)")
_MEMORY_LISTED = re.compile(r"^ID: (\d+) - (.*)$", re.MULTILINE)


async def _memo_content(side: Side, title: str) -> str | None:
    """The content get_memory gives for `title`, None when it finds none."""
    value, error = await side.call("get_memory", {"title": title})
    text = value if not error and isinstance(value, str) else ""
    head = f"Title: {title}\n\nContent: "
    return text[len(head) :] if text.startswith(head) else None


async def _memo_titles(side: Side) -> list[str]:
    value, error = await side.call("list_memories", {})
    return [title for _, title in _MEMORY_LISTED.findall(value)] if not error and isinstance(value, str) else []


def _memo_draw(rng: random.Random) -> dict[str, Any]:
    return {
        "titles": [f"{word}-{_name(rng)}" for word in rng.sample(_WORDS, 3)],
        "content": f"{rng.choice(_WORDS)} at {rng.randint(1, 12)} o'clock",
        "new": f"{rng.choice(_WORDS)}-{_name(rng)}-renamed",
    }


async def _memo_stored(side: Side, g: dict[str, Any]) -> None:
    ids = []
    for title in g["titles"]:
        value, _ = await side.call("remember", {"title": title, "content": f"{g['content']} ({title})"})
        made = _MEMORY_STORED.search(value) if isinstance(value, str) else None
        ids.append(int(made.group(1)) if made else None)
    g[f"ids@{id(side)}"] = ids


async def _memo_act(side: Side, g: dict[str, Any], steps: list[tuple[str, int, dict[str, Any]]]) -> None:
    """Each step: a tool, the index of the episode's memory it takes (by the id its store answered), the rest
    of its arguments."""
    ids = g.get(f"ids@{id(side)}", [])
    for tool, index, rest in steps:
        if index < len(ids) and ids[index] is not None:
            await side.call(tool, {"memory_id": ids[index], **rest})


def _memo_store() -> Task:
    async def store(side: Side, g: dict[str, Any], title: str | None, content: str) -> None:
        if title is None:
            await side.call("list_memories", {})  # looks, never stores
            return
        await side.call("remember", {"title": title, "content": content})

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        return float(await _memo_content(side, g["titles"][0]) == g["content"])

    return _fixture_task(
        "store a memory under a title",
        _memo_draw,
        _nothing,
        {
            "perfect": lambda side, g, rng: store(side, g, g["titles"][0], g["content"]),
            "sloppy": lambda side, g, rng: store(
                side, g, g["titles"][0] if rng.random() < 0.5 else g["titles"][0].upper(), g["content"]
            ),
            "partial": lambda side, g, rng: store(side, g, None, ""),
            "wrong": lambda side, g, rng: store(side, g, g["titles"][0], "TODO"),
        },
        reward,
    )


def _memo_forget() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        listed = await _memo_titles(side)
        kept = [title in listed for title in g["titles"]]
        return float(not kept[1]) * (1.0 + kept[0] + kept[2]) / 3  # the others kept count only with it gone

    return _fixture_task(
        "forget one memory of three",
        _memo_draw,
        _memo_stored,
        {
            "perfect": lambda side, g, rng: _memo_act(side, g, [("delete_memory", 1, {})]),
            "sloppy": lambda side, g, rng: _memo_act(side, g, [("delete_memory", 1 if rng.random() < 0.5 else 2, {})]),
            "partial": lambda side, g, rng: _memo_act(side, g, [("get_memory", 1, {})]),
            "wrong": lambda side, g, rng: _memo_act(side, g, [("delete_memory", n, {}) for n in range(3)]),
        },
        reward,
    )


def _memo_rename() -> Task:
    async def copy(side: Side, g: dict[str, Any]) -> None:
        content = await _memo_content(side, g["titles"][0])  # the agent reads what it is to keep
        if content is not None:
            await side.call("remember", {"title": g["new"], "content": content})  # the old one left behind

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        moved = await _memo_content(side, g["new"]) == f"{g['content']} ({g['titles'][0]})"
        return (float(moved) + float(moved and g["titles"][0] not in await _memo_titles(side))) / 2

    return _fixture_task(
        "rename a memory (its content kept)",
        _memo_draw,
        _memo_stored,
        {
            "perfect": lambda side, g, rng: _memo_act(side, g, [("update_memory", 0, {"title": g["new"]})]),
            "sloppy": lambda side, g, rng: (
                _memo_act(side, g, [("update_memory", 0, {"title": g["new"]})]) if rng.random() < 0.5 else copy(side, g)
            ),
            "partial": lambda side, g, rng: _memo_act(side, g, [("get_memory", 0, {})]),
            "wrong": lambda side, g, rng: _memo_act(side, g, [("update_memory", 0, {"content": g["new"]})]),
        },
        reward,
    )


# --- runloq: an issue tracker (the fifth set, dev now) --------------------------------------------------


async def _runloq_issue(side: Side, issue: str | None) -> dict[str, Any]:
    if issue is None:
        return {}
    value, error = await side.call("get_issue", {"id": issue})
    return value if not error and isinstance(value, dict) and "error" not in value else {}


async def _runloq_listed(side: Side) -> list[dict[str, Any]]:
    """The issues list_issues gives. It answers one text content per issue: one issue reads as that issue,
    several as their JSON texts one after another (no one JSON value), none as an empty answer."""
    value, error = await side.call("list_issues", {})
    if error:
        return []
    if isinstance(value, dict):
        value = value.get("result", [value] if "id" in value else [])
    if isinstance(value, str):
        decoder, found, at = json.JSONDecoder(), [], 0
        while at < len(value):
            try:
                item, at = decoder.raw_decode(value, at)
            except ValueError:
                break
            found.append(item)
            at = len(value) - len(value[at:].lstrip())
        value = found
    return [issue for issue in value if isinstance(issue, dict)] if isinstance(value, list) else []


def _runloq_draw(rng: random.Random) -> dict[str, Any]:
    return {
        "titles": [f"{word.capitalize()} {_name(rng)}" for word in rng.sample(_WORDS, 3)],
        "priority": rng.choice(("P0", "P2", "P3")),
        "assignee": rng.choice(("me", "alice")),
        "resolution": f"Shipped in {_name(rng)}",
    }


async def _runloq_filed(side: Side, g: dict[str, Any]) -> None:
    ids = []
    for title in g["titles"]:
        value, _ = await side.call("create_issue", {"title": title})
        ids.append(value.get("id") if isinstance(value, dict) and isinstance(value.get("id"), str) else None)
    g[f"ids@{id(side)}"] = ids


def _runloq_id(side: Side, g: dict[str, Any], index: int) -> str | None:
    ids = g.get(f"ids@{id(side)}", [])
    return ids[index] if index < len(ids) else None


async def _runloq_act(side: Side, g: dict[str, Any], steps: list[tuple[str, int, dict[str, Any]]]) -> None:
    """Each step: a tool, the index of the episode's issue it takes, the rest of its arguments."""
    for tool, index, rest in steps:
        issue = _runloq_id(side, g, index)
        if issue is not None:
            await side.call(tool, {"id": issue, **rest})


def _runloq_close() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        issue = await _runloq_issue(side, _runloq_id(side, g, 0))
        if issue.get("status") == "in_progress":
            return 1 / 3  # started, not closed
        return float(issue.get("status") == "done") * (2 + float(issue.get("resolution") == g["resolution"])) / 3

    start = ("update_issue", 0, {"status": "in_progress"})

    def steps(g: dict[str, Any], resolved: bool) -> list[tuple[str, int, dict[str, Any]]]:
        return [start, ("close_issue", 0, {"resolution": g["resolution"]} if resolved else {})]

    return _fixture_task(
        "take an issue to done with its resolution",
        _runloq_draw,
        _runloq_filed,
        {
            "perfect": lambda side, g, rng: _runloq_act(side, g, steps(g, True)),
            "sloppy": lambda side, g, rng: _runloq_act(side, g, steps(g, rng.random() < 0.5)),  # no resolution
            "partial": lambda side, g, rng: _runloq_act(side, g, [start]),
            "wrong": lambda side, g, rng: _runloq_act(side, g, [("close_issue", 0, {"status": "cancelled"})]),
        },
        reward,
    )


def _runloq_file() -> Task:
    async def file(side: Side, g: dict[str, Any], fields: tuple[str, ...], project: str | None = None) -> None:
        arguments: dict[str, Any] = {"title": g["titles"][0], "description": g["resolution"]}
        for name in fields:
            arguments[name] = g[name]
        if project is not None:
            arguments["project"] = project
        await side.call("create_issue", arguments)

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        mine = [issue for issue in await _runloq_listed(side) if issue.get("title") == g["titles"][0]]
        if not mine:
            return 0.0
        return (
            1.0 + float(mine[0].get("priority") == g["priority"]) + float(mine[0].get("assignee") == g["assignee"])
        ) / 3

    every = ("priority", "assignee")
    return _fixture_task(
        "file an issue with its priority and assignee",
        _runloq_draw,
        _nothing,
        {
            "perfect": lambda side, g, rng: file(side, g, every),
            "sloppy": lambda side, g, rng: file(side, g, every if rng.random() < 0.5 else every[:1]),
            "partial": lambda side, g, rng: file(side, g, ()),
            "wrong": lambda side, g, rng: file(side, g, every, project="OPS"),  # a prefix the tracker does not have
        },
        reward,
    )


def _runloq_start() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        statuses = [str((await _runloq_issue(side, _runloq_id(side, g, n))).get("status")) for n in range(3)]
        others = sum(status == "todo" for status in (statuses[0], statuses[2]))
        return float(statuses[1] == "in_progress") * (1.0 + others) / 3

    def start(index: int) -> tuple[str, int, dict[str, Any]]:
        return ("update_issue", index, {"status": "in_progress"})

    return _fixture_task(
        "start one issue of three (the others left to do)",
        _runloq_draw,
        _runloq_filed,
        {
            "perfect": lambda side, g, rng: _runloq_act(side, g, [start(1)]),
            "sloppy": lambda side, g, rng: _runloq_act(side, g, [start(1 if rng.random() < 0.5 else 2)]),
            "partial": lambda side, g, rng: _runloq_act(side, g, [("comment_issue", 1, {"message": "looking at it"})]),
            "wrong": lambda side, g, rng: _runloq_act(side, g, [start(n) for n in range(3)]),
        },
        reward,
    )


# --- fincalc: ten finance calculators, no state (the fifth set, dev now) --------------------------------


def _figure(label: str) -> Callable[[Any], float | None]:
    """How an answer is read as a number: the amount on its line `label` (`Monthly Payment: $1,264.14`)."""
    pattern = re.compile(re.escape(label) + r":\s*\$?(-?[\d,]+(?:\.\d+)?)")

    def read(value: Any) -> float | None:
        found = pattern.search(value) if isinstance(value, str) else None
        return float(found.group(1).replace(",", "")) if found else None

    return read


def _fincalc_draw(rng: random.Random) -> dict[str, Any]:
    return {
        "principal": rng.choice((15000, 40000, 180000, 320000)) + 500 * rng.randint(0, 9),
        "rate": rng.choice((3.25, 4.5, 5.75, 6.5, 7.25)),
        "years": rng.choice((5, 10, 15, 30)),
        "income": rng.randint(20, 400) * 1000 + rng.randint(0, 99) * 10,
        "status": rng.choice(("married_jointly", "head_of_household")),
        "fixed": rng.randint(20, 200) * 100,
        "price": rng.choice((25, 40, 60, 99)),
        "variable": rng.choice((8, 12, 15, 20)),
    }


def _loan(g: dict[str, Any], how: str) -> tuple[str, dict[str, Any], Callable[[Any], float | None]]:
    if how == "partial":  # the principal spread over the months, no interest
        return "calculate", {"expression": f"{g['principal']} / ({g['years']} * 12)"}, _figure("raw")
    rate = g["rate"] / 100 if how == "wrong" else g["rate"]  # wrong: the rate as a fraction, not a percent
    years = g["years"] * 12 if how == "sloppy" else g["years"]  # sloppy: the term in months
    arguments = {"principal": g["principal"], "annual_rate_pct": rate, "term_years": years}
    return "loan_amortization", arguments, _figure("Monthly Payment")


def _income_tax(g: dict[str, Any], how: str) -> tuple[str, dict[str, Any], Callable[[Any], float | None]]:
    if how == "partial":  # one flat rate for the whole income
        return "calculate", {"expression": f"{g['income']} * 0.22"}, _figure("raw")
    status = "single" if how == "sloppy" else g["status"]
    income = g["income"] / 1000 if how == "wrong" else g["income"]  # wrong: the income in thousands
    arguments = {"taxable_income": income, "filing_status": status}
    return "us_income_tax_estimate", arguments, _figure("Federal Tax")


def _break_even(g: dict[str, Any], how: str) -> tuple[str, dict[str, Any], Callable[[Any], float | None]]:
    if how in ("partial", "wrong"):  # partial: the price alone covers the costs; wrong: the variable cost does
        per_unit = g["price"] if how == "partial" else g["variable"]
        return "calculate", {"expression": f"{g['fixed']} / {per_unit}"}, _figure("raw")
    price, variable = (g["variable"], g["price"]) if how == "sloppy" else (g["price"], g["variable"])  # swapped
    arguments = {"fixed_costs": g["fixed"], "price_per_unit": price, "variable_cost_per_unit": variable}
    return "break_even", arguments, _figure("Break-Even Units")


def _fincalc_task(
    name: str, steps: Callable[[dict[str, Any], str], tuple[str, dict[str, Any], Callable[[Any], float | None]]]
) -> Task:
    """The agent's figure against the perfect call made through that server's own tools (as units')."""
    task = _units_task(name, steps)
    return Task(name, _fincalc_draw, task.setup, task.agents, task.reward)


# --- kb: entries under a namespace and a key (dev, the sixth set) ---------------------------------

_KB_CREATED = re.compile(r"^Created: .+ \(id=(\d+)\)")
_KB_LISTED = re.compile(r"^id=(\d+) \| (\S+) \| ", re.MULTILINE)


def _kb_text(value: Any) -> str:
    value = value.get("result") if isinstance(value, dict) else value
    return value if isinstance(value, str) else ""


async def _kb_listed(side: Side, ns: str) -> dict[str, int]:
    """ns/key -> id of the entries `list` gives under the namespace `ns`."""
    value, error = await side.call("list", {"ns": ns, "limit": 100})
    return {} if error else {path: int(number) for number, path in _KB_LISTED.findall(_kb_text(value))}


async def _kb_data(side: Side, ns: str, key: str) -> str | None:
    """The data of the entry under ns/key, read back by the id the listing gives; None when none is there."""
    entry = (await _kb_listed(side, ns)).get(f"{ns}/{key}")
    if entry is None:
        return None
    value, error = await side.call("get", {"id": entry, "include_data": True})
    _, mark, data = _kb_text(value).partition("\n--- data ---\n")
    return data if mark and not error else None


def _kb_draw(rng: random.Random) -> dict[str, Any]:
    spaces = rng.sample(_WORDS, 2)
    return {
        "ns": f"{spaces[0]}-project",
        "other": f"{spaces[1]}-project",
        "keys": [f"{word}-{_name(rng)}" for word in rng.sample(_WORDS, 3)],
        "data": f"meet {rng.choice(_WORDS)} at {rng.randint(1, 12)} o'clock",
        "new": rng.choice(("noon", "dawn", "dusk")),
    }


async def _kb_stored(side: Side, g: dict[str, Any]) -> None:
    ids = []
    for key in g["keys"]:
        arguments = {"ns": g["ns"], "key": key, "title": key.title(), "data": f"{g['data']} ({key})"}
        value, _ = await side.call("save", arguments)
        made = _KB_CREATED.search(_kb_text(value))
        ids.append(int(made.group(1)) if made else None)
    g[f"ids@{id(side)}"] = ids


async def _kb_act(side: Side, g: dict[str, Any], steps: list[tuple[str, int, dict[str, Any]]]) -> None:
    """Each step: a tool, the index of the episode's entry it takes (by the id its save answered), the rest
    of its arguments."""
    ids = g.get(f"ids@{id(side)}", [])
    for tool, index, rest in steps:
        if index < len(ids) and ids[index] is not None:
            await side.call(tool, {"id": ids[index], **rest})


def _kb_store() -> Task:
    async def store(side: Side, g: dict[str, Any], ns: str | None, data: str) -> None:
        if ns is None:
            await side.call("list", {"ns": g["ns"]})  # looks, never stores
            return
        await side.call("save", {"ns": ns, "key": g["keys"][0], "title": g["keys"][0].title(), "data": data})

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        return float(await _kb_data(side, g["ns"], g["keys"][0]) == g["data"])

    return _fixture_task(
        "store an entry under a namespace and a key",
        _kb_draw,
        _nothing,
        {
            "perfect": lambda side, g, rng: store(side, g, g["ns"], g["data"]),
            "sloppy": lambda side, g, rng: store(side, g, g["ns"] if rng.random() < 0.5 else g["other"], g["data"]),
            "partial": lambda side, g, rng: store(side, g, None, ""),
            "wrong": lambda side, g, rng: store(side, g, g["ns"], "TODO"),
        },
        reward,
    )


def _kb_forget() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        listed = await _kb_listed(side, g["ns"])
        kept = [f"{g['ns']}/{key}" in listed for key in g["keys"]]
        return float(not kept[1]) * (1.0 + kept[0] + kept[2]) / 3  # the others kept count only with it gone

    return _fixture_task(
        "forget one entry of three",
        _kb_draw,
        _kb_stored,
        {
            "perfect": lambda side, g, rng: _kb_act(side, g, [("delete", 1, {})]),
            "sloppy": lambda side, g, rng: _kb_act(side, g, [("delete", 1 if rng.random() < 0.5 else 2, {})]),
            "partial": lambda side, g, rng: _kb_act(side, g, [("get", 1, {})]),
            "wrong": lambda side, g, rng: _kb_act(side, g, [("delete", n, {}) for n in range(3)]),
        },
        reward,
    )


def _kb_edit() -> Task:
    def hour(g: dict[str, Any]) -> str:
        return str(g["data"]).split(" at ")[1]

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        key = g["keys"][0]
        edited = f"{g['data'].replace(hour(g), g['new'])} ({key})"
        return float(await _kb_data(side, g["ns"], key) == edited)

    def edit(index: int, g: dict[str, Any]) -> tuple[str, int, dict[str, Any]]:
        return ("replace", index, {"old_string": hour(g), "new_string": g["new"]})

    return _fixture_task(
        "edit an entry's data in place",
        _kb_draw,
        _kb_stored,
        {
            "perfect": lambda side, g, rng: _kb_act(side, g, [edit(0, g)]),
            "sloppy": lambda side, g, rng: _kb_act(side, g, [edit(0 if rng.random() < 0.5 else 1, g)]),
            "partial": lambda side, g, rng: _kb_act(side, g, [("get", 0, {"include_data": True})]),
            "wrong": lambda side, g, rng: _kb_act(side, g, [("save", 0, {"data": g["new"]})]),  # the whole data
        },
        reward,
    )


# --- tasker: tasks and subtasks with a lifecycle (dev, the sixth set) ------------------------------

_TASKER_LINE = re.compile(r"^([.~?x-]) (\S+)  (.*?)(?: \(\.\.\.\))?$", re.MULTILINE)
_TASKER_STATUS = re.compile(r"^status: (\S+)$", re.MULTILINE)


async def _tasker_tasks(side: Side, g: dict[str, Any]) -> None:
    ids = []
    for title in g["titles"]:
        value, _ = await side.call("create_task", {"title": title})
        ids.append(value.get("id") if isinstance(value, dict) and isinstance(value.get("id"), str) else None)
    g[f"ids@{id(side)}"] = ids


def _tasker_id(side: Side, g: dict[str, Any], index: int) -> str | None:
    ids = g.get(f"ids@{id(side)}", [])
    return ids[index] if index < len(ids) else None


async def _tasker_view(side: Side, task: str | None) -> str:
    """The markdown view_tasks gives for one task ("" when there is no such task)."""
    if task is None:
        return ""
    value, error = await side.call("view_tasks", {"task_refs": [task]})
    value = value.get("result") if isinstance(value, dict) else value
    return value if not error and isinstance(value, str) else ""


def _tasker_draw(rng: random.Random) -> dict[str, Any]:
    return {
        "titles": [f"{word.capitalize()} {_name(rng)}" for word in rng.sample(_WORDS, 3)],
        "subtasks": [f"{word.capitalize()} step {rng.randint(1, 9)}" for word in rng.sample(_WORDS, 2)],
    }


async def _tasker_act(side: Side, g: dict[str, Any], steps: list[tuple[str, int, dict[str, Any]]]) -> None:
    """Each step: a tool, the index of the episode's task it takes, the rest of its arguments."""
    for tool, index, rest in steps:
        task = _tasker_id(side, g, index)
        if task is not None:
            await side.call(tool, {"task_ref": task, **rest})


def _tasker_finish() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        status = _TASKER_STATUS.search(await _tasker_view(side, _tasker_id(side, g, 0)))
        return float(status is not None and status.group(1) == "done")

    lifecycle: list[tuple[str, int, dict[str, Any]]] = [("start_task", 0, {}), ("review_task", 0, {})]
    lifecycle.append(("finish_task", 0, {}))
    return _fixture_task(
        "take a task through review to done",
        _tasker_draw,
        _tasker_tasks,
        {
            "perfect": lambda side, g, rng: _tasker_act(side, g, lifecycle),
            "sloppy": lambda side, g, rng: _tasker_act(side, g, lifecycle[: 3 if rng.random() < 0.5 else 2]),
            "partial": lambda side, g, rng: _tasker_act(side, g, lifecycle[:1]),
            "wrong": lambda side, g, rng: _tasker_act(side, g, [("cancel_task", 0, {})]),
        },
        reward,
    )


def _tasker_split() -> Task:
    async def split(side: Side, g: dict[str, Any], parents: list[int | None]) -> None:
        for title, index in zip(g["subtasks"], parents, strict=False):
            parent = None if index is None else _tasker_id(side, g, index)
            await side.call("create_task", {"title": title, **({"parent": parent} if parent else {})})

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        view = await _tasker_view(side, _tasker_id(side, g, 0))
        _, mark, subtasks = view.partition("## Subtasks")
        titles = {title for _, _, title in _TASKER_LINE.findall(subtasks)} if mark else set()
        return sum(title in titles for title in g["subtasks"]) / 2

    return _fixture_task(
        "split a task into two subtasks",
        _tasker_draw,
        _tasker_tasks,
        {
            "perfect": lambda side, g, rng: split(side, g, [0, 0]),
            "sloppy": lambda side, g, rng: split(side, g, [0, 0 if rng.random() < 0.5 else 1]),
            "partial": lambda side, g, rng: split(side, g, [0]),
            "wrong": lambda side, g, rng: split(side, g, [None, None]),  # two new tasks, not under it
        },
        reward,
    )


def _tasker_cancel() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        value, error = await side.call("list_tasks", {})
        value = value.get("result") if isinstance(value, dict) else value
        signs = {task: sign for sign, task, _ in _TASKER_LINE.findall(value if isinstance(value, str) else "")}
        states = [signs.get(_tasker_id(side, g, n) or "") for n in range(3)]
        if error:
            return 0.0
        others = sum(state == "." for state in (states[0], states[2]))
        return float(states[1] == "-") * (1.0 + float(others)) / 3  # the others pending count only with it cancelled

    def cancel(*indexes: int) -> list[tuple[str, int, dict[str, Any]]]:
        return [("cancel_task", index, {}) for index in indexes]

    return _fixture_task(
        "cancel one task of three (the others left pending)",
        _tasker_draw,
        _tasker_tasks,
        {
            "perfect": lambda side, g, rng: _tasker_act(side, g, cancel(1)),
            "sloppy": lambda side, g, rng: _tasker_act(side, g, cancel(1 if rng.random() < 0.5 else 2)),
            "partial": lambda side, g, rng: _tasker_act(side, g, [("start_task", 1, {})]),
            "wrong": lambda side, g, rng: _tasker_act(side, g, cancel(0, 1, 2)),
        },
        reward,
    )


# --- bizdays: business-day arithmetic over public holidays, no state (dev, the sixth set) ----------


def _day_number(field: str) -> Callable[[Any], float | None]:
    """How an answer is read as a number: its date `field` as a day count (date.toordinal)."""

    def read(value: Any) -> float | None:
        found = value.get(field) if isinstance(value, dict) else None
        try:
            return float(datetime.date.fromisoformat(found).toordinal()) if isinstance(found, str) else None
        except ValueError:
            return None

    return read


def _count(field: str) -> Callable[[Any], float | None]:
    def read(value: Any) -> float | None:
        found = value.get(field) if isinstance(value, dict) else None
        return float(found) if isinstance(found, int) and not isinstance(found, bool) else None

    return read


def _bizdays_draw(rng: random.Random) -> dict[str, Any]:
    start = datetime.date(2027, 1, 1) + datetime.timedelta(days=rng.randint(0, 330))
    holiday = rng.choice(("2026-12-24", "2027-01-01", "2027-04-02", "2027-05-01", "2027-12-24", "2027-10-03"))
    return {
        "country": rng.choice(("US", "DE", "GB", "FR", "JP")),
        "holiday": holiday,
        "start": start.isoformat(),
        "end": (start + datetime.timedelta(days=rng.randint(10, 80))).isoformat(),
        "year": rng.choice((2026, 2027)),
        "month": rng.randint(1, 12),
    }


def _next_day(g: dict[str, Any], how: str) -> tuple[str, dict[str, Any], Callable[[Any], float | None]]:
    if how == "partial":  # the date itself, whether or not it is a business day
        return "is_business_day", {"date": g["holiday"], "country": g["country"]}, _day_number("date")
    tool = "previous_business_day" if how == "wrong" else "next_business_day"  # wrong: the other way
    arguments = {"date": g["holiday"], "country": g["country"]}
    if how == "sloppy":
        arguments["date"] = (datetime.date.fromisoformat(g["holiday"]) - datetime.timedelta(days=1)).isoformat()
    return tool, arguments, _day_number(tool)


def _days_between_dates(g: dict[str, Any], how: str) -> tuple[str, dict[str, Any], Callable[[Any], float | None]]:
    arguments: dict[str, Any] = {"start_date": g["start"], "end_date": g["end"], "country": g["country"]}
    if how == "sloppy":
        arguments["inclusive"] = True  # counts the start too
    if how == "wrong":
        arguments.update(start_date=g["end"], end_date=g["start"])  # the dates swapped
    return "business_days_between", arguments, _count("calendar_days" if how == "partial" else "business_days")


def _month_end(g: dict[str, Any], how: str) -> tuple[str, dict[str, Any], Callable[[Any], float | None]]:
    year = g["year"] + 1 if how == "wrong" else g["year"]  # wrong: the next year's month
    month = g["month"] % 12 + 1 if how == "sloppy" else g["month"]  # sloppy: the month after
    arguments = {"year": year, "month": month, "country": g["country"]}
    field = "last_calendar_day" if how == "partial" else "last_business_day"  # partial: the calendar's last day
    return "last_business_day_of_month", arguments, _day_number(field)


def _bizdays_task(
    name: str, steps: Callable[[dict[str, Any], str], tuple[str, dict[str, Any], Callable[[Any], float | None]]]
) -> Task:
    """The agent's figure against the perfect call made through that server's own tools (as units')."""
    task = _units_task(name, steps)
    return Task(name, _bizdays_draw, task.setup, task.agents, task.reward)


async def _once(side: Side, tool: str, arguments: dict[str, Any]) -> None:
    """One call whose answer the agent does not use."""
    await side.call(tool, arguments)


# --- memex: work entries saved under a number (the seventh set, dev now) ------------------------------

_MEMEX_SAVED = re.compile(r"Saved memory #(\d+)")
_MEMEX_ENTRY = re.compile(r"^\[\d+\] #(\d+) ", re.MULTILINE)


def _memex_entries(value: Any) -> dict[int, dict[str, list[str]]]:
    """number -> field -> the values a listing shows of it (`  Task      : ...`, one line a value)."""
    text = _kb_text(value)
    entries: dict[int, dict[str, list[str]]] = {}
    starts = list(_MEMEX_ENTRY.finditer(text))
    for at, start in enumerate(starts):
        block = text[start.end() : starts[at + 1].start() if at + 1 < len(starts) else len(text)]
        fields: dict[str, list[str]] = {}
        for line in block.splitlines():
            name, mark, shown = line.strip().partition(" : ")
            if mark:
                fields.setdefault(name.strip(), []).append(shown.strip())
        entries[int(start.group(1))] = fields
    return entries


async def _memex_listed(side: Side, arguments: dict[str, Any]) -> dict[int, dict[str, list[str]]]:
    value, error = await side.call("mem_list", {"limit": 50, **arguments})
    return {} if error else _memex_entries(value)


def _memex_draw(rng: random.Random) -> dict[str, Any]:
    return {
        "tasks": [f"{word.capitalize()} the {_name(rng)} module" for word in rng.sample(_WORDS, 3)],
        "tag": rng.choice(_WORDS),
        "other": f"{rng.choice(_WORDS)}-tag",
        "warning": f"{rng.choice(_WORDS)} breaks at {rng.randint(1, 12)} o'clock",
    }


async def _memex_saved(side: Side, g: dict[str, Any]) -> None:
    ids = []
    for task in g["tasks"]:
        value, _ = await side.call("mem_save", {"task": task, "tags": ["setup"]})
        made = _MEMEX_SAVED.search(_kb_text(value))
        ids.append(int(made.group(1)) if made else None)
    g[f"ids@{id(side)}"] = ids


async def _memex_act(side: Side, g: dict[str, Any], steps: list[tuple[str, int, dict[str, Any]]]) -> None:
    """Each step: a tool, the index of the episode's entry it takes (by the number its save answered), the
    rest of its arguments."""
    ids = g.get(f"ids@{id(side)}", [])
    for tool, index, rest in steps:
        if index < len(ids) and ids[index] is not None:
            await side.call(tool, {"entry_id": ids[index], **rest})


def _memex_tasks(entries: dict[int, dict[str, list[str]]]) -> list[str]:
    return [task for fields in entries.values() for task in fields.get("Task", [])]


def _memex_save() -> Task:
    async def save(side: Side, g: dict[str, Any], task: str | None, tag: str) -> None:
        if task is None:
            await side.call("mem_search", {"query": g["tag"]})  # looks, never saves
            return
        await side.call("mem_save", {"task": task, "tags": [tag]})

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        return float(g["tasks"][0] in _memex_tasks(await _memex_listed(side, {"tag": g["tag"]})))

    return _fixture_task(
        "save an entry with its tag",
        _memex_draw,
        _nothing,
        {
            "perfect": lambda side, g, rng: save(side, g, g["tasks"][0], g["tag"]),
            "sloppy": lambda side, g, rng: save(side, g, g["tasks"][0], g["tag"] if rng.random() < 0.5 else g["other"]),
            "partial": lambda side, g, rng: save(side, g, None, ""),
            "wrong": lambda side, g, rng: save(side, g, "TODO", g["tag"]),
        },
        reward,
    )


def _memex_forget() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        listed = _memex_tasks(await _memex_listed(side, {}))
        kept = [task in listed for task in g["tasks"]]
        return float(not kept[1]) * (1.0 + kept[0] + kept[2]) / 3  # the others kept count only with it gone

    return _fixture_task(
        "forget one entry of three",
        _memex_draw,
        _memex_saved,
        {
            "perfect": lambda side, g, rng: _memex_act(side, g, [("mem_delete", 1, {})]),
            "sloppy": lambda side, g, rng: _memex_act(side, g, [("mem_delete", 1 if rng.random() < 0.5 else 2, {})]),
            "partial": lambda side, g, rng: _memex_act(side, g, [("mem_update", 1, {"notes": "to delete"})]),
            "wrong": lambda side, g, rng: _memex_act(side, g, [("mem_delete", n, {}) for n in range(3)]),
        },
        reward,
    )


def _memex_warn() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        entries = await _memex_listed(side, {})
        warned = [fields for fields in entries.values() if fields.get("Task") == [g["tasks"][0]]]
        ok = len(warned) == 1 and warned[0].get("Warning") == [g["warning"]]
        return float(ok and len(entries) == 3)  # added to the entry, not a new one beside it

    return _fixture_task(
        "add a warning to an entry (the entry kept)",
        _memex_draw,
        _memex_saved,
        {
            "perfect": lambda side, g, rng: _memex_act(side, g, [("mem_update", 0, {"warnings": [g["warning"]]})]),
            "sloppy": lambda side, g, rng: _memex_act(
                side, g, [("mem_update", 0 if rng.random() < 0.5 else 1, {"warnings": [g["warning"]]})]
            ),
            "partial": lambda side, g, rng: _memex_act(side, g, [("mem_update", 0, {"notes": g["warning"]})]),
            "wrong": lambda side, g, rng: _once(side, "mem_save", {"task": g["tasks"][0], "warnings": [g["warning"]]}),
        },
        reward,
    )


# --- memtask: tasks with a lifecycle beside memories (the seventh set, dev now) -----------------------


def _memtask_json(value: Any) -> Any:
    """The JSON a memtask answer's text holds (its structured `result` wraps it as text)."""
    text = _kb_text(value)
    try:
        return json.loads(text) if text else None
    except ValueError:
        return None


def _memtask_draw(rng: random.Random) -> dict[str, Any]:
    return {
        "titles": [f"{word.capitalize()} {_name(rng)}" for word in rng.sample(_WORDS, 3)],
        "fact": f"{rng.choice(_WORDS)} deploys at {rng.randint(1, 12)} o'clock",
        "scope": f"{rng.choice(_WORDS)}-service",
        "other": f"{rng.choice(_WORDS)}-api",
        "kind": rng.choice(("fact", "decision", "lesson")),
    }


async def _memtask_tasks(side: Side, g: dict[str, Any]) -> None:
    refs = []
    for title in g["titles"]:
        value, _ = await side.call("add_task", {"description": title})
        task = _memtask_json(value)
        refs.append(task.get("task_ref") if isinstance(task, dict) else None)
    g[f"ids@{id(side)}"] = refs


async def _memtask_act(side: Side, g: dict[str, Any], steps: list[tuple[str, int]]) -> None:
    """Each step: a tool and the index of the episode's task it takes (by the ref its add answered)."""
    refs = g.get(f"ids@{id(side)}", [])
    for tool, index in steps:
        if index < len(refs) and isinstance(refs[index], str):
            await side.call(tool, {"task_id": refs[index]})


def _memtask_complete() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        refs = g.get(f"ids@{id(side)}", [])
        if not refs or not isinstance(refs[0], str):
            return 0.0
        value, error = await side.call("get_task", {"task_id": refs[0]})
        task = None if error else _memtask_json(value)
        return float(isinstance(task, dict) and task.get("status") == "completed")

    return _fixture_task(
        "complete a task",
        _memtask_draw,
        _memtask_tasks,
        {
            "perfect": lambda side, g, rng: _memtask_act(side, g, [("complete_task", 0)]),
            "sloppy": lambda side, g, rng: _memtask_act(side, g, [("complete_task", 0 if rng.random() < 0.5 else 1)]),
            "partial": lambda side, g, rng: _memtask_act(side, g, [("set_current_task", 0)]),
            "wrong": lambda side, g, rng: _memtask_act(side, g, [("remove_task", 0)]),
        },
        reward,
    )


def _memtask_remember() -> Task:
    async def remember(side: Side, g: dict[str, Any], scope: str | None) -> None:
        if scope is None:
            await side.call("recall", {"memory_scope": g["scope"]})  # looks, never remembers
            return
        await side.call("remember", {"content": g["fact"], "memory_scope": scope, "kind": g["kind"]})

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        value, error = await side.call("recall", {"memory_scope": g["scope"]})
        found = None if error else _memtask_json(value)
        memories = [m for m in found if isinstance(m, dict)] if isinstance(found, list) else []
        return float(any(m.get("content") == g["fact"] and m.get("kind") == g["kind"] for m in memories))

    return _fixture_task(
        "remember a fact in a scope",
        _memtask_draw,
        _nothing,
        {
            "perfect": lambda side, g, rng: remember(side, g, g["scope"]),
            "sloppy": lambda side, g, rng: remember(side, g, g["scope"] if rng.random() < 0.5 else g["other"]),
            "partial": lambda side, g, rng: remember(side, g, None),
            "wrong": lambda side, g, rng: _once(side, "add_task", {"description": g["fact"], "project": g["scope"]}),
        },
        reward,
    )


def _memtask_drop() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        value, error = await side.call("list_tasks", {})
        found = None if error else _memtask_json(value)
        pending = {t.get("description") for t in found if isinstance(t, dict)} if isinstance(found, list) else set()
        kept = [title in pending for title in g["titles"]]
        return float(not kept[1]) * (1.0 + kept[0] + kept[2]) / 3  # the others pending count only with it gone

    return _fixture_task(
        "remove one task of three (the others left pending)",
        _memtask_draw,
        _memtask_tasks,
        {
            "perfect": lambda side, g, rng: _memtask_act(side, g, [("remove_task", 1)]),
            "sloppy": lambda side, g, rng: _memtask_act(side, g, [("remove_task", 1 if rng.random() < 0.5 else 2)]),
            "partial": lambda side, g, rng: _memtask_act(side, g, [("get_task", 1)]),
            "wrong": lambda side, g, rng: _once(side, "remove_all_tasks", {}),
        },
        reward,
    )


# --- acb: adjusted cost base over the trades a call gives, no state (the seventh set, dev now) --------


def _field(*path: str | int) -> Callable[[Any], float | None]:
    """How an answer is read as a number: the number at `path` in its JSON (a key, or a list's index)."""

    def read(value: Any) -> float | None:
        for step in path:
            if isinstance(step, int):
                value = value[step] if isinstance(value, list) and step < len(value) else None
            else:
                value = value.get(step) if isinstance(value, dict) else None
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None

    return read


def _acb_draw(rng: random.Random) -> dict[str, Any]:
    year = rng.choice((2024, 2025))
    return {
        "security": rng.choice(("XEQT", "VFV", "RY", "ENB", "SHOP")),
        "year": year,
        "first": {
            "date": f"{year - 1}-{rng.randint(1, 6):02d}-{rng.randint(1, 28):02d}",
            "shares": rng.randint(5, 40) * 10,
        },
        "second": {
            "date": f"{year - 1}-{rng.randint(7, 12):02d}-{rng.randint(1, 28):02d}",
            "shares": rng.randint(1, 20) * 10,
        },
        "prices": [round(rng.uniform(10, 150), 2) for _ in range(3)],
        "commission": rng.choice((4.95, 9.99)),
        "sale": {"date": f"{year}-{rng.randint(2, 11):02d}-{rng.randint(1, 28):02d}", "shares": rng.randint(1, 5) * 10},
        "market": round(rng.uniform(10, 150), 2),
    }


def _buys(g: dict[str, Any], commission: bool = True, both: bool = True) -> list[dict[str, Any]]:
    trades = []
    for which, price in zip(("first", "second") if both else ("first",), g["prices"], strict=False):
        trade = {"date": g[which]["date"], "action": "buy", "security": g["security"], "shares": g[which]["shares"]}
        trade["price"] = price
        if commission:
            trade["commission"] = g["commission"]
        trades.append(trade)
    return trades


def _acb_per_share(g: dict[str, Any], how: str) -> tuple[str, dict[str, Any], Callable[[Any], float | None]]:
    trades = _buys(g, commission=how != "sloppy", both=how != "partial")  # sloppy: no commissions; partial: one buy
    if how == "wrong":
        trades[1]["action"] = "sell"  # the second trade read as a sale
    return "acb_summary", {"transactions": trades}, _field("holdings", 0, "acb_per_share")


def _taxable_gain(g: dict[str, Any], how: str) -> tuple[str, dict[str, Any], Callable[[Any], float | None]]:
    sale = {"date": g["sale"]["date"], "action": "sell", "security": g["security"], "shares": g["sale"]["shares"]}
    sale.update(price=g["prices"][2], commission=g["commission"])
    trades = [*_buys(g), sale]
    if how == "sloppy":
        sale.pop("commission")  # the sale's commission left out
    year = g["year"] - 1 if how == "wrong" else g["year"]  # wrong: the year before the sale
    field = "net_capital_gain" if how == "partial" else "taxable_capital_gain"  # partial: before the inclusion rate
    return "capital_gains_report", {"transactions": trades, "tax_year": year}, _field("summary", field)


def _unrealized(g: dict[str, Any], how: str) -> tuple[str, dict[str, Any], Callable[[Any], float | None]]:
    if how == "partial":  # the book cost alone, no market value
        return "acb_summary", {"transactions": _buys(g)}, _field("holdings", 0, "total_acb")
    price = g["prices"][0] if how == "wrong" else g["market"]  # wrong: the first buy's price as the market's
    trades = _buys(g, both=how != "sloppy")  # sloppy: the second buy forgotten
    return (
        "unrealized_gains",
        {"transactions": trades, "market_prices": {g["security"]: price}},
        _field("totals", "unrealized_gain"),
    )


def _acb_task(
    name: str, steps: Callable[[dict[str, Any], str], tuple[str, dict[str, Any], Callable[[Any], float | None]]]
) -> Task:
    """The agent's figure against the perfect call made through that server's own tools (as units')."""
    task = _units_task(name, steps)
    return Task(name, _acb_draw, task.setup, task.agents, task.reward)


# --- memdb: memories saved under a topic, read back by number (the eighth set, dev now) ---------------


def _memdb_draw(rng: random.Random) -> dict[str, Any]:
    return {
        "topics": [f"{word} {_name(rng)}" for word in rng.sample(_WORDS, 3)],
        "content": f"{rng.choice(_WORDS)} ships at {rng.randint(1, 12)} o'clock",
        "tag": rng.choice(_WORDS),
        "other": f"{rng.choice(_WORDS)}x",
        "note": f"moved to room {rng.randint(100, 999)}",
    }


async def _memdb_saved(side: Side, g: dict[str, Any]) -> None:
    ids = []
    for topic in g["topics"]:
        value, _ = await side.call("save_memory", {"topic": topic, "content": f"about {topic}", "tags": "setup"})
        saved = _memtask_json(value)
        ids.append(saved.get("id") if isinstance(saved, dict) else None)
    g[f"ids@{id(side)}"] = ids


async def _memdb_act(side: Side, g: dict[str, Any], steps: list[tuple[str, int, dict[str, Any]]]) -> None:
    """Each step: a tool, the index of the episode's memory it takes (by the number its save answered), the
    rest of its arguments."""
    ids = g.get(f"ids@{id(side)}", [])
    for tool, index, rest in steps:
        if index < len(ids) and isinstance(ids[index], int):
            await side.call(tool, {"memory_id": ids[index], **rest})


async def _memdb_listed(side: Side, arguments: dict[str, Any]) -> dict[str, int]:
    """topic -> number of the memories list_memories gives."""
    value, error = await side.call("list_memories", {**arguments, "limit": 100})
    found = None if error else _memtask_json(value)
    results = found.get("results") if isinstance(found, dict) else None
    return {
        str(item.get("topic")): item["id"]
        for item in results or []
        if isinstance(item, dict) and isinstance(item.get("id"), int)
    }


async def _memdb_content(side: Side, number: int) -> str | None:
    value, error = await side.call("get_memory", {"memory_id": number})
    found = None if error else _memtask_json(value)
    content = found.get("content") if isinstance(found, dict) else None
    return content if isinstance(content, str) else None


def _memdb_save() -> Task:
    async def save(side: Side, g: dict[str, Any], content: str | None, tag: str) -> None:
        if content is None:
            await side.call("search_memory", {"query": g["topics"][0]})  # looks, never saves
            return
        await side.call("save_memory", {"topic": g["topics"][0], "content": content, "tags": tag})

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        number = (await _memdb_listed(side, {"tag": g["tag"]})).get(g["topics"][0])
        return float(number is not None and await _memdb_content(side, number) == g["content"])

    return _fixture_task(
        "save a memory under a topic with its tag",
        _memdb_draw,
        _nothing,
        {
            "perfect": lambda side, g, rng: save(side, g, g["content"], g["tag"]),
            "sloppy": lambda side, g, rng: save(side, g, g["content"], g["tag"] if rng.random() < 0.5 else g["other"]),
            "partial": lambda side, g, rng: save(side, g, None, ""),
            "wrong": lambda side, g, rng: save(side, g, "TODO", g["tag"]),
        },
        reward,
    )


def _memdb_forget() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        listed = await _memdb_listed(side, {})
        kept = [topic in listed for topic in g["topics"]]
        return float(not kept[1]) * (1.0 + kept[0] + kept[2]) / 3  # the others kept count only with it gone

    return _fixture_task(
        "forget one memory of three",
        _memdb_draw,
        _memdb_saved,
        {
            "perfect": lambda side, g, rng: _memdb_act(side, g, [("delete_memory", 1, {})]),
            "sloppy": lambda side, g, rng: _memdb_act(side, g, [("delete_memory", 1 if rng.random() < 0.5 else 2, {})]),
            "partial": lambda side, g, rng: _memdb_act(side, g, [("update_memory", 1, {"importance": "low"})]),
            "wrong": lambda side, g, rng: _memdb_act(side, g, [("delete_memory", n, {}) for n in range(3)]),
        },
        reward,
    )


def _memdb_append() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        listed = await _memdb_listed(side, {})
        number = listed.get(g["topics"][0])
        content = await _memdb_content(side, number) if number is not None else None
        if content is None:
            return 0.0
        kept = content.startswith(f"about {g['topics'][0]}")
        return float(kept and g["note"] in content and len(listed) == 3)  # added to it, not a new one beside it

    return _fixture_task(
        "add a note to a memory (its content kept)",
        _memdb_draw,
        _memdb_saved,
        {
            "perfect": lambda side, g, rng: _memdb_act(side, g, [("append_memory", 0, {"content": g["note"]})]),
            "sloppy": lambda side, g, rng: _memdb_act(
                side, g, [("append_memory", 0 if rng.random() < 0.5 else 1, {"content": g["note"]})]
            ),
            "partial": lambda side, g, rng: _memdb_act(side, g, [("update_memory", 0, {"content": g["note"]})]),
            "wrong": lambda side, g, rng: _once(side, "save_memory", {"topic": g["topics"][0], "content": g["note"]}),
        },
        reward,
    )


# --- cadence: to-dos with a lifecycle, by id (the eighth set, dev now) --------------------------------


def _cadence_draw(rng: random.Random) -> dict[str, Any]:
    return {
        "titles": [f"{word.capitalize()} {_name(rng)}" for word in rng.sample(_WORDS, 3)],
        "priority": rng.choice(("low", "med", "high")),
        "due": f"2027-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        "parts": [f"{word.capitalize()} part" for word in rng.sample(_WORDS, 2)],
    }


async def _cadence_added(side: Side, g: dict[str, Any]) -> None:
    ids = []
    for title in g["titles"]:
        value, _ = await side.call("add_task", {"title": title})
        task = value.get("task") if isinstance(value, dict) else None
        ids.append(task.get("id") if isinstance(task, dict) else None)
    g[f"ids@{id(side)}"] = ids


async def _cadence_act(side: Side, g: dict[str, Any], steps: list[tuple[str, int, dict[str, Any]]]) -> None:
    """Each step: a tool, the index of the episode's task it takes (by the id its add answered), the rest of
    its arguments."""
    ids = g.get(f"ids@{id(side)}", [])
    for tool, index, rest in steps:
        if index < len(ids) and isinstance(ids[index], int):
            await side.call(tool, {"id": ids[index], **rest})


async def _cadence_shown(side: Side, g: dict[str, Any], index: int) -> dict[str, Any]:
    """show_task's answer for the episode's task `index` (empty when it has none)."""
    ids = g.get(f"ids@{id(side)}", [])
    if index >= len(ids) or not isinstance(ids[index], int):
        return {}
    value, error = await side.call("show_task", {"id": ids[index]})
    return value if not error and isinstance(value, dict) and value.get("ok") is True else {}


async def _cadence_undone(side: Side, g: dict[str, Any]) -> None:
    """Completes the task, then undoes the wrong change: the completion itself."""
    await _cadence_act(side, g, [("complete_task", 0, {})])
    await side.call("undo", {})


def _cadence_complete() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        task = (await _cadence_shown(side, g, 0)).get("task")
        return float(isinstance(task, dict) and task.get("status") == "done")

    return _fixture_task(
        "complete a task",
        _cadence_draw,
        _cadence_added,
        {
            "perfect": lambda side, g, rng: _cadence_act(side, g, [("complete_task", 0, {})]),
            "sloppy": lambda side, g, rng: _cadence_act(
                side, g, [("complete_task", 0 if rng.random() < 0.5 else 1, {})]
            ),
            "partial": lambda side, g, rng: _cadence_act(side, g, [("reprioritise_task", 0, {"priority": "high"})]),
            "wrong": lambda side, g, rng: _cadence_undone(side, g),
        },
        reward,
    )


def _cadence_add() -> Task:
    async def add(side: Side, g: dict[str, Any], arguments: dict[str, Any] | None) -> None:
        if arguments is None:
            await side.call("list_tasks", {})  # looks, never adds
            return
        await side.call("add_task", {"title": g["titles"][0], **arguments})

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        value, error = await side.call("list_tasks", {"status": "pending"})
        tasks = value.get("tasks") if not error and isinstance(value, dict) else None
        wanted = {"title": g["titles"][0], "priority": g["priority"], "due": g["due"]}
        return float(any(isinstance(t, dict) and all(t.get(k) == v for k, v in wanted.items()) for t in tasks or []))

    return _fixture_task(
        "add a task with its priority and due date",
        _cadence_draw,
        _nothing,
        {
            "perfect": lambda side, g, rng: add(side, g, {"priority": g["priority"], "due": g["due"]}),
            "sloppy": lambda side, g, rng: add(
                side, g, {"priority": g["priority"], "due": g["due"]} if rng.random() < 0.5 else {"due": g["due"]}
            ),
            "partial": lambda side, g, rng: add(side, g, None),
            "wrong": lambda side, g, rng: add(side, g, {"priority": g["priority"], "due": "2027-13-01"}),
        },
        reward,
    )


def _cadence_split() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        subtasks = (await _cadence_shown(side, g, 0)).get("subtasks")
        titles = sorted(str(t.get("title")) for t in subtasks or [] if isinstance(t, dict))
        return float(titles == sorted(g["parts"]))

    async def separately(side: Side, g: dict[str, Any]) -> None:
        for part in g["parts"]:
            await side.call("add_task", {"title": part})  # two tasks, not under the first

    return _fixture_task(
        "split a task into two subtasks",
        _cadence_draw,
        _cadence_added,
        {
            "perfect": lambda side, g, rng: _cadence_act(side, g, [("decompose_task", 0, {"into": g["parts"]})]),
            "sloppy": lambda side, g, rng: _cadence_act(
                side, g, [("decompose_task", 0, {"into": g["parts"] if rng.random() < 0.5 else g["parts"][:1]})]
            ),
            "partial": lambda side, g, rng: _cadence_act(side, g, [("show_task", 0, {})]),
            "wrong": lambda side, g, rng: separately(side, g),
        },
        reward,
    )


# --- charidx: character-level string work by index, no state (the eighth set, dev now) -----------------


def _charidx_draw(rng: random.Random) -> dict[str, Any]:
    words = rng.sample(_WORDS, 4)
    text = " ".join(f"{word}-{rng.randint(10, 99)}" for word in words)
    return {
        "text": text,
        "char": rng.choice(sorted({letter for letter in text if letter.isalpha()})),
        "n": rng.randint(2, 3),
        "marked": f"{words[0]} [{words[1]}] and [{words[2]} {rng.randint(1, 9)}] then [{words[3]}]",
        "occurrence": rng.randint(2, 3),
    }


def _nth_char(g: dict[str, Any], how: str) -> tuple[str, dict[str, Any], Callable[[Any], float | None]]:
    text = " ".join([g["text"]] * 3)  # a letter of the text, so there at least three times
    n = {"sloppy": g["n"] + 1, "wrong": g["n"]}.get(how, g["n"])  # sloppy: one occurrence further
    char = g["char"].upper() if how == "wrong" else g["char"]  # wrong: the capital letter, never there
    if how == "partial":  # the first occurrence only, whatever n
        return "find_nth_char", {"text": text, "char": char}, _field("result")
    return "find_nth_char", {"text": text, "char": char, "n": n}, _field("result")


def _letters(g: dict[str, Any], how: str) -> tuple[str, dict[str, Any], Callable[[Any], float | None]]:
    text = g["text"].split()[0] if how == "sloppy" else g["text"]  # sloppy: the first word only
    field = {"partial": "without_spaces", "wrong": "digits"}.get(how, "letters")
    return "count_chars", {"text": text}, _field(field)


def _between(g: dict[str, Any], how: str) -> tuple[str, dict[str, Any], Callable[[Any], float | None]]:
    occurrence = 1 if how == "sloppy" else g["occurrence"]  # sloppy: the first pair of brackets
    field = {"partial": "full_start", "wrong": "content_end"}.get(how, "content_start")
    arguments = {"text": g["marked"], "start_marker": "[", "end_marker": "]", "occurrence": occurrence}
    return "extract_between_markers", arguments, _field(field)


def _charidx_task(
    name: str, steps: Callable[[dict[str, Any], str], tuple[str, dict[str, Any], Callable[[Any], float | None]]]
) -> Task:
    """The agent's figure against the perfect call made through that server's own tools (as units')."""
    task = _units_task(name, steps)
    return Task(name, _charidx_draw, task.setup, task.agents, task.reward)


# --- lmem: structured memories read back by id (the ninth set, dev now) ----------------------------------


def _lmem_draw(rng: random.Random) -> dict[str, Any]:
    return {
        "titles": [f"{word.capitalize()} {_name(rng)}" for word in rng.sample(_WORDS, 3)],
        "content": f"{rng.choice(_WORDS)} ships at {rng.randint(1, 12)} o'clock",
        "kind": rng.choice(("decision", "project_memory", "environment_fact")),
        "tag": rng.choice(_WORDS),
        "other": f"{rng.choice(_WORDS)}x",
    }


def _lmem_record(value: Any) -> dict[str, Any]:
    """The memory an answer gives: the record itself, or the one its `result` wraps (empty when none)."""
    found = value.get("result", value) if isinstance(value, dict) else None
    return found if isinstance(found, dict) and isinstance(found.get("id"), str) else {}


async def _lmem_added(side: Side, g: dict[str, Any]) -> None:
    ids = []
    for title in g["titles"]:
        value, _ = await side.call(
            "memory_add", {"type": "project_memory", "title": title, "content": f"about {title}"}
        )
        ids.append(_lmem_record(value).get("id"))
    g[f"ids@{id(side)}"] = ids


async def _lmem_act(side: Side, g: dict[str, Any], steps: list[tuple[str, int, dict[str, Any]]]) -> None:
    """Each step: a tool, the index of the episode's memory it takes (by the id its add answered), the rest
    of its arguments."""
    ids = g.get(f"ids@{id(side)}", [])
    for tool, index, rest in steps:
        if index < len(ids) and isinstance(ids[index], str):
            await side.call(tool, {"id": ids[index], **rest})


async def _lmem_recent(side: Side) -> dict[str, dict[str, Any]]:
    """title -> record of the memories memory_list_recent gives."""
    value, error = await side.call("memory_list_recent", {"limit": 100})
    found = value.get("result") if not error and isinstance(value, dict) else None
    return {str(item.get("title")): item for item in found or [] if isinstance(item, dict)}


async def _lmem_status(side: Side, g: dict[str, Any], index: int) -> str | None:
    ids = g.get(f"ids@{id(side)}", [])
    if index >= len(ids) or not isinstance(ids[index], str):
        return None
    value, error = await side.call("memory_get", {"id": ids[index]})
    status = None if error else _lmem_record(value).get("status")
    return status if isinstance(status, str) else None


def _lmem_add() -> Task:
    async def add(side: Side, g: dict[str, Any], arguments: dict[str, Any] | None) -> None:
        if arguments is None:
            await side.call("memory_search", {"query": g["titles"][0].split()[0]})  # looks, never adds
            return
        await side.call("memory_add", {"title": g["titles"][0], **arguments})

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        record = (await _lmem_recent(side)).get(g["titles"][0], {})
        wanted = {"type": g["kind"], "content": g["content"]}
        return float(all(record.get(k) == v for k, v in wanted.items()) and g["tag"] in (record.get("tags") or []))

    def arguments(g: dict[str, Any], content: str, tag: str) -> dict[str, Any]:
        return {"type": g["kind"], "content": content, "tags": [tag]}

    return _fixture_task(
        "add a memory with its kind and tag",
        _lmem_draw,
        _nothing,
        {
            "perfect": lambda side, g, rng: add(side, g, arguments(g, g["content"], g["tag"])),
            "sloppy": lambda side, g, rng: add(
                side, g, arguments(g, g["content"], g["tag"] if rng.random() < 0.5 else g["other"])
            ),
            "partial": lambda side, g, rng: add(side, g, None),
            "wrong": lambda side, g, rng: add(side, g, arguments(g, "TODO", g["tag"])),
        },
        reward,
    )


def _lmem_archive() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        statuses = [await _lmem_status(side, g, index) for index in range(3)]
        kept = [status == "active" for status in statuses]
        return float(statuses[1] == "archived") * (1.0 + kept[0] + kept[2]) / 3  # the others count only with it

    return _fixture_task(
        "archive one memory of three",
        _lmem_draw,
        _lmem_added,
        {
            "perfect": lambda side, g, rng: _lmem_act(side, g, [("memory_update", 1, {"status": "archived"})]),
            "sloppy": lambda side, g, rng: _lmem_act(
                side, g, [("memory_update", 1 if rng.random() < 0.5 else 2, {"status": "archived"})]
            ),
            "partial": lambda side, g, rng: _lmem_act(side, g, [("memory_feedback", 1, {"score": -1})]),
            "wrong": lambda side, g, rng: _lmem_act(
                side, g, [("memory_update", n, {"status": "archived"}) for n in range(3)]
            ),
        },
        reward,
    )


def _lmem_supersede() -> Task:
    async def link(side: Side, g: dict[str, Any], source: int, target: int, relation: str | None) -> None:
        ids = g.get(f"ids@{id(side)}", [])
        if len(ids) < 3 or not all(isinstance(number, str) for number in ids):
            return
        if relation is None:
            await side.call("memory_link_query", {"memory_id": ids[source]})  # looks, never links
            return
        await side.call(
            "memory_link_add", {"source_id": ids[source], "target_id": ids[target], "relation_type": relation}
        )

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        ids = g.get(f"ids@{id(side)}", [])
        if len(ids) < 3 or not isinstance(ids[0], str):
            return 0.0
        value, error = await side.call("memory_link_query", {"memory_id": ids[0], "direction": "outgoing"})
        links = value.get("outgoing") if not error and isinstance(value, dict) else None
        wanted = {(ids[1], "supersedes")}
        found = {(link.get("target_id"), link.get("relation_type")) for link in links or [] if isinstance(link, dict)}
        return float(found == wanted)

    return _fixture_task(
        "mark a memory as superseding another",
        _lmem_draw,
        _lmem_added,
        {
            "perfect": lambda side, g, rng: link(side, g, 0, 1, "supersedes"),
            "sloppy": lambda side, g, rng: link(side, g, 0, 1, "supersedes" if rng.random() < 0.5 else "related_to"),
            "partial": lambda side, g, rng: link(side, g, 0, 1, None),
            "wrong": lambda side, g, rng: link(side, g, 1, 0, "supersedes"),
        },
        reward,
    )


# --- todolist: tasks created in batches, by id (the ninth set, dev now) -----------------------------------


def _todolist_draw(rng: random.Random) -> dict[str, Any]:
    return {
        "titles": [f"{word.capitalize()} {_name(rng)}" for word in rng.sample(_WORDS, 3)],
        "priority": rng.choice(("low", "high")),
        "tag": rng.choice(_WORDS),
        "due": f"2027-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T10:00:00Z",
    }


async def _todolist_created(side: Side, g: dict[str, Any]) -> None:
    value, _ = await side.call("create_tasks", {"tasks": [{"title": title} for title in g["titles"]]})
    created = value.get("created") if isinstance(value, dict) else None
    g[f"ids@{id(side)}"] = list(created) if isinstance(created, list) else []


def _todolist_ids(side: Side, g: dict[str, Any], *indices: int) -> list[int]:
    ids = g.get(f"ids@{id(side)}", [])
    return [ids[index] for index in indices if index < len(ids) and isinstance(ids[index], int)]


async def _todolist_update(side: Side, g: dict[str, Any], index: int, status: str) -> None:
    for number in _todolist_ids(side, g, index):
        await side.call("update_tasks", {"updates": [{"id": number, "status": status}]})


async def _todolist_delete(side: Side, g: dict[str, Any], *indices: int) -> None:
    numbers = _todolist_ids(side, g, *indices)
    if numbers:
        await side.call("delete_tasks", {"ids": numbers})


async def _todolist_listed(side: Side, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    """The tasks list_tasks gives (each its fields, with its id)."""
    value, error = await side.call("list_tasks", {**arguments, "page_size": 100})
    found = value.get("tasks") if not error and isinstance(value, dict) else None
    return [
        {**item["task"], "id": item.get("id")}
        for item in found or []
        if isinstance(item, dict) and isinstance(item.get("task"), dict)
    ]


def _todolist_complete() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        numbers = _todolist_ids(side, g, 0)
        if not numbers:
            return 0.0
        value, error = await side.call("read_tasks", {"ids": numbers})
        found = value.get("tasks") if not error and isinstance(value, dict) else None
        tasks = [item.get("task") for item in found or [] if isinstance(item, dict)]
        return float(len(tasks) == 1 and isinstance(tasks[0], dict) and tasks[0].get("status") == "done")

    return _fixture_task(
        "complete a task",
        _todolist_draw,
        _todolist_created,
        {
            "perfect": lambda side, g, rng: _todolist_update(side, g, 0, "done"),
            "sloppy": lambda side, g, rng: _todolist_update(side, g, 0 if rng.random() < 0.5 else 1, "done"),
            "partial": lambda side, g, rng: _todolist_update(side, g, 0, "in-progress"),
            "wrong": lambda side, g, rng: _todolist_delete(side, g, 0),
        },
        reward,
    )


def _todolist_create() -> Task:
    async def create(side: Side, g: dict[str, Any], task: dict[str, Any] | None) -> None:
        if task is None:
            await side.call("list_tasks", {})  # looks, never creates
            return
        await side.call("create_tasks", {"tasks": [{"title": g["titles"][0], **task}]})

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        tasks = await _todolist_listed(side, {"tags": [g["tag"]]})
        wanted = {"title": g["titles"][0], "priority": g["priority"], "due_date": g["due"]}
        return float(any(all(task.get(k) == v for k, v in wanted.items()) for task in tasks))

    def detailed(g: dict[str, Any], priority: bool = True, due: str | None = None) -> dict[str, Any]:
        task: dict[str, Any] = {"tags": [g["tag"]], "due_date": due or g["due"]}
        return {**task, "priority": g["priority"]} if priority else task

    return _fixture_task(
        "create a task with its priority, tag and due date",
        _todolist_draw,
        _nothing,
        {
            "perfect": lambda side, g, rng: create(side, g, detailed(g)),
            "sloppy": lambda side, g, rng: create(side, g, detailed(g, priority=rng.random() < 0.5)),
            "partial": lambda side, g, rng: create(side, g, None),
            "wrong": lambda side, g, rng: create(side, g, detailed(g, due="2026-01-01T10:00:00Z")),
        },
        reward,
    )


def _todolist_drop() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        titles = {str(task.get("title")) for task in await _todolist_listed(side, {})}
        kept = [title in titles for title in g["titles"]]
        return float(not kept[1]) * (1.0 + kept[0] + kept[2]) / 3  # the others kept count only with it gone

    return _fixture_task(
        "delete one task of three",
        _todolist_draw,
        _todolist_created,
        {
            "perfect": lambda side, g, rng: _todolist_delete(side, g, 1),
            "sloppy": lambda side, g, rng: _todolist_delete(side, g, 1 if rng.random() < 0.5 else 2),
            "partial": lambda side, g, rng: _todolist_update(side, g, 1, "done"),
            "wrong": lambda side, g, rng: _todolist_delete(side, g, 0, 1, 2),
        },
        reward,
    )


# --- exactcalc: exact decimal arithmetic, no state (the ninth set, dev now) --------------------------------


def _exact(field: str) -> Callable[[Any], float | None]:
    """How an answer is read as a number: the exact value (a fraction or a decimal, as text) at `field`."""

    def read(value: Any) -> float | None:
        text = value.get(field) if isinstance(value, dict) else None
        try:
            return float(Fraction(text)) if isinstance(text, str) else None
        except (ValueError, ZeroDivisionError):
            return None

    return read


def _exactcalc_draw(rng: random.Random) -> dict[str, Any]:
    return {
        "a": f"{rng.randint(0, 9)}.{rng.randint(1, 99):02d}",
        "b": f"{rng.randint(1, 9)}.{rng.randint(1, 9)}",
        "c": f"0.{rng.randint(1, 9)}",
        "decimal": f"{rng.randint(0, 20)}.{rng.randint(1, 999):03d}",
    }


def _decimal_sum(g: dict[str, Any], how: str) -> tuple[str, dict[str, Any], Callable[[Any], float | None]]:
    expression = {"sloppy": "{a} + {b}", "wrong": "{a} * {b} + {c}"}.get(how, "{a} + {b} + {c}").format(**g)
    if how == "partial":  # the first number as a fraction only
        return "to_fraction", {"decimal_string": g["a"]}, _exact("fraction")
    return "calculate", {"expression": expression}, _exact("value")


def _fraction_of(g: dict[str, Any], how: str) -> tuple[str, dict[str, Any], Callable[[Any], float | None]]:
    decimal = g["decimal"]
    if how == "wrong":  # its reciprocal
        return "calculate", {"expression": f"1 / {decimal}"}, _exact("value")
    text = {"sloppy": decimal[:-1], "partial": decimal.split(".")[0]}.get(how, decimal)  # a digit short; whole
    return "to_fraction", {"decimal_string": text}, _exact("fraction")


def _rounded_quotient(g: dict[str, Any], how: str) -> tuple[str, dict[str, Any], Callable[[Any], float | None]]:
    expression = {
        "sloppy": "round({a} / {b}, 2)",
        "partial": "{a} / {b}",
        "wrong": "round({b} / {a}, 3)",
    }.get(how, "round({a} / {b}, 3)")
    return "calculate", {"expression": expression.format(**g)}, _exact("value")


def _exactcalc_task(
    name: str, steps: Callable[[dict[str, Any], str], tuple[str, dict[str, Any], Callable[[Any], float | None]]]
) -> Task:
    """The agent's figure against the perfect call made through that server's own tools (as units')."""
    task = _units_task(name, steps)
    return Task(name, _exactcalc_draw, task.setup, task.agents, task.reward)


# --- cachekv: JSON values under keys with a time to live, time series (the tenth set, dev now) -----------


def _cachekv_draw(rng: random.Random) -> dict[str, Any]:
    namespace = rng.choice(_WORDS)
    first = rng.randint(1, 6)
    return {
        "keys": [f"{namespace}:{word}" for word in rng.sample(_WORDS, 3)],
        "value": {"owner": rng.choice(_WORDS), "count": rng.randint(1, 99)},
        "series": f"{rng.choice(_WORDS)}:{rng.randint(100, 999)}",
        "observations": [
            {"date": f"2026-{month:02d}-01", "value": round(rng.uniform(1, 200), 2)}
            for month in range(first, first + 3)
        ],
    }


def _cachekv_json(value: Any) -> Any:
    """The JSON text an answer's `result` holds, read (None when there is none or it is no JSON)."""
    text = value.get("result") if isinstance(value, dict) else None
    try:
        return json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None


async def _cachekv_get(side: Side, key: str) -> Any:
    value, error = await side.call("cache_get", {"key": key})
    return None if error else _cachekv_json(value)


async def _cachekv_set(side: Side, g: dict[str, Any]) -> None:
    for key in g["keys"]:
        await side.call("cache_set", {"key": key, "value": json.dumps({"about": key}), "ttl": 3600})


async def _cachekv_invalidate(side: Side, g: dict[str, Any], *indices: int) -> None:
    for index in indices:
        await side.call("cache_invalidate", {"key": g["keys"][index]})


async def _cachekv_look(side: Side, g: dict[str, Any], index: int) -> None:
    """Reads the key, changes nothing."""
    await side.call("cache_get", {"key": g["keys"][index]})


def _cachekv_cache() -> Task:
    async def put(side: Side, g: dict[str, Any], key: str | None, value: Any) -> None:
        if key is None:
            await _cachekv_look(side, g, 0)  # never caches
            return
        await side.call("cache_set", {"key": key, "value": json.dumps(value), "ttl": 3600})

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        return float(await _cachekv_get(side, g["keys"][0]) == g["value"])

    return _fixture_task(
        "cache a value under a key",
        _cachekv_draw,
        _nothing,
        {
            "perfect": lambda side, g, rng: put(side, g, g["keys"][0], g["value"]),
            "sloppy": lambda side, g, rng: put(side, g, g["keys"][0 if rng.random() < 0.5 else 1], g["value"]),
            "partial": lambda side, g, rng: put(side, g, None, None),
            "wrong": lambda side, g, rng: put(side, g, g["keys"][0], {**g["value"], "count": 0}),
        },
        reward,
    )


def _cachekv_drop() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        kept = [await _cachekv_get(side, key) is not None for key in g["keys"]]
        return float(not kept[1]) * (1.0 + kept[0] + kept[2]) / 3  # the others kept count only with it gone

    return _fixture_task(
        "invalidate one key of three",
        _cachekv_draw,
        _cachekv_set,
        {
            "perfect": lambda side, g, rng: _cachekv_invalidate(side, g, 1),
            "sloppy": lambda side, g, rng: _cachekv_invalidate(side, g, 1 if rng.random() < 0.5 else 2),
            "partial": lambda side, g, rng: _cachekv_look(side, g, 1),
            "wrong": lambda side, g, rng: _cachekv_invalidate(side, g, 0, 1, 2),
        },
        reward,
    )


def _cachekv_series() -> Task:
    async def store(side: Side, g: dict[str, Any], observations: list[dict[str, Any]] | None) -> None:
        if observations is None:
            await side.call("timeseries_list_series", {})  # looks, never stores
            return
        months = [item["date"] for item in g["observations"]]
        await side.call(
            "timeseries_store",
            {
                "series_id": g["series"],
                "observations": json.dumps(observations),
                "range_start": months[0],
                "range_end": months[-1][:8] + "28",
            },
        )

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        months = [item["date"] for item in g["observations"]]
        value, error = await side.call(
            "timeseries_get", {"series_id": g["series"], "start_date": months[0], "end_date": months[-1]}
        )
        found = None if error else _cachekv_json(value)
        rows = {(row.get("date"), row.get("value")) for row in found or [] if isinstance(row, dict)}
        return float(rows == {(item["date"], item["value"]) for item in g["observations"]})

    return _fixture_task(
        "store a time series for its range",
        _cachekv_draw,
        _nothing,
        {
            "perfect": lambda side, g, rng: store(side, g, g["observations"]),
            "sloppy": lambda side, g, rng: store(side, g, g["observations"][: 3 if rng.random() < 0.5 else 2]),
            "partial": lambda side, g, rng: store(side, g, None),
            "wrong": lambda side, g, rng: store(side, g, [{**item, "value": 0} for item in g["observations"]]),
        },
        reward,
    )


# --- glossary: terms with a lifecycle, by lemma (the tenth set, dev now) ----------------------------------


def _glossary_draw(rng: random.Random) -> dict[str, Any]:
    return {
        "lemmas": [f"{word}{rng.randint(10, 99)}" for word in rng.sample(_WORDS, 3)],
        "definition": f"the {rng.choice(_WORDS)} step of the {rng.choice(_WORDS)} process",
        "tag": rng.choice(_WORDS),
        "other": f"{rng.choice(_WORDS)}x",
    }


async def _glossary_added(side: Side, g: dict[str, Any]) -> None:
    for lemma in g["lemmas"]:
        await side.call("add_term", {"lemma": lemma, "tags": ["draft"], "definition": f"what {lemma} means"})


async def _glossary_entry(side: Side, lemma: str) -> dict[str, Any]:
    """The entry lookup_term gives for `lemma` (empty when none)."""
    value, error = await side.call("lookup_term", {"lemma": lemma})
    entry = value.get("entry") if not error and isinstance(value, dict) else None
    return entry if isinstance(entry, dict) else {}


async def _glossary_lemmas(side: Side) -> list[str]:
    value, error = await side.call("list_terms", {})
    found = value.get("lemmas") if not error and isinstance(value, dict) else None
    return [str(lemma) for lemma in found or []]


async def _glossary_act(side: Side, tool: str, arguments: list[dict[str, Any]]) -> None:
    for each in arguments:
        await side.call(tool, each)


def _glossary_add() -> Task:
    async def add(side: Side, g: dict[str, Any], tag: str | None, definition: str) -> None:
        if tag is None:
            await side.call("search", {"query": g["lemmas"][0]})  # looks, never adds
            return
        await side.call("add_term", {"lemma": g["lemmas"][0], "tags": [tag], "definition": definition})

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        entry = await _glossary_entry(side, g["lemmas"][0])
        return float(entry.get("definition") == g["definition"] and g["tag"] in (entry.get("tags") or []))

    return _fixture_task(
        "add a term with its tag and definition",
        _glossary_draw,
        _nothing,
        {
            "perfect": lambda side, g, rng: add(side, g, g["tag"], g["definition"]),
            "sloppy": lambda side, g, rng: add(
                side, g, g["tag"] if rng.random() < 0.5 else g["other"], g["definition"]
            ),
            "partial": lambda side, g, rng: add(side, g, None, ""),
            "wrong": lambda side, g, rng: add(side, g, g["tag"], "TODO"),
        },
        reward,
    )


def _glossary_deprecate() -> Task:
    def retire(g: dict[str, Any], lemma: int, successor: int) -> list[dict[str, Any]]:
        return [{"lemma": g["lemmas"][lemma], "superseded_by": g["lemmas"][successor]}]

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        entries = [await _glossary_entry(side, lemma) for lemma in g["lemmas"]]
        retired = entries[0].get("deprecated") is True and f"*{g['lemmas'][1]}*" in str(entries[0].get("notes"))
        live = [entry.get("deprecated") is False for entry in entries[1:]]
        return float(retired) * (1.0 + sum(live)) / 3  # the others left live count only with it retired

    return _fixture_task(
        "deprecate a term in favour of another",
        _glossary_draw,
        _glossary_added,
        {
            "perfect": lambda side, g, rng: _glossary_act(side, "deprecate_term", retire(g, 0, 1)),
            "sloppy": lambda side, g, rng: _glossary_act(
                side, "deprecate_term", retire(g, 0, 1 if rng.random() < 0.5 else 2)
            ),
            "partial": lambda side, g, rng: _glossary_act(
                side, "update_term", [{"lemma": g["lemmas"][0], "notes": f"use *{g['lemmas'][1]}* instead"}]
            ),
            "wrong": lambda side, g, rng: _glossary_act(side, "deprecate_term", retire(g, 1, 0)),
        },
        reward,
    )


def _glossary_drop() -> Task:
    def lemmas(g: dict[str, Any], *indices: int) -> list[dict[str, Any]]:
        return [{"lemma": g["lemmas"][index]} for index in indices]

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        listed = await _glossary_lemmas(side)
        kept = [lemma in listed for lemma in g["lemmas"]]
        return float(not kept[1]) * (1.0 + kept[0] + kept[2]) / 3  # the others kept count only with it gone

    return _fixture_task(
        "delete one term of three",
        _glossary_draw,
        _glossary_added,
        {
            "perfect": lambda side, g, rng: _glossary_act(side, "delete_term", lemmas(g, 1)),
            "sloppy": lambda side, g, rng: _glossary_act(
                side, "delete_term", lemmas(g, 1 if rng.random() < 0.5 else 2)
            ),
            "partial": lambda side, g, rng: _glossary_act(side, "deprecate_term", lemmas(g, 1)),
            "wrong": lambda side, g, rng: _glossary_act(side, "delete_term", lemmas(g, 0, 1, 2)),
        },
        reward,
    )


# --- mathx: expressions, statistics, matrices, named calculation sessions (the tenth set, dev now) --------


def _mathx_draw(rng: random.Random) -> dict[str, Any]:
    return {
        "session": f"{rng.choice(_WORDS)}-{rng.randint(10, 99)}",
        "width": rng.randint(2, 40),
        "height": round(rng.uniform(1, 20), 1),
        "matrix": [[rng.randint(-5, 9) for _ in range(3)] for _ in range(3)],
        "data": [rng.randint(1, 60) for _ in range(rng.randint(4, 7))],
    }


def _mathx_number(field: str) -> Callable[[Any], float | None]:
    """How an answer is read as a number: the number (or a number's text) at `field`."""

    def read(value: Any) -> float | None:
        found = value.get(field) if isinstance(value, dict) and value.get("success") is True else None
        if isinstance(found, bool):
            return None
        try:
            return float(found) if isinstance(found, int | float | str) else None
        except ValueError:
            return None

    return read


def _mathx_area() -> Task:
    async def setup(side: Side, g: dict[str, Any]) -> None:
        await side.call(
            "create_session", {"session_id": g["session"], "variables": {"w": g["width"], "h": g["height"]}}
        )

    async def compute(side: Side, g: dict[str, Any], expression: str, name: str | None) -> None:
        arguments: dict[str, Any] = {"session_id": g["session"], "expr": expression}
        if name is not None:
            arguments["var_name"] = name
        await side.call("session_calculate", arguments)

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        value, error = await side.call("list_session_variables", {"session_id": g["session"]})
        variables = value.get("variables") if not error and isinstance(value, dict) else None
        area = variables.get("area") if isinstance(variables, dict) else None
        return _same(area, g["width"] * g["height"])

    return _fixture_task(
        "store a session's area from its width and height",
        _mathx_draw,
        setup,
        {
            "perfect": lambda side, g, rng: compute(side, g, "w * h", "area"),
            "sloppy": lambda side, g, rng: compute(side, g, "w * h" if rng.random() < 0.5 else "w + h", "area"),
            "partial": lambda side, g, rng: compute(side, g, "w * h", None),
            "wrong": lambda side, g, rng: compute(side, g, "w / h", "area"),
        },
        reward,
    )


def _determinant(g: dict[str, Any], how: str) -> tuple[str, dict[str, Any], Callable[[Any], float | None]]:
    matrix = g["matrix"]
    if how == "partial":  # the product of the diagonal only
        diagonal = " * ".join(f"({row[index]})" for index, row in enumerate(matrix))
        return "calculate_expression", {"expr": diagonal}, _mathx_number("result")
    if how == "sloppy":  # one entry copied wrong
        matrix = [[*matrix[0][:2], matrix[0][2] + 1], *matrix[1:]]
    elif how == "wrong":  # the first two rows' minor
        matrix = [row[:2] for row in matrix[:2]]
    return "matrix_operation", {"matrices": [matrix], "operation": "determinant"}, _mathx_number("result")


def _data_mean(g: dict[str, Any], how: str) -> tuple[str, dict[str, Any], Callable[[Any], float | None]]:
    data = {"partial": g["data"][:-1]}.get(how, g["data"])  # partial: one number left out
    operation = {"sloppy": "median", "wrong": "stdev"}.get(how, "mean")
    return "calculate_statistics", {"data": data, "operation": operation}, _mathx_number("result")


def _mathx_task(
    name: str, steps: Callable[[dict[str, Any], str], tuple[str, dict[str, Any], Callable[[Any], float | None]]]
) -> Task:
    """The agent's figure against the perfect call made through that server's own tools (as units')."""
    task = _units_task(name, steps)
    return Task(name, _mathx_draw, task.setup, task.agents, task.reward)


# --- notepad: notes under a name (held out, the eleventh set) -----------------------------------------------

_NOTEPAD_LISTED = re.compile(r"^- (.*):\n  Content: (.*)$", re.MULTILINE)


def _notepad_draw(rng: random.Random) -> dict[str, Any]:
    return {
        "names": [f"{word} {rng.randint(10, 99)}" for word in rng.sample(_WORDS, 3)],
        "content": f"{rng.choice(_WORDS)} meets {rng.choice(_WORDS)} at {rng.randint(1, 12)} o'clock",
        "new_name": f"{rng.choice(_WORDS)} archive",
    }


async def _notepad_notes(side: Side) -> dict[str, str]:
    """name -> content of every note the listing shows (none when it fails)."""
    value, error = await side.call("list-all-notes", {})
    return {} if error or not isinstance(value, str) else dict(_NOTEPAD_LISTED.findall(value))


async def _notepad_added(side: Side, g: dict[str, Any]) -> None:
    for name in g["names"]:
        await side.call("add-note", {"name": name, "content": f"what {name} is about"})


async def _notepad_act(side: Side, tool: str, names: list[str]) -> None:
    for name in names:
        await side.call(tool, {"name": name})


async def _notepad_look(side: Side, g: dict[str, Any]) -> None:
    """Lists the notes, changes nothing."""
    await _notepad_notes(side)


def _notepad_add() -> Task:
    async def add(side: Side, g: dict[str, Any], name: str | None, content: str) -> None:
        if name is None:
            await _notepad_look(side, g)  # never adds
            return
        await side.call("add-note", {"name": name, "content": content})

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        return float((await _notepad_notes(side)).get(g["names"][0]) == g["content"])

    return _fixture_task(
        "add a note under its name",
        _notepad_draw,
        _nothing,
        {
            "perfect": lambda side, g, rng: add(side, g, g["names"][0], g["content"]),
            "sloppy": lambda side, g, rng: add(side, g, g["names"][0 if rng.random() < 0.5 else 1], g["content"]),
            "partial": lambda side, g, rng: add(side, g, None, ""),
            "wrong": lambda side, g, rng: add(side, g, g["names"][0], "TODO"),
        },
        reward,
    )


def _notepad_drop() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        notes = await _notepad_notes(side)
        kept = [name in notes for name in g["names"]]
        return float(not kept[1]) * (1.0 + kept[0] + kept[2]) / 3  # the others kept count only with it gone

    return _fixture_task(
        "delete one note of three",
        _notepad_draw,
        _notepad_added,
        {
            "perfect": lambda side, g, rng: _notepad_act(side, "delete-note", [g["names"][1]]),
            "sloppy": lambda side, g, rng: _notepad_act(
                side, "delete-note", [g["names"][1 if rng.random() < 0.5 else 2]]
            ),
            "partial": lambda side, g, rng: _notepad_look(side, g),
            "wrong": lambda side, g, rng: _notepad_act(side, "delete-note", g["names"]),
        },
        reward,
    )


def _notepad_rename() -> Task:
    async def rename(side: Side, g: dict[str, Any], copy: bool, drop: bool) -> None:
        content = (await _notepad_notes(side)).get(g["names"][0])  # the agent reads what it is to move
        if copy and content is not None:
            await side.call("add-note", {"name": g["new_name"], "content": content})
        if drop:
            await side.call("delete-note", {"name": g["names"][0]})

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        notes = await _notepad_notes(side)
        moved = notes.get(g["new_name"]) == f"what {g['names'][0]} is about"
        return float(moved) * (1.0 + (g["names"][0] not in notes)) / 2  # the old one gone counts only with it moved

    return _fixture_task(
        "rename a note",
        _notepad_draw,
        _notepad_added,
        {
            "perfect": lambda side, g, rng: rename(side, g, True, True),
            "sloppy": lambda side, g, rng: rename(side, g, True, rng.random() < 0.5),
            "partial": lambda side, g, rng: rename(side, g, False, False),
            "wrong": lambda side, g, rng: rename(side, g, False, True),
        },
        reward,
    )


# --- bugs: fixed bugs with a lifecycle, by record id (held out, the eleventh set) ----------------------------


def _bugs_draw(rng: random.Random) -> dict[str, Any]:
    area, other = rng.sample(_WORDS, 2)
    return {
        "area": area,
        "other_area": other,
        "project": f"{rng.choice(_WORDS)}-api",
        "reader": f"{rng.choice(_WORDS)}-web",
        "symptoms": [f"the {word} page failed after {rng.randint(2, 90)} requests" for word in rng.sample(_WORDS, 3)],
        "cause": f"the {rng.choice(_WORDS)} pool was never released after a {rng.choice(_WORDS)} error",
    }


async def _bugs_record(side: Side, g: dict[str, Any], symptom: str, cause: str, area: str) -> str | None:
    value, error = await side.call(
        "record_bug", {"symptom": symptom, "root_cause": cause, "feature_area": area, "project": g["project"]}
    )
    found = value.get("id") if not error and isinstance(value, dict) else None
    return found if isinstance(found, str) else None


async def _bugs_recorded(side: Side, g: dict[str, Any]) -> None:
    """Three bugs in one area; the ids their records answered, kept for this side."""
    ids = [await _bugs_record(side, g, symptom, g["cause"], g["area"]) for symptom in g["symptoms"]]
    g[f"ids@{id(side)}"] = ids


def _bugs_ids(side: Side, g: dict[str, Any], *indices: int) -> list[str]:
    ids = g.get(f"ids@{id(side)}", [])
    return [str(ids[index]) for index in indices if index < len(ids) and ids[index] is not None]


async def _bugs_shown(side: Side, g: dict[str, Any], project: str) -> list[str]:
    """The symptoms get_patterns shows for the area to `project`."""
    value, error = await side.call("get_patterns", {"feature_area": g["area"], "project": project, "limit": 30})
    lines = value.get("lines") if not error and isinstance(value, dict) else None
    return [symptom for symptom in g["symptoms"] if any(f": {symptom} →" in str(line) for line in lines or [])]


async def _bugs_act(side: Side, tool: str, g: dict[str, Any], indices: list[int], **more: Any) -> None:
    for record in _bugs_ids(side, g, *indices):
        await side.call(tool, {"id": record, **more})


def _bugs_file() -> Task:
    async def record(side: Side, g: dict[str, Any], area: str | None, cause: str) -> None:
        if area is None:
            await side.call("search_bugs", {"query": g["symptoms"][0]})  # looks, never records
            return
        await _bugs_record(side, g, g["symptoms"][0], cause, area)

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        value, error = await side.call("search_bugs", {"query": g["symptoms"][0], "feature_area": g["area"]})
        hits = value.get("hits") if not error and isinstance(value, dict) else None
        return float(
            any(
                isinstance(hit, dict)
                and (hit.get("symptom"), hit.get("root_cause"), hit.get("project"))
                == (g["symptoms"][0], g["cause"], g["project"])
                for hit in hits or []
            )
        )

    return _fixture_task(
        "record a fixed bug in its area",
        _bugs_draw,
        _nothing,
        {
            "perfect": lambda side, g, rng: record(side, g, g["area"], g["cause"]),
            "sloppy": lambda side, g, rng: record(
                side, g, g["area"] if rng.random() < 0.5 else g["other_area"], g["cause"]
            ),
            "partial": lambda side, g, rng: record(side, g, None, ""),
            "wrong": lambda side, g, rng: record(side, g, g["area"], "TODO: write down the cause later"),
        },
        reward,
    )


def _bugs_resolve() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        shown = [symptom in await _bugs_shown(side, g, g["reader"]) for symptom in g["symptoms"]]
        return float(not shown[1]) * (1.0 + shown[0] + shown[2]) / 3  # the others shown count only with it hidden

    return _fixture_task(
        "resolve one bug of three for a project",
        _bugs_draw,
        _bugs_recorded,
        {
            "perfect": lambda side, g, rng: _bugs_act(side, "resolve_bug", g, [1], project=g["reader"]),
            "sloppy": lambda side, g, rng: _bugs_act(
                side, "resolve_bug", g, [1 if rng.random() < 0.5 else 2], project=g["reader"]
            ),
            "partial": lambda side, g, rng: _bugs_act(side, "resolve_bug", g, [1], project=g["project"]),
            "wrong": lambda side, g, rng: _bugs_act(side, "resolve_bug", g, [0, 1, 2], project=g["reader"]),
        },
        reward,
    )


def _bugs_drop() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        shown = [symptom in await _bugs_shown(side, g, g["reader"]) for symptom in g["symptoms"]]
        return float(not shown[1]) * (1.0 + shown[0] + shown[2]) / 3  # the others kept count only with it gone

    return _fixture_task(
        "delete one bug of three",
        _bugs_draw,
        _bugs_recorded,
        {
            "perfect": lambda side, g, rng: _bugs_act(side, "delete_bug", g, [1]),
            "sloppy": lambda side, g, rng: _bugs_act(side, "delete_bug", g, [1 if rng.random() < 0.5 else 2]),
            "partial": lambda side, g, rng: _bugs_act(side, "resolve_bug", g, [1], project=g["project"]),
            "wrong": lambda side, g, rng: _bugs_act(side, "delete_bug", g, [0, 1, 2]),
        },
        reward,
    )


# --- color: colours converted and compared, no state (held out, the eleventh set) ---------------------------


def _color_draw(rng: random.Random) -> dict[str, Any]:
    return {
        "rgb": [rng.randint(0, 255) for _ in range(3)],
        "hsl": [rng.randint(0, 359), rng.randint(20, 100), rng.randint(10, 90)],
        "background": f"#{rng.randint(0, 0xFFFFFF):06x}",
        "start": f"#{rng.randint(0, 0xFFFFFF):06x}",
        "end": f"#{rng.randint(0, 0xFFFFFF):06x}",
    }


def _hex_number(value: Any, field: str, index: int | None = None) -> float | None:
    """A hex colour an answer gives at `field` (its `index`-th when a list) as a number (None when none)."""
    found = value.get(field) if isinstance(value, dict) and "error" not in value else None
    if index is not None:
        found = found[index] if isinstance(found, list) and -len(found) <= index < len(found) else None
    text = str(found)
    return float(int(text[1:], 16)) if re.fullmatch(r"#[0-9a-fA-F]{6}", text) else None


def _color_number(value: Any, field: str) -> float | None:
    found = value.get(field) if isinstance(value, dict) and "error" not in value else None
    return float(found) if isinstance(found, int | float) and not isinstance(found, bool) else None


async def _color_hex(side: Side, written: str, source: str) -> str | None:
    """A colour written in `source` as hex, through the server's conversion."""
    value, error = await side.call("tool_convert_color", {"value": written, "source": source, "target": "hex"})
    found = value.get("result") if not error and isinstance(value, dict) else None
    return found if isinstance(found, str) else None


async def _complement_of_rgb(side: Side, g: dict[str, Any], how: str) -> float | None:
    r, g_, b = g["rgb"]
    written = f"rgb({b}, {g_}, {r})" if how == "sloppy" else f"rgb({r}, {g_}, {b})"  # sloppy: channels swapped
    colour = await _color_hex(side, written, "rgb")
    if colour is None or how == "partial":  # partial: the colour itself, never complemented
        return None if colour is None else float(int(colour[1:], 16))
    tool = "tool_simulate_color_blindness" if how == "wrong" else "tool_get_complementary_color"
    value, error = await side.call(tool, {"color_hex": colour})
    return None if error else _hex_number(value, "simulated" if how == "wrong" else "complementary")


async def _contrast_of_hsl(side: Side, g: dict[str, Any], how: str) -> float | None:
    hue, saturation, lightness = g["hsl"]
    source = "hsv" if how == "sloppy" else "hsl"  # sloppy: read as hsv
    colour = await _color_hex(side, f"{source}({hue}, {saturation}%, {lightness}%)", source)
    if colour is None:
        return None
    if how == "wrong":  # the text colour's luminance, not the contrast
        value, error = await side.call("tool_get_color_info_local", {"color_hex": colour})
        return None if error else _color_number(value, "luminance")
    background = "#ffffff" if how == "partial" else g["background"]  # partial: against white, not the page
    value, error = await side.call("tool_check_contrast", {"foreground": colour, "background": background})
    return None if error else _color_number(value, "contrast_ratio")


async def _gradient_middle(side: Side, g: dict[str, Any], how: str) -> float | None:
    if how == "wrong":  # the start colour's complement
        value, error = await side.call("tool_get_complementary_color", {"color_hex": g["start"]})
        return None if error else _hex_number(value, "complementary")
    steps = 4 if how == "sloppy" else 5
    value, error = await side.call(
        "tool_generate_gradient", {"start_color": g["start"], "end_color": g["end"], "steps": steps}
    )
    return None if error else _hex_number(value, "gradient", 0 if how == "partial" else 2)  # partial: the start


def _color_task(name: str, steps: Callable[[Side, dict[str, Any], str], Awaitable[float | None]]) -> Task:
    """The agent's figure against the perfect calls made through that server's own tools (as calc's)."""
    task = _calc_task(name, steps)
    return Task(name, _color_draw, task.setup, task.agents, task.reward)


# --- aimem: memories with tags under integer ids (held out, the twelfth set) ----------------------------------


def _aimem_draw(rng: random.Random) -> dict[str, Any]:
    tag, other = rng.sample(_WORDS, 2)
    return {
        "tag": tag,
        "other_tag": other,
        "contents": [f"the {word} review is on day {rng.randint(1, 28)}" for word in rng.sample(_WORDS, 3)],
        "content": f"{rng.choice(_WORDS)} prefers {rng.choice(_WORDS)} at {rng.randint(1, 12)} o'clock",
    }


async def _aimem_listed(side: Side, tag: str) -> list[str]:
    """The contents list_memories shows under `tag` (none when it fails)."""
    value, error = await side.call("list_memories", {"tag": tag, "limit": 50})
    memories = value.get("memories") if not error and isinstance(value, dict) else None
    return [str(memory.get("content")) for memory in memories or [] if isinstance(memory, dict)]


async def _aimem_there(side: Side, memory_id: int) -> bool:
    value, error = await side.call("get_memory", {"memory_id": memory_id})
    return not error and isinstance(value, dict) and value.get("id") == memory_id


async def _aimem_saved(side: Side, g: dict[str, Any]) -> None:
    """The three contents under the tag; the ids their saves answered, kept for this side."""
    ids = []
    for content in g["contents"]:
        value, error = await side.call("save_memory", {"content": content, "tags": [g["tag"]]})
        found = value.get("id") if not error and isinstance(value, dict) else None
        ids.append(found if isinstance(found, int) else None)
    g[f"ids@{id(side)}"] = ids


def _answered_ids(side: Side, g: dict[str, Any], *indices: int) -> list[int]:
    ids = g.get(f"ids@{id(side)}", [])
    return [int(ids[index]) for index in indices if index < len(ids) and ids[index] is not None]


async def _aimem_act(side: Side, g: dict[str, Any], tool: str, indices: list[int], **more: Any) -> None:
    for memory_id in _answered_ids(side, g, *indices):
        await side.call(tool, {"memory_id": memory_id, **more})


def _aimem_save() -> Task:
    async def save(side: Side, g: dict[str, Any], tag: str | None, content: str) -> None:
        if tag is None:
            await side.call("search_memories", {"query": content.split()[0]})  # looks, never saves
            return
        await side.call("save_memory", {"content": content, "tags": [tag]})

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        return float(g["content"] in await _aimem_listed(side, g["tag"]))

    return _fixture_task(
        "save a memory under its tag",
        _aimem_draw,
        _nothing,
        {
            "perfect": lambda side, g, rng: save(side, g, g["tag"], g["content"]),
            "sloppy": lambda side, g, rng: save(
                side, g, g["tag"] if rng.random() < 0.5 else g["other_tag"], g["content"]
            ),
            "partial": lambda side, g, rng: save(side, g, None, g["content"]),
            "wrong": lambda side, g, rng: save(side, g, g["tag"], "TODO"),
        },
        reward,
    )


def _aimem_forget() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        kept = [await _aimem_there(side, memory_id) for memory_id in _answered_ids(side, g, 0, 1, 2)]
        if len(kept) < 3:
            return 0.0
        return float(not kept[1]) * (1.0 + kept[0] + kept[2]) / 3  # the others kept count only with it gone

    return _fixture_task(
        "delete one memory of three",
        _aimem_draw,
        _aimem_saved,
        {
            "perfect": lambda side, g, rng: _aimem_act(side, g, "delete_memory", [1]),
            "sloppy": lambda side, g, rng: _aimem_act(side, g, "delete_memory", [1 if rng.random() < 0.5 else 2]),
            "partial": lambda side, g, rng: _aimem_act(side, g, "get_memory", [1]),
            "wrong": lambda side, g, rng: _aimem_act(side, g, "delete_memory", [0, 1, 2]),
        },
        reward,
    )


def _aimem_retag() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        moved = g["contents"][0] in await _aimem_listed(side, g["other_tag"])
        gone = g["contents"][0] not in await _aimem_listed(side, g["tag"])
        return float(moved) * (1.0 + gone) / 2  # the old tag gone counts only with the new one there

    return _fixture_task(
        "move a memory to another tag",
        _aimem_draw,
        _aimem_saved,
        {
            "perfect": lambda side, g, rng: _aimem_act(side, g, "update_memory", [0], tags=[g["other_tag"]]),
            "sloppy": lambda side, g, rng: _aimem_act(
                side,
                g,
                "update_memory",
                [0],
                tags=[g["other_tag"]] if rng.random() < 0.5 else [g["tag"], g["other_tag"]],
            ),
            "partial": lambda side, g, rng: _aimem_act(side, g, "get_memory", [0]),
            "wrong": lambda side, g, rng: _aimem_act(side, g, "update_memory", [0], content=g["other_tag"]),
        },
        reward,
    )


# --- todokit: to-dos with a lifecycle under integer ids (held out, the twelfth set) ---------------------------


def _todokit_draw(rng: random.Random) -> dict[str, Any]:
    return {
        "texts": [f"review the {word} report {rng.randint(10, 99)}" for word in rng.sample(_WORDS, 3)],
        "text": f"book the {rng.choice(_WORDS)} room for {rng.randint(2, 20)} people",
        "tag": rng.choice(_WORDS),
        "priority": rng.choice(("high", "low")),
        "due": (datetime.date(2027, 1, 1) + datetime.timedelta(days=rng.randint(0, 120))).isoformat(),
    }


async def _todokit_found(side: Side, **criteria: Any) -> list[dict[str, Any]]:
    """The to-dos search_todos finds (none when it fails)."""
    value, error = await side.call("search_todos", criteria)
    found = value.get("result") if not error and isinstance(value, dict) else None
    return [todo for todo in found or [] if isinstance(todo, dict)]


async def _todokit_added(side: Side, g: dict[str, Any]) -> None:
    """Three to-dos; the ids their adds answered, kept for this side."""
    ids = []
    for text in g["texts"]:
        value, error = await side.call("add_todo", {"text": text})
        found = value.get("id") if not error and isinstance(value, dict) else None
        ids.append(found if isinstance(found, int) else None)
    g[f"ids@{id(side)}"] = ids


async def _todokit_act(side: Side, g: dict[str, Any], tool: str, indices: list[int], **more: Any) -> None:
    for todo_id in _answered_ids(side, g, *indices):
        await side.call(tool, {"id": todo_id, **more})


def _todokit_complete() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        done = {str(todo.get("text")) for todo in await _todokit_found(side, status="done")}
        still = {str(todo.get("text")) for todo in await _todokit_found(side, status="open")}
        first, second, third = g["texts"]
        return float(second in done) * (1.0 + (first in still) + (third in still)) / 3

    return _fixture_task(
        "complete one to-do of three",
        _todokit_draw,
        _todokit_added,
        {
            "perfect": lambda side, g, rng: _todokit_act(side, g, "mark_done", [1]),
            "sloppy": lambda side, g, rng: _todokit_act(side, g, "mark_done", [1 if rng.random() < 0.5 else 2]),
            "partial": lambda side, g, rng: _todokit_act(side, g, "edit_todo", [1], priority="high"),
            "wrong": lambda side, g, rng: _todokit_act(side, g, "mark_done", [0, 1, 2]),
        },
        reward,
    )


def _todokit_add() -> Task:
    async def add(side: Side, g: dict[str, Any], fields: tuple[str, ...]) -> None:
        if not fields:
            await side.call("search_todos", {"tag": g["tag"]})  # looks, never adds
            return
        arguments: dict[str, Any] = {"text": g["text"]}
        arguments |= {"priority": g["priority"]} if "priority" in fields else {}
        arguments |= {"due": g["due"]} if "due" in fields else {}
        arguments |= {"tags": [g["tag"]]} if "tags" in fields else {}
        await side.call("add_todo", arguments)

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        return float(
            any(
                (todo.get("text"), todo.get("prio"), todo.get("due")) == (g["text"], g["priority"], g["due"])
                for todo in await _todokit_found(side, tag=g["tag"], status="open")
            )
        )

    every = ("priority", "due", "tags")
    return _fixture_task(
        "add a to-do with its priority, due day and tag",
        _todokit_draw,
        _nothing,
        {
            "perfect": lambda side, g, rng: add(side, g, every),
            "sloppy": lambda side, g, rng: add(side, g, every if rng.random() < 0.5 else ("due", "tags")),
            "partial": lambda side, g, rng: add(side, g, ()),
            "wrong": lambda side, g, rng: add(side, g, ("priority", "due")),
        },
        reward,
    )


def _todokit_drop() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        listed = {str(todo.get("text")) for todo in await _todokit_found(side)}
        kept = [text in listed for text in g["texts"]]
        return float(not kept[1]) * (1.0 + kept[0] + kept[2]) / 3  # the others kept count only with it gone

    return _fixture_task(
        "remove one to-do of three",
        _todokit_draw,
        _todokit_added,
        {
            "perfect": lambda side, g, rng: _todokit_act(side, g, "remove_todo", [1]),
            "sloppy": lambda side, g, rng: _todokit_act(side, g, "remove_todo", [1 if rng.random() < 0.5 else 2]),
            "partial": lambda side, g, rng: _todokit_act(side, g, "mark_done", [1]),
            "wrong": lambda side, g, rng: _todokit_act(side, g, "remove_todo", [0, 1, 2]),
        },
        reward,
    )


# --- measures: temperature, volume and weight conversions, no state (held out, the twelfth set) ---------------


def _measures_draw(rng: random.Random) -> dict[str, Any]:
    return {
        "cups": rng.randint(1, 12) / 4,
        "tbsp": rng.randint(1, 6),
        "fahrenheit": rng.randrange(275, 475, 25),
        "bag_lb": rng.randint(2, 10),
        "used_g": rng.randint(100, 900),
    }


async def _measure(side: Side, tool: str, value: float, source: str, target: str) -> float | None:
    answer, error = await side.call(tool, {"value": value, "from_unit": source, "to_unit": target})
    found = answer.get("value") if not error and isinstance(answer, dict) else None
    return float(found) if isinstance(found, int | float) and not isinstance(found, bool) else None


async def _recipe_volume(side: Side, g: dict[str, Any], how: str) -> float | None:
    """Cups of milk and tablespoons of oil, in millilitres together."""
    target = "l" if how == "wrong" else "ml"  # wrong: in litres
    milk = await _measure(side, "convert_volume", g["cups"], "cup", target)
    if milk is None or how == "partial":  # partial: the milk only
        return milk
    oil = await _measure(side, "convert_volume", g["tbsp"], "tsp" if how == "sloppy" else "tbsp", target)
    return None if oil is None else milk + oil


async def _oven_celsius(side: Side, g: dict[str, Any], how: str) -> float | None:
    """An oven's Fahrenheit setting in Celsius."""
    if how == "partial":  # the setting as given, never converted
        return await _measure(side, "convert_temperature", g["fahrenheit"], "F", "F")
    source, target = ("C", "F") if how == "sloppy" else ("F", "C")  # sloppy: the wrong way round
    value = g["fahrenheit"] - 32 if how == "wrong" else g["fahrenheit"]  # wrong: 32 taken off twice
    return await _measure(side, "convert_temperature", value, source, target)


async def _flour_left(side: Side, g: dict[str, Any], how: str) -> float | None:
    """A bag of flour in pounds less the grams used, in kilograms."""
    grams = await _measure(side, "convert_weight", g["bag_lb"], "oz" if how == "sloppy" else "lb", "g")
    if grams is None:
        return None
    if how == "partial":  # the whole bag, nothing taken off
        return await _measure(side, "convert_weight", grams, "g", "kg")
    return await _measure(side, "convert_weight", grams - g["used_g"], "g", "oz" if how == "wrong" else "kg")


def _measures_task(name: str, steps: Callable[[Side, dict[str, Any], str], Awaitable[float | None]]) -> Task:
    """The agent's figure against the perfect calls made through that server's own tools (as calc's)."""
    task = _calc_task(name, steps)
    return Task(name, _measures_draw, task.setup, task.agents, task.reward)


# --- docbank: Markdown documents with tags under a project (the thirteenth set, dev now) -----------------------


def _docbank_draw(rng: random.Random) -> dict[str, Any]:
    first, second, third = rng.sample(_WORDS, 3)
    return {
        "project": f"/home/{first}/src/{second}-{rng.randint(10, 99)}",
        "names": [f"{word}-notes.md" for word in rng.sample(_WORDS, 3)],
        "name": f"{third}-plan.md",
        "tags": rng.sample(_WORDS, 2),
        "other_tag": rng.choice(_WORDS),
        "content": f"# {third} plan\n\n- ship the {rng.choice(_WORDS)} step by day {rng.randint(1, 28)}",
        "line": f"- [x] {rng.choice(_WORDS)} done on day {rng.randint(1, 28)}",
    }


def _docbank_base(name: str) -> str:
    return f"# {name}\n\nfirst pass of {name.removesuffix('.md')}"


async def _docbank_read(side: Side, g: dict[str, Any], names: list[str]) -> list[str | None]:
    """Each document's content as read_documents gives it (None for one it does not find, all when it fails)."""
    value, error = await side.call("memory_bank_read_documents", {"project_id": g["project"], "names": names})
    found = value.get("documents") if not error and isinstance(value, dict) else None
    if not isinstance(found, list) or len(found) != len(names):
        return [None] * len(names)
    return [str(doc.get("content")) if isinstance(doc, dict) else None for doc in found]


async def _docbank_write(side: Side, g: dict[str, Any], name: str, content: str, tags: list[str]) -> None:
    arguments = {"project_id": g["project"], "name": name, "content": content, "tags": tags}
    await side.call("memory_bank_write_document", arguments)


async def _docbank_written(side: Side, g: dict[str, Any]) -> None:
    for name in g["names"]:
        await _docbank_write(side, g, name, _docbank_base(name), g["tags"])


async def _docbank_look(side: Side, g: dict[str, Any], index: int) -> None:
    """Reads a document and does nothing with it."""
    await _docbank_read(side, g, [g["names"][index]])


def _docbank_save() -> Task:
    async def save(side: Side, g: dict[str, Any], tags: list[str] | None, content: str) -> None:
        if tags is None:
            await side.call("memory_bank_read_context", {"project_id": g["project"]})  # looks, never writes
            return
        await _docbank_write(side, g, g["name"], content, tags)

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        value, error = await side.call("memory_bank_search_by_tags", {"project_id": g["project"], "tags": g["tags"]})
        found = value.get("documents") if not error and isinstance(value, dict) else None
        tagged = any(isinstance(doc, dict) and doc.get("name") == g["name"] for doc in found or [])
        return float(tagged and (await _docbank_read(side, g, [g["name"]]))[0] == g["content"])

    return _fixture_task(
        "write a document with its tags",
        _docbank_draw,
        _nothing,
        {
            "perfect": lambda side, g, rng: save(side, g, g["tags"], g["content"]),
            "sloppy": lambda side, g, rng: save(
                side, g, g["tags"] if rng.random() < 0.5 else [g["tags"][0], g["other_tag"]], g["content"]
            ),
            "partial": lambda side, g, rng: save(side, g, None, g["content"]),
            "wrong": lambda side, g, rng: save(side, g, g["tags"], "TODO"),
        },
        reward,
    )


async def _docbank_act(side: Side, g: dict[str, Any], tool: str, indices: list[int]) -> None:
    for index in indices:
        name = g["names"][index]
        await side.call(tool, {"project_id": g["project"], "name": name})


def _docbank_forget() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        kept = [content is not None for content in await _docbank_read(side, g, g["names"])]
        return float(not kept[1]) * (1.0 + kept[0] + kept[2]) / 3  # the others kept count only with it gone

    delete = "memory_bank_delete_document"
    return _fixture_task(
        "delete one document of three",
        _docbank_draw,
        _docbank_written,
        {
            "perfect": lambda side, g, rng: _docbank_act(side, g, delete, [1]),
            "sloppy": lambda side, g, rng: _docbank_act(side, g, delete, [1 if rng.random() < 0.5 else 2]),
            "partial": lambda side, g, rng: _docbank_look(side, g, 1),
            "wrong": lambda side, g, rng: _docbank_act(side, g, delete, [0, 1, 2]),
        },
        reward,
    )


def _docbank_append() -> Task:
    async def append(side: Side, g: dict[str, Any], name: str) -> None:
        arguments = {"project_id": g["project"], "name": name, "content": g["line"], "tags": g["tags"]}
        await side.call("memory_bank_append_content", arguments)

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        name = g["names"][0]
        return float((await _docbank_read(side, g, [name]))[0] == _docbank_base(name) + "\n\n" + g["line"])

    return _fixture_task(
        "append a line to a document",
        _docbank_draw,
        _docbank_written,
        {
            "perfect": lambda side, g, rng: append(side, g, g["names"][0]),
            "sloppy": lambda side, g, rng: append(side, g, g["names"][0] if rng.random() < 0.5 else g["name"]),
            "partial": lambda side, g, rng: _docbank_look(side, g, 0),
            "wrong": lambda side, g, rng: _docbank_write(side, g, g["names"][0], g["line"], g["tags"]),
        },
        reward,
    )


# --- dsa: practice problems from a bundled list, attempts logged on them (the thirteenth set, dev now) ---------

# Problems and categories of the server's bundled list (NeetCode 150), as an agent that practises it knows them.
_DSA_PICKS = (
    "Two Sum",
    "Valid Anagram",
    "Group Anagrams",
    "Valid Palindrome",
    "3Sum",
    "Best Time to Buy and Sell Stock",
    "Valid Parentheses",
    "Binary Search",
    "Reverse Linked List",
    "Merge Two Sorted Lists",
    "Invert Binary Tree",
    "Maximum Depth of Binary Tree",
    "Number of Islands",
    "Climbing Stairs",
    "House Robber",
    "Coin Change",
    "Merge Intervals",
    "Jump Game",
    "Subsets",
    "Kth Largest Element in an Array",
)
_DSA_SETS = ("Two Pointers", "Sliding Window", "Stack", "Binary Search", "Linked List", "Trees", "Graphs", "Greedy")
_DSA_SET_SIZES = re.compile(r"^(\d+) of (\d+) matching problems:")
_DSA_NAMED = re.compile(r"^(?:New problem|Review due): (.+?) \(")


async def _dsa_text(side: Side, tool: str, params: dict[str, Any]) -> str:
    """A tool's answer text (its structured output's `result`; empty when it fails)."""
    value, error = await side.call(tool, {"params": params})
    found = value.get("result") if not error and isinstance(value, dict) else value if not error else None
    return found if isinstance(found, str) else ""


def _dsa_draw(rng: random.Random) -> dict[str, Any]:
    status, other = rng.sample(("solved", "struggled", "gave_up"), 2)
    return {
        "problem": rng.choice(_DSA_PICKS),
        "status": status,
        "other_status": other,
        "confidence": rng.randint(1, 5),
        "minutes": rng.choice((10, 15, 20, 25, 35, 40, 55, 70)),
        "category": rng.choice(_DSA_SETS),
        "difficulty": rng.choice(("Easy", "Medium", "Hard")),
    }


async def _dsa_log(side: Side, name: str, status: str, **more: Any) -> None:
    await side.call("log_attempt", {"params": {"problem_name": name, "status": status, **more}})


def _dsa_record() -> Task:
    async def play(side: Side, g: dict[str, Any], status: str | None, timed: bool) -> None:
        if status is None:
            await side.call("get_problem_history", {"params": {"problem_name": g["problem"]}})  # looks, never logs
            return
        more = {"confidence": g["confidence"]} | ({"time_taken_minutes": g["minutes"]} if timed else {})
        await _dsa_log(side, g["problem"], status, **more)

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        lines = (await _dsa_text(side, "get_problem_history", {"problem_name": g["problem"]})).split("\n")
        attempt = f" — {g['status']} — confidence {g['confidence']}/5 — {g['minutes']} min"
        return float(len(lines) == 2 and lines[0].endswith(" — 1 attempt(s):") and lines[1].endswith(attempt))

    return _fixture_task(
        "log an attempt with its outcome, confidence and minutes",
        _dsa_draw,
        _nothing,
        {
            "perfect": lambda side, g, rng: play(side, g, g["status"], True),
            "sloppy": lambda side, g, rng: play(side, g, g["status"], rng.random() < 0.5),
            "partial": lambda side, g, rng: play(side, g, None, True),
            "wrong": lambda side, g, rng: play(side, g, g["other_status"], True),
        },
        reward,
    )


def _dsa_next() -> Task:
    async def play(side: Side, g: dict[str, Any], scoped: bool, status: str | None) -> None:
        params = {"category": g["category"]} if scoped else {}
        found = _DSA_NAMED.match(await _dsa_text(side, "get_next_problem", params))
        if found is not None and status is not None:  # the agent works the problem it was given
            await _dsa_log(side, found.group(1), status)

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        """The first problem of the category, as the list orders it, has the outcome logged."""
        lines = (await _dsa_text(side, "search_problems", {"category": g["category"], "limit": 1})).split("\n")
        return float(len(lines) > 1 and lines[1].endswith(f" — {g['status']}"))

    return _fixture_task(
        "work the next new problem of a category",
        _dsa_draw,
        _nothing,
        {
            "perfect": lambda side, g, rng: play(side, g, True, g["status"]),
            "sloppy": lambda side, g, rng: play(side, g, rng.random() < 0.5, g["status"]),
            "partial": lambda side, g, rng: play(side, g, True, None),
            "wrong": lambda side, g, rng: play(side, g, True, g["other_status"]),
        },
        reward,
    )


async def _dsa_matching(side: Side, **params: Any) -> float | None:
    """How many problems search_problems finds for `params` (all of them, not only those it shows)."""
    text = await _dsa_text(side, "search_problems", params)
    if text.startswith("No problems matched"):
        return 0.0
    found = _DSA_SET_SIZES.match(text)
    return float(found.group(2)) if found else None


async def _dsa_count(side: Side, g: dict[str, Any], how: str) -> float | None:
    """The problems of a category at a difficulty."""
    if how == "partial":  # the category's problems of every difficulty
        return await _dsa_matching(side, category=g["category"])
    if how == "wrong":  # the difficulty's problems of every category
        return await _dsa_matching(side, difficulty=g["difficulty"])
    difficulty = "Medium" if how == "sloppy" and g["difficulty"] != "Medium" else g["difficulty"]
    if how == "sloppy" and g["difficulty"] == "Medium":
        difficulty = "Hard"
    return await _dsa_matching(side, category=g["category"], difficulty=difficulty)


def _dsa_task(name: str, steps: Callable[[Side, dict[str, Any], str], Awaitable[float | None]]) -> Task:
    """The agent's figure against the perfect calls made through that server's own tools (as calc's)."""
    task = _calc_task(name, steps)
    return Task(name, _dsa_draw, task.setup, task.agents, task.reward)


# --- subnet: IPv4 subnet arithmetic, no state (the thirteenth set, dev now) -----------------------------------


def _subnet_draw(rng: random.Random) -> dict[str, Any]:
    prefix = rng.choice((20, 21, 22, 23, 25, 26, 27, 28, 29))
    mask = (0xFFFFFFFF << (32 - prefix)) & 0xFFFFFFFF
    block = 1 << max(32 - prefix, 0) if prefix > 24 else 256
    last = rng.randrange(0, 256, block) + rng.randint(1, block - 2)  # neither its network's nor broadcast address
    return {
        "base": f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}",
        "hosts": rng.choice((6, 14, 30, 62, 126, 254, 510)),
        "address": f"172.{rng.randint(16, 31)}.{rng.randint(0, 255)}.{last}",
        "mask": ".".join(str((mask >> shift) & 255) for shift in (24, 16, 8, 0)),
        "prefix": prefix,
        "position": rng.randint(2, 5),
    }


def _ip_number(value: Any) -> float | None:
    """A dotted IPv4 address as the integer it stands for (None for anything else)."""
    parts = value.split(".") if isinstance(value, str) else []
    if len(parts) != 4 or not all(part.isdigit() for part in parts):
        return None
    return float(sum(int(part) << shift for part, shift in zip(parts, (24, 16, 8, 0), strict=True)))


async def _subnet_facts(side: Side, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A calculation's facts (its answer's `result`; none when it fails)."""
    value, error = await side.call(tool, arguments)
    found = value.get("result") if not error and isinstance(value, dict) else None
    return found if isinstance(found, dict) else {}


async def _subnet_field(side: Side, tool: str, arguments: dict[str, Any], field: str) -> Any:
    return (await _subnet_facts(side, tool, arguments)).get(field)


async def _broadcast_for_hosts(side: Side, g: dict[str, Any], how: str) -> float | None:
    """The broadcast address of the smallest subnet at a base address that fits a number of hosts."""
    field = {"sloppy": "last_usable", "partial": "network_address", "wrong": "first_usable"}.get(
        how, "broadcast_address"
    )
    arguments = {"network_base": g["base"], "hosts_needed": g["hosts"], "return_format": "simple"}
    return _ip_number(await _subnet_field(side, "calculate_subnet", arguments, field))


async def _nth_of_masked(side: Side, g: dict[str, Any], how: str) -> float | None:
    """The nth usable address of the network an address and a dotted mask give."""
    if how == "wrong":  # assumes a /24 around the address
        network = f"{g['address']}/24"
    else:
        arguments = {"ip_address": g["address"], "subnet_mask": g["mask"]}
        facts = await _subnet_facts(side, "calculate_subnet_from_mask", arguments)
        if how == "partial":  # the network's own address
            return _ip_number(facts.get("network_address"))
        network = f"{facts.get('network_address')}/{facts.get('cidr_prefix')}"
    position = g["position"] + 1 if how == "sloppy" else g["position"]  # sloppy: one past
    return _ip_number(
        await _subnet_field(side, "get_nth_usable_ip", {"network": network, "position": position}, "ip_address")
    )


async def _addresses_left(side: Side, g: dict[str, Any], how: str) -> float | None:
    """The usable addresses after an address in its network (given as the address and its prefix)."""
    if how == "partial":  # the network's usable addresses, none taken off
        arguments = {"ip_address": g["address"], "subnet_mask": g["mask"]}
        found = await _subnet_field(side, "calculate_subnet_from_mask", arguments, "usable_hosts")
    else:
        prefix = 24 if how == "sloppy" else g["prefix"]  # sloppy: a /24 assumed
        arguments = {"ip_address": g["address"], "network": f"{g['address']}/{prefix}"}
        field = "position_in_subnet" if how == "wrong" else "addresses_remaining"  # wrong: the ones before it
        found = await _subnet_field(side, "validate_ip_in_subnet", arguments, field)
    return float(found) if isinstance(found, int) and not isinstance(found, bool) else None


def _subnet_task(name: str, steps: Callable[[Side, dict[str, Any], str], Awaitable[float | None]]) -> Task:
    """The agent's figure against the perfect calls made through that server's own tools (as calc's)."""
    task = _calc_task(name, steps)
    return Task(name, _subnet_draw, task.setup, task.agents, task.reward)


# --- board: a shared board of nodes under an id (the fourteenth set, dev now) --------------------------------

_BOARD_STATES = ("todo", "in_progress", "blocked", "review", "waiting")


def _board_draw(rng: random.Random) -> dict[str, Any]:
    first, second, third, fourth = rng.sample(_WORDS, 4)
    status, other = rng.sample(_BOARD_STATES, 2)
    owner, new_owner = rng.sample(("alice", "bruno", "chen", "dana", "emeka"), 2)
    return {
        "parent": f"plan-{first}",
        "node": f"task-{second}-{rng.randint(10, 99)}",
        "nodes": [f"step-{word}" for word in rng.sample(_WORDS, 3)],
        "status": status,
        "other_status": other,
        "owner": owner,
        "new_owner": new_owner,
        "priority": rng.randint(1, 5),
        "agent": rng.choice(("planner", "coder", "reviewer")),
        "message": f"{third} is yours now, {fourth} first (day {rng.randint(1, 28)})",
    }


async def _board_node(side: Side, node: str) -> dict[str, Any] | None:
    """A node as get reads it (None when the board has none of that id)."""
    value, error = await side.call("get", {"id": node})
    return value if not error and isinstance(value, dict) and value.get("id") == node else None


async def _board_look(side: Side, node: str) -> None:
    """Reads a node and does nothing with it."""
    await _board_node(side, node)


async def _board_add(side: Side, node: str, parents: list[str], **more: Any) -> None:
    await side.call("add", {"id": node, "parents": parents, **more})


def _board_place() -> Task:
    async def setup(side: Side, g: dict[str, Any]) -> None:
        await _board_add(side, g["parent"], ["root"])

    async def play(side: Side, g: dict[str, Any], parent: str | None, status: str | None) -> None:
        if parent is None:
            await side.call("show", {})  # looks, never adds
            return
        await _board_add(side, g["node"], [parent], **({"status": status} if status else {}))

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        node = await _board_node(side, g["node"])
        if node is None:
            return 0.0
        return (float(node.get("parents") == [g["parent"]]) + float(node.get("status") == g["status"])) / 2

    return _fixture_task(
        "add a node under a parent with its status",
        _board_draw,
        setup,
        {
            "perfect": lambda side, g, rng: play(side, g, g["parent"], g["status"]),
            "sloppy": lambda side, g, rng: play(side, g, g["parent"], g["status"] if rng.random() < 0.5 else None),
            "partial": lambda side, g, rng: play(side, g, None, None),
            "wrong": lambda side, g, rng: play(side, g, "root", g["other_status"]),
        },
        reward,
    )


async def _board_three(side: Side, g: dict[str, Any]) -> None:
    for node in g["nodes"]:
        await _board_add(side, node, ["root"])


async def _board_remove(side: Side, g: dict[str, Any], indices: list[int]) -> None:
    for index in indices:
        await side.call("remove", {"id": g["nodes"][index]})


def _board_drop() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        kept = [await _board_node(side, node) is not None for node in g["nodes"]]
        return float(not kept[1]) * (1.0 + kept[0] + kept[2]) / 3  # the others kept count only with it gone

    return _fixture_task(
        "remove one node of three",
        _board_draw,
        _board_three,
        {
            "perfect": lambda side, g, rng: _board_remove(side, g, [1]),
            "sloppy": lambda side, g, rng: _board_remove(side, g, [1 if rng.random() < 0.5 else 2]),
            "partial": lambda side, g, rng: _board_look(side, g["nodes"][1]),
            "wrong": lambda side, g, rng: _board_remove(side, g, [0, 1, 2]),
        },
        reward,
    )


def _board_hand_over() -> Task:
    async def setup(side: Side, g: dict[str, Any]) -> None:
        await _board_add(side, g["node"], ["root"], data={"owner": g["owner"], "priority": g["priority"]})

    async def hand_over(side: Side, g: dict[str, Any], told: bool) -> None:
        await side.call("add_data", {"id": g["node"], "data": {"owner": g["new_owner"]}})
        if told:
            await side.call("send_message", {"id": g["node"], "message": g["message"], "from_agent": g["agent"]})

    async def afresh(side: Side, g: dict[str, Any]) -> None:
        """Makes the node anew with the new owner, its other data lost."""
        await side.call("remove", {"id": g["node"]})
        await _board_add(side, g["node"], ["root"], data={"owner": g["new_owner"]})
        await side.call("send_message", {"id": g["node"], "message": g["message"], "from_agent": g["agent"]})

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        node = await _board_node(side, g["node"])
        if node is None:
            return 0.0
        handed = node.get("data") == {"owner": g["new_owner"], "priority": g["priority"]}
        messages = node["messages"] if isinstance(node.get("messages"), list) else []
        told = any(
            isinstance(m, dict) and m.get("from") == g["agent"] and m.get("text") == g["message"] for m in messages
        )
        return (float(handed) + float(told)) / 2

    return _fixture_task(
        "hand a node over to a new owner and tell them",
        _board_draw,
        setup,
        {
            "perfect": lambda side, g, rng: hand_over(side, g, True),
            "sloppy": lambda side, g, rng: hand_over(side, g, rng.random() < 0.5),
            "partial": lambda side, g, rng: _board_look(side, g["node"]),
            "wrong": lambda side, g, rng: afresh(side, g),
        },
        reward,
    )


# --- opennote: notes under a made-up id, with a category and tags (the fourteenth set, dev now) ---------------


def _opennote_draw(rng: random.Random) -> dict[str, Any]:
    words = rng.sample(_WORDS, 4)
    return {
        "title": f"{words[0].capitalize()} {rng.choice(('plan', 'notes', 'checklist'))} {rng.randint(1, 99)}",
        "content": f"- ask {rng.choice(('alice', 'bruno', 'chen'))} about the {words[1]} by day {rng.randint(1, 28)}",
        "new_content": f"- {words[2]} moved to week {rng.randint(1, 52)}",
        "category": rng.choice(("work", "personal", "ideas", "reading")),
        "tags": rng.sample(("todo", "draft", "important", "weekly", "q3", "travel"), 2),
        "titles": [f"{word.capitalize()} list" for word in rng.sample(_WORDS, 3)],
    }


def _opennote_json(value: Any) -> Any:
    """An answer's JSON (its `result` text read as JSON; None for a text that is not)."""
    text = value.get("result") if isinstance(value, dict) and set(value) == {"result"} else value
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return None


async def _opennote_listed(side: Side, **params: Any) -> list[dict[str, Any]]:
    """The notes list_notes (or, with a query, search_notes) answers; none when it fails."""
    tool = "search_notes" if "query" in params else "list_notes"
    value, error = await side.call(tool, {"limit": 50, **params})
    found = _opennote_json(value) if not error else None
    return [note for note in found if isinstance(note, dict)] if isinstance(found, list) else []


async def _opennote_look(side: Side) -> None:
    """Lists the notes and does nothing with them."""
    await _opennote_listed(side)


async def _opennote_create(side: Side, g: dict[str, Any], title: str, content: str, **more: Any) -> None:
    await side.call("create_note", {"title": title, "content": content, **more})


def _opennote_file() -> Task:
    async def play(side: Side, g: dict[str, Any], tagged: bool, content: str | None) -> None:
        if content is None:
            await _opennote_listed(side, category=g["category"])  # looks, never writes
            return
        tags = {"tags": g["tags"]} if tagged else {}
        await _opennote_create(side, g, g["title"], content, category=g["category"], **tags)

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        notes = [
            note for note in await _opennote_listed(side, category=g["category"]) if note.get("title") == g["title"]
        ]
        tags = _opennote_json(notes[0].get("tags")) if len(notes) == 1 else None
        return float(len(notes) == 1 and notes[0].get("content") == g["content"] and tags == g["tags"])

    return _fixture_task(
        "create a note with its category and tags",
        _opennote_draw,
        _nothing,
        {
            "perfect": lambda side, g, rng: play(side, g, True, g["content"]),
            "sloppy": lambda side, g, rng: play(side, g, rng.random() < 0.5, g["content"]),
            "partial": lambda side, g, rng: play(side, g, True, None),
            "wrong": lambda side, g, rng: play(side, g, True, "TODO"),
        },
        reward,
    )


async def _opennote_three(side: Side, g: dict[str, Any]) -> None:
    for title in g["titles"]:
        await _opennote_create(side, g, title, f"first draft of {title.lower()}")


async def _opennote_delete(side: Side, g: dict[str, Any], indices: list[int]) -> None:
    """Deletes the notes of those titles, their ids read from the list."""
    ids = {note.get("title"): note.get("id") for note in await _opennote_listed(side)}
    for index in indices:
        await side.call("delete_note", {"note_id": ids.get(g["titles"][index], "")})


def _opennote_drop() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        titles = [note.get("title") for note in await _opennote_listed(side)]
        kept = [titles.count(title) == 1 for title in g["titles"]]
        gone = g["titles"][1] not in titles
        return float(gone) * (1.0 + kept[0] + kept[2]) / 3  # the others kept count only with it gone

    return _fixture_task(
        "delete one note of three",
        _opennote_draw,
        _opennote_three,
        {
            "perfect": lambda side, g, rng: _opennote_delete(side, g, [1]),
            "sloppy": lambda side, g, rng: _opennote_delete(side, g, [1 if rng.random() < 0.5 else 2]),
            "partial": lambda side, g, rng: _opennote_look(side),
            "wrong": lambda side, g, rng: _opennote_delete(side, g, [0, 1, 2]),
        },
        reward,
    )


def _opennote_edit() -> Task:
    async def setup(side: Side, g: dict[str, Any]) -> None:
        await _opennote_create(side, g, g["title"], g["content"], category=g["category"])

    async def edit(side: Side, g: dict[str, Any], field: str | None) -> None:
        found = await _opennote_listed(side, query=g["title"])  # the note's id, found by its title
        if field is not None and found:
            await side.call("update_note", {"note_id": found[0].get("id"), field: g["new_content"]})

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        notes = [note for note in await _opennote_listed(side) if note.get("title") == g["title"]]
        return float(len(notes) == 1 and notes[0].get("content") == g["new_content"])

    return _fixture_task(
        "replace a note's content",
        _opennote_draw,
        setup,
        {
            "perfect": lambda side, g, rng: edit(side, g, "content"),
            "sloppy": lambda side, g, rng: edit(side, g, "content" if rng.random() < 0.5 else "title"),
            "partial": lambda side, g, rng: edit(side, g, None),
            "wrong": lambda side, g, rng: _opennote_create(side, g, g["title"], g["new_content"]),
        },
        reward,
    )


# --- gnuunits: unit conversion over the GNU units database, no state (the fourteenth set, dev now) -----------


def _gnuunits_draw(rng: random.Random) -> dict[str, Any]:
    return {
        "cups": rng.choice((0.5, 1, 1.5, 2, 3, 4)),
        "spoons": rng.randint(1, 6),
        "celsius": rng.choice((150, 160, 175, 180, 190, 200, 220, 230, 250)),
        "watts": rng.choice((60, 100, 750, 1200, 1500, 2000, 2400)),
        "hours": rng.choice((0.5, 1.5, 2, 3, 4.5, 8)),
    }


async def _gnuunits_value(side: Side, tool: str, arguments: dict[str, Any]) -> float | None:
    """A conversion's bare number (its answer's `value`; None when it fails)."""
    value, error = await side.call(tool, arguments)
    found = value.get("value") if not error and isinstance(value, dict) else None
    return float(found) if isinstance(found, int | float) and not isinstance(found, bool) else None


async def _recipe_millilitres(side: Side, g: dict[str, Any], how: str) -> float | None:
    """A recipe's cups and tablespoons of milk, together, in millilitres."""
    cups, spoons = g["cups"], g["spoons"]
    if how == "partial":  # the cups only
        return await _gnuunits_value(side, "convert", {"from_expr": f"{cups} cup", "to_expr": "ml"})
    if how == "wrong":  # the spoons taken as cups
        return await _gnuunits_value(side, "convert", {"from_expr": f"{cups + spoons} cup", "to_expr": "ml"})
    spoon = "tsp" if how == "sloppy" else "tbsp"
    return await _gnuunits_value(side, "convert", {"from_expr": f"{cups} cup + {spoons} {spoon}", "to_expr": "ml"})


async def _oven_fahrenheit(side: Side, g: dict[str, Any], how: str) -> float | None:
    """An oven's Celsius setting in Fahrenheit."""
    source, target = {
        "sloppy": (f"{g['celsius']} degC", "degF"),  # a difference of degrees, not a temperature
        "partial": (f"tempC({g['celsius']})", "K"),
        "wrong": (f"tempF({g['celsius']})", "tempC"),
    }.get(how, (f"tempC({g['celsius']})", "tempF"))
    return await _gnuunits_value(side, "convert", {"from_expr": source, "to_expr": target})


async def _appliance_energy(side: Side, g: dict[str, Any], how: str) -> float | None:
    """The energy an appliance of some watts uses in some hours, in kilowatt-hours."""
    if how == "partial":  # its power in kilowatts
        return await _gnuunits_value(side, "convert", {"from_expr": f"{g['watts']} W", "to_expr": "kW"})
    if how == "wrong":  # in joules, as SI gives it
        return await _gnuunits_value(side, "convert_to_si", {"expr": f"{g['watts']} W * {g['hours']} hour"})
    period = "min" if how == "sloppy" else "hour"
    return await _gnuunits_value(
        side, "convert", {"from_expr": f"{g['watts']} W * {g['hours']} {period}", "to_expr": "kWh"}
    )


def _gnuunits_task(name: str, steps: Callable[[Side, dict[str, Any], str], Awaitable[float | None]]) -> Task:
    """The agent's figure against the perfect calls made through that server's own tools (as calc's)."""
    task = _calc_task(name, steps)
    return Task(name, _gnuunits_draw, task.setup, task.agents, task.reward)


# --- sidecar: durable state for agents, values, workflow runs and leases (held out, the fifteenth set) ----------


def _sidecar_draw(rng: random.Random) -> dict[str, Any]:
    space, other = rng.sample(_WORDS, 2)
    holder, new_holder, stranger = rng.sample(("planner", "worker-1", "worker-2", "reviewer", "crawler-a"), 3)
    return {
        "key": f"{space}:{rng.choice(('cursor', 'owner', 'summary', 'status'))}_{rng.randint(1, 99)}",
        "value": {
            "step": rng.randint(1, 9),
            "state": rng.choice(("parsed", "merged", "scored")),
            "rows": rng.randint(1, 999),
        },
        "pipeline": f"{other}-sync-{rng.randint(10, 99)}",
        "customer": rng.choice(("acme", "globex", "initech", "hooli")),
        "agent": holder,
        "stranger": stranger,
        "outputs": [{"rows": rng.randint(1, 5000)}, f"{rng.choice(_WORDS)} uploaded"],
        "resource": f"report-{space}-{rng.randint(1, 40)}",
        "holder": holder,
        "new_holder": new_holder,
        "ttl": rng.choice((300, 600, 900)),
    }


async def _sidecar_value(side: Side, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """An answer's fields (none when it fails)."""
    value, error = await side.call(tool, arguments)
    return value if not error and isinstance(value, dict) else {}


def _sidecar_store() -> Task:
    async def play(side: Side, g: dict[str, Any], key: str | None, value: Any) -> None:
        if key is None:
            await side.call("state_get", {"key": g["key"]})  # looks, never sets
            return
        await side.call("state_set", {"key": key, "value": value, "agent_id": g["agent"]})

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        found = await _sidecar_value(side, "state_get", {"key": g["key"]})
        return float(found.get("found") is True and found.get("value") == g["value"])

    return _fixture_task(
        "store a value under a key",
        _sidecar_draw,
        _nothing,
        {
            "perfect": lambda side, g, rng: play(side, g, g["key"], g["value"]),
            "sloppy": lambda side, g, rng: play(side, g, g["key"] + ("s" if rng.random() < 0.5 else ""), g["value"]),
            "partial": lambda side, g, rng: play(side, g, None, None),
            "wrong": lambda side, g, rng: play(side, g, g["key"], "TODO"),
        },
        reward,
    )


async def _sidecar_run_of(side: Side, g: dict[str, Any]) -> str:
    """The run id of the episode's pipeline, as discovery by its tag finds it ("" when none)."""
    found = await _sidecar_value(side, "workflow_discover", {"tags": {"customer": g["customer"]}})
    runs = [run for run in found.get("runs", []) if isinstance(run, dict) and run.get("name") == g["pipeline"]]
    return str(runs[0].get("run_id", "")) if runs else ""


def _sidecar_work() -> Task:
    async def setup(side: Side, g: dict[str, Any]) -> None:
        await side.call("workflow_create", {"name": g["pipeline"], "tags": {"customer": g["customer"]}})

    async def work(side: Side, g: dict[str, Any], agent: str, steps: int) -> None:
        run = await _sidecar_run_of(side, g)  # the run id, found as a worker finds it
        await side.call("workflow_claim", {"run_id": run, "agent_id": agent})
        for step, output in enumerate(g["outputs"][:steps], start=1):
            await side.call("workflow_checkpoint", {"run_id": run, "step": step, "output": output})

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        """Claimed by the agent (half), and both steps' outputs kept (half)."""
        run = await _sidecar_run_of(side, g)
        resumed = await _sidecar_value(side, "workflow_resume", {"run_id": run})
        meta = resumed.get("meta")
        claimed = isinstance(meta, dict) and meta.get("agent_id") == g["agent"]
        outputs = resumed.get("step_outputs") == {"1": g["outputs"][0], "2": g["outputs"][1]}
        return (float(claimed) + float(claimed and outputs)) / 2

    return _fixture_task(
        "claim a workflow run and checkpoint its two steps",
        _sidecar_draw,
        setup,
        {
            "perfect": lambda side, g, rng: work(side, g, g["agent"], 2),
            "sloppy": lambda side, g, rng: work(side, g, g["agent"], 1 if rng.random() < 0.5 else 2),
            "partial": lambda side, g, rng: work(side, g, g["agent"], 0),
            "wrong": lambda side, g, rng: work(side, g, g["stranger"], 2),
        },
        reward,
    )


def _sidecar_hand_over() -> Task:
    async def setup(side: Side, g: dict[str, Any]) -> None:
        await side.call(
            "lease_acquire", {"resource_id": g["resource"], "holder_id": g["holder"], "ttl_seconds": g["ttl"]}
        )

    async def hand_over(side: Side, g: dict[str, Any], release: bool, acquire: bool) -> None:
        if release:
            await side.call("lease_release", {"resource_id": g["resource"], "holder_id": g["holder"]})
        if acquire:
            lease = {"resource_id": g["resource"], "holder_id": g["new_holder"], "ttl_seconds": g["ttl"]}
            await side.call("lease_acquire", lease)

    async def holds(side: Side, g: dict[str, Any], holder: str) -> bool:
        """Whether `holder` holds the lease (a renewal succeeds only for its holder)."""
        lease = {"resource_id": g["resource"], "holder_id": holder, "ttl_seconds": g["ttl"]}
        return (await _sidecar_value(side, "lease_renew", lease)).get("renewed") is True

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        """The old holder's lease gone (half), and the new holder holding it (half)."""
        return (float(not await holds(side, g, g["holder"])) + float(await holds(side, g, g["new_holder"]))) / 2

    return _fixture_task(
        "hand a lease over to another holder",
        _sidecar_draw,
        setup,
        {
            "perfect": lambda side, g, rng: hand_over(side, g, True, True),
            "sloppy": lambda side, g, rng: hand_over(side, g, rng.random() < 0.5, True),
            "partial": lambda side, g, rng: hand_over(side, g, True, False),
            "wrong": lambda side, g, rng: hand_over(side, g, False, True),
        },
        reward,
    )


# --- devnotes: developers' notes on features, with tags, a status and a priority (held out, the fifteenth set) ---


def _devnotes_draw(rng: random.Random) -> dict[str, Any]:
    words = rng.sample(_WORDS, 5)
    return {
        "feature": f"{words[0]} {rng.choice(('export', 'sync', 'login', 'search'))}",
        "content": f"Moved the {words[1]} check into the {words[2]} step ({rng.randint(2, 90)} ms saved)",
        "tags": rng.sample(("backend", "frontend", "perf", "api", "tests", "db"), 2),
        "priority": rng.choice(("high", "low")),
        "features": [f"{word} {rng.choice(('api', 'page', 'job'))}" for word in words[2:]],
    }


async def _devnotes_exported(side: Side, **params: Any) -> list[dict[str, Any]]:
    """The notes a JSON export answers (for a feature, when named); none when it fails."""
    value, error = await side.call("export_notes", {"format": "json", **params})
    return [note for note in value if isinstance(note, dict)] if not error and isinstance(value, list) else []


async def _devnotes_look(side: Side, g: dict[str, Any]) -> None:
    """Lists the notes and does nothing with them."""
    await side.call("list_notes", {})


async def _devnotes_ids(side: Side, g: dict[str, Any]) -> dict[str, str]:
    """feature -> id of the notes the list shows."""
    value, error = await side.call("list_notes", {})
    listed = re.findall(r"^\*\*\[(\S+)\] (.*)\*\*$", value, re.MULTILINE) if isinstance(value, str) else []
    return {feature: note for note, feature in listed} if not error else {}


def _devnotes_add() -> Task:
    async def play(side: Side, g: dict[str, Any], tagged: bool, priority: str | None) -> None:
        if priority is None:
            await side.call("list_notes", {"feature": g["feature"]})  # looks, never writes
            return
        tags = {"tags": g["tags"]} if tagged else {}
        await side.call("add_note", {"feature": g["feature"], "content": g["content"], "priority": priority, **tags})

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        notes = [
            note for note in await _devnotes_exported(side, feature=g["feature"]) if note.get("feature") == g["feature"]
        ]
        wanted = {"content": g["content"], "tags": g["tags"], "priority": g["priority"], "status": "in_progress"}
        return float(len(notes) == 1 and all(notes[0].get(key) == value for key, value in wanted.items()))

    return _fixture_task(
        "add a note for a feature with its tags and priority",
        _devnotes_draw,
        _nothing,
        {
            "perfect": lambda side, g, rng: play(side, g, True, g["priority"]),
            "sloppy": lambda side, g, rng: play(side, g, rng.random() < 0.5, g["priority"]),
            "partial": lambda side, g, rng: play(side, g, True, None),
            "wrong": lambda side, g, rng: play(side, g, True, "medium"),
        },
        reward,
    )


async def _devnotes_three(side: Side, g: dict[str, Any]) -> None:
    for feature in g["features"]:
        await side.call("add_note", {"feature": feature, "content": f"first pass at the {feature}"})


async def _devnotes_change(side: Side, g: dict[str, Any], indices: list[int], change: dict[str, Any] | None) -> None:
    """Completes (or, with no change, deletes) the notes of those features, their ids read from the list."""
    ids = await _devnotes_ids(side, g)
    for index in indices:
        note = ids.get(g["features"][index], "")
        if change is None:
            await side.call("delete_note", {"note_id": note})
        else:
            await side.call("update_note", {"note_id": note, **change})


def _devnotes_complete() -> Task:
    done = {"status": "completed"}

    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        status = {note.get("feature"): note.get("status") for note in await _devnotes_exported(side)}
        finished = status.get(g["features"][1]) == "completed"
        kept = [status.get(g["features"][index]) == "in_progress" for index in (0, 2)]
        return float(finished) * (1.0 + float(sum(kept))) / 3  # the others left open count only with it done

    return _fixture_task(
        "complete one note of three",
        _devnotes_draw,
        _devnotes_three,
        {
            "perfect": lambda side, g, rng: _devnotes_change(side, g, [1], done),
            "sloppy": lambda side, g, rng: _devnotes_change(side, g, [1 if rng.random() < 0.5 else 2], done),
            "partial": lambda side, g, rng: _devnotes_look(side, g),
            "wrong": lambda side, g, rng: _devnotes_change(side, g, [0, 1, 2], done),
        },
        reward,
    )


def _devnotes_drop() -> Task:
    async def reward(side: Side, g: dict[str, Any], answer: Any) -> float:
        features = [note.get("feature") for note in await _devnotes_exported(side)]
        kept = [features.count(g["features"][index]) == 1 for index in (0, 2)]
        return (
            float(g["features"][1] not in features) * (1.0 + sum(kept)) / 3
        )  # the others kept count only with it gone

    return _fixture_task(
        "delete one note of three",
        _devnotes_draw,
        _devnotes_three,
        {
            "perfect": lambda side, g, rng: _devnotes_change(side, g, [1], None),
            "sloppy": lambda side, g, rng: _devnotes_change(side, g, [1 if rng.random() < 0.5 else 2], None),
            "partial": lambda side, g, rng: _devnotes_look(side, g),
            "wrong": lambda side, g, rng: _devnotes_change(side, g, [0, 1, 2], None),
        },
        reward,
    )


# --- roman: numbers as Roman numerals and back, no state (held out, the fifteenth set) -----------------------


def _roman_draw(rng: random.Random) -> dict[str, Any]:
    first = rng.randint(1000, 2000)
    return {
        "from": roman_numeral(first),
        "to": roman_numeral(first + rng.randint(5, 900)),
        "number": rng.randint(1, 3999),
        "half": roman_numeral(rng.randint(3, 1999)),
    }


async def _roman_result(side: Side, tool: str, argument: str, given: Any) -> str | None:
    """A conversion's result text (None when it fails)."""
    value, error = await side.call(tool, {argument: given})
    found = value.get("result") if not error and isinstance(value, dict) else None
    return found if isinstance(found, str) else None


async def _roman_number(side: Side, numeral: str) -> float | None:
    """A numeral read as a number through the server."""
    found = await _roman_result(side, "to_arabic", "roman", numeral)
    return float(found) if found is not None and found.lstrip("-").isdigit() else None


async def _years_between(side: Side, g: dict[str, Any], how: str) -> float | None:
    """The years between two years written as Roman numerals."""
    later = await _roman_number(side, g["to"])
    if how == "partial" or later is None:  # the later year only
        return later
    earlier = await _roman_number(side, g["from"])
    if earlier is None:
        return None
    if how == "wrong":  # added, not taken away
        return later + earlier
    return later - earlier + (1 if how == "sloppy" else 0)  # sloppy: both years counted


async def _numeral_letters(side: Side, g: dict[str, Any], how: str) -> float | None:
    """The letters of a number's Roman numeral."""
    number = g["number"] % 3999 + 1 if how == "sloppy" else g["number"]  # sloppy: the next number's
    if how == "wrong":  # the digits of the number, not the numeral's letters
        return float(len(str(number)))
    numeral = await _roman_result(side, "to_roman", "number", number)
    if numeral is None or not numeral.isalpha() or not numeral.isascii():
        return None
    return float(len(numeral.rstrip("I")) if how == "partial" else len(numeral))  # partial: the ones left off


async def _numeral_doubled(side: Side, g: dict[str, Any], how: str) -> float | None:
    """A numeral doubled, written as a numeral by the server and read back as a number."""
    number = await _roman_number(side, g["half"])
    if number is None or how == "partial":  # the numeral's own value
        return number
    if how == "wrong":  # the numeral written twice over, read as one
        return await _roman_number(side, g["half"] * 2)
    doubled = await _roman_result(side, "to_roman", "number", int(number * 2 + (1 if how == "sloppy" else 0)))
    return await _roman_number(side, doubled) if doubled is not None else None


def _roman_task(name: str, steps: Callable[[Side, dict[str, Any], str], Awaitable[float | None]]) -> Task:
    """The agent's figure against the perfect calls made through that server's own tools (as calc's)."""
    task = _calc_task(name, steps)
    return Task(name, _roman_draw, task.setup, task.agents, task.reward)


TASKS: dict[str, list[Callable[[], Task]]] = {
    "kv-fixture": [_kv_store, _kv_clear, _kv_move],
    "todo-fixture": [_todo_complete, _todo_rename, _todo_drop],
    "keeper": [_store_task, _clear_task, _move_task],
    "taskmanager": [_complete_task, _rename_task, _drop_task],
    "calculator": [
        lambda: _calc_task("(a + b) * c", _sum_times),
        lambda: _calc_task("the square root of a + b", _root_of_sum),
        lambda: _calc_task("the mean of a, b, c", _mean),
    ],
    "bank": [_bank_record, _bank_update, _bank_copy],
    "todo": [_mcp_todo_complete, _mcp_todo_detailed, _mcp_todo_drop],
    "calc": [partial(_expression_task, name, shapes) for name, shapes in _EXPRESSIONS.items()],
    "notes": [_notes_record, _notes_append, _notes_rename],
    "ohno": [_ohno_finish, _ohno_block, _ohno_archive],
    "calcmcp": [
        partial(_compute_task, "(a + b) * c", _sum_times_math),
        partial(_compute_task, "a kilometres in miles", _km_to_miles),
        partial(_compute_task, "the days between two dates", _days_between),
    ],
    "mem": [_mem_store, _mem_forget, _mem_move],
    "todotxt": [_todo_txt_complete, _todo_txt_add, _todo_txt_reprioritise],
    "units": [
        partial(_units_task, "a kilometres in miles", _length),
        partial(_units_task, "a temperature in Fahrenheit", _temperature),
        partial(_units_task, "two parcels' weight in pounds, in one batch", _parcels),
    ],
    "memo": [_memo_store, _memo_forget, _memo_rename],
    "runloq": [_runloq_close, _runloq_file, _runloq_start],
    "fincalc": [
        partial(_fincalc_task, "a loan's monthly payment", _loan),
        partial(_fincalc_task, "the income tax of a filing status", _income_tax),
        partial(_fincalc_task, "the break-even units", _break_even),
    ],
    "kb": [_kb_store, _kb_forget, _kb_edit],
    "tasker": [_tasker_finish, _tasker_split, _tasker_cancel],
    "bizdays": [
        partial(_bizdays_task, "the next business day after a holiday", _next_day),
        partial(_bizdays_task, "the business days between two dates", _days_between_dates),
        partial(_bizdays_task, "the last business day of a month", _month_end),
    ],
    "memex": [_memex_save, _memex_forget, _memex_warn],
    "memtask": [_memtask_complete, _memtask_remember, _memtask_drop],
    "acb": [
        partial(_acb_task, "the ACB per share after two buys", _acb_per_share),
        partial(_acb_task, "the taxable capital gain of a tax year", _taxable_gain),
        partial(_acb_task, "the unrealized gain at a market price", _unrealized),
    ],
    "memdb": [_memdb_save, _memdb_forget, _memdb_append],
    "cadence": [_cadence_complete, _cadence_add, _cadence_split],
    "charidx": [
        partial(_charidx_task, "the index of a character's n-th occurrence", _nth_char),
        partial(_charidx_task, "the letters of a text", _letters),
        partial(_charidx_task, "where the text between the n-th pair of brackets starts", _between),
    ],
    "lmem": [_lmem_add, _lmem_archive, _lmem_supersede],
    "todolist": [_todolist_complete, _todolist_create, _todolist_drop],
    "exactcalc": [
        partial(_exactcalc_task, "the exact sum of three decimals", _decimal_sum),
        partial(_exactcalc_task, "a decimal as a fraction", _fraction_of),
        partial(_exactcalc_task, "a quotient rounded to three places", _rounded_quotient),
    ],
    "cachekv": [_cachekv_cache, _cachekv_drop, _cachekv_series],
    "glossary": [_glossary_add, _glossary_deprecate, _glossary_drop],
    "mathx": [
        _mathx_area,
        partial(_mathx_task, "the determinant of a 3x3 matrix", _determinant),
        partial(_mathx_task, "the mean of a list of numbers", _data_mean),
    ],
    "notepad": [_notepad_add, _notepad_drop, _notepad_rename],
    "bugs": [_bugs_file, _bugs_resolve, _bugs_drop],
    "color": [
        partial(_color_task, "the complement of an rgb colour", _complement_of_rgb),
        partial(_color_task, "the contrast of an hsl text colour on a page colour", _contrast_of_hsl),
        partial(_color_task, "the middle colour of a five-step gradient", _gradient_middle),
    ],
    "aimem": [_aimem_save, _aimem_forget, _aimem_retag],
    "todokit": [_todokit_complete, _todokit_add, _todokit_drop],
    "measures": [
        partial(_measures_task, "a recipe's milk and oil in millilitres", _recipe_volume),
        partial(_measures_task, "an oven's setting in Celsius", _oven_celsius),
        partial(_measures_task, "the flour left in a bag, in kilograms", _flour_left),
    ],
    "docbank": [_docbank_save, _docbank_forget, _docbank_append],
    "dsa": [_dsa_record, _dsa_next, partial(_dsa_task, "the problems of a category at a difficulty", _dsa_count)],
    "subnet": [
        partial(_subnet_task, "the broadcast address of a subnet for a number of hosts", _broadcast_for_hosts),
        partial(_subnet_task, "the nth usable address of a network given by a mask", _nth_of_masked),
        partial(_subnet_task, "the addresses left after an address in its network", _addresses_left),
    ],
    "board": [_board_place, _board_drop, _board_hand_over],
    "opennote": [_opennote_file, _opennote_drop, _opennote_edit],
    "gnuunits": [
        partial(_gnuunits_task, "a recipe's cups and tablespoons in millilitres", _recipe_millilitres),
        partial(_gnuunits_task, "an oven's Celsius setting in Fahrenheit", _oven_fahrenheit),
        partial(_gnuunits_task, "an appliance's energy in kilowatt-hours", _appliance_energy),
    ],
    "sidecar": [_sidecar_store, _sidecar_work, _sidecar_hand_over],
    "devnotes": [_devnotes_add, _devnotes_complete, _devnotes_drop],
    "roman": [
        partial(_roman_task, "the years between two years in Roman numerals", _years_between),
        partial(_roman_task, "the letters of a number's Roman numeral", _numeral_letters),
        partial(_roman_task, "a Roman numeral doubled, read back", _numeral_doubled),
    ],
}


# --- running and scoring -------------------------------------------------------------------------


@dataclass
class Scores:
    episodes: list[dict[str, Any]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        agents: dict[str, dict[str, list[float]]] = {}
        for episode in self.episodes:
            entry = agents.setdefault(episode["agent"], {"real": [], "twin": []})
            entry["real"].append(episode["real"])
            entry["twin"].append(episode["twin"])
        means = {
            agent: {side: round(sum(values) / len(values), 3) for side, values in entry.items()}
            for agent, entry in agents.items()
        }
        agree = sum(abs(e["real"] - e["twin"]) < 1e-9 for e in self.episodes)
        order = sorted(means)
        tau = kendall_tau_b([means[a]["real"] for a in order], [means[a]["twin"] for a in order])
        worst = max((abs(m["real"] - m["twin"]) for m in means.values()), default=0.0)
        return {
            "episodes": len(self.episodes),
            "reward_agrees": agree,
            "reward_agreement": round(agree / len(self.episodes), 4) if self.episodes else 0.0,
            "agents": means,
            "largest_gap": round(worst, 3),
            "kendall_tau_b": round(tau, 3),
        }


def kendall_tau_b(x: list[float], y: list[float]) -> float:
    """Kendall's tau-b of two scorings of the same items; 0 when either side ties everything."""
    concordant = discordant = ties_x = ties_y = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    denominator = math.sqrt((concordant + discordant + ties_x) * (concordant + discordant + ties_y))
    return (concordant - discordant) / denominator if denominator else 0.0


async def episode(target: Target, name: str, task: Task, agent: str, given: dict[str, Any], seed: str) -> float:
    folder = Path(tempfile.mkdtemp(prefix="sim-mcp-agents-"))
    try:
        async with anyio.create_task_group() as tasks:
            upstream = Upstream(target.for_session(name, folder), 60.0)
            await upstream.start(tasks)
            side = Side(upstream, folder)
            facts = dict(given)
            await task.setup(side, facts)
            answer = await task.agents[agent](side, facts, random.Random(seed))
            score = await task.reward(side, facts, answer)
            await upstream.stop()
            tasks.cancel_scope.cancel()
        return score
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run_server(server: str, twin_folder: Path, episodes: int, seed: int) -> Scores:
    command, env = SERVERS[server]
    real = parse_target(shlex.join(command), env)
    scores = Scores()
    with serving(parse_target(str(twin_folder))) as twin:
        for number, make in enumerate(TASKS[server]):
            task = make()
            for repeat in range(episodes):
                given = task.draw(random.Random(f"agents\x00{server}\x00{seed}\x00{number}\x00{repeat}"))
                for agent in SKILLS:
                    name = f"ep-{seed}-{number}-{repeat}-{agent}"
                    rng_seed = f"{seed}\x00{name}"
                    real_score = anyio.run(episode, real, name, task, agent, given, rng_seed)
                    twin_score = anyio.run(episode, twin, name, task, agent, given, rng_seed)
                    scores.episodes.append(
                        {"task": task.name, "agent": agent, "repeat": repeat, "real": real_score, "twin": twin_score}
                    )
                    print(
                        f"{server}: {task.name} / {agent} #{repeat}: real {real_score:.2f}, twin {twin_score:.2f}",
                        file=sys.stderr,
                    )
    return scores


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--twins", type=Path, required=True, help="a folder of benchmarks.heldout --keep (NAME/twin)")
    parser.add_argument(
        "--servers",
        default=",".join(HELD_OUT),
        help=f"comma-separated, of {', '.join(TASKS)} (default: the held-out set, {', '.join(HELD_OUT)}; the "
        "others are dev; twins from heldout --servers NAME)",
    )
    parser.add_argument("--episodes", type=int, default=3, help="episodes per task and agent (default 3)")
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results: dict[str, Any] = {}
    for server in [name for name in args.servers.split(",") if name]:
        scores = run_server(server, args.twins / server / "twin", args.episodes, args.seed)
        results[server] = {"summary": scores.summary(), "episodes": scores.episodes}
    if args.json:
        print(json.dumps(results, indent=1))
        return 0
    for server, result in results.items():
        summary = result["summary"]
        print(
            f"\n{server}: {summary['episodes']} episodes per side, reward agrees on {summary['reward_agrees']} "
            f"({100 * summary['reward_agreement']:.1f}%); Kendall's tau-b of the agents "
            f"{summary['kendall_tau_b']:.2f}; "
            f"largest gap of a mean {summary['largest_gap']:.2f}"
        )
        for agent in SKILLS:
            means = summary["agents"].get(agent, {})
            print(f"  {agent:<8} real {means.get('real', 0):.2f}  twin {means.get('twin', 0):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
