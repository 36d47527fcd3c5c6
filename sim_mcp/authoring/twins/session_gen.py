"""Calls for generated sessions, drawn from the tools' input schemas as a session goes on.

Each call picks a tool and draws arguments valid for its schema (`SchemaDataGenerator`), then changes
some leaves the way an agent would: to a value the session has already seen (in an earlier argument or
answer: the id or name of a record that exists), to a value like one seen but that is in no record
(`missing_id`), or to an edge value (empty, zero, negative, long); a changed set is kept only if it still
fits the schema. The same seed gives the same session against the same answers.

A seen value is aimed: most of the time it is one seen under a key of the same kind (`entityName` takes a
value seen under `name`, `paths` one under `path`: the keys' last word, singular), since an id or name is
mostly passed back under the name it came by; and absolute paths inside an answer's free text ("Wrote
/tmp/x/a.txt") are seen values too, and a path argument may name a new child of a seen path. Recordings
made so exercise a tool's success as well as its errors: a twin learns an answer's shape from a success.

Traffic aims at successes: an argument for a path, folder or repository (`path`, `repoPath`, `directory`,
`root`, ...) mostly takes the server's working folder (`{tmp}`, which a check turns into the session's
folder), a path its descriptions name, or one an earlier answer named; and `values` (`--value NAME=V`)
gives an argument named NAME (or of NAME's kind) the value V most of the time.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any

from sim_mcp.authoring.programs.probes import missing_id
from sim_mcp.authoring.twins.upstream import TMP_PLACEHOLDER
from sim_mcp.engine.schema_data import SchemaDataGenerator
from sim_mcp.specs.schema import compile_schema

__all__ = ["PLACES", "CallGenerator", "key_kind", "places_named", "session_rng"]

_SEEN_CHANCE = 0.55
_MISSING_CHANCE = 0.12
_EDGE_CHANCE = 0.08
_OMIT_CHANCE = 0.3
_POOL_CHARS = 80
_EDGE_STRINGS = ("", " ", "x" * 300, "ünï-cødé ✓")
# An integer-like string now and then: where a server keeps values as a map's keys, those are listed
# apart from the others (JavaScript objects put them first), which recordings must show to be learnt.
_NUMERIC_CHANCE = 0.06
_EDGE_NUMBERS = (0, -1, 1, 2**31)
_AIMED_CHANCE = 0.75
_CHILD_CHANCE = 0.4
_LAST_WORD = re.compile(r"([A-Z]?[a-z0-9]+|[A-Z]+)$")
_PATH = re.compile(r"(?<![\w.])/[^\s'\"`,;:()\[\]{}<>]+")
# Kinds of argument that name a place on the server's disk: they take its working folder or a known path.
PLACES = frozenset({"path", "folder", "directory", "dir", "repo", "repository", "root", "cwd", "workspace", "location"})
_PLACE_CHANCE = 0.8
_VALUE_CHANCE = 0.8


def key_kind(key: str | None) -> str | None:
    """The kind of value a key holds: its last word, lower case, singular (`entityNames` -> `name`)."""
    if not key:
        return None
    found = _LAST_WORD.search(key)
    word = (found.group(1) if found else key).lower()
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def places_named(notes: Sequence[str]) -> list[str]:
    """Where a path argument points first: the working folder (`{tmp}`), then the paths `notes` name."""
    named = [path.rstrip(".") for note in notes for path in _PATH.findall(note) if len(path) > 1]
    return [TMP_PLACEHOLDER, *dict.fromkeys(named)]


def session_rng(seed: int, session: int) -> random.Random:
    return random.Random(f"twin-check\x00{seed}\x00{session}")


class CallGenerator:
    """Draws one session's calls; `observe` feeds it what the session has seen so far."""

    def __init__(
        self,
        tools: list[tuple[str, dict[str, Any]]],
        rng: random.Random,
        values: dict[str, str] | None = None,
        notes: Sequence[str] = (),
    ) -> None:
        """`values`: NAME -> V, given by the user; `notes`: the server's descriptions (paths they name)."""
        self.tools = [(name, schema) for name, schema in tools]
        self.rng = rng
        self.strings: list[str] = []
        self.numbers: list[int] = []
        self.by_kind: dict[str, list[str]] = {}
        self.values = dict(values or {})
        self.value_kinds = {key_kind(name): value for name, value in self.values.items()}
        self.places = places_named(notes)
        self._validators = {name: compile_schema(schema) for name, schema in self.tools}

    def observe(self, value: Any, key: str | None = None) -> None:
        """Remember the scalar leaves of an argument set or an answer, for later calls to refer to."""
        if isinstance(value, dict):
            for name, item in value.items():
                self.observe(item, str(name))
        elif isinstance(value, list):
            for item in value[:50]:
                self.observe(item, key)
        elif isinstance(value, str):
            if 0 < len(value) <= _POOL_CHARS:
                self._remember(value, key_kind(key))
            for path in _PATH.findall(value)[:20] if len(value) > 1 else ():
                self._remember(path.rstrip("."), "path")
        elif isinstance(value, int) and not isinstance(value, bool) and value not in self.numbers:
            self.numbers.append(value)

    def _remember(self, value: str, kind: str | None) -> None:
        if value not in self.strings:
            self.strings.append(value)
        if kind is not None:
            pool = self.by_kind.setdefault(kind, [])
            if value not in pool:
                pool.append(value)

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

    def _vary(self, value: Any, key: str | None = None) -> Any:
        if isinstance(value, dict):
            return {name: self._vary(item, name) for name, item in value.items()}
        if isinstance(value, list):
            return [self._vary(item, key) for item in value]
        kind = key_kind(key)
        if isinstance(value, str) and key is not None:
            given = self.values.get(key, self.value_kinds.get(kind))
            if given is not None and self.rng.random() < _VALUE_CHANCE:
                return given
            if kind in PLACES and self.rng.random() < _PLACE_CHANCE:
                seen = [path for path in self.by_kind.get("path", []) if path.startswith((TMP_PLACEHOLDER, "/"))]
                return self.rng.choice(self.places + seen)
        roll = self.rng.random()
        if isinstance(value, bool):  # the schema generator always draws one value: both must be seen
            return roll < 0.5
        if isinstance(value, str):
            if roll < _SEEN_CHANCE and self.strings:
                aimed = self.by_kind.get(key_kind(key) or "")
                if aimed and self.rng.random() < _AIMED_CHANCE:
                    chosen = self.rng.choice(aimed)
                    # A path may also name something new inside a seen folder (a file to create).
                    if key_kind(key) == "path" and self.rng.random() < _CHILD_CHANCE:
                        return f"{chosen.rstrip('/')}/{re.sub(r'[^A-Za-z0-9_.-]', '', value)[:20] or 'new'}"
                    return chosen
            numeric = _SEEN_CHANCE + _MISSING_CHANCE + _EDGE_CHANCE
            if numeric <= roll < numeric + _NUMERIC_CHANCE:
                return str(self.rng.randrange(100))
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
