"""One module per provider, each only its wire format: `openai` (Chat Completions, and any server that speaks
it) and `anthropic` (Messages). They are imported only when asked for (`load_backend`)."""
