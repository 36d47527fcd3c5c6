"""Server CPU per call under the RL load, each way of answering against the bare SDK server, in rounds.

    python -m benchmarks.cpu_per_call --sessions 128 --rounds 3
    python -m benchmarks.cpu_per_call --sessions 128 --rounds 3 --against /path/to/another/checkout
    python -m benchmarks.cpu_per_call --rounds 3 --against DIR --ways "llm, memory;llm, redis"

Each round runs the bare SDK server and then a fresh `sim-mcp serve` for each way of answering (the LLM
backend against the fake provider at 100 ms on the memory store and on Redis; the tickets environment's
rules programs; replay of a cassette recorded once before the rounds), under the same RL load as
`rl_scale.py` (sessions x 10 calls, lean clients). A figure is the server's CPU per call; its ratio is
to the bare server's in the same round, and the table gives the median of each over the rounds: on a
machine shared with other work both move together, and the ratio moves less than either.

`--against DIR` runs every sim-mcp way a second time in each round from another checkout of the
repository (`python -m sim_mcp.cli` with DIR as the working directory, the same specs): a before/after
comparison of a change under the same conditions, interleaved. `--ways` measures only the named ways
(separated by `;`), for a change that touches only them: shorter rounds, so more of them in the time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path

from benchmarks.rl_scale import LATENCY_MS, Load, run_workers
from benchmarks.servers import (
    REPO,
    HttpServer,
    RedisServer,
    bare_http,
    fake_llm,
    redis_server,
    server_env,
    start_sim_http,
    stop_all,
)

WAYS = ("llm, memory", "llm, redis", "rules", "replay")


@dataclass(frozen=True)
class Setting:
    fake: HttpServer
    redis: RedisServer | None
    cassette: Path
    load: Load


def server_args(way: str, setting: Setting) -> list[str]:
    llm = ["--backend", "openai", "--base-url", f"{setting.fake.url}/v1", "--model", "fake", "--no-run-rules"]
    match way:
        case "llm, memory":
            return [*llm, "--store", "memory"]
        case "llm, redis":
            assert setting.redis is not None
            return [*llm, "--store", setting.redis.url]
        case "rules":
            return ["--backend", "offline", "--store", "memory"]
        case "replay":
            return ["--backend", "replay", "--cassette", str(setting.cassette), "--no-run-rules"]
    raise ValueError(way)


def sim_cpu_ms(way: str, setting: Setting, prefix: str, checkout: Path, extra: tuple[str, ...] = ()) -> float:
    """One fresh server answering the load one way: its CPU per call, in ms (NaN where calls failed)."""
    env = server_env(SIM_MCP_BACKEND_CONCURRENCY=str(setting.load.sessions), OPENAI_API_KEY="sk-bench-unused")
    sim = start_sim_http(*server_args(way, setting), *extra, env=env, timeout=60.0, cwd=checkout)
    try:
        result = run_workers(sim.url, "/mcp/tickets", setting.load, prefix, echo=False, server_pid=sim.pid)
    finally:
        sim.stop()
    if setting.redis is not None:
        setting.redis.flush()
    calls = setting.load.sessions * setting.load.calls
    return float("nan") if result.errors else result.server_cpu_s / calls * 1000


def measure(sessions: int, rounds: int, against: Path | None, only: tuple[str, ...] = WAYS) -> str:
    load = Load(sessions=sessions, calls=10, workers=2, client="lean")
    calls = sessions * load.calls
    checkouts = {"this": REPO, **({"against": against} if against is not None else {})}
    figures: dict[tuple[str, str], list[float]] = {}
    ratios: dict[tuple[str, str], list[float]] = {}
    bare_ms: list[float] = []
    tag = f"cpu{os.getpid()}"
    with (
        tempfile.TemporaryDirectory(prefix="sim-mcp-cpu-") as folder,
        fake_llm(LATENCY_MS) as fake,
        redis_server() as redis,
    ):
        setting = Setting(fake, redis if isinstance(redis, RedisServer) else None, Path(folder) / "c.jsonl", load)
        # The cassette replay answers from: the same sessions (names and calls) answered by the LLM once.
        sim_cpu_ms("llm, memory", setting, f"{tag}-rec", REPO, ("--record", str(setting.cassette)))
        ways = [way for way in only if way != "llm, redis" or setting.redis is not None]
        for round_ in range(rounds):
            with bare_http() as bare:
                baseline = run_workers(bare.url, "/mcp", load, f"{tag}-b{round_}", echo=True, server_pid=bare.pid)
            bare_ms.append(baseline.server_cpu_s / calls * 1000)
            # The bare server with sim-mcp's collector tuning: what that tuning alone is worth to any server.
            with bare_http("--settle-heap") as bare:
                tuned = run_workers(bare.url, "/mcp", load, f"{tag}-t{round_}", echo=True, server_pid=bare.pid)
            figures.setdefault(("bare SDK, collector tuned as sim-mcp's", "-"), []).append(
                tuned.server_cpu_s / calls * 1000
            )
            ratios.setdefault(("bare SDK, collector tuned as sim-mcp's", "-"), []).append(
                tuned.server_cpu_s / baseline.server_cpu_s
            )
            for way in ways:
                for name, checkout in checkouts.items():
                    prefix = f"{tag}-rec" if way == "replay" else f"{tag}-{round_}"
                    ms = sim_cpu_ms(way, setting, prefix, checkout)
                    figures.setdefault((way, name), []).append(ms)
                    ratios.setdefault((way, name), []).append(ms / bare_ms[-1])
                    print(f"round {round_ + 1}: {way} ({name}) {ms:.2f} ms, bare {bare_ms[-1]:.2f} ms", flush=True)
    lines = [
        f"{sessions} sessions x 10 calls, {rounds} rounds; medians (each ratio: to the bare server of its round)",
        "",
        "| way | checkout | server CPU per call | bare SDK | ratio |",
        "|---|---|---:|---:|---:|",
    ]
    for (way, name), values in figures.items():
        lines.append(
            f"| {way} | {name} | {statistics.median(values):.2f} ms | {statistics.median(bare_ms):.2f} ms | "
            f"{statistics.median(ratios[(way, name)]):.2f}x |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--against", type=Path, help="another checkout, run beside this one in every round")
    parser.add_argument("--ways", default=";".join(WAYS), help=f"which ways, separated by ';' (of {'; '.join(WAYS)})")
    args = parser.parse_args()
    only = tuple(way.strip() for way in args.ways.split(";") if way.strip())
    unknown = [way for way in only if way not in WAYS]
    if unknown or not only:
        parser.error(f"--ways: unknown way(s) {unknown or args.ways!r}; expected some of {'; '.join(WAYS)}")
    try:
        print(measure(args.sessions, args.rounds, args.against, only))
    finally:
        stop_all()


if __name__ == "__main__":
    main()
