"""The fields of the state's singleton objects a result names: a vehicle's `fuelLevel`, an account's `email`.

Not every world is records with ids: a vehicle, a profile or a settings object is one object, and a result
shows its fields by name alone. A result value is taken to show such a field only when the match is
unambiguous, because a false match would either store a value where it does not belong or reject an honest
answer: the field's key path in the result (its leaf key, then as many enclosing keys as it takes) ends
exactly one leaf path of the state outside record collections; the values have the same JSON type; and the
match names more than the bare leaf key, or the tool's name or arguments share a word with the field's path
(`fillFuelTank` and `vehicle/fuelLevel` share "fuel"), so a generic `{"status": "ok"}` names nothing.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from jsonpointer import escape, unescape

from sim_mcp.engine.intent import Collection, is_collection, singular, split_words
from sim_mcp.engine.records import id_field

# How deep a result is searched for fields ({"data": {"vehicle": {"fuelLevel": 1}}} is three keys).
_DEPTH = 4


@dataclass(frozen=True, slots=True)
class Field:
    """A leaf of a singleton object the result names: its path in the state, and the value shown."""

    path: tuple[str, ...]
    shown: Any
    where: str

    @property
    def pointer(self) -> str:
        return "".join(f"/{escape(part)}" for part in self.path)


def shown_fields(
    result: Any, state: Any, tool_name: str, arguments: Any, skip: frozenset[str] = frozenset()
) -> list[Field]:
    """The singleton fields of `state` that `result` names (its parts at the pointers in `skip`, the records
    already matched by id, excluded)."""
    if not isinstance(state, dict):
        return []
    leaves = _leaf_paths(state)
    if not leaves:
        return []
    hints = _words_of(tool_name) | _argument_words(arguments)
    found: list[Field] = []

    def visit(node: Any, keys: tuple[str, ...], where: str) -> None:
        if where in skip or len(keys) > _DEPTH:
            return
        if isinstance(node, dict):
            for name, value in node.items():
                visit(value, (*keys, str(name)), f"{where}/{escape(str(name))}")
            return
        if not keys or not _scalar(node):
            return
        match = _match(keys, leaves)
        if match is None:
            return
        path, used = match
        if used < 2 and not (hints & {word for part in path for word in _words_of(part)}):
            return
        if _same_type(node, _at(state, path)):
            found.append(Field(path, node, where or "/"))

    visit(result, (), "")
    return found


def _match(keys: tuple[str, ...], leaves: list[tuple[str, ...]]) -> tuple[tuple[str, ...], int] | None:
    """The one state leaf path the result's key path ends like (fewest keys that single it out), and how
    many keys it took; None when none or several do."""
    for used in range(1, len(keys) + 1):
        suffix = keys[-used:]
        matching = [path for path in leaves if len(path) >= used and path[-used:] == suffix]
        if not matching:
            return None
        if len(matching) == 1:
            return matching[0], used
    return None


def _leaf_paths(state: dict[str, Any]) -> list[tuple[str, ...]]:
    """Paths to the scalar leaves of the state's objects, not entering lists or collections of records."""
    paths: list[tuple[str, ...]] = []

    def visit(node: dict[str, Any], path: tuple[str, ...]) -> None:
        for key, value in node.items():
            here = (*path, str(key))
            if isinstance(value, dict):
                if not _records(value):
                    visit(value, here)
            elif _scalar(value):
                paths.append(here)

    visit(state, ())
    return paths


def _records(value: dict[str, Any]) -> bool:
    """Whether an object is a collection of records (id -> record, each carrying an id-like field), whose
    values are matched by id (engine/consistency.py), not by name."""
    if not value or not is_collection(value):
        return False
    collection = Collection(("x",), value, "x")
    field = id_field(collection)
    return all(field in record for record in value.values())


def _at(state: Any, path: tuple[str, ...]) -> Any:
    node = state
    for part in path:
        node = node[part]
    return node


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int | float | bool)


def _same_type(shown: Any, stored: Any) -> bool:
    if isinstance(shown, bool) or isinstance(stored, bool):
        return isinstance(shown, bool) and isinstance(stored, bool)
    if isinstance(shown, int | float):
        return isinstance(stored, int | float)
    return isinstance(shown, str) and isinstance(stored, str)


def _words_of(name: str) -> set[str]:
    return {singular(word) for word in split_words(name) if len(word) > 2}


def _argument_words(arguments: Any) -> set[str]:
    if not isinstance(arguments, dict):
        return set()
    words: set[str] = set()
    for key, value in arguments.items():
        words |= _words_of(str(key))
        if isinstance(value, str) and len(value) <= 40:
            words |= _words_of(value)
    return words


def argument_writes(arguments: Any, state: Any, tool_name: str) -> list[dict[str, Any]]:
    """The patch storing each argument that names a singleton field of `state` (by the same rule as a
    result's values: `set_vehicle_mode(mode=...)` writes `vehicle/mode`), for a tool whose verb updates."""
    fields = shown_fields(arguments, state, tool_name, None)
    return [{"op": "replace", "path": field.pointer, "value": field.shown} for field in fields]


def showing_state(result: Any, state: Any, tool_name: str, arguments: Any) -> Any:
    """`result` with each singleton field it names showing the value `state` holds (a generated result's
    invented values would contradict the state)."""
    fields = shown_fields(result, state, tool_name, arguments)
    if not fields:
        return result
    shown = copy.deepcopy(result)
    for field in fields:
        node = shown
        parts = [unescape(part) for part in field.where.split("/")[1:]]
        for part in parts[:-1]:
            node = node[part]
        node[parts[-1]] = _at(state, field.path)
    return shown
