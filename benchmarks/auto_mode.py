"""What `--llm-output auto` would have met on calls already answered both ways (BENCHMARKS.md, "Choosing
the mode per call").

    python benchmarks/auto_mode.py benchmarks/results/fidelity-llm

Reads the `patch/` and `program/` reports of a `benchmarks/fidelity_llm.py --out` folder (every call of
the scenarios answered once in each mode, from the same state), splits the calls as `auto` sees them
(reads; calls that change the state, with or without a number in the tool's schemas), and prints per
class the calls, each mode's result and state matches and mean time; then the totals of patch, program,
and auto (each call counted in the mode auto picks). No model is asked. The calls are those of the
bundled scenarios, on which sim-mcp's program mode was built: a development set, not a held-out one.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim_mcp.llm.modes.auto import reads
from sim_mcp.specs.model import ToolSpec
from sim_mcp.specs.registry import load_catalog

REPO = Path(__file__).resolve().parents[1]


def _numeric(schema: Any) -> bool:
    if isinstance(schema, dict):
        kind = schema.get("type")
        if kind in ("number", "integer") or (isinstance(kind, list) and {"number", "integer"} & set(kind)):
            return True
        return any(_numeric(value) for value in schema.values())
    return isinstance(schema, list) and any(_numeric(item) for item in schema)


def _class(tool: ToolSpec, state: Any) -> str:
    if reads(tool, state):
        return "read"
    numeric = _numeric(tool.input_schema) or _numeric(tool.output_schema)
    return "change, a number in its schemas" if numeric else "change, no number in its schemas"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--specs", type=Path, default=REPO / "tool_specs")
    args = parser.parse_args()
    catalog = load_catalog(args.specs)
    rows: dict[str, list[float]] = {}
    totals: dict[str, list[float]] = {"patch": [0, 0, 0.0], "program": [0, 0, 0.0], "auto": [0, 0, 0.0]}
    calls = 0
    for path in sorted((args.folder / "patch").glob("*.json")):
        patch = json.loads(path.read_text())
        program = json.loads((args.folder / "program" / path.name).read_text())
        for by_patch, by_program in zip(patch["scenarios"], program["scenarios"], strict=True):
            environment = catalog.environment(by_patch["env"])
            assert environment is not None
            for one, other in zip(by_patch["calls"], by_program["calls"], strict=True):
                tool = environment.tool(one["call"])
                assert tool is not None
                assert one["step"] == other["step"]
                kind = _class(tool, environment.initial_state)
                row = rows.setdefault(kind, [0] * 7)
                row[0] += 1
                for offset, call in ((1, one), (4, other)):
                    row[offset] += call["result_match"]
                    row[offset + 1] += call["state_match"]
                    row[offset + 2] += (call.get("latency_ms") or 0) / 1000
                calls += 1
                chosen = one if kind == "read" else other
                for mode, call in (("patch", one), ("program", other), ("auto", chosen)):
                    totals[mode][0] += call["result_match"]
                    totals[mode][1] += call["state_match"]
                    totals[mode][2] += (call.get("latency_ms") or 0) / 1000
    print(f"{calls} calls answered both ways in {args.folder}")
    print("| calls auto sees as | calls | patch: result / state / mean s | program: result / state / mean s |")
    print("|---|---:|---|---|")
    for kind, row in sorted(rows.items()):
        count = int(row[0])
        patch_text = f"{row[1]:.0f} / {row[2]:.0f} / {row[3] / count:.0f}"
        program_text = f"{row[4]:.0f} / {row[5]:.0f} / {row[6] / count:.0f}"
        print(f"| {kind} | {count} | {patch_text} | {program_text} |")
    for mode, (result, state, seconds) in totals.items():
        print(
            f"{mode}: result {result:.0f}/{calls} ({result / calls:.1%}), state {state:.0f}/{calls} "
            f"({state / calls:.1%}), {seconds / calls:.0f} s a call"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
