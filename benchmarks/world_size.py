"""CPU per call against the size of a session's world: what a bigger seeded world costs each way of answering.

    python -m benchmarks.world_size --records 5,100,1000 --ways "rules;generic;llm"
    python -m benchmarks.world_size --against /path/to/another/checkout
    python -m benchmarks.world_size --store redis --ways "llm"

Each (way, size) is a fresh process (`--run`, below) that builds a `Runtime` of the bundled specs, seeds
`--sessions` sessions of the tickets environment through the session API with the spec's own tickets
copied to `--records` (660 bytes of JSON each; about 1,500 fill the default 1 MB state limit), answers 10
calls a session (the RL load's creates, reads and a list, `rl_worker.planned_call`), then measures the
process's CPU over as many more sessions. Ways: `rules` (the tickets environment's Starlark programs),
`generic` (`--no-run-rules`: the generic offline engine), `llm` (the openai backend against the fake
provider, `benchmarks/fake_llm.py`, in a process of its own whose CPU is not counted; no latency). With
`--against DIR`, each figure is measured in that checkout too, side by side, the two alternating. `--store
redis`: the sessions in a throwaway redis-server (whose own CPU is not counted) instead of in memory.
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

from benchmarks.servers import REPO, RedisServer, fake_llm, redis_server

WAYS = ("rules", "generic", "llm")


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


async def _measure(way: str, records: int, sessions: int, fake_url: str, store: str) -> float:
    from benchmarks.rl_worker import planned_call
    from sim_mcp.config import Settings
    from sim_mcp.runtime import Runtime
    from sim_mcp.server.heap import settle_heap

    options: dict[str, Any] = {"backend": "offline"}
    if way == "generic":
        options = {"backend": "offline", "run_rules": False}
    elif way == "llm":
        options = {"backend": "openai", "base_url": fake_url, "model": "fake", "run_rules": False}
    settings = Settings(specs=[REPO / "tool_specs"], store=store, backend_concurrency=sessions, **options)
    state = seeded_tickets(records)
    async with Runtime(settings) as runtime:

        async def session(name: str) -> None:
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


def one_run(checkout: Path, way: str, records: int, sessions: int, fake_url: str, store: str) -> float:
    """A fresh process with `checkout`'s `sim_mcp` first on the path: its CPU per call, in ms."""
    command = [sys.executable, str(Path(__file__).resolve()), "--run", "--way", way, "--records", str(records)]
    command += ["--sessions", str(sessions), "--fake-url", fake_url, "--store-url", store]
    env = {**os.environ, "OPENAI_API_KEY": "sk-bench-unused", "PYTHONPATH": os.pathsep.join([str(checkout), str(REPO)])}
    done = subprocess.run(command, cwd=checkout, env=env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"{way} at {records} records in {checkout} failed:\n{done.stderr[-2000:]}")
    return float(done.stdout.strip().splitlines()[-1])


def measure(sizes: list[int], ways: list[str], sessions: int, runs: int, against: Path | None, store: str) -> str:
    sides = {"this": REPO, **({"against": against} if against is not None else {})}
    figures: dict[tuple[str, int, str], list[float]] = {}
    with fake_llm(0.0) as fake, redis_server() as redis:
        if store == "redis" and not isinstance(redis, RedisServer):
            raise SystemExit(str(redis))
        url = redis.url if store == "redis" and isinstance(redis, RedisServer) else "memory"
        for run in range(runs):
            for way in ways:
                for records in sizes:
                    order = list(sides) if run % 2 == 0 else list(reversed(sides))
                    for name in order:
                        ms = one_run(sides[name], way, records, sessions, f"{fake.url}/v1", url)
                        figures.setdefault((way, records, name), []).append(ms)
                        print(f"run {run + 1}: {way}, {records} records ({name}): {ms:.3f} ms", flush=True)
    lines = [
        f"{sessions} sessions x 10 calls, {runs} runs, medians, store {store}; load average {os.getloadavg()[0]:.1f}",
        "",
        "| way | records | " + " | ".join(f"CPU per call ({name})" for name in sides) + " |",
        "|---|---:|" + "---:|" * len(sides),
    ]
    for way in ways:
        for records in sizes:
            cells = " | ".join(f"{statistics.median(figures[(way, records, name)]):.3f} ms" for name in sides)
            lines.append(f"| {way} | {records} | {cells} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", default="5,100,1000", help="seeded tickets per session, separated by ','")
    parser.add_argument("--ways", default=";".join(WAYS), help=f"separated by ';' (of {', '.join(WAYS)})")
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--against", type=Path, help="another checkout, run beside this one")
    parser.add_argument("--store", choices=("memory", "redis"), default="memory")
    parser.add_argument("--run", action="store_true", help=argparse.SUPPRESS)  # one measured run (a child)
    parser.add_argument("--way", help=argparse.SUPPRESS)
    parser.add_argument("--fake-url", help=argparse.SUPPRESS)
    parser.add_argument("--store-url", default="memory", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        print(asyncio.run(_measure(args.way, int(args.records), args.sessions, args.fake_url, args.store_url)))
        return
    ways = [way.strip() for way in args.ways.split(";") if way.strip()]
    unknown = sorted(set(ways) - set(WAYS))
    if unknown:
        parser.error(f"--ways: unknown {', '.join(unknown)}; expected some of {', '.join(WAYS)}")
    sizes = [int(size) for size in args.records.split(",")]
    print(measure(sizes, ways, args.sessions, args.runs, args.against, args.store))


if __name__ == "__main__":
    main()
