"""What the model is asked at each step of writing an environment, each with the JSON Schema of its answer.

The steps are small enough for a small model to do well: the **design** (name, rules, tools with their
input and output schemas), then the **world** (the seeded state and one worked example per tool, written
knowing the design), then the programs (`sim-mcp compile`'s own question) and the tasks (`tasks generate`'s).
Two more questions repair or widen: the **instructions** again, when the LLM simulator following them
disagrees with the programs, and more **descriptions** from a few seeds.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sim_mcp.episodes.asking import JsonForm
from sim_mcp.text import shorten

__all__ = [
    "DESCRIPTIONS",
    "DESIGN",
    "INSTRUCTIONS",
    "WORLD",
    "descriptions_prompt",
    "design_prompt",
    "instructions_prompt",
    "world_prompt",
]

# A tool's input or output schema: an object schema with its properties (a model that decodes under the answer's
# schema cannot leave out `"type": "object"`, which every tool schema needs).
_SCHEMA_OBJECT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "type": {"type": "string", "enum": ["object"]},
        "properties": {"type": "object", "additionalProperties": {"type": "object"}},
        "required": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["type", "properties"],
}
# The world: collections keyed by id, of records.
_STATE: dict[str, Any] = {
    "type": "object",
    "description": "collections of records, each keyed by the record's id",
    "additionalProperties": {"type": "object", "additionalProperties": {"type": "object"}},
}

DESIGN = JsonForm(
    {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "short-kebab-case name of the environment"},
            "description": {"type": "string"},
            "instructions": {"type": "string", "description": "the rules of the world, as a list of plain sentences"},
            "now": {"type": "string", "description": "the world's current time, e.g. 2025-03-14T10:00:00Z"},
            "tools": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "description": {"type": "string"},
                        "input_schema": _SCHEMA_OBJECT,
                        "output_schema": _SCHEMA_OBJECT,
                    },
                    "required": ["name", "description", "input_schema", "output_schema"],
                },
            },
        },
        "required": ["name", "description", "instructions", "tools"],
    },
    "environment",
    "The design of a simulated software environment: its rules and its tools.",
)

WORLD = JsonForm(
    {
        "type": "object",
        "properties": {
            "initial_state": _STATE,
            "examples": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "tool": {"type": "string"},
                        "arguments": {"type": "object"},
                        "result": {},
                        "is_error": {"type": "boolean"},
                    },
                    "required": ["tool", "arguments", "result"],
                },
            },
        },
        "required": ["initial_state", "examples"],
    },
    "world",
    "The seeded world state of the environment, and a worked example call per tool.",
)

INSTRUCTIONS = JsonForm(
    {"type": "object", "properties": {"instructions": {"type": "string"}}, "required": ["instructions"]},
    "instructions",
    "The rules of the environment, rewritten.",
)

DESCRIPTIONS = JsonForm(
    {
        "type": "object",
        "properties": {"descriptions": {"type": "array", "items": {"type": "string"}}},
        "required": ["descriptions"],
    },
    "descriptions",
    "One-sentence descriptions of software environments.",
)

_DESIGN_SYSTEM = """\
You design simulated software environments for training AI agents that call tools. An environment is a \
small back-end service: a world state (collections of records) and tools that read and change it.

Write one JSON object:
- "name": a short kebab-case name (e.g. "library-loans").
- "description": one or two sentences.
- "instructions": the rules of the world as short plain sentences, each one exact enough to write code from: \
where records live (e.g. "Books live in `books`, keyed by id \\"B-<number>\\""), how new ids are made (the next \
number after the highest), what each tool changes, which calls fail and the exact error message of each \
failure (e.g. "an unknown book fails with \\"book <id> not found\\""), and that failed calls change nothing.
- "now": the world's current time, an ISO 8601 UTC date-time.
- "tools": {min_tools} to {max_tools} tools. Mix reads (get_..., list_...) and changes (create_..., \
update_..., cancel_..., ...). Each tool: "name" (snake_case), "description", "input_schema" (a JSON Schema \
of type object, with "properties" and "required"; ids are strings), and "output_schema" (a JSON Schema of \
the successful result: an object with "properties"; a list tool returns an object holding the list).

