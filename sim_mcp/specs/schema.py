"""JSON Schema checks: schemas checked at load time, values checked with messages that name the path."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import jsonschema
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from jsonschema.protocols import Validator


def schema_problem(schema: Any) -> str | None:
    """Why `schema` is not a usable JSON Schema, or None when it is."""
    if not isinstance(schema, dict):
        return f"expected a JSON Schema object, got {type_name(schema)}"
    validator_class = jsonschema.validators.validator_for(schema, default=Draft202012Validator)
    try:
        validator_class.check_schema(schema)
    except jsonschema.SchemaError as e:
        where = json_path(e.absolute_path)
        return f"not a valid JSON Schema: {e.message}" + (f" (at {where})" if where else "")
    return None


def compile_schema(schema: dict[str, Any]) -> Validator:
    """A validator (with format checks) for a schema already checked by `schema_problem`."""
    validator_class = jsonschema.validators.validator_for(schema, default=Draft202012Validator)
    return validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)


def value_problem(value: Any, validator: Validator, root: str = "") -> str | None:
    """A one-line description of why `value` breaks the schema (naming the path), or None when it fits."""
    error = best_match(validator.iter_errors(value))
    if error is None:
        return None
    return describe(error, root)


def describe(error: ValidationError, root: str = "") -> str:
    path = json_path(error.absolute_path, root)
    expected = _expectation(error)
    subject = path or root or "value"
    return f"{subject}: {expected}"


def json_path(parts: Iterable[str | int], root: str = "") -> str:
    """`["tools", 0, "name"]` -> `tools[0].name` (with an optional root before it)."""
    text = root
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


def type_name(value: Any) -> str:
    return {
        dict: "an object",
        list: "an array",
        str: "a string",
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def _expectation(error: ValidationError) -> str:
    match error.validator:
        case "type":
            return f"expected {error.validator_value}, got {type_name(error.instance)}"
        case "required":
            return error.message.replace("is a required property", "is required")
        case "enum":
            return f"expected one of {error.validator_value}, got {error.instance!r}"
        case "additionalProperties":
            return error.message
        case _:
            return error.message
