"""A property that can fail: on any spec, a session answered without a program keeps what it shows.

Hypothesis stateful tests drive random valid call sequences through a real client (the MCP SDK's `Client`,
in memory) against the generic offline engine, on every spec of the shared corpus, the bundled specs (their
rules programs off), the issue tracker of test_consistency.py and generated specs (random record schemas
with ids, status-like enums under any name, nested objects, nullable and required fields, seeded records
missing some; and singleton state: a vehicle, a profile, a thermostat, read and changed by name). After each
call:

- every record the result shows (`engine/consistency.py` finds them) holds, in the state after the call,
  each value shown;
- a record shown again, unchanged in the state since it was last shown, shows what it showed then;
- every field of a singleton object the result names (`engine/singletons.py`) holds the value shown;
- an error leaves the state exactly as it was.

`SIM_MCP_PROPERTY_EXAMPLES` sets the sequences per spec (default 3, for CI); RELIABILITY.md has a larger run.
"""

from __future__ import annotations

import json
import os
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from hypothesis import HealthCheck, assume, note, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from jsonschema import Draft202012Validator
from mcp.client import Client

from sim_mcp.config import Settings
from sim_mcp.engine.consistency import find_collection_at, shown_records
from sim_mcp.engine.intent import collections_in
from sim_mcp.engine.records import id_field, items, locate
from sim_mcp.engine.schema_data import generate
from sim_mcp.engine.singletons import shown_fields
from sim_mcp.runtime import Runtime
from sim_mcp.server.context import ServerContext
from sim_mcp.server.mcp import SessionRouting, build_mcp_server
from sim_mcp.specs.registry import Catalog, load_catalog
from tests.fuzzing import record_figures
from tests.servers import BUNDLED_SPECS, CORPUS, HAVE_CORPUS, corpus_cases

EXAMPLES = int(os.environ.get("SIM_MCP_PROPERTY_EXAMPLES", "3"))
STEPS = int(os.environ.get("SIM_MCP_PROPERTY_STEPS", "10"))
SESSION = "property"

CORPUS_FILES = sorted(path for path in CORPUS.rglob("*") if path.suffix in (".json", ".yaml")) if HAVE_CORPUS else []
BUNDLED_FILES = sorted(BUNDLED_SPECS.glob("*.yaml"))
# The issue tracker of tests/test_consistency.py: an OpenAPI file with a native wrapper seeding two issues.
TRACKER = Path(__file__).parent / "tracker" / "tracker.yaml"


