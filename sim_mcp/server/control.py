"""The session control API: JSON over HTTP beside `/mcp`, for harnesses; never part of the MCP tool list.

    POST   /sessions                  {"env"?, "seed"?, "state"?, "state_mode"?, "id"?} -> 201 session
    GET    /sessions                  -> {"sessions": [session...], "count"}
    GET    /sessions/{id}             -> session + {"state"}
    GET    /sessions/{id}/events      ?last=N -> {"id", "events": [...], "count"}
    GET    /sessions/{id}/trajectory  ?format=events|openai -> JSON Lines (application/x-ndjson)
    POST   /sessions/{id}/reset       {"snapshot"?} -> session + {"state"}
    POST   /sessions/{id}/snapshots   {"name"} -> 201 session
    POST   /sessions/{id}/fork        {"id"?} -> 201 session (the copy)
    DELETE /sessions/{id}             -> 204
    POST   /sessions/{id}/evaluate    {"task"?: NAME or {...}, "curriculum"?} -> the Evaluation (docs/rewards.md)
    POST   /sessions/{id}/user        {"message"} -> {"message", "done", "turn", "reason"?} (docs/users.md)
    GET    /environments              ?limit=N&cursor=C -> {"environments": [{name, description, tools, ...}],
                                          "count", "next_cursor"}: a page, by name
    GET    /environments/{name}       -> the environment: its tools (name, title, description, schemas)...
    GET    /tasks                     -> {"tasks": [{name, env, difficulty, description, ...}], "count", "errors"}
    GET    /tasks/{name}              -> the task
    GET    /curriculum                ?env=NAME -> {"policy", "envs": {env: progress}}
    GET    /curriculum/next           ?env=NAME -> {"task", "env", "level", "levels", ...}
    POST   /curriculum/report         {"task", "reward"} -> the environment's progress, and the move if any
    POST   /curriculum/reset          {"env"?} -> {"policy", "envs"}

A session is its summary plus `mcp_url`, the absolute URL of its MCP endpoint. Errors are JSON objects
with an `error` message: 404 unknown id, 409 id taken or conversation over, 422 bad body (with `field`),
429 too many sessions, 502 the judge's (or the simulated user's) provider failed, 503 store failure. The
rules behind each operation are in `services.py` (which evaluation a session keeps, what feeds the
curriculum, sessions made for tasks) and `engine/sessions.py` (session lifecycle); `episodes/` has the
scoring (`rewards.py`), the simulated user (`user.py`) and the curriculum (`curriculum.py`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Literal, TypeVar
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from sim_mcp.engine.sessions import SESSION_ID_PATTERN
from sim_mcp.episodes.trajectory import (
    TRAJECTORY_FORMATS,
    agent_tools,
    to_jsonl,
    trajectory_format,
    trajectory_lines,
)
from sim_mcp.errors import (
    BackendError,
    ConversationOver,
    InvalidSessionInput,
    SessionExists,
    SessionLimitExceeded,
    SessionNotFound,
    StoreError,
)
from sim_mcp.runtime import Runtime
from sim_mcp.specs.model import Environment
from sim_mcp.state.session import SessionRecord
from sim_mcp.text import shown

logger = logging.getLogger("sim_mcp")

_Body = TypeVar("_Body", bound=BaseModel)
Endpoint = Callable[[Request], Awaitable[Response]]


def _id_field() -> Any:
    return Field(default=None, pattern=SESSION_ID_PATTERN.pattern, description="Choose the id (else one is generated).")


class CreateSession(BaseModel):
    model_config = ConfigDict(extra="forbid")

    env: str | None = Field(default=None, description="Bind the session to one environment.")
    seed: int | None = Field(default=None, strict=True)
    state: Any = Field(default=None, description="Creation state: see state_mode.")
    state_mode: Literal["merge", "replace"] = "merge"
    id: str | None = _id_field()
    task: str | None = Field(default=None, description="Start from this task: its env and its initial state.")


class EvaluateSession(BaseModel):
    model_config = ConfigDict(extra="forbid")

    task: str | dict[str, Any] | None = Field(
        default=None, description="A task's name, or a task inline; default: the task the session was created for."
    )
    curriculum: bool = Field(
        default=True, description="Feed the reward to the curriculum (the first evaluation of a task's session)."
    )


class UserMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")

    message: str = Field(description="What the agent says to the simulated user.")


class CurriculumReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    task: str = Field(min_length=1, description="The task the episode ran.")
    reward: float = Field(description="The episode's reward (0..1 for rewards from /evaluate).")


class CurriculumReset(BaseModel):
    model_config = ConfigDict(extra="forbid")

    env: str | None = Field(default=None, description="Reset one environment; default: all of them.")


class ResetSession(BaseModel):
    model_config = ConfigDict(extra="forbid")

    snapshot: str | None = Field(default=None, description="Return to this snapshot, else to the creation state.")


class TakeSnapshot(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=128)


class ForkSession(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str | None = _id_field()


# `GET /environments`: environments per page, unless `?limit=` says otherwise, and the most it may say.
DEFAULT_PAGE = 100
MAX_PAGE = 1000


class _ApiError(Exception):
    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.body = {"error": message, **extra}


def control_routes(runtime: Runtime) -> list[Route]:
    api = _ControlApi(runtime)
    return [
        Route("/sessions", _json_errors(api.create), methods=["POST"]),
        Route("/sessions", _json_errors(api.list), methods=["GET"]),
        Route("/sessions/{id}", _json_errors(api.get), methods=["GET"]),
        Route("/sessions/{id}", _json_errors(api.delete), methods=["DELETE"]),
        Route("/sessions/{id}/events", _json_errors(api.events), methods=["GET"]),
        Route("/sessions/{id}/trajectory", _json_errors(api.trajectory), methods=["GET"]),
        Route("/sessions/{id}/reset", _json_errors(api.reset), methods=["POST"]),
        Route("/sessions/{id}/snapshots", _json_errors(api.snapshot), methods=["POST"]),
        Route("/sessions/{id}/fork", _json_errors(api.fork), methods=["POST"]),
        Route("/sessions/{id}/evaluate", _json_errors(api.evaluate), methods=["POST"]),
        Route("/sessions/{id}/user", _json_errors(api.user), methods=["POST"]),
        Route("/environments", _json_errors(api.environments), methods=["GET"]),
        Route("/environments/{name}", _json_errors(api.environment), methods=["GET"]),
        Route("/tasks", _json_errors(api.tasks), methods=["GET"]),
        Route("/tasks/{name}", _json_errors(api.task), methods=["GET"]),
        Route("/curriculum", _json_errors(api.curriculum), methods=["GET"]),
        Route("/curriculum/next", _json_errors(api.curriculum_next), methods=["GET"]),
        Route("/curriculum/report", _json_errors(api.curriculum_report), methods=["POST"]),
        Route("/curriculum/reset", _json_errors(api.curriculum_reset), methods=["POST"]),
    ]


class _ControlApi:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.sessions = runtime.sessions
        self.episodes = runtime.episodes

    async def create(self, request: Request) -> Response:
        body = await _body(request, CreateSession)
        options = body.model_dump(include={"env", "seed", "state", "state_mode"})
        record = await self.episodes.create(task=body.task, session_id=body.id, **options)
        view = _session_view(request, record)
        return JSONResponse(view, status_code=201, headers={"Location": f"/sessions/{quote(record.id, safe='')}"})

    async def list(self, request: Request) -> Response:
        records = await self.sessions.list()
        return JSONResponse({"sessions": [_session_view(request, record) for record in records], "count": len(records)})

    async def get(self, request: Request) -> Response:
        record = await self.sessions.get(_id(request))
        return JSONResponse({**_session_view(request, record), "state": self.sessions.state_of(record)})

    async def events(self, request: Request) -> Response:
        raw = request.query_params.get("last")
        last: int | None = None
        if raw is not None:
            if not raw.isdigit():
                raise _ApiError(422, f"last: expected a whole number of events, got {raw!r}", field="last")
            last = int(raw)
        session_id = _id(request)
        events = await self.sessions.events(session_id, last=last)
        dumped = [event.model_dump(mode="json") for event in events]
        return JSONResponse({"id": session_id, "events": dumped, "count": len(dumped)})

    async def trajectory(self, request: Request) -> Response:
        """The session as JSON Lines: its events, or one OpenAI chat episode (see `episodes/trajectory.py`)."""
        raw = request.query_params.get("format", "events")
        format = trajectory_format(raw)
        if format is None:
            expected = ", ".join(TRAJECTORY_FORMATS)
            raise _ApiError(422, f"format: expected one of {expected}, got {raw!r}", field="format")
        session_id = _id(request)
        record = await self.sessions.get(session_id)
        events = await self.sessions.events(session_id)
        tools = agent_tools(self.runtime.catalog, record.environment)
        body = to_jsonl(trajectory_lines(format, session_id, events, tools))
        return Response(body, media_type="application/x-ndjson")

    async def reset(self, request: Request) -> Response:
        body = await _body(request, ResetSession)
        record = await self.sessions.reset(_id(request), snapshot=body.snapshot)
        return JSONResponse({**_session_view(request, record), "state": self.sessions.state_of(record)})

    async def snapshot(self, request: Request) -> Response:
        body = await _body(request, TakeSnapshot)
        record = await self.sessions.snapshot(_id(request), body.name)
        return JSONResponse({**_session_view(request, record), "snapshot": body.name}, status_code=201)

    async def fork(self, request: Request) -> Response:
        body = await _body(request, ForkSession)
        record = await self.sessions.fork(_id(request), new_id=body.id)
        view = _session_view(request, record)
        return JSONResponse(view, status_code=201, headers={"Location": f"/sessions/{quote(record.id, safe='')}"})

    async def evaluate(self, request: Request) -> Response:
        body = await _body(request, EvaluateSession)
        scored = await self.episodes.evaluate(_id(request), body.task, feed_curriculum=body.curriculum)
        return JSONResponse(scored.to_json())

    async def user(self, request: Request) -> Response:
        """The simulated user's reply to the agent's message (see `episodes/user.py`)."""
        body = await _body(request, UserMessage)
        turn = await self.episodes.reply(_id(request), body.message)
        return JSONResponse(turn.to_json())

    async def curriculum(self, request: Request) -> Response:
        env = request.query_params.get("env") or None
        return JSONResponse(await self.runtime.curriculum.view(env))

    async def curriculum_next(self, request: Request) -> Response:
        env = request.query_params.get("env")
        if not env:
            having = sorted({task.env for task in self.runtime.tasks.values()})
            message = f"env: expected ?env=NAME, an environment with tasks (one of {', '.join(having) or 'none'})"
            raise _ApiError(422, message, field="env")
        return JSONResponse(await self.runtime.curriculum.next(env))

    async def curriculum_report(self, request: Request) -> Response:
        body = await _body(request, CurriculumReport)
        return JSONResponse(await self.runtime.curriculum.report(body.task, body.reward))

    async def curriculum_reset(self, request: Request) -> Response:
        body = await _body(request, CurriculumReset)
        return JSONResponse(await self.runtime.curriculum.reset(body.env))

    async def environments(self, request: Request) -> Response:
        """A page of the environments, by name: `?limit=N` (1 to 1000, default 100), `?cursor=` the previous
        page's `next_cursor`."""
        raw = request.query_params.get("limit", str(DEFAULT_PAGE))
        if not raw.isdigit() or not 1 <= int(raw) <= MAX_PAGE:
            raise _ApiError(422, f"limit: expected a whole number from 1 to {MAX_PAGE}, got {raw!r}", field="limit")
        catalog = self.runtime.catalog
        page, next_cursor = catalog.page(request.query_params.get("cursor") or None, int(raw))
        views = [_environment_view(environment) for environment in page]
        return JSONResponse({"environments": views, "count": len(catalog.environments), "next_cursor": next_cursor})

    async def environment(self, request: Request) -> Response:
        name = str(request.path_params["name"])
        environment = self.runtime.catalog.environment(name)
        if environment is None:
            return JSONResponse({"error": f"no environment named {name!r}", "name": name}, status_code=404)
        tools = [
            tool.model_dump(mode="json", include={"name", "title", "description", "input_schema", "output_schema"})
            for tool in environment.tools
        ]
        view = {**_environment_view(environment), "instructions": environment.instructions, "tools": tools}
        return JSONResponse(view)

    async def tasks(self, request: Request) -> Response:
        tasks = [task.summary() for task in sorted(self.runtime.tasks.values(), key=lambda task: task.name)]
        errors = [str(error) for error in self.runtime.task_errors]
        return JSONResponse({"tasks": tasks, "count": len(tasks), "errors": errors})

    async def task(self, request: Request) -> Response:
        name = str(request.path_params["name"])
        task = self.runtime.tasks.get(name)
        if task is None:
            return JSONResponse({"error": f"no task named {name!r}", "name": name}, status_code=404)
        return JSONResponse(task.model_dump(mode="json", exclude_unset=True))  # as written in its file

    async def delete(self, request: Request) -> Response:
        session_id = _id(request)
        await self.sessions.delete(session_id)
        return Response(status_code=204)


