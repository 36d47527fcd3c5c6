"""CPU per LLM-backed call of the engine, the LLM layer and the store, without the HTTP transport, in short
alternating runs: a before/after comparison that small changes can be seen in on a busy machine.

    python -m benchmarks.cpu_in_process --store memory --runs 8 --against /path/to/another/checkout
    python -m benchmarks.cpu_in_process --store redis --runs 8 --subscriber-not-local

Each run is a fresh process (`--run`, below) that builds a `Runtime` of the bundled specs with the openai
backend against the fake provider (`benchmarks/fake_llm.py`, no latency, a process of its own, so its CPU is
not counted), settles the heap as `sim-mcp serve` does, answers a warm-up of `--sessions` sessions x 10 calls,
then measures the process's CPU over as many more (the calls `rl_worker.py` plans: creates, reads, a list),
all sessions at once. `cpu_per_call.py` measures the whole server against the bare SDK; this leaves out the
transport, the clients and the start of connections, whose noise on a shared machine (0.3-0.5 ms a call
between rounds) hides a change of 0.1 ms. The runs alternate between this checkout and `--against DIR`
(or, with `--subscriber-not-local`, between this checkout as it is and with an after-commit subscriber that
needs the session's lock, as `--trajectories` does), and the medians are printed with every run's figure,
the median of the runs' differences to this checkout, and on Redis redis-server's own CPU per call.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.servers import REPO, RedisServer, cpu_seconds, fake_llm, redis_server

# How a run answers: the openai backend against the fake provider (the default), the tickets environment's
# rules programs, or the generic offline engine.
WAYS = ("llm", "rules", "generic")


def seeded_tickets(records: int) -> dict[str, Any]:
    """The tickets environment's initial state with its tickets copied (new ids) to `records` tickets."""
    from sim_mcp.specs.registry import load_catalog

    environment = load_catalog(REPO / "tool_specs" / "tickets.yaml").environment("tickets")
    assert environment is not None
    state = copy.deepcopy(environment.initial_state)
    originals = list(state["tickets"].values())
    tickets: dict[str, Any] = {}
    for index in range(records):
        ticket = dict(originals[index % len(originals)], id=f"T-{5000 + index}")
        tickets[ticket["id"]] = ticket
    state["tickets"] = tickets
    return state


async def _measure(
    sessions: int, fake_url: str, store: str, not_local: bool, way: str = "llm", records: int | None = None
) -> float:
    """`records`: each session is first seeded through the session API with that many tickets."""
    from benchmarks.rl_worker import planned_call
    from sim_mcp.config import Settings
    from sim_mcp.runtime import Runtime
    from sim_mcp.server.heap import settle_heap

    answering: dict[str, Any] = {"backend": "offline", "run_rules": way == "rules"}
    if way == "llm":
        answering = {"backend": "openai", "base_url": fake_url, "model": "fake", "run_rules": False}
    settings = Settings(specs=[REPO / "tool_specs"], backend_concurrency=sessions, store=store, **answering)
    state = seeded_tickets(records) if records is not None else None
    async with Runtime(settings) as runtime:
        if not_local:

            async def needs_the_lock(change: Any) -> None:
                return None

            runtime.hooks.subscribe(needs_the_lock)

        async def session(name: str) -> None:
            if state is not None:
                await runtime.sessions.create(session_id=name, env="tickets", state=state, state_mode="replace")
            created: list[str] = []
            for i in range(10):
                tool, arguments = planned_call(name, i, created)
                result = await runtime.simulator.call(name, tool, arguments, scope="tickets")
                if result.is_error:
                    raise SystemExit(f"{name}: {tool} failed: {result.result}")
                if tool == "create_ticket":
                    created.append(result.result["id"])

        tag = time.time_ns()
        await asyncio.gather(*(session(f"warm-{tag}-{n}") for n in range(sessions)))
        settle_heap()
        started = time.process_time()
        await asyncio.gather(*(session(f"run-{tag}-{n}") for n in range(sessions)))
        return (time.process_time() - started) / (sessions * 10) * 1000


