"""Operating the server: readiness, Prometheus metrics, JSON logs, limits, DNS-rebinding protection."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from mcp.client import Client
from mcp.shared.exceptions import MCPError

from tests.helpers_server import NEW_TICKET, app_server
from tests.servers import running_server


async def test_health_readiness_and_metrics() -> None:
    with app_server() as base:
        async with httpx.AsyncClient(base_url=base) as http:
            assert (await http.get("/healthz")).json()["status"] == "ok"
            ready = (await http.get("/readyz")).json()
            assert ready["status"] == "ready"
            assert "tickets" in ready["environments"]
            async with Client(f"{base}/mcp?session=metrics") as client:
                await client.call_tool("create_ticket", NEW_TICKET)
                await client.call_tool("get_ticket", {"ticket_id": "T-9999"})
                await client.call_tool("get_ticket", {"ticket_id": 7})
            text = (await http.get("/metrics")).text
    assert 'sim_mcp_tool_calls_total{environment="tickets",outcome="ok",tool="create_ticket"} 1.0' in text
    assert 'sim_mcp_tool_calls_total{environment="tickets",outcome="error",tool="get_ticket"} 1.0' in text
    assert 'sim_mcp_tool_calls_total{environment="tickets",outcome="invalid_arguments",tool="get_ticket"} 1.0' in text
    assert 'sim_mcp_errors_total{kind="invalid_arguments"} 1.0' in text
    assert 'sim_mcp_tool_call_latency_seconds_count{backend="rules"} 2.0' in text  # tickets.rules.star answered
    assert "sim_mcp_active_sessions 1.0" in text


def test_not_ready_without_environments(tmp_path: Path) -> None:
    with app_server(specs=[tmp_path]) as base:
        response = httpx.get(f"{base}/readyz")
    assert response.status_code == 503
    assert "no environment is loaded" in response.json()["problems"][0]


def test_token_guards_metrics_but_not_health() -> None:
    with app_server(token="s3cret") as base:
        assert httpx.get(f"{base}/healthz").status_code == 200
        assert httpx.get(f"{base}/readyz").status_code == 200
        assert httpx.get(f"{base}/metrics").status_code == 401
        headers = {"Authorization": "Bearer s3cret"}
        assert httpx.get(f"{base}/metrics", headers=headers).status_code == 200


async def test_oversized_bodies_are_refused_with_413() -> None:
    with app_server(max_request_bytes=10_000) as base:
        big = {"env": "tickets", "state": {"tickets": {"x": {"blob": "a" * 20_000}}}}
        async with httpx.AsyncClient(base_url=base) as http:
            control = await http.post("/sessions", json=big)
            assert control.status_code == 413
            assert "the limit is 10000 bytes" in control.json()["error"]
            assert (await http.get("/sessions")).json()["count"] == 0, "a refused request creates nothing"
        async with Client(f"{base}/mcp?session=big") as client:
            small = await client.call_tool("create_ticket", NEW_TICKET)
            assert not small.is_error
            with pytest.raises(MCPError):  # the transport answers 413 before any JSON-RPC
                await client.call_tool("create_ticket", {**NEW_TICKET, "description": "b" * 20_000})


async def test_oversized_arguments_are_an_error_result() -> None:
    with app_server(max_argument_bytes=1_000) as base:
        async with Client(f"{base}/mcp?session=args") as client:
            result = await client.call_tool("create_ticket", {**NEW_TICKET, "description": "c" * 2_000})
    assert result.is_error
    assert "over the limit of 1000 (--max-argument-bytes" in result.content[0].text  # type: ignore[union-attr]


async def test_rate_limit_per_session() -> None:
    with app_server(rate_limit=0.5) as base:
        async with Client(f"{base}/mcp?session=busy") as busy, Client(f"{base}/mcp?session=calm") as calm:
            first = await busy.call_tool("get_ticket", {"ticket_id": "T-1001"})
            second = await busy.call_tool("get_ticket", {"ticket_id": "T-1001"})
            other = await calm.call_tool("get_ticket", {"ticket_id": "T-1001"})
    assert not first.is_error
    assert second.is_error
    assert "rate limit exceeded" in second.content[0].text  # type: ignore[union-attr]
    assert not other.is_error, "one session's limit must not touch another's"


def test_dns_rebinding_protection_on_loopback() -> None:
    with app_server() as base:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        evil = httpx.post(f"{base}/mcp", json=body, headers={"Host": "evil.example"})
    assert evil.status_code == 421


def test_json_logs(tmp_path: Path) -> None:
    with running_server(tmp_path, "--log-format", "json", "--log-level", "INFO") as server:
        httpx.get(f"{server.url}/healthz")
    lines = [line for line in server.log.read_text().splitlines() if line.startswith("{")]
    assert lines, server.log.read_text()
    entries = [json.loads(line) for line in lines]
    assert {"time", "level", "logger", "message"} <= entries[0].keys()
