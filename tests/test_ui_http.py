"""The web UI over plain HTTP: pages, escaping, the diff endpoint, the live event stream and its feed,
the token cookie; and the state diff it shows. (The same pages in a real browser: `test_ui.py`.)"""

from __future__ import annotations

import json
import re
import shutil
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from sim_mcp.errors import TooManyWatchers
from sim_mcp.server.live import LiveFeed
from sim_mcp.state.diff import changes, diff_lines, rebuild
from sim_mcp.state.values import json_equal
from tests.helpers_server import NEW_TICKET, app_server, mcp_client
from tests.servers import BUNDLED_SPECS

TOKEN = "ui-test-token"
SCRIPT_TITLE = "<script>document.title='pwned'</script><img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def token_url() -> Iterator[str]:
    with app_server(token=TOKEN) as url:
        yield url


async def call(base_url: str, session: str, tool: str, arguments: dict[str, Any], env: str = "tickets") -> None:
    async with mcp_client(f"{base_url}/mcp/{env}?session={session}") as client:
        await client.call_tool(tool, arguments)


# ---------------------------------------------------------------------------------------------------- pages


async def test_pages_render_with_a_strict_content_security_policy(http: httpx.AsyncClient, base_url: str) -> None:
    await call(base_url, "page-1", "create_ticket", NEW_TICKET)
    for path in ("/ui", "/ui/sessions/page-1", "/ui/sessions/page-1?event=1", "/ui/environments"):
        response = await http.get(path)
        assert response.status_code == 200, path
        assert response.headers["content-type"].startswith("text/html")
        policy = response.headers["content-security-policy"]
        assert "script-src 'self'" in policy
        assert "default-src 'none'" in policy
        assert "unsafe-inline" not in policy
        assert response.headers["x-content-type-options"] == "nosniff"
        # No inline script anywhere: only our own file.
        assert re.findall(r"<script[^>]*>", response.text) == [
            re.search(r'<script src="/ui/static/app\.js\?v=[0-9a-f]+" defer>', response.text).group(0)  # type: ignore[union-attr]
        ]
    listing = (await http.get("/ui")).text
    assert 'data-id="page-1"' in listing
    assert "/ui/sessions/page-1" in listing


async def test_tool_results_are_escaped(http: httpx.AsyncClient, base_url: str) -> None:
    await call(base_url, "escape-1", "create_ticket", {**NEW_TICKET, "title": SCRIPT_TITLE})
    for path in ("/ui/sessions/escape-1", "/ui/sessions/escape-1?event=1"):
        text = (await http.get(path)).text
        assert "<script>document" not in text
        assert "<img src=x" not in text
        assert "&lt;script&gt;document.title=&#x27;pwned&#x27;&lt;/script&gt;" in text


async def test_a_session_page_shows_its_timeline_and_the_selected_diff(http: httpx.AsyncClient, base_url: str) -> None:
    await call(base_url, "timeline-1", "close_ticket", {"ticket_id": "T-1001", "resolution": "Fixed"})
    await call(base_url, "timeline-1", "get_ticket", {"ticket_id": "T-9999"})
    text = (await http.get("/ui/sessions/timeline-1")).text
    assert 'id="event-1"' in text
    assert 'id="event-2"' in text
    assert 'class="event kind-tool_call error"' in text  # the failed get_ticket
    assert "Select an event" in text
    for fmt in ("events", "openai"):
        assert f'href="/sessions/timeline-1/trajectory?format={fmt}"' in text
    selected = (await http.get("/ui/sessions/timeline-1?event=1")).text
    assert 'data-selected="1"' in selected
    assert '<code class="path">/tickets/T-1001/status</code>' in selected
    new_line = '<span class="line line-new" data-path="/tickets/T-1001/status">      &quot;status&quot;: &quot;closed'
    assert new_line in selected


