"""What a session shows, it keeps: the issue-tracker scenario (an OpenAPI file with a native wrapper, served
by the default offline engine) through a real client, and the engine's repair of any backend's outcome."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mcp.client import Client

from sim_mcp.config import Settings
from sim_mcp.engine.clock import world_start
from sim_mcp.engine.consistency import findings, keep_promises
from sim_mcp.engine.contract import Outcome
from sim_mcp.runtime import Runtime
from sim_mcp.server.context import ServerContext
from sim_mcp.server.mcp import SessionRouting, build_mcp_server
from sim_mcp.specs.model import ToolAnnotations, ToolSpec
from sim_mcp.specs.registry import load_catalog
from sim_mcp.specs.stamps import latest_timestamp
from sim_mcp.specs.writer import environment_yaml
from sim_mcp.state.session import SessionRecord
from sim_mcp.testing import FakeProvider, reply_outcome, scripted

TRACKER = Path(__file__).parent / "tracker" / "tracker.yaml"
SESSION = "tracker"


class Tracker:
    """A client session on the tracker, and a look at the state it leaves."""

    def __init__(self, client: Client, runtime: Runtime) -> None:
        self.client = client
        self.runtime = runtime

    async def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        answer = await self.client.call_tool(tool, arguments)
        text = answer.content[0].text  # type: ignore[union-attr]
        if answer.is_error:
            return {"is_error": True, "text": text}
        return answer.structured_content if answer.structured_content is not None else json.loads(text)

    async def state(self) -> Any:
        record = await self.runtime.sessions.get(SESSION)
        assert record is not None
        return self.runtime.simulator.world_of(record, "tracker")


@asynccontextmanager
async def open_tracker() -> AsyncIterator[Tracker]:
    catalog = load_catalog(TRACKER)
    assert catalog.errors == ()
    async with Runtime(Settings(specs=[TRACKER], watch=False), catalog=catalog) as runtime:
        server = build_mcp_server(ServerContext(runtime), SessionRouting(process_session=SESSION))
        async with Client(server) as client:
            yield Tracker(client, runtime)


def _issues(listed: Any) -> list[dict[str, Any]]:
    issues = listed["result"]
    assert isinstance(issues, list)
    return issues


async def test_a_created_issue_reads_back_as_created_with_later_only_fields_null() -> None:
    async with open_tracker() as tracker:
        created = await tracker.call("createIssue", {"title": "Export fails", "labels": ["bug"]})
        assert created["assignee"] is None
        assert created["comments"] == 0
        assert created["state"] == "open"
        assert created["closed_at"] is None
        assert created["state_reason"] is None
        assert await tracker.call("getIssue", {"issue_id": created["id"]}) == created
        stored = (await tracker.state())["issues"][str(created["id"])]
        assert {key: stored[key] for key in created} == created


async def test_lists_show_only_stored_records_and_fill_a_missing_field_once() -> None:
    async with open_tracker() as tracker:
        first = _issues(await tracker.call("listIssues", {"state": "all"}))
        assert sorted(issue["id"] for issue in first) == [1, 3]
        crash = next(issue for issue in first if issue["id"] == 3)
        assert crash["title"] == "Crash on save"
        again = _issues(await tracker.call("listIssues", {"state": "all"}))
        assert again == first
        assert await tracker.call("getIssue", {"issue_id": 3}) == crash
        stored = (await tracker.state())["issues"]["3"]
        assert stored["comments"] == crash["comments"]
        assert "assignee" in stored


async def test_close_with_a_comment_sets_the_schema_state_and_keeps_the_issue() -> None:
    async with open_tracker() as tracker:
        closed = await tracker.call("closeIssue", {"issue_id": 1, "comment": "Fixed in 1.2.3"})
        assert closed["state"] == "closed"
        assert closed["comments"] == 3  # the seeded issue had 2: the comment is counted where the schema keeps it
        assert closed["closed_at"] is not None
        assert await tracker.call("getIssue", {"issue_id": 1}) == closed
        assert [issue["id"] for issue in _issues(await tracker.call("listIssues", {"state": "closed"}))] == [1]
        assert [issue["id"] for issue in _issues(await tracker.call("listIssues", {}))] == [3]  # default: open
        again = await tracker.call("closeIssue", {"issue_id": 1})
        assert again["is_error"]
        assert "already closed" in again["text"]


async def test_only_delete_removes() -> None:
    async with open_tracker() as tracker:
        assert (await tracker.call("deleteIssue", {"issue_id": 3})).get("is_error") is not True
        gone = await tracker.call("getIssue", {"issue_id": 3})
        assert gone["is_error"]
        assert "not found" in gone["text"]
        assert "3" not in (await tracker.state())["issues"]


async def test_a_filter_applies_to_the_field_it_names() -> None:
    async with open_tracker() as tracker:
        await tracker.call("createIssue", {"title": "Docs typo", "labels": ["docs"]})
        bugs = _issues(await tracker.call("listIssues", {"label": "bug", "state": "all"}))
        assert [issue["id"] for issue in bugs] == [3]
        assert _issues(await tracker.call("listIssues", {"assignee": "nobody", "state": "all"})) == []


async def test_new_records_are_dated_after_the_seeded_world_and_time_moves_on() -> None:
    async with open_tracker() as tracker:
        seeded = latest_timestamp(load_catalog(TRACKER).environment("tracker").initial_state)  # type: ignore[union-attr]
        assert seeded is not None
        first = await tracker.call("createIssue", {"title": "One"})
        second = await tracker.call("createIssue", {"title": "Two"})
        one, two = (datetime.fromisoformat(issue["created_at"].replace("Z", "+00:00")) for issue in (first, second))
        assert seeded < one < two
        assert (one - seeded).days < 1


async def test_a_session_seeded_with_its_own_world_is_dated_after_it() -> None:
    later = {"id": 7, "title": "From the future", "state": "open", "created_at": "2031-06-01T09:30:00Z"}
    async with open_tracker() as tracker:
        record = await tracker.runtime.sessions.create(
            session_id=SESSION, env="tracker", state={"issues": {"7": later}}
        )
        # Found once, when the session is created, not on every call.
        assert record.seeded_stamps == {"tracker": datetime(2031, 6, 1, 9, 30, tzinfo=UTC)}
        created = await tracker.call("createIssue", {"title": "One"})
        assert created["created_at"] > "2031-06-01T09:30:00Z"
        assert created["created_at"] < "2031-06-02"


def test_a_record_kept_before_its_seeded_stamps_were_still_dates_after_its_world() -> None:
    world = {"issues": {"7": {"id": 7, "created_at": "2031-06-01T09:30:00Z"}, "8": {"id": 8}}}
    older = SessionRecord.model_validate({"id": "old", "initial_worlds": {"tracker": world}})
    assert older.seeded_stamps == {}
    assert older.seeded_stamp("tracker") == datetime(2031, 6, 1, 9, 30, tzinfo=UTC)
    assert older.seeded_stamp("bank") is None
    kept = SessionRecord.model_validate({"id": "new", "seeded_stamps": {"tracker": None}})
    assert kept.seeded_stamp("tracker") is None


def test_a_spec_naming_now_starts_there(tmp_path: Path) -> None:
    spec = tmp_path / "dated.yaml"
    spec.write_text(
        "name: dated\nnow: '2026-01-05T08:00:00+02:00'\n"
        "initial_state: {notes: {n1: {id: n1, created_at: '2030-01-01T00:00:00Z'}}}\n"
    )
    catalog = load_catalog(spec)
    assert catalog.errors == ()
    environment = catalog.environment("dated")
    assert environment is not None
    assert environment.now == "2026-01-05T06:00:00Z"
    assert (
        world_start(environment, latest_timestamp({"notes": {"n2": {"created_at": "2040-01-01"}}}))
        .isoformat()
        .startswith("2026-01-05T06:00")
    )
    assert "now: '2026-01-05T06:00:00Z'" in environment_yaml(environment)  # written back as read
    spec.write_text("name: dated\nnow: next tuesday\ntools: []\n")
    (error,) = load_catalog(spec).errors
    assert "now must be an ISO 8601 date" in str(error)
    assert "'next tuesday'" in str(error)


def test_a_spec_naming_its_date_starts_there() -> None:
    catalog = load_catalog(Path(__file__).parents[1] / "tool_specs" / "bank.yaml")
    assert world_start(catalog.environment("bank")).isoformat().startswith("2025-03-14T10:00")  # type: ignore[arg-type]


# --- the engine's repair, for any backend -------------------------------------------------------


def _tool(name: str, description: str = "", *, read_only: bool | None = None) -> ToolSpec:
    annotations = ToolAnnotations(readOnlyHint=read_only) if read_only is not None else None
    return ToolSpec(name=name, description=description, annotations=annotations)


NOTES = {"notes": {"n1": {"id": "n1", "text": "milk", "pinned": False}}}


def test_a_shown_value_the_patch_does_not_store_is_stored() -> None:
    outcome = Outcome(result={"id": "n1", "text": "milk", "pinned": True}, state_patch=[])
    kept = keep_promises(outcome, _tool("pin_note"), NOTES, NOTES)
    assert not isinstance(kept, str)
    repaired, state = kept
    assert state["notes"]["n1"]["pinned"] is True
    assert repaired.state_patch == [{"op": "replace", "path": "/notes/n1/pinned", "value": True}]
    assert NOTES["notes"]["n1"]["pinned"] is False  # the state given is untouched


def test_a_created_record_the_patch_forgot_is_added() -> None:
    outcome = Outcome(result={"note": {"id": "n2", "text": "eggs"}}, state_patch=[])
    kept = keep_promises(outcome, _tool("create_note"), NOTES, NOTES)
    assert not isinstance(kept, str)
    assert kept[1]["notes"]["n2"] == {"id": "n2", "text": "eggs"}


def test_a_read_showing_a_record_the_state_lacks_cannot_be_repaired() -> None:
    outcome = Outcome(result={"notes": [{"id": "n1", "text": "milk"}, {"id": "n9", "text": "invented"}]})
    kept = keep_promises(outcome, _tool("list_notes"), NOTES, NOTES)
    assert isinstance(kept, str)
    assert "'n9'" in kept
    assert findings({"id": "n1", "text": "milk"}, _tool("get_note"), NOTES, NOTES) == []


async def test_the_simulator_repairs_or_asks_again(tmp_path: Path) -> None:
    spec = tmp_path / "notes.yaml"
    spec.write_text(
        "name: notes\ninitial_state: " + json.dumps(NOTES) + "\ntools:\n"
        "  - {name: list_notes, input_schema: {type: object}}\n"
        "  - {name: pin_note, input_schema: {type: object, properties: {note_id: {type: string}}}}\n"
    )
    invented = Outcome(result={"notes": [{"id": "n9", "text": "invented"}]})
    honest = Outcome(result={"notes": [{"id": "n1", "text": "milk"}]})
    unsaved = Outcome(result={"id": "n1", "pinned": True})
    backend = scripted(invented, honest, unsaved)
    settings = Settings(specs=[spec], watch=False, max_attempts=2)
    async with Runtime(settings, backend=backend) as runtime:
        listed = await runtime.simulator.call("s", "list_notes", {})
        assert listed.result == honest.result
        assert len(backend.requests) == 2
        assert listed.event is not None
        assert "'n9'" in listed.event.rejected[0]
        pinned = await runtime.simulator.call("s", "pin_note", {"note_id": "n1"})
        assert not pinned.is_error
        record = await runtime.sessions.get("s")
        assert record is not None
        assert runtime.simulator.world_of(record, "notes")["notes"]["n1"]["pinned"] is True


CAR = {
    "vehicle": {"fuelLevel": 40, "doors": {"locked": False}, "trunk": {"locked": True}, "status": "parked"},
    "trips": {"t1": {"id": "t1", "km": 12}},
}


def test_a_singleton_field_a_changing_tool_shows_is_stored() -> None:
    filled = Outcome(result={"fuelLevel": 100, "message": "Tank filled"}, state_patch=[])
    kept = keep_promises(filled, _tool("fillFuelTank"), CAR, CAR)
    assert not isinstance(kept, str)
    assert kept[1]["vehicle"]["fuelLevel"] == 100
    assert kept[0].state_patch == [{"op": "replace", "path": "/vehicle/fuelLevel", "value": 100}]
    # `locked` is ambiguous alone (doors and trunk); the key path above it singles the doors out.
    locked = keep_promises(Outcome(result={"doors": {"locked": True}}), _tool("lockDoors"), CAR, CAR)
    assert not isinstance(locked, str)
    assert locked[1]["vehicle"]["doors"]["locked"] is True
    assert locked[1]["vehicle"]["trunk"]["locked"] is True


def test_a_singleton_match_is_conservative() -> None:
    # A generic key the tool's name does not point at, an ambiguous key, another type: no match.
    for result in ({"status": "ok"}, {"locked": True}, {"fuelLevel": "full"}):
        assert findings(result, _tool("honk"), CAR, CAR) == [], result
    # A record's fields are matched by id, not by name.
    assert findings({"km": 99}, _tool("honk"), CAR, CAR) == []
    # The tool's arguments may point at the object.
    pointed = findings({"status": "moving"}, _tool("honk"), CAR, CAR, arguments={"vehicle_id": "v1"})
    moved = [{"op": "replace", "path": "/vehicle/status", "value": "moving"}]
    assert [finding.repair for finding in pointed] == [moved]


def test_a_read_showing_a_singleton_value_the_state_contradicts_is_asked_again() -> None:
    shown = Outcome(result={"fuelLevel": 75})
    kept = keep_promises(shown, _tool("getFuelLevel"), CAR, CAR)
    assert isinstance(kept, str)
    assert "vehicle/fuelLevel=75" in kept
    assert "holds 40" in kept
    hinted = keep_promises(shown, _tool("fuelGauge", read_only=True), CAR, CAR)
    assert isinstance(hinted, str)
    # A name that says nothing is read from its description, as the offline engine reads it.
    described = keep_promises(shown, _tool("fuelGauge", "Show the current fuel level."), CAR, CAR)
    assert isinstance(described, str)
    assert "holds 40" in described
    # Without a hint or a description saying it reads, it may be a change, and the shown value is stored.
    stored = keep_promises(shown, _tool("fuelGauge"), CAR, CAR)
    assert not isinstance(stored, str)
    assert stored[1]["vehicle"]["fuelLevel"] == 75
    assert keep_promises(Outcome(result={"fuelLevel": 40}), _tool("getFuelLevel"), CAR, CAR) == (
        Outcome(result={"fuelLevel": 40}),
        CAR,
    )


VEHICLE_SPEC = """\
name: car
initial_state: {vehicle: {fuelLevel: 40, doors: {locked: false}, odometer: 1200}}
tools:
  - name: fillFuelTank
    description: Fill the vehicle's fuel tank.
    input_schema: {type: object}
  - name: getVehicleStatus
    description: The vehicle's fuel level, doors and odometer.
    input_schema: {type: object}
    annotations: {readOnlyHint: true}
