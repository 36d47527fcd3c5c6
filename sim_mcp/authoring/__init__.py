"""What writes environments: from real tools, the recording proxy, its recordings file, the model-free
inference of a twin, and the differential check of a twin against the real server (docs/twins.md); from a
model, `sim-mcp compile` (programs checked against examples, recorded transitions and probe calls) and
task generation."""
