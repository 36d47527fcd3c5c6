"""`sim-mcp generate`: environments written by a model from one sentence, shipped only when the project's own
gates pass (docs/generate.md).

- `forms.py`: what the model is asked at each step (the design, the world, the instructions again, more
  descriptions), each with the JSON Schema of its answer;
- `spec.py`: the design and the world made into a native spec, and why one is refused;
- `gates.py`: the gates after the programs (tasks, gain, consistency, agreement), on sandboxed simulators;
- `pipeline.py`: one description through every step and gate, failures quoted back, bounded;
- `batch.py`: many descriptions, concurrently, resumable, near-duplicates dropped, seeds expanded;
- `report.py`: per environment and per batch; `meter.py`: the tokens one environment cost.
"""

from sim_mcp.authoring.generate.batch import description_key, expand_descriptions, generate_batch, similarity
from sim_mcp.authoring.generate.pipeline import Generated, Options, generate_environment
from sim_mcp.authoring.generate.report import GATES, EnvironmentReport, GateResult, Summary
from sim_mcp.authoring.generate.spec import Bounds

__all__ = [
    "GATES",
    "Bounds",
    "EnvironmentReport",
    "GateResult",
    "Generated",
    "Options",
    "Summary",
    "description_key",
    "expand_descriptions",
    "generate_batch",
    "generate_environment",
    "similarity",
]
