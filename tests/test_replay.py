"""Record and replay: a session recorded against the fake provider (the real `openai` SDK on 127.0.0.1),
then replayed by a fresh server from the cassette with no provider request, giving identical results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp.client import Client

from sim_mcp.config import Settings
from sim_mcp.engine.backends import load_backend
from sim_mcp.engine.backends.replay import ReplayBackend
from sim_mcp.errors import ConfigError
from sim_mcp.runtime import Runtime
from sim_mcp.testing import FakeProvider, reply_outcome, reply_text
from tests.helpers_server import NEW_TICKET, app_server
from tests.servers import BUNDLED_SPECS, NOTES_SPEC

NOTES = (
    NOTES_SPEC
    + """  - name: random_fact
    input_schema: {type: object, properties: {}}
"""
)

MILK = {"id": "n1", "text": "buy milk"}
EGGS = {"id": "n2", "text": "buy eggs"}
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("create_note", {"text": "buy milk"}),
    ("get_note", {"note_id": "n1"}),
    ("create_note", {"text": "buy eggs"}),
    ("get_note", {"note_id": "n9"}),
    ("random_fact", {}),
    ("random_fact", {}),  # the same situation again, answered differently: replayed in order
]


def script(fake: FakeProvider) -> None:
    fake.script(
        reply_outcome(MILK, state_patch=[{"op": "add", "path": "/notes/n1", "value": MILK}]),
        reply_outcome(MILK),
        reply_text("not json at all"),  # rejected by the simulator, asked again: never recorded
        reply_outcome(EGGS, state_patch=[{"op": "add", "path": "/notes/n2", "value": EGGS}]),
        # get_note n9 asks no model: a note the state lacks is not found, decided by the engine.
        reply_outcome("Octopuses have three hearts."),
        reply_outcome("Honey never spoils."),
    )


@pytest.fixture
def specs(tmp_path: Path) -> Path:
    folder = tmp_path / "specs"
    folder.mkdir()
    (folder / "notes.yaml").write_text(NOTES)
    return folder


def openai(fake: FakeProvider) -> dict[str, Any]:
    return {"backend": "openai", "base_url": fake.openai_url, "model": "sim-1"}


async def run(base: str, session: str, calls: list[tuple[str, dict[str, Any]]] = CALLS) -> dict[str, Any]:
    """Drive `calls` in `session`; everything the agent got, and the session's final state."""
    results = []
    async with Client(f"{base}/mcp?session={session}") as client:
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            text = [block.text for block in result.content]  # type: ignore[union-attr]
            results.append({"text": text, "structured": result.structured_content, "is_error": result.is_error})
    async with httpx.AsyncClient(base_url=base) as http:
        session_view = (await http.get(f"/sessions/{session}")).json()
        events = (await http.get(f"/sessions/{session}/events")).json()["events"]
    return {"results": results, "state": session_view["state"], "events": events}


async def test_record_then_replay_gives_identical_results_with_no_provider_request(
    fake: FakeProvider, specs: Path, tmp_path: Path
) -> None:
    cassette = tmp_path / "run.cassette.jsonl"
    fake.reset()
    script(fake)
    with app_server(watch=False, specs=[specs], record=cassette, **openai(fake)) as base:
        recorded = await run(base, "episode-1")
    assert len(fake.posts("/chat/completions")) == 6
    assert [r["is_error"] for r in recorded["results"]] == [False, False, False, True, False, False]
    assert recorded["results"][4]["text"] != recorded["results"][5]["text"]

    entries = [json.loads(line) for line in cassette.read_text().splitlines()]
    assert len(entries) == len(CALLS), "one entry per committed outcome; the rejected reply is not recorded"
    assert [entry["tool"] for entry in entries] == [name for name, _ in CALLS]
    assert {entry["environment"] for entry in entries} == {"notes"}
    assert {entry["session"] for entry in entries} == {"episode-1"}
    assert entries[0]["outcome"] == {
        "result": MILK,
        "is_error": False,
        "state_patch": [{"op": "add", "path": "/notes/n1", "value": MILK}],
    }
    assert entries[4]["key"] == entries[5]["key"], "same tool, arguments and state: the same situation"
    assert len({entry["key"] for entry in entries}) == 5

    fake.reset()
    with app_server(watch=False, specs=[specs], backend="replay", cassette=cassette) as base:
        replayed = await run(base, "episode-1")
    assert fake.requests == []
    assert replayed["results"] == recorded["results"]
    assert replayed["state"] == recorded["state"]
    assert [e["state_patch"] for e in replayed["events"]] == [e["state_patch"] for e in recorded["events"]]
    assert {e["backend"] for e in replayed["events"]} == {"replay"}
    assert {e["note"] for e in replayed["events"]} == {"replayed from the cassette"}
    assert all(e["tokens"] == {"input": 0, "output": 0, "cached": 0} for e in replayed["events"])

    # Another session id meets the same situations: the answers recorded for any session, in order.
    fake.reset()
    with app_server(watch=False, specs=[specs], backend="replay", cassette=cassette) as base:
        other = await run(base, "episode-2")
    assert fake.requests == []
    assert other["results"] == recorded["results"]


