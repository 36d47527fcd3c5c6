"""Twin inference over a converter that takes a quantity written in one text (`"12.5 yd"`, `"degF(98.6)"`) and the
unit to write it in, and answers the number twice: whole as a JSON number and, in a text, with twelve significant
digits (`%.12g`). The text is read as a number and a unit by the twin's own Starlark (`units.twin_quantity`), one
number (and offset) per unit is learned through a base as for separate arguments, and the text's digits are
written as C's `%g` writes them (`units.twin_significant`)."""

from __future__ import annotations

import functools
import json
import re
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim_mcp.authoring.twins.keyed_world import infer_guards, run_guard
from sim_mcp.authoring.twins.library import TwinLibrary
from sim_mcp.authoring.twins.units import convert
from sim_mcp.specs.model import ToolSpec
from tests.twin_learning import assert_guard_agrees, played

TOOL = ToolSpec(
    name="change",
    description="Write a quantity in another unit.",
    input_schema={
        "type": "object",
        "properties": {"amount": {"type": "string"}, "into": {"type": "string"}},
        "required": ["amount", "into"],
    },
)
# Per unit: (offset, numerator, denominator) to its kind's base, and the kind; computed on doubles as
# (x + offset) * numerator / denominator to the base, and back.
UNITS: dict[str, tuple[float, float, float, str]] = {
    "m": (0.0, 1.0, 1.0, "length"),
    "yd": (0.0, 0.9144, 1.0, "length"),
    "ft": (0.0, 0.3048, 1.0, "length"),
    "inch": (0.0, 0.0254, 1.0, "length"),
    "km": (0.0, 1000.0, 1.0, "length"),
    "rod": (0.0, 5.0292, 1.0, "length"),
    "s": (0.0, 1.0, 1.0, "time"),
    "min": (0.0, 60.0, 1.0, "time"),
    "h": (0.0, 3600.0, 1.0, "time"),
    "K": (0.0, 1.0, 1.0, "heat"),
    "degC": (273.15, 1.0, 1.0, "heat"),
    "degF": (459.67, 5.0, 9.0, "heat"),
}
QUANTITY = re.compile(r"\s*(-?[0-9.]+(?:e[-+]?[0-9]+)?)\s+(\S+)\s*|\s*(\w+)\((-?[0-9.]+)\)\s*")


def server(tool: str, arguments: dict[str, Any], exact: bool = False) -> tuple[str, bool]:
    """The converter, on doubles or (`exact`) on the decimals its numbers are written with, as a server computing
    in fractions does, its answer the double nearest."""
    found = QUANTITY.fullmatch(arguments["amount"])
    if found is None:
        return f"cannot read {arguments['amount']!r}", True
    x, unit = (float(found[1]), found[2]) if found[1] else (float(found[4]), found[3])
    into = arguments["into"]
    if unit not in UNITS or into not in UNITS:
        return f"unknown unit {unit if unit not in UNITS else into!r}", True
    (offset, numerator, denominator, kind), wanted = UNITS[unit], UNITS[into]
    if kind != wanted[3]:
        return f"{unit} and {into} measure different things", True
    y = (x + offset) * numerator / denominator * wanted[2] / wanted[1] - wanted[0]
    if exact:
        given = [Fraction(repr(number)) for number in (x, offset, numerator, denominator)]
        back = [Fraction(repr(number)) for number in wanted[:3]]
        y = float((given[0] + given[1]) * given[2] / given[3] * back[2] / back[1] - back[0])
    answer = {"amount": arguments["amount"], "into": into, "text": f"{y:.12g} {into}", "number": y}
    return json.dumps(answer), False


# The base of each kind (meter, second, kelvin) named most: the table learned is the server's own.
TRAINING = [
    ("12.5 yd", "m"),
    ("7 ft", "m"),
    ("3.75 km", "m"),
    ("40 m", "inch"),
    ("2 rod", "m"),
    ("86.3 min", "s"),
    ("5400 s", "h"),
    ("0.5 h", "s"),
    ("degF(98.6)", "K"),
    ("degC(350)", "K"),
    ("degC(-40)", "K"),
    ("451 K", "degF"),
    ("20 K", "degC"),
]


def learned(exact: bool = False) -> dict[str, Any]:
    answer = functools.partial(server, exact=exact)
    sessions = [
        played(answer, f"s{n}", [("change", {"amount": a, "into": b}) for a, b in TRAINING[n::3]]) for n in range(3)
    ]
    return infer_guards([TOOL], sessions, ["change"]).plans


def expected(amount: str, into: str, exact: bool = False) -> Any:
    text, error = server("change", {"amount": amount, "into": into}, exact)
    assert not error
    return json.loads(text)


