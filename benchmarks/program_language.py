"""The language of model-written programs, measured: Starlark (with and without a model profile's rewrites)
against Python run by pydantic-monty, on the programs `benchmarks/results/fidelity-llm` keeps, and the
bundled ones (BENCHMARKS.md, "Language of programs").

Sections (all by default):
- corpus: every program a model wrote that the reports keep (per-call answers, rejected ones included;
  `sim-mcp compile` rounds, rejected and kept), each run on the calls it was written for, from the state the
  hand-written programs reached before them: how many parse and run unchanged in Starlark as written, in
  Starlark after the profile's rewrites (`--profile`), and in monty as written; which habits and error hints
  they met; and, where both ran, whether Starlark and monty gave the same answer;
- bundled: the hand-written `tool_specs/*.rules.star` run in monty beside Starlark on every reference call;
- features: the constructs models write, each run in CPython and in monty;
- cost: CPU and wall time per call in process (a loaded program answering; a new program per call; by state
  size), and a tight loop of `--runs` calls of the bundled programs;
- determinism: the same call twice, a seeded random and a fixed clock in each;
- modes: program mode against patch mode on the same calls (which calls each wins, how program mode fails,
  what a per-call choice of mode would have scored, and `auto`'s fallback to patch mode for each split of
  `--max-attempts` between the modes).

    python -m benchmarks.program_language [--only corpus,bundled,features,cost,determinism,modes] [--runs N]

pydantic-monty is optional (`pip install pydantic-monty`): without it the monty columns say so and the
Starlark figures are printed alone.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import datetime as dt
import json
import os
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from sim_mcp.config import Settings
from sim_mcp.episodes.fidelity import load_scenarios, reference_run
from sim_mcp.llm.modes.auto import program_attempts
from sim_mcp.llm.profiles import ModelProfile, profile_for
from sim_mcp.llm.profiles.habits import string_end
from sim_mcp.rules import CallContext, Limits, RulesError, compile_program, function_name, run_tool, tool_program
from sim_mcp.rules.helpers import ContextSlot, python_helpers
from sim_mcp.runtime import Runtime
from sim_mcp.specs.model import Environment
from sim_mcp.state.patch import apply_patch, diff_patch
from sim_mcp.state.values import pointer

REPO = Path(__file__).resolve().parent.parent
SECTIONS = ("corpus", "bundled", "features", "cost", "determinism", "modes")
# The model profile whose rewrites and error hints are measured: the one the programs were written under.
PROFILE = "qwen2.5-coder"
_DEF = re.compile(r"^def\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(", re.MULTILINE)
_COMPILED = re.compile(r"^# --- compiled: (\S+) ---$", re.MULTILINE)
_MODULE_USE = re.compile(r"\b(?:random|datetime|time)\.|\btimedelta\(")
_MODULES = re.compile(r"^\s*(?:import|from)\s+(random|datetime|time)\b", re.MULTILINE)
_IS = re.compile(r"\bis\b")
_NO_ANSWER = "the simulator could not produce a valid result"
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")

# The helpers a program may call (docs/formats.md, "Rules programs"), as Python for monty: source run in the
# sandbox, the call's time read from a value handed in with the call (a host function costs a round trip to
# this process per call of it, and cannot be called from inside a builtin's callback: `sorted(events,
# key=lambda e: to_seconds(e["start"]))` fails with NotImplementedError); only the seeded random draws,
# rare, are the engine's own helpers called from the sandbox.
_HOST_HELPERS = ("random_code", "random_int")
MONTY_PRELUDE = """
import datetime
from decimal import Decimal, ROUND_HALF_UP

def error(message):
    return {"$error": str(message)}

def now():
    return sim_mcp_now

def today():
    return sim_mcp_now[:10]

def next_id(records, prefix):
    keys = records.keys() if isinstance(records, dict) else [r.get("id", "") for r in records]
    highest = 0
    width = 0
    for key in keys:
        if not isinstance(key, str) or not key.startswith(prefix):
            continue
        tail = key[len(prefix):]
        if not tail.isdigit():
            continue
        if int(tail) >= highest:
            highest = int(tail)
            width = len(tail) if tail.startswith("0") else 0
    number = str(highest + 1)
    return prefix + "0" * (width - len(number)) + number

def sorted_by(records, field, reverse=False):
    items = list(records.values()) if isinstance(records, dict) else records
    return sorted(items, key=lambda r: (r.get(field) is not None, r.get(field, "")), reverse=reverse)

def contains_text(record, fields, text):
    needle = text.lower()
    for name in fields:
        value = record.get(name)
        if isinstance(value, str) and needle in value.lower():
            return True
    return False

def money(amount):
    return float(Decimal(repr(amount)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))

def money_text(amount):
    return "%.2f" % money(amount)

def to_seconds(moment):
    parsed = datetime.datetime.fromisoformat(moment.replace("Z", "+00:00"))
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=datetime.timezone.utc)
    return parsed.timestamp()
"""
# The entry point, as the Starlark runtime's (sim_mcp/rules/program.py): the state crosses as JSON text
# (one string is far cheaper to hand over than a value converted value by value, here too) and only what
# changed comes back.
MONTY_ENTRY = """
import json as sim_mcp_json

def sim_mcp_call(function, state_text, arguments_text):
    state = sim_mcp_json.loads(state_text)
    result = function(state, sim_mcp_json.loads(arguments_text))
    if isinstance(result, dict) and len(result) == 1 and "$error" in result:
        return sim_mcp_json.dumps({"error": result["$error"]})
    if not isinstance(state, dict):
        return sim_mcp_json.dumps({"result": result, "replaced": True})
    before = sim_mcp_json.loads(state_text)
    if state == before:
        return sim_mcp_json.dumps({"result": result})
    changed = {}
    for key, value in state.items():
        old = before.get(key)
        if key in before and old == value:
            continue
        if key in before and isinstance(old, dict) and isinstance(value, dict):
            records = {k: v for k, v in value.items() if k not in old or old[k] != v}
            changed[key] = {"records": records, "removed": [k for k in old if k not in value]}
        else:
            changed[key] = {"value": value}
    removed = [key for key in before if key not in state]
    return sim_mcp_json.dumps({"result": result, "changed": changed, "removed": removed})
