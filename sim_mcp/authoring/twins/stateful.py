"""Generated sessions by Hypothesis' stateful testing: each example is one session, each step a call of a
tool the machine picks, with arguments drawn from the tool's input schema where strings and integers may
be values the session has already seen (in earlier arguments and in the reference's answers: the names
and ids of records that exist), values like them that exist nowhere, or edge values. Hypothesis draws
them (`seed` fixes the run); the caller's `call` plays them against the servers and returns the
reference's answer, which feeds the pool the next steps draw from.

The generate phase alone is run: every example is a session to compare in full, so none is cut short by
a failed assertion (the divergences are shrunk afterwards by `check`).

As in `session_gen`, traffic aims at successes: a string argument for a path, folder or repository mostly
takes the server's working folder (`{tmp}`) or a path its descriptions name, and `values` (NAME -> V)
gives an argument named NAME (or of NAME's kind) the value V most of the time."""

from __future__ import annotations

import random
import re
import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, seed, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, rule, run_state_machine_as_test

from sim_mcp.authoring.programs.probes import missing_id
from sim_mcp.authoring.twins.session_gen import PLACES, key_kind, places_named
from sim_mcp.engine.schema_data import SchemaDataGenerator
from sim_mcp.specs.schema import compile_schema

__all__ = ["run_generated"]

_EDGE_STRINGS = ("", " ", "x" * 300, "ünï-cødé ✓")
_EDGE_NUMBERS = (0, -1, 1, 2**31)
_MAX_ITEMS = 3
_MAX_DEPTH = 5
_POOL_CHARS = 80
_PATHS_IN = re.compile(r"(?:\{tmp\}|(?<![\w.{}])/)[^\s'\"`,;:()\[\]<>]*")


