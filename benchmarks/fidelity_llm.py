"""Result and state match of LLM-simulated calls, four ways, against one model (BENCHMARKS.md, "State").

    python benchmarks/fidelity_llm.py --base-url http://127.0.0.1:8790/v1 --model local \\
        --scenarios benchmarks/fidelity/*.yaml --out /tmp/fidelity-llm
    python benchmarks/fidelity_llm.py --table /tmp/fidelity-llm      # the tables from what has run so far

Runs `sim-mcp bench-fidelity` on the scenarios, each call starting from the state of the hand-written
programs (the reference), for:
  (a) patch    the model answers every call with a JSON patch (programs removed from the specs);
  (b) program  the model answers every call with a program the engine runs (programs removed);
  (b') auto    `--llm-output auto`: a program for a call whose tool changes the state, a patch for a read;
  (c) compiled `sim-mcp compile` by that model first (programs removed); its programs answer the calls of
               the tools it compiled, and the calls of the tools it could not are (a)'s answers to the same
               call from the same state (the model in patch mode, as a served (c) would ask it; only the up
               to 4 earlier results shown as history may differ), so the model is not asked twice;
  (d) hand     the hand-written programs, no model.
The model's profile (`--model-profile`, passed to every sim-mcp command) is the local model's by default,
`qwen2.5-coder` (its habit rewrites, error hints, guide variant and quoting: sim_mcp/llm/profiles/qwen.py);
`--model-profile none` measures the same runs without them (give another --out).

It goes scenario by scenario, every run of one scenario before the next scenario (an environment is
compiled before its first scenario), so that a run stopped half-way still gives tables over the same
calls for every run. Each report is kept in --out
(`<run>/<scenario>.json`, compile reports beside them) and a report already there is not made again:
run the same command to resume. The tables count only the scenarios every run has reached. Requests go
one after another: a local server answers one at a time.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from sim_mcp.episodes.fidelity import FIELD_GROUPS

REPO = Path(__file__).resolve().parents[1]
SPECS = REPO / "tool_specs"
RUNS = ("patch", "program", "auto", "compiled", "hand")
# A run or compile whose start found the model server busy or paused is tried again, a minute apart.
_TRIES = 15
_RETRY_S = 60
LABELS = {
    "patch": "(a) per-call LLM, patches",
    "program": "(b) per-call LLM, programs",
    "auto": "(b') per-call LLM, --llm-output auto",
    "compiled": "(c) compiled by that model",
    "hand": "(d) hand-written programs",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url")
    parser.add_argument("--model", default="local")
    parser.add_argument("--scenarios", nargs="+", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--table", type=Path, metavar="OUT", help="print the tables of an --out folder and stop")
    parser.add_argument("--skip", default="", help="comma-separated runs to leave out: " + ",".join(RUNS))
    parser.add_argument("--rounds", type=int, default=2, help="compile rounds per tool")
    parser.add_argument("--max-tokens", type=int, default=700)
    parser.add_argument("--max-attempts", type=int, default=2, help="tries per call (sim-mcp's default is 3)")
    parser.add_argument("--timeout-s", type=int, default=600)
    parser.add_argument(
        "--model-profile",
        default="qwen2.5-coder",
        help="the model's profile (sim-mcp --model-profile): the local model's by default, as the figures in "
        "BENCHMARKS.md were made; none to measure without its rewrites, hints and guide",
    )
    args = parser.parse_args()
    if args.table is not None:
        print(tables(args.table))
        return 0
    if args.base_url is None or args.scenarios is None or args.out is None:
        parser.error("--base-url, --scenarios and --out are needed (or --table OUT)")
    skip = set(filter(None, args.skip.split(",")))
    runs = [run for run in RUNS if run not in skip]
    if "compiled" in runs and "patch" not in runs:
        parser.error("(c) takes the calls of the tools it could not compile from (a): keep the patch run")
    args.out.mkdir(parents=True, exist_ok=True)
    bare = _specs_without_programs(args.out / "specs-bare", sorted({_env_of(path) for path in args.scenarios}))
    model = ["--backend", "openai", "--base-url", args.base_url, "--model", args.model, "--max-tokens"]
    model += [str(args.max_tokens), "--timeout-s", str(args.timeout_s), "--provider-retries", "0"]
    model += ["--max-attempts", str(args.max_attempts), "--model-profile", args.model_profile]
    compiled = args.out / "specs-compiled"
    for scenario in args.scenarios:
        if "compiled" in runs:  # each environment compiled before its first scenario, not all first
            _compile(args, bare, _env_of(scenario), model)
        for run in runs:
            report = args.out / run / f"{scenario.stem}.json"
            if report.exists():
                continue
            report.parent.mkdir(exist_ok=True)
            if run == "hand":
                specs, flags = SPECS, ["--backend", "offline"]
            elif run == "compiled":
                specs, flags = compiled, ["--backend", "offline"]  # only its programs' answers are kept
            else:
                specs, flags = bare, [*model, "--llm-output", run]
            started = time.perf_counter()
            for _ in range(_TRIES):
                _cli(
                    [
                        *("bench-fidelity", str(scenario), "--specs", str(specs), "--reference", str(SPECS)),
                        *("--rules", "always", "--json", str(report), *flags),
                    ],
                    args.out / run / f"{scenario.stem}.log",
                )
                if report.exists():
                    break
                time.sleep(_RETRY_S)
            done = "done" if report.exists() else f"no report (see {report.with_suffix('.log')})"
            print(f"{scenario.stem} {run}: {done} in {time.perf_counter() - started:.0f} s", flush=True)
    print(tables(args.out))
    return 0


def _env_of(scenario: Path) -> str:
    for line in scenario.read_text().splitlines():
        if line.startswith("env:"):
            return line.split(":", 1)[1].strip()
    raise SystemExit(f"{scenario}: no env line")


def _specs_without_programs(folder: Path, envs: list[str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for env in envs:
        shutil.copy(SPECS / f"{env}.yaml", folder / f"{env}.yaml")
    return folder


def _compile(args: argparse.Namespace, bare: Path, env: str, model: list[str]) -> None:
    """The spec of `env` with the model's programs beside it, in `--out`/specs-compiled (kept if its
    compile report exists)."""
    folder: Path = args.out / "specs-compiled"
    folder.mkdir(exist_ok=True)
    report = args.out / f"compile-{env}.json"
    if report.exists():
        return
    shutil.copy(bare / f"{env}.yaml", folder / f"{env}.yaml")
    (folder / f"{env}.rules.star").unlink(missing_ok=True)
    started = time.perf_counter()
    spec = str(folder / f"{env}.yaml")
    for _ in range(_TRIES):
        _cli(["compile", spec, *model, "--rounds", str(args.rounds), "--report", str(report)], args.out / f"{env}.log")
        if report.exists():
            break
        time.sleep(_RETRY_S)
    print(f"compile {env}: {time.perf_counter() - started:.0f} s", flush=True)


def _cli(arguments: list[str], log: Path) -> None:
    with log.open("w") as out:
        subprocess.run(
            [sys.executable, "-m", "sim_mcp.cli", *arguments], stdout=out, stderr=subprocess.STDOUT, check=False
        )


# The tables, from the reports in an --out folder.


def tables(out: Path) -> str:
    runs = [run for run in RUNS if (out / run).is_dir()]
    reached = {run: sorted(path.stem for path in (out / run).glob("*.json")) for run in runs}
    scenarios = sorted({name for names in reached.values() for name in names})
    complete = [name for name in scenarios if all(name in reached[run] for run in runs)]
    compiled_tools = _compiled_tools(out)
    by_scenario = {run: {name: _calls(out, run, name, compiled_tools) for name in complete} for run in runs}
    calls = {run: [call for name in complete for call in by_scenario[run][name]] for run in runs}
    lines = [f"Scenarios every run reached ({len(complete)} of {len(scenarios)}): {', '.join(complete)}", ""]
    lines += [_HEADER, "|---|---:|---:|---:|---|---:|---:|---:|"]
    lines += [_row(LABELS[run], calls[run]) for run in runs]
    if complete != scenarios:
        lines += ["", "Each run on every scenario it reached:", "", _HEADER, "|---|---:|---:|---:|---|---:|---:|---:|"]
        for run in runs:
            names = [name for name in reached[run] if run != "compiled" or name in reached.get("patch", [])]
            every = [call for name in names for call in _calls(out, run, name, compiled_tools)]
            lines.append(_row(f"{LABELS[run]} ({', '.join(names)})", every))
    lines += ["", "State match by fields the call changes (EnvSimBench's grouping), scenarios every run reached:", ""]
    lines += ["| run | " + " | ".join(label for label, _, _ in FIELD_GROUPS) + " |"]
    lines += ["|---|" + "---:|" * len(FIELD_GROUPS)]
    for run in runs:
        cells = []
        for _, low, high in FIELD_GROUPS:
            group = [call for call in calls[run] if low <= (call.get("fields_changed") or 0) <= high]
            cells.append(f"{_share(group, 'state_match')} of {len(group)}" if group else "-")
        lines.append(f"| {LABELS[run]} | " + " | ".join(cells) + " |")
    lines += _scenario_lines(by_scenario)
    if compiled_tools is not None:
        lines += ["", _compile_summary(out)]
    lines += _rejection_lines(out, reached)
    return "\n".join(lines)


def _scenario_lines(by_scenario: dict[str, dict[str, list[dict[str, Any]]]]) -> list[str]:
    """Per scenario every run reached (`by_scenario`: run -> scenario -> its calls): how many of its state
    changes each model run made exact."""
    model_runs = [run for run in by_scenario if run != "hand"]
    complete = list(by_scenario[model_runs[0]]) if model_runs else []
    if not complete:
        return []
    lines = ["", "State changes made exact, by scenario (the calls that change state, per run):", ""]
    lines += ["| scenario | calls | state-changing calls | " + " | ".join(LABELS[run] for run in model_runs) + " |"]
    lines += ["|---|---:|---:|" + "---:|" * len(model_runs)]
    for name in complete:
        by_run = {run: by_scenario[run][name] for run in model_runs}
        first = by_run[model_runs[0]]
        changing = sum(1 for call in first if call.get("fields_changed"))
        exact = [
            sum(1 for call in by_run[run] if call.get("fields_changed") and call["state_match"]) for run in model_runs
        ]
        lines.append(f"| {name} | {len(first)} | {changing} | " + " | ".join(str(count) for count in exact) + " |")
    return lines


# Why the simulator turned a model's answer down (the reasons it fed back), or why a call got no answer at
# all: the first pattern that matches names the kind.
_REJECTIONS = [
    ("cut off at the token limit", re.compile(r"cut off at \d+ tokens")),
    ("program: a name it never defined", re.compile(r"program failed: .*Variable `[^`]+` not found")),
    ("program: does not parse", re.compile(r"program failed: .*(Parse error|[Ss]yntax|expected a function)")),
    ("program: failed when run", re.compile(r"program failed")),
    ("result not in the output shape", re.compile(r"output schema")),
    ("patch does not apply", re.compile(r"state_patch does not apply")),
    ("error without a message", re.compile(r"needs its message")),
    ("the model server failed", re.compile(r"the backend failed")),  # before JSON: its message may say JSON
    ("not one JSON object of the contract", re.compile(r"JSON|the object has no|must be")),
]


def _rejection_lines(out: Path, reached: dict[str, list[str]]) -> list[str]:
    """Per model run: its answers the simulator rejected, by why (from reports that record it)."""
    rows = []
    for run in ("patch", "program", "auto"):
        calls = [
            call
            for name in reached.get(run, [])
            for scenario in json.loads((out / run / f"{name}.json").read_text())["scenarios"]
            for call in scenario["calls"]
            if "rejected" in call
        ]
        if not calls:
            continue
        kinds: dict[str, int] = {}
        for reason in (reason for call in calls for reason in call["rejected"]):
            kind = next((label for label, pattern in _REJECTIONS if pattern.search(reason)), "other")
            kinds[kind] = kinds.get(kind, 0) + 1
        asked = [call for call in calls if call["tokens"]["input"] or call["rejected"]]
        gave_up = sum("could not produce a valid result" in (call.get("error") or "") for call in calls)
        shown = ", ".join(f"{label} {count}" for label, count in sorted(kinds.items(), key=lambda kv: -kv[1]))
        rows.append(
            f"| {LABELS[run]} | {len(asked)} | {sum(len(call['rejected']) for call in calls)} | {gave_up} "
            f"| {shown or '-'} |"
        )
    if not rows:
        return []
    return [
        "",
        "Answers the simulator rejected (reports that record why; each rejected answer was asked again):",
        "",
        "| run | calls that asked the model | answers rejected | calls with no valid answer | why |",
        "|---|---:|---:|---:|---|",
        *rows,
    ]


_HEADER = (
    "| run | calls | result match | state match | state-changing calls: result / state "
    "| prompt tokens (median) | output tokens (mean) | s per call (median) |"
)


def _row(label: str, calls: list[dict[str, Any]]) -> str:
    changing = [call for call in calls if call.get("fields_changed")]
    return (
        f"| {label} | {len(calls)} | {_share(calls, 'result_match')} | {_share(calls, 'state_match')} "
        f"| {len(changing)} calls: {_share(changing, 'result_match')} / {_share(changing, 'state_match')} "
        f"| {_median(calls, 'input'):,.0f} | {_mean(calls, 'output'):,.0f} | {_seconds(calls):.1f} |"
    )


def _compiled_tools(out: Path) -> dict[str, set[str]] | None:
    """The tools each environment's compile gave a program, from the compile reports (None: no compile)."""
    reports = sorted(out.glob("compile-*.json"))
    if not reports:
        return None
    compiled: dict[str, set[str]] = {}
    for path in reports:
        report = json.loads(path.read_text())
        compiled[report["environment"]] = {tool["tool"] for tool in report["tools"] if tool["status"] != "failed"}
    return compiled


