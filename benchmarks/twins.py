"""Twins of real MCP servers: record, build, prove (docs/twins.md; BENCHMARKS.md, "Twins of real servers").

For each server (the npm packages pinned in tests/node): record `--train` generated sessions through
`sim-mcp record --fresh-per-session`, build the twin with `sim-mcp compile SPEC --from RECORDINGS`, then
run `twin-check` of the real server against it on `--check` generated sessions that compile never saw,
and print agreement per tool and overall. Variants:

- `model-free` (default): compile with no model; the twin answers what its programs don't from the
  recordings (`--backend replay`), else with an error naming the tool.
- `compiled`: compile asks the model given by `--backend/--base-url/--model` for the tools left over.
- `llm`: no twin at all: the captured spec alone, every call answered by that model (the per-call LLM).

Seeds: generated sessions of seed S are drawn from (S, session number). Training sessions use
`--train-seed` (default 0). Check seeds below 1000 are the dev set (tune on them); 1000 and up are the
test set (report only those): `--seed 1000` is the reported run.

    python -m benchmarks.twins                                  # all three, model-free, test seed 1000
    python -m benchmarks.twins --servers memory --seed 100      # a dev run
    python -m benchmarks.twins --servers '' --server 'time=mcp-server-time'   # any other real server
    python -m benchmarks.twins --variant compiled --backend openai --base-url http://127.0.0.1:8790/v1 --model local
    python -m benchmarks.twins --variant llm --backend openai --base-url http://127.0.0.1:8790/v1 --model local
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio

from sim_mcp.authoring.twins.agreement import Answer
from sim_mcp.authoring.twins.check import CheckPlan, fixed_answers, run_check
from sim_mcp.authoring.twins.drive import drive_generated
from sim_mcp.authoring.twins.recordings import read_calls
from sim_mcp.authoring.twins.targets import parse_target, recording, serving

REPO = Path(__file__).resolve().parents[1]
BIN = REPO / "tests" / "node" / "node_modules" / ".bin"
# Each server: its command ({tmp}: the session's folder) and environment.
SERVERS: dict[str, tuple[list[str], dict[str, str]]] = {
    "memory": ([str(BIN / "mcp-server-memory")], {"MEMORY_FILE_PATH": "{tmp}/memory.jsonl"}),
    "filesystem": ([str(BIN / "mcp-server-filesystem"), "{tmp}"], {}),
    "sequential-thinking": ([str(BIN / "mcp-server-sequential-thinking")], {"DISABLE_THOUGHT_LOGGING": "true"}),
}
_LAUNCH = "import sys; from sim_mcp.cli import main; sys.exit(main())"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--servers", default=",".join(SERVERS), help="comma-separated: " + ", ".join(SERVERS))
    parser.add_argument(
        "--server",
        action="append",
        default=[],
        metavar="NAME=COMMAND",
        help="another real server to measure, as its command line ({tmp}: the session's folder); repeatable, "
        "measured after --servers (pass --servers '' for these alone)",
    )
    parser.add_argument("--train", type=int, default=20, help="recorded sessions compile learns from (default 20)")
    parser.add_argument("--check", type=int, default=50, help="held-out generated sessions checked (default 50)")
    parser.add_argument("--calls", type=int, default=10, help="calls per generated session (default 10)")
    parser.add_argument("--train-seed", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1000, help="check seed: below 1000 dev, 1000 and up test")
    parser.add_argument("--variant", choices=["model-free", "compiled", "llm"], default="model-free")
    parser.add_argument("--backend", help="the model's backend for compiled/llm (openai, anthropic)")
    parser.add_argument("--base-url")
    parser.add_argument("--model")
    parser.add_argument("--keep", type=Path, help="keep the recordings and twins in this folder")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if args.variant != "model-free" and not (args.backend and args.model):
        parser.error(f"--variant {args.variant} needs --backend and --model (and --base-url for a local server)")
    work = args.keep or Path(tempfile.mkdtemp(prefix="sim-mcp-twins-"))
    servers = {name: SERVERS[name] for name in args.servers.split(",") if name}
    if servers and not BIN.is_dir():
        parser.error(f"{BIN}: missing: run npm ci in tests/node first")
    for given in args.server:
        name, _, command = given.partition("=")
        if not name or not command.strip():
            parser.error(f"--server {given!r}: expected NAME=COMMAND")
        servers[name] = (shlex.split(command), {})
    figures: dict[str, Any] = {}
    try:
        for name, (command, env) in servers.items():
            figures[name] = measure(name, command, env, work / name, args)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print_table(figures, args)
    return 0


def model_flags(args: argparse.Namespace) -> list[str]:
    flags = ["--backend", args.backend, "--model", args.model]
    return flags + (["--base-url", args.base_url] if args.base_url else [])


def measure(
    name: str, command: list[str], env: dict[str, str], folder: Path, args: argparse.Namespace
) -> dict[str, Any]:
    folder.mkdir(parents=True, exist_ok=True)
    recorded = folder / "recorded"
    with recording(command, recorded, env) as proxy:
        anyio.run(lambda: drive_generated(proxy, args.train, args.calls, args.train_seed, "train"))
    twin = folder / "twin"
    twin.mkdir(exist_ok=True)
    shutil.copy(recorded / "spec.yaml", twin / "spec.yaml")
    serve_args: tuple[str, ...] = ()
    build: dict[str, Any] = {}
    if args.variant == "llm":
        serve_args = tuple(model_flags(args))
    else:
        shutil.copy(recorded / "recordings.jsonl", twin / "recordings.jsonl")
        extra = model_flags(args) if args.variant == "compiled" else []
        report = twin / "compile.json"
        launch = [sys.executable, "-c", _LAUNCH, "compile", str(twin / "spec.yaml"), "--from", str(twin)]
        subprocess.run([*launch, "--report", str(report), *extra], check=False, stdout=subprocess.DEVNULL)
        build = json.loads(report.read_text())
    real = parse_target(" ".join(command), env)
    training = read_calls(recorded / "recordings.jsonl").calls
    fixed = fixed_answers((call.tool, Answer(call.value, call.is_error)) for call in training)
    with serving(parse_target(str(twin), serve_args=serve_args)) as ready:
        plan = CheckPlan(
            sessions=args.check,
            calls=args.calls,
            seed=args.seed,
            shrink_kinds=0,
            fixed=fixed,
            fixed_from=f"{args.train} recorded sessions",
            unordered=unordered_of(build),
        )
        result = anyio.run(lambda: run_check(real, ready, plan, lambda line: print(f"{name}: {line}", file=sys.stderr)))
    out = result.figures()
    out["built"] = {tool: entry["status"] for tool, entry in build.get("tools", {}).items()}
    out["recorded_calls"] = build.get("calls")
    return out


def unordered_of(build: dict[str, Any]) -> dict[str, list[str]]:
    """The listings compile's report names as in no learnable order (compared as sets, counted apart)."""
    return {name: list(entry["unordered"]) for name, entry in build.get("tools", {}).items() if entry.get("unordered")}


