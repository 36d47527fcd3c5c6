"""`sim-mcp bench-fidelity`: score a backend's consistency on scripted call sequences (docs/rewards.md)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from sim_mcp.cli.flags import add_setting_flags, settings_from
from sim_mcp.cli.output import add_log_level
from sim_mcp.errors import ConfigError


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    bench = commands.add_parser(
        "bench-fidelity", help="score a backend's consistency on scripted call sequences (docs/rewards.md)"
    )
    add_setting_flags(bench, ("specs", "engine", "llm"))  # its reference runs in memory
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
    bench.add_argument(
        "--reference",
        type=Path,
        action="append",
        metavar="SPECS",
        help="spec files or folders whose rules programs give each call's expected state (default: the specs "
        "served); each call then starts from the reference's state",
    )
    bench.add_argument(
        "--no-reference", action="store_true", help="no reference: score state only by the steps' state checks"
    )
    bench.add_argument("--json", type=Path, help="also write the full report, every expectation missed, as JSON")
    bench.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run fidelity scenarios through the chosen backend; print the table (and write --json). Exit 0
    whatever the score: the score is the output."""
    import anyio

    from sim_mcp.episodes.fidelity import BenchmarkReport, load_scenarios, render_report, run_benchmark
    from sim_mcp.runtime import Runtime

    paths = [Path(path) for path in args.scenarios] or [Path("benchmarks/fidelity")]
    scenarios, errors = load_scenarios(*paths)
    if errors:
        raise ConfigError("invalid scenario files:\n" + "\n".join(f"  {error}" for error in errors))
    if not scenarios:
        raise ConfigError(f"no scenario files in {', '.join(map(str, paths))}")
    settings = settings_from(args)
    # The reference answers by the hand-written programs: no model, the rules run, in memory.
    reference = settings.model_copy(
        update={
            "backend": "offline",
            "run_rules": True,
            "store": "memory",
            "specs": args.reference or settings.specs,
            "llm_output": "patch",
            "trajectories": None,
            "record": None,
        }
    )

    async def bench() -> BenchmarkReport:
        async with Runtime(settings) as runtime:
            if args.no_reference:
                return await run_benchmark(runtime.sessions, scenarios, rules=args.rules)
            async with Runtime(reference) as expected:
                return await run_benchmark(runtime.sessions, scenarios, rules=args.rules, reference=expected.sessions)

    report = anyio.run(bench)
    print(render_report(report))
    if args.json is not None:
        try:
            args.json.write_text(json.dumps(report.to_json(), indent=2) + "\n", encoding="utf-8")
        except OSError as e:
            raise ConfigError(f"--json: cannot write {args.json}: {e.strerror or e}") from e
    return 0