def _calls(out: Path, run: str, name: str, compiled_tools: dict[str, set[str]] | None) -> list[dict[str, Any]]:
    scenarios = json.loads((out / run / f"{name}.json").read_text())["scenarios"]
    if run != "compiled":
        return [call for scenario in scenarios for call in scenario["calls"]]
    # (c): the compiled tools' calls from this run, the others' from (a) (see the module's doc).
    by_patch = json.loads((out / "patch" / f"{name}.json").read_text())["scenarios"]
    calls = []
    for own, patch in zip(scenarios, by_patch, strict=True):
        programs = (compiled_tools or {}).get(own["env"], set())
        for mine, theirs in zip(own["calls"], patch["calls"], strict=True):
            calls.append(mine if mine["call"] in programs else theirs)
    return calls


def _compile_summary(out: Path) -> str:
    parts, seconds, tokens = [], 0.0, 0
    for path in sorted(out.glob("compile-*.json")):
        report = json.loads(path.read_text())
        tools = report["tools"]
        kept = [tool["tool"] for tool in tools if tool["status"] != "failed"]
        parts.append(f"{report['environment']} {len(kept)} of {len(tools)}" + (f" ({', '.join(kept)})" if kept else ""))
        seconds += sum(tool["seconds"] for tool in tools)
        tokens += sum(tool["tokens"]["input"] + tool["tokens"]["output"] for tool in tools)
    return f"Compiled: {'; '.join(parts)}. Compiling took {seconds / 60:.0f} minutes and {tokens:,} tokens."


def _share(calls: list[dict[str, Any]], key: str) -> str:
    known = [call[key] for call in calls if call.get(key) is not None]
    return f"{sum(known) / len(known):.1%}" if known else "-"


def _median(calls: list[dict[str, Any]], kind: str) -> float:
    return statistics.median(call["tokens"][kind] for call in calls) if calls else 0.0


def _mean(calls: list[dict[str, Any]], kind: str) -> float:
    return statistics.fmean(call["tokens"][kind] for call in calls) if calls else 0.0


def _seconds(calls: list[dict[str, Any]]) -> float:
    return statistics.median(call["latency_ms"] for call in calls) / 1000 if calls else 0.0


if __name__ == "__main__":
    raise SystemExit(main())
