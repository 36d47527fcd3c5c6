"""What a test of code that uses sim-mcp needs, with no model and no network.

- `FunctionBackend(fn)`: a backend whose every outcome a callable scripts (`scripted(*answers)`: one each,
  in order), keeping every request it was shown; hand it to `Runtime(settings, backend=...)` or a
  `Simulator`. For testing retries, repairs and what the simulator shows a model.
- `FakeProvider`: a local HTTP server on 127.0.0.1 that speaks the OpenAI Chat Completions and Anthropic
  Messages wire formats; point `--base-url` (or the SDKs) at `openai_url` / `anthropic_url`, script its
  replies (`reply_outcome`, `reply_text`, `reply_status`, `Reply`) and read back every request body. For
  testing the LLM backends through the real SDKs.

docs/testing.md shows both in a test.
"""

from __future__ import annotations

from sim_mcp.testing.backend import Answer, FunctionBackend, Script, scripted
from sim_mcp.testing.fake_provider import FakeProvider, Recorded, Reply, reply_outcome, reply_status, reply_text

__all__ = [
    "Answer",
    "FakeProvider",
    "FunctionBackend",
    "Recorded",
    "Reply",
    "Script",
    "reply_outcome",
    "reply_status",
    "reply_text",
    "scripted",
]