"""


async def test_a_model_filling_the_tank_with_an_empty_patch_is_read_back(tmp_path: Path, fake: FakeProvider) -> None:
    """A model in patch mode answers a changing call with the new value and no patch (as models do on real
    benchmarks); the shown value is stored, and a later read showing the stale value is asked again."""
    spec = tmp_path / "car.yaml"
    spec.write_text(VEHICLE_SPEC)
    fake.script(
        reply_outcome({"fuelLevel": 100, "message": "Tank filled"}),
        reply_outcome({"vehicle": {"fuelLevel": 40, "doors": {"locked": False}}}),  # stale: asked again
        reply_outcome({"vehicle": {"fuelLevel": 100, "doors": {"locked": False}}}),
    )
    settings = Settings(specs=[spec], watch=False, backend="openai", model="sim-1", base_url=fake.openai_url)
    async with Runtime(settings) as runtime:
        server = build_mcp_server(ServerContext(runtime), SessionRouting(process_session="car"))
        async with Client(server) as client:
            filled = await client.call_tool("fillFuelTank", {})
            assert not filled.is_error, filled.content
            status = await client.call_tool("getVehicleStatus", {})
            assert not status.is_error, status.content
            shown = json.loads(status.content[0].text)  # type: ignore[union-attr]
            assert shown == {"vehicle": {"fuelLevel": 100, "doors": {"locked": False}}}
        record = await runtime.sessions.get("car")
        assert record is not None
        assert runtime.simulator.world_of(record, "car")["vehicle"]["fuelLevel"] == 100
    prompts = [str(request.body) for request in fake.posts("/chat/completions")]
    assert len(prompts) == 3
    assert "fuelLevel=40" in prompts[2], "the retry says what the read contradicted"


async def test_the_offline_engine_keeps_singleton_state(tmp_path: Path) -> None:
    spec = tmp_path / "car.yaml"
    spec.write_text(
        "name: car\ninitial_state: {vehicle: {fuelLevel: 40, mode: park}}\ntools:\n"
        "  - {name: set_vehicle_mode, input_schema: {type: object, properties: {mode: {type: string}}}}\n"
        "  - name: get_vehicle\n    input_schema: {type: object}\n"
        "    output_schema: {type: object, properties: {fuelLevel: {type: integer}, mode: {type: string}}}\n"
    )
    async with Runtime(Settings(specs=[spec], watch=False)) as runtime:
        server = build_mcp_server(ServerContext(runtime), SessionRouting(process_session="car"))
        async with Client(server) as client:
            await client.call_tool("set_vehicle_mode", {"mode": "drive"})
            read = await client.call_tool("get_vehicle", {})
            assert read.structured_content == {"fuelLevel": 40, "mode": "drive"}


async def test_a_description_gives_the_intent_a_name_lacks(tmp_path: Path) -> None:
    spec = tmp_path / "desk.yaml"
    issue = {"type": "object", "properties": {"issue_id": {"type": "string"}}, "required": ["issue_id"]}
    record = {
        "type": "object",
        "properties": {"id": {"type": "string"}, "status": {"type": "string", "enum": ["open", "closed"]}},
    }
    tools = [
        {"name": "resolve", "description": "Close the issue.", "input_schema": issue, "output_schema": record},
        {"name": "finalize", "description": "Finalises the issue.", "input_schema": issue},
        {"name": "discard", "description": "Removes the issue for good.", "input_schema": issue},
    ]
    state = {"issues": {"i1": {"id": "i1", "status": "open"}, "i2": {"id": "i2", "status": "open"}}}
    spec.write_text(json.dumps({"name": "desk", "initial_state": state, "tools": tools}))
    async with Runtime(Settings(specs=[spec], watch=False)) as runtime:
        server = build_mcp_server(ServerContext(runtime), SessionRouting(process_session="desk"))
        async with Client(server) as client:
            resolved = await client.call_tool("resolve", {"issue_id": "i1"})
            assert resolved.structured_content is not None
            assert resolved.structured_content["status"] == "closed"
            await client.call_tool("finalize", {"issue_id": "i2"})
            record_after = await runtime.sessions.get("desk")
            assert record_after is not None
            kept = runtime.simulator.world_of(record_after, "desk")["issues"]
            assert kept == {"i1": {"id": "i1", "status": "closed", **_stamps(kept["i1"])}, "i2": state["issues"]["i2"]}
            await client.call_tool("discard", {"issue_id": "i2"})
        record_after = await runtime.sessions.get("desk")
        assert record_after is not None
        assert list(runtime.simulator.world_of(record_after, "desk")["issues"]) == ["i1"]


def _stamps(record: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in record.items() if key not in ("id", "status")}
