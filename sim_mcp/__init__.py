"""sim-mcp: an MCP server that simulates any tool spec, with consistent per-session world state."""

__version__ = "0.1.0"
