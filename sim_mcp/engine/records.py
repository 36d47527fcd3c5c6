"""Records of a collection of the world state: finding one by id, its id field, and the schema it follows.

Shared by the generic offline engine (which acts on records) and the consistency check (which compares what
a result shows about a record with what the state holds).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sim_mcp.engine.intent import Collection, plural, singular, split_words
from sim_mcp.engine.schema_data import merge_all_of, resolve_ref
from sim_mcp.specs.model import Environment

# How deep an output schema is searched for the object schema of a record (a wrapper or two around it).
_SCHEMA_DEPTH = 4


def items(collection: Collection) -> list[tuple[str, dict[str, Any]]]:
    """(key, record) pairs: the mapping's keys, or list indexes as text."""
    if isinstance(collection.records, dict):
        return list(collection.records.items())
    return [(str(index), record) for index, record in enumerate(collection.records)]


def locate(collection: Collection, wanted: Any) -> tuple[str, dict[str, Any]] | None:
    """(key, record) whose key or id field equals `wanted` (compared as text: "7" finds 7)."""
    field = id_field(collection)
    text = str(wanted)
    for key, record in items(collection):
        if isinstance(collection.records, dict) and key == text:
            return key, record
        if str(record.get(field)) == text or (field != "id" and str(record.get("id")) == text):
            return key, record
    return None


def id_field(collection: Collection) -> str:
    sample = sample_record(collection)
    for candidate in ("id", f"{collection.singular}_id", "name", "key"):
        if candidate in sample:
            return candidate
    return next((field for field in sample if field.endswith("_id") or field.endswith("Id")), "id")


def sample_record(collection: Collection) -> dict[str, Any]:
    records = collection.records.values() if isinstance(collection.records, dict) else collection.records
    return next((record for record in records if isinstance(record, dict)), {})


def names_collection(key: str, collection: Collection) -> bool:
    """Whether a result's key (`issue`, `issues`, `Issues`) names the collection."""
    word = singular("_".join(split_words(key)))
    return word == collection.singular or plural(word) == collection.key


def record_schema(environment: Environment, collection: Collection) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The object schema the collection's records follow, and the output schema it sits in (where its
    `$ref`s point), read from the environment's output schemas: among the object schemas that declare the id
    field (a result itself, a property, a list's items), the one sharing the most properties with the stored
    records; None when no output schema describes them."""
    field = id_field(collection)
    known: set[str] = set()
    for _, record in items(collection):
        known |= record.keys()
    best: tuple[int, dict[str, Any], dict[str, Any]] | None = None
    for tool in environment.tools:
        root = tool.output_schema
        if root is None:
            continue
        for candidate in object_schemas(root, root):
            properties = candidate.get("properties", {})
            if field not in properties:
                continue
            score = len(known & properties.keys()) * 2 + len(properties)
            if best is None or score > best[0]:
                best = (score, candidate, root)
    return (best[1], best[2]) if best is not None else None


def object_schemas(schema: Any, root: dict[str, Any], depth: int = 0) -> Iterator[dict[str, Any]]:
    """Every object schema with properties in `schema`: itself, its properties', its items' (refs resolved)."""
    schema = resolved(schema, root)
    if not isinstance(schema, dict) or depth > _SCHEMA_DEPTH:
        return
    if isinstance(schema.get("properties"), dict):
        yield schema
        for sub in schema["properties"].values():
            yield from object_schemas(sub, root, depth + 1)
    if "items" in schema:
        yield from object_schemas(schema["items"], root, depth + 1)
    for key in ("anyOf", "oneOf"):
        for option in schema.get(key) or []:
            yield from object_schemas(option, root, depth + 1)


def resolved(schema: Any, root: dict[str, Any]) -> Any:
    """`schema` with a local `$ref` followed and `allOf` folded in."""
    for _ in range(_SCHEMA_DEPTH):
        if isinstance(schema, dict) and isinstance(schema.get("$ref"), str):
            schema = resolve_ref(root, schema["$ref"])
    if isinstance(schema, dict) and "allOf" in schema:
        schema = merge_all_of(schema, lambda part: resolved(part, root))
    return schema


def allows_null(schema: Any, root: dict[str, Any]) -> bool:
    schema = resolved(schema, root)
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if None in (schema.get("enum") or []):
        return True
    return any(allows_null(option, root) for key in ("anyOf", "oneOf") for option in schema.get(key) or [])


def enum_of(schema: Any, root: dict[str, Any]) -> list[str]:
    """The string values an enum field allows (through a nullable anyOf too); [] for no enum."""
    schema = resolved(schema, root)
    if not isinstance(schema, dict):
        return []
    values = [value for value in schema.get("enum") or [] if isinstance(value, str)]
    for key in ("anyOf", "oneOf"):
        for option in schema.get(key) or []:
            values += enum_of(option, root)
    return values
