"""The number a computed text writes, read at compile time in Python and at run time by the twin's Starlark:
one grammar, held together here because inference reads a piece's text where no library call is at hand."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sim_mcp.authoring.twins.keyed_world import _json_number
from sim_mcp.authoring.twins.library import LIBRARY
from sim_mcp.rules import CallContext, Limits, compile_program, run_tool
from sim_mcp.rules.helpers import DEFAULT_CLOCK

_READ = """
def read_numbers(state, args):
    return [twin_json_number(text) for text in args["texts"]]
"""
_PROGRAM = compile_program(LIBRARY + _READ, "<json numbers>", ("read_numbers",))


def _starlark(texts: list[str]) -> list[Any]:
    context = CallContext.of(DEFAULT_CLOCK, seed=0, sequence=0, tool="read_numbers")
    limits = Limits(max_steps=10**8, timeout_s=60.0, max_state_bytes=1 << 24)
    result: list[Any] = run_tool(_PROGRAM, "read_numbers", {}, {"texts": texts}, context, limits).result
    return result


def test_the_twins_reading_of_numbers_is_jsons() -> None:
    texts = ["35", "-7", "9.75", "7.0", "1e5", "2.5e-3", "-0.5E3", "1.2.3", "1e", "1.", ".5", "-", "", "inf", "3/8"]
    assert _starlark(texts) == [35, -7, 9.75, 7.0, 1e5, 2.5e-3, None, None, None, None, None, None, None, None, None]
    # A double holds no number of 1e308 or more: read as none, never as infinity or an error.
    huge = ["1e310", "0.001e311", "1.5e307", "0.00e999", "12e307"]
    assert _starlark(huge) == [None, None, 1.5e307, 0.0, None]
    assert [_json_number(text) for text in huge] == [None, None, 1.5e307, 0.0, None]
    assert [type(number) for number in _starlark(["35", "35.0"])] == [int, float]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="0123456789.eE+-x ", max_size=8), min_size=1, max_size=40))
def test_python_and_starlark_read_every_text_alike(texts: list[str]) -> None:
    read = _starlark(texts)
    expected = [_json_number(text) for text in texts]
    assert read == expected
    assert [type(number) for number in read] == [type(number) for number in expected]
