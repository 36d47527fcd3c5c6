"""The session control API over real HTTP, with SDK MCP clients driving the same sessions in both eras."""

from __future__ import annotations

from typing import Any

import anyio
import httpx
import pytest

from sim_mcp.config import Settings
from sim_mcp.runtime import Runtime
from tests.helpers_server import ERAS, NEW_TICKET, app_server, mcp_client, ticket
from tests.servers import BUNDLED_SPECS, READY_TIMEOUT, REPO

INITIAL_TICKETS = {"T-1001", "T-1002", "T-1003", "T-1004", "T-1005"}


async def create(http: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    response = await http.post("/sessions", json=body)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


async def state(http: httpx.AsyncClient, session_id: str) -> Any:
    response = await http.get(f"/sessions/{session_id}")
    assert response.status_code == 200, response.text
    return response.json()["state"]


async def new_ticket(url: str, mode: str, n: int = 0) -> str:
    async with mcp_client(url, mode) as client:
        result = await client.call_tool("create_ticket", ticket(n))
    assert not result.is_error, result.content
    assert result.structured_content is not None
    ticket_id: str = result.structured_content["id"]
    return ticket_id


@pytest.mark.parametrize("mode", ERAS)
async def test_create_drive_and_inspect(http: httpx.AsyncClient, base_url: str, mode: str) -> None:
    created = await create(http, env="tickets", seed=7)
    session_id = created["id"]
    assert created["mcp_url"] == f"{base_url}/mcp/tickets?session={session_id}"
    assert created["env"] == "tickets"
    assert created["seed"] == 7
    assert created["events"] == 0
    assert len(session_id) >= 20  # generated ids are unguessable

    async with mcp_client(created["mcp_url"], mode) as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        assert "create_ticket" in tools
        assert "get_account" not in tools  # bound to tickets
        made = await client.call_tool("create_ticket", NEW_TICKET)
        assert made.structured_content is not None
        ticket_id = made.structured_content["id"]
        fetched = await client.call_tool("get_ticket", {"ticket_id": ticket_id})
        assert fetched.structured_content == made.structured_content

    session = (await http.get(f"/sessions/{session_id}")).json()
    assert session["events"] == 2
    assert session["last_used_at"] >= session["created_at"]
    assert session["state"]["tickets"][ticket_id]["title"] == NEW_TICKET["title"]
    events = (await http.get(f"/sessions/{session_id}/events")).json()
    assert events["count"] == 2
    assert [(e["seq"], e["tool"]) for e in events["events"]] == [(1, "create_ticket"), (2, "get_ticket")]
    assert (await http.get(f"/sessions/{session_id}/events", params={"last": 1})).json()["events"][0]["seq"] == 2

    listed = (await http.get("/sessions")).json()
    mine = next(s for s in listed["sessions"] if s["id"] == session_id)
    assert mine["events"] == 2
    assert mine["env"] == "tickets"
    assert listed["count"] == len(listed["sessions"])


async def test_sessions_opened_by_mcp_clients_are_listed_and_controllable(
    http: httpx.AsyncClient, base_url: str
) -> None:
    url = f"{base_url}/mcp?session=implicit-one"
    ticket_id = await new_ticket(url, "auto")
    session = (await http.get("/sessions/implicit-one")).json()
    assert session["env"] is None
    assert ticket_id in session["state"]["tickets"]["tickets"]  # unbound: keyed by environment
    assert session["mcp_url"] == url
    assert (await http.post("/sessions/implicit-one/reset")).status_code == 200
    assert (await http.get("/sessions/implicit-one")).json()["state"] == {}
    assert (await http.delete("/sessions/implicit-one")).status_code == 204


async def test_creation_state_merges_or_replaces(http: httpx.AsyncClient, base_url: str) -> None:
    extra = {"id": "T-2000", "title": "Seeded", "status": "open"}
    merged = await create(http, env="tickets", state={"tickets": {"T-2000": extra, "T-1001": None}})
    tickets = (await state(http, merged["id"]))["tickets"]
    assert set(tickets) == (INITIAL_TICKETS - {"T-1001"}) | {"T-2000"}  # null deletes (RFC 7386)

    replaced = await create(http, env="tickets", state={"tickets": {"T-2000": extra}}, state_mode="replace")
    assert await state(http, replaced["id"]) == {"tickets": {"T-2000": extra}}

    # Unbound sessions take state keyed by environment.
    unbound = await create(http, state={"tickets": {"tickets": {"T-2000": extra}}})
    assert set((await state(http, unbound["id"]))["tickets"]["tickets"]) == INITIAL_TICKETS | {"T-2000"}

    # The simulator works from the creation state, and reset returns to it.
    ticket_id = await new_ticket(merged["mcp_url"], "auto")
    assert ticket_id == "T-2001"
    await http.post(f"/sessions/{merged['id']}/reset")
    assert set((await state(http, merged["id"]))["tickets"]) == (INITIAL_TICKETS - {"T-1001"}) | {"T-2000"}


@pytest.mark.parametrize("mode", ERAS)
async def test_snapshot_and_reset(http: httpx.AsyncClient, mode: str) -> None:
    created = await create(http, env="tickets")
    session_id, url = created["id"], created["mcp_url"]
    first = await new_ticket(url, mode, 1)
    snap = await http.post(f"/sessions/{session_id}/snapshots", json={"name": "one"})
    assert snap.status_code == 201
    assert snap.json()["snapshots"] == ["one"]
    second = await new_ticket(url, mode, 2)

    restored = await http.post(f"/sessions/{session_id}/reset", json={"snapshot": "one"})
    assert restored.status_code == 200
    assert restored.json()["events"] == 1
    assert set(restored.json()["state"]["tickets"]) == INITIAL_TICKETS | {first}
    assert second not in restored.json()["state"]["tickets"]
    # The log is the snapshot's, and the next call continues it.
    third = await new_ticket(url, mode, 3)
    assert third == second  # the same next id, as the world is back to where it was
    events = (await http.get(f"/sessions/{session_id}/events")).json()["events"]
    assert [e["seq"] for e in events] == [1, 2]

    reset = (await http.post(f"/sessions/{session_id}/reset")).json()
    assert reset["events"] == 0
    assert set(reset["state"]["tickets"]) == INITIAL_TICKETS
    assert reset["snapshots"] == ["one"]  # snapshots survive a reset
    assert (await http.get(f"/sessions/{session_id}/events")).json()["events"] == []
    # A snapshot still restores after the log it was taken from was cleared.
    again = (await http.post(f"/sessions/{session_id}/reset", json={"snapshot": "one"})).json()
    assert again["events"] == 1
    assert first in again["state"]["tickets"]


@pytest.mark.parametrize("mode", ERAS)
async def test_a_fork_lives_on_its_own(http: httpx.AsyncClient, base_url: str, mode: str) -> None:
    parent = await create(http, env="tickets")
    shared = await new_ticket(parent["mcp_url"], mode, 1)
    await http.post(f"/sessions/{parent['id']}/snapshots", json={"name": "base"})

    response = await http.post(f"/sessions/{parent['id']}/fork")
    assert response.status_code == 201
    fork = response.json()
    assert fork["id"] != parent["id"]
    assert fork["mcp_url"] == f"{base_url}/mcp/tickets?session={fork['id']}"
    assert fork["forked_from"] == parent["id"]
    assert fork["events"] == 1
    assert fork["snapshots"] == ["base"]

    in_fork = await new_ticket(fork["mcp_url"], mode, 2)
    in_parent = await new_ticket(parent["mcp_url"], mode, 3)
    assert in_fork == in_parent  # both worlds moved on from the same point, separately
    parent_state = (await http.get(f"/sessions/{parent['id']}")).json()
    fork_state = (await http.get(f"/sessions/{fork['id']}")).json()
    assert parent_state["events"] == fork_state["events"] == 2
    assert parent_state["state"]["tickets"][in_parent]["title"] == "Issue 3"
    assert fork_state["state"]["tickets"][in_fork]["title"] == "Issue 2"
    assert shared in fork_state["state"]["tickets"]

    # Deleting or resetting the fork leaves the parent alone.
    await http.post(f"/sessions/{fork['id']}/reset")
    assert (await http.delete(f"/sessions/{fork['id']}")).status_code == 204
    assert (await http.get(f"/sessions/{parent['id']}")).json()["events"] == 2

    named = await http.post(f"/sessions/{parent['id']}/fork", json={"id": "my-fork"})
    assert named.json()["id"] == "my-fork"


async def test_the_mcp_url_has_the_one_form_the_docs_give(http: httpx.AsyncClient, base_url: str) -> None:
    """`/mcp/{env}?session=ID` for a session bound to an environment, `/mcp?session=ID` for one bound to
    none: what the server answers, and what the README and docs/control-api.md say it answers."""
    bound = (await http.post("/sessions", json={"env": "tickets"})).json()
    assert bound["mcp_url"] == f"{base_url}/mcp/tickets?session={bound['id']}"
    tasked = (await http.post("/sessions", json={"task": "bank-rename-savings"})).json()
    assert tasked["mcp_url"] == f"{base_url}/mcp/bank?session={tasked['id']}"
    unbound = (await http.post("/sessions", json={})).json()
    assert unbound["mcp_url"] == f"{base_url}/mcp?session={unbound['id']}"
    readme = (REPO / "README.md").read_text()
    (row,) = [line for line in readme.splitlines() if line.startswith("| a session created by `POST /sessions`")]
    assert "`/mcp/{env}?session=ID` (`/mcp?session=ID` for a session bound to no environment)" in row
    control = " ".join((REPO / "docs" / "control-api.md").read_text().split())
    assert "`{base}/mcp/{env}?session=ID` for a session bound to an environment" in control
    assert "`{base}/mcp?session=ID` for one bound to none" in control


async def test_delete(http: httpx.AsyncClient) -> None:
    created = await create(http)
    assert (await http.delete(f"/sessions/{created['id']}")).status_code == 204
    assert (await http.get(f"/sessions/{created['id']}")).status_code == 404
    assert (await http.delete(f"/sessions/{created['id']}")).status_code == 404


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/sessions/nope"), ("GET", "/sessions/nope/events"), ("POST", "/sessions/nope/reset"),
     ("POST", "/sessions/nope/fork"), ("DELETE", "/sessions/nope")],
)  # fmt: skip
async def test_unknown_ids_are_404(http: httpx.AsyncClient, method: str, path: str) -> None:
    response = await http.request(method, path)
    assert response.status_code == 404
    assert response.json() == {"error": "no session with id 'nope'", "id": "nope"}
    snapshot = await http.post("/sessions/nope/snapshots", json={"name": "x"})
    assert snapshot.status_code == 404


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/sessions", {"seed": "seven"}, "seed"),
        ("/sessions", {"env": "nope"}, "env"),
        ("/sessions", {"env": 3}, "env"),
        ("/sessions", {"bogus": 1}, "bogus"),
        ("/sessions", {"state_mode": "patch"}, "state_mode"),
        ("/sessions", {"id": "has space"}, "id"),
        ("/sessions", {"env": "tickets", "state": [1]}, "state"),
        ("/sessions", {"state": {"nope": {}}}, "state.nope"),
        ("/sessions", {"state": [1]}, "state"),
        ("/sessions", {"env": "tickets", "state": {"x": "y" * 2_000_000}}, "state"),
        ("/sessions/{id}/snapshots", {}, "name"),
        ("/sessions/{id}/snapshots", {"name": ""}, "name"),
        ("/sessions/{id}/reset", {"snapshot": "missing"}, "snapshot"),
        ("/sessions/{id}/fork", {"id": "a/b"}, "id"),
    ],
)
async def test_bad_bodies_are_422_naming_the_field(
    http: httpx.AsyncClient, path: str, body: dict[str, Any], field: str
) -> None:
    created = await create(http, env="tickets")
    response = await http.post(path.format(id=created["id"]), json=body)
    assert response.status_code == 422, response.text
    assert response.json()["field"] == field
    assert response.json()["error"].startswith(f"{field}: ")


