"""`sim-mcp rules init SPEC`: scaffold the spec's rules program, to be finished by hand; its examples run at once."""

from __future__ import annotations

import argparse
from pathlib import Path

from sim_mcp.errors import ConfigError


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    rules = commands.add_parser("rules", help="rules programs: scaffold one from a spec to fill in (init)")
    actions = rules.add_subparsers(dest="rules_command", required=True, metavar="ACTION")
    init = actions.add_parser(
        "init",
        help="write SPEC.rules.star: a function per tool, written from what the offline engine does, or a stub",
        description="Write SPEC.rules.star beside SPEC, with one function per tool: for a tool the offline engine "
        "can read, what it does today as plain Starlark to edit; for any other, a stub quoting the tool's "
        "arguments, the state's collections and the spec's instructions, answering 'not written yet' until "
        "it is written. The spec's examples are run against it at once. No model is asked (for that: "
        "sim-mcp compile).",
    )
    init.add_argument("spec", type=Path, metavar="SPEC", help="the spec file (native YAML or JSON)")
    init.add_argument("--force", action="store_true", help="overwrite SPEC.rules.star if it exists")
    init.set_defaults(run=run_init)


def run_init(args: argparse.Namespace) -> int:
    """Write the scaffold and print a line per tool: written (its examples pass or fail) or a stub."""
    from sim_mcp.authoring.programs.scaffold import rules_path, scaffold
    from sim_mcp.rules import Limits, RulesError, compile_program, example_problem
    from sim_mcp.specs.formats import read_spec_file

    spec: Path = args.spec
    if not spec.is_file():
        raise ConfigError(f"{spec}: no such spec file")
    environment = read_spec_file(spec)
    target = rules_path(spec)
    if environment.rules is not None and environment.rules_source != str(target):
        raise ConfigError(f"{spec}: its rules are inline (the rules: key); move them to {target.name} first")
    if target.exists() and not args.force:
        raise ConfigError(f"{target} exists: edit it, or give --force to write a new scaffold over it")
    text, functions = scaffold(environment, spec)
    try:
        program = compile_program(text, str(target), [tool.name for tool in environment.tools])
    except RulesError as e:  # a scaffold that does not compile is our bug: say so, write nothing
        raise ConfigError(f"the scaffold of {spec} does not compile ({e}): please report it") from e
    temporary = target.with_name(f".{target.name}.tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(target)
    print(f"wrote {target}: {len(functions)} functions")
    counts = {"written": 0, "stub": 0, "failing": 0}
    for function, tool in zip(functions, environment.tools, strict=True):
        total = len(tool.examples)
        if function.kind == "stub":
            counts["stub"] += 1
            waiting = f" ({total} examples wait for it)" if total > 1 else " (1 example waits for it)" if total else ""
            print(f"stub     {tool.name}: not written yet{waiting}")
            continue
        counts["written"] += 1
        problems = [
            problem
            for index in range(total)
            if (problem := example_problem(program, tool, index, environment.initial_state, Limits())) is not None
        ]
        if problems:
            counts["failing"] += 1
        said = f"{total - len(problems)} of {total} examples pass" if total else "no examples"
        print(f"written  {tool.name}: {function.what}; {said}")
        for problem in problems:
            print(f"         {problem.reason}")
    print(
        f"{counts['written']} written from the offline engine ({counts['failing']} failing an example), "
        f"{counts['stub']} to write; `sim-mcp check {spec}` runs the examples again"
    )
    return 0
