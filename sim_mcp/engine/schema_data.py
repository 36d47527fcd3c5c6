"""Schema-valid data without a model: generate values from a JSON Schema, deterministically from a seed.

Used by the offline backend for results it cannot derive from the world state, and to fit a derived
result to a tool's output schema. Handles `$ref` (local), `allOf`, `anyOf`/`oneOf`, `enum`, `const`,
`type` (also lists), string formats and length bounds, number bounds and array sizes.
"""

from __future__ import annotations

import random
import re

# The stdlib's own regex parser (public as sre_parse before 3.11, which now warns on import).
from re import _parser as re_parser  # type: ignore[attr-defined,unused-ignore]
from typing import Any

from jsonpointer import unescape

_MAX_DEPTH = 8
_FORMAT_SAMPLES = {
    "date-time": "2026-01-15T09:30:00Z",
    "date": "2026-01-15",
    "time": "09:30:00",
    "email": "user@example.com",
    "uri": "https://example.com/resource",
    "url": "https://example.com/resource",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "ipv4": "192.0.2.10",
    "ipv6": "2001:db8::10",
    "hostname": "example.com",
}
_WORDS = ("alpha", "bravo", "cedar", "delta", "ember", "falcon", "garnet", "harbor", "indigo", "juniper")


class SchemaDataGenerator:
    """Makes a value valid for a schema; same seed and schema, same value."""

    def __init__(self, root: dict[str, Any], rng: random.Random) -> None:
        self._root = root
        self._rng = rng

    def generate(self, schema: Any, depth: int = 0, name: str = "") -> Any:
        schema = self._resolve(schema)
        if not isinstance(schema, dict) or depth > _MAX_DEPTH:
            return None if depth > _MAX_DEPTH else "value"
        if "const" in schema:
            return schema["const"]
        if schema.get("enum"):
            return schema["enum"][0]
        if "allOf" in schema:
            return self.generate(merge_all_of(schema, self._resolve), depth, name)
        for key in ("oneOf", "anyOf"):
            if schema.get(key):
                return self.generate(self._prefer_non_null(schema[key]), depth, name)
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((item for item in kind if item != "null"), "null")
        if kind is None:
            kind = "object" if "properties" in schema else "array" if "items" in schema else "string"
        match kind:
            case "object":
                return self._object(schema, depth)
            case "array":
                return self._array(schema, depth, name)
            case "string":
                return self._string(schema, name)
            case "integer":
                return int(self._number(schema, integer=True))
            case "number":
                return self._number(schema, integer=False)
            case "boolean":
                return True
            case _:
                return None

    def _object(self, schema: dict[str, Any], depth: int) -> dict[str, Any]:
        properties: dict[str, Any] = schema.get("properties", {})
        required = set(schema.get("required", []))
        # Optional properties too (it reads more like a real result), unless that would exceed maxProperties.
        limit = schema.get("maxProperties", len(properties))
        chosen = [key for key in properties if key in required]
        chosen += [key for key in properties if key not in required][: max(limit - len(chosen), 0)]
        value = {key: self.generate(properties[key], depth + 1, key) for key in chosen}
        for key in required - value.keys():
            value[key] = "value"
        return value

    def _array(self, schema: dict[str, Any], depth: int, name: str) -> list[Any]:
        size = max(schema.get("minItems", 1), 0)
        size = min(size, schema.get("maxItems", size))
        items = schema.get("items", {})
        if isinstance(schema.get("prefixItems"), list):
            return [self.generate(item, depth + 1, name) for item in schema["prefixItems"]]
        values = [self.generate(items, depth + 1, name) for _ in range(size)]
        if schema.get("uniqueItems") and len(values) > 1:
            values = values[:1]
        return values

    def _string(self, schema: dict[str, Any], name: str) -> str:
        if (sample := _FORMAT_SAMPLES.get(schema.get("format", ""))) is not None:
            return sample
        pattern = schema.get("pattern")
        if isinstance(pattern, str) and (matching := string_matching(pattern, self._rng)) is not None:
            return matching
        lowered = name.lower()
        if lowered == "id" or lowered.endswith("_id") or lowered.endswith("id"):
            text = f"{lowered.removesuffix('_id')[:3] or 'id'}_{self._rng.randint(1000, 9999)}"
        elif "email" in lowered:
            text = f"{self._rng.choice(_WORDS)}@example.com"
        elif "name" in lowered or "title" in lowered:
            text = f"{self._rng.choice(_WORDS).title()} {self._rng.choice(_WORDS).title()}"
        else:
            text = f"{self._rng.choice(_WORDS)}-{self._rng.randint(10, 99)}"
        minimum, maximum = schema.get("minLength", 0), schema.get("maxLength")
        if len(text) < minimum:
            text = text + "x" * (minimum - len(text))
        if maximum is not None:
            text = text[:maximum]
        return text

    def _number(self, schema: dict[str, Any], *, integer: bool) -> float:
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
        high = schema.get("maximum", schema.get("exclusiveMaximum", low + 100))
        if "exclusiveMinimum" in schema and "minimum" not in schema:
            low += 1
        if "exclusiveMaximum" in schema and "maximum" not in schema:
            high -= 1
        if high < low:
            high = low
        value: float = self._rng.randint(int(low), int(high)) if integer else round(self._rng.uniform(low, high), 2)
        multiple = schema.get("multipleOf")
        if multiple:
            value = (value // multiple) * multiple
            if value < low:
                value += multiple
        return value

    def _prefer_non_null(self, options: list[Any]) -> Any:
        for option in options:
            resolved = self._resolve(option)
            if not (isinstance(resolved, dict) and resolved.get("type") == "null"):
                return option
        return options[0]

    def _resolve(self, schema: Any) -> Any:
        seen = 0
        while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and seen < _MAX_DEPTH:
            schema = resolve_ref(self._root, schema["$ref"])
            seen += 1
        return schema


def string_matching(pattern: str, rng: random.Random) -> str | None:
    """A string that `re.search(pattern)` accepts, for the simple patterns ids and codes use
    (literals, classes, repeats, groups, alternatives); None when the pattern is beyond that."""
    try:
        parsed = re_parser.parse(pattern)
        text = _from_parsed(list(parsed), rng)
    except (re.error, _Unsupported, RecursionError):
        return None
    return text if re.search(pattern, text) else None


class _Unsupported(Exception):
    pass


def _from_parsed(items: list[tuple[Any, Any]], rng: random.Random) -> str:
    out: list[str] = []
    for op, value in items:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(value))
        elif name == "IN":
            out.append(_from_class(value, rng))
        elif name == "ANY":
            out.append("x")
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, body = value
            count = max(low, min(high, low + 2)) if high != re_parser.MAXREPEAT else low + 2
            out.extend(_from_parsed(list(body), rng) for _ in range(count))
        elif name == "SUBPATTERN":
            out.append(_from_parsed(list(value[-1]), rng))
        elif name == "BRANCH":
            out.append(_from_parsed(list(value[1][0]), rng))
        elif name in ("AT", "GROUPREF_EXISTS"):
            continue
        else:
            raise _Unsupported(name)
    return "".join(out)


