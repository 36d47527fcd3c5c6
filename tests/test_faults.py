"""Fault injection: seeded draws (same seed, same faults), rates honoured, each fault kind through a real
client over HTTP, faults from flags and from a spec's `faults:` blocks, and the errors for bad settings."""

from __future__ import annotations

import json
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from mcp.client import Client

from sim_mcp.config import Settings
from sim_mcp.engine.faults import ERROR_RESULTS, combined_faults, decide, truncated
from sim_mcp.errors import ConfigError, SpecError
from sim_mcp.runtime import Runtime
from sim_mcp.specs.formats import read_spec_file
from sim_mcp.specs.model import Faults, Latency
from tests.helpers_server import NEW_TICKET, app_server, ticket
from tests.servers import BUNDLED_SPECS


def draws(faults: Faults, n: int, *, session: str = "s", tool: str = "create_ticket") -> list[Any]:
    return [
        decide(faults, session_id=session, session_seed=0, seq=seq, environment="tickets", tool=tool)
        for seq in range(1, n + 1)
    ]


# -- the pure decision ---------------------------------------------------------------------------------


def test_same_seed_same_faults_different_seed_different_faults() -> None:
    faults = Faults(error_rate=0.3, timeout_rate=0.1, malformed_rate=0.1, latency_ms=Latency.parse("uniform:0:50"))
    assert draws(faults, 200) == draws(faults, 200)
    other_seed = faults.model_copy(update={"seed": 1})
    assert [d.kind for d in draws(faults, 200)] != [d.kind for d in draws(other_seed, 200)]
    # The stream is the session's own: another session's calls, in any number and order, don't shift it.
    assert [d.kind for d in draws(faults, 200, session="other")] != [d.kind for d in draws(faults, 200)]
    assert draws(faults, 50)[10] == decide(
        faults, session_id="s", session_seed=0, seq=11, environment="tickets", tool="create_ticket"
    )


def test_rates_are_roughly_honoured() -> None:
    faults = Faults(error_rate=0.2, timeout_rate=0.1, malformed_rate=0.15, timeout_ms=5)
    n = 4000
    counts = Counter(decision.kind for decision in draws(faults, n))
    for kind, rate in (("error", 0.2), ("timeout", 0.1), ("malformed", 0.15), (None, 0.55)):
        assert abs(counts[kind] / n - rate) < 0.03, (kind, counts)
    decisions = draws(faults, n)
    assert {d.message for d in decisions if d.kind == "error"} == set(ERROR_RESULTS)
    assert all(d.delay_ms == 5 and "timed out" in (d.message or "") for d in decisions if d.kind == "timeout")
    assert all(0.3 <= d.keep <= 0.7 for d in decisions if d.kind == "malformed")


@pytest.mark.parametrize(
    ("latency", "low", "high", "mean"),
    [
        ("40", 40, 40, 40),
        ("uniform:10:30", 10, 30, 20),
        ("normal:100:10", 0, float("inf"), 100),
        ("exponential:50", 0, float("inf"), 50),
    ],
)
def test_latency_distributions(latency: str, low: float, high: float, mean: float) -> None:
    delays = [d.delay_ms for d in draws(Faults(latency_ms=Latency.parse(latency)), 3000)]
    assert all(low <= delay <= high for delay in delays)
    assert abs(statistics.mean(delays) - mean) < mean * 0.08


def test_blocks_combine_field_by_field() -> None:
    flags = Faults(error_rate=0.1, seed=5)
    environment = Faults(latency_ms=20)
    tool = Faults(error_rate=0.0, timeout_rate=0.5)
    merged = combined_faults(flags, environment, tool)
    assert merged is not None
    assert (merged.error_rate, merged.timeout_rate, merged.latency_ms, merged.seed) == (0.0, 0.5, 20, 5)
    assert combined_faults(None, None, None) is None


def test_truncated_text_is_never_valid_json() -> None:
    for text in ['{"id": "T-1", "title": "x"}', "12", "true", '"ok"', "[1, 2, 3]", "plain words"]:
        for keep in (0.3, 0.5, 0.7):
            cut = truncated(text, keep)
            assert text.startswith(cut.rstrip("\u2026"))
            with pytest.raises(json.JSONDecodeError):
                json.loads(cut)