class SessionKeepsWhatItShows(RuleBasedStateMachine):
    """One session on one spec: each step a valid call of one of its tools; the checks after each."""

    figures: dict[str, int]

    def __init__(self) -> None:
        super().__init__()
        self._stack = ExitStack()
        self.portal: BlockingPortal = self._stack.enter_context(start_blocking_portal())
        self.shown: dict[tuple[tuple[str, ...], str], tuple[str, dict[str, Any]]] = {}
        self.figures["sequences"] += 1

    def open(self, spec: Path, catalog: Catalog | None = None) -> None:
        catalog = catalog if catalog is not None else load_catalog(spec)
        assert catalog.errors == (), catalog.errors
        (self.environment,) = catalog.environments.values()
        settings_ = Settings(specs=[spec], watch=False, run_rules=False)
        runtime = self.portal.wrap_async_context_manager(Runtime(settings_, catalog=catalog))
        self.runtime = self._stack.enter_context(runtime)
        server = build_mcp_server(ServerContext(self.runtime), SessionRouting(process_session=SESSION))
        self.client = self._stack.enter_context(self.portal.wrap_async_context_manager(Client(server)))

    def teardown(self) -> None:
        self._stack.close()

    def world(self) -> Any:
        record = self.portal.call(self.runtime.store.get, SESSION)
        if record is None:
            return self.environment.initial_state
        return self.runtime.simulator.world_of(record, self.environment.name)

    @rule(data=st.data())
    def call(self, data: st.DataObject) -> None:
        tool = data.draw(st.sampled_from(self.environment.tools), label="tool")
        before = self.world()
        arguments = data.draw(_arguments(tool.input_schema, before), label="arguments")
        answer = self.portal.call(self.client.call_tool, tool.name, arguments)
        self.figures["calls"] += 1
        text = answer.content[0].text if answer.content else ""
        after = self.world()
        note(f"{tool.name}({json.dumps(arguments)}) -> {text[:300]}")
        assert "could not produce a valid result" not in text, text
        if answer.is_error:
            assert json.dumps(after, sort_keys=True) == json.dumps(before, sort_keys=True), "an error changed state"
            return
        result = answer.structured_content if answer.structured_content is not None else _parsed(text)
        self._check(tool.name, result, before, after)

    def _check(self, tool: str, result: Any, before: Any, after: Any) -> None:
        problems: list[str] = []
        for shown in shown_records(result, tool, before, after):
            collection = find_collection_at(after, shown.collection.path)
            located = locate(collection, shown.record_id) if collection is not None else None
            key = (shown.collection.path, str(shown.record_id))
            if located is None:
                was = find_collection_at(before, shown.collection.path)
                if shown.must_exist or was is None or locate(was, shown.record_id) is None:
                    problems.append(f"{tool} shows {key} at {shown.where}, which the state does not hold")
                self.shown.pop(key, None)
                continue
            stored = located[1]
            for name, value in shown.fields.items():
                if not _within(value, stored.get(name)) and not (
                    name == id_field(shown.collection) and str(value) == str(stored.get(name))
                ):
                    problems.append(f"{tool} shows {key} {name}={value!r}, the state holds {stored.get(name)!r}")
            previous = self.shown.get(key)
            snapshot = json.dumps(stored, sort_keys=True, default=str)
            if previous is not None and previous[0] == snapshot:
                for name, value in shown.fields.items():
                    if name in previous[1] and previous[1][name] != value:
                        problems.append(
                            f"{tool} shows {key} {name}={value!r}; unchanged, it showed {previous[1][name]!r}"
                        )
            self.shown[key] = (
                snapshot,
                {**(previous[1] if previous and previous[0] == snapshot else {}), **shown.fields},
            )
        skip = frozenset(
            "" if shown.where == "/" else shown.where for shown in shown_records(result, tool, before, after)
        )
        for field in shown_fields(result, after, tool, None, skip):
            stored = _value_at(after, field.path)
            if not _within(field.shown, stored):
                problems.append(f"{tool} shows {'/'.join(field.path)}={field.shown!r}, the state holds {stored!r}")
        self.figures["violations"] += len(problems)
        assert not problems, problems

    @invariant()
    def records_are_records(self) -> None:
        world = self.world()
        if isinstance(world, dict):
            for _path, records in collections_in(world):
                assert all(
                    isinstance(record, dict) for record in (records.values() if isinstance(records, dict) else records)
                )


def _within(shown: Any, stored: Any) -> bool:
    if isinstance(shown, dict) and isinstance(stored, dict):
        return all(key in stored and _within(value, stored[key]) for key, value in shown.items())
    if isinstance(shown, bool) or isinstance(stored, bool):
        return shown is stored
    return bool(shown == stored)


def _value_at(state: Any, path: tuple[str, ...]) -> Any:
    for part in path:
        state = state[part]
    return state


