"""Scaling: the RL load (rl_scale.py) at several `--workers` counts, to see what more cores buy.

    python benchmarks/run.py --only scale --workers 1,2,4,8

For each worker count N, `sim-mcp serve --workers N --backend openai` on a throwaway Redis (the store
every worker sees) answers the RL load: sessions x 10 calls, the fake provider at 100 ms. The load
starts only once every worker has answered `GET /healthz` (each response names its worker in
`X-Sim-Mcp-Worker`; fresh connections are hashed across the workers' sockets until all N are seen),
so a slow-starting worker is not counted as scaling. Beside them, in the same run: the memory store at
one process (it cannot be shared by workers), and the bare SDK server (one process) with the same
traffic, the baseline of CPU per call.

Each row: wall time, speedup against N=1 on the same store, calls/s, the cores the server used (its
CPU time, supervisor and workers together, over the wall time), server CPU per call and its ratio to
the bare server's, the fake provider's and redis-server's CPU per call (what else a deployment must give
cores to), errors, and sessions whose final state lost or leaked a record. On a machine with
fewer cores than N + the client and provider processes, the speedup stops at the cores there are:
`cores used` says how many the server actually got. It runs anywhere; it means most on many cores.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import anyio
import httpx

from benchmarks.report import Figure, Target
from benchmarks.rl_scale import LATENCY_MS, FinalStates, Load, RunResult, final_states, run_workers
from benchmarks.servers import (
    HttpServer,
    RedisServer,
    bare_http,
    cpu_seconds,
    fake_llm,
    redis_server,
    server_env,
    start_sim_http,
)

SECTION = "7 scale"
WORKER_HEADER = "x-sim-mcp-worker"


@dataclass(frozen=True)
class ScaleRun:
    store: str  # "redis" or "memory"
    workers: int
    result: RunResult
    states: FinalStates
    redis_cpu_s: float = 0.0  # redis-server's CPU time during the load


def wait_for_workers(url: str, workers: int, timeout: float = 60.0) -> set[str]:
    """Block until each of the `workers` processes has answered /healthz on a connection of its own."""
    seen: set[str] = set()
    deadline = time.monotonic() + timeout
    while len(seen) < workers:
        if time.monotonic() > deadline:
            raise RuntimeError(f"only workers {sorted(seen)} of {workers} answered /healthz within {timeout:g} s")
        try:
            # A new client each time: a new connection, which the kernel may hash to another worker.
            with httpx.Client(timeout=2) as http:
                response = http.get(f"{url}/healthz")
        except httpx.TransportError:
            time.sleep(0.05)
            continue
        if response.status_code == 200:
            seen.add(response.headers.get(WORKER_HEADER, "0"))
    return seen


def _run(load: Load, fake: HttpServer, redis: RedisServer | None, workers: int, prefix: str) -> ScaleRun:
    store_url = redis.url if redis is not None else "memory"
    args = ["--backend", "openai", "--base-url", f"{fake.url}/v1", "--model", "fake", "--store", store_url]
    args.append("--no-run-rules")  # the tickets programs would otherwise answer every call, with no model
    env = server_env(
        SIM_MCP_WORKERS=str(workers),
        # Each worker has its own provider client: the sessions in flight split between them.
        SIM_MCP_BACKEND_CONCURRENCY=str(max(1, -(-load.sessions // workers))),
        OPENAI_API_KEY="sk-bench-unused",
    )
    # Each worker imports and loads everything on its own: on a busy machine, 8 of them take a while.
    startup_s = 30.0 + 15.0 * workers
    sim = start_sim_http(*args, env=env, timeout=startup_s)
    try:
        wait_for_workers(sim.url, workers, startup_s)
        redis_cpu = cpu_seconds(redis.pid) if redis is not None else 0.0
        result = run_workers(sim.url, "/mcp/tickets", load, prefix, echo=False, server_pid=sim.pid, extra_pid=fake.pid)
        redis_cpu = cpu_seconds(redis.pid) - redis_cpu if redis is not None else 0.0
        states = anyio.run(final_states, sim.url, prefix, load.sessions)
    finally:
        sim.stop()
    return ScaleRun("redis" if redis is not None else "memory", workers, result, states, redis_cpu)


def measure(
    quick: bool, worker_counts: list[int], client_processes: int = 4, sessions: int | None = None
) -> list[Figure]:
    load = Load(sessions=sessions or (128 if quick else 1024), calls=10, workers=client_processes, client="lean")
    calls = load.sessions * load.calls
    tag = f"sc{os.getpid()}"
    with bare_http() as bare:
        baseline = run_workers(bare.url, "/mcp", load, f"{tag}-bare", echo=True, server_pid=bare.pid)
    bare_cpu_ms = baseline.server_cpu_s / calls * 1000
    figures = [
        Figure(
            SECTION,
            f"bare SDK (1 process), {load.sessions} sessions x {load.calls} calls: calls/s",
            calls / baseline.wall_s,
            "/s",
        ),
        Figure(SECTION, "bare SDK: server CPU per call", bare_cpu_ms, "ms"),
    ]
    runs: list[ScaleRun] = []
    with fake_llm(LATENCY_MS) as fake, redis_server() as redis:
        runs.append(_run(load, fake, None, 1, f"{tag}-m1"))
        if isinstance(redis, RedisServer):
            for workers in worker_counts:
                runs.append(_run(load, fake, redis, workers, f"{tag}-r{workers}"))
                redis.flush()
        else:
            figures.append(Figure(SECTION, f"redis store: skipped, {redis}", float("nan"), ""))
    for run in runs:
        figures += _figures(run, runs, calls, bare_cpu_ms, load)
    return figures


def _figures(run: ScaleRun, runs: list[ScaleRun], calls: int, bare_cpu_ms: float, load: Load) -> list[Figure]:
    result = run.result
    name = f"{run.store}, --workers {run.workers}"
    one = next((r for r in runs if r.store == run.store and r.workers == 1), None)
    speedup = one.result.wall_s / result.wall_s if one is not None and result.wall_s else float("nan")
    ideal = load.calls * LATENCY_MS / 1000
    cpu_ms = result.server_cpu_s / calls * 1000
    extra = [
        Figure(SECTION, f"fake provider CPU per call, {name}", result.extra_cpu_s / calls * 1000, "ms"),
    ]
    if run.store == "redis":
        extra.append(Figure(SECTION, f"redis-server CPU per call, {name}", run.redis_cpu_s / calls * 1000, "ms"))
    problems = result.problems[:2] + run.states.leaked[:1] + run.states.incomplete[:1]
    lost = len(run.states.leaked) + len(run.states.incomplete)
    return [
        Figure(SECTION, f"wall time, {name} (ideal: 10 x 100 ms)", result.wall_s, "s", ideal),
        Figure(SECTION, f"speedup over --workers 1, {name}", speedup, "x", float(run.workers)),
        Figure(SECTION, f"calls/s, {name}", calls / result.wall_s if result.wall_s else 0.0, "/s"),
        Figure(SECTION, f"server cores used, {name}", result.server_cpu_s / result.wall_s if result.wall_s else 0, ""),
        Figure(SECTION, f"server CPU per call, {name} (vs bare SDK)", cpu_ms, "ms", bare_cpu_ms, Target(2.0)),
        *extra,
        Figure(
            SECTION,
            f"errors, lost or leaked sessions, {name}",
            result.errors + lost,
            "",
            note="; ".join(problems)[:240],
            failed=result.errors + lost > 0,
        ),
    ]