def test_bad_settings_name_what_is_wrong() -> None:
    with pytest.raises(ConfigError, match=r"add up to 1\.2: expected at most 1"):
        Runtime(Settings(specs=[BUNDLED_SPECS], fault_error_rate=0.6, fault_timeout_rate=0.6))
    with pytest.raises(ConfigError, match=r"--fault-latency-ms .*uniform:MIN:MAX"):
        Settings.load({"fault_latency_ms": "uniform:5"}, environ={})
    with pytest.raises(ConfigError, match="--fault-error-rate"):
        Settings.load({"fault_error_rate": 2}, environ={})
    assert Settings.load(environ={"SIM_MCP_FAULT_LATENCY_MS": "normal:200:50"}).fault_latency_ms == Latency(
        distribution="normal", mean=200, stddev=50
    )


def test_bad_faults_in_a_spec_name_the_place(tmp_path: Path) -> None:
    spec = {
        "name": "flaky",
        "tools": [{"name": "ping", "faults": {"error_rate": 0.7, "malformed_rate": 0.5}}],
    }
    path = tmp_path / "flaky.yaml"
    path.write_text(yaml.safe_dump(spec))
    with pytest.raises(SpecError, match=r"tools\[0\]\.faults.*at most 1"):
        read_spec_file(path)
    spec["tools"] = [{"name": "ping", "faults": {"latency_ms": {"distribution": "normal", "mean": 5}}}]
    path.write_text(yaml.safe_dump(spec))
    with pytest.raises(SpecError, match="missing stddev"):
        read_spec_file(path)


def test_faults_are_not_part_of_the_environment_version(tmp_path: Path) -> None:
    """Recordings and caches stay valid when only the faults change."""
    environment = read_spec_file(BUNDLED_SPECS / "tickets.yaml")
    flaky = environment.model_copy(update={"faults": Faults(error_rate=0.5)})
    assert flaky.version == environment.version


# -- through a real client -----------------------------------------------------------------------------


async def run_episode(base: str, session: str, n: int) -> list[tuple[bool, str]]:
    """`n` create_ticket calls; what the agent got back: (is_error, text)."""
    outcomes = []
    async with Client(f"{base}/mcp?session={session}") as client:
        for i in range(n):
            result = await client.call_tool("create_ticket", ticket(i))
            outcomes.append((bool(result.is_error), result.content[0].text))  # type: ignore[union-attr]
    return outcomes


async def events_of(base: str, session: str) -> list[dict[str, Any]]:
    async with httpx.AsyncClient(base_url=base) as http:
        events: list[dict[str, Any]] = (await http.get(f"/sessions/{session}/events")).json()["events"]
        return events


async def test_flags_same_seed_same_faults_over_http() -> None:
    flags: dict[str, Any] = {"fault_error_rate": 0.4, "fault_seed": 11, "watch": False}
    with app_server(**flags) as base:
        first = await run_episode(base, "episode", 20)
        first_events = await events_of(base, "episode")
        async with httpx.AsyncClient(base_url=base) as http:
            session = (await http.get("/sessions/episode")).json()
            metrics = (await http.get("/metrics")).text
    with app_server(**flags) as base:  # a fresh server: the same calls get the same faults
        assert await run_episode(base, "episode", 20) == first
    with app_server(watch=False, fault_error_rate=0.4, fault_seed=12) as base:
        assert [error for error, _ in await run_episode(base, "episode", 20)] != [error for error, _ in first]

    faulted = [event for event in first_events if event["fault"] is not None]
    assert 3 <= len(faulted) <= 14
    for event in faulted:
        assert event["fault"] == "error"
        assert event["is_error"]
        assert event["state_patch"] == []
        assert event["result"] in ERROR_RESULTS
        assert event["note"] == "injected fault: error"
    # An error fault changes nothing: the ticket ids run on without gaps over the calls that went through.
    created = [json.loads(text)["id"] for error, text in first if not error]
    assert created == [f"T-{1006 + i}" for i in range(len(created))]
    assert len(session["state"]["tickets"]["tickets"]) == 5 + len(created)
    assert session["errors"] == len(faulted)
    assert f'sim_mcp_errors_total{{kind="fault"}} {float(len(faulted))}' in metrics
    assert f'outcome="fault",tool="create_ticket"}} {float(len(faulted))}' in metrics


