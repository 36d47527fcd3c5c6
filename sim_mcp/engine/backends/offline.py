"""The offline backend: deterministic, schema-valid, state-aware simulation with no model and no network.

It reads a CRUD intent from the tool's name (`engine.intent`) and carries it out on the matching
collection of the world state, so create -> get -> update -> get -> delete -> get behaves as a real
service would. Where no meaning can be read, a tool that says it only reads (`readOnlyHint`, a get or list
verb) gets schema-valid generated data; any other gets an honest error naming the ways to simulate it (a
rules program, an LLM backend), never a made-up success (`unknown="generate"`: generated data for those
too, the state unchanged, as before). The same seed, state and call always give the same outcome.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Self

from jsonpointer import escape

from sim_mcp.engine.backends.base import Backend
from sim_mcp.engine.clock import stamp, world_now
from sim_mcp.engine.contract import Outcome, SimulationRequest
from sim_mcp.engine.intent import (
    STATUS_OF_VERB,
    Action,
    Collection,
    Intent,
    find_collection,
    only_reads,
    plural,
    singular,
    split_words,
    tool_intent,
)
from sim_mcp.engine.records import (
    allows_null,
    enum_of,
    id_field,
    items,
    locate,
    record_schema,
    resolved,
    sample_record,
)
from sim_mcp.engine.schema_data import SchemaDataGenerator, resolve_ref
from sim_mcp.engine.singletons import argument_writes, showing_state
from sim_mcp.specs.model import Environment, ToolSpec
from sim_mcp.specs.registry import RULES_SUFFIX
from sim_mcp.specs.schema import CompiledSchema, compile_schema
from sim_mcp.state.patch import apply_patch

if TYPE_CHECKING:
    from sim_mcp.config import LlmConfig
    from sim_mcp.rules import Limits

_TEXT_QUERY_ARGS = frozenset({"query", "q", "search", "text", "keyword", "keywords", "term", "search_term"})
_PAGING_ARGS = frozenset(
    {"limit", "max_results", "page_size", "per_page", "top", "count", "offset", "page", "sort", "cursor", "order"}
)
# A filter value that asks for every record (a schema's enum often offers it beside the real values).
_EVERY = frozenset({"all", "any", "*"})
_LIMIT_ARGS = ("limit", "max_results", "page_size", "per_page", "top")
_TIMESTAMP_FIELDS = {"created_at", "createdAt", "created"}
_UPDATED_FIELDS = {"updated_at", "updatedAt", "modified_at"}


# What the engine answers for a tool it cannot read that does not say it only reads (`--offline-unknown`).
UnknownTools = Literal["error", "generate"]
# The error code of that answer.
NOT_SIMULATED = "not_simulated"


class OfflineBackend(Backend):
    name = "offline"

    def __init__(self, unknown: UnknownTools = "error") -> None:
        """`unknown`: "error" answers a tool it cannot read, and that does not say it only reads, with an
        honest error; "generate" with schema-valid generated data, the state unchanged."""
        self.unknown = unknown

    @classmethod
    def from_config(cls, settings: LlmConfig, limits: Limits | None = None) -> Self:
        return cls(settings.offline_unknown)

    async def simulate(self, request: SimulationRequest) -> Outcome:
        return _Call(request, self.unknown).run()


def cannot_act(environment: Environment, tool: ToolSpec) -> str | None:
    """Why the offline engine cannot carry out `tool` on the environment's initial state, so that it answers
    it with an error (`OfflineBackend(unknown="error")`); None when it acts on it, or the tool only reads.
    An update verb with no collection is tried with arguments drawn from its input schema: a setter of state
    that is no records acts when its arguments name fields of it."""
    request = SimulationRequest(environment, tool, {}, environment.initial_state, [], "")
    reason = _Call(request).unread()
    if (
        reason is None
        or tool_intent(tool.name, tool.description, environment.initial_state).action is not Action.UPDATE
    ):
        return reason
    properties = tool.input_schema.get("properties")
    rng = random.Random(0)
    arguments = {
        name: SchemaDataGenerator(tool.input_schema, rng).generate(sub, name=name)
        for name, sub in (properties.items() if isinstance(properties, dict) else [])
    }
    return _Call(replace(request, arguments=arguments)).unread()


@dataclass(frozen=True)
class Reading:
    """What the offline engine reads a tool to do on the environment's initial state, for `sim-mcp rules
    init` to write down as a program: the action, its collection, the id field and the argument naming a
    record, the status a status verb sets, and the fields the records have (stored, and by their schema)."""

    intent: Intent
    collection: Collection
    id_field: str
    id_argument: str | None
    status: tuple[str, str] | None
    fields: dict[str, Any]  # field -> its schema ({} when only the stored records show it)
    required: tuple[str, ...]
    root: dict[str, Any]  # the output schema the record schema sits in (where its `$ref`s point)


def read_tool(environment: Environment, tool: ToolSpec) -> Reading | None:
    """What the offline engine does with `tool` on the environment's initial state (None: it cannot read
    it, or has no collection for it, and answers with an error, or with generated data for a read)."""
    request = SimulationRequest(environment, tool, {}, environment.initial_state, [], "")
    call = _Call(request)
    collection = call._collection()
    if call.intent.action is Action.UNKNOWN or collection is None:
        return None
    id_name = id_field(collection)
    offered = tool.input_schema.get("properties")
    names = offered.keys() if isinstance(offered, dict) else set()
    id_argument = next((name for name in [id_name, *call._id_argument_names(collection)] if name in names), None)
    if id_argument is None and call.intent.action not in (Action.CREATE, Action.LIST):
        id_argument = next((name for name in names if name.endswith(("_id", "Id"))), None)
    status = call._status_target(collection, strict=False) if call.intent.action is Action.SET_STATUS else None
    found = call._schema(collection)
    fields: dict[str, Any] = {name: {} for name in sample_record(collection)}
    fields.update(call._schema_properties(collection))
    required = tuple(found[0].get("required") or []) if found is not None else ()
    return Reading(call.intent, collection, id_name, id_argument, status, fields, required, found[1] if found else {})


def tools_it_cannot_act_on(environment: Environment, answered: Callable[[str], bool]) -> list[str]:
    """The tools of `environment` the offline engine cannot act on (`cannot_act`), but those `answered`
    otherwise (by a working rules program). `answered` is asked only of those tools, so that a caller need not
    check an environment's program when the engine can act on all of its tools."""
    return [tool.name for tool in environment.tools if cannot_act(environment, tool) and not answered(tool.name)]


def cannot_act_line(environment: Environment, tools: list[str], unknown: UnknownTools = "error") -> str:
    """What `check` and `serve` say of those tools."""
    answer = "an error" if unknown == "error" else "generated data, the state unchanged (--offline-unknown generate)"
    program = (
        f"write or fix their functions in {environment.rules_source}"
        if environment.rules is not None and environment.rules_source
        else f"give them a rules program (sim-mcp rules init {environment.source})"
    )
    return (
        f"{environment.source}: the offline backend cannot act on {len(tools)} of {len(environment.tools)} tools "
        f"({', '.join(tools)}): it answers them with {answer}; {program} or serve with an LLM backend"
    )


@dataclass
class _Failure(Exception):
    """A realistic error result (not found, already exists...)."""

    code: str
    message: str


class _Call:
    """One offline simulation: the request, a seeded random source and the schema helpers."""

    def __init__(self, request: SimulationRequest, unknown: UnknownTools = "error") -> None:
        self.request = request
        self.unknown = unknown
        self.arguments = request.arguments
        self.state = request.state if isinstance(request.state, dict) else {}
        self.intent = tool_intent(request.tool.name, request.tool.description, self.state)
        self.output_schema = request.tool.output_schema
        self._schemas: dict[tuple[str, ...], tuple[dict[str, Any], dict[str, Any]] | None] = {}

    # The random source and the compiled output schema, made when first used (reading what a tool does, as
    # `cannot_act` does for every tool when a server starts, needs neither).
    @cached_property
    def rng(self) -> random.Random:
        request = self.request
        digest = hashlib.sha256(
            json.dumps(
                [request.seed, request.environment.name, request.tool.name, request.arguments],
                sort_keys=True,
                default=str,
            ).encode()
        ).hexdigest()
        return random.Random(digest)

    @cached_property
    def output_validator(self) -> CompiledSchema | None:
        if self.request.output_validator is not None or self.output_schema is None:
            return self.request.output_validator
        return compile_schema(self.output_schema)

    def _collection(self) -> Collection | None:
        """The collection the call acts on (None: none), settling `self.intent`."""
        collection = find_collection(self.state, self.intent.noun)
        action = self.intent.action
        # A new collection only for a name that leads with its verb (`create_booking`), not for one whose
        # verb-like word comes last (`borrow_book`: no booking of "borrows" is meant).
        if action is Action.CREATE and collection is None and self.intent.noun and self.intent.leading:
            collection = Collection((plural("_".join(self.intent.noun)),), {}, "_".join(self.intent.noun))
        if action is Action.UNKNOWN:
            collection, self.intent = self._status_verb_of_schema()
        return collection

    def unread(self) -> str | None:
        """Why the call can't be carried out (the tool does not say it only reads, and neither a collection
        nor a singleton field is there to act on); None when it can, or when it only reads."""
        collection = self._collection()
        if self.intent.action is not Action.UNKNOWN and collection is not None:
            return None
        if self._writes() or self._reads():
            return None
        return self._reason()

    def run(self) -> Outcome:
        collection = self._collection()
        action = self.intent.action
        if action is Action.UNKNOWN or collection is None:
            return self._unknown()
        if action is Action.LIST and self._argument_id(collection, id_field(collection)) is not None:
            action = Action.GET  # `find_pet_by_id`: a search that names one record reads it
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
        id_name = id_field(collection)
        patch: list[dict[str, Any]] = []
        given_id = self._argument_id(collection, id_name)
        if given_id is not None:
            if locate(collection, given_id) is not None:
                raise _Failure("already_exists", f"{collection.singular} {given_id!r} already exists")
            new_id: Any = given_id
        else:
            new_id, patch = self._next_id(collection, id_name)
        record: dict[str, Any] = {id_name: new_id}
        record.update(
            {key: value for key, value in self.arguments.items() if key != id_name and key not in _PAGING_ARGS}
        )
        sample = sample_record(collection)
        for field in sample.keys() - record.keys():
            if field in _TIMESTAMP_FIELDS or field in _UPDATED_FIELDS:
                record[field] = self._now()
            elif field == "status":
                record[field] = self._default_status(collection)
        record.update(self._new_fields(collection, record))
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
        record, patch = self._completed(collection, key, record)
        result = self._shape([record, {collection.singular: record}], record)
        return Outcome(result=result, state_patch=patch, note=f"offline: read {collection.pointer}/{key}")

    def _list(self, collection: Collection) -> Outcome:
        pairs = items(collection)
        fields = set().union(*(record.keys() for _, record in pairs)) if pairs else set()
        fields |= self._schema_properties(collection).keys()
        ignored: list[str] = []
        # A filter left out takes its schema's default (a list of issues shows the open ones by default).
        defaults = {
            name: sub["default"]
            for name, sub in self.request.tool.input_schema.get("properties", {}).items()
            if isinstance(sub, dict) and "default" in sub and _field_named(name, fields) is not None
        }
        for name, wanted in {**defaults, **self.arguments}.items():
            field = _field_named(name, fields)
            if field is not None:
                held = {json.dumps(record.get(field), sort_keys=True, default=str) for _, record in pairs}
                if isinstance(wanted, str) and wanted.casefold() in _EVERY and json.dumps(wanted) not in held:
                    continue  # "all" of a filter's enum: no filter
                pairs = [(key, record) for key, record in pairs if _matches(record.get(field), wanted)]
            elif name in _TEXT_QUERY_ARGS and isinstance(wanted, str) and wanted:
                pairs = [(key, record) for key, record in pairs if _mentions(record, wanted)]
            elif name not in _PAGING_ARGS and name not in _TEXT_QUERY_ARGS and wanted is not None:
                ignored.append(name)
        total = len(pairs)
        limit = next((self.arguments[name] for name in _LIMIT_ARGS if isinstance(self.arguments.get(name), int)), None)
        if limit is not None and limit >= 0:
            pairs = pairs[:limit]
        patch: list[dict[str, Any]] = []
        records: list[dict[str, Any]] = []
        for key, record in pairs:
            completed, filled = self._completed(collection, key, record)
            records.append(completed)
            patch += filled
        natural: dict[str, Any] = {collection.key: records, "count": len(records), "total": total}
        if ignored:
            natural["ignored_filters"] = ignored
        result = self._shape(
            [natural, {"items": records, "count": len(records)}, {"results": records}], natural, records=records
        )
        note = f"offline: listed {len(records)} of {collection.pointer}"
        if ignored:
            note += f"; ignored {', '.join(ignored)} (no field of {collection.pointer} by that name)"
            if isinstance(result, dict) and "ignored_filters" not in result:
                said = {**result, "ignored_filters": ignored}
                if self.output_validator is None or self.output_validator.is_valid(said):
                    result = said
        return Outcome(result=result, state_patch=patch, note=note)

    def _update(self, collection: Collection) -> Outcome:
        key, record = self._target(collection)
        ids = {id_field(collection), *self._id_argument_names(collection)}
        changes = self._homed(collection, record, {name for name in self.arguments if name not in ids})
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
        record_id = record.get(id_field(collection), key)
        natural = {"id": record_id, "deleted": True}
        result = self._shape([natural, {**natural, collection.singular: record}, record], natural)
        return Outcome(
            result=result, state_patch=[{"op": "remove", "path": pointer}], note=f"offline: removed {pointer}"
        )

    def _set_status(self, collection: Collection) -> Outcome:
        """The record's status-like field (whatever its name) moved to the value the verb implies; the record
        is kept, and the call's other arguments stored where the record keeps them."""
        key, record = self._target(collection)
        field, status = self._status_target(collection, strict=False)
        if record.get(field) == status:
            raise _Failure("invalid_state", f"{collection.singular} {key!r} is already {status}")
        pointer = self._record_pointer(collection, key)
        ids = {id_field(collection), *self._id_argument_names(collection), field}
        changes = self._homed(collection, record, {name for name in self.arguments if name not in ids})
        changes[field] = status
        known = record.keys() | self._schema_properties(collection).keys()
        stamped = [f"{status}_at", re.sub(r"_(\w)", lambda m: m.group(1).upper(), f"{status}_at")]
        for name in [*stamped, *_UPDATED_FIELDS]:
            if name in known and (name in record or name in stamped):
                changes[name] = self._now()
        updated = {**record, **changes}
        patch = [
            {"op": "replace" if name in record else "add", "path": f"{pointer}/{escape(name)}", "value": value}
            for name, value in changes.items()
            if record.get(name) != value or name not in record
        ]
        result = self._shape([updated, {collection.singular: updated}], updated)
        return Outcome(result=result, state_patch=patch, note=f"offline: set {pointer}/{field} to {status}")

    def _reason(self) -> str:
        if self.intent.action is not Action.UNKNOWN:
            return f"no collection in the state matches {'_'.join(self.intent.noun)!r}"
        return "no verb it knows in the tool's name or description"

    def _reads(self) -> bool:
        tool = self.request.tool
        hint = tool.annotations.read_only_hint if tool.annotations is not None else None
        return only_reads(tool.name, tool.description, hint, self.state)

    def _writes(self) -> list[dict[str, Any]]:
        """An update verb's writes to state that is no records (a vehicle, settings): the arguments that
        name its fields."""
        if self.intent.action is not Action.UPDATE:
            return []
        return argument_writes(self.arguments, self.state, self.request.tool.name)

    def _unknown(self) -> Outcome:
        name = self.request.tool.name
        patch = self._writes()
        reason = self._reason()
        if not patch and not self._reads() and self.unknown == "error":
            message = not_simulated_message(name, reason, self.request.environment)
            note = (
                f"offline: cannot read what {name} does ({reason}) and it does not say it only reads: answered "
                "with an error, state unchanged (--offline-unknown generate answers with generated data instead)"
            )
            return Outcome(result={"error": NOT_SIMULATED, "message": message}, is_error=True, note=note)
        schema = self.output_schema
        result = self._generate(schema) if schema is not None else {"status": "ok"}
        # State that is no records (a vehicle, settings) is still kept: an update verb stores the arguments
        # that name its fields, and the result shows what the state holds, not invented values.
        after = apply_patch(self.state, patch) if patch else self.state
        result = showing_state(result, after, name, self.arguments)
        if patch:
            note = f"offline: {name} set {', '.join(op['path'] for op in patch)} from its arguments"
            return Outcome(result=result, state_patch=patch, note=note)
        note = (
            f"offline: cannot read what {name} does ({reason}); answered read-only: "
            "generated a schema-valid result, state unchanged (give the tool a rules program to make it act)"
        )
        return Outcome(result=result, note=note)

    # --- finding records ----------------------------------------------------------------------

    def _target(self, collection: Collection) -> tuple[str, dict[str, Any]]:
        """The record the arguments point at (by id, or by matching fields); not found is a failure."""
        id_name = id_field(collection)
        wanted = self._argument_id(collection, id_name)
        if wanted is None:
            wanted = self._any_argument_naming_a_record(collection)
        if wanted is not None:
            located = locate(collection, wanted)
            if located is None:
                raise _Failure("not_found", f"{collection.singular} {wanted!r} not found")
            return located
        matches = [
            (key, record)
            for key, record in items(collection)
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
            if named_like_an_id and isinstance(value, str | int) and locate(collection, value) is not None:
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
        existing = [record.get(id_field, key) for key, record in items(collection)]
        numbers = [_split_id(value) for value in existing]
        parsed = [item for item in numbers if item is not None]
        if parsed:
            prefix, _, width = max(parsed, key=lambda item: item[1])
            number = max(item[1] for item in parsed) + 1
            if all(isinstance(value, int) for value in existing):
                return number, []
            return f"{prefix}{str(number).zfill(width)}", []
        if self._id_is_integer(collection, id_field):
            return 1, []
        return f"{collection.singular}_{len(existing) + 1}", []

    def _id_is_integer(self, collection: Collection, id_field: str) -> bool:
        """Whether the record's schema (else the tool's output schema) types the id as an integer."""
        found = self._schema(collection)
        field = self._schema_properties(collection).get(id_field) if found is not None else None
        if field is None:
            field = (self.output_schema or {}).get("properties", {}).get(id_field, {})
        field = resolved(field, found[1] if found is not None else {})
        return isinstance(field, dict) and field.get("type") == "integer"

    def _default_status(self, collection: Collection) -> str:
        for schema in (self.request.tool.input_schema, self.output_schema or {}):
            status = schema.get("properties", {}).get("status", {})
            if isinstance(status, dict) and status.get("enum"):
                return str(status["enum"][0])
        statuses = Counter(str(record.get("status")) for _, record in items(collection) if "status" in record)
        return statuses.most_common(1)[0][0] if statuses else "active"

    def _now(self) -> str:
        return stamp(world_now(self.request.environment, self.request.sequence, self.request.seeded_stamp))

    # --- the record's schema --------------------------------------------------------------------

    def _schema(self, collection: Collection) -> tuple[dict[str, Any], dict[str, Any]] | None:
        if collection.path not in self._schemas:
            self._schemas[collection.path] = record_schema(self.request.environment, collection)
        return self._schemas[collection.path]

    def _schema_properties(self, collection: Collection) -> dict[str, Any]:
        found = self._schema(collection)
        properties = found[0].get("properties") if found is not None else None
        return properties if isinstance(properties, dict) else {}

    def _new_fields(self, collection: Collection, record: dict[str, Any]) -> dict[str, Any]:
        """The fields a new record gets beside its arguments, from its schema: timestamps of creation now,
        a field that may be null null (what only happens later, `closed_at`, has not happened), a status-like
        enum its first value, and any other required field a value chosen once (it is stored)."""
        found = self._schema(collection)
        if found is None:
            return {}
        schema, root = found
        required = set(schema.get("required") or [])
        fields: dict[str, Any] = {}
        for name, sub in self._schema_properties(collection).items():
            if name in record:
                continue
            if name in _TIMESTAMP_FIELDS or name in _UPDATED_FIELDS:
                fields[name] = self._now()
            elif allows_null(sub, root):
                fields[name] = None
            elif name in required or enum_of(sub, root):
                fields[name] = self._default_value(sub, root, name)
        return fields

    def _completed(self, collection: Collection, key: str, record: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
        """The record with the required fields its schema names and it lacks filled in, and the patch that
        stores them: a value the result shows is chosen once, never again on the next read."""
        found = self._schema(collection)
        if found is None:
            return record, []
        schema, root = found
        properties = self._schema_properties(collection)
        missing = [name for name in schema.get("required") or [] if name not in record and name in properties]
        if not missing:
            return record, []
        filled = {
            name: None if allows_null(properties[name], root) else self._default_value(properties[name], root, name)
            for name in missing
        }
        pointer = self._record_pointer(collection, key)
        patch = [{"op": "add", "path": f"{pointer}/{escape(name)}", "value": value} for name, value in filled.items()]
        return {**record, **filled}, patch

    def _default_value(self, schema: Any, root: dict[str, Any], name: str) -> Any:
        """A plain value for a field nobody gave: the first of an enum, zero, empty, now; else generated."""
        schema = resolved(schema, root)
        if not isinstance(schema, dict):
            return None
        if "const" in schema:
            return schema["const"]
        if schema.get("enum"):
            return schema["enum"][0]
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((item for item in kind if item != "null"), "null")
        match kind:
            case "integer" | "number":
                low = schema.get("minimum", 0)
                return (
                    low
                    if isinstance(low, int | float) and low >= 0
                    else SchemaDataGenerator(root, self.rng).generate(schema, name=name)
                )
            case "boolean":
                return False
            case "array" if not schema.get("minItems"):
                return []
            case "string" if schema.get("format") == "date-time":
                return self._now()
            case "string" if schema.get("format") == "date":
                return self._now()[:10]
        return SchemaDataGenerator(root, self.rng).generate(schema, name=name)

    # --- status and arguments -------------------------------------------------------------------

    def _status_verb_of_schema(self) -> tuple[Collection | None, Intent]:
        """A tool named `<verb>_<noun>` with a verb we don't know (`lock_door`, `publishPost`) sets a status
        when the noun's records have a status-like field with a value that verb leaves (`locked`)."""
        words = split_words(self.request.tool.name)
        read = self.intent
        if len(words) < 2:
            return None, self.intent
        collection = find_collection(self.state, tuple(words[1:]))
        if collection is None:
            return None, self.intent
        intent = Intent(Action.SET_STATUS, words[0], tuple(words[1:]))
        self.intent = intent
        if self._status_target(collection, strict=True)[0]:
            return collection, intent
        self.intent = read
        return None, self.intent

    def _status_target(self, collection: Collection, *, strict: bool) -> tuple[str, str]:
        """The field a status verb sets and the value it leaves: an enum field of the record's schema that
        offers the verb's past form (`state` for close: `closed`), else a field of the records that holds it
        somewhere; else (not strict) `status`, or `state`, set to that past form. Strict: ("", "") if none."""
        spellings = _past_forms(self.intent.verb)
        found = self._schema(collection)
        if found is not None:
            _, root = found
            for name, sub in self._schema_properties(collection).items():
                offered = enum_of(sub, root)
                for spelling in spellings:
                    if spelling in offered:
                        return name, spelling
        for _, record in items(collection):
            for name, value in record.items():
                if isinstance(value, str) and value in spellings:
                    return name, value
        if strict:
            return "", ""
        sample = sample_record(collection)
        field = next((name for name in ("status", "state") if name in sample), "status")
        return field, spellings[0]

    def _homed(self, collection: Collection, record: dict[str, Any], names: set[str]) -> dict[str, Any]:
        """The changes that store the call's arguments `names` where the record keeps them: a field of that
        name set; a plural field given one item (`comment` -> `comments`) appended to, or counted when it is
        a count; a field that ends in the argument's name (`reason` -> `state_reason`) set when the value
        fits it. An argument with no home is not stored (the update tools' own fields are new fields)."""
        properties = self._schema_properties(collection)
        found = self._schema(collection)
        root = found[1] if found is not None else {}
        known = list(record.keys() | properties.keys())
        changes: dict[str, Any] = {}
        for name in sorted(names):
            value = self.arguments[name]
            if value is None or name in _PAGING_ARGS:
                continue
            if name in known or (self.intent.action is Action.UPDATE and not home_of(name, known)):
                changes[name] = value
                continue
            home = home_of(name, known)
            if home is None:
                continue
            held = record.get(home)
            sub = resolved(properties.get(home, {}), root)
            kind = sub.get("type") if isinstance(sub, dict) else None
            if home == plural(name) and (isinstance(held, list) or (held is None and kind == "array")):
                changes[home] = [*(held or []), value]
            elif home == plural(name) and ((isinstance(held, int) and not isinstance(held, bool)) or kind == "integer"):
                changes[home] = (held if isinstance(held, int) else 0) + 1
            elif home != plural(name):
                offered = enum_of(sub, root)
                if not offered or value in offered:
                    changes[home] = value
        return changes

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


def not_simulated_message(tool: str, reason: str, environment: Environment) -> str:
    """The error a tool the offline engine cannot read gets: what happened, and the two ways forward."""
    path = Path(environment.source) if environment.source else None
    if environment.rules is not None and environment.rules_source:
        scaffold = f"its function in {environment.rules_source} is missing or fails the spec's examples: fix it"
    elif path is not None and path.suffix:
        rules = path.with_name(path.stem + RULES_SUFFIX).name
        scaffold = f"`sim-mcp rules init {path}` writes {rules} with a function to fill in per tool"
    else:
        scaffold = "`sim-mcp rules init SPEC` writes one to fill in"
    return (
        f"{tool}: the offline simulator cannot tell what this tool does ({reason}), so it answers with this "
        f"error instead of a made-up success; nothing was changed. To simulate it, give it a rules program "
        f"({scaffold}), or serve with an LLM backend (--backend openai or anthropic, with --model). "
        "A tool that only reads can say so: annotations: {readOnlyHint: true}."
    )


def _split_id(value: Any) -> tuple[str, int, int] | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return "", value, 0
    if isinstance(value, str) and (match := re.fullmatch(r"(.*?)(\d+)", value)):
        return match.group(1), int(match.group(2)), len(match.group(2))
    return None


def _styled_like(collection: Collection, id_field: str, number: int) -> Any:
    for _, record in items(collection):
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


def _past_forms(verb: str) -> list[str]:
    """What a status verb leaves behind, most likely spelling first: close -> closed, cancel -> cancelled
    or canceled, archive -> archived, lock -> locked, approve -> approved, deny -> denied, stop -> stopped."""
    forms = [STATUS_OF_VERB[verb]] if verb in STATUS_OF_VERB else []
    if verb.endswith("e"):
        forms.append(verb + "d")
    elif verb.endswith("y") and len(verb) > 2 and verb[-2] not in "aeiou":
        forms.append(verb[:-1] + "ied")
    else:
        forms.append(verb + "ed")
        if len(verb) > 2 and verb[-1] not in "aeiouwxy" and verb[-2] in "aeiou" and verb[-3] not in "aeiou":
            forms.append(verb + verb[-1] + "ed")
    forms += [form.replace("cancelled", "canceled") for form in forms if "cancelled" in form]
    return list(dict.fromkeys(form for form in forms if form))


def _field_named(name: str, fields: set[str]) -> str | None:
    """The record field a filter argument names: itself, else its plural or singular (`label` -> `labels`)."""
    for candidate in (name, plural(name), singular(name)):
        if candidate in fields:
            return candidate
    return None


def home_of(name: str, fields: list[str]) -> str | None:
    """Where a record keeps an argument that is not one of its fields: its plural (`comments` for
    `comment`), else the one field whose name ends or starts with it as a word (`state_reason`)."""
    if plural(name) in fields:
        return plural(name)
    words = split_words(name)
    ends = [
        field
        for field in fields
        if (parts := split_words(field)) != words and (parts[-len(words) :] == words or parts[: len(words)] == words)
    ]
    return ends[0] if len(ends) == 1 else None