def _parsed(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


@st.composite
def _arguments(draw: st.DrawFn, schema: dict[str, Any], state: Any) -> dict[str, Any]:
    """Valid arguments: generated from the schema, optional ones kept or left at random, and an id-like
    argument most often the id of a stored record (else a made-up one), a filter most often a stored value."""
    seed = draw(st.integers(0, 10_000))
    base = generate(schema, seed)
    if not isinstance(base, dict):
        base = {}
    required = set(schema.get("required") or [])
    properties = schema.get("properties") or {}
    ids, values = _known(state)
    arguments: dict[str, Any] = {}
    for name, value in base.items():
        if name not in required and draw(st.booleans()):
            continue
        lowered = name.lower()
        if (lowered == "id" or lowered.endswith("id")) and ids and draw(st.integers(0, 4)) > 0:
            value = _typed(draw(st.sampled_from(ids)), properties.get(name))
        elif name in values and draw(st.booleans()):
            value = _typed(draw(st.sampled_from(values[name])), properties.get(name))
        arguments[name] = value
    validator = Draft202012Validator(schema)
    if not validator.is_valid(arguments):
        arguments = base  # the schema's own generated value, unchanged, is valid far more often
    assume(validator.is_valid(arguments))
    return arguments


def _known(state: Any) -> tuple[list[Any], dict[str, list[Any]]]:
    ids: list[Any] = []
    values: dict[str, list[Any]] = {}
    if not isinstance(state, dict):
        return ids, values
    for path, _records in collections_in(state):
        collection = find_collection_at(state, path)
        if collection is None:
            continue
        field = id_field(collection)
        for key, record in items(collection):
            ids.append(record.get(field, key))
            for name, value in record.items():
                if isinstance(value, str | int) and not isinstance(value, bool):
                    values.setdefault(name, []).append(value)
    return ids, values


def _typed(value: Any, schema: Any) -> Any:
    kind = schema.get("type") if isinstance(schema, dict) else None
    if kind == "integer" and isinstance(value, str) and value.isdigit():
        return int(value)
    if kind == "string" and isinstance(value, int):
        return str(value)
    return value


# --- generated specs -------------------------------------------------------------------------------

_NOUNS = ("widget", "parcel", "lease", "robot", "invoice", "sprint")
_STATUS_NAMES = ("status", "state", "phase", "stage", "condition")
_VERBS = (
    ("close", "closed"),
    ("archive", "archived"),
    ("approve", "approved"),
    ("lock", "locked"),
    ("ship", "shipped"),
)


@st.composite
def generated_specs(draw: st.DrawFn) -> dict[str, Any]:
    """A native spec: one collection of records with an id, a status-like enum under a random name, a nested
    object, a nullable field and a count, some of them required; seeded records missing some fields; the
    CRUD tools, a filtered list and a status verb taken from the enum."""
    noun = draw(st.sampled_from(_NOUNS))
    plural = noun + "s"
    status = draw(st.sampled_from(_STATUS_NAMES))
    verbs = draw(st.lists(st.sampled_from(_VERBS), min_size=1, max_size=2, unique=True))
    integer_ids = draw(st.booleans())
    record: dict[str, Any] = {
        "type": "object",
        "properties": {
            "id": {"type": "integer"} if integer_ids else {"type": "string"},
            "title": {"type": "string"},
            status: {"type": "string", "enum": ["draft", *(past for _, past in verbs)]},
            "details": {
                "type": "object",
                "properties": {
                    "size": {"type": "integer", "minimum": 0},
                    "tags": {"type": "array", "items": {"type": "string"}},
                },
            },
            "note": {"type": ["string", "null"]},
            "count": {"type": "integer", "minimum": 0},
        },
    }
    optional = ["title", status, "details", "note", "count"]
    record["required"] = ["id", *draw(st.lists(st.sampled_from(optional), unique=True))]
    seeded: dict[str, Any] = {}
    for index in range(draw(st.integers(0, 3))):
        record_id: Any = index + 1 if integer_ids else f"{noun[0].upper()}-{100 + index}"
        fields = draw(st.lists(st.sampled_from(optional), unique=True))
        value: dict[str, Any] = {"id": record_id}
        for field in fields:
            value[field] = {
                "title": f"{noun} {index}",
                status: "draft",
                "details": {"size": index, "tags": ["a"]},
                "note": None,
                "count": index,
            }[field]
        value["created_at"] = f"2024-0{index + 1}-10T12:00:00Z"
        seeded[str(record_id)] = value
    id_arg = {f"{noun}_id": record["properties"]["id"]}
    listed = {"type": "object", "properties": {plural: {"type": "array", "items": record}}, "required": [plural]}
    tools = [
        {
            "name": f"create_{noun}",
            "input_schema": {
                "type": "object",
                "properties": {"title": {"type": "string"}, "details": record["properties"]["details"]},
                "required": ["title"],
            },
            "output_schema": record,
        },
        {
            "name": f"get_{noun}",
            "input_schema": {"type": "object", "properties": id_arg, "required": [f"{noun}_id"]},
            "output_schema": record,
        },
        {
            "name": f"list_{plural}",
            "input_schema": {
                "type": "object",
                "properties": {
                    status: {"type": "string", "enum": [*record["properties"][status]["enum"], "all"]},
                    "limit": {"type": "integer", "minimum": 1},
                },
            },
            "output_schema": listed,
        },
        {
            "name": f"update_{noun}",
            "input_schema": {
                "type": "object",
                "properties": {**id_arg, "title": {"type": "string"}, "count": {"type": "integer", "minimum": 0}},
                "required": [f"{noun}_id"],
            },
            "output_schema": record,
        },
        {
            "name": f"delete_{noun}",
            "input_schema": {"type": "object", "properties": id_arg, "required": [f"{noun}_id"]},
        },
    ]
    tools += [
        {
            "name": f"{verb}_{noun}",
            "input_schema": {
                "type": "object",
                "properties": {**id_arg, "comment": {"type": "string"}},
                "required": [f"{noun}_id"],
            },
            "output_schema": record,
        }
        for verb, _ in verbs
    ]
    return {"name": "generated", "initial_state": {plural: seeded}, "tools": tools}


_OBJECTS = (
    ("vehicle", {"fuelLevel": 40, "odometer": 1200, "doors": {"locked": False}, "mode": "park"}),
    ("profile", {"displayName": "Ada", "email": "ada@example.com", "newsletter": True}),
    ("thermostat", {"targetTemp": 21.5, "heating": {"on": False, "power": 3}, "fanSpeed": "low"}),
)
_ACTIONS = ("fill", "lock", "toggle", "boost", "reset")


def _schema_of(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"type": "boolean"}
    if isinstance(value, int):
        return {"type": "integer", "minimum": 0, "maximum": 5000}
    if isinstance(value, float):
        return {"type": "number", "minimum": 0, "maximum": 40}
    if isinstance(value, dict):
        return {"type": "object", "properties": {key: _schema_of(item) for key, item in value.items()}}
    return {"type": "string"}


@st.composite
def singleton_specs(draw: st.DrawFn) -> dict[str, Any]:
    """A native spec whose state is singleton objects, not records with ids (a vehicle, a profile, a
    thermostat, some beside a collection of records): a read-only getter per object, a setter per field
    taking the field as its argument, and verbs the engine does not know (`fill_vehicle`) whose output
    schema shows the object's fields."""
    chosen = draw(st.lists(st.sampled_from(_OBJECTS), min_size=1, max_size=3, unique_by=lambda item: item[0]))
    state: dict[str, Any] = {name: dict(value) for name, value in chosen}
    if draw(st.booleans()):
        state["trips"] = {"t1": {"id": "t1", "km": 12, "mode": "drive"}}
    tools: list[dict[str, Any]] = []
    for name, value in chosen:
        schema = _schema_of(value)
        tools.append(
            {
                "name": f"get_{name}",
                "input_schema": {"type": "object"},
                "output_schema": schema,
                "annotations": {"readOnlyHint": True},
            }
        )
        for field, item in value.items():
            if not isinstance(item, dict):
                tools.append(
                    {
                        "name": f"set_{name}_{field}",
                        "input_schema": {
                            "type": "object",
                            "properties": {field: _schema_of(item)},
                            "required": [field],
                        },
                        "output_schema": schema,
                    }
                )
        for action in draw(st.lists(st.sampled_from(_ACTIONS), max_size=2, unique=True)):
            tools.append({"name": f"{action}_{name}", "input_schema": {"type": "object"}, "output_schema": schema})
    return {"name": "generated", "initial_state": state, "tools": tools}


# --- the tests ------------------------------------------------------------------------------------

_settings = settings(
    max_examples=EXAMPLES,
    stateful_step_count=STEPS,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
    derandomize=os.environ.get("CI") is not None,
)


def _run(name: str, machine: type[SessionKeepsWhatItShows]) -> None:
    figures = {"sequences": 0, "calls": 0, "violations": 0}
    machine.figures = figures
    try:
        machine.TestCase.settings = _settings
        machine.TestCase().runTest()
    finally:
        record_figures(f"consistency:{name}", figures)


def _on_file(path: Path) -> type[SessionKeepsWhatItShows]:
    catalog = load_catalog(path)  # once per spec, not per sequence

    class OnFile(SessionKeepsWhatItShows):
        @initialize()
        def start(self) -> None:
            self.open(path, catalog)

    return OnFile


@pytest.mark.parametrize("path", corpus_cases(CORPUS_FILES, lambda path: path.name))
def test_corpus_sessions_keep_what_they_show(path: Path) -> None:
    _run(path.name, _on_file(path))


@pytest.mark.parametrize("path", BUNDLED_FILES, ids=[path.stem for path in BUNDLED_FILES])
def test_bundled_sessions_keep_what_they_show_without_their_programs(path: Path) -> None:
    _run(path.stem, _on_file(path))


def test_tracker_sessions_keep_what_they_show() -> None:
    _run("tracker", _on_file(TRACKER))


def test_generated_spec_sessions_keep_what_they_show(tmp_path_factory: pytest.TempPathFactory) -> None:
    folder = tmp_path_factory.mktemp("generated-specs")

    class OnGenerated(SessionKeepsWhatItShows):
        @initialize(spec=generated_specs())
        def start(self, spec: dict[str, Any]) -> None:
            path = folder / f"spec-{self.figures['sequences']}.yaml"
            path.write_text(json.dumps(spec))
            self.open(path)

    _run("generated", OnGenerated)


def test_singleton_spec_sessions_keep_what_they_show(tmp_path_factory: pytest.TempPathFactory) -> None:
    folder = tmp_path_factory.mktemp("singleton-specs")

    class OnSingletons(SessionKeepsWhatItShows):
        @initialize(spec=singleton_specs())
        def start(self, spec: dict[str, Any]) -> None:
            path = folder / f"spec-{self.figures['sequences']}.yaml"
            path.write_text(json.dumps(spec))
            self.open(path)

    _run("singletons", OnSingletons)