FLAKY = {
    "name": "flaky",
    "initial_state": {"notes": {}},
    "faults": {"seed": 3},
    "tools": [
        {
            "name": "create_note",
            "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
            "faults": {"malformed_rate": 1.0},
        },
        {
            "name": "get_note",
            "input_schema": {"type": "object", "properties": {"note_id": {"type": "string"}}, "required": ["note_id"]},
            "output_schema": {"type": "object", "properties": {"id": {"type": "string"}, "text": {"type": "string"}}},
            "faults": {"timeout_rate": 1.0, "timeout_ms": 30},
        },
        {
            "name": "list_notes",
            "input_schema": {"type": "object", "properties": {}},
            "faults": {"latency_ms": 25},
        },
        {
            "name": "update_note",
            "input_schema": {
                "type": "object",
                "properties": {"note_id": {"type": "string"}, "text": {"type": "string"}},
                "required": ["note_id"],
            },
            "output_schema": {"type": "object", "properties": {"id": {"type": "string"}, "text": {"type": "string"}}},
            "faults": {"malformed_rate": 1.0},
        },
    ],
}


async def test_spec_faults_per_tool(tmp_path: Path) -> None:
    (tmp_path / "flaky.yaml").write_text(yaml.safe_dump(FLAKY, sort_keys=False))
    with app_server(watch=False, specs=[tmp_path]) as base:
        async with Client(f"{base}/mcp?session=flaky") as client:
            # Malformed: the call happens (the note exists), but its result arrives cut off.
            created = await client.call_tool("create_note", {"text": "buy milk"})
            assert not created.is_error
            assert created.structured_content is None
            text = created.content[0].text  # type: ignore[union-attr]
            with pytest.raises(json.JSONDecodeError):
                json.loads(text)
            # Timeout: an error result after timeout_ms, nothing changes.
            timed_out = await client.call_tool("get_note", {"note_id": "n1"})
            assert timed_out.is_error
            assert timed_out.content[0].text.startswith("timed out after 0.03 s: get_note")  # type: ignore[union-attr]
            # Latency only: an ordinary result, held for the latency.
            listed = await client.call_tool("list_notes", {})
            assert not listed.is_error
            # A malformed result of a tool with an output schema: the SDK client refuses it, as it would a
            # real server's result that lacks its structured content.
            with pytest.raises(RuntimeError, match="did not return structured content"):
                await client.call_tool("update_note", {"note_id": "n1", "text": "x"})
        events = await events_of(base, "flaky")
        async with httpx.AsyncClient(base_url=base) as http:
            state = (await http.get("/sessions/flaky")).json()["state"]
    assert [event["fault"] for event in events] == ["malformed", "timeout", None, "malformed"]
    malformed = events[0]
    assert malformed["result"] == text
    assert not malformed["is_error"]
    assert malformed["state_patch"]
    assert "the call itself was carried out" in malformed["note"]
    assert len(state["flaky"]["notes"]) == 1, "the malformed call was carried out"
    assert events[1]["latency_ms"] >= 30
    assert events[1]["state_patch"] == []
    assert events[2]["latency_ms"] >= 25


async def test_fault_events_are_kept_from_the_simulator_history() -> None:
    """A fault is the simulator's doing: LLM backends never see it among the recent calls."""
    settings = Settings(specs=[BUNDLED_SPECS], fault_error_rate=0.5, fault_seed=1, run_rules=False)
    async with Runtime(settings) as runtime:
        seen: list[list[Any]] = []
        inner = runtime.simulator.backend.simulate

        async def spy(request: Any) -> Any:
            seen.append([event.fault for event in request.recent_events])
            return await inner(request)

        runtime.simulator.backend.simulate = spy  # type: ignore[method-assign]
        for _ in range(12):
            await runtime.simulator.call("history", "create_ticket", NEW_TICKET)
        events = await runtime.store.events("history")
    assert any(event.fault == "error" for event in events)
    assert seen
    assert all(fault is None for recent in seen for fault in recent)
