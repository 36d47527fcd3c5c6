"""How long compiling a twin takes: each named server's kept recordings compiled anew, timed.

Takes the folder of an earlier `benchmarks.heldout --keep DIR` run (DIR/NAME/recorded) and compiles each
named server's recordings into OUT/NAME/twin exactly as `heldout --reuse` does (the same command, the same
files), printing the wall seconds and the CPU seconds of each compile, and the choices of the tools' effects its
search evaluated (`sim-mcp compile --effect-trials` bounds them). CPU seconds are the figure to compare
on a shared machine: wall time moves with the load, CPU time much less. With OUT kept, `diff -r` of two
runs' twins says whether a change to the inference left its rules as they were.

    python -m benchmarks.compile_time --from /tmp/run --out /tmp/compiled bank,calc,keeper
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from sim_mcp.authoring.twins.recordings import RECORDINGS_NAME

_LAUNCH = "import sys; from sim_mcp.cli import main; sys.exit(main())"


def compile_one(recorded: Path, twin: Path, trials: int | None = None) -> tuple[float, float, int | None]:
    """Wall seconds and CPU seconds (user and system) of compiling `recorded` into `twin` (at most `trials`
    choices of effects searched, compile's default where None), and the choices its report says its search
    evaluated, None where it wrote no report (compile's exit status is 1 where a tool is left to the LLM: no
    failure here)."""
    shutil.rmtree(twin, ignore_errors=True)
    twin.mkdir(parents=True)
    for part in ("spec.yaml", RECORDINGS_NAME):
        shutil.copy(recorded / part, twin / part)
    command = [sys.executable, "-c", _LAUNCH, "compile", str(twin / "spec.yaml"), "--from", str(twin)]
    command += [] if trials is None else ["--effect-trials", str(trials)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [*command, "--report", str(twin / "compile.json")],
        check=False,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    report = twin / "compile.json"
    if not report.is_file():
        print(done.stderr.decode(errors="replace").strip(), file=sys.stderr)
        return wall, cpu, None
    choices: int = json.loads(report.read_text())["effect_choices"]
    return wall, cpu, choices


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("servers", help="comma-separated names of folders under --from")
    parser.add_argument("--from", dest="source", type=Path, required=True, help="an earlier heldout --keep DIR")
    parser.add_argument("--out", type=Path, required=True, help="where each compiled twin goes (OUT/NAME/twin)")
    parser.add_argument("--effect-trials", type=int, metavar="N", help="passed to compile (default: its own)")
    args = parser.parse_args()
    failed = 0
    for name in (name for name in args.servers.split(",") if name):
        wall, cpu, choices = compile_one(args.source / name / "recorded", args.out / name / "twin", args.effect_trials)
        failed += choices is None
        done = "no report" if choices is None else f"{choices} choices of effects evaluated"
        print(f"{name}: {wall:.1f} s wall, {cpu:.1f} s CPU, {done}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