"""


@dataclass(frozen=True)
class Call:
    """One reference call: where it stands in its scenario, and the state and arguments it was made with."""

    scenario: str
    env: str
    step: int
    tool: str
    before: Any
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Written:
    """A program a model wrote, where it was kept, and the reference calls it is run on."""

    origin: str
    tool: str
    text: str
    calls: tuple[Call, ...]


@dataclass(frozen=True)
class Answer:
    """What a program answered on one call, normalised to JSON so that two languages' answers compare."""

    result: Any
    is_error: bool
    patch: Any  # an RFC 6902 patch of the state

    def same(self, other: Answer, before: Any) -> bool:
        """The same result and the same state after it (the order of keys and of patch operations aside)."""
        return (self.result, self.is_error) == (other.result, other.is_error) and apply_patch(
            before, self.patch
        ) == apply_patch(before, other.patch)


@dataclass(frozen=True)
class Tried:
    """How far a program got on one call: "parse", "load" (defined, but no function for the tool or a failure
    at the top level), "run" (failed while running), or "ok" with its answer."""

    stage: str
    reason: str = ""
    answer: Answer | None = None


# --- the two languages -------------------------------------------------------------------------------------


def _context(call: Call) -> CallContext:
    return CallContext.of(dt.datetime(2026, 1, 1, 9, 0, tzinfo=dt.UTC), seed=7, sequence=call.step, tool=call.tool)


def _entry(text: str, tool: str) -> str | None:
    """The function a program answers `tool` with (as `tool_program` picks it): the tool's, else its one public."""
    defined = _DEF.findall(text)
    if function_name(tool) in defined:
        return function_name(tool)
    public = [name for name in defined if not name.startswith("_")]
    return public[0] if len(public) == 1 else None


def starlark_try(text: str, call: Call, profile: ModelProfile) -> Tried:
    """Compile `text` after `profile`'s rewrites as the tool's function (`tool_program`) and run it on `call`."""
    try:
        program = tool_program(profile.rewrite(text), call.tool, "<program>")
    except RulesError as e:
        return Tried("parse" if e.reason.startswith("Parse error") else "load", e.reason)
    try:
        ran = run_tool(program, call.tool, call.before, call.arguments, _context(call), Limits())
    except RulesError as e:
        return Tried("run", e.reason)
    return Tried("ok", answer=Answer(ran.result, ran.is_error, ran.state_patch))


def changes_patch(state: dict[str, Any], changed: dict[str, Any], removed: list[str]) -> list[dict[str, Any]]:
    """The RFC 6902 patch of what an entry point reported changed, relative to `state` (as the Starlark
    runtime builds it: each changed record diffed, each new one added)."""
    patch: list[dict[str, Any]] = []
    for key, change in changed.items():
        if "value" in change:
            at = pointer((key,))
            patch += (
                diff_patch(state[key], change["value"], at)
                if key in state
                else [{"op": "add", "path": at, "value": change["value"]}]
            )
            continue
        for record_key, record in change["records"].items():
            path = pointer((key, record_key))
            if record_key in state[key]:
                patch += diff_patch(state[key][record_key], record, path)
            else:
                patch.append({"op": "add", "path": path, "value": record})
        patch += [{"op": "remove", "path": pointer((key, gone))} for gone in change["removed"]]
    return patch + [{"op": "remove", "path": pointer((key,))} for key in removed]


class MontyRunner:
    """Programs run by pydantic-monty: one worker pool; a checkout (a fresh interpreter) per program."""

    def __init__(self, monty: Any) -> None:
        self.monty = monty
        self.pool = monty.Monty(min_processes=1, max_processes=1)
        self.slot = ContextSlot()
        self.helpers = {name: f for name, f in python_helpers(self.slot).items() if name in _HOST_HELPERS}
        # As the Starlark runtime's `Limits`: a second of run time; and room for the host helpers' calls.
        self.limits = {
            "max_feed_duration_secs": 1.0,
            "max_memory": 256 * 1024 * 1024,
            "max_recursion_depth": 64,
            "max_suspensions": 10**9,
        }

    def __enter__(self) -> MontyRunner:
        self.pool.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.pool.__exit__(*exc)

    def session(self) -> Any:
        return self.pool.checkout(script_name="program.py", limits=self.limits)

    def define(self, session: Any, text: str) -> Tried | None:
        """Feed the helpers and `text` into `session`; a `Tried` when that fails (None: defined)."""
        try:
            session.feed_run(MONTY_ENTRY + MONTY_PRELUDE + "\n" + text, external_lookup=self.helpers)
        except self.monty.MontySyntaxError as e:
            return Tried("parse", e.display("type-msg"))
        except self.monty.MontyError as e:
            return Tried("load", _monty_reason(self.monty, e))
        return None

    def call(self, session: Any, function: str, call: Call, context: CallContext | None = None) -> Tried:
        """Run `function` of the program defined in `session` on `call`."""
        self.slot.current = context or _context(call)
        try:
            text = session.feed_run(
                f"sim_mcp_call({function}, sim_mcp_state_text, sim_mcp_arguments_text)",
                inputs={
                    "sim_mcp_now": self.slot.get().now.strftime("%Y-%m-%dT%H:%M:%SZ"),
                    "sim_mcp_state_text": json.dumps(call.before, separators=(",", ":"), check_circular=False),
                    "sim_mcp_arguments_text": json.dumps(call.arguments, separators=(",", ":"), ensure_ascii=False),
                },
                external_lookup=self.helpers,
            )
        except self.monty.MontyError as e:
            return Tried("run", _monty_reason(self.monty, e))
        finally:
            self.slot.current = None
        decoded = json.loads(text)
        if "error" in decoded:
            return Tried("ok", answer=Answer(decoded["error"], True, []))
        if "replaced" in decoded:
            return Tried("run", "the function replaced the state with a value that is no object")
        patch = changes_patch(call.before, decoded.get("changed", {}), decoded.get("removed", []))
        return Tried("ok", answer=Answer(decoded["result"], False, patch))

    def try_(self, text: str, call: Call) -> Tried:
        """`text` as written, in a fresh interpreter, run on `call`."""
        function = _entry(text, call.tool)
        with self.session() as session:
            failed = self.define(session, text)
            if failed is not None:
                return failed
            if function is None:
                return Tried("load", "no function for the tool")
            return self.call(session, function, call)


def _monty_reason(monty: Any, error: Exception) -> str:
    if isinstance(error, monty.MontyRuntimeError | monty.MontySyntaxError):
        return str(error.display("type-msg"))
    return f"{type(error).__name__}: {error}"


def load_monty() -> Any | None:
    try:
        import pydantic_monty
    except ImportError:
        return None
    return pydantic_monty


# --- inputs: reference calls and the programs the reports keep ---------------------------------------------


