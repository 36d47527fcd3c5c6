"""Applying a JSON Patch to a world state without copying the whole state.

States are values (nobody changes one in place), so a patched state can share every part the patch does
not touch with the state before it: only the containers along each operation's path (and `from`) are
copied before the operation is applied in place. For a 1.4 MB state this is ~0.06 ms instead of the ~20
ms of a deep copy.

The commonest operations (what `diff_patch` and the rules runtime write: add, replace or remove a mapping's
member, add at a list's end, down a path of mappings) are applied here directly, as jsonpatch would apply
them: building jsonpatch's operation and pointer objects cost more than the rest of a small call's patch.
Any other operation, and any that would fail, goes to jsonpatch, which gives its own error.
"""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch
import jsonpointer

_DIRECT = frozenset({"add", "replace", "remove"})
_SCALARS = (str, int, float, bool, type(None))


def apply_patch(state: Any, patch: list[dict[str, Any]]) -> Any:
    """`state` with `patch` applied, leaving `state` itself untouched; raises jsonpatch/jsonpointer errors."""
    if not patch:
        return state
    root = _shallow(state)
    for operation in patch:
        if _applied_directly(root, operation):
            continue
        for pointer in (operation.get("path"), operation.get("from")):
            if isinstance(pointer, str):
                root = _copy_along(root, pointer)
        root = jsonpatch.JsonPatch([operation]).apply(root, in_place=True)
    return root


def _applied_directly(root: Any, operation: dict[str, Any]) -> bool:
    """Apply `operation` to `root` (a fresh copy) if it is one of the common ones, with jsonpatch's semantics:
    the containers along its path copied, the value copied in (jsonpatch deep-copies it, so the state never
    shares a container with the patch). False, with nothing changed but copies, when it is not."""
    op = operation.get("op")
    path = operation.get("path")
    if op not in _DIRECT or type(path) is not str or not path.startswith("/") or "~" in path:
        return False  # a pointer with escapes, or the whole document: jsonpatch's own parsing
    if op != "remove" and "value" not in operation:
        return False
    *route, last = path[1:].split("/")
    node = root
    for part in route:
        if type(node) is not dict or part not in node:
            return False
        child = _shallow(node[part])
        node[part] = child
        node = child
    if type(node) is dict:
        if op == "add":
            node[last] = _copied(operation["value"])
        elif last not in node:
            return False  # jsonpatch's "non-existent object" error
        elif op == "replace":
            node[last] = _copied(operation["value"])
        else:
            del node[last]
        return True
    if type(node) is list and op == "add" and last == "-":
        node.append(_copied(operation["value"]))
        return True
    return False


def _copied(value: Any) -> Any:
    return value if isinstance(value, _SCALARS) else copy.deepcopy(value)


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


def diff_patch(before: Any, after: Any, path: str = "") -> list[dict[str, Any]]:
    """An RFC 6902 patch that turns `before` into `after` (applied in order): the smallest changed values
    where mappings differ, items appended to a list as `/-` adds, any other changed list replaced whole.

    Values are compared as Python does (`==`, at C speed, before descending), so an integer and a float of
    the same value count as equal: both are the same JSON number. `path` is where `before` sits (its
    pointer), for a patch of a part of a document."""
    patch: list[dict[str, Any]] = []
    _diff(before, after, path, patch)
    return patch


def _diff(before: Any, after: Any, path: str, patch: list[dict[str, Any]]) -> None:
    if before == after and isinstance(before, bool) == isinstance(after, bool):
        return
    if isinstance(before, dict) and isinstance(after, dict):
        for key, value in after.items():
            child = f"{path}/{jsonpointer.escape(key)}"
            if key not in before:
                patch.append({"op": "add", "path": child, "value": value})
            else:
                _diff(before[key], value, child, patch)
        patch.extend(
            {"op": "remove", "path": f"{path}/{jsonpointer.escape(key)}"} for key in before if key not in after
        )
        return
    if isinstance(before, list) and isinstance(after, list):
        if len(after) > len(before) and after[: len(before)] == before:
            patch.extend({"op": "add", "path": f"{path}/-", "value": value} for value in after[len(before) :])
            return
        if len(after) == len(before):
            for index, (old, new) in enumerate(zip(before, after, strict=True)):
                _diff(old, new, f"{path}/{index}", patch)
            return
    patch.append({"op": "replace", "path": path, "value": after})
