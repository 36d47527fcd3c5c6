"""Fault injection: which calls fail, time out, arrive malformed or late, decided by seeded draws.

`decide` is pure: the same faults, seed, session, event number and tool always give the same decision,
so a run is reproducible, and calls of other sessions (in any order, concurrently) never change it.
The simulator applies the decision (`Simulator._simulate_and_commit`):

- **error**: an error result from a short list of realistic ones (503, 429, 500, 502, 504, a reset
  connection); no simulation, no state change.
- **timeout**: the call takes `timeout_ms`, then an error result saying it timed out; no simulation,
  no state change.
- **malformed**: the call is simulated and committed as usual (the state changes as the tool acted),
  but the result arrives cut off: truncated JSON text, `is_error` false, no structured content. It is
  what a response lost half-way looks like: the agent must find out what happened (read the state
  back) rather than retry blindly. MCP clients that check structured content against the tool's
  output schema (the SDK's `Client`) reject such a result, as they would a real server's.
- **latency** (any call but a timeout): the call is held for the drawn time before it is answered.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from typing import Literal

from sim_mcp.config import FaultsConfig
from sim_mcp.errors import ConfigError
from sim_mcp.specs.model import Faults, Latency

__all__ = [
    "ERROR_RESULTS",
    "NO_FAULT",
    "FaultDecision",
    "FaultKind",
    "active",
    "combined_faults",
    "decide",
    "server_faults",
    "truncated",
]

FaultKind = Literal["error", "timeout", "malformed"]

ERROR_RESULTS = (
    "503 Service Unavailable: the service is temporarily unavailable; try again later",
    "429 Too Many Requests: rate limit exceeded; retry after a few seconds",
    "500 Internal Server Error: an unexpected error occurred while processing the request",
    "502 Bad Gateway: the upstream service returned an invalid response",
    "504 Gateway Timeout: the upstream service did not respond in time",
    "connection reset by peer",
)
"""The error results an `error` fault picks from (as text: what a tool wrapping an HTTP API reports)."""


@dataclass(frozen=True, slots=True)
class FaultDecision:
    """What happens to one call: at most one fault, and how long the call is held."""

    kind: FaultKind | None
    # Milliseconds the call is held before it is answered: the added latency, or timeout_ms for a timeout.
    delay_ms: float = 0.0
    # The result of an error or timeout fault.
    message: str | None = None
    # A malformed result keeps this share of the result's text (0.3 to 0.7).
    keep: float = 1.0


NO_FAULT = FaultDecision(kind=None)


def combined_faults(*blocks: Faults | None) -> Faults | None:
    """The blocks merged field by field, later ones winning (flags, environment, tool); None if none is set."""
    merged: Faults | None = None
    for block in blocks:
        if block is not None:
            merged = block.over(merged)
    return merged


def active(faults: Faults | None) -> bool:
    """Whether `faults` can change any call."""
    if faults is None:
        return False
    rates = faults.error_rate + faults.timeout_rate + faults.malformed_rate
    return rates > 0 or (faults.latency_ms is not None and faults.latency_ms != 0)


def decide(
    faults: Faults, *, session_id: str, session_seed: int, seq: int, environment: str, tool: str
) -> FaultDecision:
    """The faults of the call that will be event `seq` of the session, drawn from a stream seeded by
    (faults.seed, the session's seed and id, seq, environment, tool)."""
    key = json.dumps([faults.seed or 0, session_seed, session_id, seq, environment, tool], separators=(",", ":"))
    rng = random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))
    # A fixed number of draws in a fixed order, whatever is drawn, so one setting never shifts another's draws.
    draw, pick, keep = rng.random(), rng.randrange(len(ERROR_RESULTS)), rng.uniform(0.3, 0.7)
    latency = _latency(faults.latency_ms, rng)
    if draw < faults.error_rate:
        return FaultDecision("error", latency, ERROR_RESULTS[pick])
    if draw < faults.error_rate + faults.timeout_rate:
        seconds = f"{faults.timeout_ms / 1000:g}"
        return FaultDecision(
            "timeout", faults.timeout_ms, f"timed out after {seconds} s: {tool} did not respond (504 Gateway Timeout)"
        )
    if draw < faults.error_rate + faults.timeout_rate + faults.malformed_rate:
        return FaultDecision("malformed", latency, keep=keep)
    return FaultDecision(None, latency)


def truncated(text: str, keep: float) -> str:
    """`text` cut off after `keep` of its characters (at least one), never valid JSON."""
    cut = text[: max(1, int(len(text) * keep))]
    try:
        json.loads(cut)
    except ValueError:
        return cut
    return cut + "\u2026"  # a whole value survived the cut (`1` of `12`): still not what was sent


def server_faults(settings: FaultsConfig) -> Faults | None:
    """The server-wide faults given by flags (`--fault-*`, `SIM_MCP_FAULT_*`), or None when none is set."""
    given = {
        "error_rate": settings.fault_error_rate,
        "timeout_rate": settings.fault_timeout_rate,
        "timeout_ms": settings.fault_timeout_ms,
        "malformed_rate": settings.fault_malformed_rate,
        "latency_ms": settings.fault_latency_ms,
        "seed": settings.fault_seed,
    }
    values = {name: value for name, value in given.items() if value is not None}
    if not values:
        return None
    rates = (settings.fault_error_rate, settings.fault_timeout_rate, settings.fault_malformed_rate)
    total = sum(rate or 0.0 for rate in rates)
    if total > 1:
        raise ConfigError(
            f"--fault-error-rate + --fault-timeout-rate + --fault-malformed-rate (SIM_MCP_FAULT_*) add up to "
            f"{total:g}: expected at most 1 (one fault per call)"
        )
    return Faults.model_validate(values)


def _latency(latency: float | Latency | None, rng: random.Random) -> float:
    if latency is None:
        return 0.0
    if not isinstance(latency, Latency):
        return latency
    match latency.distribution:
        case "uniform":
            return rng.uniform(latency.min or 0.0, latency.max or 0.0)
        case "normal":
            return max(0.0, rng.gauss(latency.mean or 0.0, latency.stddev or 0.0))
        case "exponential":
            mean = latency.mean or 0.0
            return rng.expovariate(1 / mean) if mean > 0 else 0.0
