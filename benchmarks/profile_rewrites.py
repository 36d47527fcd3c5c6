"""How many programs a model wrote compile with its profile's rewrites and without (BENCHMARKS.md, "State").

    python benchmarks/profile_rewrites.py benchmarks/results/fidelity-llm

Reads every program the reports of a `benchmarks/fidelity_llm.py --out` folder keep as the model wrote it
(program mode's rejected answers: the reports keep no accepted program), and compiles each as the tool's
function twice: as written (the default profile) and after a profile's rewrites (`--profile`, the local
model's by default). Prints how many compile each way, and the first error of those that compile only one
way. No model is asked; the programs are those the model wrote when the reports were made, with the
profile on, so this measures what the rewrites do for parsing, not how the model would write without them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim_mcp.llm.profiles import DEFAULT_PROFILE, ModelProfile, profile_for
from sim_mcp.rules import RulesError, tool_program


def programs(folder: Path) -> Iterator[tuple[str, str]]:
    """(tool, program) for every program answer kept in the reports under `folder`."""
    for path in sorted(folder.rglob("*.json")):
        report = json.loads(path.read_text())
        for scenario in report.get("scenarios", []) if isinstance(report, dict) else []:
            for call in scenario.get("calls", []):
                for answer in call.get("rejected_answers") or []:
                    if isinstance(answer, str) and answer.lstrip().startswith("def "):
                        yield str(call.get("tool") or call.get("call")), answer


def compiles(text: str, tool: str, profile: ModelProfile) -> str | None:
    """None when `text` compiles as `tool`'s function after `profile`'s rewrites, else the error."""
    try:
        tool_program(profile.rewrite(text), tool, "<program>")
    except RulesError as e:
        return profile.explain(e.reason)
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--profile", default="qwen2.5-coder")
    args = parser.parse_args()
    profile = profile_for(None, args.profile)
    found = list(programs(args.folder))
    outcomes: Counter[tuple[bool, bool]] = Counter()
    examples: dict[tuple[bool, bool], str | None] = {}
    for tool, text in found:
        as_written, after = compiles(text, tool, DEFAULT_PROFILE), compiles(text, tool, profile)
        key = (as_written is None, after is None)
        outcomes[key] += 1
        examples.setdefault(key, as_written or after)
    print(f"{len(found)} programs kept in {args.folder} (program mode's rejected answers)")
    print(f"compile as written (profile none): {sum(n for (plain, _), n in outcomes.items() if plain)}")
    print(f"compile after {profile.name}'s rewrites: {sum(n for (_, rew), n in outcomes.items() if rew)}")
    for (plain, rewritten), count in sorted(outcomes.items()):
        if plain != rewritten:
            way = "only after the rewrites" if rewritten else "only as written"
            print(f"  {count} compile {way}; e.g. {str(examples[(plain, rewritten)])[:150]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
