"""CLI start-up: how long `sim-mcp --help` and each command's `--help` take, from process start to exit.

Each is run `--runs` times as a fresh process (the installed `sim-mcp` script beside this Python, else
`python -c 'from sim_mcp.cli import main; ...'`); the figures are the median wall time and the median CPU
time (user + system, of the child: what a busy machine's other work does not inflate as much). Target:
0.3 s each. What each command imports is held by tests/test_cli_imports.py; this says what it costs.

    python -m benchmarks.cli_startup [--runs N]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from sim_mcp.cli import COMMANDS

TARGET_S = 0.3


def command_line() -> list[str]:
    script = Path(sys.executable).parent / "sim-mcp"
    if script.exists():
        return [str(script)]
    found = shutil.which("sim-mcp")
    if found:
        return [found]
    return [sys.executable, "-c", "import sys; from sim_mcp.cli import main; sys.exit(main())"]


def timed(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of `argv`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="runs of each command (default 9)")
    args = parser.parse_args()
    base = command_line()
    cases = [["--help"], *([command.name, "--help"] for command in COMMANDS), ["tasks", "check", "--help"]]
    timed([*base, "--help"])  # warm the file cache and the bytecode
    load = os.getloadavg()[0]
    print(f"sim-mcp start-up, {args.runs} runs each, median; load average {load:.1f} on {os.cpu_count()} CPUs")
    print("| command | wall | CPU | target | |\n|---|---:|---:|---|---|")
    for case in cases:
        runs = [timed([*base, *case]) for _ in range(args.runs)]
        wall = statistics.median(run[0] for run in runs)
        cpu = statistics.median(run[1] for run in runs)
        verdict = "PASS" if wall <= TARGET_S else "MISS"
        print(f"| `sim-mcp {' '.join(case)}` | {wall:.3f} s | {cpu:.3f} s | <= {TARGET_S} s | {verdict} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