def _environment_view(environment: Environment) -> dict[str, Any]:
    return {
        "name": environment.name,
        "description": environment.description,
        "tools": len(environment.tools),
        "rules": environment.rules is not None,
        "source": environment.source,
        "mcp_path": f"/mcp/{quote(environment.name, safe='')}",
    }


def mcp_url(request: Request, record: SessionRecord) -> str:
    """The session's MCP endpoint, absolute, from the URL the request came to."""
    base = str(request.base_url).rstrip("/")
    path = f"/mcp/{quote(record.environment, safe='')}" if record.environment is not None else "/mcp"
    return f"{base}{path}?session={quote(record.id, safe='')}"


def _session_view(request: Request, record: SessionRecord) -> dict[str, Any]:
    return {**record.summary(), "mcp_url": mcp_url(request, record)}


def _id(request: Request) -> str:
    return str(request.path_params["id"])


async def _body(request: Request, model: type[_Body]) -> _Body:
    """The request's JSON body as `model`; an empty body counts as `{}`."""
    raw = await request.body()
    try:
        data = json.loads(raw) if raw else {}  # only no body at all counts as {}: blanks are no JSON
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise _ApiError(422, f"invalid JSON body: {e}", field=None) from e
    if not isinstance(data, dict):
        raise _ApiError(422, f"expected a JSON object as the body, got {type(data).__name__}", field=None)
    try:
        return model.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or None
        problems = [
            {"field": ".".join(str(part) for part in error["loc"]), "error": error["msg"]} for error in e.errors()
        ]
        got = f" (got {shown(first['input'], 80)})" if "input" in first and field else ""
        message = f"{field}: {first['msg']}{got}" if field else str(first["msg"])
        raise _ApiError(422, message, field=field, errors=problems) from e


def _json_errors(handler: Endpoint) -> Endpoint:
    """Turn the errors of session operations into JSON responses with the status that fits."""

    async def endpoint(request: Request) -> Response:
        try:
            return await handler(request)
        except _ApiError as e:
            return JSONResponse(e.body, status_code=e.status)
        except SessionNotFound as e:
            return JSONResponse({"error": str(e), "id": e.session_id}, status_code=404)
        except SessionExists as e:
            return JSONResponse({"error": str(e), "id": e.session_id}, status_code=409)
        except ConversationOver as e:
            return JSONResponse({"error": str(e), "id": e.session_id, "reason": e.reason}, status_code=409)
        except InvalidSessionInput as e:
            return JSONResponse({"error": str(e), "field": e.field}, status_code=422)
        except SessionLimitExceeded as e:
            return JSONResponse({"error": str(e)}, status_code=429)
        except StoreError as e:
            logger.error("control API: %s", e)
            return JSONResponse({"error": str(e)}, status_code=503)
        except BackendError as e:  # the provider of the judge (an evaluation) or of the simulated user
            logger.error("control API: %s", e)
            return JSONResponse({"error": str(e)}, status_code=502)

    return endpoint
