"""The client side (`sim_mcp.client`): SimClient/SimSession and the sync wrapper against a real server on 127.0.0.1."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import anyio
import pytest

from sim_mcp.client import (
    ConflictError,
    Evaluation,
    InvalidRequestError,
    LocalServer,
    NotFoundError,
    ServerUnreachable,
    SessionInfo,
    SimClient,
    SimClientError,
    SimSession,
    SyncSimClient,
    ToolCallError,
    UnauthorizedError,
)
from tests.servers import REPO, ServerProcess, free_port

TASK = "tickets-close-sso"


async def test_a_task_episode_from_creation_to_reward(http_server: ServerProcess) -> None:
    async with SimClient(http_server.url) as sim:
        task = await sim.task(TASK)
        session = await sim.create_session(task=TASK, seed=7)
        assert (session.env, session.task, session.info.seed) == ("tickets", TASK, 7)
        assert session.mcp_url.endswith(f"/mcp/tickets?session={session.id}")
        assert "close_ticket" in {tool.name for tool in await session.list_tools()}
        assert task.solution
        async with session:  # one MCP connection for the calls
            for step in task.solution:
                (await session.call_tool(step.tool, step.arguments)).raise_for_error()
        evaluation = await session.evaluate()
        assert isinstance(evaluation, Evaluation)
        assert (evaluation.reward, evaluation.passed, evaluation.failed_checks) == (1.0, True, [])
        assert evaluation.judge is not None
        assert evaluation.judge.skipped
        assert session.info.reward == 1.0
        assert (await session.state())["tickets"]["T-1004"]["status"] == "closed"
        events = await session.events()
        assert [event.tool for event in events] == [step.tool for step in task.solution]
        assert [event.seq for event in await session.events(last=1)] == [2]
        (example,) = await session.trajectory("openai")
        assert [message["role"] for message in example["messages"]] == ["assistant", "tool", "assistant", "tool"]
        assert len(await session.trajectory()) == 2


async def test_seed_state_reset_snapshot_fork(http_server: ServerProcess) -> None:
    async with SimClient(http_server.url) as sim:
        session = await sim.create_session(env="tickets", seed=3, state={"tickets": {"T-1001": {"status": "pending"}}})
        assert (await session.state())["tickets"]["T-1001"]["status"] == "pending"
        await session.call_tool("close_ticket", {"ticket_id": "T-1001", "resolution": "done"})
        await session.snapshot("closed")
        state = await session.reset()
        assert state["tickets"]["T-1001"]["status"] == "pending"
        assert session.info.events == 0
        assert session.info.snapshots == ["closed"]
        assert (await session.reset(snapshot="closed"))["tickets"]["T-1001"]["status"] == "closed"
        fork = await session.fork()
        await fork.reset()
        assert (await fork.state())["tickets"]["T-1001"]["status"] == "pending"
        assert (await session.state())["tickets"]["T-1001"]["status"] == "closed"
        assert fork.info.forked_from == session.id
        assert {session.id, fork.id} <= {info.id for info in await sim.sessions()}
        assert (await sim.session(fork.id)).id == fork.id
        await fork.delete()
        with pytest.raises(NotFoundError, match=fork.id):
            await fork.state()


async def test_tool_errors_are_results_until_raised(http_server: ServerProcess) -> None:
    async with SimClient(http_server.url) as sim:
        session = await sim.create_session(env="tickets")
        bad = await session.call_tool("get_ticket", {"ticket_id": 5})
        assert bad.is_error
        assert "arguments.ticket_id" in bad.text
        missing = await session.call_tool("get_ticket", {"ticket_id": "T-9999"})
        assert missing.is_error
        assert missing.value == "Ticket T-9999 not found."  # tickets.rules.star's message
        with pytest.raises(ToolCallError, match="Ticket T-9999 not found"):
            missing.raise_for_error()
        unknown = await session.call_tool("no_such_tool")
        assert unknown.is_error
        assert "expected one of" in unknown.text
        found = await session.call_tool("get_ticket", {"ticket_id": "T-1001"})
        assert found.structured is not None
        assert found.value["id"] == "T-1001"


async def test_errors_say_what_is_wrong(http_server: ServerProcess) -> None:
    async with SimClient(http_server.url) as sim:
        with pytest.raises(InvalidRequestError, match=r"unknown environment 'nope'.*tickets") as unknown_env:
            await sim.create_session(env="nope")
        assert (unknown_env.value.status, unknown_env.value.field) == (422, "env")
        with pytest.raises(InvalidRequestError, match=r"unknown task 'nope'.*tickets-close-sso"):
            await sim.create_session(task="nope")
        with pytest.raises(NotFoundError, match="no session with id 'missing'"):
            await sim.session("missing")
        with pytest.raises(NotFoundError):
            await sim.task("nope")
        taken = await sim.create_session(env="bank")
        with pytest.raises(ConflictError):
            await sim.create_session(env="bank", id=taken.id)


async def test_an_unreachable_server_is_named() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    async with SimClient(url) as sim:
        with pytest.raises(ServerUnreachable, match=rf"cannot reach a sim-mcp server at {url}.*sim-mcp serve"):
            await sim.tasks()
    async with SimClient(url) as sim:
        session = SimSession(sim, SessionInfo(id="x", mcp_url=f"{url}/mcp?session=x"))
        with pytest.raises(ServerUnreachable, match="/mcp"):
            await session.call_tool("get_ticket", {"ticket_id": "T-1001"})


async def test_the_simulated_user_answers(http_server: ServerProcess) -> None:
    async with SimClient(http_server.url) as sim:
        session = await sim.create_session(task=TASK)
        reply = await session.say("Hi, how can I help?")
        assert reply.turn == 1
        assert "SSO" in reply.message
        assert not reply.done
        assert [event.kind for event in await session.events()] == ["agent_message", "user_message"]


def test_the_sync_wrapper_does_the_same(http_server: ServerProcess) -> None:
    with SyncSimClient(http_server.url) as sim:
        assert sim.health()["status"] == "ok"
        assert TASK in {task.name for task in sim.tasks()}
        solution = sim.task(TASK).solution or []
        session = sim.create_session(task=TASK)
        with session:
            for step in solution:
                assert not session.call_tool(step.tool, step.arguments).is_error
        assert session.evaluate().reward == 1.0
        fork = session.fork()
        assert fork.reset()["tickets"]["T-1004"]["status"] == "open"
        assert fork.evaluate().reward < 1.0
        assert len(session.list_tools()) > 0
        assert len(session.events()) == 2
    with pytest.raises(SimClientError, match="closed"):
        sim.tasks()


async def test_calls_in_parallel_sessions_stay_apart(http_server: ServerProcess) -> None:
    async with SimClient(http_server.url) as sim:
        sessions = [await sim.create_session(env="tickets") for _ in range(4)]

        async def close(n: int) -> None:
            await sessions[n].call_tool("close_ticket", {"ticket_id": f"T-100{n + 1}", "resolution": "x"})

        async with anyio.create_task_group() as group:
            for n in range(4):
                group.start_soon(close, n)
        for n, session in enumerate(sessions):
            tickets = (await session.state())["tickets"]
            closed = {ticket_id for ticket_id, ticket in tickets.items() if ticket["status"] == "closed"}
            assert f"T-100{n + 1}" in closed
            assert len(closed - {f"T-100{n + 1}"}) <= 1


def test_local_server_with_a_token() -> None:
    with LocalServer("--token", "s3cret") as server:
        with SyncSimClient(server.url) as anonymous, pytest.raises(UnauthorizedError, match="token"):
            anonymous.tasks()
        with SyncSimClient(server.url, token="s3cret") as sim:
            session = sim.create_session(env="tickets")
            assert session.call_tool("get_ticket", {"ticket_id": "T-1001"}).value["id"] == "T-1001"


def test_local_server_that_cannot_start_says_why() -> None:
    with pytest.raises(SimClientError, match=r"did not start.*--backend"):
        LocalServer("--backend", "no-such-backend").start()


def _doc_block(marker: str) -> str:
    text = (REPO / "docs" / "integrations.md").read_text()
    blocks: list[str] = [code for code in re.findall(r"```python\n(.*?)```", text, re.S) if marker in code]
    (block,) = blocks
    return block


@pytest.mark.parametrize("marker", ["anyio.run(main)", "LocalServer(", 'gym.make("sim_mcp/SimMcp-v0"'])
def test_the_docs_examples_run_as_written(marker: str, http_server: ServerProcess) -> None:
    if marker.startswith("gym"):
        pytest.importorskip("gymnasium")
    script = _doc_block(marker).replace("http://127.0.0.1:8765", http_server.url)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    command = [sys.executable, "-c", script]
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