Keep it small and consistent: every tool works on the collections the instructions name."""

_WORLD_SYSTEM = """\
You write the seeded world of a simulated software environment whose design is given, and one worked \
example call per tool.

Write one JSON object:
- "initial_state": an object of collections, one per kind of record the instructions name; each collection \
is an object keyed by the record's id, and each record carries its own "id" too. Write {min_records} to \
{max_records} realistic, varied records per collection (real-looking names, amounts, dates before the \
world's current time, statuses), with the fields the tools' schemas use.
- "examples": one example per tool, on this initial state: {{"tool", "arguments", "result", "is_error"}}. \
Its result is exactly what the tool returns by the rules for those arguments (for a read: the stored \
record's values; for an error: the exact error message as a string, with "is_error": true). Prefer calls \
that succeed; use ids that exist in the state."""


def design_prompt(description: str, *, min_tools: int, max_tools: int, problem: str | None) -> tuple[str, str]:
    """(system, user) asking for the design of the environment `description` says."""
    system = _DESIGN_SYSTEM.format(min_tools=min_tools, max_tools=max_tools)
    user = f"Design this environment: {description.strip()}"
    if problem is not None:
        user += f"\n\nYour previous design was refused: {problem}\nWrite it again, fixed, as one JSON object."
    return system, user


def world_prompt(design: dict[str, Any], *, min_records: int, max_records: int, problem: str | None) -> tuple[str, str]:
    """(system, user) asking for the world and the examples of `design`."""
    system = _WORLD_SYSTEM.format(min_records=min_records, max_records=max_records)
    user = "The environment:\n```json\n" + json.dumps(design, ensure_ascii=False, indent=1) + "\n```"
    if problem is not None:
        user += f"\n\nYour previous world was refused: {problem}\nWrite it again, fixed, as one JSON object."
    return system, user


def instructions_prompt(
    instructions: str, programs: str, disagreements: Sequence[str], *, problem: str | None = None
) -> tuple[str, str]:
    """(system, user) asking for the instructions again, so that a simulator following them answers as the
    programs do on the calls quoted."""
    system = (
        "You maintain the rules of a simulated software environment. The rules are written twice: as "
        "instructions in plain sentences (an LLM simulator follows them) and as code (the programs below, "
        "which are right). On the calls quoted, the simulator following the instructions answered otherwise "
        "than the programs. Rewrite the instructions so that they state every rule the programs implement, "
        "exactly: ids, defaults, what each tool returns, each error message word for word. "
        'Reply with one JSON object: {"instructions": "..."}.'
    )
    user = "\n\n".join(
        [
            f"## The instructions now\n{instructions.strip()}",
            f"## The programs\n```python\n{shorten(programs, 12_000, separator=chr(10))}\n```",
            "## Where the simulator disagreed with the programs\n" + "\n".join(f"- {line}" for line in disagreements),
        ]
    )
    if problem is not None:
        user += f"\n\nYour previous answer was refused: {problem}"
    return system, user


def descriptions_prompt(seeds: Sequence[str], have: Sequence[str], count: int) -> tuple[str, str]:
    """(system, user) asking for `count` more one-sentence environment descriptions like the seeds."""
    system = (
        "You propose software environments for training AI agents that call tools: each is one sentence "
        "naming a kind of back-end service and what its users do with it (its records and operations). "
        "Propose services of the same kind of realism as the examples, each clearly different from every "
        'other one listed. Reply with one JSON object: {"descriptions": ["...", ...]}.'
    )
    lines = ["Examples:", *[f"- {seed}" for seed in seeds]]
    if have:
        lines += ["", "Already proposed (write different ones):", *[f"- {line}" for line in have[-40:]]]
    lines += ["", f"Write {count} new descriptions."]
    return system, "\n".join(lines)