async def _reference(specs: Path, scenarios: Path) -> tuple[dict[tuple[str, int], Call], dict[str, Environment]]:
    loaded, errors = load_scenarios(scenarios)
    if errors:
        raise SystemExit("invalid scenarios: " + "; ".join(map(str, errors)))
    calls: dict[tuple[str, int], Call] = {}
    async with Runtime(Settings(specs=[specs])) as runtime:
        environments = dict(runtime.catalog.environments)
        for scenario in loaded:
            steps = await reference_run(runtime.sessions, scenario, f"language-{scenario.name}")
            for index, (step, done) in enumerate(zip(scenario.steps, steps or [], strict=False)):
                calls[(scenario.name, index)] = Call(
                    scenario.name, scenario.env, index, step.call, done.before, done.arguments
                )
    return calls, environments


def reference(specs: Path, scenarios: Path) -> tuple[dict[tuple[str, int], Call], dict[str, Environment]]:
    """Every scenario's calls as the hand-written programs make them, by (scenario, step); the environments."""
    return anyio.run(_reference, specs, scenarios)


def corpus(results: Path, calls: dict[tuple[str, int], Call]) -> tuple[list[Written], int]:
    """The programs kept under `results`, and how many kept replies were cut off before a program was whole."""
    written: list[Written] = []
    cut = 0
    for report in sorted(results.glob("program*/*.json")):
        for scenario in json.loads(report.read_text(encoding="utf-8")).get("scenarios", []):
            for scored in scenario.get("calls", []):
                call = calls.get((scenario["name"], scored["step"]))
                for text in scored.get("rejected_answers") or []:
                    if text.lstrip().startswith("{"):  # the JSON reply itself: cut off inside the program
                        cut += 1
                    elif call is not None:
                        written.append(Written("per-call answer (rejected)", call.tool, text, (call,)))
    by_tool: dict[tuple[str, str], list[Call]] = {}
    for call in calls.values():
        by_tool.setdefault((call.env, call.tool), []).append(call)
    for report in sorted(results.glob("compile-*.json")):
        compiled = json.loads(report.read_text(encoding="utf-8"))
        for tool in compiled.get("tools", []):
            targets = tuple(by_tool.get((compiled["environment"], tool["tool"]), ()))
            for rejected in tool.get("rejected", []):
                if rejected.get("program") and targets:
                    written.append(Written("compile round (rejected)", tool["tool"], rejected["program"], targets))
    for rules in sorted((results / "specs-compiled").glob("*.rules.star")):
        env = rules.name.removesuffix(".rules.star")
        parts = _COMPILED.split(rules.read_text(encoding="utf-8"))
        for tool, text in zip(parts[1::2], parts[2::2], strict=True):
            if targets := tuple(by_tool.get((env, tool), ())):
                written.append(Written("compile round (kept)", tool, text.strip() + "\n", targets))
    return written, cut


# --- sections ----------------------------------------------------------------------------------------------


@dataclass
class Tally:
    programs: int = 0
    parse: int = 0
    run: int = 0
    right: int = 0
    reasons: Counter[str] = field(default_factory=Counter)


def _program_outcome(tries: list[Tried]) -> tuple[bool, bool, str]:
    """A program's outcome over its calls: parses, runs on every call, and its first failure's reason."""
    parses = all(tried.stage != "parse" for tried in tries)
    runs = all(tried.stage == "ok" for tried in tries)
    failed = next((f"{tried.stage}: {tried.reason}" for tried in tries if tried.stage != "ok"), "")
    return parses, runs, failed


def _kind(reason: str) -> str:
    """A failure's reason, short enough to count alike ones together."""
    text = re.sub(r"\(line \d+\)|line \d+|`[^`]*`|'[^']*'|\"[^\"]*\"", "_", reason.split(" (")[0])
    return re.sub(r"\d+", "N", text)[:70]


def hand_answers(
    calls: dict[tuple[str, int], Call], environments: dict[str, Environment]
) -> dict[tuple[str, int], Answer]:
    """What the hand-written programs answer on every reference call (under the same call context)."""
    loaded = {
        name: compile_program(env.rules, name, [t.name for t in env.tools])
        for name, env in environments.items()
        if env.rules is not None
    }
    answers: dict[tuple[str, int], Answer] = {}
    for key, call in calls.items():
        if call.env in loaded and loaded[call.env].has(call.tool):
            ran = run_tool(loaded[call.env], call.tool, call.before, call.arguments, _context(call), Limits())
            answers[key] = Answer(ran.result, ran.is_error, ran.state_patch)
    return answers


def _state_right(written: Written, tries: list[Tried], hand: dict[tuple[str, int], Answer]) -> bool:
    """Whether the program left, on every call, the state the hand-written program leaves."""
    for call, tried in zip(written.calls, tries, strict=True):
        expected = hand.get((call.scenario, call.step))
        if tried.answer is None or expected is None:
            return False
        if apply_patch(call.before, tried.answer.patch) != apply_patch(call.before, expected.patch):
            return False
    return True


def section_corpus(
    written: list[Written], cut: int, monty: Any | None, profile: ModelProfile, hand: dict[tuple[str, int], Answer]
) -> None:
    print("## Corpus: programs the reports keep, run on the calls they were written for\n")
    print(f"{len(written)} programs ({len({w.text for w in written})} distinct); {cut} more replies were cut off")
    print("inside the program (no program to run).\n")
    engines: dict[str, Callable[[Written], list[Tried]]] = {
        "starlark as written": lambda w: [starlark_try(w.text, c, profile_for(None, "none")) for c in w.calls],
        "starlark + rewrites": lambda w: [starlark_try(w.text, c, profile) for c in w.calls],
    }
    runner = MontyRunner(monty) if monty is not None else None
    with runner or contextlib.nullcontext():
        if runner is not None:
            engines["monty as written"] = lambda w: [runner.try_(w.text, c) for c in w.calls]
        tries = {name: [engine(w) for w in written] for name, engine in engines.items()}
    origins = sorted({w.origin for w in written})
    header = "| engine | " + " | ".join(f"{o}: parse / run" for o in origins) + " | all: parse / run / state right |"
    print(header)
    print("|---|" + "---:|" * (len(origins) + 1))
    tallies: dict[str, dict[str, Tally]] = {}
    for name, results in tries.items():
        tallies[name] = {origin: Tally() for origin in [*origins, "all"]}
        for w, tried in zip(written, results, strict=True):
            parses, runs, failed = _program_outcome(tried)
            right = runs and _state_right(w, tried, hand)
            for key in (w.origin, "all"):
                tally = tallies[name][key]
                tally.programs += 1
                tally.parse += parses
                tally.run += runs
                tally.right += right
                if failed:
                    tally.reasons[_kind(failed)] += 1
        cells = [f"{t.parse} / {t.run} of {t.programs}" for t in tallies[name].values()]
        every = tallies[name]["all"]
        cells[-1] = f"{every.parse} / {every.run} / {every.right} of {every.programs}"
        print(f"| {name} | " + " | ".join(cells) + " |")
    if runner is None:
        print("| monty as written | pydantic-monty is not installed (pip install pydantic-monty) |")
    print()
    for name in tries:
        common = ", ".join(f"{reason} ({n})" for reason, n in tallies[name]["all"].reasons.most_common(6))
        print(f"- {name}, most common failures: {common}")
    print()
    _habits(written, tries)
    _hints(tries["starlark + rewrites"], profile)
    modules = sum(bool(_MODULES.search(w.text)) for w in written)
    used = sum(bool(_MODULE_USE.search(_code(w.text))) and not _MODULES.search(w.text) for w in written)
    total = len(written)
    print(f"Programs that import random, datetime or time: {modules} of {total}; that use one unimported: {used}.\n")
    if "monty as written" in tries:
        _agreement(written, tries["starlark + rewrites"], tries["monty as written"], hand)


