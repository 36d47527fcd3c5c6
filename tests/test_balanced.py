"""Replicas behind a load balancer, as compose.yaml and docs/deploy.md set them up, outside Docker: two
`sim-mcp serve` processes on one `redis-server`, Debian's `nginx` in front with the shipped
deploy/nginx.conf (round robin, so consecutive requests go to different replicas), and SDK clients
through nginx. nginx's access log says which replica served each
request; the session's state and event log say that every call was applied exactly once.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp.client import Client

from sim_mcp.client._server import stop_process
from tests.helpers_server import RedisServer
from tests.servers import (
    BUNDLED_SPECS,
    READY_TIMEOUT,
    REPO,
    ServerProcess,
    free_port,
    serve_command,
    wait_healthy,
)

pytest_plugins = ["tests.fixtures_redis"]

INITIAL_TICKETS = 5
SHIPPED_CONF = REPO / "deploy" / "nginx.conf"  # what compose.yaml mounts into the nginx image
# The nginx image's main configuration, here: one foreground process, files under the test's folder, and an
# access log that names the replica (upstream) of each request. The shipped file sits in its `http` block.
NGINX_MAIN = """\
daemon off;
master_process off;
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 512; }}
http {{
    log_format replicas '$request_method $request_uri $upstream_addr $status';
    access_log {prefix}/access.log replicas;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    include {prefix}/sim-mcp.conf;
}}
"""


def local_site(port: int, upstreams: list[int]) -> str:
    """The shipped deploy/nginx.conf, its compose service name replaced by local replicas, on `port`."""
    text = SHIPPED_CONF.read_text()
    servers = "\n".join(f"    server 127.0.0.1:{upstream};" for upstream in upstreams)
    assert "    server sim:8765;" in text
    assert "    listen 8765;" in text
    return text.replace("    server sim:8765;", servers).replace("    listen 8765;", f"    listen 127.0.0.1:{port};")


def nginx_binary() -> str:
    """Debian's nginx; skip without it, except under CI (CI=true), where .ci/run must have installed it."""
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if found is None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("nginx is not installed, and CI is set: .ci/run must install it (apt nginx)")
        pytest.skip("nginx is not installed (apt-get install nginx)")
    return found


class Nginx:
    """nginx in the foreground, one process, in `prefix`: the shipped configuration over `upstreams`."""

    def __init__(self, binary: str, prefix: Path, upstreams: list[int]) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.prefix = prefix
        prefix.mkdir(parents=True, exist_ok=True)
        (prefix / "sim-mcp.conf").write_text(local_site(self.port, upstreams))
        conf = prefix / "nginx.conf"
        conf.write_text(NGINX_MAIN.format(prefix=prefix))
        command = [binary, "-p", str(prefix), "-c", str(conf), "-e", str(prefix / "error.log")]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        wait_healthy(self.process, self.url, READY_TIMEOUT, self.errors, "nginx")

    def errors(self) -> str:
        log = self.prefix / "error.log"
        return log.read_text() if log.exists() else ""

    def served(self, session: str) -> list[str]:
        """The replica (upstream address) of each POST for `session`, in the order nginx logged them."""
        lines = (self.prefix / "access.log").read_text().splitlines()
        return [line.split()[2] for line in lines if line.startswith("POST ") and f"session={session}" in line]

    def stop(self) -> None:
        stop_process(self.process)


@pytest.fixture
def balanced(redis_server: RedisServer, tmp_path: Path) -> Iterator[Nginx]:
    binary = nginx_binary()
    redis_server.flush()
    # Replicas keep no handshake state (any replica may get any request): sessions are named in the URL.
    env = {**os.environ, "SIM_MCP_STORE": redis_server.url, "SIM_MCP_STATELESS_HTTP": "true"}
    replicas: list[ServerProcess] = []
    nginx: Nginx | None = None
    try:
        for n in range(2):
            port = free_port()
            command = serve_command("--transport", "http", "--host", "127.0.0.1", "--port", str(port))
            command += ["--specs", str(BUNDLED_SPECS), "--log-level", "WARNING"]
            replicas.append(ServerProcess(command, port, tmp_path / f"replica-{n}.log", env=env))
        for replica in replicas:
            replica.wait_ready()
        nginx = Nginx(binary, tmp_path / "nginx", [replica.port for replica in replicas])
        yield nginx
    finally:
        if nginx is not None:
            nginx.stop()
        for replica in replicas:
            replica.stop()


async def session_record(base_url: str, session: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    async with httpx.AsyncClient(base_url=base_url) as http:
        record = (await http.get(f"/sessions/{session}")).json()
        events = (await http.get(f"/sessions/{session}/events")).json()
    return record["state"]["tickets"], events["events"] if isinstance(events, dict) else events


def arguments(title: str) -> dict[str, str]:
    return {"title": title, "description": "through the balancer", "customer_email": "lb@example.com"}


@pytest.mark.parametrize("mode", ["legacy", "modern"])
async def test_consecutive_calls_of_one_session_land_on_different_replicas(balanced: Nginx, mode: str) -> None:
    session = f"lb-{mode}-{uuid.uuid4().hex[:8]}"
    titles = [f"{session} call {k}" for k in range(12)]
    url = f"{balanced.url}/mcp/tickets?session={session}"
    async with Client(url, mode="legacy" if mode == "legacy" else "auto") as client:
        for title in titles:
            result = await client.call_tool("create_ticket", arguments(title))
            assert not result.is_error, result
        # Each call reads what the one before it wrote, whichever replica served that one.
        listed = await client.call_tool("list_tickets", {"customer_email": "lb@example.com"})
        assert not listed.is_error
    replicas = balanced.served(session)
    assert len(set(replicas)) == 2, replicas
    assert any(a != b for a, b in itertools.pairwise(replicas)), replicas
    tickets, events = await session_record(balanced.url, session)
    made = [t["title"] for t in tickets.values() if t["title"].startswith(session)]
    assert sorted(made) == sorted(titles)
    assert len(tickets) == INITIAL_TICKETS + len(titles)
    assert [e["seq"] for e in events] == list(range(1, len(titles) + 2))
    assert [e["arguments"].get("title") for e in events[: len(titles)]] == titles


async def test_concurrent_calls_of_one_session_through_the_balancer_apply_once(balanced: Nginx) -> None:
    session = f"lb-many-{uuid.uuid4().hex[:8]}"
    clients, calls_each = 8, 5
    titles: list[str] = []

    async def client(n: int) -> None:
        async with Client(f"{balanced.url}/mcp/tickets?session={session}") as mcp:
            for k in range(calls_each):
                title = f"{session} client {n} call {k}"
                result = await mcp.call_tool("create_ticket", arguments(title))
                assert not result.is_error, result
                titles.append(title)

    with anyio.fail_after(READY_TIMEOUT):
        async with anyio.create_task_group() as tasks:
            for n in range(clients):
                tasks.start_soon(client, n)
    assert len(set(balanced.served(session))) == 2
    tickets, events = await session_record(balanced.url, session)
    made = sorted(t["title"] for t in tickets.values() if t["title"].startswith(session))
    assert made == sorted(titles)
    assert len(made) == clients * calls_each
    ids = [t["id"] for t in tickets.values()]
    assert len(ids) == len(set(ids)) == INITIAL_TICKETS + clients * calls_each
    assert [e["seq"] for e in events] == list(range(1, clients * calls_each + 1))
