"""No module-level name in benchmarks/ is bound twice.

The session generators live side by side in one module, each with its own constants. A second binding of a
name (two agents each writing `_ASSIGNEES`) passes mypy when the types match, and silently gives the earlier
agent the later agent's values: its sessions change without a line of it changing.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def module_bindings(tree: ast.Module) -> dict[str, list[int]]:
    """Each name a module's top-level statements bind (not extend), with the lines that bind it."""
    lines: dict[str, list[int]] = defaultdict(list)
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            lines[statement.name].append(statement.lineno)
            continue
        if isinstance(statement, ast.Assign):
            targets = statement.targets
        elif isinstance(statement, ast.AnnAssign):
            targets = [statement.target]
        else:
            continue  # `+=` extends the binding above it on purpose
        for target in targets:
            for node in ast.walk(target):
                if isinstance(node, ast.Name):
                    lines[node.id].append(statement.lineno)
    return lines


@pytest.mark.parametrize("module", sorted(BENCHMARKS.glob("*.py")), ids=lambda path: path.name)
def test_no_module_level_name_is_bound_twice(module: Path) -> None:
    bindings = module_bindings(ast.parse(module.read_text(), filename=str(module)))
    twice = {name: lines for name, lines in bindings.items() if len(lines) > 1}
    assert twice == {}, f"{module.name}: names bound more than once (name: lines): {twice}"


def test_a_second_binding_is_found() -> None:
    source = "_ASSIGNEES = ('a',)\n\ndef agent():\n    return _ASSIGNEES\n\n_ASSIGNEES = ('b',)\n"
    assert module_bindings(ast.parse(source))["_ASSIGNEES"] == [1, 6]