async def test_malformed_requests_are_422(http: httpx.AsyncClient) -> None:
    not_json = await http.post("/sessions", content=b"{nope", headers={"content-type": "application/json"})
    assert not_json.status_code == 422
    assert "invalid JSON" in not_json.json()["error"]
    not_object = await http.post("/sessions", json=[1, 2])
    assert not_object.status_code == 422
    created = await create(http)
    bad_last = await http.get(f"/sessions/{created['id']}/events", params={"last": "many"})
    assert bad_last.status_code == 422
    assert bad_last.json()["field"] == "last"


async def test_taken_ids_are_409(http: httpx.AsyncClient) -> None:
    await create(http, id="taken-id")
    response = await http.post("/sessions", json={"id": "taken-id"})
    assert response.status_code == 409
    assert "already exists" in response.json()["error"]


async def test_session_cap_is_429_over_http_and_an_error_result_over_mcp() -> None:
    with app_server(max_sessions=2) as base:
        async with httpx.AsyncClient(base_url=base) as http:
            first = await create(http, env="tickets")
            await create(http)
            response = await http.post("/sessions", json={})
            assert response.status_code == 429
            assert "--max-sessions / SIM_MCP_MAX_SESSIONS" in response.json()["error"]
            assert (await http.post(f"/sessions/{first['id']}/fork")).status_code == 429
            async with mcp_client(f"{base}/mcp?session=one-too-many") as client:
                result = await client.call_tool("create_ticket", NEW_TICKET)
            assert result.is_error
            assert "maximum of 2 sessions" in result.content[0].text  # type: ignore[union-attr]
            # Existing sessions still work.
            assert await new_ticket(first["mcp_url"], "auto")