def one_run(
    checkout: Path,
    sessions: int,
    fake_url: str,
    store: str,
    not_local: bool,
    way: str = "llm",
    records: int | None = None,
) -> float:
    """A fresh process in `checkout` (its `sim_mcp` first on the path): its CPU per call, in ms."""
    # This file runs the child (the other checkout may not have it), with that checkout's `sim_mcp` first.
    command = [sys.executable, str(Path(__file__).resolve()), "--run", "--sessions", str(sessions)]
    command += ["--fake-url", fake_url, "--store-url", store] + (["--subscriber-not-local"] if not_local else [])
    command += ["--way", way] + (["--records", str(records)] if records is not None else [])
    env = {**os.environ, "OPENAI_API_KEY": "sk-bench-unused", "PYTHONPATH": os.pathsep.join([str(checkout), str(REPO)])}
    done = subprocess.run(command, cwd=checkout, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"run in {checkout} failed:\n{done.stderr[-2000:]}")
    return float(done.stdout.strip().splitlines()[-1])


def compare(sessions: int, runs: int, store: str, against: Path | None, not_local: bool) -> str:
    sides: dict[str, tuple[Path, bool]] = {"this": (REPO, False)}
    if against is not None:
        sides["against"] = (against, False)
    if not_local:
        sides["this, a subscriber that is not local"] = (REPO, True)
    figures: dict[str, list[float]] = {name: [] for name in sides}
    # redis-server's CPU per call over each whole run (its warm-up calls too: twice the measured ones).
    redis_figures: dict[str, list[float]] = {name: [] for name in sides}
    with fake_llm(0.0) as fake, redis_server() as redis:
        if store != "memory" and not isinstance(redis, RedisServer):
            raise SystemExit(str(redis))
        url = redis.url if isinstance(redis, RedisServer) and store != "memory" else "memory"
        for run in range(runs):
            order = list(sides) if run % 2 == 0 else list(reversed(sides))
            for name in order:
                checkout, subscriber = sides[name]
                redis_before = cpu_seconds(redis.pid) if isinstance(redis, RedisServer) else 0.0
                figures[name].append(one_run(checkout, sessions, f"{fake.url}/v1", url, subscriber))
                if isinstance(redis, RedisServer):
                    redis_s = cpu_seconds(redis.pid) - redis_before
                    redis_figures[name].append(redis_s / (2 * sessions * 10) * 1000)
                    redis.flush()
            print(f"run {run + 1}: " + ", ".join(f"{name} {figures[name][-1]:.3f} ms" for name in sides), flush=True)
    lines = [
        f"{sessions} sessions x 10 calls a run, {runs} runs, store {store}, load average {os.getloadavg()[0]:.1f}",
        "",
        "| side | CPU per call, median | min | max |",
        "|---|---:|---:|---:|",
    ]
    for name, values in figures.items():
        lines.append(f"| {name} | {statistics.median(values):.3f} ms | {min(values):.3f} ms | {max(values):.3f} ms |")
    # Runs side by side share the machine's load of the moment: their difference moves less than either.
    for name, values in figures.items():
        if name != "this":
            paired = [other - this for other, this in zip(values, figures["this"], strict=True)]
            lines.append(f"\n{name} less this, run by run: median {statistics.median(paired):+.3f} ms")
    for name, values in redis_figures.items():
        if values:
            lines.append(f"\nredis-server CPU per call, {name}: median {statistics.median(values):.3f} ms")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=64)
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--store", choices=("memory", "redis"), default="memory")
    parser.add_argument("--against", type=Path, help="another checkout, alternated with this one")
    parser.add_argument(
        "--subscriber-not-local", action="store_true", help="also run with an after-commit subscriber not local"
    )
    parser.add_argument("--run", action="store_true", help=argparse.SUPPRESS)  # one measured run (a child)
    parser.add_argument("--fake-url", help=argparse.SUPPRESS)
    parser.add_argument("--store-url", help=argparse.SUPPRESS)
    parser.add_argument("--way", choices=WAYS, default="llm", help=argparse.SUPPRESS)
    parser.add_argument("--records", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        import sim_mcp

        print(f"sim_mcp from {Path(sim_mcp.__file__).parent.parent}", file=sys.stderr)
        measured = _measure(
            args.sessions, args.fake_url, args.store_url, args.subscriber_not_local, args.way, args.records
        )
        print(f"{asyncio.run(measured):.4f}")
        return
    print(compare(args.sessions, args.runs, args.store, args.against, args.subscriber_not_local))


if __name__ == "__main__":
    main()