def _code(text: str) -> str:
    """`text` with its string literals and comments blanked (a string that does not close: to the line's end)."""
    lines = []
    for line in text.splitlines():
        out, index = [], 0
        while index < len(line):
            if line[index] == "#":
                break
            if line[index] in "\"'":
                end = string_end(line, index) or len(line)
                out.append(" " * (end - index))
                index = end
                continue
            out.append(line[index])
            index += 1
        lines.append("".join(out))
    return "\n".join(lines)


def _generator(code: str) -> bool:
    """Whether a `for` stands directly inside parentheses (a generator expression, not a comprehension)."""
    opened: list[str] = []
    for match in re.finditer(r"[()\[\]{}]|\bfor\b", code):
        token = match[0]
        if token in "([{":
            opened.append(token)
        elif token in ")]}":
            if opened:
                opened.pop()
        elif opened and opened[-1] == "(":
            return True
    return False


# Python habits found in a program's code: the profile rewrites `is` and generator expressions into Starlark
# (llm/profiles/habits.py); the others are counted to show whether a rewrite of them would earn its place.
HABITS: dict[str, Callable[[str, str], bool]] = {
    "f-string": lambda text, code: re.search(r"(?<![A-Za-z0-9_])[fF][\"']", text) is not None,
    "is / is not": lambda text, code: _IS.search(code) is not None,
    "isinstance": lambda text, code: re.search(r"\bisinstance\(", code) is not None,
    ".get(k, default=v)": lambda text, code: re.search(r"\.get\([^()]*\bdefault\s*=", code) is not None,
    "generator expression": lambda text, code: _generator(code),
}


def _habits(written: list[Written], tries: dict[str, list[list[Tried]]]) -> None:
    """Per habit: the programs that have it, and of those, how many parse (run) only after the rewrites (a
    program with two habits counts under both); monty reads all of them as written."""
    print("| habit | programs with it | parse only after the rewrites | run only after the rewrites |")
    print("|---|---:|---:|---:|")
    raw, rewritten = tries["starlark as written"], tries["starlark + rewrites"]
    for name, found in HABITS.items():
        having = [i for i, w in enumerate(written) if found(w.text, _code(w.text))]
        parsed = sum(not _program_outcome(raw[i])[0] and _program_outcome(rewritten[i])[0] for i in having)
        ran = sum(not _program_outcome(raw[i])[1] and _program_outcome(rewritten[i])[1] for i in having)
        print(f"| {name} | {len(having)} | {parsed} | {ran} |")
    print()


def _hints(rewritten: list[list[Tried]], profile: ModelProfile) -> None:
    """Which of the profile's error hints the programs' first errors (after the rewrites) would be shown with."""
    hits: Counter[str] = Counter()
    for tries in rewritten:
        failed = next((tried for tried in tries if tried.stage != "ok"), None)
        hint = next((h for h in profile.error_hints if failed and h.pattern.search(failed.reason)), None)
        if hint is not None:
            hits[hint.pattern.pattern[:40]] += 1
    print(f"Programs whose first error gets a hint of the {profile.name} profile ({len(profile.error_hints)} hints):")
    for pattern, n in hits.most_common():
        print(f"- `{pattern}`: {n}")
    print()


def _agreement(
    written: list[Written], starlark: list[list[Tried]], monty: list[list[Tried]], hand: dict[tuple[str, int], Answer]
) -> None:
    both = same = 0
    differences: list[str] = []
    for w, left, right in zip(written, starlark, monty, strict=True):
        for call, a, b in zip(w.calls, left, right, strict=True):
            if a.answer is None or b.answer is None:
                continue
            both += 1
            if a.answer.same(b.answer, call.before):
                same += 1
            elif len(differences) < 4:
                said = _difference(call, a.answer, b.answer)
                differences.append(f"{call.scenario} step {call.step} {call.tool}: {said}")
    print(f"Calls run by both (Starlark + rewrites, monty as written): {both}; same answer: {same}.")
    only: dict[str, Counter[str]] = {"monty only": Counter(), "starlark only": Counter()}
    kept_state: Counter[str] = Counter()
    for w, left, other in zip(written, starlark, monty, strict=True):
        ran_left, ran_right = _program_outcome(left)[1], _program_outcome(other)[1]
        if ran_right and not ran_left:
            only["monty only"][_kind(_program_outcome(left)[2])] += 1
            kept_state["monty only"] += _state_right(w, other, hand)
        elif ran_left and not ran_right:
            only["starlark only"][_kind(_program_outcome(other)[2])] += 1
            kept_state["starlark only"] += _state_right(w, left, hand)
    for name, reasons in only.items():
        against = "Starlark + rewrites" if name == "monty only" else "monty"
        said = ", ".join(f"{reason} ({n})" for reason, n in reasons.most_common(8)) or "none"
        print(
            f"- run in {name.split()[0]} only: {reasons.total()} ({kept_state[name]} of them leave the hand-written "
            f"program's state); what {against} said: {said}"
        )
    for difference in differences:
        print(f"- differs: {difference}")
    print()


