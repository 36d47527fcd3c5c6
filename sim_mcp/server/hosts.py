"""DNS-rebinding protection on every HTTP route: the `Host` header (and `Origin`, where a browser sent one)
must be on one allow-list, the one the MCP SDK checks on `/mcp`.

A page on another site can make a browser send requests to 127.0.0.1 under the page's own name (DNS
rebinding) or with its own `Origin`; refusing hosts and origins not on the list keeps such a page away from
`/sessions`, `/ui` and the rest, not only from `/mcp`. The list: the loopback names, with any port or none
(some proxies and health probes send `Host: localhost`, the default port left out), when the server is
bound to a loopback address, plus `--allowed-hosts` (e.g. a Docker service name); a server bound
to a wildcard address without `--allowed-hosts` checks nothing (it sits behind a proxy or network policy).
An entry `name:*` allows `name` with any port, as in the SDK.
"""

from __future__ import annotations

from collections.abc import Sequence

from mcp.server.transport_security import TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from sim_mcp.config import ServerConfig

_LOOPBACK = ("127.0.0.1", "localhost", "::1")
_HINT = "--allowed-hosts / SIM_MCP_ALLOWED_HOSTS"


def transport_security(config: ServerConfig) -> TransportSecuritySettings | None:
    """The allow-lists: on for a loopback bind (plus any extra allowed hosts), and for any bind that names
    its allowed hosts; None (nothing checked) for a wildcard bind without them."""
    hosts = list(config.allowed_hosts)
    if config.host in _LOOPBACK:
        # Each name bare too: a Host without a port is still this machine (HTTP's default port left out).
        hosts += [name for host in ("127.0.0.1", "localhost", "[::1]") for name in (host, f"{host}:*")]
    if not hosts:
        return None
    origins = [f"http://{host}" for host in hosts] + [f"https://{host}" for host in hosts]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins)


def allowed(value: str, patterns: Sequence[str]) -> bool:
    """`value` is one of `patterns`, or `base:PORT` for a pattern `base:*` (the SDK's rule)."""
    return value in patterns or any(
        pattern.endswith(":*") and value.startswith(pattern[:-1]) and value[len(pattern) - 1 :].isdigit()
        for pattern in patterns
    )


class HostGuardMiddleware:
    """421 for a `Host` not on the list, 403 for an `Origin` not on it; JSON bodies naming the header, the
    value and the list, and the flag that extends it."""

    def __init__(
        self, app: ASGIApp, security: TransportSecuritySettings, *, null_origin_paths: Sequence[str] = ()
    ) -> None:
        """`null_origin_paths`: where `Origin: null` passes too (a browser sends it for a form posted from a
        page with `Referrer-Policy: no-referrer`, as the web UI's login form is); refused everywhere else."""
        self.app = app
        self.hosts = list(security.allowed_hosts)
        self.origins = list(security.allowed_origins)
        self.null_origin_paths = frozenset(null_origin_paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        origin = headers.get("origin")
        if not allowed(host, self.hosts):
            shown = f"Host {host!r}" if host else "a request without a Host header"
            message = f"{shown} is not allowed here (DNS-rebinding protection): expected one of {', '.join(self.hosts)}"
            response = JSONResponse({"error": f"{message}; add it with {_HINT}", "host": host}, status_code=421)
        elif origin and not allowed(origin, self.origins) and not self._null_allowed(origin, scope["path"]):
            message = f"Origin {origin!r} is not allowed here (DNS-rebinding protection): expected one of "
            expected = ", ".join(self.origins)
            response = JSONResponse(
                {"error": f"{message}{expected}; add its host with {_HINT}", "origin": origin}, status_code=403
            )
        else:
            await self.app(scope, receive, send)
            return
        await response(scope, receive, send)

    def _null_allowed(self, origin: str, path: str) -> bool:
        return origin == "null" and path in self.null_origin_paths
