"""Twins of real tools (docs/twins.md): the recording proxy in front of a real MCP server (`proxy`,
`upstream`, `recordings`), the model-free inference of a twin from what it recorded (`infer` and
`behaviours` for record stores, `keyed_world` for the world of keys a twin learns, `library` for the
Starlark both run as, `build` for `sim-mcp compile --from`), and the differential check of a twin against
the real server (`check`, with `agreement`, `targets`, `session_gen`, `stateful` and `drive`)."""
