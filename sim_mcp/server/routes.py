"""Route table helpers: one route per path whatever its methods, and JSON bodies for Starlette's own errors.

Starlette matches routes in order and answers a method that the first route of a path lacks with a 405
whose `Allow` lists that route's methods only (`Allow: POST` for `/sessions`, which also takes GET).
`one_route_per_path` merges routes of the same path into one that dispatches on the method, so `Allow`
names every method the path takes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Receive, Scope, Send


def one_route_per_path(routes: Sequence[BaseRoute]) -> list[BaseRoute]:
    """`routes` with every group of `Route`s sharing a path (and all naming their methods) merged into one."""
    groups: dict[str, list[Route]] = {}
    for route in routes:
        if isinstance(route, Route) and route.methods is not None:
            groups.setdefault(route.path, []).append(route)
    merged: list[BaseRoute] = []
    seen: set[str] = set()
    for route in routes:
        group = groups.get(route.path) if isinstance(route, Route) else None
        if not isinstance(route, Route) or group is None or len(group) == 1:
            merged.append(route)
        elif route.path not in seen:
            seen.add(route.path)
            by_method = {method: member.app for member in group for method in member.methods or ()}
            merged.append(Route(route.path, _ByMethod(by_method), methods=sorted(by_method)))
    return merged


class _ByMethod:
    """An ASGI app handing each request to the app of its method (the route has checked the method)."""

    def __init__(self, apps: dict[str, ASGIApp]) -> None:
        self.apps = apps

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.apps[scope["method"]](scope, receive, send)


async def http_error(request: Request, exc: Exception) -> Response:
    """Starlette's 404 and 405 as JSON naming what was asked and what the server has."""
    assert isinstance(exc, HTTPException)
    body: dict[str, Any] = {"error": f"{exc.detail.lower()}: {request.method} {request.url.path}"}
    headers = dict(exc.headers or {})
    if exc.status_code == 405 and "Allow" in headers:
        body["expected"] = [method.strip() for method in headers["Allow"].split(",")]
        body["error"] = f"method {request.method} not allowed on {request.url.path}: expected {headers['Allow']}"
    return JSONResponse(body, status_code=exc.status_code, headers=headers)