def print_table(figures: dict[str, Any], args: argparse.Namespace) -> None:
    print(
        f"variant {args.variant}; {args.train} recorded sessions (seed {args.train_seed}), {args.check} checked "
        f"sessions (seed {args.seed}), {args.calls} calls each"
    )
    for name, result in figures.items():
        print_figures(name, result, result["built"])


def print_figures(name: str, result: dict[str, Any], built: dict[str, str]) -> None:
    """One server's figures (`CheckReport.figures`): the headline is agreement on the calls the reference
    answered successfully, beside its error share, the same with every day exact (a computed day must equal
    the twin's; a lower bound where the server writes its clock's day) and the two trivial twins on the same
    calls."""
    calls, successes = result["calls"], result["successes"]
    fixed = result["trivial"]["fixed_answer"]
    print(
        f"\n{name}: {result['agree_on_successes']}/{successes} successful calls agree "
        f"({percent(result['agree_on_successes'], successes)}%); all calls {result['agree']}/{calls} "
        f"({percent(result['agree'], calls)}%), same error text {percent(result['agree_same_error_text'], calls)}%; "
        f"reference errors {result['reference_errors']} ({percent(result['reference_errors'], calls)}%)"
    )
    if "agree_on_successes_exact_days" in result:
        exact = result["agree_on_successes_exact_days"]
        print(
            f"  with every day exact: {exact}/{successes} successful calls agree ({percent(exact, successes)}%); "
            f"the fixed-answer twin {percent(result['fixed_agree_on_successes_exact_days'], successes)}% "
            "(a lower bound where the server writes its clock's day)"
        )
    print(
        f"  trivial twins: always an error {percent(result['reference_errors'], calls)}% of calls, 0% of successes; "
        f"each tool's most common answer ({fixed['from']}) {percent(result['fixed_agree'], calls)}% of calls, "
        f"{percent(result['fixed_agree_on_successes'], successes)}% of successes"
    )
    if result.get("agree_as_a_set"):
        print(f"  {result['agree_as_a_set']} of the calls that agree do so only with their listings compared as sets")
    for warning in result["warnings"]:
        print(f"  warning: {warning}")
    print(
        f"  {'tool':<28} {'calls':>6} {'errors':>6} {'ok agree':>9} {'days exact':>10} {'agree %':>8} "
        f"{'same text %':>11} {'fixed %':>8}  built"
    )
    for tool, figure in result["tools"].items():
        strict = figure["agree"] - figure["error_text_differs"]
        ok = f"{figure['agree_on_successes']}/{figure['successes']}"
        days_exact = f"{figure.get('agree_on_successes_exact_days', '-')}/{figure['successes']}"
        print(
            f"  {tool:<28} {figure['calls']:>6} {figure['reference_errors']:>6} {ok:>9} {days_exact:>10} "
            f"{percent(figure['agree'], figure['calls']):>8} {percent(strict, figure['calls']):>11} "
            f"{percent(figure['fixed_agree'], figure['calls']):>8}  {built.get(tool, '-')}"
        )


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}" if whole else "-"


if __name__ == "__main__":
    sys.exit(main())
