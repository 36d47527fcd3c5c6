"""Overhead: sim-mcp (bundled specs, no LLM) against the bare echo server, same transport, same client
(the SDK `Client`), same arguments: p50/p99 latency, calls per second and server CPU per call, over
Streamable HTTP in both protocol eras and over stdio, at 1 and 16 concurrent clients.

sim-mcp answers three ways (the label's last word): `rules`, the tickets environment's own programs
(`tool_specs/tickets.rules.star`, the default); `generic`, the offline engine with the programs off
(`--no-run-rules`); `replay`, a cassette recorded beforehand by the generic engine for the same calls
(`--backend replay`). The cassette holds one outcome per state a session meets, so it answers any
session that makes the same calls, whatever its name.

Rounds alternate bare and sim-mcp (so drift in the machine's load hits both), and every round uses new
sessions (HTTP: new `?session=` names; stdio: a new server process), so no session holds more than one
round of created records. Over stdio, "16 clients" is one client with 16 calls in flight: a stdio
server is one process and one session.
"""

from __future__ import annotations

import itertools
import os
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.clients import CallPlan, LoadResult, sdk_http_load, sdk_stdio_load
from benchmarks.report import Figure, Target
from benchmarks.servers import HttpServer, bare_http, bare_stdio, sim_http, sim_stdio

SECTION = "1 overhead"
TRANSPORTS = ("http legacy", "http 2026-07-28", "stdio")
CONCURRENCY = (1, 16)
# How sim-mcp answers: the flags of each way (replay's `--cassette` is added once it is recorded).
ANSWERS: dict[str, tuple[str, ...]] = {
    "rules": (),
    "generic": ("--no-run-rules",),
    "replay": ("--no-run-rules", "--backend", "replay"),
}
P50_TARGET = Target(1.25)
THROUGHPUT_TARGET = Target(0.8, at_most=False)

NEW_TICKET = {"title": "VPN drops", "description": "Every 10 minutes.", "customer_email": "ops@acme.example"}
CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "get_ticket": ("get_ticket", {"ticket_id": "T-1001"}),
    "create_ticket": ("create_ticket", NEW_TICKET),
}


@dataclass(frozen=True)
class Sizes:
    rounds: int
    calls_alone: int  # calls of the one client, per round
    calls_each: int  # calls of each of the 16 clients, per round


def sizes(quick: bool) -> Sizes:
    return Sizes(rounds=1, calls_alone=30, calls_each=5) if quick else Sizes(rounds=4, calls_alone=100, calls_each=20)


def _plan(tool: str, arguments: dict[str, Any]) -> CallPlan:
    return lambda i: (tool, arguments)


def merge(results: list[LoadResult]) -> LoadResult:
    merged = LoadResult()
    for result in results:
        merged.latencies += result.latencies
        merged.wall_s += result.wall_s
        merged.errors += result.errors
        merged.error_samples += result.error_samples
        merged.client_cpu_s += result.client_cpu_s
        merged.server_cpu_s += result.server_cpu_s
    return merged


class _Round:
    """One timed load of one server (`bare` or a way of `ANSWERS`), transport, concurrency and call."""

    def __init__(self, servers: dict[str, HttpServer], flags: dict[str, tuple[str, ...]], sizes: Sizes) -> None:
        self.servers = servers
        self.flags = flags
        self.sizes = sizes
        self._names = itertools.count()

    async def run(self, server: str, transport: str, clients: int, call: str) -> LoadResult:
        tool, arguments = CALLS[call]
        plan = _plan("echo" if server == "bare" else tool, arguments)
        calls = self.sizes.calls_alone if clients == 1 else self.sizes.calls_each
        if transport == "stdio":
            parameters = bare_stdio() if server == "bare" else sim_stdio(*self.flags[server])
            return await sdk_stdio_load(parameters, concurrency=clients, calls=calls, plan=plan)
        target = self.servers[server]
        return await sdk_http_load(
            f"{target.url}/mcp",
            mode="legacy" if transport == "http legacy" else "auto",
            clients=clients,
            calls=calls,
            plan=plan,
            session_prefix=f"ovh{os.getpid()}-{next(self._names)}",
            server_pid=target.pid,
        )