@pytest.mark.parametrize("mode", ERAS)
async def test_bearer_token_guards_mcp_and_control_but_not_health(mode: str) -> None:
    with app_server(token="s3cret") as base:
        async with httpx.AsyncClient(base_url=base) as http:
            assert (await http.get("/healthz")).status_code == 200
            for path in ("/sessions", "/mcp", "/mcp/tickets"):
                missing = await http.post(path, json={})
                assert missing.status_code == 401, path
                assert missing.headers["www-authenticate"].startswith("Bearer")
                assert "missing bearer token" in missing.json()["error"]
                wrong = await http.post(path, json={}, headers={"Authorization": "Bearer s3cre7"})
                assert wrong.status_code == 401
                assert 'error="invalid_token"' in wrong.headers["www-authenticate"]
            ok = await http.post("/sessions", json={"env": "tickets"}, headers={"Authorization": "Bearer s3cret"})
            assert ok.status_code == 201
        async with mcp_client(ok.json()["mcp_url"], mode, token="s3cret") as client:
            made = await client.call_tool("create_ticket", NEW_TICKET)
            assert not made.is_error
        with pytest.raises(Exception):  # noqa: B017, PT011 - the SDK surfaces the 401 as its own error type
            async with mcp_client(ok.json()["mcp_url"], mode, token="wrong") as client:
                await client.call_tool("create_ticket", NEW_TICKET)


async def test_idle_sessions_expire() -> None:
    with app_server(session_ttl=0.3) as base:
        async with httpx.AsyncClient(base_url=base) as http:
            created = await create(http, env="tickets")
            with anyio.fail_after(READY_TIMEOUT):
                while (await http.get(f"/sessions/{created['id']}")).status_code != 404:  # noqa: ASYNC110
                    await anyio.sleep(0.05)


async def test_expiry_follows_last_use() -> None:
    async with Runtime(Settings(specs=[BUNDLED_SPECS])) as runtime:
        sessions, store = runtime.sessions, runtime.store
        idle = await sessions.create(env="tickets")
        used = await sessions.create(env="tickets")
        # Both were created 1000s ago; only `used` has had a call since.
        for record in (idle, used):
            await store.put(record.model_copy(update={"updated_at": record.updated_at - 1000}))
        await runtime.simulator.call(used.id, "create_ticket", NEW_TICKET)
        assert await sessions.expire_idle(2000) == []
        assert await sessions.expire_idle(60) == [idle.id]
        assert [record.id for record in await sessions.list()] == [used.id]
