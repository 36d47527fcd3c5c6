"""Hot reload: watch the spec folders and swap in a new catalog when a spec file changes."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
from watchfiles import Change, awatch

from sim_mcp.config import SpecsConfig
from sim_mcp.server.context import ServerContext
from sim_mcp.specs.formats import SPEC_SUFFIXES
from sim_mcp.specs.registry import RULES_SUFFIX, Catalog

logger = logging.getLogger("sim_mcp")

OnReload = Callable[[Catalog, Catalog], Awaitable[None]]


def is_spec_change(change: Change, path: str) -> bool:
    """watchfiles filter: spec files and rules programs only (editors' hidden swap files ignored)."""
    name = Path(path).name
    return (Path(path).suffix in SPEC_SUFFIXES or name.endswith(RULES_SUFFIX)) and not name.startswith(".")


async def watch_specs(
    server: ServerContext, specs: SpecsConfig, on_reload: OnReload, *, stop: anyio.Event | None = None
) -> None:
    """Reload on every batch of changes to the spec files and folders of `specs` (those the runtime loads);
    `on_reload(old, new)` then tells clients.

    Runs until cancelled (or `stop` is set). Paths that don't exist yet are watched from their parent."""
    runtime = server.runtime
    roots = [str(path if path.exists() else path.parent) for path in specs.specs]
    async for changes in awatch(*roots, watch_filter=is_spec_change, debounce=200, step=50, stop_event=stop):
        old = runtime.catalog
        new = server.reload()
        logger.info(
            "specs changed (%s): %d environments, %d tools",
            ", ".join(sorted({Path(path).name for _, path in changes})),
            len(new.environments),
            len(new.tools),
        )
        try:
            await on_reload(old, new)
        except Exception:  # a failed notification must not stop the watcher
            logger.exception("could not notify clients of the reload")


async def hot_reload(server: ServerContext, specs: SpecsConfig, *, stop: anyio.Event | None = None) -> None:
    """Watch the specs; when the tools clients see change, tell every listening client."""

    async def notify(old: Catalog, new: Catalog) -> None:
        if _listing(old) != _listing(new):
            await server.changes.tools_changed()

    await watch_specs(server, specs, notify, stop=stop)


def _listing(catalog: Catalog) -> dict[str, object]:
    return {name: tool.spec for name, tool in catalog.tools.items()}
