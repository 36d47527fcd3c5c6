"""The JSON types an argument's schema allows, one reading for every part of twin inference: a recorded
server declares an optional argument in more than one way (`"type": ["string", "null"]`, or `anyOf: [{"type":
"string"}, {"type": "null"}]` as a Python server writes a default of null), and each learner that asks whether
an argument is a string, a number or a list must read all of them alike."""

from __future__ import annotations

from typing import Any

__all__ = ["declaring", "types_of"]

# The keys whose options each name types the argument may have.
_OPTIONS = ("anyOf", "oneOf")


def types_of(schema: Any) -> set[str]:
    """The JSON types a property's schema names: one (`"integer"`), a list of them (`["string", "null"]`),
    or those of its `anyOf`/`oneOf` options; none for a schema that is no object (`true`)."""
    return {kind for part in _parts(schema) for kind in _named(part)}


def declaring(schema: Any, kind: str) -> dict[str, Any] | None:
    """The part of a property's schema that declares it of `kind` (the schema itself, or the `anyOf`/`oneOf`
    option that does: where a list's `items` are), if any."""
    return next((part for part in _parts(schema) if kind in _named(part)), None)


def _parts(schema: Any) -> list[dict[str, Any]]:
    """The schema and its options, depth first (an option may have options of its own)."""
    if not isinstance(schema, dict):
        return []
    parts = [schema]
    for key in _OPTIONS:
        options = schema.get(key)
        if isinstance(options, list):
            parts += [part for option in options for part in _parts(option)]
    return parts


def _named(part: dict[str, Any]) -> set[str]:
    kind = part.get("type")
    if isinstance(kind, str):
        return {kind}
    return {item for item in kind if isinstance(item, str)} if isinstance(kind, list) else set()
