"""CPU per call against the size of a session's world: what a bigger seeded world costs each way of answering.

    python -m benchmarks.world_size --records 5,100,1000 --ways "rules;generic;llm"
    python -m benchmarks.world_size --against /path/to/another/checkout
    python -m benchmarks.world_size --store redis --ways "llm"

Each (way, size) is a fresh process, the one `benchmarks/cpu_in_process.py` runs, that builds a `Runtime`
of the bundled specs, seeds `--sessions` sessions of the tickets environment through the session API with
the spec's own tickets copied to `--records` (about 480 bytes of JSON each; about 2,000 fill the default 1 MB
state limit), answers 10 calls a session (the RL load's creates, reads and a list,
`rl_worker.planned_call`), then measures the process's CPU over as many more sessions. Ways: `rules` (the
tickets environment's Starlark programs), `generic` (`--no-run-rules`: the generic offline engine), `llm`
(the openai backend against the fake provider, `benchmarks/fake_llm.py`, in a process of its own whose CPU
is not counted; no latency). With `--against DIR`, each figure is measured in that checkout too, side by
side, the two alternating. `--store redis`: the sessions in a throwaway redis-server (whose own CPU is not
counted) instead of in memory.
"""

from __future__ import annotations

import argparse
import os
import statistics
from pathlib import Path

from benchmarks.cpu_in_process import WAYS, one_run
from benchmarks.servers import REPO, RedisServer, fake_llm, redis_server


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
                        ms = one_run(sides[name], sessions, f"{fake.url}/v1", url, False, way, records)
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
    parser.add_argument("--ways", default="rules;generic;llm", help=f"separated by ';' (of {', '.join(WAYS)})")
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--against", type=Path, help="another checkout, run beside this one")
    parser.add_argument("--store", choices=("memory", "redis"), default="memory")
    args = parser.parse_args()
    ways = [way.strip() for way in args.ways.split(";") if way.strip()]
    unknown = sorted(set(ways) - set(WAYS))
    if unknown:
        parser.error(f"--ways: unknown {', '.join(unknown)}; expected some of {', '.join(WAYS)}")
    sizes = [int(size) for size in args.records.split(",")]
    print(measure(sizes, ways, args.sessions, args.runs, args.against, args.store))


if __name__ == "__main__":
    main()