async def measure(quick: bool) -> list[Figure]:
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory(prefix="sim-mcp-overhead-") as folder:
        measured = sizes(quick)
        cassette = Path(folder) / "overhead.jsonl"
        await record(cassette, measured)
        flags = {
            way: (*ANSWERS[way], "--cassette", str(cassette)) if way == "replay" else ANSWERS[way] for way in ANSWERS
        }
        with servers(flags) as running:
            rounds = _Round(running, flags, measured)
            for transport, clients, call in itertools.product(TRANSPORTS, CONCURRENCY, CALLS):
                results: dict[str, list[LoadResult]] = {server: [] for server in running}
                for index in range(rounds.sizes.rounds):
                    # Alternate the order, so that drift in the machine's load hits every server alike.
                    order = list(running) if index % 2 == 0 else list(reversed(running))
                    for server in order:
                        results[server].append(await rounds.run(server, transport, clients, call))
                label = f"{transport}, {clients} client{'s' if clients > 1 else ''}, {call}"
                bare = merge(results["bare"])
                for way in ANSWERS:
                    figures += _figures(f"{label} ({way})", merge(results[way]), bare)
    return figures


@contextmanager
def servers(flags: dict[str, tuple[str, ...]]) -> Iterator[dict[str, HttpServer]]:
    """The bare server and one sim-mcp HTTP server per way of answering, stopped on exit."""
    with ExitStack() as stack:
        running = {"bare": stack.enter_context(bare_http())}
        running |= {way: stack.enter_context(sim_http(*flags[way])) for way in ANSWERS}
        yield running


async def record(cassette: Path, measured: Sizes) -> None:
    """Record, with the generic engine, every situation the rounds will meet: one session making as many
    calls of each tool as the longest session of a round makes (stdio's one session with 16 in flight)."""
    most = max(measured.calls_alone, max(CONCURRENCY) * measured.calls_each)
    with sim_http(*ANSWERS["generic"], "--record", str(cassette)) as recorder:
        for call, (tool, arguments) in CALLS.items():
            result = await sdk_http_load(
                f"{recorder.url}/mcp",
                mode="auto",
                clients=1,
                calls=most,
                plan=_plan(tool, arguments),
                session_prefix=f"record{os.getpid()}-{call}",
                server_pid=recorder.pid,
            )
            if result.errors:
                raise RuntimeError(f"recording the overhead cassette failed: {result.error_samples[:2]}")


def _figures(label: str, sim: LoadResult, bare: LoadResult) -> list[Figure]:
    errors = sim.errors + bare.errors
    note = "; ".join(sim.error_samples + bare.error_samples)[:200]
    return [
        Figure(
            SECTION,
            f"{label}: p50",
            sim.percentile(50) * 1000,
            "ms",
            bare.percentile(50) * 1000,
            P50_TARGET,
            note=note,
            failed=errors > 0,
        ),
        Figure(SECTION, f"{label}: p99", sim.percentile(99) * 1000, "ms", bare.percentile(99) * 1000),
        Figure(SECTION, f"{label}: calls/s", sim.calls_per_s, "/s", bare.calls_per_s, THROUGHPUT_TARGET),
        Figure(
            SECTION,
            f"{label}: server CPU per call",
            _per_call(sim.server_cpu_s, sim),
            "ms",
            _per_call(bare.server_cpu_s, bare),
        ),
        Figure(
            SECTION,
            f"{label}: client CPU per call",
            _per_call(sim.client_cpu_s, sim),
            "ms",
            _per_call(bare.client_cpu_s, bare),
        ),
    ]


def _per_call(seconds: float, result: LoadResult) -> float:
    return seconds / max(result.calls, 1) * 1000
