"""Rules programs written for a spec: by a model (`compile`: each program checked against the spec's
examples, recorded transitions and probe calls, `probes`, `transitions`), or scaffolded from the spec for a
person to fill in (`scaffold`, `sim-mcp rules init`)."""