async def test_a_session_named_on_mcp_shows_its_environment_and_no_empty_fields(
    http: httpx.AsyncClient, base_url: str
) -> None:
    """`/mcp?session=NAME` binds no environment: the page names the one its calls went to, as unbound; an
    event's empty fields (no rejected answers) are left out, its arguments and result never."""
    async with mcp_client(f"{base_url}/mcp?session=named-unbound") as client:
        await client.call_tool("close_ticket", {"ticket_id": "T-1001", "resolution": "Fixed"})
    page = (await http.get("/ui/sessions/named-unbound")).text
    assert 'tickets <span class="sub">(unbound)</span>' in page
    summary = (await http.get("/sessions/named-unbound")).json()
    assert (summary["env"], summary["worlds"]) == (None, ["tickets"])
    listed = (await http.get("/ui")).text
    assert 'data-label="Environment">tickets <span class="sub">(unbound)</span>' in listed
    body = page.split('id="event-1"', 1)[1].split("</li>", 1)[0]
    labels = re.findall(r'<span class="label">([^<]+)</span>', body)
    assert "arguments" in labels
    assert "result" in labels
    assert "rejected_answers" not in labels
    assert "rejected" not in labels
    # A session that holds no state yet is just unbound.
    await http.post("/sessions", json={"id": "empty-unbound"})
    empty = (await http.get("/ui/sessions/empty-unbound")).text
    assert '<span class="sub">(unbound)</span>' in empty
    assert 'tickets <span class="sub">(unbound)</span>' not in empty


async def test_unknown_sessions_and_events(http: httpx.AsyncClient, base_url: str) -> None:
    assert (await http.get("/ui/sessions/nobody-here")).status_code == 404
    await call(base_url, "known-1", "create_ticket", NEW_TICKET)
    missing = await http.get("/ui/api/sessions/known-1/diff", params={"seq": 7})
    assert missing.status_code == 404
    assert missing.json()["seq"] == 7
    bad = await http.get("/ui/api/sessions/known-1/diff", params={"seq": "x"})
    assert bad.status_code == 422
    assert bad.json()["field"] == "seq"
    assert (await http.get("/ui/api/sessions/nobody/diff", params={"seq": 1})).status_code == 404


async def test_the_diff_endpoint_rebuilds_states_from_the_log(http: httpx.AsyncClient, base_url: str) -> None:
    await http.post("/sessions", json={"id": "diff-api", "env": "tickets", "state": {"tickets": {"T-1002": None}}})
    await call(base_url, "diff-api", "create_ticket", NEW_TICKET)
    await call(base_url, "diff-api", "close_ticket", {"ticket_id": "T-1001", "resolution": "Done"})
    await call(base_url, "diff-api", "get_ticket", {"ticket_id": "T-1002"})  # removed at creation: an error
    first = (await http.get("/ui/api/sessions/diff-api/diff", params={"seq": 1})).json()
    assert first["tool"] == "create_ticket"
    assert first["environment"] == "tickets"
    assert [(c["kind"], c["path"]) for c in first["changes"]] == [("added", "/tickets/T-1006")]
    assert first["warning"] is None
    assert first["error"] is None
    assert {line["mark"] for line in first["lines"]} == {"same", "added"}
    second = (await http.get("/ui/api/sessions/diff-api/diff", params={"seq": 2})).json()
    kinds = {c["path"]: (c["kind"], c["before"], c["after"]) for c in second["changes"]}
    assert kinds["/tickets/T-1001/status"] == ("changed", '"open"', '"closed"')
    assert second["warning"] is None  # rebuilt from the creation state, it matches the stored state
    third = (await http.get("/ui/api/sessions/diff-api/diff", params={"seq": 3})).json()
    assert third["changes"] == []
    assert third["patch"] is None


async def test_the_environments_page_lists_tools_and_load_errors(tmp_path: Path) -> None:
    shutil.copy(BUNDLED_SPECS / "tickets.yaml", tmp_path / "tickets.yaml")
    (tmp_path / "broken.yaml").write_text("name: broken\ntools:\n  - name: x\n    input_schema: {type: string}\n")
    with app_server(specs=[tmp_path], watch=False) as url:
        async with httpx.AsyncClient(base_url=url) as client:
            text = (await client.get("/ui/environments")).text
    assert 'id="env-tickets"' in text
    assert "<code>create_ticket</code>" in text
    assert "Input schema" in text
    assert "Output schema" in text
    assert "Initial state" in text
    assert 'id="load-errors"' in text
    assert "broken.yaml" in text
    assert "tools[0].input_schema" in text


