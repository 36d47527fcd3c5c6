"""A key-value store MCP server (`python -m tests.fixture_servers.kv_store`): values kept under keys, a
listing of the keys in sorted order with their count, and a count of what a delete by prefix removed."""

from __future__ import annotations

from typing import Any

from tests.fixture_servers._stdio import serve, tool

TOOLS = [
    tool(
        "set_value",
        "Store a value under a key (replacing the value it had).",
        {"key": {"type": "string"}, "value": {"type": "string"}},
        ["key", "value"],
    ),
    tool("get_value", "The value stored under a key.", {"key": {"type": "string"}}, ["key"]),
    tool(
        "delete_prefix",
        "Delete every key that starts with a prefix; says how many were deleted.",
        {"prefix": {"type": "string"}},
        ["prefix"],
    ),
    tool("list_keys", "Every key, sorted, and how many there are.", {}, []),
]


def main() -> None:
    store: dict[str, str] = {}

    def handle(name: str, args: dict[str, Any]) -> tuple[str, bool]:
        if name == "set_value":
            key, value = str(args["key"]), str(args["value"])
            existed = key in store
            store[key] = value
            return (f"Updated '{key}'" if existed else f"Set '{key}'"), False
        if name == "get_value":
            key = str(args["key"])
            if key not in store:
                return f"Key '{key}' not found", True
            return f"Value of '{key}': {store[key]}", False
        if name == "delete_prefix":
            prefix = str(args["prefix"])
            gone = [key for key in store if key.startswith(prefix)]
            for key in gone:
                del store[key]
            return f"Deleted {len(gone)} keys", False
        if name == "list_keys":
            if not store:
                return "No keys", False
            return f"Keys ({len(store)}): " + ", ".join(sorted(store)), False
        return f"Unknown tool {name}", True

    serve("kv-store", TOOLS, handle)


if __name__ == "__main__":
    main()