def _from_class(items: list[tuple[Any, Any]], rng: random.Random) -> str:
    for op, value in items:
        name = str(op)
        if name == "NEGATE":
            raise _Unsupported(name)
        if name == "LITERAL":
            return chr(value)
        if name == "RANGE":
            return chr(rng.randint(value[0], value[1]))
        if name == "CATEGORY":
            return {"CATEGORY_DIGIT": str(rng.randint(0, 9)), "CATEGORY_SPACE": " "}.get(str(value), "a")
    raise _Unsupported("empty class")


def resolve_ref(root: dict[str, Any], ref: str) -> Any:
    """A local `#/...` reference inside `root`; anything else resolves to the empty schema."""
    if not ref.startswith("#"):
        return {}
    node: Any = root
    for part in ref.lstrip("#").strip("/").split("/"):
        if not part:
            continue
        part = unescape(part)
        if not isinstance(node, dict) or part not in node:
            return {}
        node = node[part]
    return node


def merge_all_of(schema: dict[str, Any], resolve: Any) -> dict[str, Any]:
    """`allOf` folded into one schema: properties and required merged (enough to generate from)."""
    merged: dict[str, Any] = {key: value for key, value in schema.items() if key != "allOf"}
    for part in schema["allOf"]:
        part = resolve(part)
        if not isinstance(part, dict):
            continue
        if "allOf" in part:
            part = merge_all_of(part, resolve)
        for key, value in part.items():
            if key == "properties":
                merged.setdefault("properties", {}).update(value)
            elif key == "required":
                merged["required"] = sorted(set(merged.get("required", [])) | set(value))
            else:
                merged.setdefault(key, value)
    return merged


def generate(schema: dict[str, Any], seed: int | str) -> Any:
    """A value valid for `schema` (best effort), the same for the same seed."""
    return SchemaDataGenerator(schema, random.Random(str(seed))).generate(schema)