async def test_static_files_are_served(http: httpx.AsyncClient) -> None:
    script = await http.get("/ui/static/app.js")
    assert script.status_code == 200
    assert "javascript" in script.headers["content-type"]
    assert script.headers["x-content-type-options"] == "nosniff"
    assert "innerHTML" not in script.text
    assert "eval(" not in script.text
    style = await http.get("/ui/static/style.css")
    assert style.status_code == 200
    assert style.headers["content-type"].startswith("text/css")


# ---------------------------------------------------------------------------------------------------- live


async def next_event(lines: AsyncIterator[str], kind: str, session: str | None = None) -> dict[str, Any]:
    """The next server-sent event of `kind` (about `session`, when given), within 10 s."""
    name, data = "message", ""
    with anyio.fail_after(10):
        async for line in lines:
            if line.startswith("event:"):
                name = line.partition(":")[2].strip()
            elif line.startswith("data:"):
                data += line.partition(":")[2].strip()
            elif not line:
                if name == kind:
                    payload: dict[str, Any] = json.loads(data or "{}")
                    if session is None or payload.get("id") == session:
                        return payload
                name, data = "message", ""
    raise AssertionError(f"the stream ended before a {kind!r} event")


async def open_stream(lines: AsyncIterator[str]) -> None:
    """Read up to the stream's opening comment: from then on, the server is watching for us."""
    with anyio.fail_after(10):
        async for line in lines:
            if line.startswith(": watching"):
                return


async def test_the_event_stream_tells_of_calls_creations_forks_and_deletes(
    http: httpx.AsyncClient, base_url: str
) -> None:
    async with http.stream("GET", "/ui/events") as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        assert response.headers["cache-control"] == "no-cache"
        lines = response.aiter_lines()
        await open_stream(lines)
        await call(base_url, "live-1", "create_ticket", NEW_TICKET)
        summary = await next_event(lines, "session", "live-1")
        assert summary["env"] == "tickets"
        assert summary["events"] == 1
        async with httpx.AsyncClient(base_url=base_url) as other:
            await other.post("/sessions", json={"id": "live-2", "env": "shop"})
            assert (await next_event(lines, "session", "live-2"))["events"] == 0
            await other.post("/sessions/live-1/fork", json={"id": "live-1-fork"})
            assert (await next_event(lines, "session", "live-1-fork"))["forked_from"] == "live-1"
            await other.post("/sessions/live-1/snapshots", json={"name": "s1"})
            assert (await next_event(lines, "session", "live-1"))["snapshots"] == ["s1"]
            await other.delete("/sessions/live-2")
            assert await next_event(lines, "deleted", "live-2") == {"id": "live-2"}


async def test_a_stream_can_watch_one_session(http: httpx.AsyncClient, base_url: str) -> None:
    async with http.stream("GET", "/ui/events", params={"session": "only-me"}) as response:
        lines = response.aiter_lines()
        await open_stream(lines)
        await call(base_url, "not-me", "create_ticket", NEW_TICKET)
        await call(base_url, "only-me", "create_ticket", NEW_TICKET)
        # The first session event this stream sees is the watched session's.
        assert (await next_event(lines, "session"))["id"] == "only-me"


def test_event_streams_end_when_the_server_stops() -> None:
    seen: list[str] = []
    connected = threading.Event()

    def listen(url: str) -> None:
        with httpx.Client(timeout=30) as client, client.stream("GET", f"{url}/ui/events") as response:
            for line in response.iter_lines():
                seen.append(line)
                connected.set()

    with app_server() as url:
        listener = threading.Thread(target=listen, args=(url,), daemon=True)
        listener.start()
        assert connected.wait(10)
        stopping = time.monotonic()
    assert time.monotonic() - stopping < 5, "the open event stream held up the shutdown"
    listener.join(5)
    assert not listener.is_alive()
    assert "event: bye" in seen


