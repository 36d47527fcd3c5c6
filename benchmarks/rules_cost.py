"""Rules cost: server CPU per call when a rules program answers, against the generic offline engine.

Two `sim-mcp serve` processes on the bundled specs, the same calls from the same SDK client over
Streamable HTTP (2026-07-28 era, one client): one server runs the environments' rules programs (the
default), the other has them off (`SIM_MCP_RUN_RULES=false`), so the generic offline engine answers.
Rounds alternate the two, each with new sessions. Target: a program-answered call costs at most 1.25x
the generic engine's server CPU per call. Beside it, the same ratio in process (`Simulator.call` alone,
no transport), which shows the engines' own cost without the server's per-call overhead around it.

    python -m benchmarks.rules_cost [--quick]
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import time
from typing import Any

import anyio

from benchmarks.clients import LoadResult, sdk_http_load
from benchmarks.overhead import merge
from benchmarks.report import Figure, Target, table
from benchmarks.servers import BUNDLED_SPECS, HttpServer, server_env, sim_http

SECTION = "6 rules"
CPU_TARGET = Target(1.25)
CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "get_ticket": ("get_ticket", {"ticket_id": "T-1001"}),
    "create_ticket": (
        "create_ticket",
        {"title": "VPN drops", "description": "Every 10 minutes.", "customer_email": "ops@acme.example"},
    ),
    "create_transfer": ("create_transfer", {"from_account_id": "ACC-1002", "to_account_id": "ACC-1003", "amount": 1}),
}


async def _round(server: HttpServer, call: str, calls: int, prefix: str) -> LoadResult:
    tool, arguments = CALLS[call]
    return await sdk_http_load(
        f"{server.url}/mcp",
        mode="auto",
        clients=1,
        calls=calls,
        plan=lambda i: (tool, arguments),
        session_prefix=prefix,
        server_pid=server.pid,
    )


async def measure(quick: bool) -> list[Figure]:
    # As the overhead section: 100 calls per session and round (1 round of 40 quick).
    rounds, calls = (1, 40) if quick else (4, 100)
    names = itertools.count()
    figures: list[Figure] = []
    with sim_http() as rules, sim_http(env=server_env(SIM_MCP_RUN_RULES="false")) as generic:
        servers = {"rules": rules, "generic": generic}
        for call in CALLS:
            results: dict[str, list[LoadResult]] = {"rules": [], "generic": []}
            for index in range(rounds):
                order = ("rules", "generic") if index % 2 == 0 else ("generic", "rules")
                for name in order:
                    prefix = f"rules{os.getpid()}-{next(names)}"
                    results[name].append(await _round(servers[name], call, calls, prefix))
            by_rules, by_generic = merge(results["rules"]), merge(results["generic"])
            figures.append(
                Figure(
                    SECTION,
                    f"http 2026-07-28, 1 client, {call}: server CPU per call, rules program vs generic engine",
                    by_rules.server_cpu_s / max(by_rules.calls, 1) * 1000,
                    "ms",
                    by_generic.server_cpu_s / max(by_generic.calls, 1) * 1000,
                    CPU_TARGET,
                    failed=by_rules.errors + by_generic.errors > 0,
                    note="; ".join(by_rules.error_samples + by_generic.error_samples)[:200],
                )
            )
    figures += await _in_process(rounds, calls)
    return figures


async def _in_process(rounds: int, calls: int) -> list[Figure]:
    """`Simulator.call` alone, CPU per call, with and without the rules programs (no transport); sessions
    of `calls` calls, as over HTTP."""
    from sim_mcp.config import Settings
    from sim_mcp.runtime import Runtime

    figures = []
    for call, (tool, arguments) in CALLS.items():
        spent: dict[bool, float] = {}
        for run_rules in (True, False):
            async with Runtime(Settings(specs=[BUNDLED_SPECS], run_rules=run_rules)) as runtime:
                await runtime.simulator.call("warm", tool, arguments)
                started = time.process_time()
                for session in range(rounds):
                    for _ in range(calls):
                        await runtime.simulator.call(f"bench-{session}", tool, arguments)
                spent[run_rules] = (time.process_time() - started) / (rounds * calls) * 1000
        name = f"in process, {call}: CPU per Simulator.call, rules program vs generic engine"
        figures.append(Figure(SECTION, name, spent[True], "ms", spent[False]))
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="one round of 40 calls per figure")
    args = parser.parse_args(argv)
    figures = anyio.run(measure, args.quick)
    print(table(figures))
    return 1 if any(figure.verdict in ("MISS", "FAIL") for figure in figures) else 0


if __name__ == "__main__":
    sys.exit(main())
