"""Twin inference over a unit converter: one number (and offset) per unit, shared by every pair that names
it, learned from recorded conversions and computed by the twin's own Starlark, so that a pair of units never
recorded is answered as the server answers it, and a unit never seen is handed on."""

from __future__ import annotations

import json
from typing import Any

from sim_mcp.authoring.twins.agreement import Answer, compare_answers
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
BATCHES: list[list[tuple[float, str, str, str]]] = [
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


def requests(batch: list[tuple[float, str, str, str]], start: int, unnamed: int = -1) -> list[dict[str, Any]]:
    """The batch's requests, each with an id but the one at `unnamed`, for which the server makes one up."""
    return [
        {"value": value, "from_unit": first, "to_unit": second, "conversion_type": kind}
        | ({"request_id": f"r{start + n}"} if n != unnamed else {})
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
        # Some requests give no id: the server makes one up.
        asked = requests(batch, 10 * number, unnamed=number % 3 - 1)
        sessions[number % 4].append(recorded_batch(number % 4, 10 + number, asked))
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
    # A request that gives no id gets one the twin makes up, of the server's form (compared by form).
    asked = requests([(6, "foot", "meter", "length"), (2, "hours", "minutes", "time")], 95, unnamed=1)
    expected_batch = json.loads(unit_converter.convert_batch(asked)[0])
    assert_guard_agrees(learned, "convert_batch", {}, {"requests": asked}, expected_batch)
    answer = run_guard(learned["convert_batch"], "convert_batch", {}, {"requests": asked})
    assert answer is not None
    assert answer[0]["results"][1]["request_id"].startswith("time_")
    assert answer[0]["results"][1]["request_id"] != expected_batch["results"][1]["request_id"]
    # Of another word, it is another id.
    made_up = Answer({"request_id": "time_-6875897924734963130"}, False)
    assert not compare_answers(made_up, Answer({"request_id": "length_3598404652517860456"}, False)).agree
    assert compare_answers(made_up, Answer({"request_id": "time_3598404652517860456"}, False)).agree


def test_the_units_of_one_kind_are_read_from_the_recorded_listing_of_every_kind() -> None:
    asked = [{}, {"unit_type": "length"}, {}, {"unit_type": "time"}, {"unit_type": "length"}]
    session = []
    for seq, arguments in enumerate(asked, start=1):
        text, error = unit_converter.supported(arguments)
        result = {"content": [{"type": "text", "text": text}], "isError": error}
        session.append(RecordedCall("s0", seq, "list_supported_units", arguments, result, error))
    learned = infer_guards(TOOLS, [session], NAMES).plans
    # A kind no call asked for, answered as the listing of every kind shows it.
    arguments = {"unit_type": "temperature"}
    expected_units = json.loads(unit_converter.supported(arguments)[0])
    assert_guard_agrees(learned, "list_supported_units", {}, arguments, expected_units)
    assert_guard_agrees(learned, "list_supported_units", {}, {}, json.loads(unit_converter.supported({})[0]))
