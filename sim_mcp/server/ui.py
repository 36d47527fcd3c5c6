"""The web UI at `/ui`: the sessions, live; one session's timeline and state diffs; the environments.

    GET  /ui                          the sessions, newest activity first (?env=NAME, ?q=TEXT filter)
    GET  /ui/sessions/{id}            one session: figures, actions, timeline (?event=SEQ selects one)
    GET  /ui/environments             every environment's tools, schemas and initial state; load errors
    GET  /ui/events                   server-sent events: which sessions changed (?session=ID for one)
    GET  /ui/api/sessions/{id}/diff   ?seq=SEQ: the state after that event against the state before, JSON
    GET  /ui/static/...               the scripts and the style sheet
    GET|POST /ui/login                with --token: the form that keeps the token in a cookie

Pages are rendered here (`ui_render`); a small script of our own (`ui_static/app.js`) keeps them live
and calls the control API for the buttons. Every response carries a strict Content-Security-Policy
(scripts only from this server, no inline script), and every value from a session is escaped, so a
tool result holding markup shows as text.

The event stream sends `session` (the session's summary, as in `GET /sessions`), `deleted` (`{"id"}`),
`resync` (too many changes to list: read `GET /sessions` again) and `bye` (the server is shutting
down), and a comment every 15 s to keep the connection open.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any, Unpack
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sim_mcp.errors import SessionNotFound, SimMcpError, TooManyWatchers
from sim_mcp.server import ui_render as render
from sim_mcp.server.auth import login_target, set_token_cookie, token_matches
from sim_mcp.server.context import ServerContext
from sim_mcp.server.control import mcp_url
from sim_mcp.state.diff import changes, diff_lines, rebuild
from sim_mcp.state.session import SessionRecord
from sim_mcp.state.values import json_equal

logger = logging.getLogger("sim_mcp")

STATIC_DIR = Path(__file__).parent / "ui_static"
# The most sessions the list shows at once (the most recently used), and events a timeline shows.
SESSION_CAP = 500
TIMELINE_CAP = 1000
# Longest value shown inline in a diff's list of changes.
CHANGE_VALUE_CHARS = 300
HEARTBEAT_S = 15.0

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
    ]
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}


# The sign-in form (with --token); it is posted with `Origin: null`, as the pages send no referrer.
LOGIN_PATH = "/ui/login"


def static_paths() -> list[str]:
    """The URL of every static file (open without the token: they hold no data)."""
    return sorted(f"/ui/static/{path.name}" for path in STATIC_DIR.iterdir() if path.is_file())


def ui_routes(server: ServerContext, *, heartbeat_s: float = HEARTBEAT_S) -> list[BaseRoute]:
    ui = _Ui(server, heartbeat_s)
    return [
        Route("/ui", ui.sessions, methods=["GET"]),
        Route("/ui/sessions/{id}", ui.session, methods=["GET"]),
        Route("/ui/environments", ui.environments, methods=["GET"]),
        Route(LOGIN_PATH, ui.login, methods=["GET", "POST"]),
        Route("/ui/events", ui.stream, methods=["GET"]),
        Route("/ui/api/sessions/{id}/diff", ui.diff, methods=["GET"]),
        Mount("/ui/static", app=_WithHeaders(StaticFiles(directory=STATIC_DIR)), name="ui-static"),
    ]


class _Ui:
    def __init__(self, server: ServerContext, heartbeat_s: float) -> None:
        self.runtime = server.runtime
        self.changes = server.changes
        self.token = server.config.token
        self.heartbeat_s = heartbeat_s
        self.assets = render.Assets(script=_versioned("app.js"), style=_versioned("style.css"))

    # ------------------------------------------------------------------------------------------------ pages

    async def sessions(self, request: Request) -> Response:
        env = request.query_params.get("env", "")
        text = request.query_params.get("q", "").strip()
        try:
            records = await self.runtime.sessions.list()
        except SimMcpError as e:
            return self._store_failed(e)
        summaries = [record.summary() for record in records]
        matching = [summary for summary in summaries if _matches(summary, env, text.lower())]
        matching.sort(key=lambda summary: float(summary.get("last_used_at") or 0), reverse=True)
        body = render.sessions_body(
            matching,
            environments=sorted(self.runtime.catalog.environments),
            env_filter=env,
            text_filter=text,
            total=len(matching),
            cap=SESSION_CAP,
            now=time.time(),
        )
        return self._page("Sessions", body, name="sessions", nav="sessions", live=True)

    async def session(self, request: Request) -> Response:
        session_id = str(request.path_params["id"])
        try:
            record = await self.runtime.sessions.get(session_id)
            events = await self.runtime.sessions.log(session_id, last=TIMELINE_CAP)
            raw = request.query_params.get("event", "")
            selected = await self._diff_view(record, int(raw)) if raw.isdigit() else None
        except SessionNotFound:
            body = render.message_body("No such session", f"There is no session {session_id!r} (any more).")
            return self._page("No such session", body, name="missing", nav="sessions", status=404)
        except SimMcpError as e:
            return self._store_failed(e)
        summary = {**record.summary(), "mcp_url": mcp_url(request, record)}
        body = render.session_body(
            summary,
            [event.model_dump(mode="json") for event in events],
            total_events=max(record.event_count, len(events)),
            selected=selected,
            now=time.time(),
        )
        data = {"session": record.id, "events": str(max((event.seq for event in events), default=0))}
        if selected is not None:
            data["selected"] = str(selected["seq"])
        return self._page(record.id, body, name="session", nav="sessions", data=data, live=True)

    async def environments(self, request: Request) -> Response:
        catalog = self.runtime.catalog
        views = list(catalog.environments.values())
        errors = [render.LoadErrorView(error.path, error.place, error.reason) for error in catalog.errors]
        body = render.environments_body(views, errors)
        return self._page("Environments", body, name="environments", nav="environments")

    async def login(self, request: Request) -> Response:
        token = self.token
        next_path = login_target(request.query_params.get("next"))
        if token is None:
            return RedirectResponse(next_path, status_code=303)
        error = request.query_params.get("error")
        status = 200
        if request.method == "POST":
            form = parse_qs((await request.body()).decode("utf-8", "replace"))
            next_path = login_target(form.get("next", [""])[0])
            if token_matches(form.get("token", [""])[0], token):
                response = RedirectResponse(next_path, status_code=303)
                set_token_cookie(response, token, secure=request.url.scheme == "https")
                return response
            error, status = "wrong", 401
        body = render.login_body(next_path, error)
        return self._page("Sign in", body, name="login", status=status)

    # ------------------------------------------------------------------------------------------------ data

    async def diff(self, request: Request) -> Response:
        session_id = str(request.path_params["id"])
        raw = request.query_params.get("seq", "")
        if not raw.isdigit():
            return _json({"error": f"seq: expected an event's number, got {raw!r}", "field": "seq"}, 422)
        try:
            record = await self.runtime.sessions.get(session_id)
            view = await self._diff_view(record, int(raw))
        except SessionNotFound as e:
            return _json({"error": str(e), "id": session_id}, 404)
        except SimMcpError as e:
            return _json({"error": str(e)}, 503)
        if view is None:
            return _json({"error": f"session {session_id!r} has no event {raw}", "seq": int(raw)}, 404)
        return _json(view)

    async def stream(self, request: Request) -> Response:
        only = request.query_params.get("session") or None
        try:
            watch = self.changes.live.watch(only)
        except TooManyWatchers as e:
            return _json({"error": str(e)}, 503)

        async def events() -> AsyncIterator[str]:
            with watch:
                yield f"retry: 3000\n: watching {'session ' + json.dumps(only) if only else 'all sessions'}\n\n"
                while True:
                    update = await watch.next(self.heartbeat_s)
                    if update is None:
                        yield ": ping\n\n"
                    elif update.closed:
                        yield "event: bye\ndata: {}\n\n"
                        return
                    elif update.resync:
                        yield "event: resync\ndata: {}\n\n"
                    else:
                        for session_id in update.session_ids:
                            yield await self._session_event(session_id)

        headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no", **SECURITY_HEADERS}
        return StreamingResponse(events(), media_type="text/event-stream", headers=headers)

    async def _session_event(self, session_id: str) -> str:
        try:
            record = await self.runtime.sessions.find(session_id)
        except SimMcpError as e:  # the store failed: the watcher reads everything again later
            logger.warning("live updates: reading session %r failed: %s", session_id, e)
            return "event: resync\ndata: {}\n\n"
        if record is None:
            return f"event: deleted\ndata: {json.dumps({'id': session_id})}\n\n"
        return f"event: session\ndata: {json.dumps(record.summary(), default=str)}\n\n"

    async def _diff_view(self, record: SessionRecord, seq: int) -> dict[str, Any] | None:
        """What the diff panel shows for event `seq`: the changed paths and the marked state after."""
        events = [event.model_dump(mode="json") for event in await self.runtime.sessions.log(record.id)]
        event = next((event for event in events if event.get("seq") == seq), None)
        if event is None:
            return None
        unchanged = record.model_copy(update={"worlds": {}})
        rebuilt = rebuild(events, seq, lambda env: self.runtime.simulator.world_of(unchanged, env))
        view: dict[str, Any] = {
            "seq": seq,
            "kind": event.get("kind") or "tool_call",
            "tool": event.get("tool"),
            "environment": event.get("environment"),
            "error": None,
            "warning": None,
            "message": None,
            "changes": [],
            "lines": [],
            "skipped": 0,
            "patch": render.json_text(event.get("state_patch")) if event.get("state_patch") else None,
        }
        if rebuilt is None or rebuilt.environment is None:
            view["message"] = "This event does not touch a world state."
            return view
        if rebuilt.error is not None:
            view["error"] = rebuilt.error
            return view
        view["changes"] = [
            {
                "path": change.path,
                "kind": change.kind,
                "before": _short(change.before) if change.kind != "added" else None,
                "after": _short(change.after) if change.kind != "removed" else None,
            }
            for change in changes(rebuilt.before, rebuilt.after)
        ]
        lines, skipped = diff_lines(rebuilt.before, rebuilt.after)
        view["lines"] = [{"text": line.text, "mark": line.mark, "path": line.path} for line in lines]
        view["skipped"] = skipped
        stored = record.worlds.get(rebuilt.environment)
        if rebuilt.last_in_environment and stored is not None and not json_equal(stored, rebuilt.after):
            view["warning"] = (
                "The state rebuilt from the event log differs from the session's stored state (the "
                "environment's initial_state may have changed since the session began); the changes shown "
                "are still this event's."
            )
        return view

    # ------------------------------------------------------------------------------------------------ helpers

    def _page(self, title: str, body: str, *, status: int = 200, **options: Unpack[render.PageOptions]) -> Response:
        """`render.page` as a response, with the UI's headers."""
        html = render.page(title, body, self.assets, **options)
        return HTMLResponse(html, status_code=status, headers={**SECURITY_HEADERS, "Cache-Control": "no-store"})

    def _store_failed(self, error: SimMcpError) -> Response:
        logger.error("web UI: %s", error)
        body = render.message_body("The store does not answer", str(error))
        return self._page("Store failure", body, name="error", status=503)


def _matches(summary: Mapping[str, Any], env: str, text: str) -> bool:
    if env:
        bound = summary.get("env")
        if (bound if bound is not None else render.NO_ENVIRONMENT) != env:
            return False
    return not text or text in render.session_search_text(summary)


def _short(value: Any) -> str:
    return render.json_text(value, indent=None, limit=CHANGE_VALUE_CHARS)


def _json(body: Any, status: int = 200) -> JSONResponse:
    return JSONResponse(body, status_code=status, headers={**SECURITY_HEADERS, "Cache-Control": "no-store"})


def _versioned(name: str) -> str:
    digest = hashlib.sha256((STATIC_DIR / name).read_bytes()).hexdigest()[:12]
    return f"/ui/static/{name}?v={digest}"


class _WithHeaders:
    """Adds `nosniff` to the static files' responses."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), (b"x-content-type-options", b"nosniff")]}
            await send(message)

        await self.app(scope, receive, send_with_headers)
