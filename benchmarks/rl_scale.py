"""RL scale: 1,024 concurrent sessions x 10 calls against an LLM backend of 100 ms latency.

sim-mcp runs `--backend openai` against the fake provider (`fake_llm.py`), with backend concurrency
raised to the number of sessions. The same client processes then make the same calls to the bare echo
server: its wall time is the SDK's own cost for this traffic, and the ideal is that plus 10 x 100 ms
(each session's 10 calls are sequential). Each session creates 5 tickets titled with its own name,
reads 4 of them back and lists its own; every result is checked, and afterwards each session's final
state is read through the control API (GET /sessions/{id}): exactly the initial tickets plus its own 5.

Runs: the memory store (recording a cassette with `--record`), Redis, Redis with `--workers 2` (server
CPU is the supervisor's and its workers'), replay: the same sessions answered from that cassette
(`--backend replay`, no LLM), and rules as code: the tickets environment's own programs
(`tool_specs/tickets.rules.star`, no LLM). The LLM and replay runs pass `--no-run-rules`, since those
programs would otherwise answer every tickets tool; the last two have no model latency, so their
ideal is the bare server's time alone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import anyio
import httpx

from benchmarks.report import Figure, Target, percentile
from benchmarks.rl_worker import CREATES, email_of, title_of
from benchmarks.servers import (
    REPO,
    RedisServer,
    bare_http,
    fake_llm,
    redis_server,
    server_env,
    sim_http,
    tree_cpu_seconds,
)

SECTION = "2 RL scale"
LATENCY_MS = 100.0
INITIAL_TICKETS = {"T-1001", "T-1002", "T-1003", "T-1004", "T-1005"}


@dataclass
class RunResult:
    wall_s: float = 0.0
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    problems: list[str] = field(default_factory=list)
    client_cpu_s: float = 0.0
    server_cpu_s: float = 0.0
    extra_cpu_s: float = 0.0


@dataclass(frozen=True)
class Load:
    sessions: int
    calls: int
    workers: int
    client: str  # "sdk" or "lean"


def run_workers(
    url: str, path: str, load: Load, prefix: str, *, echo: bool, server_pid: int, extra_pid: int | None = None
) -> RunResult:
    """Start the client processes, wait until every session is connected, start them all at once."""
    per_worker = -(-load.sessions // load.workers)
    processes: list[subprocess.Popen[str]] = []
    try:
        for first in range(0, load.sessions, per_worker):
            count = min(per_worker, load.sessions - first)
            command = [sys.executable, "-m", "benchmarks.rl_worker", "--url", url, "--path", path]
            command += ["--client", load.client, "--first", str(first), "--count", str(count)]
            command += ["--calls", str(load.calls), "--prefix", prefix] + (["--echo"] if echo else [])
            processes.append(
                subprocess.Popen(command, cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            )
        for process in processes:
            assert process.stdout is not None
            line = process.stdout.readline()
            if line.strip() != "ready":
                raise RuntimeError(f"an RL client process failed to connect its sessions (got {line!r})")
        server_cpu = tree_cpu_seconds(server_pid)
        extra_cpu = tree_cpu_seconds(extra_pid) if extra_pid else 0.0
        go = time.monotonic()
        for process in processes:
            assert process.stdin is not None
            process.stdin.write("go\n")
            process.stdin.flush()
        reports = []
        for process in processes:
            assert process.stdout is not None
            line = process.stdout.readline()
            if not line:
                raise RuntimeError("an RL client process died during the run (its error is above)")
            reports.append(json.loads(line))
            process.wait(timeout=60)
        result = RunResult(
            wall_s=max(report["finished"] for report in reports) - go,
            server_cpu_s=tree_cpu_seconds(server_pid) - server_cpu,
            extra_cpu_s=(tree_cpu_seconds(extra_pid) - extra_cpu) if extra_pid else 0.0,
        )
        for report in reports:
            result.latencies += report["latencies"]
            result.errors += report["errors"]
            result.problems += report["problems"]
            result.client_cpu_s += report["cpu_s"]
        return result
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()


@dataclass
class FinalStates:
    """Sessions whose final state holds another session's records, and sessions missing some of their own."""

    leaked: list[str] = field(default_factory=list)
    incomplete: list[str] = field(default_factory=list)


