"""The HTTP routes under fuzzing: Schemathesis against `/openapi.json` (no server error, every answer as
described), and a corpus of malformed JSON-RPC against `/mcp` (JSON-RPC errors, the server still serving)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest
import schemathesis
from hypothesis import settings
from schemathesis.checks import positive_data_acceptance

from sim_mcp.server.openapi import OPERATIONS, openapi_document
from tests.app_routes import app_routes
from tests.fuzzing import FUZZ_EXAMPLES, record_figures
from tests.helpers_server import app_server, mcp_client
from tests.jsonrpc_corpus import LEGACY_VERSION, MODERN_VERSION, Case, corpus, initialize

# Routes that speak something other than the JSON of the description: MCP's JSON-RPC, the web UI's pages.
NOT_DESCRIBED = ("/mcp", "/ui")


def test_every_json_route_is_described() -> None:
    described = {(operation.method, operation.path) for operation in OPERATIONS}
    routes = {route for route in app_routes() if not route[1].startswith(NOT_DESCRIBED)}
    assert routes == described


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with app_server() as base:
        yield base


def test_the_description_is_served(server: str) -> None:
    response = httpx.get(f"{server}/openapi.json")
    assert response.status_code == 200
    assert response.json() == json.loads(json.dumps(openapi_document()))


schema = schemathesis.openapi.from_dict(openapi_document())
# Every check Schemathesis has, but one: `positive_data_acceptance` wants a 2xx for any request that fits the
# description, and some that fit it are refused on meaning, rightly, with a 422 naming the field (a task
# name that no task has, `?env=` naming an environment without tasks).
EXCLUDED_CHECKS = [positive_data_acceptance]


@schema.parametrize()
@settings(max_examples=FUZZ_EXAMPLES, deadline=None)
def test_control_api_answers_as_described(case: schemathesis.Case[Any], server: str) -> None:
    case.call_and_validate(base_url=server, excluded_checks=EXCLUDED_CHECKS)


# Malformed JSON-RPC against /mcp -------------------------------------------------------------------------

_ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
_SMALL_BODY_LIMIT = 64 * 1024


def _messages(response: httpx.Response) -> list[Any]:
    """The JSON-RPC messages of a response: a JSON body, or the `data:` lines of an event stream."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        lines = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        return [json.loads(line) for line in lines if line]
    return [response.json()] if response.content else []


def _legacy_session(http: httpx.Client) -> dict[str, str]:
    """A handshake-era session opened by hand; the headers that send requests in it."""
    response = http.post("/mcp?session=fuzz-legacy", json=initialize("fuzz"), headers=_ACCEPT)
    assert response.status_code == 200, response.text
    headers = {"mcp-session-id": response.headers["mcp-session-id"], "mcp-protocol-version": LEGACY_VERSION}
    done = http.post(
        "/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers={**_ACCEPT, **headers}
    )
    assert done.status_code == 202, done.text
    return headers


def send_corpus(base: str, *, modern: bool) -> list[tuple[Case, int, list[Any]]]:
    """Every case of the era's corpus sent to `/mcp`; (case, status, messages) each, checked as it goes."""
    answers = []
    with httpx.Client(base_url=base, timeout=30) as http:
        era = {"mcp-protocol-version": MODERN_VERSION} if modern else _legacy_session(http)
        for case in corpus(modern=modern, max_request_bytes=_SMALL_BODY_LIMIT):
            headers = {**_ACCEPT, **era}
            if modern and case.method is not None:
                headers["mcp-method"] = case.method
            if modern and case.name is not None and len(case.name) < 1000:
                headers["mcp-name"] = case.name
            path = "/mcp" if not modern else "/mcp?session=fuzz-modern"
            response = http.post(path, content=case.body, headers=headers)
            assert response.status_code < 500, (case.label, response.status_code, response.text[:300])
            messages = _messages(response)
            for message in messages:
                assert isinstance(message, dict), (case.label, message)
                if response.status_code == 413:
                    assert "error" in message, (case.label, message)
                    continue
                assert message.get("jsonrpc") == "2.0", (case.label, message)
                error = message.get("error")
                assert error is not None or "result" in message, (case.label, message)
                if error is not None:
                    assert isinstance(error.get("code"), int), (case.label, message)
                    assert isinstance(error.get("message"), str), (case.label, message)
            if response.status_code >= 400:
                assert messages, (case.label, response.status_code, response.text[:300])
            answers.append((case, response.status_code, messages))
        assert http.get("/healthz").status_code == 200
    return answers


@pytest.fixture(scope="module")
def small_body_server() -> Iterator[str]:
    with app_server(max_request_bytes=_SMALL_BODY_LIMIT) as base:
        yield base


@pytest.mark.parametrize("modern", [True, False], ids=["2026-07-28", "handshake"])
async def test_malformed_json_rpc_gets_json_rpc_errors_and_the_server_serves_on(
    small_body_server: str, modern: bool
) -> None:
    answers = await anyio.to_thread.run_sync(lambda: send_corpus(small_body_server, modern=modern))
    statuses = {status for _, status, _ in answers}
    era = "2026-07-28" if modern else "handshake era"
    figures = {"cases": len(answers), "server errors (5xx)": sum(status >= 500 for _, status, _ in answers)}
    record_figures(f"malformed JSON-RPC corpus against /mcp, {era}", {**figures, "statuses": sorted(statuses)})
    assert statuses <= {200, 202, 400, 404, 406, 413, 415, 422}, statuses
    by_label = {case.label: (status, messages) for case, status, messages in answers}
    # Arguments that are no object: refused as invalid params by the SDK, before any simulation.
    for label in ("arguments 5", "arguments 'x'", "arguments []"):
        _, messages = by_label[label]
        (message,) = messages
        assert message["error"]["code"] == -32602, (label, message)
    async with mcp_client(f"{small_body_server}/mcp?session=after-fuzz", mode="auto" if modern else "legacy") as client:
        result = await client.call_tool("get_ticket", {"ticket_id": "T-1001"})
    assert not result.is_error


def test_a_method_a_path_lacks_is_a_json_405_naming_every_method_it_takes(server: str) -> None:
    response = httpx.put(f"{server}/sessions")
    assert response.status_code == 405
    allowed = response.headers["allow"]
    assert set(allowed.replace(" ", "").split(",")) == {"GET", "HEAD", "POST"}
    assert response.json() == {
        "error": f"method PUT not allowed on /sessions: expected {allowed}",
        "expected": [method.strip() for method in allowed.split(",")],
    }
    missing = httpx.get(f"{server}/no/such/route")
    assert missing.status_code == 404
    assert missing.json() == {"error": "not found: GET /no/such/route"}


@pytest.mark.parametrize("body", [b" \n", b"\x0c", b"\x0b\t"], ids=["space-newline", "form-feed", "vtab-tab"])
def test_a_blank_body_is_no_json(server: str, body: bytes) -> None:
    """Found by Schemathesis (`negative_data_rejection`): blanks were read as an empty body, so `{}`."""
    response = httpx.post(f"{server}/sessions", content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 422, response.text
    assert response.json()["error"].startswith("invalid JSON body: ")
    assert httpx.post(f"{server}/sessions", content=b"").status_code == 201  # no body at all: {}
