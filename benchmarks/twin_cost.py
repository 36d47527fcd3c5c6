"""CPU per call of a twin's programs in process (`Simulator.call`, no transport): what a twin built by
`benchmarks.twins --keep DIR` costs per call, to set beside section 6's rules programs and the generic
engine (BENCHMARKS.md, "Twins of real servers").

    python -m benchmarks.twins --servers memory --keep /tmp/twins
    python -m benchmarks.twin_cost /tmp/twins/memory/twin

The twin of server-memory: sessions of `--calls` calls each of a read tool (read_graph, search_nodes),
alone, then with a create_entities of one new entity before every third read, so that the world grows
as in a session. Another twin's tools are named with `--tool NAME=ARGUMENTS` (JSON), each timed alone:

    python -m benchmarks.twin_cost /tmp/twins/sequential-thinking/twin --tool \
        'sequentialthinking={"thought": "t", "nextThoughtNeeded": true, "thoughtNumber": 1, "totalThoughts": 3}'
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

from sim_mcp.config import Settings
from sim_mcp.runtime import Runtime

_ENTITY = '{"entities": [{"name": "e%d", "entityType": "t", "observations": ["o"]}]}'


async def measure(
    folder: Path, reads: list[tuple[str, dict[str, object]]], write: str | None, calls: int, sessions: int
) -> None:
    async with Runtime(Settings(specs=[folder / "spec.yaml"])) as runtime:
        simulator = runtime.simulator
        for tool, arguments in reads:
            for with_writes in (False, True) if write is not None else (False,):
                await simulator.call("warm", tool, arguments)
                count = 0
                started = time.process_time()
                for session in range(sessions):
                    for i in range(calls):
                        name = f"{tool}-{with_writes}-{session}"
                        if write is not None and with_writes and i % 3 == 0:
                            await simulator.call(name, write, json.loads(_ENTITY % (session * calls + i)))
                            count += 1
                        await simulator.call(name, tool, arguments)
                        count += 1
                spent = (time.process_time() - started) / count * 1000
                label = f"{tool}, with a {write} every third call" if with_writes else f"{tool} alone"
                print(f"{label:<55} {spent:.3f} ms CPU per Simulator.call ({count} calls)")


def _named_call(text: str) -> tuple[str, dict[str, object]]:
    name, _, arguments = text.partition("=")
    decoded = json.loads(arguments or "{}")
    if not name or not isinstance(decoded, dict):
        raise SystemExit(f"--tool {text!r}: expected NAME=ARGUMENTS, the arguments a JSON object")
    return name, decoded


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path, help="a twin's folder (spec.yaml and spec.rules.star)")
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument(
        "--tool",
        action="append",
        default=[],
        metavar="NAME=ARGUMENTS",
        help="time this tool alone with these arguments (JSON) instead of the memory twin's reads",
    )
    args = parser.parse_args()
    if args.tool:
        reads = [_named_call(text) for text in args.tool]
        asyncio.run(measure(args.folder, reads, None, args.calls, args.sessions))
        return 0
    memory: list[tuple[str, dict[str, object]]] = [("read_graph", {}), ("search_nodes", {"query": "e1"})]
    asyncio.run(measure(args.folder, memory, "create_entities", args.calls, args.sessions))
    return 0


if __name__ == "__main__":
    sys.exit(main())
