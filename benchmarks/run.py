"""Run the benchmarks and print every figure with its baseline, ratio, target and verdict.

    python benchmarks/run.py                 # everything (about 10 minutes on 2 cores)
    python benchmarks/run.py --quick         # a short smoke run of every section (about 3 minutes)
    python benchmarks/run.py --only overhead,prompt
    python benchmarks/run.py --markdown results.md
    python benchmarks/run.py --only scale --workers 1,2,4,8   # the RL load at each --workers count

Sections: overhead, rl, memory, prompt, stores, rules (see each module's docstring, and BENCHMARKS.md);
everything runs them. `scale` (scaling.py) runs only when named: it means most on a machine with many
cores, and on 2 cores it shows the cores there are, not the design's limit.
Servers run in their own processes on 127.0.0.1 and are stopped on exit, Ctrl-C included.
"""

from __future__ import annotations

import argparse
import atexit
import os
import platform
import signal
import sys
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from types import FrameType

if __package__ in (None, ""):
    # `python benchmarks/run.py`: make the repository importable as it is for `python -m benchmarks.run`.
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import anyio

from benchmarks import memory, overhead, prompt_growth, rl_scale, rules_cost, scaling, stores
from benchmarks.report import Figure, table
from benchmarks.servers import stop_all

SECTIONS = ("overhead", "rl", "memory", "prompt", "stores", "rules")
# Sections run only when `--only` names them.
EXTRA_SECTIONS = ("scale",)


def machine() -> str:
    meminfo = Path("/proc/meminfo").read_text().split("\n", 1)[0].split()
    memory_gib = int(meminfo[1]) / 1024 / 1024
    load = Path("/proc/loadavg").read_text().split()[:3]
    versions = ", ".join(f"{name} {metadata.version(name)}" for name in ("sim-mcp", "mcp", "uvicorn", "httpx"))
    return (
        f"{os.cpu_count()} cores, {memory_gib:.0f} GiB, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}; {versions}; load average {' '.join(load)}"
    )


def _runner(name: str, args: argparse.Namespace) -> Callable[[], list[Figure]]:
    quick = args.quick
    match name:
        case "overhead":
            return lambda: anyio.run(overhead.measure, quick)
        case "rl":
            return lambda: rl_scale.measure(quick, client=args.rl_client, workers=args.rl_workers)
        case "memory":
            return lambda: memory.measure(quick)
        case "prompt":
            return lambda: prompt_growth.measure(quick)
        case "stores":
            return lambda: stores.measure(quick)
        case "rules":
            return lambda: anyio.run(rules_cost.measure, quick)
        case "scale":
            return lambda: scaling.measure(
                quick, args.workers, client_processes=args.scale_clients, sessions=args.scale_sessions
            )
    raise ValueError(name)


def _counts(text: str) -> list[int]:
    """`--workers 1,2,4,8`: positive worker counts."""
    try:
        counts = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(
            f"expected positive worker counts separated by commas, such as 1,2,4,8; got {text!r}"
        )
    return counts


def _on_signal(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="sim-mcp benchmarks: figures, ratios and targets.")
    parser.add_argument("--quick", action="store_true", help="a short smoke run (smaller loads, one round)")
    parser.add_argument("--only", default=",".join(SECTIONS), help=f"comma-separated sections of {SECTIONS}")
    parser.add_argument(
        "--rl-client", choices=["sdk", "lean"], default="lean", help="RL-scale client: lean (default) or the SDK Client"
    )
    parser.add_argument("--rl-workers", type=int, default=2, help="RL-scale client processes (default 2)")
    parser.add_argument(
        "--workers",
        type=_counts,
        default=[1, 2, 4, 8],
        help="scale: the --workers counts to run, comma-separated (default 1,2,4,8)",
    )
    parser.add_argument(
        "--scale-sessions", type=int, help="scale: concurrent sessions of 10 calls (default 1024, --quick 128)"
    )
    parser.add_argument("--scale-clients", type=int, default=4, help="scale: client processes (default 4)")
    parser.add_argument("--markdown", type=Path, help="also write the results table to this file")
    args = parser.parse_args(argv)
    chosen = [name.strip() for name in args.only.split(",") if name.strip()]
    if unknown := sorted(set(chosen) - set(SECTIONS) - set(EXTRA_SECTIONS)):
        known = ", ".join(SECTIONS + EXTRA_SECTIONS)
        parser.error(f"unknown section(s) {', '.join(unknown)}: expected some of {known}")

    atexit.register(stop_all)
    signal.signal(signal.SIGTERM, _on_signal)
    header = f"Machine: {machine()}\nCommand: python benchmarks/run.py {' '.join(sys.argv[1:])}".rstrip()
    print(header, flush=True)
    figures: list[Figure] = []
    started = time.perf_counter()
    try:
        for name in chosen:
            section_started = time.perf_counter()
            print(f"\n== {name} ...", flush=True)
            found = _runner(name, args)()
            figures += found
            print(table(found), flush=True)
            print(f"({time.perf_counter() - section_started:.0f} s)", flush=True)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    finally:
        stop_all()
    verdicts = [figure.verdict for figure in figures if figure.verdict]
    summary = ", ".join(f"{verdicts.count(v)} {v}" for v in ("PASS", "MISS", "FAIL", "n/a") if v in verdicts)
    footer = f"{summary or 'no targets'}; {time.perf_counter() - started:.0f} s; load average at the end " + " ".join(
        Path("/proc/loadavg").read_text().split()[:3]
    )
    print(f"\n== all figures\n{table(figures)}\n\n{footer}")
    if args.markdown is not None:
        args.markdown.write_text(f"{header}\n\n{table(figures)}\n\n{footer}\n")
    return 1 if "FAIL" in verdicts else 0


if __name__ == "__main__":
    sys.exit(main())