async def test_the_live_feed_coalesces_and_bounds_each_watcher() -> None:
    feed = LiveFeed(max_watchers=2, max_pending=3)
    with feed.watch() as watch:
        for session in ("a", "b", "a"):
            feed.publish(session)
        update = await watch.next(1)
        assert update is not None
        assert update.session_ids == ("b", "a")
        assert await watch.next(0.01) is None  # nothing new: time for a heartbeat
        for n in range(5):  # more than max_pending: told to read everything again
            feed.publish(f"s{n}")
        update = await watch.next(1)
        assert update is not None
        assert update.resync
        assert not update.session_ids
        assert await watch.next(0.01) is None
        with feed.watch("x") as only:
            feed.publish("y")
            assert await only.next(0.01) is None
            feed.publish("x")
            update = await only.next(1)
            assert update is not None
            assert update.session_ids == ("x",)
            with pytest.raises(TooManyWatchers):
                feed.watch()
        assert feed.watchers == 1
        update = await watch.next(1)  # the watcher of every session heard of both
        assert update is not None
        assert update.session_ids == ("y", "x")
        async with anyio.create_task_group() as tasks:

            async def wait_for_close() -> None:
                update = await watch.next(30)
                assert update is not None
                assert update.closed

            tasks.start_soon(wait_for_close)
            await anyio.sleep(0.05)
            feed.close()
    assert feed.watchers == 0
    with feed.watch() as late:
        update = await late.next(30)
        assert update is not None
        assert update.closed


# ---------------------------------------------------------------------------------------------------- token


def test_with_a_token_the_ui_asks_for_it_and_keeps_it_in_a_cookie(token_url: str) -> None:
    with httpx.Client(base_url=token_url) as client:
        first = client.get("/ui/sessions/abc?event=2")
        assert first.status_code == 303
        assert first.headers["location"] == "/ui/login?next=%2Fui%2Fsessions%2Fabc%3Fevent%3D2"
        form = client.get(first.headers["location"])
        assert form.status_code == 200
        assert 'name="token"' in form.text
        assert "script-src 'self'" in form.headers["content-security-policy"]
        assert client.get("/ui/static/style.css").status_code == 200  # the login page needs it
        wrong = client.post("/ui/login", data={"token": "nope", "next": "/ui"})
        assert wrong.status_code == 401
        assert "not the server" in wrong.text
        assert "sim_mcp_token" not in client.cookies
        right = client.post("/ui/login", data={"token": TOKEN, "next": "/ui/environments"})
        assert right.status_code == 303
        assert right.headers["location"] == "/ui/environments"
        cookie = right.headers["set-cookie"]
        assert "HttpOnly" in cookie
        assert "SameSite=strict" in cookie
        assert "Path=/" in cookie
        assert client.get("/ui").status_code == 200
        assert client.get("/ui/environments").status_code == 200
        assert client.get("/sessions").status_code == 200  # reads of the control API
        # Changes need the UI's header beside the cookie: another site's form cannot send it.
        assert client.post("/sessions", json={"env": "tickets"}).status_code == 401
        created = client.post("/sessions", json={"env": "tickets"}, headers={"X-Sim-MCP-UI": "1"})
        assert created.status_code == 201
        # The cookie is for the UI and the control API only.
        assert client.get("/metrics").status_code == 401
        assert client.post("/mcp", json={}, headers={"X-Sim-MCP-UI": "1"}).status_code == 401


def test_a_token_in_the_url_becomes_the_cookie(token_url: str) -> None:
    with httpx.Client(base_url=token_url) as client:
        response = client.get("/ui", params={"token": TOKEN, "env": "tickets"})
        assert response.status_code == 303
        assert response.headers["location"] == "/ui?env=tickets"
        assert client.get("/ui").status_code == 200
    with httpx.Client(base_url=token_url) as client:
        wrong = client.get("/ui", params={"token": "nope"})
        assert wrong.status_code == 303
        assert wrong.headers["location"] == "/ui/login?next=%2Fui&error=wrong"
        assert "sim_mcp_token" not in client.cookies