def _difference(call: Call, a: Answer, b: Answer) -> str:
    if a.is_error != b.is_error or a.result != b.result:
        return f"result {json.dumps(a.result)[:80]} vs {json.dumps(b.result)[:80]}"
    return f"state {_first_change(apply_patch(call.before, a.patch), apply_patch(call.before, b.patch))}"


def _first_change(a: Any, b: Any, path: str = "") -> str:
    """Where two states first differ, and the two values there."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                return _first_change(a.get(key), b.get(key), f"{path}/{key}")
    return f"{path}: {json.dumps(a)[:60]} vs {json.dumps(b)[:60]}"


def section_bundled(calls: dict[tuple[str, int], Call], environments: dict[str, Environment], monty: Any) -> None:
    print("## The bundled hand-written programs in monty (as written, with the helpers as Python)\n")
    if monty is None:
        print("pydantic-monty is not installed (pip install pydantic-monty): skipped.\n")
        return
    print("| environment | parses | calls | run | same answer as Starlark | first difference |")
    print("|---|---|---:|---:|---:|---|")
    with MontyRunner(monty) as runner:
        for name, environment in sorted(environments.items()):
            if environment.rules is None:
                continue
            program = compile_program(environment.rules, f"{name}.rules.star", [t.name for t in environment.tools])
            mine = [call for call in calls.values() if call.env == name]
            with runner.session() as session:
                failed = runner.define(session, environment.rules)
                if failed is not None:
                    print(f"| {name} | no: {failed.reason[:80]} | {len(mine)} | 0 | 0 | |")
                    continue
                ran = same = 0
                first = ""
                for call in mine:
                    expected = run_tool(program, call.tool, call.before, call.arguments, _context(call), Limits())
                    tried = runner.call(session, function_name(call.tool), call)
                    ran += tried.stage == "ok"
                    answer = Answer(expected.result, expected.is_error, expected.state_patch)
                    if tried.answer is not None and tried.answer.same(answer, call.before):
                        same += 1
                    elif not first:
                        got = tried.reason if tried.answer is None else _difference(call, answer, tried.answer)
                        first = f"{call.tool}: {got}"[:120]
                print(f"| {name} | yes | {len(mine)} | {ran} | {same} | {first} |")
    print()


# Constructs model-written programs use (the habits and hints above), each a snippet whose last line's value
# says whether it works; run in CPython and in monty.
FEATURES = {
    "f-string with a subscript": "d = {'id': 'T-1'}\nf\"{d['id']}!\" == 'T-1!'",
    "a generator as an argument": "sum(x * 2 for x in [1, 2]) == 6",
    "is None / is not None": "x = 1\n(None is None) and (x is not None)",
    "isinstance": "isinstance({}, dict) and not isinstance([], dict)",
    "{**record}": "{**{'a': 1}, 'b': 2} == {'a': 1, 'b': 2}",
    "try / except / raise": "def f():\n    try:\n        raise ValueError('x')\n    except ValueError as e:\n"
    "        return str(e)\nf() == 'x'",
    "list.sort()": "l = [3, 1, 2]\nl.sort()\nl == [1, 2, 3]",
    "dict.get(k, default=v)": "{}.get('k', default=0) == 0",
    "del d[k]": "d = {'a': 1}\ndel d['a']\nd == {}",
    "round(2.675, 2)": "round(2.675, 2)",
    "round(1.005, 2)": "round(1.005, 2)",
}


def _in_cpython(code: str) -> str:
    """What this process's Python makes of a `FEATURES` snippet (ours, fixed): its last line's value."""
    *body, last = code.split("\n")
    scope: dict[str, Any] = {}
    try:
        exec("\n".join(body), scope)
        return repr(eval(last, scope))
    except Exception as e:
        return f"{type(e).__name__}: {e}"


def section_features(monty: Any) -> None:
    print("## Python as models write it: monty against CPython\n")
    if monty is None:
        print("pydantic-monty is not installed (pip install pydantic-monty): skipped.\n")
        return
    print("| construct | CPython | monty |")
    print("|---|---|---|")
    with MontyRunner(monty) as runner, runner.session() as session:
        for name, code in FEATURES.items():
            try:
                got = repr(session.feed_run(code))
            except monty.MontyError as e:
                got = _monty_reason(monty, e)[:80]
            print(f"| {name} | {_in_cpython(code)[:60]} | {got} |")
    print()


def _pid_of(session: Any) -> Callable[[], int | None]:
    return lambda: session.worker_pid


def _worker_cpu(pid: int | None) -> float:
    if pid is None:
        return 0.0
    with contextlib.suppress(OSError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS
    return 0.0


@dataclass
class Cost:
    calls: int = 0
    wall: float = 0.0
    cpu: float = 0.0  # this process's
    worker: float = 0.0  # the monty worker's

    def row(self, name: str) -> str:
        per = 1000 / max(self.calls, 1)
        rate = self.calls / self.wall if self.wall else 0.0
        return (
            f"| {name} | {self.calls} | {(self.cpu + self.worker) * per:.3f} | {self.cpu * per:.3f} | "
            f"{self.wall * per:.3f} | {rate:,.0f} |"
        )


@contextlib.contextmanager
def _measure(cost: Cost, calls: int, pid: Callable[[], int | None] = lambda: None) -> Iterator[None]:
    wall, cpu, worker = time.perf_counter(), time.process_time(), _worker_cpu(pid())
    yield
    cost.calls += calls
    cost.wall += time.perf_counter() - wall
    cost.cpu += time.process_time() - cpu
    cost.worker += _worker_cpu(pid()) - worker


def section_cost(
    calls: dict[tuple[str, int], Call], environments: dict[str, Environment], monty: Any, runs: int
) -> None:
    print(f"## Cost per call in process; a tight loop of {runs} calls of the bundled programs\n")
    loaded = {
        name: compile_program(env.rules, f"{name}.rules.star", [t.name for t in env.tools])
        for name, env in environments.items()
        if env.rules is not None
    }
    plan = [call for call in calls.values() if call.env in loaded]
    if not plan:
        print("no reference calls of a bundled program\n")
        return
    order = [plan[i % len(plan)] for i in range(runs)]
    print("| engine | calls | CPU ms per call | of it in this process | wall ms per call | calls/s |")
    print("|---|---:|---:|---:|---:|---:|")
    starlark = Cost()
    with _measure(starlark, len(order)):
        for call in order:
            run_tool(loaded[call.env], call.tool, call.before, call.arguments, _context(call), Limits())
    print(starlark.row("starlark: loaded program, one call"))
    fresh = Cost()
    sample = order[: max(1, runs // 4)]
    with _measure(fresh, len(sample)):
        for call in sample:
            text = environments[call.env].rules or ""
            program = compile_program(text, "<program>", [call.tool])
            run_tool(program, call.tool, call.before, call.arguments, _context(call), Limits())
    print(fresh.row("starlark: the whole program compiled per call"))
    if monty is None:
        print("| monty | pydantic-monty is not installed (pip install pydantic-monty) | | | | |\n")
        return
    with MontyRunner(monty) as runner:
        loop = Cost()
        by_env: dict[str, list[Call]] = {}
        for call in order:
            by_env.setdefault(call.env, []).append(call)
        for name, mine in by_env.items():
            with runner.session() as session:
                runner.define(session, environments[name].rules or "")
                with _measure(loop, len(mine), _pid_of(session)):
                    for call in mine:
                        runner.call(session, function_name(call.tool), call)
        print(loop.row("monty: loaded program, one call (a session per environment)"))
        per_call = Cost()
        for call in sample:
            with runner.session() as session, _measure(per_call, 1, _pid_of(session)):
                runner.define(session, environments[call.env].rules or "")
                runner.call(session, function_name(call.tool), call)
        print(per_call.row("monty: a fresh interpreter and the whole program per call"))
    print()
    _by_state_size(calls, environments, loaded, monty, max(20, runs // 4))


def _by_state_size(
    calls: dict[tuple[str, int], Call],
    environments: dict[str, Environment],
    loaded: dict[str, Any],
    monty: Any,
    per_size: int,
) -> None:
    """`create_ticket` on the tickets state grown by copies of its first ticket: both languages hand the whole
    state across (as JSON text into Starlark, as values into monty's worker and back), so the cost grows
    with it."""
    first = next((c for c in calls.values() if c.env == "tickets" and c.tool == "create_ticket"), None)
    if first is None or "tickets" not in loaded:
        return
    print("CPU ms per call of create_ticket by state size (monty: this process and its worker):\n")
    print("| tickets in the state | state KB | calls | starlark | monty |")
    print("|---:|---:|---:|---:|---:|")
    for extra in (0, 100, 1000):
        runs = max(20, per_size // (1 + extra // 50))
        state = copy.deepcopy(first.before)
        model = next(iter(state["tickets"].values()))
        state["tickets"].update({f"T-{5000 + i}": {**model, "id": f"T-{5000 + i}"} for i in range(extra)})
        call = Call(first.scenario, first.env, first.step, first.tool, state, first.arguments)
        starlark = Cost()
        with _measure(starlark, runs):
            for _ in range(runs):
                run_tool(loaded["tickets"], call.tool, call.before, call.arguments, _context(call), Limits())
        cells = [f"{(starlark.cpu) * 1000 / runs:.3f}"]
        if monty is None:
            cells.append("not installed")
        else:
            with MontyRunner(monty) as runner, runner.session() as session:
                runner.define(session, environments["tickets"].rules or "")
                measured = Cost()
                with _measure(measured, runs, _pid_of(session)):
                    for _ in range(runs):
                        runner.call(session, function_name(call.tool), call)
                cells.append(f"{(measured.cpu + measured.worker) * 1000 / runs:.3f}")
        size = len(json.dumps(state)) / 1024
        print(f"| {len(state['tickets'])} | {size:.1f} | {runs} | {' | '.join(cells)} |")
    print()


def section_determinism(calls: dict[tuple[str, int], Call], environments: dict[str, Environment], monty: Any) -> None:
    print("## Determinism\n")
    plan = [call for call in calls.values() if environments[call.env].rules is not None]
    loaded = {
        name: compile_program(env.rules, name, [t.name for t in env.tools])
        for name, env in environments.items()
        if env.rules is not None
    }
    twice = sum(
        run_tool(loaded[c.env], c.tool, c.before, c.arguments, _context(c), Limits())
        == run_tool(loaded[c.env], c.tool, c.before, c.arguments, _context(c), Limits())
        for c in plan
    )
    print(f"- starlark, bundled programs, each call twice with the same call context: {twice} of {len(plan)} same")
    print("- starlark: no clock and no random in the language; now(), today(), random_code() and random_int()")
    print("  are host helpers seeded by the session's seed and the call's number")
    if monty is None:
        print("- monty: pydantic-monty is not installed (pip install pydantic-monty)\n")
        return
    with MontyRunner(monty) as runner:
        same = 0
        for call in plan:
            answers = []
            for _ in range(2):
                with runner.session() as session:
                    runner.define(session, environments[call.env].rules or "")
                    answers.append(runner.call(session, function_name(call.tool), call).answer)
            same += answers[0] is not None and answers[0] == answers[1]
        print(f"- monty, bundled programs with the same helpers, each call twice: {same} of {len(plan)} same")
        draw = "import random, datetime, time\n[random.random(), datetime.datetime.now().isoformat(), time.time()]"
        fixed = dt.datetime(2025, 3, 14, 10, 0, tzinfo=dt.UTC)

        def sandbox(policy: dict[str, Any] | None, **feed: Any) -> Any:
            with runner.pool.checkout(os_policy=policy) as session:
                return session.feed_run(draw, **feed)

        seeded = [sandbox({"random_start": {"seed": seed}, "datetime": fixed}) for seed in (1, 1, 2)]
        print(
            f"- monty's own random, seeded per interpreter (os_policy random_start): same seed same draws "
            f"{seeded[0][0] == seeded[1][0]}, another seed other draws {seeded[0][0] != seeded[2][0]}"
        )
        print(f"- monty's own clock fixed per interpreter (os_policy datetime): datetime.now() = {seeded[0][1]}")
        moment = dt.datetime(2026, 1, 1, 9, 3, 17, tzinfo=dt.UTC)

        def host_clock(*, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], **_: Any) -> Any:
            if name == "datetime.now":
                return moment if args and args[0] is not None else moment.replace(tzinfo=None)
            if name == "date.today":
                return moment.date()
            if name == "time.time":
                return moment.timestamp()
            return monty.NOT_HANDLED

        per_call = sandbox({"datetime": "call_host"}, os=host_clock)
        print(f"- monty's clock per call from the host (os_policy datetime 'call_host'): {per_call[1]}, {per_call[2]}")
        default = [sandbox(None)[0] for _ in range(2)]
        print(f"- monty by default (no policy): two interpreters draw the same random: {default[0] == default[1]}")
    print()


# --- program mode against patch mode -----------------------------------------------------------------------


@dataclass
class Group:
    calls: int = 0
    results: Counter[str] = field(default_factory=Counter)
    states: Counter[str] = field(default_factory=Counter)
    seconds: dict[str, float] = field(default_factory=lambda: {"patch": 0.0, "program": 0.0})
    no_answer: int = 0

    def add(self, scored: dict[str, dict[str, Any]]) -> None:
        self.calls += 1
        for mode, call in scored.items():
            self.results[mode] += bool(call["result_match"])
            self.states[mode] += bool(call["state_match"])
            self.seconds[mode] += call.get("latency_ms", 0.0) / 1000
        self.no_answer += str(scored["program"].get("error") or "").startswith(_NO_ANSWER)


def section_modes(results: Path, environments: dict[str, Environment], numeric: set[tuple[str, str]]) -> None:
    print("## Program mode against patch mode, call by call (the same calls, the same model)\n")
    scored: dict[tuple[str, int], dict[str, dict[str, Any]]] = {}
    for mode in ("patch", "program"):
        for report in sorted((results / mode).glob("*.json")):
            for scenario in json.loads(report.read_text(encoding="utf-8")).get("scenarios", []):
                for call in scenario.get("calls", []):
                    key = (scenario["name"], call["step"])
                    scored.setdefault(key, {})[mode] = {**call, "env": scenario["env"]}
    paired = {key: value for key, value in scored.items() if len(value) == 2}
    if not paired:
        print(f"no call scored in both {results / 'patch'} and {results / 'program'}\n")
        return
    groups: dict[str, Group] = {}
    for value in paired.values():
        call = value["program"]
        tool = environments[call["env"]].tool(call["call"]) if call["env"] in environments else None
        read_only = tool is not None and tool.annotations is not None and tool.annotations.read_only_hint is True
        changed = call["fields_changed"]
        kind = "0 fields" if changed == 0 else "1-4 fields" if changed <= 4 else "5+ fields"
        for name in ("all", f"{'read' if read_only else 'write'} tool, {kind}"):
            groups.setdefault(name, Group()).add(value)
    print(
        "| calls | n | result: patch / program | state: patch / program | s per call: patch / program |"
        " program: no valid answer |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for name in sorted(groups, key=lambda g: (g != "all", g)):
        g = groups[name]
        print(
            f"| {name} | {g.calls} | {_pct(g.results['patch'], g.calls)} / {_pct(g.results['program'], g.calls)} | "
            f"{_pct(g.states['patch'], g.calls)} / {_pct(g.states['program'], g.calls)} | "
            f"{g.seconds['patch'] / g.calls:.1f} / {g.seconds['program'] / g.calls:.1f} | {g.no_answer} |"
        )
    print()
    _by_tool(paired, numeric)
    _wins(paired)
    _choices(paired, environments, numeric)
    _splits(paired, environments)


def _by_tool(paired: dict[tuple[str, int], dict[str, dict[str, Any]]], numeric: set[tuple[str, str]]) -> None:
    """The writes, tool by tool: state changes made exact by each mode, and program mode's calls left without
    an answer."""
    tools: dict[tuple[str, str], Group] = {}
    for both in paired.values():
        call = both["program"]
        if call["fields_changed"] > 0:
            tools.setdefault((call["env"], call["call"]), Group()).add(both)
    print(
        "| write tool (calls that change state) | changes a number | n | state exact: patch / program |"
        " result: patch / program | program: no valid answer |"
    )
    print("|---|---|---:|---:|---:|---:|")
    for (env, tool), g in sorted(tools.items()):
        print(
            f"| {env} {tool} | {'yes' if (env, tool) in numeric else 'no'} | {g.calls} | "
            f"{g.states['patch']} / {g.states['program']} | {g.results['patch']} / {g.results['program']} | "
            f"{g.no_answer} |"
        )
    print()


def _pct(part: float, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def _wins(paired: dict[tuple[str, int], dict[str, dict[str, Any]]]) -> None:
    for figure in ("result_match", "state_match"):
        won: Counter[str] = Counter()
        lost_how: Counter[str] = Counter()
        for value in paired.values():
            patch, program = bool(value["patch"][figure]), bool(value["program"][figure])
            won[
                "both" if patch and program else "patch only" if patch else "program only" if program else "neither"
            ] += 1
            if patch and not program:
                lost_how[_failure(value["program"])] += 1
        print(f"- {figure.replace('_', ' ')}: " + ", ".join(f"{k} {v}" for k, v in sorted(won.items())))
        print(
            "  where patch mode won, program mode's answer: " + ", ".join(f"{k} {v}" for k, v in lost_how.most_common())
        )
    print()


def _failure(call: dict[str, Any]) -> str:
    error = str(call.get("error") or "")
    if not error.startswith(_NO_ANSWER):
        return "answered, wrong" if not call.get("rejected") else "answered on a retry, wrong"
    last = call["rejected"][-1] if call.get("rejected") else error
    if "cut off" in last:
        return "no answer: cut off"
    if "Parse error" in last:
        return "no answer: did not parse"
    if "output schema" in last:
        return "no answer: result not in the output shape"
    return "no answer: program failed"


def numeric_tools(calls: dict[tuple[str, int], Call], environments: dict[str, Environment]) -> set[tuple[str, str]]:
    """The tools (environment, tool) whose hand-written program changes a number on some reference call
    (a balance, a stock count): where arithmetic decides the new state."""
    loaded = {
        name: compile_program(env.rules, name, [t.name for t in env.tools])
        for name, env in environments.items()
        if env.rules is not None
    }
    found: set[tuple[str, str]] = set()
    for call in calls.values():
        if call.env in loaded and loaded[call.env].has(call.tool):
            ran = run_tool(loaded[call.env], call.tool, call.before, call.arguments, _context(call), Limits())
            numbers = (op for op in ran.state_patch if op["op"] == "replace")
            if any(isinstance(op["value"], int | float) and not isinstance(op["value"], bool) for op in numbers):
                found.add((call.env, call.tool))
    return found


def _choices(
    paired: dict[tuple[str, int], dict[str, dict[str, Any]]],
    environments: dict[str, Environment],
    numeric: set[tuple[str, str]],
) -> None:
    def read_only(call: dict[str, Any]) -> bool:
        env = environments.get(call["env"])
        tool = env.tool(call["call"]) if env is not None else None
        return tool is not None and tool.annotations is not None and tool.annotations.read_only_hint is True

    def failed(call: dict[str, Any]) -> bool:
        return str(call.get("error") or "").startswith(_NO_ANSWER)

    Choice = Callable[[dict[str, dict[str, Any]]], list[dict[str, Any]]]
    rules: dict[str, Choice] = {
        "patch always": lambda both: [both["patch"]],
        "program always": lambda both: [both["program"]],
        "program for tools not marked readOnlyHint, patch for reads": lambda both: [
            both["patch" if read_only(both["program"]) else "program"]
        ],
        "program for tools that change a number, patch for the others": lambda both: [
            both["program" if (both["program"]["env"], both["program"]["call"]) in numeric else "patch"]
        ],
        "program for writes, then patch where it gave no valid answer": lambda both: (
            [both["patch"]]
            if read_only(both["program"])
            else [both["program"], both["patch"]]
            if failed(both["program"])
            else [both["program"]]
        ),
        "program for writes that change no number, then patch where it gave no valid answer": lambda both: (
            [both["patch"]]
            if read_only(both["program"]) or (both["program"]["env"], both["program"]["call"]) in numeric
            else [both["program"], both["patch"]]
            if failed(both["program"])
            else [both["program"]]
        ),
    }
    print("| per-call choice | result match | state match | state changes exact | s per call |")
    print("|---|---:|---:|---:|---:|")
    for name, choose in rules.items():
        tried = [choose(both) for both in paired.values()]
        kept = [attempts[-1] for attempts in tried]
        writes = [call for call in kept if call["fields_changed"] > 0]
        seconds = statistics.fmean(sum(c.get("latency_ms", 0.0) for c in attempts) / 1000 for attempts in tried)
        print(
            f"| {name} | {_pct(sum(bool(c['result_match']) for c in kept), len(kept))} | "
            f"{_pct(sum(bool(c['state_match']) for c in kept), len(kept))} | "
            f"{sum(bool(c['state_match']) for c in writes)} of {len(writes)} | {seconds:.1f} |"
        )
    print()


def _attempts(call: dict[str, Any]) -> int:
    """How many attempts a reported call took: its rejected answers, and the one kept unless none was."""
    failed = str(call.get("error") or "").startswith(_NO_ANSWER)
    return len(call.get("rejected") or []) + (0 if failed else 1)


def _splits(paired: dict[tuple[str, int], dict[str, dict[str, Any]]], environments: dict[str, Environment]) -> None:
    """`auto` with its fallback, for each split of `--max-attempts` between program and patch mode that the
    reports can tell (each mode was given up to 2 attempts): a write takes the program if it was valid within
    the program's share, else the patch if valid within the rest, else no answer (the program's failed
    record: the state unchanged). Time: a call's latency split evenly over the attempts it took, so a
    fallback costs the program attempts it was given and the patch attempts it used."""

    def read_only(call: dict[str, Any]) -> bool:
        env = environments.get(call["env"])
        tool = env.tool(call["call"]) if env is not None else None
        return tool is not None and tool.annotations is not None and tool.annotations.read_only_hint is True

    def seconds(call: dict[str, Any], attempts: int) -> float:
        return float(call.get("latency_ms", 0.0)) / 1000 * attempts / max(1, _attempts(call))

    def valid_within(call: dict[str, Any], attempts: int) -> bool:
        return not str(call.get("error") or "").startswith(_NO_ANSWER) and _attempts(call) <= attempts

    print(
        "| --max-attempts | program + patch attempts | result match | state match | state changes exact |"
        " no valid answer | fallbacks | s per call |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for attempts, programs in ((2, 2), (2, 1), (3, 2), (3, 1)):
        kept: list[dict[str, Any]] = []
        spent: list[float] = []
        missing = fallbacks = 0
        for both in paired.values():
            patch, program = both["patch"], both["program"]
            if read_only(program):
                kept.append(patch)
                spent.append(seconds(patch, _attempts(patch)))
            elif valid_within(program, programs):
                kept.append(program)
                spent.append(seconds(program, _attempts(program)))
            else:
                left = attempts - programs
                fallbacks += left > 0
                used = min(left, _attempts(patch) or left)
                answered = left > 0 and valid_within(patch, left)
                kept.append(patch if answered else program)
                missing += not answered
                spent.append(seconds(program, programs) + (seconds(patch, used) if left > 0 else 0.0))
        writes = [call for call in kept if call["fields_changed"] > 0]
        rule = " (the rule)" if programs == program_attempts(attempts) else ""
        print(
            f"| {attempts} | {programs} + {attempts - programs}{rule} | "
            f"{_pct(sum(bool(c['result_match']) for c in kept), len(kept))} | "
            f"{_pct(sum(bool(c['state_match']) for c in kept), len(kept))} | "
            f"{sum(bool(c['state_match']) for c in writes)} of {len(writes)} | {missing} | {fallbacks} | "
            f"{statistics.fmean(spent):.1f} |"
        )
    print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--results", type=Path, default=REPO / "benchmarks/results/fidelity-llm")
    parser.add_argument("--scenarios", type=Path, default=REPO / "benchmarks/fidelity")
    parser.add_argument("--specs", type=Path, default=REPO / "tool_specs")
    parser.add_argument("--runs", type=int, default=2000, help="calls in the tight loop of the cost section")
    parser.add_argument("--only", default=",".join(SECTIONS), help=f"sections, comma-separated: {', '.join(SECTIONS)}")
    parser.add_argument("--profile", default=PROFILE, help="the model profile whose rewrites and hints are measured")
    args = parser.parse_args(argv)
    sections = [name.strip() for name in args.only.split(",") if name.strip()]
    if unknown := [name for name in sections if name not in SECTIONS]:
        parser.error(f"--only: unknown section {', '.join(unknown)}; expected some of {', '.join(SECTIONS)}")
    if args.runs < 1:
        parser.error(f"--runs: expected at least 1 call, got {args.runs}")
    monty = load_monty()
    version = f"pydantic-monty {monty.__version__}" if monty is not None else "pydantic-monty is not installed"
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"# Language of programs ({version}; Python {sys.version.split()[0]}; load average {load})\n")
    calls, environments = reference(args.specs, args.scenarios)
    if "corpus" in sections:
        written, cut = corpus(args.results, calls)
        section_corpus(written, cut, monty, profile_for(None, args.profile), hand_answers(calls, environments))
    if "bundled" in sections:
        section_bundled(calls, environments, monty)
    if "features" in sections:
        section_features(monty)
    if "cost" in sections:
        section_cost(calls, environments, monty, args.runs)
    if "determinism" in sections:
        section_determinism(calls, environments, monty)
    if "modes" in sections:
        section_modes(args.results, environments, numeric_tools(calls, environments))
    return 0


if __name__ == "__main__":
    sys.exit(main())
