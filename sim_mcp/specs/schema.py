"""JSON Schema checks: schemas checked at load time, values checked with messages that name the path.

Every call checks its arguments and its result, so a value is first checked by `jsonschema_rs` (compiled,
about a hundred times faster); only a value it refuses goes to Python's `jsonschema`, which explains what
is wrong and has the last word: a value is refused only when `jsonschema` refuses it too. `format` checks
run Python's own format checkers inside `jsonschema_rs`, so both read formats the same way.

Schemas themselves are checked against their meta-schema the same way (`SchemaChecks`): `jsonschema_rs` says
yes fast, `jsonschema` explains a no and has the last word; and a folder's loader checks and compiles each
distinct schema once, by its content, since a catalogue of many environments repeats its schemas.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import jsonschema
import jsonschema_rs
import orjson
from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import ValidationError, best_match
from jsonschema.protocols import Validator


def schema_problem(schema: Any, checks: SchemaChecks | None = None) -> str | None:
    """Why `schema` is not a usable JSON Schema, or None when it is (`checks`: the loader's cache, if any)."""
    return (checks if checks is not None else SchemaChecks()).problem(schema)


def _python_schema_problem(schema: dict[str, Any]) -> str | None:
    """`jsonschema`'s verdict on a schema, worded for a spec error."""
    validator_class = jsonschema.validators.validator_for(schema, default=Draft202012Validator)
    try:
        validator_class.check_schema(schema)
    except jsonschema.SchemaError as e:
        where = json_path(e.absolute_path)
        return f"not a valid JSON Schema: {e.message}" + (f" (at {where})" if where else "")
    return None


class SchemaChecks:
    """Each distinct schema checked against its meta-schema, and compiled, once: by its content (a digest of
    its canonical JSON), for as long as the loader that owns this object keeps it (a runtime keeps one across
    reloads). A schema `jsonschema_rs` finds valid against the meta-schema (with Python's format checks, as
    `jsonschema.check_schema` runs them) is valid; any other is checked by `jsonschema`, which words the problem
    and has the last word. A Python check costs milliseconds a schema: at a thousand environments, minutes."""

    __slots__ = ("_compiled", "_digests", "_meta", "_problems", "_used")

    def __init__(self) -> None:
        self._problems: dict[bytes, str | None] = {}
        self._compiled: dict[bytes, CompiledSchema] = {}
        self._meta: dict[type[Validator], jsonschema_rs.Validator | None] = {}
        self._used: set[bytes] = set()
        # Within one load, a schema object's digest (checked, then compiled): the object is held, so its id
        # cannot be reused meanwhile.
        self._digests: dict[int, tuple[Any, bytes | None]] = {}

    def problem(self, schema: Any) -> str | None:
        """Why `schema` is not a usable JSON Schema, or None when it is."""
        if not isinstance(schema, dict):
            return f"expected a JSON Schema object, got {type_name(schema)}"
        key = self._digest(schema)
        if key is not None:
            self._used.add(key)
            if key in self._problems:
                return self._problems[key]
        problem = None if self._fast_yes(schema) else _python_schema_problem(schema)
        if key is not None:
            self._problems[key] = problem
        return problem

    def compiled(self, schema: dict[str, Any]) -> CompiledSchema:
        """The validator of a schema already found usable, shared by every tool with the same schema (built
        when it first checks a value)."""
        key = self._digest(schema)
        if key is None:
            return CompiledSchema(schema)
        self._used.add(key)
        found = self._compiled.get(key)
        if found is None:
            found = self._compiled[key] = CompiledSchema(schema)
        return found

    def keep_used(self) -> None:
        """Forget the schemas no check or compile asked for since the last call: a reload keeps what the
        catalog it builds still uses, not every schema an earlier version of a file had."""
        self._problems = {key: value for key, value in self._problems.items() if key in self._used}
        self._compiled = {key: value for key, value in self._compiled.items() if key in self._used}
        self._used = set()
        self._digests = {}

    def __len__(self) -> int:
        """How many distinct schemas it holds a verdict on."""
        return len(self._problems)

    def _digest(self, schema: dict[str, Any]) -> bytes | None:
        found = self._digests.get(id(schema))
        if found is None:
            found = self._digests[id(schema)] = (schema, schema_digest(schema))
        return found[1]

    def _fast_yes(self, schema: dict[str, Any]) -> bool:
        validator_class = jsonschema.validators.validator_for(schema, default=Draft202012Validator)
        if validator_class not in self._meta:
            self._meta[validator_class] = _fast_validator(validator_class.META_SCHEMA, validator_class.FORMAT_CHECKER)
        meta = self._meta[validator_class]
        try:
            return meta is not None and meta.is_valid(schema)
        except (ValueError, TypeError, OverflowError):  # a value JSON cannot hold (a YAML date): Python decides
            return False


def schema_digest(schema: Any) -> bytes | None:
    """A digest of `schema`'s canonical JSON (keys sorted), or None when it holds what JSON cannot (a YAML
    date): such a schema is checked every time, never confused with the text that JSON would write for it."""
    try:
        canonical = orjson.dumps(schema, option=orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATETIME)
    except TypeError:
        return None
    return hashlib.blake2b(canonical, digest_size=16).digest()


class CompiledSchema:
    """A schema ready to check values: a fast yes from `jsonschema_rs`, else `jsonschema`'s verdict. Both are
    built when the first value is checked: a catalogue holds thousands of schemas and a session uses few."""

    __slots__ = ("_fast", "_python", "schema")

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self._python: Validator | None = None
        self._fast: jsonschema_rs.Validator | None = None

    def _validators(self) -> tuple[jsonschema_rs.Validator | None, Validator]:
        if self._python is None:
            validator_class = jsonschema.validators.validator_for(self.schema, default=Draft202012Validator)
            checker: FormatChecker = validator_class.FORMAT_CHECKER
            self._fast = _fast_validator(self.schema, checker)
            self._python = validator_class(self.schema, format_checker=checker)
        return self._fast, self._python

    def is_valid(self, value: Any) -> bool:
        fast, python = self._validators()
        return (fast is not None and fast.is_valid(value)) or python.is_valid(value)

    def iter_errors(self, value: Any) -> Iterator[ValidationError]:
        fast, python = self._validators()
        if fast is not None and fast.is_valid(value):
            return iter(())
        return python.iter_errors(value)


def _fast_validator(schema: dict[str, Any], checker: FormatChecker) -> jsonschema_rs.Validator | None:
    """`jsonschema_rs`'s validator with Python's format checks; None for a schema it cannot build (a remote
    `$ref`, a regex it does not read): then `jsonschema` alone checks. (It holds the meta-schemas of the
    drafts since 4 itself, so a meta-schema is built offline too.)"""

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
