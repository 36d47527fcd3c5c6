"""An optional bearer token in front of every HTTP route but health (`--token` / `SIM_MCP_TOKEN`), and the
cookie that lets a browser on the web UI use it (`BrowserTokenMiddleware`)."""

from __future__ import annotations

import hmac
from collections.abc import Collection
from urllib.parse import quote, unquote, urlencode

from starlette.datastructures import URL, Headers, MutableHeaders, QueryParams
from starlette.requests import cookie_parser
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

# The browser's copy of the token, set by the web UI's login (HttpOnly, SameSite=Strict).
TOKEN_COOKIE = "sim_mcp_token"
# Sent by the UI's scripts on every request they make; another site's form or link cannot send it.
UI_HEADER = "x-sim-mcp-ui"
_SAFE_METHODS = frozenset({"GET", "HEAD"})


class BearerTokenMiddleware:
    """Answers 401 (JSON, with `WWW-Authenticate: Bearer`) unless `Authorization: Bearer <token>` matches."""

    def __init__(self, app: ASGIApp, token: str, open_paths: Collection[str] = ("/healthz",)) -> None:
        self.app = app
        self._token = token.encode()
        self.open_paths = frozenset(open_paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in self.open_paths:
            await self.app(scope, receive, send)
            return
        scheme, _, given = Headers(scope=scope).get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not given.strip():
            message = "missing bearer token: send 'Authorization: Bearer <token>' with the token the server was given"
            await _unauthorized(message, 'Bearer realm="sim-mcp"')(scope, receive, send)
            return
        # Constant-time, so the comparison does not reveal how much of a guess was right.
        if not hmac.compare_digest(given.strip().encode(), self._token):
            challenge = 'Bearer realm="sim-mcp", error="invalid_token"'
            await _unauthorized("wrong bearer token", challenge)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def _unauthorized(message: str, challenge: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=401, headers={"WWW-Authenticate": challenge})


def token_matches(given: str, token: str) -> bool:
    """Constant-time comparison, so that timing does not reveal how much of a guess was right."""
    return hmac.compare_digest(given.encode(), token.encode())


def set_token_cookie(response: Response, token: str, *, secure: bool) -> None:
    """Keep `token` in the browser for this browser session: HttpOnly, SameSite=Strict, whole site."""
    response.set_cookie(TOKEN_COOKIE, quote(token, safe=""), path="/", httponly=True, samesite="strict", secure=secure)


def login_target(next_path: str | None) -> str:
    """Where the login sends the browser: a UI path of this server, never another site."""
    if not next_path or "//" in next_path or "\\" in next_path:
        return "/ui"
    return next_path if next_path == "/ui" or next_path.startswith(("/ui/", "/ui?")) else "/ui"


class BrowserTokenMiddleware:
    """Lets a browser on the web UI use the bearer token, kept in a cookie; sits outside
    `BearerTokenMiddleware`, which still checks every credential.

    - `GET /ui...?token=T`: a right T is stored in the cookie and the browser is sent (303) to the same
      URL without it; a wrong one is sent to the login page, which says so.
    - The cookie, on a request with no `Authorization` header to a path under `/ui` or `/sessions`,
      is passed on as `Authorization: Bearer <token>`: for GET and HEAD, and for other methods only with
      the `X-Sim-MCP-UI` header, which the UI's scripts send and another site's form cannot (CSRF).
    - A UI page asked for without a valid cookie is answered with a 303 to the login page.
    """

    def __init__(
        self,
        app: ASGIApp,
        token: str,
        *,
        login_path: str = "/ui/login",
        open_paths: Collection[str] = (),
        no_redirect_prefixes: Collection[str] = ("/ui/api/", "/ui/events", "/ui/static/"),
    ) -> None:
        self.app = app
        self.token = token
        self.login_path = login_path
        self.open_paths = frozenset(open_paths) | {login_path}
        self.no_redirect_prefixes = tuple(no_redirect_prefixes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        method: str = scope["method"]
        headers = Headers(scope=scope)
        in_ui = path == "/ui" or path.startswith("/ui/")
        if in_ui and method == "GET" and path not in self.open_paths:
            url = URL(scope=scope)
            given = QueryParams(url.query).get("token")
            if given is not None:
                await self._exchange(scope, url, given)(scope, receive, send)
                return
        if "authorization" in headers or not (in_ui or path == "/sessions" or path.startswith("/sessions/")):
            await self.app(scope, receive, send)
            return
        raw = cookie_parser(headers.get("cookie", "")).get(TOKEN_COOKIE)
        cookie = unquote(raw) if raw else None
        if cookie is not None and token_matches(cookie, self.token):
            if method in _SAFE_METHODS or headers.get(UI_HEADER) == "1":
                scope = dict(scope)
                with_token = MutableHeaders(scope=scope)
                with_token["authorization"] = f"Bearer {cookie}"
        elif (
            in_ui and method == "GET" and path not in self.open_paths and not path.startswith(self.no_redirect_prefixes)
        ):
            await self._to_login(scope, stale=cookie is not None)(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _exchange(self, scope: Scope, url: URL, given: str) -> Response:
        if not token_matches(given, self.token):
            return RedirectResponse(self._login_url(url.path, "wrong"), status_code=303)
        rest = [(key, value) for key, value in QueryParams(url.query).multi_items() if key != "token"]
        response = RedirectResponse(url.path + (f"?{urlencode(rest)}" if rest else ""), status_code=303)
        set_token_cookie(response, given, secure=scope.get("scheme") == "https")
        return response

    def _to_login(self, scope: Scope, *, stale: bool) -> Response:
        url = URL(scope=scope)
        here = url.path + (f"?{url.query}" if url.query else "")
        response = RedirectResponse(self._login_url(here, "stale" if stale else None), status_code=303)
        if stale:
            response.delete_cookie(TOKEN_COOKIE, path="/")
        return response

    def _login_url(self, next_path: str, error: str | None) -> str:
        query = {"next": next_path, **({"error": error} if error else {})}
        return f"{self.login_path}?{urlencode(query)}"
