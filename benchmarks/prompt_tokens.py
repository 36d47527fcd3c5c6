"""Prompt tokens per call on the fidelity scenarios, both LLM modes (BENCHMARKS.md, "State").

    python benchmarks/prompt_tokens.py --gguf /tmp/local-llm/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf \\
        --tokenizer-python /tmp/local-llm/venv/bin/python

Each scenario is run through the hand-written programs; every call's prompt is built as an LLM backend
would build it from the state before that call (the last 4 calls as history), in patch and in program
mode, and counted with the model's own tokenizer (llama-cpp-python, vocabulary only, in the interpreter
given) inside the Qwen chat template.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim_mcp.config import Settings
from sim_mcp.engine.contract import SimulationRequest
from sim_mcp.episodes.fidelity import load_scenarios, reference_run
from sim_mcp.llm.modes import fixed_mode, prompt_for
from sim_mcp.llm.profiles import profile_for
from sim_mcp.runtime import Runtime
from sim_mcp.state.session import Event

REPO = Path(__file__).resolve().parents[1]
_COUNT = """
import json, statistics, sys
from llama_cpp import Llama
llm = Llama(model_path=sys.argv[1], vocab_only=True, verbose=False)
by = {}
for r in json.load(open(sys.argv[2])):
    text = "<|im_start|>system\\n" + r["system"] + "<|im_end|>\\n"
    text += "<|im_start|>user\\n" + r["user"] + "<|im_end|>\\n<|im_start|>assistant\\n"
    by.setdefault(r["mode"], []).append(len(llm.tokenize(text.encode(), add_bos=False, special=True)))
for mode, ns in by.items():
    share = sum(n <= 2000 for n in ns) / len(ns)
    median, mean = statistics.median(ns), statistics.fmean(ns)
    print(f"{mode}: {len(ns)} calls, median {median:.0f}, mean {mean:.0f}, max {max(ns)}, <= 2,000: {share:.0%}")
"""


async def prompts(history: int) -> list[dict[str, Any]]:
    scenarios, _ = load_scenarios(REPO / "benchmarks" / "fidelity")
    rows: list[dict[str, Any]] = []
    async with Runtime(Settings(specs=[REPO / "tool_specs"])) as runtime:
        for scenario in scenarios:
            steps = await reference_run(runtime.sessions, scenario, f"tokens-{scenario.name}")
            environment = runtime.catalog.environment(scenario.env)
            assert environment is not None
            events: list[Event] = []
            for index, (step, expected) in enumerate(zip(scenario.steps, steps or [], strict=False)):
                tool = environment.tool(step.call)
                assert tool is not None
                for mode in ("patch", "program"):
                    request = SimulationRequest(
                        environment=environment,
                        tool=tool,
                        arguments=expected.arguments,
                        state=expected.before,
                        recent_events=events[-history:],
                        session_id="tokens",
                    )
                    # The prompts the local model is asked (its profile: llm/profiles/qwen.py).
                    prompt = prompt_for(
                        request,
                        fixed_mode(mode),
                        history_events=history,
                        state_budget_chars=24_000,
                        profile=profile_for("qwen2.5-coder"),
                    )
                    rows.append({"call": step.call, "mode": mode, "system": prompt.system, "user": prompt.user})
                events.append(
                    Event(
                        seq=index + 1,
                        at=0,
                        environment=scenario.env,
                        tool=step.call,
                        arguments=expected.arguments,
                        result=expected.result,
                        is_error=expected.is_error,
                        backend="rules",
                    )
                )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gguf", type=Path, required=True)
    parser.add_argument("--tokenizer-python", default=sys.executable, help="an interpreter with llama-cpp-python")
    parser.add_argument("--history", type=int, default=Settings().history_events)
    args = parser.parse_args()
    rows = anyio.run(prompts, args.history)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as file:
        json.dump(rows, file)
    subprocess.run([args.tokenizer_python, "-c", _COUNT, str(args.gguf), file.name], check=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
