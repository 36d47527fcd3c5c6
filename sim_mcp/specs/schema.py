"""JSON Schema checks: schemas checked at load time, values checked with messages that name the path.

Every call checks its arguments and its result, so a value is first checked by `jsonschema_rs` (compiled,
about a hundred times faster); only a value it refuses goes to Python's `jsonschema`, which explains what
is wrong and has the last word: a value is refused only when `jsonschema` refuses it too. `format` checks
run Python's own format checkers inside `jsonschema_rs`, so both read formats the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import jsonschema
import jsonschema_rs
from jsonschema import Draft202012Validator, FormatChecker
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


class CompiledSchema:
    """A schema ready to check values: a fast yes from `jsonschema_rs`, else `jsonschema`'s verdict."""

    __slots__ = ("_fast", "_python", "schema")

    def __init__(self, schema: dict[str, Any]) -> None:
        validator_class = jsonschema.validators.validator_for(schema, default=Draft202012Validator)
        checker: FormatChecker = validator_class.FORMAT_CHECKER
        self.schema = schema
        self._python: Validator = validator_class(schema, format_checker=checker)
        self._fast = _fast_validator(schema, checker)

    def is_valid(self, value: Any) -> bool:
        return (self._fast is not None and self._fast.is_valid(value)) or self._python.is_valid(value)

    def iter_errors(self, value: Any) -> Iterator[ValidationError]:
        if self._fast is not None and self._fast.is_valid(value):
            return iter(())
        return self._python.iter_errors(value)


def _fast_validator(schema: dict[str, Any], checker: FormatChecker) -> jsonschema_rs.Validator | None:
    """`jsonschema_rs`'s validator with Python's format checks; None for a schema it cannot build (a remote
    `$ref`, a regex it does not read): then `jsonschema` alone checks."""

    def conforms(name: str) -> Callable[[str], bool]:
        return lambda value: checker.conforms(value, name)

    formats = {name: conforms(name) for name in checker.checkers}
    try:
        return jsonschema_rs.validator_for(schema, validate_formats=True, formats=formats, offline=True)
    except (jsonschema_rs.ValidationError, ValueError, TypeError):
        return None


def compile_schema(schema: dict[str, Any]) -> CompiledSchema:
    """A validator (with format checks) for a schema already checked by `schema_problem`."""
    return CompiledSchema(schema)


def value_problem(value: Any, validator: CompiledSchema, root: str = "") -> str | None:
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
