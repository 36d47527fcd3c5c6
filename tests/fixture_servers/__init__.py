"""Small real MCP servers written for the twin tests: a key-value store and a to-do list."""
