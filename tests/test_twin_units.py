"""Twin inference over a unit converter: one number (and offset) per unit, shared by every pair that names
it, learned from recorded conversions and computed by the twin's own Starlark, so that a pair of units never
recorded is answered as the server answers it, and a unit never seen is handed on."""

from __future__ import annotations

import json
from typing import Any

from sim_mcp.authoring.twins.keyed_world import infer_guards, run_guard
from sim_mcp.authoring.twins.recordings import RecordedCall
from sim_mcp.specs.model import ToolSpec
from tests.fixture_servers import unit_converter
from tests.twin_learning import assert_guard_agrees

TOOLS = [
    ToolSpec(name=t.name, description=t.description or "", input_schema=t.input_schema) for t in unit_converter.TOOLS
]
NAMES = [tool.name for tool in TOOLS]


def recorded(session: int, seq: int, tool: str, value: float, first: str, second: str) -> RecordedCall:
    arguments: dict[str, Any] = {"value": value, "from_unit": first, "to_unit": second}
    text, error = unit_converter.convert(tool, arguments)
    result = {"content": [{"type": "text", "text": text}], "isError": error}
    return RecordedCall(f"s{session}", seq, tool, arguments, result, error)


# Each pair recorded once (a line per pair learns none of them); the units linked through the pairs.
CONVERSIONS = [
    ("convert_length", 3, "meter", "foot"),
    ("convert_length", 7, "foot", "inch"),
    ("convert_length", 2.5, "kilometer", "meter"),
    ("convert_length", 12, "mile", "meter"),
    ("convert_length", 40, "yard", "foot"),
    # Two units no call links to the others: a group of their own.
    ("convert_length", 5, "furlong", "chain"),
    ("convert_time", 90, "minutes", "hours"),
    ("convert_time", 3, "days", "minutes"),
    ("convert_time", 7200, "seconds", "hours"),
    ("convert_temperature", 100, "celsius", "fahrenheit"),
    ("convert_temperature", 37, "celsius", "fahrenheit"),
    ("convert_temperature", 300, "kelvin", "celsius"),
    ("convert_temperature", 0, "kelvin", "celsius"),
    ("convert_temperature", 451, "fahrenheit", "celsius"),
]


# Batches of requests, each converted as its quantity's tool converts it (a table learned from the items).
BATCHES = [
    [(3, "meter", "foot", "length"), (90, "minutes", "hours", "time")],
    [(7, "foot", "inch", "length"), (100, "celsius", "fahrenheit", "temperature")],
    [
        (2.5, "kilometer", "meter", "length"),
        (3, "days", "minutes", "time"),
        (37, "celsius", "fahrenheit", "temperature"),
    ],
    [(300, "kelvin", "celsius", "temperature"), (12, "mile", "meter", "length"), (7200, "seconds", "hours", "time")],
    [(451, "fahrenheit", "celsius", "temperature"), (0, "kelvin", "celsius", "temperature")],
]


def requests(batch: list[tuple[float, str, str, str]], start: int) -> list[dict[str, Any]]:
    return [
        {"value": value, "from_unit": first, "to_unit": second, "conversion_type": kind, "request_id": f"r{start + n}"}
        for n, (value, first, second, kind) in enumerate(batch)
    ]


def recorded_batch(session: int, seq: int, asked: list[dict[str, Any]]) -> RecordedCall:
    text, error = unit_converter.convert_batch(asked)
    result = {"content": [{"type": "text", "text": text}], "isError": error}
    return RecordedCall(f"s{session}", seq, "convert_batch", {"requests": asked}, result, error)


def plans() -> dict[str, Any]:
    sessions = [
        [recorded(number, seq, *conversion) for seq, conversion in enumerate(CONVERSIONS[number::4], start=1)]
        for number in range(4)
    ]
    for number, batch in enumerate(BATCHES):
        sessions[number % 4].append(recorded_batch(number % 4, 10 + number, requests(batch, 10 * number)))
    return infer_guards(TOOLS, sessions, NAMES).plans


def expected(tool: str, value: float, first: str, second: str) -> Any:
    text, error = unit_converter.convert(tool, {"value": value, "from_unit": first, "to_unit": second})
    assert not error
    return json.loads(text)


def test_pairs_never_recorded_are_converted_through_each_units_number() -> None:
    learned = plans()
    # One session: a converter stores nothing, so a unit an earlier answer named is converted from as well.
    state: dict[str, Any] = {}
    for tool, value, first, second in [
        ("convert_length", 2, "yard", "inch"),
        ("convert_length", 13, "inch", "kilometer"),
        ("convert_length", 0.75, "mile", "yard"),
        ("convert_length", 1234.5, "foot", "mile"),
        ("convert_time", 45, "hours", "days"),
        ("convert_time", 1.5, "days", "seconds"),
    ]:
        arguments = {"value": value, "from_unit": first, "to_unit": second}
        assert_guard_agrees(learned, tool, state, arguments, expected(tool, value, first, second))


def test_an_offset_per_unit_converts_temperatures_as_the_server_computes_them() -> None:
    learned = plans()
    for value, first, second in [
        (-40, "kelvin", "fahrenheit"),
        (98.6, "fahrenheit", "kelvin"),
        (21.5, "celsius", "kelvin"),
    ]:
        arguments = {"value": value, "from_unit": first, "to_unit": second}
        assert_guard_agrees(
            learned, "convert_temperature", {}, arguments, expected("convert_temperature", value, first, second)
        )


def test_a_unit_never_recorded_and_a_pair_of_two_groups_are_handed_on() -> None:
    learned = plans()
    arguments = {"value": 2, "from_unit": "weeks", "to_unit": "days"}
    assert run_guard(learned["convert_time"], "convert_time", {}, arguments) is None
    # Within its group, a pair is answered both ways; across groups there is no known ratio.
    arguments = {"value": 30, "from_unit": "chain", "to_unit": "furlong"}
    assert_guard_agrees(learned, "convert_length", {}, arguments, expected("convert_length", 30, "chain", "furlong"))
    arguments = {"value": 1, "from_unit": "furlong", "to_unit": "meter"}
    assert run_guard(learned["convert_length"], "convert_length", {}, arguments) is None


def test_a_batch_converts_each_request_through_a_table_learned_from_the_items() -> None:
    learned = plans()
    asked = requests(
        [
            (13, "inch", "kilometer", "length"),
            (45, "hours", "days", "time"),
            (-40, "kelvin", "fahrenheit", "temperature"),
        ],
        90,
    )
    expected_batch = json.loads(unit_converter.convert_batch(asked)[0])
    assert_guard_agrees(learned, "convert_batch", {}, {"requests": asked}, expected_batch)
