"""A fake OpenAI-compatible provider with a fixed latency, for the RL-scale benchmark.

    python -m benchmarks.fake_llm --port 8124 --latency-ms 100

It answers `POST /v1/chat/completions` after `--latency-ms`, with an outcome that is consistent with
the call it reads from sim-mcp's prompt (the tool, its arguments and the world state): `create_ticket`
adds a ticket with the next id, `get_ticket` returns it (or a not-found error), `list_tickets` filters
by customer email or text. That is what a good simulator model would answer, so the benchmark can check
every session's results and final state. `GET /stats` reports the requests served and the most in
flight at once. A plain asyncio HTTP/1.1 server (keep-alive, Content-Length bodies): it should cost
as little CPU as possible, since it shares the machine with the server under test.

(`sim_mcp/testing/fake_provider.py` serves scripted replies from a queue, in a thread of the test process; the
benchmark needs replies computed per call, from a process of its own.)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import time
from typing import Any

_CALL = re.compile(r"## The call\nTool: (\S+)\n.*?```json\n(.*?)\n```", re.DOTALL)
# The state section may be whole, partial or sliced (a collection shown as its ids and last record), and
# the records a call names by id come in a block of their own, keyed by JSON pointer (sim_mcp/llm/context.py).
_STATE = re.compile(r"## World state[^\n]*\n.*?```json\n(.*?)\n```", re.DOTALL)
_NAMED = re.compile(r"## Records this call names \(by path\)[^\n]*\n.*?```json\n(.*?)\n```", re.DOTALL)
_TICKET_NUMBER = re.compile(r"\bT-(\d+)\b")
_MAX_HEADER_BYTES = 64 * 1024
_MAX_BODY_BYTES = 16 * 1024 * 1024


class Stats:
    def __init__(self) -> None:
        self.requests = 0
        self.in_flight = 0
        self.max_in_flight = 0


def outcome_for(prompt: str) -> dict[str, Any]:
    """The outcome a consistent simulator gives for the call in `prompt` (tickets environment)."""
    call = _CALL.search(prompt)
    state_match = _STATE.search(prompt)
    if call is None or state_match is None:
        return {"result": "fake provider: no call or state found in the prompt", "is_error": True, "state_patch": []}
    tool, arguments = call.group(1), json.loads(call.group(2))
    state = json.loads(state_match.group(1))
    named_match = _NAMED.search(prompt)
    named: dict[str, Any] = json.loads(named_match.group(1)) if named_match else {}
    shown = state.get("tickets", {})
    tickets: dict[str, Any] = shown if isinstance(shown, dict) and "records" not in shown else {}
    if tool == "create_ticket":
        # Every id the state section shows (a sliced one lists the ids and the last, highest, record).
        number = max((int(n) for n in _TICKET_NUMBER.findall(state_match.group(1))), default=1000) + 1
        ticket_id = f"T-{number}"
        now = f"2025-03-14T10:{number % 60:02d}:00Z"
        record = {
            "id": ticket_id,
            "title": arguments["title"],
            "description": arguments["description"],
            "customer_email": arguments["customer_email"],
            "priority": arguments.get("priority", "normal"),
            "status": "open",
            "assignee": None,
            "tags": arguments.get("tags", []),
            "resolution": None,
            "created_at": now,
            "updated_at": now,
        }
        return {
            "result": record,
            "is_error": False,
            "state_patch": [{"op": "add", "path": f"/tickets/{ticket_id}", "value": record}],
        }
    if tool == "get_ticket":
        found = named.get(f"/tickets/{arguments['ticket_id']}", tickets.get(arguments["ticket_id"]))
        if not isinstance(found, dict):
            return {"result": f"ticket {arguments['ticket_id']} not found", "is_error": True, "state_patch": []}
        return {"result": found, "is_error": False, "state_patch": []}
    if tool == "list_tickets":
        rows = [
            ticket
            for ticket in tickets.values()
            if all(ticket.get(key) == arguments[key] for key in ("customer_email", "status") if key in arguments)
        ]
        rows.sort(key=lambda ticket: str(ticket.get("created_at")), reverse=True)
        rows = rows[: arguments.get("limit", 20)]
        return {"result": {"tickets": rows, "count": len(rows)}, "is_error": False, "state_patch": []}
    return {"result": f"fake provider: tool {tool!r} is not simulated", "is_error": True, "state_patch": []}


def completion(body: dict[str, Any], number: int) -> dict[str, Any]:
    prompt = "\n".join(str(message.get("content", "")) for message in body.get("messages", []))
    outcome = outcome_for(prompt)
    content = json.dumps(outcome)
    return {
        "id": f"chatcmpl-bench-{number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "fake"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": None},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": len(prompt) // 4,
            "completion_tokens": len(content) // 4,
            "total_tokens": (len(prompt) + len(content)) // 4,
        },
    }


class FakeProvider:
    def __init__(self, latency_s: float) -> None:
        self.latency_s = latency_s
        self.stats = Stats()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                    return
                request_line, *header_lines = head.decode("latin-1").split("\r\n")
                method, path = request_line.split(" ")[:2]
                headers = {
                    name.strip().lower(): value.strip()
                    for name, _, value in (line.partition(":") for line in header_lines if line)
                }
                length = int(headers.get("content-length", "0"))
                if length > _MAX_BODY_BYTES:
                    return
                raw = await reader.readexactly(length) if length else b""
                status, payload = await self.route(method, path.split("?")[0], raw)
                data = json.dumps(payload).encode()
                writer.write(
                    f"HTTP/1.1 {status} {'OK' if status == 200 else 'Error'}\r\n"
                    f"content-type: application/json\r\ncontent-length: {len(data)}\r\n"
                    "connection: keep-alive\r\n\r\n".encode()
                    + data
                )
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            writer.close()

    async def route(self, method: str, path: str, raw: bytes) -> tuple[int, Any]:
        if method == "GET" and path == "/healthz":
            return 200, {"status": "ok"}
        if method == "GET" and path == "/stats":
            stats = self.stats
            return 200, {"requests": stats.requests, "max_in_flight": stats.max_in_flight}
        if method == "GET" and path == "/v1/models":
            return 200, {
                "object": "list",
                "data": [{"id": "fake", "object": "model", "created": 0, "owned_by": "bench"}],
            }
        if method == "POST" and path == "/v1/chat/completions":
            stats = self.stats
            stats.requests += 1
            stats.in_flight += 1
            stats.max_in_flight = max(stats.max_in_flight, stats.in_flight)
            try:
                body = json.loads(raw)
                await asyncio.sleep(self.latency_s)
                return 200, completion(body, stats.requests)
            finally:
                stats.in_flight -= 1
        return 404, {"error": {"message": f"no route {method} {path}", "type": "not_found"}}


async def serve(port: int, latency_s: float) -> None:
    provider = FakeProvider(latency_s)
    server = await asyncio.start_server(provider.handle, "127.0.0.1", port, backlog=4096, limit=_MAX_HEADER_BYTES)
    async with server:
        await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description="A fake OpenAI-compatible provider with a fixed latency.")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--latency-ms", type=float, default=100.0)
    args = parser.parse_args()
    asyncio.run(serve(args.port, args.latency_ms / 1000))


if __name__ == "__main__":
    main()