def test_a_stale_cookie_goes_back_to_the_login(token_url: str) -> None:
    with httpx.Client(base_url=token_url, cookies={"sim_mcp_token": "old-token"}) as client:
        response = client.get("/ui")
        assert response.status_code == 303
        assert "error=stale" in response.headers["location"]
        assert client.get("/ui/events").status_code == 401  # data routes answer 401, not a redirect
        assert client.get("/ui/api/sessions/x/diff?seq=1").status_code == 401


def test_the_header_token_still_works_and_login_never_leaves_the_ui(token_url: str) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    assert httpx.get(f"{token_url}/ui", headers=headers).status_code == 200
    for target in ("https://evil.example/", "//evil.example/ui", "/sessions", "/ui\\..\\x"):
        response = httpx.post(f"{token_url}/ui/login", data={"token": TOKEN, "next": target})
        assert response.headers["location"] == "/ui", target


def test_without_a_token_the_login_page_sends_you_on(base_url: str) -> None:
    response = httpx.get(f"{base_url}/ui/login", params={"next": "/ui/environments"})
    assert response.status_code == 303
    assert response.headers["location"] == "/ui/environments"


# ---------------------------------------------------------------------------------------------------- diff


def test_rebuild_replays_patches_per_environment() -> None:
    initial = {"tickets": {"T-1": {"status": "open"}}, "n": 1}
    events: list[dict[str, Any]] = [
        {"seq": 1, "environment": "a", "state_patch": [{"op": "replace", "path": "/n", "value": 2}]},
        {"seq": 2, "kind": "user_message", "content": "hello"},
        {"seq": 3, "environment": "b", "state_patch": [{"op": "remove", "path": "/tickets/T-1"}]},
        {"seq": 4, "environment": "a", "state_patch": [{"op": "add", "path": "/tickets/T-2", "value": {}}]},
        {"seq": 5, "environment": "a", "state_patch": []},
    ]
    fourth = rebuild(events, 4, lambda env: initial)
    assert fourth is not None
    assert fourth.environment == "a"
    assert fourth.last_in_environment
    assert fourth.before == {"tickets": {"T-1": {"status": "open"}}, "n": 2}
    assert fourth.after == {"tickets": {"T-1": {"status": "open"}, "T-2": {}}, "n": 2}
    first = rebuild(events, 1, lambda env: initial)
    assert first is not None
    assert not first.last_in_environment
    message = rebuild(events, 2, lambda env: initial)
    assert message is not None
    assert message.environment is None
    assert rebuild(events, 9, lambda env: initial) is None
    assert initial == {"tickets": {"T-1": {"status": "open"}}, "n": 1}  # never changed in place
    broken = [{"seq": 1, "environment": "a", "state_patch": [{"op": "remove", "path": "/missing"}]}]
    failed = rebuild(broken, 1, lambda env: {})
    assert failed is not None
    assert failed.error is not None
    assert "does not apply" in failed.error


def test_changes_and_marked_lines() -> None:
    before = {"a": 1, "b": {"c": True, "d": [1, 2]}, "gone": "x"}
    after = {"a": 1, "b": {"c": 1, "d": [1]}, "new": None}
    found = [(change.kind, change.path) for change in changes(before, after)]
    assert found == [("changed", "/b/c"), ("removed", "/b/d/1"), ("added", "/new"), ("removed", "/gone")]
    lines, skipped = diff_lines(before, after)
    marked = [(line.mark, line.text.strip()) for line in lines if line.mark != "same"]
    assert marked == [
        ("old", '"c": true,'),
        ("new", '"c": 1,'),
        ("removed", "2"),
        ("added", '"new": null,'),
        ("removed", '"gone": "x"'),
    ]
    assert skipped == 0
    few, left_out = diff_lines(before, after, max_lines=3)
    assert len(few) == 3
    assert left_out > 0
    assert json_equal({"x": [1, {"y": None}]}, {"x": [1, {"y": None}]})
    assert not json_equal(1, True)
    assert not json_equal(1, 1.0)
    assert not json_equal({"a": 1}, {"a": 1, "b": 2})
    assert changes({"a/b": {"~": 1}}, {"a/b": {"~": 2}})[0].path == "/a~1b/~0"
