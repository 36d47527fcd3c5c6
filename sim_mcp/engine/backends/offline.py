"""The offline backend: deterministic, schema-valid, state-aware simulation with no model and no network.

It reads a CRUD intent from the tool's name (`engine.intent`) and carries it out on the matching
collection of the world state, so create -> get -> update -> get -> delete -> get behaves as a real
service would. Where no meaning can be read, it answers with schema-valid generated data and changes
nothing, and says so in the event's note. The same seed, state and call always give the same outcome.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from jsonpointer import escape

from sim_mcp.engine.backends.base import Backend
from sim_mcp.engine.contract import Outcome, SimulationRequest
from sim_mcp.engine.intent import (
    Action,
    Collection,
    Intent,
    find_collection,
    plural,
    read_intent,
    split_words,
)
from sim_mcp.engine.schema_data import SchemaDataGenerator, resolve_ref
from sim_mcp.specs.schema import CompiledSchema, compile_schema

_EPOCH = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
_TEXT_QUERY_ARGS = frozenset({"query", "q", "search", "text", "keyword", "keywords", "term", "search_term"})
_PAGING_ARGS = frozenset({"limit", "max_results", "page_size", "per_page", "top", "count", "offset", "page", "sort"})
_LIMIT_ARGS = ("limit", "max_results", "page_size", "per_page", "top")
_TIMESTAMP_FIELDS = {"created_at", "createdAt", "created"}
_UPDATED_FIELDS = {"updated_at", "updatedAt", "modified_at"}


class OfflineBackend(Backend):
    name = "offline"

    async def simulate(self, request: SimulationRequest) -> Outcome:
        return _Call(request).run()


@dataclass
class _Failure(Exception):
    """A realistic error result (not found, already exists...)."""

    code: str
    message: str


class _Call:
    """One offline simulation: the request, a seeded random source and the schema helpers."""

    def __init__(self, request: SimulationRequest) -> None:
        self.request = request
        self.arguments = request.arguments
        self.state = request.state if isinstance(request.state, dict) else {}
        self.intent = read_intent(request.tool.name, self.state)
        digest = hashlib.sha256(
            json.dumps(
                [request.seed, request.environment.name, request.tool.name, request.arguments],
                sort_keys=True,
                default=str,
            ).encode()
        ).hexdigest()
        self.rng = random.Random(digest)
        self.output_schema = request.tool.output_schema
        self.output_validator: CompiledSchema | None = request.output_validator
        if self.output_schema is not None and self.output_validator is None:
            self.output_validator = compile_schema(self.output_schema)

    def run(self) -> Outcome:
        collection = find_collection(self.state, self.intent.noun)
        action = self.intent.action
        # A new collection only for a name that leads with its verb (`create_booking`), not for one whose
        # verb-like word comes last (`borrow_book`: no booking of "borrows" is meant).
        if action is Action.CREATE and collection is None and self.intent.noun and self.intent.leading:
            collection = Collection((plural("_".join(self.intent.noun)),), {}, "_".join(self.intent.noun))
        if action is Action.UNKNOWN or collection is None:
            return self._unknown()
        try:
            match action:
                case Action.CREATE:
                    return self._create(collection)
                case Action.GET:
                    return self._get(collection)
                case Action.LIST:
                    return self._list(collection)
                case Action.UPDATE:
                    return self._update(collection)
                case Action.DELETE:
                    return self._delete(collection)
                case _:
                    return self._set_status(collection)
        except _Failure as failure:
            return Outcome(
                result={"error": failure.code, "message": failure.message},
                is_error=True,
                note=f"offline: {action.value} on {collection.pointer} failed: {failure.code}",
            )

    # --- actions -------------------------------------------------------------------------------

    def _create(self, collection: Collection) -> Outcome:
        id_field = _id_field(collection)
        patch: list[dict[str, Any]] = []
        given_id = self._argument_id(collection, id_field)
        if given_id is not None:
            if _locate(collection, given_id) is not None:
                raise _Failure("already_exists", f"{collection.singular} {given_id!r} already exists")
            new_id: Any = given_id
        else:
            new_id, patch = self._next_id(collection, id_field)
        record: dict[str, Any] = {id_field: new_id}
        record.update(
            {key: value for key, value in self.arguments.items() if key != id_field and key not in _PAGING_ARGS}
        )
        sample = _sample_record(collection)
        for field in sample.keys() - record.keys():
            if field in _TIMESTAMP_FIELDS or field in _UPDATED_FIELDS:
                record[field] = self._now()
            elif field == "status":
                record[field] = self._default_status(collection)
        if isinstance(collection.records, dict):
            if not self._exists(collection.path):
                patch.append({"op": "add", "path": collection.pointer, "value": {}})
            patch.append({"op": "add", "path": f"{collection.pointer}/{escape(str(new_id))}", "value": record})
        else:
            patch.append({"op": "add", "path": f"{collection.pointer}/-", "value": record})
        result = self._shape([record, {collection.singular: record}, {"id": new_id, "created": True}], record)
        return Outcome(result=result, state_patch=patch, note=f"offline: created {collection.pointer}/{new_id}")

    def _get(self, collection: Collection) -> Outcome:
        key, record = self._target(collection)
        result = self._shape([record, {collection.singular: record}], record)
        return Outcome(result=result, note=f"offline: read {collection.pointer}/{key}")

    def _list(self, collection: Collection) -> Outcome:
        records = list(collection.records.values() if isinstance(collection.records, dict) else collection.records)
        fields = set().union(*(record.keys() for record in records)) if records else set()
        for name, wanted in self.arguments.items():
            if name in fields:
                records = [record for record in records if _matches(record.get(name), wanted)]
            elif name in _TEXT_QUERY_ARGS and isinstance(wanted, str) and wanted:
                records = [record for record in records if _mentions(record, wanted)]
        total = len(records)
        limit = next((self.arguments[name] for name in _LIMIT_ARGS if isinstance(self.arguments.get(name), int)), None)
        if limit is not None and limit >= 0:
            records = records[:limit]
        natural = {collection.key: records, "count": len(records), "total": total}
        result = self._shape(
            [natural, {"items": records, "count": len(records)}, {"results": records}], natural, records=records
        )
        return Outcome(result=result, note=f"offline: listed {len(records)} of {collection.pointer}")

    def _update(self, collection: Collection) -> Outcome:
        key, record = self._target(collection)
        id_field = _id_field(collection)
        changes = {
            name: value
            for name, value in self.arguments.items()
            if name != id_field and name not in self._id_argument_names(collection) and value is not None
        }
        if any(field in record for field in _UPDATED_FIELDS):
            changes.update({field: self._now() for field in _UPDATED_FIELDS if field in record})
        pointer = self._record_pointer(collection, key)
        patch = [
            {"op": "replace" if name in record else "add", "path": f"{pointer}/{escape(name)}", "value": value}
            for name, value in changes.items()
            if record.get(name) != value or name not in record
        ]
        updated = {**record, **changes}
        result = self._shape([updated, {collection.singular: updated}], updated)
        return Outcome(result=result, state_patch=patch, note=f"offline: updated {pointer}")

    def _delete(self, collection: Collection) -> Outcome:
        key, record = self._target(collection)
        pointer = self._record_pointer(collection, key)
        record_id = record.get(_id_field(collection), key)
        natural = {"id": record_id, "deleted": True}
        result = self._shape([natural, {**natural, collection.singular: record}, record], natural)
        return Outcome(
            result=result, state_patch=[{"op": "remove", "path": pointer}], note=f"offline: removed {pointer}"
        )

    def _set_status(self, collection: Collection) -> Outcome:
        key, record = self._target(collection)
        if "status" not in record:
            return self._delete(collection)
        status = self._status_spelling(self.intent)
        if record["status"] == status:
            raise _Failure("invalid_state", f"{collection.singular} {key!r} is already {status}")
        pointer = self._record_pointer(collection, key)
        extra = {
            name: value
            for name, value in self.arguments.items()
            if name in record and name != "status" and name not in self._id_argument_names(collection)
        }
        updated = {**record, **extra, "status": status}
        patch = [{"op": "replace", "path": f"{pointer}/status", "value": status}]
        patch += [
            {"op": "replace", "path": f"{pointer}/{escape(name)}", "value": value} for name, value in extra.items()
        ]
        result = self._shape([updated, {collection.singular: updated}], updated)
        return Outcome(result=result, state_patch=patch, note=f"offline: set {pointer}/status to {status}")

    def _unknown(self) -> Outcome:
        schema = self.output_schema
        result = self._generate(schema) if schema is not None else {"status": "ok"}
        reason = (
            f"no collection in the state matches {'_'.join(self.intent.noun)!r}"
            if self.intent.action is not Action.UNKNOWN
            else "no CRUD verb in the tool name"
        )
        note = (
            f"offline: cannot read what {self.request.tool.name} does ({reason}); answered read-only: "
            "generated a schema-valid result, state unchanged (give the tool a rules program to make it act)"
        )
        return Outcome(result=result, note=note)

    # --- finding records ----------------------------------------------------------------------

    def _target(self, collection: Collection) -> tuple[str, dict[str, Any]]:
        """The record the arguments point at (by id, or by matching fields); not found is a failure."""
        id_field = _id_field(collection)
        wanted = self._argument_id(collection, id_field)
        if wanted is None:
            wanted = self._any_argument_naming_a_record(collection)
        if wanted is not None:
            located = _locate(collection, wanted)
            if located is None:
                raise _Failure("not_found", f"{collection.singular} {wanted!r} not found")
            return located
        matches = [
            (key, record)
            for key, record in _items(collection)
            if self.arguments and all(_matches(record.get(name), value) for name, value in self.arguments.items())
        ]
        if not matches:
            described = ", ".join(f"{name}={value!r}" for name, value in self.arguments.items()) or "no arguments"
            raise _Failure("not_found", f"no {collection.singular} matches {described}")
        return matches[0]

    def _id_argument_names(self, collection: Collection) -> list[str]:
        base = collection.singular
        camel = re.sub(r"_(\w)", lambda m: m.group(1).upper(), base)
        return [f"{base}_id", f"{camel}Id", f"{base}Id", "id", f"{base}_key", f"{base}_name", "key"]

    def _argument_id(self, collection: Collection, id_field: str) -> Any:
        for name in [id_field, *self._id_argument_names(collection)]:
            value = self.arguments.get(name)
            if isinstance(value, str | int) and not isinstance(value, bool):
                return value
        return None

    def _any_argument_naming_a_record(self, collection: Collection) -> Any:
        for name, value in self.arguments.items():
            named_like_an_id = name.endswith("_id") or name.endswith("Id")
            if named_like_an_id and isinstance(value, str | int) and _locate(collection, value) is not None:
                return value
        return None

    def _record_pointer(self, collection: Collection, key: str) -> str:
        return f"{collection.pointer}/{escape(str(key))}"

    def _exists(self, path: tuple[str, ...]) -> bool:
        node: Any = self.state
        for part in path:
            if not isinstance(node, dict) or part not in node:
                return False
            node = node[part]
        return True

    # --- values -------------------------------------------------------------------------------

    def _next_id(self, collection: Collection, id_field: str) -> tuple[Any, list[dict[str, Any]]]:
        """The id after the largest existing one, in the same style (T-1004 after T-1003); a counter in
        the state (`next_id`, `next_ticket_id`) is used and advanced when there is one."""
        for counter in (f"next_{collection.singular}_id", "next_id", f"{collection.singular}_counter"):
            value = self.state.get(counter)
            if isinstance(value, int) and not isinstance(value, bool):
                styled = _styled_like(collection, id_field, value)
                return styled, [{"op": "replace", "path": f"/{escape(counter)}", "value": value + 1}]
        existing = [record.get(id_field, key) for key, record in _items(collection)]
        numbers = [_split_id(value) for value in existing]
        parsed = [item for item in numbers if item is not None]
        if parsed:
            prefix, _, width = max(parsed, key=lambda item: item[1])
            number = max(item[1] for item in parsed) + 1
            if all(isinstance(value, int) for value in existing):
                return number, []
            return f"{prefix}{str(number).zfill(width)}", []
        if self._id_is_integer(id_field):
            return 1, []
        return f"{collection.singular}_{len(existing) + 1}", []

    def _id_is_integer(self, id_field: str) -> bool:
        schema = self.output_schema or {}
        field = schema.get("properties", {}).get(id_field, {})
        return isinstance(field, dict) and field.get("type") == "integer"

    def _default_status(self, collection: Collection) -> str:
        for schema in (self.request.tool.input_schema, self.output_schema or {}):
            status = schema.get("properties", {}).get("status", {})
            if isinstance(status, dict) and status.get("enum"):
                return str(status["enum"][0])
        statuses = Counter(str(record.get("status")) for _, record in _items(collection) if "status" in record)
        return statuses.most_common(1)[0][0] if statuses else "active"

    def _status_spelling(self, intent: Intent) -> str:
        status = intent.status or intent.verb
        enum = (self.output_schema or {}).get("properties", {}).get("status", {}).get("enum", [])
        american = status.replace("cancelled", "canceled")
        return american if american in enum and status not in enum else status

    def _now(self) -> str:
        moment = _EPOCH + timedelta(minutes=self.request.sequence)
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")

    # --- fitting the output schema --------------------------------------------------------------

    def _shape(self, candidates: list[Any], natural: Any, records: list[Any] | None = None) -> Any:
        """The first candidate the output schema accepts; else an object built from the schema with the
        natural values filled in where they fit; else generated data. No schema: the natural value."""
        validator = self.output_validator
        schema = self.output_schema
        if validator is None or schema is None:
            return natural
        for candidate in candidates:
            if validator.is_valid(candidate):
                return candidate
        built = self._fill(schema, natural, records)
        if validator.is_valid(built):
            return built
        return self._generate(schema)

    def _fill(self, schema: dict[str, Any], natural: Any, records: list[Any] | None) -> Any:
        properties = schema.get("properties")
        if not isinstance(properties, dict):
            return self._generate(schema)
        generated = self._generate(schema)
        value: dict[str, Any] = dict(generated) if isinstance(generated, dict) else {}
        source = natural if isinstance(natural, dict) else {}
        for name, sub_schema in properties.items():
            sub = (
                resolve_ref(schema, sub_schema["$ref"])
                if isinstance(sub_schema, dict) and "$ref" in sub_schema
                else sub_schema
            )
            checker = compile_schema(sub) if isinstance(sub, dict) else None
            options: list[Any] = []
            if name in source:
                options.append(source[name])
            if records is not None and isinstance(sub, dict) and sub.get("type") == "array":
                options.append(records)
            if isinstance(sub, dict) and sub.get("type") == "object" and isinstance(natural, dict):
                options.append(natural)
            if name in ("count", "total", "total_count") and records is not None:
                options.append(len(records))
            for option in options:
                if checker is None or checker.is_valid(option):
                    value[name] = option
                    break
        return value

    def _generate(self, schema: dict[str, Any]) -> Any:
        return SchemaDataGenerator(schema, self.rng).generate(schema)


def _items(collection: Collection) -> list[tuple[str, dict[str, Any]]]:
    """(key, record) pairs: the mapping's keys, or list indexes as text."""
    if isinstance(collection.records, dict):
        return list(collection.records.items())
    return [(str(index), record) for index, record in enumerate(collection.records)]


