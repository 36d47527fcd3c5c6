"""A lean MCP client for thousands of sessions from one process: 2026-07-28 JSON-RPC `tools/call`
POSTs written by hand over one keep-alive HTTP/1.1 connection per task (no pool to search, no
discover, no tool listing, no result validation).

httpx and the SDK client cost 2-9 ms of CPU per call at hundreds of connections (httpcore scans its
whole pool for every request), so on 2 cores they, not the server, would set the pace. This one costs
a fraction of a millisecond; the server sees the same requests the SDK client sends.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from typing import Any
from urllib.parse import quote, urlsplit

MODERN_VERSION = "2026-07-28"
_META = {
    "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
    "io.modelcontextprotocol/clientInfo": {"name": "sim-mcp-bench", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
_MAX_HEADER_BYTES = 64 * 1024


class CallFailed(RuntimeError):
    """An HTTP or JSON-RPC error, or a broken connection."""


class Connection:
    """One HTTP/1.1 keep-alive connection to `base_url`, opened on first use and again when the server
    closed it while idle (uvicorn does after 5 s): a request it never read is sent again, once."""

    def __init__(self, base_url: str) -> None:
        parts = urlsplit(base_url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._ids = itertools.count(1)

    async def request(
        self, method: str, target: str, body: bytes = b"", headers: dict[str, str] | None = None
    ) -> tuple[int, bytes]:
        """(status, body) of one request; `target` is the path with its query."""
        head = f"{method} {target} HTTP/1.1\r\nhost: {self.host}:{self.port}\r\ncontent-length: {len(body)}\r\n"
        head += "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
        data = head.encode("latin-1") + b"\r\n" + body
        reused = self._writer is not None
        try:
            return await self._exchange(data)
        except (ConnectionError, asyncio.IncompleteReadError) as e:
            await self.aclose()
            # Closed by the server before it read anything: the request was not handled, so send it again.
            unanswered = isinstance(e, ConnectionError) or not e.partial
            if not (reused and unanswered):
                raise CallFailed(f"connection failed: {type(e).__name__}: {e}") from e
        try:
            return await self._exchange(data)
        except (ConnectionError, asyncio.IncompleteReadError) as e:
            await self.aclose()
            raise CallFailed(f"connection failed: {type(e).__name__}: {e}") from e

    async def _exchange(self, data: bytes) -> tuple[int, bytes]:
        if self._writer is None or self._reader is None:
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port, limit=_MAX_HEADER_BYTES)
        reader, writer = self._reader, self._writer
        writer.write(data)
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        status_line, *lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
        if headers.get("transfer-encoding", "").lower() == "chunked":
            body = await _read_chunked(reader)
        else:
            body = await reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("connection", "").lower() == "close":
            await self.aclose()
        if headers.get("content-type", "").startswith("text/event-stream"):
            body = _last_sse_data(body)
        return status, body

    async def call(self, path: str, session: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The `CallToolResult` (as JSON) of `tools/call` in `session`; `CallFailed` on any error."""
        message = {
            "jsonrpc": "2.0",
            "id": next(self._ids),
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments, "_meta": _META},
        }
        headers = {
            "accept": "application/json, text/event-stream",
            "content-type": "application/json",
            "mcp-protocol-version": MODERN_VERSION,
            "mcp-method": "tools/call",
            "mcp-name": tool,
        }
        target = f"{path}?session={quote(session, safe='')}"
        status, raw = await self.request("POST", target, json.dumps(message).encode(), headers)
        if status != 200:
            raise CallFailed(f"HTTP {status}: {raw[:200].decode(errors='replace')}")
        try:
            reply = json.loads(raw)
        except ValueError as e:
            raise CallFailed(f"not JSON ({e}): {raw[:200]!r}") from e
        if "error" in reply:
            raise CallFailed(f"JSON-RPC error: {reply['error']}")
        result: dict[str, Any] = reply["result"]
        return result

    async def json(self, method: str, target: str, body: Any = None) -> Any:
        """A control-API request: JSON in, JSON out; `CallFailed` on a status of 300 or more."""
        data = b"" if body is None else json.dumps(body).encode()
        status, raw = await self.request(method, target, data, {"content-type": "application/json"})
        if status >= 300:
            raise CallFailed(f"{method} {target}: HTTP {status}: {raw[:200].decode(errors='replace')}")
        return json.loads(raw) if raw else None

    async def aclose(self) -> None:
        writer, self._reader, self._writer = self._writer, None, None
        if writer is not None:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    chunks: list[bytes] = []
    for _ in range(1_000_000):
        size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
        if size == 0:
            await reader.readuntil(b"\r\n")
            return b"".join(chunks)
        chunks.append(await reader.readexactly(size))
        await reader.readexactly(2)
    raise CallFailed("chunked body without an end")


def _last_sse_data(stream: bytes) -> bytes:
    """The data of the last event of a server-sent event stream (the server answers a slow 2026-07-28
    call as a stream, with `: ping` comments before its one message)."""
    data: list[bytes] = []
    for event in stream.replace(b"\r\n", b"\n").split(b"\n\n"):
        lines = [line[5:].lstrip(b" ") for line in event.split(b"\n") if line.startswith(b"data:")]
        if lines:
            data = lines
    return b"\n".join(data)
