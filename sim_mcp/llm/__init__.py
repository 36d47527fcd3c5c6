"""The LLM layer: everything between a call to simulate and a model's answer to it.

- what the layer reads of the settings is `sim_mcp.config.LlmConfig`;
- `transport.py`: sending a request (concurrency limit, deadline, retries, response forms, typed errors);
  `providers/`: one module per provider's wire format;
- `backend.py`: `LLMBackend`, one call's path, returning a finished `Outcome`;
- `context.py`: the prompt's context (the static part, the state slice, the history, the records named);
- `modes/`: one module per output mode (patch, program): instructions, decoding schema, finishing step;
- `reply.py`: reading a reply; `profiles/`: what one family of models needs, as data.

Submodules are imported where they are used, so that importing the package costs nothing.
"""