async def final_states(base_url: str, prefix: str, sessions: int) -> FinalStates:
    """Each session's state, from the control API: the initial tickets and its own, nothing else."""
    found = FinalStates()
    limiter = anyio.Semaphore(32)
    async with httpx.AsyncClient(base_url=base_url, timeout=60) as http:

        async def one(n: int) -> None:
            session = f"{prefix}-{n:05d}"
            async with limiter:
                response = await http.get(f"/sessions/{session}")
            if response.status_code != 200:
                found.incomplete.append(f"{session}: GET /sessions/{session} -> {response.status_code}")
                return
            tickets: dict[str, Any] = response.json()["state"]["tickets"]
            added = [ticket for key, ticket in tickets.items() if key not in INITIAL_TICKETS]
            foreign = [str(t.get("title")) for t in added if t.get("customer_email") != email_of(session)]
            own = sorted(str(t.get("title")) for t in added if t.get("customer_email") == email_of(session))
            if foreign:
                found.leaked.append(f"{session}: holds {foreign[:3]}")
            if own != sorted(title_of(session, k) for k in range(CREATES)):
                found.incomplete.append(f"{session}: has {len(own)} of its {CREATES} tickets")

        async with anyio.create_task_group() as tasks:
            for n in range(sessions):
                tasks.start_soon(one, n)
    return found


@dataclass(frozen=True)
class Run:
    """One sim-mcp configuration under the load: its name in the table, store, extra flags and variables."""

    name: str
    store: str
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    answered_by: Literal["llm", "cassette", "rules"] = "llm"  # the fake provider, replay, or the programs


def sim_under_load(load: Load, fake_url: str, fake_pid: int, run: Run, prefix: str) -> tuple[RunResult, FinalStates]:
    args = ["--store", run.store, *run.args]
    if run.answered_by == "llm":
        args = ["--backend", "openai", "--base-url", f"{fake_url}/v1", "--model", "fake", *args]
    if run.answered_by != "rules":
        args.append("--no-run-rules")
    variables = {
        "SIM_MCP_BACKEND_CONCURRENCY": str(load.sessions),
        "OPENAI_API_KEY": "sk-bench-unused",
        **dict(run.env),
    }
    # --workers: each worker process starts on its own, which takes longer on a busy machine.
    with sim_http(*args, env=server_env(**variables), timeout=60.0) as sim:
        result = run_workers(sim.url, "/mcp/tickets", load, prefix, echo=False, server_pid=sim.pid, extra_pid=fake_pid)
        states = anyio.run(final_states, sim.url, prefix, load.sessions)
    return result, states


