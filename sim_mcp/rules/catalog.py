"""The rules programs of a catalog: compiled once per catalog (a reload builds a new one), by tool.

Spec loading (`specs/`) only reads a program's text into its environment (`Environment.rules`); the
engine compiles it here, runs each function against its tool's examples, and keeps the functions that
pass. A program that does not compile, and each function that fails an example, is a `SpecError` naming
the file, the tool, the line and what was expected; those tools fall back to the configured backend.

A catalogue of a thousand environments repeats its programs, so `RulesChecks` keeps what checking one
found by its content (the program's text, its tools' names and examples, the initial state): a program
is compiled when its environment is first used, and its examples are run once per distinct content.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import orjson

from sim_mcp.errors import RulesError, SpecError
from sim_mcp.rules.examples import example_problem
from sim_mcp.rules.program import Program, compile_program, function_name
from sim_mcp.rules.runtime import Limits
from sim_mcp.specs.model import Environment
from sim_mcp.specs.registry import Catalog, Tool


@dataclass(frozen=True)
class RulesCatalog:
    """By environment and tool, the program that answers the tool; and the problems of the programs."""

    programs: dict[tuple[str, str], Program] = field(default_factory=dict)
    errors: tuple[SpecError, ...] = ()

    def program(self, tool: Tool) -> Program | None:
        """The program that answers `tool`, if its environment has one with a working function for it."""
        return self.programs.get((tool.environment.name, tool.name))


@dataclass(frozen=True)
class RulesVerdict:
    """What checking an environment's program found, without the program: the line of the `def` of each
    tool it answers (its function passes the tool's examples), and the problems, each naming the file."""

    answered: dict[str, int] = field(default_factory=dict)
    errors: tuple[SpecError, ...] = ()


# A problem without the file it is in (the same text fails the same way whatever file holds it).
_Problem = tuple[str, int | None, str | None]  # reason, line, tool


@dataclass(frozen=True)
class _Checked:
    compiled: _Problem | None  # why the program does not compile (None: it does)
    answered: dict[str, int]  # tool -> line of its function, for the functions that pass their examples
    failed: tuple[_Problem, ...]  # the functions that fail an example


class RulesChecks:
    """The verdict on each distinct rules program, by a digest of its content: its text, its tools' names and
    examples, and the initial state they run on. Owned by a simulator (or `sim-mcp check`) and kept across
    reloads: a thousand copies of a program, or a reload that changed a spec's description, run its
    examples once. Nothing module-level: whoever builds one owns what it holds."""

    def __init__(self) -> None:
        self._checked: dict[bytes, _Checked] = {}

    def compile(self, environment: Environment) -> tuple[dict[str, Program], list[SpecError]]:
        """The environment's program by the tools it answers, and the problems: compiled now, its examples run
        only if no program of the same content was checked before."""
        if environment.rules is None:
            return {}, []
        key = _content_digest(environment)
        known = self._checked.get(key) if key is not None else None
        if known is not None and known.compiled is not None:
            return {}, self._errors(environment, known)
        try:
            program = compile_program(environment.rules, _source(environment), [t.name for t in environment.tools])
        except RulesError as e:
            checked = _Checked((e.reason, e.line, e.tool), {}, ())
        else:
            checked = known if known is not None else _run_examples(program, environment)
        if key is not None:
            self._checked[key] = checked
        if checked.compiled is not None:
            return {}, self._errors(environment, checked)
        return {tool: program for tool in checked.answered}, self._errors(environment, checked)

    def verdict(self, environment: Environment) -> RulesVerdict:
        """What checking the environment's program finds, compiling and running it only if no program of the
        same content was checked before (then the program itself is not kept)."""
        if environment.rules is None:
            return RulesVerdict()
        key = _content_digest(environment)
        known = self._checked.get(key) if key is not None else None
        if known is None:
            self.compile(environment)
            known = self._checked.get(key) if key is not None else None
            if known is None:  # content that cannot be digested: checked without the cache
                programs, errors = compile_environment(environment)
                lines = {tool: program.functions[tool] for tool, program in programs.items()}
                return RulesVerdict(lines, tuple(errors))
        return RulesVerdict(dict(known.answered), tuple(self._errors(environment, known)))

    def __len__(self) -> int:
        return len(self._checked)

    @staticmethod
    def _errors(environment: Environment, checked: _Checked) -> list[SpecError]:
        source = _source(environment)
        problems = [checked.compiled] if checked.compiled is not None else list(checked.failed)
        return [as_spec_error(RulesError(source, reason, line, tool)) for reason, line, tool in problems]


def compile_rules(catalog: Catalog, checks: RulesChecks | None = None) -> RulesCatalog:
    """Compile every environment's rules program of `catalog` and test its functions on their examples."""
    checks = checks if checks is not None else RulesChecks()
    programs: dict[tuple[str, str], Program] = {}
    errors: list[SpecError] = []
    for environment in catalog.environments.values():
        working, problems = checks.compile(environment)
        programs.update({(environment.name, tool): program for tool, program in working.items()})
        errors += problems
    return RulesCatalog(programs, tuple(errors))


def compile_environment(environment: Environment) -> tuple[dict[str, Program], list[SpecError]]:
    """The environment's program, by the tools whose function passes the tool's examples; and the problems."""
    return RulesChecks().compile(environment)


def _source(environment: Environment) -> str:
    return environment.rules_source or f"{environment.source}: rules"


def _run_examples(program: Program, environment: Environment) -> _Checked:
    answered: dict[str, int] = {}
    failed: list[_Problem] = []
    for tool in environment.tools:
        if not program.has(tool.name):
            continue
        checks = (
            example_problem(program, tool, i, environment.initial_state, Limits()) for i in range(len(tool.examples))
        )
        problem = next((problem for problem in checks if problem is not None), None)
        if problem is not None:
            failed.append((problem.reason, problem.line, problem.tool))
        else:
            answered[tool.name] = program.functions[tool.name]
    return _Checked(None, answered, tuple(failed))


def _content_digest(environment: Environment) -> bytes | None:
    """A digest of what a program's verdict depends on: its text, its tools' names and examples, the initial
    state (None when that holds what JSON cannot, such as a YAML date: then it is checked every time)."""
    content: list[Any] = [environment.rules, environment.initial_state]
    for tool in environment.tools:
        content.append([tool.name, function_name(tool.name), [example.model_dump() for example in tool.examples]])
    try:
        encoded = orjson.dumps(content, option=orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_DATETIME)
    except TypeError:
        return None
    return hashlib.blake2b(encoded, digest_size=16).digest()


def as_spec_error(error: RulesError) -> SpecError:
    """A program's problem as a load error: ``bank.rules.star: create_transfer (line 35): reason``."""
    return SpecError(error.source, error.reason, error.place)
