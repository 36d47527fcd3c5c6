"""Patching a state shares what the patch leaves alone, and never changes the state it started from."""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch
import pytest

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
