"""Applying a JSON Patch to a world state without copying the whole state.

States are values (nobody changes one in place), so a patched state can share every part the patch does
not touch with the state before it: only the containers along each operation's path (and `from`) are
copied before the operation is applied in place. For a 1.4 MB state this is ~0.06 ms instead of the ~20
ms of a deep copy.
"""

from __future__ import annotations

from typing import Any

import jsonpatch
import jsonpointer


def apply_patch(state: Any, patch: list[dict[str, Any]]) -> Any:
    """`state` with `patch` applied, leaving `state` itself untouched; raises jsonpatch/jsonpointer errors."""
    if not patch:
        return state
    root = _shallow(state)
    for operation in patch:
        for pointer in (operation.get("path"), operation.get("from")):
            if isinstance(pointer, str):
                root = _copy_along(root, pointer)
        root = jsonpatch.JsonPatch([operation]).apply(root, in_place=True)
    return root


def _copy_along(root: Any, pointer: str) -> Any:
    """Make every container from the root down to the pointer's parent a fresh (shallow) copy."""
    parts = jsonpointer.JsonPointer(pointer).parts
    node = root
    for part in parts[:-1]:
        if isinstance(node, dict) and part in node:
            node[part] = _shallow(node[part])
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node[int(part)] = _shallow(node[int(part)])
            node = node[int(part)]
        else:
            break  # the operation will fail on a missing parent, with jsonpatch's own message
    return root


def _shallow(value: Any) -> Any:
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, list):
        return list(value)
    return value