def _locate(collection: Collection, wanted: Any) -> tuple[str, dict[str, Any]] | None:
    """(key, record) whose key or id field equals `wanted` (compared as text: "7" finds 7)."""
    id_field = _id_field(collection)
    text = str(wanted)
    for key, record in _items(collection):
        if isinstance(collection.records, dict) and key == text:
            return key, record
        if str(record.get(id_field)) == text or (id_field != "id" and str(record.get("id")) == text):
            return key, record
    return None


def _id_field(collection: Collection) -> str:
    sample = _sample_record(collection)
    for candidate in ("id", f"{collection.singular}_id", "name", "key"):
        if candidate in sample:
            return candidate
    return next((field for field in sample if field.endswith("_id") or field.endswith("Id")), "id")


def _sample_record(collection: Collection) -> dict[str, Any]:
    records = collection.records.values() if isinstance(collection.records, dict) else collection.records
    return next((record for record in records if isinstance(record, dict)), {})


def _split_id(value: Any) -> tuple[str, int, int] | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return "", value, 0
    if isinstance(value, str) and (match := re.fullmatch(r"(.*?)(\d+)", value)):
        return match.group(1), int(match.group(2)), len(match.group(2))
    return None


def _styled_like(collection: Collection, id_field: str, number: int) -> Any:
    for _, record in _items(collection):
        parsed = _split_id(record.get(id_field))
        if parsed is not None and isinstance(record.get(id_field), str):
            return f"{parsed[0]}{str(number).zfill(parsed[2])}"
    return number


def _matches(actual: Any, wanted: Any) -> bool:
    if isinstance(actual, list):
        return any(_matches(item, wanted) for item in actual)
    if isinstance(actual, str) and isinstance(wanted, str):
        return actual.casefold() == wanted.casefold()
    return bool(actual == wanted)


def _mentions(record: dict[str, Any], text: str) -> bool:
    needle = text.casefold()
    words = [word for word in split_words(needle) if word]
    haystack = json.dumps(record, ensure_ascii=False, default=str).casefold()
    return needle in haystack or (bool(words) and all(word in haystack for word in words))
