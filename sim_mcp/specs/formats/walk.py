"""Which JSON Schema keywords hold subschemas, so converters rewrite schemas and never data.

A converter that rewrote every `"type"` key it met would also rewrite a property *named* `type`, an
`enum` value or a `default`; walking only the keywords below keeps data (enum, const, default,
examples) untouched.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

# Keywords whose value is one schema.
SINGLE = frozenset(
    {
        "additionalProperties",
        "additionalItems",
        "unevaluatedProperties",
        "unevaluatedItems",
        "propertyNames",
        "contains",
        "not",
        "if",
        "then",
        "else",
        "contentSchema",
    }
)
# Keywords whose value is a list of schemas (`items` may also be a single schema).
LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
# Keywords whose value maps names to schemas.
MAPS = frozenset({"properties", "patternProperties", "dependentSchemas", "$defs", "definitions"})

Convert = Callable[[Any, str], Any]


def map_subschemas(schema: dict[str, Any], convert: Convert) -> dict[str, Any]:
    """A copy of `schema` with `convert(subschema, where)` applied to each direct subschema.

    `where` is the path from `schema` to the subschema (`properties.name`, `allOf[1]`, `items`), for
    error messages. Every other value is deep-copied, so the result shares nothing with the input.
    """
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in SINGLE or (key == "items" and not isinstance(value, list)):
            out[key] = convert(value, key)
        elif (key in LISTS or key == "items") and isinstance(value, list):
            out[key] = [convert(item, f"{key}[{index}]") for index, item in enumerate(value)]
        elif key in MAPS and isinstance(value, dict):
            out[key] = {name: convert(item, f"{key}.{name}") for name, item in value.items()}
        else:
            out[key] = copy.deepcopy(value)
    return out
