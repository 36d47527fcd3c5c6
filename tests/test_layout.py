"""The package's rooms and the one way imports run between them (docs/architecture.md): no import circles,
and no room importing a room above it."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "sim_mcp"

# Lower imports nothing higher. The same rank may import itself (a room uses its own modules).
RANKS = {
    "errors": 0,
    "version": 0,
    "logs": 0,
    "text": 0,
    "specs": 1,
    "state": 1,
    "config": 2,
    "engine": 3,
    "llm": 3,
    "episodes": 4,
    "authoring": 4,
    "services": 5,
    "runtime": 6,
    "server": 7,
    "client": 7,
    "cli": 8,
    "integrations": 8,
    "__init__": 9,
    "__main__": 9,
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> Iterator[str]:
    """Every sim_mcp module `path` imports, at the top, in functions or for type checking alone."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("sim_mcp"):
            yield node.module
            for alias in node.names:  # `from sim_mcp.x import y` may name the module y
                if (PACKAGE.parent / (node.module + "." + alias.name).replace(".", "/")).with_suffix(".py").exists():
                    yield f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name.startswith("sim_mcp"))


def graph() -> dict[str, set[str]]:
    modules = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    return {
        name: {target for target in imports(path) if target in modules and target != name}
        for name, path in modules.items()
    }


def room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_no_room_imports_a_room_above_it() -> None:
    wrong = [
        f"{source} -> {target}"
        for source, targets in graph().items()
        for target in targets
        if RANKS[room(target)] > RANKS[room(source)]
    ]
    assert wrong == []


def test_no_import_circles() -> None:
    edges = graph()
    circles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for target in sorted(edges[node]):
            if state.get(target) == 1:
                circles.append([*path[path.index(target) :], target])
            elif target not in state:
                visit(target, [*path, target])
        state[node] = 2

    for module in sorted(edges):
        if module not in state:
            visit(module, [module])
    assert circles == []


def test_every_room_is_ranked() -> None:
    assert {room(module) for module in graph()} <= set(RANKS)