def measure(quick: bool, client: str = "lean", workers: int = 2) -> list[Figure]:
    load = Load(sessions=128 if quick else 1024, calls=10, workers=workers, client=client)
    label = f"{load.sessions} sessions x {load.calls} calls, {client} client"
    tag = f"rl{os.getpid()}"
    with bare_http() as bare:
        baseline = run_workers(bare.url, "/mcp", load, f"{tag}-bare", echo=True, server_pid=bare.pid)
    with bare_http("--delay-ms", str(LATENCY_MS)) as bare:
        slow_bare = run_workers(bare.url, "/mcp", load, f"{tag}-slow", echo=True, server_pid=bare.pid)
    ideal = load.calls * LATENCY_MS / 1000 + baseline.wall_s
    calls = load.sessions * load.calls
    figures = [
        Figure(SECTION, f"bare SDK, same traffic ({label})", baseline.wall_s, "s"),
        Figure(SECTION, "bare SDK: server CPU per call", baseline.server_cpu_s / calls * 1000, "ms"),
        Figure(SECTION, "bare SDK: client CPU per call", baseline.client_cpu_s / calls * 1000, "ms"),
        Figure(SECTION, "bare SDK with a 100 ms tool (measured ideal)", slow_bare.wall_s, "s", baseline=ideal),
    ]
    with tempfile.TemporaryDirectory(prefix="sim-mcp-rl-") as folder, fake_llm(LATENCY_MS) as fake:
        cassette = str(Path(folder) / "rl.jsonl")
        with redis_server() as redis:
            runs = [Run("memory store (recording)", "memory", ("--record", cassette))]
            if isinstance(redis, RedisServer):
                workers_env = (("SIM_MCP_WORKERS", "2"), ("SIM_MCP_BACKEND_CONCURRENCY", str(load.sessions // 2)))
                runs += [Run("redis store", redis.url), Run("redis store, --workers 2", redis.url, env=workers_env)]
            else:
                figures.append(Figure(SECTION, f"redis store: skipped, {redis}", float("nan"), ""))
            for run in runs:
                figures += _run_figures(load, fake.url, fake.pid, run, f"{tag}-{run.name.split()[0]}", ideal)
                if isinstance(redis, RedisServer):
                    redis.flush()
        # The memory run's sessions again, with the same names, answered from its cassette.
        replay = Run("replay", "memory", ("--backend", "replay", "--cassette", cassette), answered_by="cassette")
        figures += _run_figures(load, fake.url, fake.pid, replay, f"{tag}-memory", baseline.wall_s)
        rules = Run("rules as code", "memory", ("--backend", "offline"), answered_by="rules")
        figures += _run_figures(load, fake.url, fake.pid, rules, f"{tag}-rules", baseline.wall_s)
    return figures


def _run_figures(load: Load, fake_url: str, fake_pid: int, run: Run, prefix: str, ideal: float) -> list[Figure]:
    try:
        result, states = sim_under_load(load, fake_url, fake_pid, run, prefix)
    except RuntimeError as e:
        return [Figure(SECTION, f"{run.name}: the run failed", float("nan"), "", note=str(e)[-300:], failed=True)]
    what = "ideal 10 x 100 ms + bare" if run.answered_by == "llm" else "ideal: the bare server"
    return _sim_figures(run.name, what, result, states, ideal, load)


def _sim_figures(
    store: str, what: str, result: RunResult, states: FinalStates, ideal: float, load: Load
) -> list[Figure]:
    calls = load.sessions * load.calls
    return [
        Figure(SECTION, f"wall time, {store} ({what})", result.wall_s, "s", ideal, Target(1.5)),
        Figure(SECTION, f"calls/s, {store}", calls / result.wall_s if result.wall_s else 0.0, "/s"),
        Figure(SECTION, f"p50 latency, {store}", percentile(result.latencies, 50) * 1000, "ms"),
        Figure(
            SECTION,
            f"errors, {store}",
            result.errors,
            "calls",
            note="; ".join(result.problems[:2])[:240],
            failed=result.errors > 0,
        ),
        Figure(
            SECTION,
            f"sessions holding another's records, {store}",
            len(states.leaked),
            "sessions",
            note="; ".join(states.leaked[:2]),
            failed=bool(states.leaked),
        ),
        Figure(
            SECTION,
            f"sessions missing their own records, {store}",
            len(states.incomplete),
            "sessions",
            note="; ".join(states.incomplete[:2]),
            failed=bool(states.incomplete),
        ),
        Figure(SECTION, f"server CPU per call, {store}", result.server_cpu_s / calls * 1000, "ms"),
        Figure(SECTION, f"fake provider CPU per call, {store}", result.extra_cpu_s / calls * 1000, "ms"),
        Figure(SECTION, f"client CPU per call, {store}", result.client_cpu_s / calls * 1000, "ms"),
    ]
