"""Calls for generated sessions, drawn from the tools' input schemas as a session goes on.

Each call picks a tool and draws arguments valid for its schema (`SchemaDataGenerator`), then changes
some leaves the way an agent would: to a value the session has already seen (in an earlier argument or
answer: the id or name of a record that exists), to a value like one seen but that is in no record
(`missing_id`), or to an edge value (empty, zero, negative, long); a changed set is kept only if it still
fits the schema. The same seed gives the same session against the same answers.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from sim_mcp.authoring.probes import missing_id
from sim_mcp.engine.schema_data import SchemaDataGenerator
from sim_mcp.specs.schema import compile_schema

__all__ = ["CallGenerator", "session_rng"]

_SEEN_CHANCE = 0.55
_MISSING_CHANCE = 0.12
_EDGE_CHANCE = 0.08
_OMIT_CHANCE = 0.3
_POOL_CHARS = 80
_EDGE_STRINGS = ("", " ", "x" * 300, "ünï-cødé ✓")
_EDGE_NUMBERS = (0, -1, 1, 2**31)


def session_rng(seed: int, session: int) -> random.Random:
    return random.Random(f"twin-check\x00{seed}\x00{session}")


class CallGenerator:
    """Draws one session's calls; `observe` feeds it what the session has seen so far."""

    def __init__(self, tools: list[tuple[str, dict[str, Any]]], rng: random.Random) -> None:
        self.tools = [(name, schema) for name, schema in tools]
        self.rng = rng
        self.strings: list[str] = []
        self.numbers: list[int] = []
        self._validators = {name: compile_schema(schema) for name, schema in self.tools}

    def observe(self, value: Any) -> None:
        """Remember the scalar leaves of an argument set or an answer, for later calls to refer to."""
        if isinstance(value, dict):
            for item in value.values():
                self.observe(item)
        elif isinstance(value, list):
            for item in value[:50]:
                self.observe(item)
        elif isinstance(value, str) and 0 < len(value) <= _POOL_CHARS and value not in self.strings:
            self.strings.append(value)
        elif isinstance(value, int) and not isinstance(value, bool) and value not in self.numbers:
            self.numbers.append(value)

    def next_call(self) -> tuple[str, dict[str, Any]]:
        name, schema = self.tools[self.rng.randrange(len(self.tools))]
        drawn = SchemaDataGenerator(schema, self.rng).generate(schema)
        arguments: dict[str, Any] = drawn if isinstance(drawn, dict) else {}
        # Optional arguments left out now and then: the schema generator gives them all, and what a tool
        # does without one is part of what a twin must learn.
        required = set(schema.get("required", []))
        arguments = {k: v for k, v in arguments.items() if k in required or self.rng.random() >= _OMIT_CHANCE}
        validator = self._validators[name]
        changed = self._vary(arguments)
        if isinstance(changed, dict) and validator.is_valid(changed):
            arguments = changed
        self.observe(arguments)
        return name, arguments

    def _vary(self, value: Any) -> Any:
        if isinstance(value, dict):
            return {key: self._vary(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self._vary(item) for item in value]
        roll = self.rng.random()
        if isinstance(value, bool):  # the schema generator always draws one value: both must be seen
            return roll < 0.5
        if isinstance(value, str):
            return self._varied(value, roll, self.strings, _EDGE_STRINGS)
        if isinstance(value, int) and not isinstance(value, bool):
            return self._varied(value, roll, self.numbers, _EDGE_NUMBERS)
        return value

    def _varied(self, value: Any, roll: float, seen: Sequence[Any], edges: Sequence[Any]) -> Any:
        """`value`, or as `roll` falls: a value seen before, one shaped like it that is in no collection, an edge."""
        if roll < _SEEN_CHANCE and seen:
            return self.rng.choice(seen)
        if roll < _SEEN_CHANCE + _MISSING_CHANCE and seen:
            return missing_id(self.rng.choice(seen))
        if roll < _SEEN_CHANCE + _MISSING_CHANCE + _EDGE_CHANCE:
            return self.rng.choice(edges)
        return value
