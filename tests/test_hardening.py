"""Hardening: a rejected patch never reaches the model again; an evaluation against another task
leaves the session's reward alone; unnamed clients are told they share a session; idle handshake-era
connections close; refused calls are labelled with their tool's environment; the UI shows no null fields."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import subprocess
import time
from pathlib import Path

import httpx
import pytest
from mcp.client import Client

from sim_mcp.cli.serve import listen
from sim_mcp.config import Settings
from sim_mcp.llm.modes import prompt_for
from sim_mcp.runtime import Runtime
from sim_mcp.server.context import ServerContext
from sim_mcp.server.mcp import SHARED_SESSION_META, SessionRouting, build_mcp_server
from sim_mcp.server.ui_render import event_card
from sim_mcp.server.workers import shared_port_socket
from sim_mcp.testing import scripted
from tests.helpers_server import NEW_TICKET, app_server, mcp_client
from tests.jsonrpc_corpus import LEGACY_VERSION, initialize
from tests.servers import BUNDLED_SPECS, READY_TIMEOUT, ServerProcess, serve_command

# --- 6: a rejected patch leaves no trace where the model reads -------------------------------------------


async def test_a_rejected_patch_is_not_shown_to_the_model_again() -> None:
    rejected = [{"op": "replace", "path": "/tickets/NO-SUCH-TICKET/status", "value": "ZEBRA-STATUS"}]
    backend = scripted(
        {"result": "refused for now", "is_error": True, "state_patch": rejected},
        {"result": "refused again", "is_error": True, "state_patch": []},
    )
    # The backend answers every tool (the bundled ones have rules programs, which would answer instead).
    settings = Settings(specs=[BUNDLED_SPECS], watch=False, max_attempts=1, run_rules=False)
    async with Runtime(settings, backend=backend) as runtime:
        server = build_mcp_server(ServerContext(runtime), SessionRouting(process_session="rejected"))
        async with Client(server) as client:
            first = await client.call_tool("create_ticket", NEW_TICKET)
            await client.call_tool("create_ticket", NEW_TICKET)
        events = await runtime.store.events("rejected")
    assert first.is_error
    assert "state_patch does not apply" in first.content[0].text  # type: ignore[union-attr]
    assert [event.failed for event in events] == [True, False]
    assert len(backend.requests) == 2
    second = backend.requests[1]
    assert second.recent_events == []
    prompt = prompt_for(second, history_events=settings.history_events, state_budget_chars=10**6)
    for trace in ("NO-SUCH-TICKET", "ZEBRA-STATUS", "does not apply", "could not produce"):
        assert trace not in prompt.system + prompt.user, trace


# --- 7: evaluations against other tasks are answered, not kept ----------------------------------------------


async def test_an_inline_or_other_task_leaves_the_sessions_reward_and_the_curriculum_alone(
    http: httpx.AsyncClient,
) -> None:
    session = (await http.post("/sessions", json={"task": "tickets-triage-billing"})).json()
    evaluate = f"/sessions/{session['id']}/evaluate"
    passing = {"path": "/tickets/T-1001/id", "equals": "T-1001"}
    # Inline, even under the session's task's name: scored, not stored, not fed to the curriculum.
    inline = await http.post(
        evaluate, json={"task": {"name": "tickets-triage-billing", "env": "tickets", "checks": [passing]}}
    )
    assert inline.status_code == 200, inline.text
    assert (inline.json()["reward"], inline.json()["curriculum"]) == (1.0, None)
    assert (await http.get(f"/sessions/{session['id']}")).json()["reward"] is None

    own = (await http.post(evaluate)).json()
    assert (own["reward"], own["baseline"]) == (0.0, pytest.approx(1.5 / 3.5))  # reward: gain, nothing done
    assert own["curriculum"] is not None  # the first evaluation of the episode feeds the curriculum

    other = (await http.post(evaluate, json={"task": "tickets-close-sso"})).json()
    again = (await http.post(evaluate, json={"task": {"env": "tickets", "checks": [passing]}})).json()
    assert (other["task"], again["reward"]) == ("tickets-close-sso", 1.0)
    listed = {item["id"]: item for item in (await http.get("/sessions")).json()["sessions"]}
    assert listed[session["id"]]["reward"] == 0.0


async def test_a_session_made_for_no_task_keeps_its_latest_evaluation(http: httpx.AsyncClient) -> None:
    session = (await http.post("/sessions", json={"env": "tickets"})).json()
    check = {"path": "/tickets/T-1001/id", "equals": "T-1001"}
    body = {"task": {"env": "tickets", "checks": [check]}}
    assert (await http.post(f"/sessions/{session['id']}/evaluate", json=body)).status_code == 200
    assert (await http.get(f"/sessions/{session['id']}")).json()["reward"] == 1.0


# --- 8: unnamed clients are told they share a session; idle connections close --------------------------------


async def test_calls_that_name_no_session_say_they_share_one(base_url: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="sim_mcp")
    async with mcp_client(f"{base_url}/mcp") as unnamed:
        first = await unnamed.call_tool("get_ticket", {"ticket_id": "T-1001"})
        second = await unnamed.call_tool("get_ticket", {"ticket_id": "T-1002"})
    async with mcp_client(f"{base_url}/mcp?session=named-one") as named:
        own = await named.call_tool("get_ticket", {"ticket_id": "T-1001"})
    for result in (first, second):
        assert result.meta is not None
        note = result.meta[SHARED_SESSION_META]
        assert (note["id"], note["shared"]) == ("default", True)
        assert "?session=NAME" in note["hint"]
    assert own.meta is None or SHARED_SESSION_META not in own.meta
    said = [record for record in caplog.records if "name no session share the session" in record.getMessage()]
    assert len(said) == 1


def test_an_idle_handshake_era_connection_is_closed_and_its_session_kept() -> None:
    accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "get_ticket", "arguments": {"ticket_id": "T-1001"}},
    }
    with app_server(connection_idle_timeout=0.5) as base, httpx.Client(base_url=base, timeout=10) as http:
        opened = http.post("/mcp", json=initialize("idle"), headers=accept)
        connection = {"mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": LEGACY_VERSION}
        headers = {**accept, **connection}
        assert (
            http.post(
                "/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers
            ).status_code
            == 202
        )
        assert http.post("/mcp", json=call, headers=headers).status_code == 200
        time.sleep(2)  # idle: no request in flight (a request would start the idle time again)
        late = http.post("/mcp", json=call, headers=headers)
        kept = http.get(f"/sessions/{connection['mcp-session-id']}")
    assert late.status_code == 404
    assert kept.status_code == 200
    assert kept.json()["events"] >= 1


# --- 9: metrics labels of refused calls, and the UI's event fields ---------------------------------------------


async def test_refused_calls_are_labelled_with_their_tools_environment(base_url: str, http: httpx.AsyncClient) -> None:
    async with mcp_client(f"{base_url}/mcp?session=labels") as client:
        await client.call_tool("get_ticket", {"ticket_id": 7})  # invalid arguments
        for n in range(3):
            await client.call_tool(f"made_up_{n}", {})  # unknown tools: one series, not one per name
    text = (await http.get("/metrics")).text
    assert 'environment="tickets",outcome="invalid_arguments",tool="get_ticket"' in text
    assert 'sim_mcp_tool_calls_total{environment="(none)",outcome="unknown_tool",tool="(unknown)"}' in text
    assert "made_up_" not in text
    assert 'environment=""' not in text


def test_the_ui_shows_no_null_fields_and_marks_calls_not_applied() -> None:
    event = {
        "seq": 3, "at": 1.0, "kind": "tool_call", "environment": "tickets", "tool": "get_ticket",
        "arguments": {"ticket_id": "T-1"}, "result": "no", "is_error": True, "state_patch": [], "backend": "x",
        "latency_ms": 1.0, "tokens": {"input": 0, "output": 0, "cached": 0}, "note": None, "fault": None,
        "end": None, "failed": True,
    }  # fmt: skip
    card = event_card(event)
    assert '<span class="label">end</span>' not in card
    assert ">null<" not in card
    assert "not applied" in card
    assert '<span class="label">arguments</span>' in card
    # A call auto mode answered by falling back to a patch says so; any other shows no such field.
    assert "patch fallback" in event_card(event | {"fallback": True})
    assert "fallback" not in event_card(event | {"fallback": False})


async def test_a_session_page_shows_no_end_field(base_url: str, http: httpx.AsyncClient) -> None:
    async with mcp_client(f"{base_url}/mcp?session=ui-fields") as client:
        await client.call_tool("get_ticket", {"ticket_id": "T-1001"})
    page = (await http.get("/ui/sessions/ui-fields")).text
    assert '<span class="label">arguments</span>' in page
    assert '<span class="label">end</span>' not in page
    assert '<span class="label">failed</span>' not in page


# --- 4: a taken port, and a client gone mid-response, are one line each -------------------------------------


def test_serving_on_a_taken_port_is_one_line_naming_it(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        command = serve_command("--port", str(port), "--specs", str(BUNDLED_SPECS))
        result = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert line == (
        f"sim-mcp: error: --port / SIM_MCP_PORT: port {port} on 127.0.0.1 is already in use (another server?): "
        "stop it, or choose another with --port (0 takes any free port)"
    )


@pytest.mark.parametrize("workers", [False, True], ids=["serve", "--workers"])
async def test_connections_to_the_servers_socket_send_small_writes_at_once(workers: bool) -> None:
    """Nagle's algorithm is off on accepted connections (asyncio turns it off only for a socket that says
    TCP): with it on, each response's body waited for the client's delayed ACK of its headers, 40 ms."""
    listener = shared_port_socket("127.0.0.1", 0, listen=True) if workers else listen("127.0.0.1", 0)
    accepted: list[bool] = []
    done = asyncio.Event()

    def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        accepted.append(bool(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)))
        writer.close()
        done.set()

    server = await asyncio.start_server(connected, sock=listener)
    async with server:
        _, writer = await asyncio.open_connection("127.0.0.1", listener.getsockname()[1])
        await asyncio.wait_for(done.wait(), 10)
        writer.close()
    assert accepted == [True]


def test_serving_on_port_0_says_the_port_it_took(tmp_path: Path) -> None:
    server = ServerProcess(serve_command("--port", "0", "--specs", str(BUNDLED_SPECS)), 0, tmp_path / "zero.log")
    try:
        deadline = time.monotonic() + READY_TIMEOUT
        while "MCP endpoint" not in server.log.read_text():
            assert time.monotonic() < deadline, server.log.read_text()
            assert server.process.poll() is None, server.log.read_text()
            time.sleep(0.05)
        url = server.log.read_text().split("MCP endpoint: ", 1)[1].split()[0]
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        assert port != 0
        deadline = time.monotonic() + READY_TIMEOUT
        while True:
            try:
                assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline
                time.sleep(0.05)
    finally:
        server.stop()


def test_a_stdio_client_gone_mid_response_is_one_log_line() -> None:
    command = serve_command("--transport", "stdio", "--specs", str(BUNDLED_SPECS), "--fault-latency-ms", "500")
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdin is not None
    assert process.stdout is not None
    call = {"name": "get_ticket", "arguments": {"ticket_id": "T-1001"}}
    for message in (
        initialize("gone"),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call},
    ):
        process.stdin.write((json.dumps(message) + "\n").encode())
        process.stdin.flush()
    assert b'"id":0' in process.stdout.readline()
    process.stdout.close()  # gone before the call's answer (half a second away) is written
    time.sleep(1.5)
    process.stdin.close()
    process.wait(timeout=30)
    assert process.stderr is not None
    text = process.stderr.read().decode()
    assert "Traceback" not in text, text
    assert "BrokenPipeError" not in text, text
    assert [line for line in text.splitlines() if "broken pipe" in line] == [
        "WARNING sim_mcp: stdio: the client closed its end mid-response (broken pipe); the server stops"
    ]


def _healthz_on(sock: socket.socket, host: str) -> bytes:
    """One GET /healthz on `sock`, its whole response read (headers, then Content-Length bytes of body);
    b"" if the server closed the connection."""
    sock.sendall(f"GET /healthz HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    response = b""
    while b"\r\n\r\n" not in response:
        chunk = sock.recv(4096)
        if not chunk:
            return response
        response += chunk
    head, _, body = response.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1]) for line in head.lower().split(b"\r\n") if line.startswith(b"content-length")
    )
    while len(body) < length:
        chunk = sock.recv(4096)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


def test_an_idle_keep_alive_connection_outlasts_the_clients_pool(http_server: ServerProcess) -> None:
    """httpx (under the MCP SDK) reuses an idle connection for up to 5 s; `sim-mcp serve` keeps one open
    longer (KEEP_ALIVE_S), so a request sent on it just before the client's pool gives up is answered, not
    cut off by a close racing it (a ReadError, a lost call, seen with 100 clients on a busy machine)."""
    with socket.create_connection(("127.0.0.1", http_server.port), timeout=30) as sock:
        host = f"127.0.0.1:{http_server.port}"
        assert _healthz_on(sock, host).startswith(b"HTTP/1.1 200")
        time.sleep(5.5)  # idle past httpx's keep-alive expiry (and uvicorn's default, which closed it here)
        assert _healthz_on(sock, host).startswith(b"HTTP/1.1 200")
