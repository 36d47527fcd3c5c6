"""The package's rooms and the one way imports run between them, as docs/architecture.md states them: the
floors are read from its table, so the document and the code cannot drift apart unnoticed."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "sim_mcp"

ARCHITECTURE = PACKAGE.parent / "docs" / "architecture.md"
# Rooms that speak to a server over the wire, and the rooms of the server side they must not import.
WIRE_ROOMS = {"client", "integrations"}
SERVER_SIDE = {"server", "runtime", "services", "episodes", "authoring", "engine", "llm", "config", "specs", "state"}
# Where a session store may be reached through the simulator or the runtime (everything else: SessionService).
STORE_OWNERS = ("sim_mcp.engine", "sim_mcp.runtime")


def floors() -> dict[str, int]:
    """Room -> floor, read from the table under "## Floors" in docs/architecture.md (top row: highest floor)."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text.split("\n## Floors\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")][2:]  # past the header and its rule
    assert rows, "docs/architecture.md: no table of floors under '## Floors'"
    ranks: dict[str, int] = {}
    for height, row in enumerate(reversed(rows)):
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        for name in re.findall(r"`([^`]+)`", cells[1]):
            assert name not in ranks, f"docs/architecture.md: room {name!r} is on two floors"
            ranks[name] = height
    return ranks


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
    ranks = floors()
    wrong = [
        f"{source} -> {target}"
        for source, targets in graph().items()
        for target in targets
        if ranks[room(target)] > ranks[room(source)]
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


def test_the_floors_name_every_room_and_no_other() -> None:
    assert sorted(set(floors()) ^ {room(module) for module in graph()}) == []


def test_the_floors_are_read_in_order() -> None:
    ranks = floors()
    assert ranks["__init__"] > ranks["cli"] > ranks["server"] > ranks["runtime"] > ranks["services"]
    assert ranks["services"] > ranks["episodes"] > ranks["engine"] > ranks["config"] > ranks["specs"] > ranks["errors"]
    assert ranks["server"] == ranks["client"]


def test_wire_rooms_import_nothing_of_the_server_side() -> None:
    wrong = [
        f"{source} -> {target}"
        for source, targets in graph().items()
        if room(source) in WIRE_ROOMS
        for target in targets
        if room(target) in SERVER_SIDE
    ]
    assert wrong == []


def test_sessions_are_read_through_the_session_service() -> None:
    """`simulator.store` and `runtime.store` appear only where the store is owned: engine/ and runtime.py."""
    wrong = []
    for path in PACKAGE.rglob("*.py"):
        name = module_name(path)
        if name.startswith(STORE_OWNERS):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr == "store":
                owner = node.value.attr if isinstance(node.value, ast.Attribute) else getattr(node.value, "id", "")
                if owner in ("simulator", "runtime"):
                    wrong.append(f"{name}:{node.lineno}: {ast.unparse(node)}")
    assert wrong == []


def test_the_transport_reads_no_settings_through_the_runtime() -> None:
    """`server/` is handed its concerns (`ServerConfig`, the spec folders, the store's URL): nothing in it
    reaches the whole `Settings` through the runtime (`runtime.settings`)."""
    wrong = []
    for path in (PACKAGE / "server").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr == "settings":
                wrong.append(f"{module_name(path)}:{node.lineno}: {ast.unparse(node)}")
    assert wrong == []


# Where a store is opened from its URL (everything else is handed one), and where a SessionService is made.
STORE_OPENERS = ("sim_mcp.runtime", "sim_mcp.cli.serve", "sim_mcp.episodes.export", "sim_mcp.state.stores")
SESSION_SERVICE_MAKERS = (
    "sim_mcp.runtime",
    "sim_mcp.authoring.tasks.taskgen",
    "sim_mcp.authoring.generate.gates",
    "sim_mcp.engine.sessions",
)


def calls_of(names: set[str]) -> Iterator[tuple[str, int, str]]:
    """(module, line, callee) of each call, anywhere in the package, of a function or method named in `names`."""
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                callee = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                if callee in names:
                    yield module_name(path), node.lineno, callee


def test_only_the_runtime_serve_and_export_open_a_store() -> None:
    wrong = [
        f"{module}:{line}: {callee}"
        for module, line, callee in calls_of({"open_store", "from_url"})
        if not module.startswith(STORE_OPENERS)
    ]
    assert wrong == []


def test_a_session_service_is_made_by_the_runtime_and_task_generation_only() -> None:
    wrong = [
        f"{module}:{line}"
        for module, line, _ in calls_of({"SessionService"})
        if not module.startswith(SESSION_SERVICE_MAKERS)
    ]
    assert wrong == []


def module_map() -> set[str]:
    """The module paths (relative to sim_mcp/) that the "## Module map" of docs/architecture.md names."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text.split("\n## Module map\n", 1)[1].split("\n## ", 1)[0]
    return {name for name in re.findall(r"`([a-z_/]+\.py)`", section) if not name.startswith("tests/")}


def test_the_module_map_names_every_module_and_no_other() -> None:
    modules = {
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if path.name != "__init__.py" or path.parent == PACKAGE
    }
    named = module_map()
    assert sorted(modules - named) == [], "modules docs/architecture.md's module map does not name"
    assert sorted(name for name in named - modules if not name.endswith("__init__.py")) == []


def test_every_extension_point_is_a_table_the_docs_name() -> None:
    from sim_mcp import plugins

    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text.split("\n## Where to add\n", 1)[1].split("\n## ", 1)[0]
    tables = {name: value for name, value in vars(plugins).items() if isinstance(value, plugins.Registry)}
    assert set(tables) == {"SPEC_FORMATS", "BACKENDS", "STORES", "CHECK_KINDS", "OUTPUT_MODES"}
    for name, table in tables.items():
        assert f"`{name}`" in section, name
        assert f"`{table.group}`" in section, name
        for entry in table.builtin():
            target = table.entry(entry).target
            assert isinstance(target, str), (name, entry)
            module, _, attribute = target.partition(":")
            path = PACKAGE.parent / (module.replace(".", "/") + ".py")
            assert path.exists(), (name, entry, target)
            defined = {
                assigned.id if isinstance(assigned, ast.Name) else getattr(node, "name", "")
                for node in ast.parse(path.read_text(encoding="utf-8")).body
                for assigned in (node.targets if isinstance(node, ast.Assign) else [node])
            }
            assert attribute in defined, (name, entry, target)


# Exceptions raised and caught inside one module's own control flow, never reaching a caller outside it.
INTERNAL_EXCEPTIONS = {"sim_mcp.authoring.twins.behaviours.Failure"}


def test_every_public_exception_is_a_sim_mcp_error() -> None:
    """A class of the package that derives straight from a built-in exception is private (`_Name`): every
    error a caller can meet is a `SimMcpError` (`sim_mcp/errors.py`), with a `code`."""
    builtin = {name for name in dir(__builtins__) if name.endswith(("Error", "Exception"))} | {"Exception"}
    wrong = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                bases = {getattr(base, "id", "") for base in node.bases}
                name = f"{module_name(path)}.{node.name}"
                if bases & builtin and name not in INTERNAL_EXCEPTIONS and module_name(path) != "sim_mcp.errors":
                    wrong.append(name)
    assert wrong == []


def test_every_error_has_a_code() -> None:
    from sim_mcp import errors

    classes = [value for value in vars(errors).values() if isinstance(value, type) and issubclass(value, Exception)]
    ours = [cls for cls in classes if issubclass(cls, errors.SimMcpError)]
    assert ours == classes
    codes = [cls.code for cls in ours]
    assert len(set(codes)) == len(codes)
    assert errors.SessionNotFound.code == "session_not_found"
    assert errors.RulesError("x.star", "bad").code == "rules_error"