async def test_a_call_the_cassette_lacks_is_an_error_result(fake: FakeProvider, specs: Path, tmp_path: Path) -> None:
    cassette = tmp_path / "short.jsonl"
    fake.reset()
    script(fake)
    with app_server(watch=False, specs=[specs], record=cassette, **openai(fake)) as base:
        await run(base, "short", CALLS[:1])
    fake.reset()
    with app_server(watch=False, specs=[specs], backend="replay", cassette=cassette) as base:
        replayed = await run(base, "short", [*CALLS[:1], ("get_note", {"note_id": "n1"})])
    assert fake.requests == []
    miss = replayed["results"][1]
    assert miss["is_error"]
    (text,) = miss["text"]
    assert "cassette" in text
    assert "'get_note'" in text
    assert "'notes'" in text
    assert "--replay-fallback" in text
    assert replayed["state"] == {"notes": {"notes": {"n1": MILK}}}, "a miss changes nothing"
    assert replayed["events"][1]["state_patch"] == []


async def test_replay_fallback_simulates_what_the_cassette_lacks(
    fake: FakeProvider, specs: Path, tmp_path: Path
) -> None:
    cassette = tmp_path / "partial.jsonl"
    fake.reset()
    script(fake)
    with app_server(watch=False, specs=[specs], record=cassette, **openai(fake)) as base:
        await run(base, "partial", CALLS[:1])
    fake.reset()
    fake.script(reply_outcome({"id": "n1", "text": "buy milk", "from": "fallback"}))
    settings = {**openai(fake), "backend": "replay", "cassette": cassette, "replay_fallback": "openai"}
    with app_server(watch=False, specs=[specs], **settings) as base:
        replayed = await run(base, "partial", [*CALLS[:2]])
    assert len(fake.posts("/chat/completions")) == 1, "only the call the cassette lacks reaches the provider"
    assert [r["is_error"] for r in replayed["results"]] == [False, False]
    assert json.loads(replayed["results"][1]["text"][0])["from"] == "fallback"
    assert replayed["events"][0]["note"] == "replayed from the cassette"
    assert replayed["events"][1]["note"].startswith("not in the cassette: simulated by openai")


def test_replay_settings_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="needs a cassette: give --cassette FILE"):
        load_backend(Settings(backend="replay"))
    with pytest.raises(ConfigError, match="--cassette is only read by --backend replay"):
        load_backend(Settings(cassette=tmp_path / "c.jsonl"))
    with pytest.raises(ConfigError, match="--replay-fallback: expected another backend"):
        load_backend(Settings(backend="replay", cassette=tmp_path / "c.jsonl", replay_fallback="replay"))
    backend = load_backend(Settings(backend="replay", cassette=tmp_path / "c.jsonl", replay_fallback="offline"))
    assert isinstance(backend, ReplayBackend)
    assert backend.fallback is not None


async def test_cassette_problems_name_the_file_and_line(tmp_path: Path) -> None:
    missing = tmp_path / "missing.jsonl"
    with pytest.raises(ConfigError, match=r"--cassette .*missing\.jsonl: no such file"):
        await ReplayBackend(missing).start()
    broken = tmp_path / "broken.jsonl"
    broken.write_text(
        '{"key": "k", "environment": "e", "version": "v", "tool": "t", "arguments": {}, "outcome": {}}\n\n{"key": 1}\n'
    )
    with pytest.raises(ConfigError, match=r"broken\.jsonl: line 3: key: Input should be a valid string"):
        await ReplayBackend(broken).start()
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(ConfigError, match=r"--record .*: cannot write it"):
        Runtime(Settings(record=blocker / "run.jsonl"))


async def test_offline_record_and_replay_in_process_with_faults(tmp_path: Path) -> None:
    """Recording works with any backend; replay applies the same seeded faults, so a faulty run replays
    identically (malformed calls included: their real outcome is in the cassette)."""
    cassette = tmp_path / "offline.jsonl"
    faults: dict[str, Any] = {"fault_error_rate": 0.25, "fault_malformed_rate": 0.25, "fault_seed": 4}
    calls = [("create_ticket", {**NEW_TICKET, "title": f"Issue {n}"}) for n in range(12)]
    calls += [("list_tickets", {"status": "open"}), ("close_ticket", {"ticket_id": "T-1006", "resolution": "done"})]
    runs = []
    for settings in (
        Settings(specs=[BUNDLED_SPECS], record=cassette, **faults),
        Settings(specs=[BUNDLED_SPECS], backend="replay", cassette=cassette, **faults),
    ):
        async with Runtime(settings) as runtime:
            results = [await runtime.simulator.call("s", name, arguments) for name, arguments in calls]
            record = await runtime.store.get("s")
            assert record is not None
            runs.append(([(r.result, r.is_error, r.kind) for r in results], record.worlds))
    assert runs[0] == runs[1]
    kinds = [kind for _, _, kind in runs[0][0]]
    assert "fault" in kinds
    assert "ok" in kinds
    recorded = cassette.read_text().splitlines()
    error_faults = sum(1 for result, is_error, kind in runs[0][0] if kind == "fault" and is_error)
    assert len(recorded) == len(calls) - error_faults, "error faults are not recorded; malformed calls are"
