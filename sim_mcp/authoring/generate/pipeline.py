"""One environment from one sentence, through every gate; what fails a gate after its repairs is dropped.

The steps and their gates, in order (each failure quoted back to the model, bounded):

1. **spec**: the design, then the world (`forms.py`), each asked up to `rounds` times with the previous
   refusal quoted; the assembled spec is written and read back by the project's loader (`load_catalog`).
2. **distinct**: not a near-duplicate of an environment already kept (the batch's `distinct`).
3. **programs**: `compile_environment` writes a program per tool, each checked against the tool's example
   and probe calls, a failure fed back up to `rounds` times; the catalog then loads them with no error
   (the loader runs every example again).
4. **consistency**: generated sessions answered by the programs keep what they show
   (`gates.consistency_problems`); a tool that breaks it is compiled again with the finding quoted, up to
   `repairs` times.
5. **tasks**: proven tasks at each difficulty asked (`gates.draft_tasks`), at least one per difficulty.
6. **gain**: doing nothing scores 0, the reference solution 1 (`gates.gain_problems`).
7. **agreement**: the LLM backend, following the instructions, answers a sample of calls as the programs do
   (at least `agreement` of them); else the instructions are written again with the disagreements quoted,
   up to `repairs` times.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sim_mcp.authoring.generate.forms import (
    DESIGN,
    INSTRUCTIONS,
    WORLD,
    design_prompt,
    instructions_prompt,
    world_prompt,
)
from sim_mcp.authoring.generate.gates import (
    agreement,
    agreement_sample,
    consistency_problems,
    draft_tasks,
    gain_problems,
    sandboxed,
)
from sim_mcp.authoring.generate.meter import MeteredBackend
from sim_mcp.authoring.generate.report import EnvironmentReport
from sim_mcp.authoring.generate.spec import (
    Bounds,
    assemble,
    design_problem,
    environment_name,
    spec_error_text,
    world_problem,
)
from sim_mcp.authoring.programs.compile import compile_environment, programs_path
from sim_mcp.config import EngineConfig, LlmConfig
from sim_mcp.engine.backends import Backend
from sim_mcp.engine.intent import collections_in
from sim_mcp.episodes.asking import Problem, ask_json
from sim_mcp.episodes.tasks import Task
from sim_mcp.errors import BackendError, SpecError
from sim_mcp.llm.profiles import DEFAULT_PROFILE, ModelProfile
from sim_mcp.rules import Limits, compile_rules
from sim_mcp.specs.model import Environment
from sim_mcp.specs.registry import Catalog, load_catalog
from sim_mcp.specs.writer import environment_yaml
from sim_mcp.text import shorten

__all__ = ["Generated", "Options", "generate_environment"]

logger = logging.getLogger("sim_mcp")


@dataclass(frozen=True)
class Options:
    """How hard each step tries, and what an environment must have to ship."""

    bounds: Bounds = field(default_factory=Bounds)
    # Asks per step (the design, the world, each program, each task), each failure quoted in the next.
    rounds: int = 3
    # Repairs after a gate failed on a whole environment (consistency, agreement).
    repairs: int = 2
    difficulties: tuple[int, ...] = (1, 2)
    tasks_per_difficulty: int = 1
    # Generated sessions of the consistency gate, and calls in each.
    sessions: int = 3
    calls: int = 8
    # Calls the LLM and the programs both answer, and the share that must agree (0 calls: the gate is not run).
    agreement_sample: int = 6
    agreement: float = 0.5
    seed: int = 0
    engine: EngineConfig = field(default_factory=EngineConfig)
    llm: LlmConfig = field(default_factory=LlmConfig)
    profile: ModelProfile = DEFAULT_PROFILE


@dataclass
class Generated:
    """What one description came to: the report, and when every gate passed, the files to ship."""

    report: EnvironmentReport
    spec: Path | None = None
    tasks: list[Task] = field(default_factory=list)


async def generate_environment(
    description: str,
    backend: Backend,
    folder: Path,
    options: Options,
    *,
    key: str,
    name_for: Callable[[str], str] = lambda name: name,
    distinct: Callable[[Environment], str | None] = lambda environment: None,
    progress: Callable[[str], None] = lambda line: None,
) -> Generated:
    """Write the environment `description` says into `folder` and run every gate; `name_for` makes the model's
    name unique, `distinct` says which kept environment this one duplicates (None: none)."""
    metered = MeteredBackend(backend)
    report = EnvironmentReport(key, description)
    started = time.perf_counter()
    try:
        generated = await _run(description, metered, folder, options, report, name_for, distinct, progress)
    except BackendError as e:
        # The provider failed past its retries: the gate being run is reported as failed, with why.
        gate = next((name for name in _ORDER if name not in report.gates), "spec")
        report.gate(gate, False, f"the model could not be asked: {e}")
        generated = Generated(report)
    except Exception as e:  # a surprise in one environment must not end a batch: it is dropped, and says why
        logger.exception("generating %s failed", key)
        gate = next((name for name in _ORDER if name not in report.gates), "spec")
        report.gate(gate, False, f"an unexpected error: {type(e).__name__}: {e}")
        generated = Generated(report)
    report.tokens, report.requests = metered.tokens, metered.requests
    report.seconds = time.perf_counter() - started
    report.status = "passed" if report.failed_gate is None else "dropped"
    return generated


_ORDER = ("spec", "distinct", "programs", "consistency", "tasks", "gain", "agreement")


async def _run(
    description: str,
    backend: Backend,
    folder: Path,
    options: Options,
    report: EnvironmentReport,
    name_for: Callable[[str], str],
    distinct: Callable[[Environment], str | None],
    progress: Callable[[str], None],
) -> Generated:
    done = Generated(report)
    environment = await _spec(description, backend, options, report, name_for)
    if environment is None:
        return done
    report.name = environment.name
    report.tools = len(environment.tools)
    report.records = _records(environment.initial_state)
    duplicate = distinct(environment)
    if not report.gate("distinct", duplicate is None, f"a near-duplicate of {duplicate}" if duplicate else ""):
        return done
    spec_path = folder / f"{environment.name}.yaml"
    _write_spec(environment, spec_path, description, fresh=True)
    progress(f"{environment.name}: spec written, {report.tools} tools; compiling")

    # -- programs
    compiled = await compile_environment(
        environment,
        spec_path,
        backend,
        recordings=[],
        rounds=options.rounds,
        limits=Limits.of(options.engine),
        profile=options.profile,
    )
    failed = [tool for tool in compiled.tools if tool.status == "failed"]
    rounds = sum(max(0, tool.rounds - 1) for tool in compiled.tools)
    if failed:
        detail = "; ".join(f"{tool.tool}: {shorten(tool.reason or '', 300)}" for tool in failed)
        report.gate("programs", False, detail, rounds)
        return done
    loaded = _load(spec_path)
    if isinstance(loaded, str):
        report.gate("programs", False, loaded, rounds)
        return done
    environment, catalog = loaded
    report.gate("programs", True, f"{len(compiled.tools)} programs", rounds)

    # -- consistency
    for repair in range(options.repairs + 1):
        programs = sandboxed(catalog, backend, options.engine, options.llm, rules=True)
        found, made = await consistency_problems(
            programs, environment, sessions=options.sessions, calls=options.calls, seed=options.seed
        )
        if not found:
            report.gate("consistency", True, f"{made} generated calls", repair)
            break
        if repair == options.repairs:
            report.gate("consistency", False, "; ".join(found.values()), repair)
            return done
        progress(f"{environment.name}: consistency: {shorten('; '.join(found.values()), 200)}; compiling again")
        await compile_environment(
            environment,
            spec_path,
            backend,
            recordings=[],
            rounds=options.rounds,
            limits=Limits.of(options.engine),
            profile=options.profile,
            notes=found,
        )
        loaded = _load(spec_path)
        if isinstance(loaded, str):
            report.gate("consistency", False, loaded, repair + 1)
            return done
        environment, catalog = loaded

    # -- tasks
    programs = sandboxed(catalog, backend, options.engine, options.llm, rules=True)
    drafts = await draft_tasks(
        programs,
        environment,
        backend,
        difficulties=options.difficulties,
        per_difficulty=options.tasks_per_difficulty,
        rounds=options.rounds,
    )
    by_difficulty = {
        level: sum(1 for task in drafts.accepted if task.difficulty == level) for level in options.difficulties
    }
    report.tasks, report.tasks_by_difficulty = len(drafts.accepted), by_difficulty
    missing = [level for level, count in by_difficulty.items() if count == 0]
    asked = options.tasks_per_difficulty * len(options.difficulties)
    if missing:
        last = next((why for level, why in reversed(drafts.refused) if level in missing), "")
        detail = f"no proven task at difficulty {', '.join(map(str, missing))}: {shorten(last, 400)}"
        report.gate("tasks", False, detail, max(0, drafts.asked - asked))
        return done
    report.gate("tasks", True, f"{len(drafts.accepted)} tasks", max(0, drafts.asked - asked))

    # -- gain
    problems = await gain_problems(
        sandboxed(catalog, backend, options.engine, options.llm, rules=True), drafts.accepted
    )
    if not report.gate("gain", not problems, "; ".join(problems)):
        return done

    # -- agreement
    if options.agreement_sample > 0:
        programs = sandboxed(catalog, backend, options.engine, options.llm, rules=True)
        sample = await agreement_sample(
            programs, environment, drafts.accepted, size=options.agreement_sample, seed=options.seed
        )
        for repair in range(options.repairs + 1):
            llm = sandboxed(catalog, backend, options.engine, options.llm, rules=False)
            programs = sandboxed(catalog, backend, options.engine, options.llm, rules=True)
            agreed = await agreement(programs, llm, environment, sample)
            report.agreement = round(agreed.share, 3)
            detail = f"{agreed.agreed} of {agreed.total} calls agree"
            if agreed.share >= options.agreement:
                report.gate("agreement", True, detail, repair)
                break
            if repair == options.repairs:
                report.gate("agreement", False, f"{detail}: {shorten('; '.join(agreed.disagreements), 600)}", repair)
                return done
            progress(f"{environment.name}: agreement {detail}; writing the instructions again")
            rewritten = await _instructions(environment, spec_path, backend, agreed.disagreements, options)
            if rewritten is None:
                continue
            _write_spec(environment.model_copy(update={"instructions": rewritten}), spec_path, description)
            loaded = _load(spec_path)
            if isinstance(loaded, str):
                report.gate("agreement", False, f"the rewritten spec does not load: {loaded}", repair + 1)
                return done
            environment, catalog = loaded
    else:
        report.gate("agreement", True, "not run (no calls sampled)")
    done.spec = spec_path
    done.tasks = drafts.accepted
    return done


async def _spec(
    description: str, backend: Backend, options: Options, report: EnvironmentReport, name_for: Callable[[str], str]
) -> Environment | None:
    """The design, then the world, each asked with the previous refusal quoted; None (gate failed) if not."""
    bounds = options.bounds
    name: list[str] = []

    def read_design(value: dict[str, Any]) -> dict[str, Any] | Problem:
        if (problem := design_problem(value, bounds)) is not None:
            return Problem(problem)
        try:
            assemble(value, {"initial_state": {}, "examples": []}, description, "draft")
        except SpecError as e:
            return Problem(spec_error_text(e))
        return value

    design = await ask_json(
        backend,
        DESIGN.request(
            design_prompt(description, min_tools=bounds.min_tools, max_tools=bounds.max_tools, problem=None)
        ),
        read_design,
        attempts=options.rounds,
        what="design",
    )
    if design.value is None:
        report.gate(
            "spec",
            False,
            f"design: {design.problems[-1] if design.problems else 'no answer'}",
            len(design.problems) - 1,
        )
        return None
    shown: dict[str, Any] = {
        key: design.value[key] for key in ("name", "description", "instructions", "now", "tools") if key in design.value
    }

    def read_world(value: dict[str, Any]) -> Environment | Problem:
        if (problem := world_problem(value, design.value or {}, bounds)) is not None:
            return Problem(problem)
        if not name:
            name.append(name_for(environment_name(shown.get("name"), description)))
        try:
            return assemble(shown, value, description, name[0])
        except SpecError as e:
            return Problem(spec_error_text(e))

    world = await ask_json(
        backend,
        WORLD.request(
            world_prompt(shown, min_records=bounds.min_records, max_records=bounds.max_records, problem=None)
        ),
        read_world,
        attempts=options.rounds,
        what="world",
    )
    repairs = len(design.problems) + max(0, len(world.problems) - (0 if world.value is not None else 1))
    if world.value is None:
        report.gate("spec", False, f"world: {world.problems[-1] if world.problems else 'no answer'}", repairs)
        return None
    report.gate("spec", True, f"{len(world.value.tools)} tools, {_records(world.value.initial_state)} records", repairs)
    return world.value


async def _instructions(
    environment: Environment, spec_path: Path, backend: Backend, disagreements: Sequence[str], options: Options
) -> str | None:
    """The instructions written again so that they say what the programs do; None when no answer was usable."""
    programs = programs_path(spec_path).read_text(encoding="utf-8")

    def read(value: dict[str, Any]) -> str | Problem:
        text = value.get("instructions")
        if not isinstance(text, str) or len(text.strip()) < 40:
            return Problem('"instructions" must be the full rules, as text')
        return text.strip()

    prompt = instructions_prompt(environment.instructions, programs, disagreements[:8])
    answer = await ask_json(backend, INSTRUCTIONS.request(prompt), read, attempts=options.rounds, what="instructions")
    return answer.value


def _load(spec_path: Path) -> tuple[Environment, Catalog] | str:
    """The environment as the server would load it, with its programs; or why it does not load."""
    catalog = load_catalog(spec_path)
    if catalog.errors:
        return "; ".join(str(error) for error in catalog.errors)
    (environment,) = catalog.environments.values()
    rules = compile_rules(catalog)
    if rules.errors:
        return "; ".join(str(error) for error in rules.errors)
    missing = [tool.name for tool in environment.tools if (environment.name, tool.name) not in rules.programs]
    if missing:
        return f"no program loaded for {', '.join(missing)}"
    return environment, catalog


def _write_spec(environment: Environment, path: Path, description: str, *, fresh: bool = False) -> None:
    """The spec file of `environment` (`fresh`: in a new folder, no programs file of an earlier run)."""
    if fresh:
        path.parent.mkdir(parents=True, exist_ok=True)
        programs_path(path).unlink(missing_ok=True)
    header = f"Written by sim-mcp generate from: {description.strip()}"
    path.write_text(environment_yaml(environment.model_copy(update={"rules": None}), header=header), encoding="utf-8")


def _records(state: Any) -> int:
    if not isinstance(state, dict):
        return 0
    return sum(len(records) for _path, records in collections_in(state))
