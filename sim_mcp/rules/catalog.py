"""The rules programs of a catalog: compiled once per catalog (a reload builds a new one), by tool.

Spec loading (`specs/`) only reads a program's text into its environment (`Environment.rules`); the
engine compiles it here, runs each function against its tool's examples, and keeps the functions that
pass. A program that does not compile, and each function that fails an example, is a `SpecError` naming
the file, the tool, the line and what was expected; those tools fall back to the configured backend.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sim_mcp.errors import RulesError, SpecError
from sim_mcp.rules.examples import example_problem
from sim_mcp.rules.program import Program, compile_program
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


def compile_rules(catalog: Catalog) -> RulesCatalog:
    """Compile every environment's rules program of `catalog` and test its functions on their examples."""
    programs: dict[tuple[str, str], Program] = {}
    errors: list[SpecError] = []
    for environment in catalog.environments.values():
        working, problems = compile_environment(environment)
        programs.update({(environment.name, tool): program for tool, program in working.items()})
        errors += problems
    return RulesCatalog(programs, tuple(errors))


def compile_environment(environment: Environment) -> tuple[dict[str, Program], list[SpecError]]:
    """The environment's program, by the tools whose function passes the tool's examples; and the problems."""
    errors: list[SpecError] = []
    return _programs(environment, errors), errors


def _programs(environment: Environment, errors: list[SpecError]) -> dict[str, Program]:
    if environment.rules is None:
        return {}
    source = environment.rules_source or f"{environment.source}: rules"
    try:
        program = compile_program(environment.rules, source, [tool.name for tool in environment.tools])
    except RulesError as e:
        errors.append(as_spec_error(e))
        return {}
    working: dict[str, Program] = {}
    for tool in environment.tools:
        if not program.has(tool.name):
            continue
        checks = (
            example_problem(program, tool, i, environment.initial_state, Limits()) for i in range(len(tool.examples))
        )
        failed = next((problem for problem in checks if problem is not None), None)
        if failed is not None:
            errors.append(as_spec_error(failed))
        else:
            working[tool.name] = program
    return working


def as_spec_error(error: RulesError) -> SpecError:
    """A program's problem as a load error: ``bank.rules.star: create_transfer (line 35): reason``."""
    return SpecError(error.source, error.reason, error.place)