def run_generated(
    tools: list[tuple[str, dict[str, Any]]],
    *,
    sessions: int,
    calls: int,
    run_seed: int,
    open_session: Callable[[], Any],
    call: Callable[[Any, str, dict[str, Any]], Any],
    close_session: Callable[[Any], None],
    values: dict[str, str] | None = None,
    notes: list[str] | None = None,
) -> None:
    """Run `sessions` generated sessions of up to `calls` steps; blocking (run it in a worker thread)."""
    names = [name for name, _ in tools]
    schemas = dict(tools)
    validators = {name: compile_schema(schema) for name, schema in tools}
    aims = _Aims(dict(values or {}), places_named(notes or []))

    class GeneratedSession(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.handle = open_session()
            self.strings: list[str] = []
            self.numbers: list[int] = []

        @rule(data=st.data())
        def call_a_tool(self, data: st.DataObject) -> None:
            name = data.draw(st.sampled_from(names), label="tool")
            drawn = data.draw(
                _value(schemas[name], schemas[name], self.strings, self.numbers, 0, aims), label="arguments"
            )
            # No second draw when this one does not fit: what is drawn must not depend on the servers'
            # answers (Hypothesis replays prefixes of sessions and checks that), so the fallback is fixed.
            if isinstance(drawn, dict) and validators[name].is_valid(drawn):
                arguments = drawn
            else:
                fallback = SchemaDataGenerator(schemas[name], random.Random(name)).generate(schemas[name])
                arguments = fallback if isinstance(fallback, dict) else {}
            _observe(arguments, self.strings, self.numbers)
            _observe(call(self.handle, name, arguments), self.strings, self.numbers)

        def teardown(self) -> None:
            close_session(self.handle)

    _run(seed(run_seed)(GeneratedSession), sessions, calls)


def _run(machine: type[RuleBasedStateMachine], sessions: int, calls: int) -> None:
    run_state_machine_as_test(
        machine,
        settings=settings(
            max_examples=sessions,
            stateful_step_count=calls,
            phases=[Phase.generate],
            database=None,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            verbosity=Verbosity.quiet,
        ),
    )


def _observe(value: Any, strings: list[str], numbers: list[int]) -> None:
    if isinstance(value, dict):
        for item in value.values():
            _observe(item, strings, numbers)
    elif isinstance(value, list):
        for item in value[:50]:
            _observe(item, strings, numbers)
    elif isinstance(value, str) and 0 < len(value) <= _POOL_CHARS and value not in strings:
        strings.append(value)
    elif isinstance(value, int) and not isinstance(value, bool) and value not in numbers:
        numbers.append(value)


@dataclass(frozen=True)
class _Aims:
    values: dict[str, str]  # NAME -> V given by the user
    places: list[str]  # the working folder, and the paths the server's descriptions name


def _value(
    schema: Any,
    root: dict[str, Any],
    strings: list[str],
    numbers: list[int],
    depth: int,
    aims: _Aims,
    key: str | None = None,
) -> st.SearchStrategy[Any]:
    if not isinstance(schema, dict) or depth > _MAX_DEPTH:
        return st.none()
    if "$ref" in schema and isinstance(schema["$ref"], str) and schema["$ref"].startswith("#/"):
        target: Any = root
        for part in schema["$ref"][2:].split("/"):
            target = target.get(part, {}) if isinstance(target, dict) else {}
        return _value(target, root, strings, numbers, depth + 1, aims, key)
    if "const" in schema:
        return st.just(schema["const"])
    if schema.get("enum"):
        return st.sampled_from(schema["enum"])
    for combinator in ("anyOf", "oneOf"):
        options = schema.get(combinator)
        if isinstance(options, list) and options:
            return st.one_of([_value(option, root, strings, numbers, depth + 1, aims, key) for option in options])
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((item for item in kind if item != "null"), "null")
    if kind is None:
        kind = "object" if "properties" in schema else "array" if "items" in schema else "string"
    if kind == "object":
        properties = schema.get("properties") or {}
        required = [name for name in schema.get("required", []) if name in properties]
        return st.fixed_dictionaries(
            {name: _value(properties[name], root, strings, numbers, depth + 1, aims, name) for name in required},
            optional={
                name: _value(value, root, strings, numbers, depth + 1, aims, name)
                for name, value in properties.items()
                if name not in required
            },
        )
    if kind == "array":
        low = int(schema.get("minItems", 0))
        high = max(low, min(int(schema.get("maxItems", _MAX_ITEMS)), _MAX_ITEMS))
        return st.lists(
            _value(schema.get("items", {}), root, strings, numbers, depth + 1, aims, key), min_size=low, max_size=high
        )
    if kind == "string":
        drawn = _string(schema, strings)
        given = aims.values.get(key or "", {key_kind(n): v for n, v in aims.values.items()}.get(key_kind(key)))
        if given is not None:
            return _mostly(st.just(given), drawn)
        if key_kind(key) in PLACES:
            return _mostly(_place(aims.places, strings), drawn)
        return drawn
    if kind in ("integer", "number"):
        minimum, maximum = schema.get("minimum"), schema.get("maximum")
        lowest = int(minimum) if isinstance(minimum, int | float) else None
        highest = int(maximum) if isinstance(maximum, int | float) else None
        drawn = st.integers(min_value=lowest, max_value=highest)
        # The same choices whatever the pool holds (see `_string`).
        seen = st.integers(0, 2**16).map(lambda i: numbers[i % len(numbers)] if numbers else i)
        return st.one_of(seen, seen.map(missing_id), drawn, st.sampled_from(_EDGE_NUMBERS))
    if kind == "boolean":
        return st.booleans()
    return st.none()


def _mostly(aimed: st.SearchStrategy[Any], other: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """`aimed` three times in four, else `other`: the traffic aims at successes, and still tries the rest."""
    return st.integers(0, 3).flatmap(lambda roll: other if roll == 3 else aimed)


def _place(places: list[str], strings: list[str]) -> st.SearchStrategy[str]:
    """A path where something is, or may be made: a known place (the working folder first), a path seen
    in an argument or answer (also inside its text), or a new child of either."""

    def seen_paths() -> list[str]:
        found = [path for text in strings for path in _PATHS_IN.findall(text) if len(path) > 1]
        return places + [path.rstrip(".") for path in dict.fromkeys(found) if path not in places]

    known = st.integers(0, 2**16).map(lambda i: seen_paths()[i % len(seen_paths())])
    name = st.text(alphabet=string.ascii_lowercase + string.digits, min_size=1, max_size=8)
    child = st.tuples(known, name, st.sampled_from(("", ".txt", ".md"))).map(lambda p: f"{p[0]}/{p[1]}{p[2]}")
    return st.one_of(st.sampled_from(places), known, child)


def _string(schema: dict[str, Any], strings: list[str]) -> st.SearchStrategy[Any]:
    low = int(schema.get("minLength", 1))
    high = max(low, min(int(schema.get("maxLength", 16)), 16))
    text = st.text(alphabet=string.ascii_letters + string.digits + " -_", min_size=low, max_size=high)
    # A seen value is drawn as an index into the pool, so that the choices Hypothesis makes are the same
    # whatever the pool holds (it replays prefixes of sessions and checks that they draw alike); with an
    # empty pool the index is a word of its own. Seen values weigh twice: an agent mostly names what it saw.
    seen = st.integers(0, 2**16).map(lambda i: strings[i % len(strings)] if strings else f"name{i}")
    return st.one_of(seen, seen, seen.map(missing_id), text, st.sampled_from(_EDGE_STRINGS))
