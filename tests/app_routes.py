"""Every route of the HTTP app, enumerated from Starlette's own route table, so that a route added later
is held to the same tests (the OpenAPI description, Host/Origin checks, the token) without naming it."""

from __future__ import annotations

from collections.abc import Iterator

from starlette.routing import BaseRoute, Mount, Route

from sim_mcp.config import Settings
from sim_mcp.server.http import create_app
from sim_mcp.server.ui import static_paths
from tests.servers import BUNDLED_SPECS

# A concrete value for each path parameter, to make a URL of a route's path.
SAMPLE_PARAMETERS = {"{id}": "guard-session", "{name}": "tickets-close-sso", "{env}": "tickets"}


def app_routes() -> Iterator[tuple[str, str]]:
    """(method, path) of every route of the app; a mount of static files counts as `get` of its path."""

    def walk(routes: list[BaseRoute], prefix: str) -> Iterator[tuple[str, str]]:
        for route in routes:
            if isinstance(route, Mount):
                yield from walk(list(route.routes), prefix + route.path)
                if not route.routes:
                    yield "get", prefix + route.path
            elif isinstance(route, Route):
                for method in sorted(route.methods or {"GET", "POST", "DELETE"}):
                    if method != "HEAD":
                        yield method.lower(), prefix + route.path

    yield from walk(create_app(Settings(specs=[BUNDLED_SPECS])).routes, "")


def concrete(path: str) -> str:
    """A URL path for a route's path: parameters filled in, a static mount made one of its files."""
    for parameter, value in SAMPLE_PARAMETERS.items():
        path = path.replace(parameter, value)
    if path == "/ui/static":
        return static_paths()[0]
    return path
