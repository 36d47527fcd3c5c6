"""Patching a state shares what the patch leaves alone, and never changes the state it started from."""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch
import jsonpointer
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim_mcp.state.patch import apply_patch

STATE: dict[str, Any] = {
    "tickets": {"T-1": {"id": "T-1", "tags": ["a"], "status": "open"}, "T-2": {"id": "T-2", "tags": []}},
    "queue": [{"id": "T-1"}, {"id": "T-2"}],
    "next_id": 3,
}

PATCHES = [
    [{"op": "add", "path": "/tickets/T-3", "value": {"id": "T-3"}}, {"op": "replace", "path": "/next_id", "value": 4}],
    [
        {"op": "replace", "path": "/tickets/T-1/status", "value": "closed"},
        {"op": "add", "path": "/tickets/T-1/tags/-", "value": "b"},
    ],
    [{"op": "remove", "path": "/queue/0"}, {"op": "add", "path": "/queue/0/seen", "value": True}],
    [{"op": "move", "from": "/tickets/T-2", "path": "/archive"}],
    [{"op": "copy", "from": "/tickets/T-1", "path": "/pinned"}, {"op": "add", "path": "/pinned/tags/-", "value": "c"}],
    [{"op": "test", "path": "/next_id", "value": 3}, {"op": "replace", "path": "", "value": {"reset": True}}],
]  # fmt: skip


@pytest.mark.parametrize("patch", PATCHES)
def test_same_result_as_a_full_copy_and_the_original_is_untouched(patch: list[dict[str, Any]]) -> None:
    before = copy.deepcopy(STATE)
    expected = jsonpatch.apply_patch(STATE, patch, in_place=False)
    assert apply_patch(STATE, patch) == expected
    assert before == STATE


def test_untouched_parts_are_shared_not_copied() -> None:
    patched = apply_patch(STATE, [{"op": "replace", "path": "/tickets/T-1/status", "value": "closed"}])
    assert patched["tickets"]["T-2"] is STATE["tickets"]["T-2"]
    assert patched["queue"] is STATE["queue"]
    assert patched["tickets"]["T-1"] is not STATE["tickets"]["T-1"]


def test_a_patch_that_does_not_apply_raises_and_changes_nothing() -> None:
    before = copy.deepcopy(STATE)
    with pytest.raises(jsonpatch.JsonPatchException):
        apply_patch(
            STATE,
            [
                {"op": "replace", "path": "/tickets/T-1/status", "value": "x"},
                {"op": "test", "path": "/next_id", "value": 99},
            ],
        )
    assert before == STATE


_KEYS = st.sampled_from(["a", "b", "0", "-", "", "x~1y", "T-1"])
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=2),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(
    state=st.dictionaries(_KEYS, _JSON, max_size=4),
    op=st.sampled_from(["add", "replace", "remove"]),
    route=st.lists(_KEYS, min_size=1, max_size=3),
    value=_JSON,
    with_value=st.booleans(),
)
def test_an_add_replace_or_remove_does_what_jsonpatch_does(
    state: dict[str, Any], op: str, route: list[str], value: Any, with_value: bool
) -> None:
    # The common operations are applied without jsonpatch's objects: the same state after, or the same
    # kind of error, down paths that exist, that do not, through lists, with `-` and with escapes.
    operation: dict[str, Any] = {"op": op, "path": "/" + "/".join(route)}
    if with_value:
        operation["value"] = value
    before = copy.deepcopy(state)
    try:
        expected: Any = jsonpatch.apply_patch(state, [operation], in_place=False)
    except (jsonpatch.JsonPatchException, jsonpointer.JsonPointerException, TypeError, KeyError, IndexError) as e:
        with pytest.raises(type(e)):
            apply_patch(state, [operation])
    else:
        patched = apply_patch(state, [operation])
        assert patched == expected
        if isinstance(value, dict | list) and with_value and op != "remove":
            value.clear()  # the patched state holds a copy of the value, as with jsonpatch
            assert patched == expected
    assert state == before
