"""The offline simulator: deterministic, schema-valid, and state-aware on every bundled environment."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from sim_mcp.config import Settings
from sim_mcp.engine.intent import find_collection, split_words
from sim_mcp.engine.schema_data import generate
from sim_mcp.runtime import Runtime
from sim_mcp.specs.registry import Tool, load_catalog
from tests.servers import BUNDLED_SPECS

# (environment, create, create arguments, get, id argument, update, update arguments, end, end arguments, after end)
# "after end" is either "not_found" or the status the record must then have.
Scenario = tuple[str, str, dict[str, Any], str, str, str | None, dict[str, Any], str | None, dict[str, Any], str | None]
SCENARIOS: list[Scenario] = [
    (
        "tickets",
        "create_ticket",
        {"title": "VPN drops", "description": "Every 5 minutes.", "customer_email": "a@b.example"},
        "get_ticket",
        "ticket_id",
        "update_ticket",
        {"priority": "high", "status": "pending"},
        "close_ticket",
        {},
        "closed",
    ),
    (
        "tickets",
        "add_comment",
        {"ticket_id": "T-1001", "body": "Looking into it.", "author": "dev.patel@brightlane.example"},
        "get_comment",
        "comment_id",
        None,
        {},
        None,
        {},
        None,
    ),
    (
        "calendar",
        "create_event",
        {
            "calendar_id": "CAL-1",
            "title": "Retro",
            "start_time": "2026-03-02T10:00:00Z",
            "end_time": "2026-03-02T11:00:00Z",
        },
        "get_event",
        "event_id",
        "reschedule_event",
        {"start_time": "2026-03-03T10:00:00Z", "end_time": "2026-03-03T11:00:00Z"},
        "cancel_event",
        {},
        "cancelled",
    ),
    (
        "shop",
        "create_order",
        {"customer_id": "CUS-101", "items": [{"product_id": "PRD-1001", "quantity": 1}]},
        "get_order",
        "order_id",
        "update_order",
        {"status": "paid"},
        "cancel_order",
        {"cancellation_reason": "changed mind"},
        "cancelled",
    ),
    (
        "bank",
        "create_transfer",
        {"from_account_id": "ACC-1001", "to_account_id": "ACC-1002", "amount": 25.5},
        "get_transfer",
        "transfer_id",
        None,
        {},
        None,
        {},
        None,
    ),
]


@pytest.fixture
async def runtime() -> Any:
    # The generic engine itself, not the bundled environments' rules programs (tests/test_rules.py).
    async with Runtime(Settings(specs=[BUNDLED_SPECS], run_rules=False)) as runtime:
        yield runtime


def assert_fits(tool: Tool, result: Any) -> None:
    if tool.output_validator is not None:
        errors = [error.message for error in tool.output_validator.iter_errors(result)]
        assert not errors, f"{tool.name}: {errors}"


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[f"{s[0]}-{s[1]}" for s in SCENARIOS])
async def test_crud_scenario(runtime: Runtime, scenario: tuple[Any, ...]) -> None:
    env, create, create_args, get, id_arg, update, update_args, end, end_args, after_end = scenario
    simulator = runtime.simulator
    session = f"scenario-{env}-{create}"

    created = await simulator.call(session, create, create_args)
    assert not created.is_error, created.result
    record_id = created.result["id"]
    for name, value in create_args.items():
        assert created.result[name] == value

    fetched = await simulator.call(session, get, {id_arg: record_id})
    assert not fetched.is_error
    assert fetched.result == created.result

    if update is not None:
        updated = await simulator.call(session, update, {id_arg: record_id, **update_args})
        assert not updated.is_error, updated.result
        again = await simulator.call(session, get, {id_arg: record_id})
        for name, value in update_args.items():
            assert again.result[name] == value
    if end is not None:
        ended = await simulator.call(session, end, {id_arg: record_id, **end_args})
        assert not ended.is_error, ended.result
        final = await simulator.call(session, get, {id_arg: record_id})
        if after_end == "not_found":
            assert final.is_error
            assert final.result["error"] == "not_found"
        else:
            assert final.result["status"] == after_end
            repeated = await simulator.call(session, end, {id_arg: record_id, **end_args})
            assert repeated.is_error, "ending a record twice must fail, as a real service would"

    missing = await simulator.call(session, get, {id_arg: re.sub(r"\d+$", "99999", record_id)})
    assert missing.is_error
    assert missing.result["error"] == "not_found"
    for tool in runtime.catalog.tools_of(env):
        for result in (created, fetched):
            if tool.name in (create, get):
                assert_fits(tool, result.result)


async def test_created_records_continue_the_id_sequence(runtime: Runtime) -> None:
    args = {"title": "t", "description": "d", "customer_email": "c@d.example"}
    first = await runtime.simulator.call("ids", "create_ticket", args)
    second = await runtime.simulator.call("ids", "create_ticket", args)
    existing = sorted(runtime.catalog.environments["tickets"].initial_state["tickets"])
    last_number = int(existing[-1].split("-")[1])
    assert first.result["id"] == f"T-{last_number + 1}"
    assert second.result["id"] == f"T-{last_number + 2}"


async def test_delete_then_get_is_not_found(tmp_path: Any) -> None:
    (tmp_path / "notes.yaml").write_text(
        "name: notes\ninitial_state: {notes: {n1: {id: n1, text: hello}}}\ntools:\n"
        "  - {name: get_note, input_schema: &by_id {type: object, properties: {note_id: {type: string}}}}\n"
        "  - {name: delete_note, input_schema: *by_id}\n"
        "  - {name: list_notes, input_schema: {type: object}}\n"
    )
    async with Runtime(Settings(specs=[tmp_path])) as runtime:
        deleted = await runtime.simulator.call("s", "delete_note", {"note_id": "n1"})
        assert deleted.result == {"id": "n1", "deleted": True}
        assert deleted.event is not None
        assert deleted.event.state_patch == [{"op": "remove", "path": "/notes/n1"}]
        gone = await runtime.simulator.call("s", "get_note", {"note_id": "n1"})
        assert gone.is_error
        listed = await runtime.simulator.call("s", "list_notes", {})
        assert listed.result["notes"] == []


def arguments_for(tool: Tool, state: dict[str, Any]) -> dict[str, Any]:
    """Schema-generated arguments, with id arguments pointing at records that exist."""
    arguments: dict[str, Any] = generate(tool.spec.input_schema, tool.name)
    for name in tool.spec.input_schema.get("properties", {}):
        if name.endswith("_id"):
            collection = find_collection(state, tuple(split_words(name.removesuffix("_id"))))
            if collection is not None and isinstance(collection.records, dict) and collection.records:
                arguments[name] = next(iter(collection.records))
    return arguments


async def test_every_bundled_tool_answers_with_a_schema_valid_result(runtime: Runtime) -> None:
    for tool in runtime.catalog.tools.values():
        state = tool.environment.initial_state
        arguments = arguments_for(tool, state)
        assert tool.input_validator.is_valid(arguments), (tool.name, arguments)
        outcome = await runtime.simulator.call(f"every-{tool.environment.name}", tool.name, arguments)
        if not outcome.is_error:
            assert_fits(tool, outcome.result)
        assert outcome.event is not None
        assert outcome.event.backend == "offline"


async def test_same_seed_state_and_call_give_the_same_outcome() -> None:
    calls: list[tuple[str, dict[str, Any]]] = [
        ("create_ticket", {"title": "a", "description": "b", "customer_email": "c@d.example"}),
        ("list_tickets", {"status": "open", "limit": 2}),
        ("get_account", {"account_id": "ACC-1001"}),
    ]
    runs = []
    for _ in range(2):
        async with Runtime(Settings(specs=[BUNDLED_SPECS], seed=7, run_rules=False)) as runtime:
            runs.append([(await runtime.simulator.call("s", name, args)).result for name, args in calls])
    assert runs[0] == runs[1]


_FORECAST = (
    "name: weather\ninitial_state: {stations: {}}\ntools:\n"
    "  - name: forecast\n    input_schema: {type: object, properties: {city: {type: string}}}\n"
    "    output_schema: {type: object, properties: {temperature_c: {type: number, minimum: -40, maximum: 50},"
    " summary: {type: string}, when: {type: string, format: date-time}}, required: [temperature_c, summary]}\n"
)


@pytest.mark.parametrize(
    ("annotations", "settings"),
    [("    annotations: {readOnlyHint: true}\n", {}), ("", {"offline_unknown": "generate"})],
    ids=["read-only", "generate"],
)
async def test_a_tool_with_no_inferable_meaning_that_reads_gets_schema_valid_data_and_no_state_change(
    tmp_path: Any, annotations: str, settings: dict[str, Any]
) -> None:
    (tmp_path / "weather.yaml").write_text(_FORECAST + annotations)
    async with Runtime(Settings(specs=[tmp_path], **settings)) as runtime:
        outcome = await runtime.simulator.call("s", "forecast", {"city": "Oslo"})
        assert not outcome.is_error
        assert runtime.catalog.tools["forecast"].output_validator is not None
        assert runtime.catalog.tools["forecast"].output_validator.is_valid(outcome.result)
        assert outcome.event is not None
        assert outcome.event.state_patch == []
        assert "state unchanged" in str(outcome.event.note)
        again = await runtime.simulator.call("s", "forecast", {"city": "Oslo"})
        assert again.result == outcome.result


async def test_a_tool_with_no_inferable_meaning_that_may_write_gets_an_honest_error(tmp_path: Any) -> None:
    (tmp_path / "weather.yaml").write_text(_FORECAST)
    async with Runtime(Settings(specs=[tmp_path])) as runtime:
        outcome = await runtime.simulator.call("s", "forecast", {"city": "Oslo"})
        assert (outcome.is_error, outcome.kind, outcome.result["error"]) == (True, "error", "not_simulated")
        assert "rules init" in outcome.result["message"]
        assert "LLM backend" in outcome.result["message"]
        assert outcome.event is not None
        assert outcome.event.state_patch == []


def test_bundled_catalog_is_what_the_scenarios_use() -> None:
    catalog = load_catalog(BUNDLED_SPECS)
    for scenario in SCENARIOS:
        for name in (scenario[1], scenario[3], scenario[5], scenario[7]):
            assert name is None or catalog.tool(name, scenario[0]) is not None, name


# --- meaning from the schema --------------------------------------------------------------------------

_PROJECT = {
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "name": {"type": "string"},
        "phase": {"type": "string", "enum": ["planning", "active", "archived", "locked"]},
        "archive_reason": {"type": ["string", "null"]},
        "notes": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["id", "name", "phase"],
}


def _project_spec(tmp_path: Any) -> Any:
    tools = [
        {"name": name, "input_schema": {"type": "object", "properties": props}, "output_schema": _PROJECT}
        for name, props in (
            (
                "archive_project",
                {"project_id": {"type": "string"}, "reason": {"type": "string"}, "note": {"type": "string"}},
            ),
            ("lock_project", {"project_id": {"type": "string"}}),
            ("get_project", {"project_id": {"type": "string"}}),
        )
    ]
    tools.append(
        {"name": "remove_project", "input_schema": {"type": "object", "properties": {"project_id": {"type": "string"}}}}
    )
    state = {"projects": {"P-1": {"id": "P-1", "name": "Apollo", "phase": "active", "notes": []}}}
    path = tmp_path / "projects.yaml"
    path.write_text(json.dumps({"name": "projects", "initial_state": state, "tools": tools}))
    return path


async def test_a_status_verb_moves_the_enum_field_of_any_name_and_stores_its_arguments(tmp_path: Any) -> None:
    async with Runtime(Settings(specs=[_project_spec(tmp_path)])) as runtime:
        call = runtime.simulator.call
        archived = await call("s", "archive_project", {"project_id": "P-1", "reason": "done", "note": "shipped"})
        assert not archived.is_error, archived.result
        assert archived.result["phase"] == "archived"
        assert archived.result["archive_reason"] == "done"  # the reason in the field named for it
        assert archived.result["notes"] == ["shipped"]  # a note added to the notes
        assert (await call("s", "get_project", {"project_id": "P-1"})).result == archived.result
        # `lock` is no verb the engine knows: the schema's enum offers `locked`, so it sets the phase.
        locked = await call("s", "lock_project", {"project_id": "P-1"})
        assert locked.result["phase"] == "locked"
        removed = await call("s", "remove_project", {"project_id": "P-1"})
        assert not removed.is_error
        assert (await call("s", "get_project", {"project_id": "P-1"})).is_error
