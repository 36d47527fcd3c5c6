"""`sim-mcp check`: validate spec and task files and print a summary."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from sim_mcp.cli.flags import settings_from

if TYPE_CHECKING:
    from sim_mcp.errors import SpecError
    from sim_mcp.rules import RulesVerdict
    from sim_mcp.specs.registry import Catalog

# A tool name that many environments share is noted with this many of their files, then how many more.
_FILES_NAMED = 3


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    check = commands.add_parser("check", help="validate spec and task files and print a summary")
    check.add_argument(
        "paths", nargs="*", help="spec files or folders, task files in their tasks/ folders (default: tool_specs)"
    )
    check.add_argument("--specs", action="append", type=Path, help=argparse.SUPPRESS)
    check.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from sim_mcp.rules import RulesChecks
    from sim_mcp.specs.registry import load_catalog

    paths = [Path(path) for path in args.paths] or settings_from(args).specs
    catalog = load_catalog(*paths)
    # Each distinct program is compiled and run on its examples once, whatever number of files hold it.
    checks = RulesChecks()
    verdicts = {name: checks.verdict(environment) for name, environment in catalog.environments.items()}
    rules_errors = [error for verdict in verdicts.values() for error in verdict.errors]
    for environment in catalog.environments.values():
        names = ", ".join(tool.name for tool in environment.tools)
        print(f"ok    {environment.source}: environment {environment.name!r}, {len(environment.tools)} tools ({names})")
        _print_rules(catalog, verdicts[environment.name], environment.name)
        _print_cannot_act(catalog, verdicts[environment.name], environment.name)
    for name, sources in catalog.shared_tool_names().items():
        print(f"note  tool {name!r} is defined in {_named_files(sources)}: served on /mcp as ENV__{name}")
    for error in (*catalog.errors, *rules_errors):
        print(f"error {error}")
    files, broken = _files(catalog, rules_errors)
    tasks, task_errors = check_tasks(paths, catalog)
    if files or not tasks + task_errors:
        print(f"{len(files) - len(broken)} of {len(files)} files valid, {len(catalog.tools)} tools")
    if tasks + task_errors:
        print(f"{tasks} of {tasks + task_errors} tasks valid")
    return 1 if catalog.errors or rules_errors or task_errors or not (catalog.environments or tasks) else 0


def _named_files(sources: list[str]) -> str:
    """`a and b`; past a few files, `a, b, c and 247 more files` (a catalogue of copies shares every name)."""
    if len(sources) <= _FILES_NAMED:
        return " and ".join(sources)
    return f"{', '.join(sources[:_FILES_NAMED])} and {len(sources) - _FILES_NAMED} more files"


def _files(catalog: Catalog, rules_errors: list[SpecError]) -> tuple[set[str], set[str]]:
    """The files checked (spec files and the rules programs beside them) and those with an error: a program
    that fails counts against its file (against its spec file when the rules are inline)."""
    files = {environment.source for environment in catalog.environments.values()}
    file_of = {
        environment.rules_source: environment.rules_source
        if environment.rules_source != f"{environment.source}: rules"
        else environment.source
        for environment in catalog.environments.values()
        if environment.rules is not None and environment.rules_source
    }
    files |= set(file_of.values())
    broken = {error.path for error in catalog.errors}
    broken |= {file_of.get(error.path, error.path) for error in rules_errors}
    return files | broken, broken


def _print_rules(catalog: Catalog, verdict: RulesVerdict, environment: str) -> None:
    """A line per tool of an environment with a rules program: answered by it (its examples pass), or by
    the backend (no function for it, or one that failed: its error is printed with the others)."""
    spec = catalog.environment(environment)
    if spec is None or spec.rules is None:
        return
    for tool in catalog.tools_of(environment):
        line = verdict.answered.get(tool.name)
        if line is None:
            print(f"note  {spec.rules_source}: {tool.name}: no working function; the backend answers it")
            continue
        count = len(tool.spec.examples)
        checked = {0: "no examples to run", 1: "its example passes"}.get(count, f"its {count} examples pass")
        if _stub(spec.rules, tool.name, line):
            print(f"note  {spec.rules_source}: {tool.name} (line {line}): not written yet (a stub of rules init)")
            continue
        print(f"ok    {spec.rules_source}: {tool.name} (line {line}): answered by the program; {checked}")


def _stub(text: str, tool: str, line: int) -> bool:
    """Whether the function of `tool` (its `def` on `line`) is still the stub `sim-mcp rules init` wrote."""
    from sim_mcp.authoring.programs.scaffold import NOT_WRITTEN

    lines = text.splitlines()[line:]
    body = next((index for index, found in enumerate(lines) if found.startswith("def ")), len(lines))
    return any(f'return error("{tool}: {NOT_WRITTEN}:' in found for found in lines[:body])


def _print_cannot_act(catalog: Catalog, verdict: RulesVerdict, environment: str) -> None:
    """A note naming the tools the offline backend (the default) cannot act on, when there are any."""
    from sim_mcp.engine.backends.offline import cannot_act_line, tools_it_cannot_act_on

    spec = catalog.environment(environment)
    if spec is None:
        return
    tools = tools_it_cannot_act_on(spec, verdict.answered.__contains__)
    if tools:
        print(f"note  {cannot_act_line(spec, tools)}")


def check_tasks(paths: list[Path], catalog: Catalog) -> tuple[int, int]:
    """Check the task files under `paths` (folders named `tasks`): their fields, their environment, and
    the places their checks name. Prints a line per task; returns (valid tasks, invalid ones)."""
    from sim_mcp.episodes.rewards import baseline_of
    from sim_mcp.episodes.tasks import load_tasks
    from sim_mcp.episodes.validation import validate_task
    from sim_mcp.specs.registry import TASKS_FOLDER, load_catalog

    tasks, errors = load_tasks(*paths)
    beside: dict[Path, Catalog] = {}
    valid, invalid = 0, len(errors)
    for task in tasks.values():
        environments = catalog
        if catalog.environment(task.env) is None:
            # A task file checked on its own: its environments are the specs beside its `tasks` folder.
            folder = next((p.parent for p in Path(task.source).parents if p.name == TASKS_FOLDER), None)
            if folder is not None:
                environments = beside.setdefault(folder, load_catalog(folder))
        problems, notes = validate_task(task, environments)
        errors += problems
        invalid += bool(problems)
        if not problems:
            valid += 1
            extras = [f"{len(task.checks)} checks"]
            if task.judge is not None:
                extras.append("judge")
            if task.user is not None:
                extras.append("user" + (" as ask_user" if task.user.tool else ""))
            if task.solution:
                extras.append(f"{len(task.solution)}-step solution")
            spec = environments.environment(task.env)
            if spec is not None:  # valid, so known
                baseline = baseline_of(task, spec.initial_state)
                nothing = "0" if task.reward == "gain" else f"{baseline:.2f}"
                extras.append(f"reward {task.reward}: doing nothing earns {nothing}, baseline score {baseline:.2f}")
            print(f"ok    {task.source}: task {task.name!r} (env {task.env}, {', '.join(extras)})")
        for note in notes:
            print(f"note  {note}")
    for error in errors:
        print(f"error {error}")
    return valid, invalid
