"""Run the fuzz and fault tests with bigger budgets than CI gives them, and print the figures of RELIABILITY.md.

    python benchmarks/reliability.py                         # 500 examples per property, 100 calls between faults
    python benchmarks/reliability.py --examples 2000 --fault-calls 300 --markdown figures.md

The tests are the ones CI runs (tests/test_fuzz_properties.py, tests/test_fuzz_http.py, tests/test_fault_kill.py,
tests/test_fault_redis_restart.py), with `SIM_MCP_FUZZ_EXAMPLES` and `SIM_MCP_FAULT_CALLS` raised. Figures:
examples tried and failing per Hypothesis property and per Schemathesis operation (from Hypothesis'
statistics), the JSON-RPC corpus's cases
and server errors, and for each fault run the calls acknowledged, found in the final state, and found twice.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
TESTS = [
    "tests/test_fuzz_properties.py",
    "tests/test_fuzz_http.py",
    "tests/test_fault_kill.py",
    "tests/test_fault_redis_restart.py",
]
_TEST_LINE = re.compile(r"^(tests/\S+::.+?):?$")
_COUNTS = re.compile(r"- (\d+) passing, (\d+) failing, and (\d+) invalid test cases")


@dataclass
class Property:
    """One property's counts; a Schemathesis test reports one block per API operation, added up here."""

    test: str
    passing: int = 0
    failing: int = 0
    invalid: int = 0
    blocks: int = 0


def run(examples: int, fault_calls: int) -> tuple[list[Property], list[dict[str, Any]], list[str], str, float]:
    """The tests run once: Hypothesis counts, recorded figures, failed test ids, the command, seconds."""
    with tempfile.TemporaryDirectory() as folder:
        figures_file = Path(folder) / "figures.jsonl"
        junit = Path(folder) / "junit.xml"
        env = {
            **os.environ,
            "SIM_MCP_FUZZ_EXAMPLES": str(examples),
            "SIM_MCP_FAULT_CALLS": str(fault_calls),
            "SIM_MCP_RELIABILITY_OUT": str(figures_file),
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        }
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--hypothesis-show-statistics"]
        command += [f"--junitxml={junit}", *TESTS]
        started = time.monotonic()
        done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, check=False)
        seconds = time.monotonic() - started
        figures = [json.loads(line) for line in figures_file.read_text().splitlines()] if figures_file.exists() else []
        failed = _failed(junit)
    if failed:  # what pytest said about them, for the report
        print(done.stdout[-12_000:], file=sys.stderr)
    shown = f"SIM_MCP_FUZZ_EXAMPLES={examples} SIM_MCP_FAULT_CALLS={fault_calls} python -m pytest " + " ".join(TESTS)
    return _statistics(done.stdout), figures, failed, shown, seconds


def _statistics(output: str) -> list[Property]:
    properties: dict[str, Property] = {}
    current: Property | None = None
    for line in output.splitlines():
        if (test := _TEST_LINE.match(line.strip())) is not None:
            current = properties.setdefault(test.group(1), Property(test.group(1)))
            current.blocks += 1
        elif (counts := _COUNTS.search(line)) is not None and current is not None:
            current.passing += int(counts.group(1))
            current.failing += int(counts.group(2))
            current.invalid += int(counts.group(3))
    return [prop for prop in properties.values() if prop.passing + prop.failing]


def _failed(junit: Path) -> list[str]:
    if not junit.exists():
        return ["(pytest wrote no report)"]
    failed = []
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        problem = case.find("failure")
        problem = problem if problem is not None else case.find("error")
        if problem is not None:
            why = (problem.get("message") or "").splitlines()[0][:300]
            failed.append(f"{case.get('classname')}::{case.get('name')} ({why})")
    return failed


def markdown(properties: list[Property], figures: list[dict[str, Any]], failed: list[str], command: str) -> str:
    lines = [f"Command: `{command}`", "", "| property or operation | examples tried | failing | invalid (discarded) |"]
    lines.append("|---|---|---|---|")
    for prop in properties:
        name = f"`{prop.test.split('::', 1)[1]}`" + (f" ({prop.blocks} operations)" if prop.blocks > 1 else "")
        lines.append(f"| {name} | {prop.passing + prop.failing} | {prop.failing} | {prop.invalid} |")
    total = sum(prop.passing + prop.failing for prop in properties)
    lines.append(f"| **all** | **{total}** | **{sum(prop.failing for prop in properties)}** | |")
    lines += ["", "| run | figures |", "|---|---|"]
    for entry in figures:
        shown = "; ".join(f"{key}: {value}" for key, value in entry.items() if key != "name")
        lines.append(f"| {entry['name']} | {shown} |")
    lines += ["", f"Failed tests: {', '.join(failed) if failed else 'none'}."]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", type=int, default=500, help="Hypothesis examples per property (default 500)")
    parser.add_argument("--fault-calls", type=int, default=100, help="acknowledged calls between faults (default 100)")
    parser.add_argument("--markdown", type=Path, help="also write the tables to this file")
    args = parser.parse_args()
    properties, figures, failed, command, seconds = run(args.examples, args.fault_calls)
    text = markdown(properties, figures, failed, command) + f"\n\nTook {seconds:.0f} s.\n"
    print(text)
    if args.markdown is not None:
        args.markdown.write_text(text, encoding="utf-8")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
