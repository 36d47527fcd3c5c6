"""`sim-mcp bench-fidelity`: score a backend's consistency on scripted call sequences (docs/rewards.md)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import anyio

from sim_mcp.cli.flags import add_setting_flags, settings_from
from sim_mcp.cli.output import add_log_level
from sim_mcp.errors import ConfigError


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    bench = commands.add_parser(
        "bench-fidelity", help="score a backend's consistency on scripted call sequences (docs/rewards.md)"
    )
    add_setting_flags(bench, server=False)
    add_log_level(bench, "WARNING")
    bench.add_argument(
        "scenarios", nargs="*", help="scenario files or folders (default: benchmarks/fidelity)", metavar="SCENARIOS"
    )
    bench.add_argument(
        "--rules",
        choices=["auto", "always", "never"],
        default="auto",
        help="count the expectations that follow from the instructions: auto (backends with a model), always, never",
    )
    bench.add_argument("--json", type=Path, help="also write the full report, every expectation missed, as JSON")
    bench.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run fidelity scenarios through the chosen backend; print the table (and write --json). Exit 0
    whatever the score: the score is the output."""
    from sim_mcp.episodes.fidelity import BenchmarkReport, load_scenarios, render_report, run_benchmark
    from sim_mcp.runtime import Runtime

    paths = [Path(path) for path in args.scenarios] or [Path("benchmarks/fidelity")]
    scenarios, errors = load_scenarios(*paths)
    if errors:
        raise ConfigError("invalid scenario files:\n" + "\n".join(f"  {error}" for error in errors))
    if not scenarios:
        raise ConfigError(f"no scenario files in {', '.join(map(str, paths))}")
    settings = settings_from(args)

    async def bench() -> BenchmarkReport:
        async with Runtime(settings) as runtime:
            return await run_benchmark(runtime.sessions, scenarios, rules=args.rules)

    report = anyio.run(bench)
    print(render_report(report))
    if args.json is not None:
        try:
            args.json.write_text(json.dumps(report.to_json(), indent=2) + "\n", encoding="utf-8")
        except OSError as e:
            raise ConfigError(f"--json: cannot write {args.json}: {e.strerror or e}") from e
    return 0
