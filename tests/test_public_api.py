"""The public API: every name in `sim_mcp.__all__` imports, and a harness can run a call with it alone."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

import sim_mcp
from tests.servers import BUNDLED_SPECS


@pytest.mark.parametrize("name", sim_mcp.__all__)
def test_every_public_name_imports(name: str) -> None:
    assert getattr(sim_mcp, name) is not None


def test_an_unknown_name_is_an_attribute_error_naming_it() -> None:
    with pytest.raises(AttributeError, match="no_such_thing"):
        _ = sim_mcp.no_such_thing


def test_importing_the_package_does_not_load_the_server() -> None:
    code = "import sys, sim_mcp; print('sim_mcp.server.http' in sys.modules, 'starlette' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


async def test_a_call_in_process_with_the_public_api_alone() -> None:
    catalog = sim_mcp.load_catalog(BUNDLED_SPECS)
    assert "tickets" in catalog.environments
    settings = sim_mcp.Settings(specs=[BUNDLED_SPECS], watch=False)
    async with sim_mcp.Runtime(settings) as runtime:
        session = await runtime.sessions.create(env="tickets")
        result = await runtime.simulator.call(session.id, "get_ticket", {"ticket_id": "T-1001"})
        assert not result.is_error
        assert isinstance(result, sim_mcp.CallResult)
        forked = await runtime.sessions.fork(session.id)
        assert forked.forked_from == session.id


def test_all_lists_exactly_what_the_package_serves() -> None:
    assert set(sim_mcp.__all__) == {"__version__", *sim_mcp._WHERE}


def test_the_docstring_names_only_public_names() -> None:
    """Every name the package docstring shows in backticks (alone, or called) is in `__all__`, so the docstring
    promises nothing `sim_mcp` does not serve."""
    assert sim_mcp.__doc__ is not None
    spans = re.findall(r"`([^`]+)`", sim_mcp.__doc__)
    named = {match.group(1) for span in spans if (match := re.fullmatch(r"(\w+)(\(.*\))?", span))}
    assert {"SimClient", "SimSession", "LocalServer", "Runtime"} <= named  # the parse finds what it should
    assert sorted(named - {"sim_mcp", "__all__"} - set(sim_mcp.__all__)) == []


def test_the_type_checking_imports_match_where_names_are_served_from() -> None:
    """The imports type checkers read agree with the table `__getattr__` serves names from."""
    tree = ast.parse(Path(sim_mcp.__file__).read_text(encoding="utf-8"))
    guarded = next(node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING")
    imported = {
        alias.name: node.module for node in guarded.body if isinstance(node, ast.ImportFrom) for alias in node.names
    }
    assert imported == sim_mcp._WHERE
