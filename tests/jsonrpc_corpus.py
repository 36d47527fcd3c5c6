"""A corpus of malformed JSON-RPC for `/mcp`: truncated bodies, wrong types, huge ids, batch abuse, bytes
that are no JSON, and calls whose arguments are no object. Each case is a body and the `Mcp-Method` /
`Mcp-Name` headers a 2026-07-28 client would send with it (absent where the body has no such field)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

MODERN_VERSION = "2026-07-28"
LEGACY_VERSION = "2025-11-25"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
    "io.modelcontextprotocol/clientInfo": {"name": "fuzz", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


@dataclass(frozen=True)
class Case:
    label: str
    body: bytes
    method: str | None = None
    name: str | None = None


def initialize(client: str) -> dict[str, Any]:
    """A handshake-era `initialize` request, from a client of that name."""
    params = {"protocolVersion": LEGACY_VERSION, "capabilities": {}, "clientInfo": {"name": client, "version": "0"}}
    return {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}


def call(arguments: Any = None, *, name: Any = "get_ticket", id: Any = 1, modern: bool = True) -> dict[str, Any]:
    """A `tools/call` request (with the 2026-07-28 envelope in `_meta` when `modern`)."""
    params: dict[str, Any] = {"name": name, "arguments": {"ticket_id": "T-1001"} if arguments is None else arguments}
    if modern:
        params["_meta"] = META
    return {"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}


def _case(label: str, message: Any) -> Case:
    body = json.dumps(message).encode()
    method = message.get("method") if isinstance(message, dict) else None
    params = message.get("params") if isinstance(message, dict) else None
    name = params.get("name") if isinstance(params, dict) else None
    return Case(label, body, method if isinstance(method, str) else None, name if isinstance(name, str) else None)


def corpus(*, modern: bool, max_request_bytes: int) -> list[Case]:
    """Every case, for one protocol era."""
    good = call(modern=modern)
    text = json.dumps(good).encode()
    cases = [Case(f"truncated at {cut}", text[:cut], "tools/call", "get_ticket") for cut in range(0, len(text), 7)]
    cases += [Case(f"bytes {raw[:12]!r}", raw) for raw in (b"\xff\xfe\x00", b"NaN", b"[" * 10_000, b"{" * 10_000)]
    cases += [_case(f"not an object: {value!r:.20}", value) for value in (None, 0, "x", [], [1, 2], True)]
    for id in ({"a": 1}, [1], True, 1.5, 10**40, -(10**40), "x" * 10_000, None):
        cases.append(_case(f"id {json.dumps(id)[:20]}", call(id=id, modern=modern)))
    for field, value in (("jsonrpc", "1.0"), ("jsonrpc", 2), ("method", 5), ("method", None), ("params", [])):
        cases.append(_case(f"{field} {value!r}", {**good, field: value}))
    cases.append(_case("params a string", {**good, "params": "x"}))
    cases.append(_case("no jsonrpc", {key: value for key, value in good.items() if key != "jsonrpc"}))
    cases.append(_case("unknown method", {**good, "method": "tools/explode"}))
    for arguments in (5, "x", [], True, [{"ticket_id": "T-1001"}]):
        cases.append(_case(f"arguments {arguments!r}", call(arguments, modern=modern)))
    for name in (5, None, "", "x" * 10_000, "no_such_tool", "../../etc/passwd"):
        cases.append(_case(f"name {json.dumps(name)[:20]}", call(name=name, modern=modern)))
    cases += [
        _case("batch empty", []),
        _case("batch of 2", [good, good]),
        _case("batch of 1000", [call(id=i, modern=modern) for i in range(1000)]),
        _case("batch nested", [[good]]),
        _case("batch of numbers", [1, 2, 3]),
        Case("duplicate keys", text[:-1] + b',"id":2}', "tools/call", "get_ticket"),
        Case("over the body limit", b'{"x":"' + b"a" * max_request_bytes + b'"}', "tools/call"),
    ]
    return cases
