"""A world encoded as compact JSON (the state limit counts it, a rules program reads it): the same value as the
standard library's encoding, whatever orjson can or cannot take."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from sim_mcp.state.values import json_bytes, json_size

# JSON values as a state holds them: no NaN (JSON has none), integers of any size.
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=30,
)


@given(JSON)
def test_it_decodes_to_the_value_it_encodes(value: Any) -> None:
    assert json.loads(json_bytes(value)) == value


@given(st.recursive(st.text() | st.integers(), lambda c: st.dictionaries(st.text(max_size=8), c, max_size=4)))
def test_without_floats_it_is_the_standard_librarys_compact_utf8_text(value: Any) -> None:
    expected = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    assert json_bytes(value) == expected
    assert json_size(value) == len(expected)


def test_what_orjson_refuses_is_encoded_all_the_same() -> None:
    huge = {"balance": 2**80, "ids": [-(2**70), 1]}
    assert json.loads(json_bytes(huge)) == huge
    assert json_bytes({1: "a"}) == b'{"1":"a"}'  # keys that are no strings, as json.dumps writes them


def test_what_json_cannot_hold_is_written_as_its_text() -> None:
    assert json.loads(json_bytes({"set": {1}})) == {"set": "{1}"}
    assert json.loads(json_bytes({"at": datetime(2026, 1, 2, tzinfo=UTC)}))["at"].startswith("2026-01-02")


def test_the_size_counts_utf8_bytes() -> None:
    assert json_size({"name": "é"}) == len('{"name":"é"}'.encode())
