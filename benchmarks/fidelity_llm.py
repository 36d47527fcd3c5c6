"""Result and state match of LLM-simulated calls, four ways, against one model (BENCHMARKS.md, "State").

    python benchmarks/fidelity_llm.py --base-url http://127.0.0.1:8790/v1 --model local \\
        --scenarios benchmarks/fidelity/bank.yaml --out /tmp/fidelity-llm

Runs `sim-mcp bench-fidelity` on the scenarios, each call starting from the state of the hand-written
programs (the reference), for:
  (a) patch    the model answers every call with a JSON patch (programs removed from the specs);
  (b) program  the model answers every call with a program the engine runs (programs removed);
  (c) compiled `sim-mcp compile` by that model first (programs removed), then its programs answer, and the
               model (patch mode) the tools it could not compile;
  (d) hand     the hand-written programs, no model.
Each run's JSON report is kept in --out; the table is printed as Markdown. `--skip` leaves runs out.
Runs one after another: a local server answers one request at a time.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SPECS = REPO / "tool_specs"
RUNS = ("patch", "program", "compiled", "hand")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", default="local")
    parser.add_argument("--scenarios", nargs="+", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--skip", default="", help="comma-separated runs to leave out: " + ",".join(RUNS))
    parser.add_argument("--rounds", type=int, default=2, help="compile rounds per tool")
    parser.add_argument("--max-tokens", type=int, default=700)
    parser.add_argument("--timeout-s", type=int, default=600)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    envs = sorted({_env_of(path) for path in args.scenarios})
    bare = _specs_without_programs(args.out / "specs-bare", envs)
    model = ["--backend", "openai", "--base-url", args.base_url, "--model", args.model]
    model += ["--max-tokens", str(args.max_tokens), "--timeout-s", str(args.timeout_s), "--provider-retries", "0"]
    skip = set(filter(None, args.skip.split(",")))
    rows: list[dict[str, Any]] = []
    for run in RUNS:
        if run in skip:
            continue
        report = args.out / f"{run}.json"
        if run == "hand":
            specs: Path = SPECS
            flags = ["--backend", "offline"]
        elif run == "compiled":
            specs, flags = _compiled(args, bare, envs, model), [*model, "--llm-output", "patch"]
        else:
            specs, flags = bare, [*model, "--llm-output", run]
        started = time.perf_counter()
        _cli(
            [
                *("bench-fidelity", *map(str, args.scenarios), "--specs", str(specs), "--reference", str(SPECS)),
                *("--rules", "always", "--json", str(report), *flags),
            ],
            args.out / f"{run}.log",
        )
        if not report.exists():
            print(f"{run}: no report; see {args.out / f'{run}.log'}", file=sys.stderr)
            continue
        rows.append({"run": run, "wall_s": time.perf_counter() - started, **json.loads(report.read_text())})
    print(_table(rows))
    return 0


def _env_of(scenario: Path) -> str:
    for line in scenario.read_text().splitlines():
        if line.startswith("env:"):
            return line.split(":", 1)[1].strip()
    raise SystemExit(f"{scenario}: no env line")


def _specs_without_programs(folder: Path, envs: list[str]) -> Path:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for env in envs:
        shutil.copy(SPECS / f"{env}.yaml", folder / f"{env}.yaml")
    return folder


def _compiled(args: argparse.Namespace, bare: Path, envs: list[str], model: list[str]) -> Path:
    folder: Path = args.out / "specs-compiled"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(bare, folder)
    for env in envs:
        log = args.out / f"compile-{env}.log"
        report = args.out / f"compile-{env}.json"
        _cli(
            ["compile", str(folder / f"{env}.yaml"), *model, "--rounds", str(args.rounds), "--report", str(report)], log
        )
    return folder


def _cli(arguments: list[str], log: Path) -> None:
    with log.open("w") as out:
        subprocess.run(
            [sys.executable, "-m", "sim_mcp.cli", *arguments], stdout=out, stderr=subprocess.STDOUT, check=False
        )


def _table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| run | calls | result match | state match | state-changing: result / state | prompt tokens (median) "
        "| output tokens (mean) | s per call (median) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        groups, cost = row["call_groups"], row.get("per_call") or {}
        every, changing = groups["all calls"], groups["state-changing calls"]
        lines.append(
            f"| {row['run']} | {every['calls']} | {_pct(every['result_match'])} | {_pct(every['state_match'])} "
            f"| {_pct(changing['result_match'])} / {_pct(changing['state_match'])} "
            f"| {cost.get('prompt_tokens_median', 0):,.0f} | {cost.get('output_tokens_mean', 0):,.0f} "
            f"| {cost.get('seconds_median', 0):.1f} |"
        )
    return "\n".join(lines)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


if __name__ == "__main__":
    raise SystemExit(main())