def test_a_quantity_text_is_read_as_its_number_and_unit_and_pairs_never_recorded_are_converted() -> None:
    plans = learned()
    for amount, into in [("17.25 inch", "km"), ("3 rod", "ft"), ("0.62 km", "rod"), ("1.5 h", "s"), ("96 min", "s")]:
        # The text writes the number with twelve significant digits: "0.000438150000000" is "0.00043815".
        assert_guard_agrees(plans, "change", {}, {"amount": amount, "into": into}, expected(amount, into))


def test_a_unit_called_as_a_function_of_its_number_is_converted_with_its_offset() -> None:
    plans = learned()
    for amount, into in [("degF(0)", "K"), ("degC(21.5)", "degF"), ("degF(-40)", "degC"), ("300 K", "degF")]:
        assert_guard_agrees(plans, "change", {}, {"amount": amount, "into": into}, expected(amount, into))


def test_a_server_computing_on_decimals_is_answered_as_exactly() -> None:
    plans = learned(exact=True)
    # On doubles, (3 * 5.0292) / 0.3048 is 49.50000000000001; on the decimals, 49.5.
    assert expected("3 rod", "ft") != expected("3 rod", "ft", exact=True)
    for amount, into in [("3 rod", "ft"), ("17.25 inch", "km"), ("0.62 km", "rod"), ("degF(-40)", "degC")]:
        arguments = {"amount": amount, "into": into}
        assert_guard_agrees(plans, "change", {}, arguments, expected(amount, into, exact=True))


def test_a_unit_never_recorded_or_a_text_that_is_no_quantity_is_handed_on() -> None:
    plans = learned()
    for amount, into in [("3 furlong", "m"), ("12 m", "furlong"), ("twelve m", "ft"), ("2 m", "min")]:
        answer = run_guard(plans["change"], "change", {}, {"amount": amount, "into": into})
        assert answer is None or answer[1], (amount, into, answer)


@pytest.fixture(scope="module")
def library() -> TwinLibrary:
    return TwinLibrary()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=40), st.integers(1, 15))
def test_significant_digits_are_written_as_percent_g_writes_them(
    library: TwinLibrary, values: list[float], digits: int
) -> None:
    for value, written in zip(values, _written(library, values, digits), strict=True):
        if value != 0 and abs(value) < _SMALLEST_NORMAL:
            # Below the smallest normal double, the digits are the exact binary value's: declined.
            assert written is None
        else:
            assert written == ("0" if value == 0 else f"{value:.{digits}g}"), value


def test_significant_digits_round_ties_on_the_doubles_exact_value(library: TwinLibrary) -> None:
    values = [0.125, 2.5, 1234567890123.5, 0.3125, 1.0000000000005, 9999999999995.0, 1e22, 5e-5, 123456.0]
    for digits in (1, 2, 3, 12, 13):
        assert _written(library, values, digits) == [f"{value:.{digits}g}" for value in values]
    assert _written(library, [1.5], 16) == [None]
    assert _written(library, [1e300, -2.5e-300], 12) == ["1e+300", "-2.5e-300"]


_SMALLEST_NORMAL = 2.2250738585072014e-308


def _written(library: TwinLibrary, values: list[float], digits: int) -> list[str | None]:
    """Each value as the twin writes it with `digits` significant digits (an identity line as its number)."""
    line = ["linear", "x", ["u"], {"u": [1.0, 0.0]}, None]
    rendered = library.call(
        "twin_bridge_parts", {"parts": [["sig", digits, line]], "cases": [{"x": value, "u": "u"} for value in values]}
    )
    return [row[0][1] for row in rendered]


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(st.integers(-(10**7), 10**7), st.floats(-1e7, 1e7).map(lambda x: round(x, 3))),
            st.sampled_from([0.0, 273.15, -32.0, 459.67]),
            st.floats(1e-4, 1e4).map(lambda x: float(f"{x:.6g}")),
            st.sampled_from([1.0, 9.0, 0.3048, 60.0]),
            st.floats(1e-4, 1e4).map(lambda x: float(f"{x:.6g}")),
            st.sampled_from([None, 0, 2, 4]),
        ),
        min_size=1,
        max_size=20,
    )
)
def test_the_learner_and_the_twin_compute_a_conversion_on_decimals_alike(
    library: TwinLibrary, cases: list[tuple[float, float, float, float, float, int | None]]
) -> None:
    # The learner fits on `units.convert(..., exact=True)`; the twin answers by `twin_units_exact`.
    for x, offset, numerator, denominator, scale, digits in cases:
        given, wanted = [offset, numerator, denominator, 0.0], [0.0, scale, 1.0, 0.0]
        part = ["units", "x", ["a", "b"], {"A": given, "B": wanted}, digits, None, "exact"]
        found = library.call("twin_bridge_parts", {"parts": [part], "cases": [{"x": x, "a": "A", "b": "B"}]})
        assert found[0][0][0] == convert(float(x), (offset, numerator, denominator), (0.0, scale, 1.0), digits, True)
