"""The example environments that ship with sim-mcp, and the spec folder served when none is named.

`sim-mcp serve` without `--specs` (or `SIM_MCP_SPECS`) serves `./tool_specs` when the current folder has
one, else the bundled examples: `sim_mcp/tool_specs` inside an installed wheel (pyproject's hatch
`force-include` copies the repository's `tool_specs/` there), or the checkout's `tool_specs/` beside the
package in an editable install. A server that loads no environment at all does not start
(`require_environments`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sim_mcp.errors import ConfigError

if TYPE_CHECKING:  # only named in a signature: loading the registry is left to the commands that load specs
    from sim_mcp.specs.registry import Catalog

LOCAL_SPECS = Path("tool_specs")
_PACKAGE = Path(__file__).resolve().parents[1]


def bundled_specs() -> Path | None:
    """The bundled example folder: in the installed package, else in the source checkout; None if neither."""
    in_package = _PACKAGE / "tool_specs"
    if in_package.is_dir():
        return in_package
    checkout = _PACKAGE.parent
    in_checkout = checkout / "tool_specs"
    if in_checkout.is_dir() and (checkout / "pyproject.toml").is_file():
        return in_checkout
    return None


def default_specs() -> list[Path]:
    """What is served when no spec path is given: `./tool_specs` if it is there, else the bundled examples."""
    if LOCAL_SPECS.is_dir():
        return [LOCAL_SPECS]
    bundled = bundled_specs()
    return [bundled] if bundled is not None else [LOCAL_SPECS]


def require_environments(catalog: Catalog, specs: list[Path]) -> None:
    """Raise `ConfigError` when nothing was loaded: a server with no tools serves nothing useful."""
    if catalog.environments:
        return
    where = ", ".join(str(path) for path in specs) or "(none)"
    problems = "; ".join(str(error) for error in catalog.errors[:3])
    more = f" (and {len(catalog.errors) - 3} more)" if len(catalog.errors) > 3 else ""
    found = f": {problems}{more}" if problems else ": no spec files there"
    raise ConfigError(
        f"--specs / SIM_MCP_SPECS: no environment loaded from {where}{found}; "
        "expected YAML or JSON spec files (see docs/formats.md), or run `sim-mcp check PATH` for every error"
    )
