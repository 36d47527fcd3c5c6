"""Every HTTP route is guarded: Host and Origin against the one allow-list `/mcp` uses (DNS rebinding), and
the bearer token where one is set (all routes but health and readiness). The routes come from the app's
own route table (tests/app_routes.py), so that a new route cannot escape these tests."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from mcp.server.transport_security import TransportSecurityMiddleware
from starlette.requests import Request

from sim_mcp.config import Settings
from sim_mcp.server.hosts import allowed, transport_security
from sim_mcp.server.ui import static_paths
from tests.app_routes import app_routes, concrete
from tests.helpers_server import app_server

TOKEN = "guard-token"
ROUTES = sorted(set(app_routes()))
IDS = [f"{method.upper()} {path}" for method, path in ROUTES]
# Open without the token: health and readiness (probes), and the web UI's login page and its static files
# (the page where a browser gives the token; they hold no data).
OPEN = {"/healthz", "/readyz", "/ui/login", "/ui/static"}


def status_of(base: str, method: str, path: str, headers: dict[str, str]) -> tuple[int, str]:
    """The status and the start of the body of one request (an event stream is not read to its end)."""
    with (
        httpx.Client(base_url=base, timeout=10) as http,
        http.stream(method, concrete(path), headers=headers) as response,
    ):
        body = b""
        for chunk in response.iter_bytes():
            body += chunk
            if len(body) > 2000 or response.headers.get("content-type", "").startswith("text/event-stream"):
                break
        return response.status_code, body.decode(errors="replace")


@pytest.fixture(scope="module")
def guarded() -> Iterator[str]:
    with app_server(token=TOKEN, allowed_hosts=["sim.internal"]) as base:
        yield base


def _bearer(extra: dict[str, str] | None = None) -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKEN}", **(extra or {})}


@pytest.mark.parametrize(("method", "path"), ROUTES, ids=IDS)
def test_a_foreign_host_is_refused_on_every_route(guarded: str, method: str, path: str) -> None:
    status, body = status_of(guarded, method, path, _bearer({"Host": "evil.example"}))
    assert status == 421, body
    assert "Host 'evil.example' is not allowed" in body
    assert "--allowed-hosts" in body


@pytest.mark.parametrize(("method", "path"), ROUTES, ids=IDS)
def test_a_foreign_origin_is_refused_on_every_route(guarded: str, method: str, path: str) -> None:
    status, body = status_of(guarded, method, path, _bearer({"Origin": "http://evil.example"}))
    assert status == 403, body
    assert "Origin 'http://evil.example' is not allowed" in body


@pytest.mark.parametrize(("method", "path"), ROUTES, ids=IDS)
def test_allowed_hosts_and_origins_pass_on_every_route(guarded: str, method: str, path: str) -> None:
    port = guarded.rsplit(":", 1)[1]
    hosts = [f"localhost:{port}", "localhost", "127.0.0.1", "[::1]"]  # portless: a proxy's or a probe's
    for headers in ({"Origin": f"http://127.0.0.1:{port}"}, {"Host": "sim.internal"}, *({"Host": h} for h in hosts)):
        status, body = status_of(guarded, method, path, _bearer(headers))
        assert status not in (403, 421), (headers, body)


@pytest.mark.parametrize(("method", "path"), ROUTES, ids=IDS)
def test_the_token_guards_every_route_but_health(guarded: str, method: str, path: str) -> None:
    without, body = status_of(guarded, method, path, {})
    wrong, _ = status_of(guarded, method, path, {"Authorization": "Bearer nope"})
    right, right_body = status_of(guarded, method, path, _bearer())
    if path in OPEN:
        # Answered by the route itself: a login form posted without a token is the login page's own 401.
        assert "missing bearer token" not in body
        assert without != 401 or (method, path) == ("post", "/ui/login")
        return
    assert right != 401, right_body
    if path.startswith("/ui") and method == "get" and path not in ("/ui/events",) and "/api/" not in path:
        assert without == 303, body  # a UI page: the browser is sent to the login page
    else:
        assert without == 401, body
        assert "missing bearer token" in body
    assert wrong in (401, 303)


@pytest.mark.parametrize(("method", "path"), ROUTES, ids=IDS)
def test_a_null_origin_passes_only_on_the_login_form(guarded: str, method: str, path: str) -> None:
    """The web UI's pages say `Referrer-Policy: no-referrer`, so a browser posts their login form with
    `Origin: null`; that trades a token for a cookie, nothing more. Anywhere else, null is refused."""
    status, body = status_of(guarded, method, path, _bearer({"Origin": "null"}))
    if path == "/ui/login":
        assert status != 403, body
    else:
        assert status == 403, body


def test_every_route_is_in_these_tests() -> None:
    paths = {path for _, path in ROUTES}
    assert {"/sessions", "/sessions/{id}/evaluate", "/ui/events", "/metrics", "/mcp", "/openapi.json"} <= paths
    assert paths >= OPEN
    assert static_paths()


@pytest.mark.parametrize(
    "value",
    [
        "127.0.0.1:8765",
        "localhost:1",
        "[::1]:9",
        "127.0.0.1",
        "localhost",
        "[::1]",
        "localhost.evil.example",
        "evil.example",
        "127.0.0.1.evil.example:80",
        "",
    ],
)
async def test_the_allow_list_reads_as_the_sdks_does(value: str) -> None:
    security = transport_security(Settings())
    assert security is not None
    scope = {"type": "http", "method": "GET", "path": "/", "headers": [(b"host", value.encode())]}
    sdk = await TransportSecurityMiddleware(security).validate_request(Request(scope))
    assert allowed(value, security.allowed_hosts) is (sdk is None)


def test_a_portless_loopback_host_is_local_and_nothing_else_is() -> None:
    security = transport_security(Settings())
    assert security is not None
    for host in ("localhost", "127.0.0.1", "[::1]", "localhost:8765"):
        assert allowed(host, security.allowed_hosts), host
    for host in ("localhost.evil.example", "evil.example", "127.0.0.2", "sim"):
        assert not allowed(host, security.allowed_hosts), host
    # Only a loopback bind trusts loopback names; a named bind keeps its own list.
    named = transport_security(Settings(host="0.0.0.0", allowed_hosts=["sim"]))
    assert named is not None
    assert not allowed("localhost", named.allowed_hosts)


def test_a_wildcard_bind_without_allowed_hosts_checks_nothing() -> None:
    assert transport_security(Settings(host="0.0.0.0")) is None
    named = transport_security(Settings(host="0.0.0.0", allowed_hosts=["sim"]))
    assert named is not None
    assert named.allowed_hosts == ["sim"]
