"""The parts of a large world a prompt shows are found without encoding the world piece by piece: the
walk that finds what a call names, and the measure of whether a value is small, agree with the plain
definitions they replace on any JSON value."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from jsonpointer import escape

from sim_mcp.llm.budget import length_within
from sim_mcp.llm.context import _ID_FIELDS, _matches

KEYS = st.sampled_from(["id", "ID", "name", "owner_id", "ownerId", "note", "T-1", "t-1", "tags", "a/b", "~x", "é"])
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.floats(allow_nan=False)
    | st.sampled_from(["T-1", "t-1", "alpha", "ÉTÉ", "x" * 50, ""])
    | st.text(max_size=6)  # quotes, backslashes and control characters, which JSON escapes
)
JSON = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=5) | st.dictionaries(KEYS, children, max_size=5),
    max_leaves=40,
)


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _walked(node: Any, pointer: str, needles: set[str], *, root: bool = False) -> Iterator[tuple[str, Any]]:
    """The definition: every node visited, its pointer built as it goes."""
    if not root and isinstance(node, dict) and _names(node, needles):
        yield pointer, node
        return
    if isinstance(node, dict):
        for key, value in node.items():
            child = f"{pointer}/{escape(str(key))}"
            if str(key).casefold() in needles:
                yield child, value
            else:
                yield from _walked(value, child, needles)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walked(value, f"{pointer}/{index}", needles)


def _names(record: dict[str, Any], needles: set[str]) -> bool:
    for field, value in record.items():
        lowered = field.casefold()
        if not (lowered in _ID_FIELDS or lowered.endswith("_id") or field.endswith("Id")):
            continue
        if isinstance(value, str | int) and not isinstance(value, bool) and str(value).casefold() in needles:
            return True
    return False


@given(JSON, st.sets(st.sampled_from(["t-1", "alpha", "1", "2", "tags", "note", "é", "a/b"]), max_size=3))
def test_the_parts_found_are_those_every_node_visited_finds(state: Any, needles: set[str]) -> None:
    assert _matches(state, needles) == list(_walked(state, "", needles, root=True))


@given(JSON, st.integers(0, 300))
def test_a_value_is_measured_within_room_exactly(value: Any, room: int) -> None:
    length = len(_compact(value))
    assert length_within(value, room) == (length if length <= room else None)


def test_a_large_world_is_found_small_or_large_without_encoding_it_whole() -> None:
    tickets = {f"T-{n}": {"id": f"T-{n}", "note": "x" * 100} for n in range(10_000)}
    world: dict[str, Any] = {"tickets": tickets, "next": 3}
    assert length_within(world, 200) is None
    assert length_within({"next": 3}, 200) == len('{"next":3}')
    assert _matches(world, {"t-77"}) == [("/tickets/T-77", world["tickets"]["T-77"])]
