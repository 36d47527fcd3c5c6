"""The OpenAPI 3.1 description of the HTTP routes that speak JSON, served at `/openapi.json`.

It covers the control API (`server/control.py`), health, readiness, metrics and itself; not `/mcp` (JSON-RPC,
described by the MCP specification) nor the web UI's pages. Request bodies are the control API's own
pydantic models, so the description cannot drift from what the server checks; `tests/test_fuzz_http.py`
holds every route of the app to it and fuzzes the server from it with Schemathesis.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from sim_mcp.episodes.trajectory import TRAJECTORY_FORMATS
from sim_mcp.server.control import (
    CreateSession,
    CurriculumReport,
    CurriculumReset,
    EvaluateSession,
    ForkSession,
    ResetSession,
    TakeSnapshot,
    UserMessage,
)
from sim_mcp.version import __version__

OPENAPI_PATH = "/openapi.json"
_JSON = "application/json"
_REF = "#/components/schemas/{model}"


@dataclass(frozen=True)
class Operation:
    """One method on one path: what it takes and the statuses it answers with."""

    method: str
    path: str
    summary: str
    body: type[BaseModel] | None = None
    query: tuple[tuple[str, dict[str, Any]], ...] = ()  # optional parameters: (name, schema)
    ok: int = 200
    media: str = _JSON
    errors: tuple[int, ...] = ()
    response: str = "Object"  # a schema of `components.schemas`
    tags: tuple[str, ...] = field(default=("control",))


_ID = (404, 503)
_LAST = (("last", {"type": "string", "pattern": "^[0-9]+$"}),)
_FORMAT = (("format", {"type": "string", "enum": list(TRAJECTORY_FORMATS)}),)
_ENV = (("env", {"type": "string"}),)
_PAGE = (("limit", {"type": "string", "pattern": "^[0-9]+$"}), ("cursor", {"type": "string"}))
OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "post", "/sessions", "Create a session", CreateSession, ok=201, errors=(409, 422, 429, 503), response="Session"
    ),
    Operation("get", "/sessions", "List the sessions", errors=(503,), response="SessionList"),
    Operation("get", "/sessions/{id}", "A session and its state", errors=_ID, response="Session"),
    Operation("delete", "/sessions/{id}", "Delete a session", ok=204, errors=_ID),
    Operation("get", "/sessions/{id}/events", "The session's events", query=_LAST, errors=(*_ID, 422)),
    Operation(
        "get",
        "/sessions/{id}/trajectory",
        "The session as JSON Lines",
        query=_FORMAT,
        media="application/x-ndjson",
        errors=(*_ID, 422),
    ),
    Operation("post", "/sessions/{id}/reset", "Reset a session", ResetSession, errors=(*_ID, 422), response="Session"),
    Operation("post", "/sessions/{id}/snapshots", "Take a snapshot", TakeSnapshot, ok=201, errors=(*_ID, 422)),
    Operation("post", "/sessions/{id}/fork", "Fork a session", ForkSession, ok=201, errors=(*_ID, 409, 422, 429)),
    Operation("post", "/sessions/{id}/evaluate", "Score a session", EvaluateSession, errors=(*_ID, 422, 502)),
    Operation("post", "/sessions/{id}/user", "Talk to the simulated user", UserMessage, errors=(*_ID, 409, 422, 502)),
    Operation("get", "/environments", "A page of the environments", query=_PAGE, errors=(422,)),
    Operation("get", "/environments/{name}", "One environment and its tools", errors=(404,)),
    Operation("get", "/tasks", "The tasks loaded"),
    Operation("get", "/tasks/{name}", "One task", errors=(404,)),
    Operation("get", "/curriculum", "The curriculum's progress", query=_ENV, errors=(422, 503)),
    Operation("get", "/curriculum/next", "The next task at the current level", query=_ENV, errors=(404, 422, 503)),
    Operation("post", "/curriculum/report", "Report an episode's reward", CurriculumReport, errors=(404, 422, 503)),
    Operation("post", "/curriculum/reset", "Reset the curriculum", CurriculumReset, errors=(404, 422, 503)),
    Operation("get", "/healthz", "The process is up", tags=("operations",)),
    Operation("get", "/readyz", "Ready to serve", errors=(503,), tags=("operations",)),
    Operation("get", "/metrics", "Prometheus metrics", media="text/plain", tags=("operations",)),
    Operation("get", OPENAPI_PATH, "This description", tags=("operations",)),
)
# Any route can answer these: no or a wrong token (401), a Host or Origin not allowed (421, 403), a body
# over --max-request-bytes (413).
_GUARDS = (401, 403, 413, 421)

_SCHEMAS: dict[str, Any] = {
    "Object": {"type": "object"},
    "Error": {"type": "object", "properties": {"error": {"type": "string"}}, "required": ["error"]},
    "Session": {
        "type": "object",
        "properties": {"id": {"type": "string"}, "mcp_url": {"type": "string"}, "events": {"type": "integer"}},
        "required": ["id", "mcp_url", "events"],
    },
    "SessionList": {
        "type": "object",
        "properties": {"sessions": {"type": "array", "items": {"$ref": "#/components/schemas/Session"}}},
        "required": ["sessions", "count"],
    },
}


def openapi_document() -> dict[str, Any]:
    """The whole description, as a JSON-ready dict."""
    schemas = dict(_SCHEMAS)
    paths: dict[str, dict[str, Any]] = {}
    for operation in OPERATIONS:
        paths.setdefault(operation.path, {})[operation.method] = _operation(operation, schemas)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "sim-mcp HTTP API",
            "version": __version__,
            "description": "Sessions, tasks and curriculum of a sim-mcp server (docs/control-api.md); MCP is at /mcp.",
        },
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{}, {"bearer": []}],  # the token is needed only when the server was given one
    }


def _operation(operation: Operation, schemas: dict[str, Any]) -> dict[str, Any]:
    parameters = [
        {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
        for name in _path_parameters(operation.path)
    ] + [{"name": name, "in": "query", "required": False, "schema": schema} for name, schema in operation.query]
    body: dict[str, Any] = {}
    if operation.body is not None:
        schema = operation.body.model_json_schema(ref_template=_REF)
        schemas.update(schema.pop("$defs", {}))
        schemas[operation.body.__name__] = schema
        body = {
            "requestBody": {
                "required": bool(schema.get("required")),  # else an empty body counts as {}
                "content": {_JSON: {"schema": {"$ref": _REF.format(model=operation.body.__name__)}}},
            }
        }
    return {
        "summary": operation.summary,
        "operationId": operation.method + "".join(f"_{part.strip('{}')}" for part in operation.path.split("/") if part),
        "tags": list(operation.tags),
        "parameters": parameters,
        **body,
        "responses": _responses(operation),
    }


def _responses(operation: Operation) -> dict[str, Any]:
    if operation.ok == 204:
        ok: dict[str, Any] = {"description": "Done, no content"}
    elif operation.media == _JSON:
        ok = {"description": "OK", "content": {_JSON: {"schema": {"$ref": _REF.format(model=operation.response)}}}}
    else:
        ok = {"description": "OK", "content": {operation.media: {"schema": {"type": "string"}}}}
    responses: dict[str, Any] = {str(operation.ok): ok}
    error = {"content": {_JSON: {"schema": {"$ref": _REF.format(model="Error")}}}}
    for status in sorted({*operation.errors, *_GUARDS}):
        responses[str(status)] = {"description": _REASONS.get(status, "Error"), **error}
    return responses


_REASONS = {
    401: "Missing or wrong bearer token",
    403: "Origin not allowed",
    404: "Not found",
    409: "Conflict: id taken, or the conversation is over",
    413: "Request body too large",
    421: "Host not allowed",
    422: "Invalid input: the message names the field",
    429: "Too many sessions",
    502: "The judge's or simulated user's provider failed",
    503: "The store failed, or not ready",
}


def _path_parameters(path: str) -> list[str]:
    return [part[1:-1] for part in path.split("/") if part.startswith("{") and part.endswith("}")]


def openapi_route() -> Route:
    """`GET /openapi.json`, the description built once."""
    description = openapi_document()

    async def openapi(request: Request) -> Response:
        return JSONResponse(description)

    return Route(OPENAPI_PATH, openapi, methods=["GET"])
