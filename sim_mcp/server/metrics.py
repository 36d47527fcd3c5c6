"""Prometheus metrics, in a registry of the server's own (no global state), served at `/metrics`."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from sim_mcp.engine.hooks import Change, Commit

# Label values of refused calls whose tool or environment is not known.
UNKNOWN_TOOL = "(unknown)"
NO_LABEL = "(none)"
_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)


class Metrics:
    """Calls by tool and outcome, latency, backend tokens, active sessions, errors by kind."""

    content_type = CONTENT_TYPE_LATEST

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.calls = Counter(
            "sim_mcp_tool_calls", "Tool calls answered, by environment, tool and outcome "
            "(ok, error: a simulated failure, failed: no valid outcome, or a refusal kind).",
            ["environment", "tool", "outcome"], registry=self.registry,
        )  # fmt: skip
        self.latency = Histogram(
            "sim_mcp_tool_call_latency_seconds", "Time to simulate and commit one call, by backend.",
            ["backend"], buckets=_LATENCY_BUCKETS, registry=self.registry,
        )  # fmt: skip
        self.tokens = Counter(
            "sim_mcp_backend_tokens", "Tokens the simulator backend used, by kind (input, output, cached).",
            ["backend", "kind"], registry=self.registry,
        )  # fmt: skip
        self.errors = Counter(
            "sim_mcp_errors", "Calls that did not succeed, by kind.", ["kind"], registry=self.registry
        )
        self.sessions = Gauge("sim_mcp_active_sessions", "Sessions held by the store.", registry=self.registry)
        self.reloads = Counter("sim_mcp_spec_reloads", "Spec folder reloads.", registry=self.registry)

    async def __call__(self, change: Change) -> None:
        """The after-commit subscriber (engine/hooks.py): counts each committed tool call."""
        if not isinstance(change, Commit) or change.kind == "message":
            return
        event = change.event
        self.calls.labels(event.environment or "", event.tool or "", change.kind).inc()
        if change.kind != "ok":
            self.errors.labels(change.kind).inc()
        self.latency.labels(event.backend).observe(event.latency_ms / 1000)
        for kind in ("input", "output", "cached"):
            if (count := getattr(event.tokens, kind)) > 0:
                self.tokens.labels(event.backend, kind).inc(count)

    def refused(self, environment: str | None, tool: str | None, kind: str) -> None:
        """A call turned away before simulation (no commit): unknown tool, invalid arguments, rate limit...
        Labelled with the tool and its environment when the tool is known; an unknown name counts as
        `(unknown)` (names a client made up must not each become a series), an unknown environment as `(none)`."""
        self.calls.labels(environment or NO_LABEL, tool or UNKNOWN_TOOL, kind).inc()
        self.errors.labels(kind).inc()

    def exposition(self, active_sessions: int | None) -> bytes:
        if active_sessions is not None:
            self.sessions.set(active_sessions)
        return generate_latest(self.registry)
